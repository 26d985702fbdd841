"""AHA: a vision-language model that says whether a robot sub-task succeeded and, if not, why.

Public API:
  build_tiny_vlm(out, texts, spec, seed)        a small LLaVA from configs (no downloads)
  TrainConfig, train(cfg, resume)               LoRA / full / QLoRA fine-tuning on aha.sample data
  load_vlm(path, adapter)                       a local VLM (+ peft adapter) ready to generate
  load_samples(path), Sample                    aha.sample JSONL or LLaVA JSON, images resolved
  detect_local / detect_llm                     aha.verdict records from a local model or a VLM server
  join_rows, score_rows, aggregate              the paper's metrics over verdicts
  make_question, split_answer, verdict_word     prompt wording and answer parsing
  DEFAULT_MODEL                                 the shipped tiny detector (assets/aha/model)
"""

from toolkit.aha.prompt import make_answer, make_question, split_answer, verdict_word
from toolkit.aha.samples import Sample, load_samples, sample_from_image, split_by_episode
from toolkit.core.assets import asset_path

DEFAULT_MODEL = asset_path("aha/model")


def __getattr__(name):  # heavy parts (torch, transformers) load on first use
    lazy = {
        "build_tiny_vlm": "toolkit.aha.tiny", "TinySpec": "toolkit.aha.tiny",
        "TrainConfig": "toolkit.aha.train", "train": "toolkit.aha.train",
        "load_vlm": "toolkit.aha.vlm", "VLM": "toolkit.aha.vlm",
        "detect_local": "toolkit.aha.detect", "detect_llm": "toolkit.aha.detect",
        "join_rows": "toolkit.aha.evaluate", "score_rows": "toolkit.aha.evaluate",
        "aggregate": "toolkit.aha.evaluate",
    }
    if name in lazy:
        import importlib

        return getattr(importlib.import_module(lazy[name]), name)
    raise AttributeError(name)


__all__ = ["DEFAULT_MODEL", "Sample", "load_samples", "sample_from_image", "split_by_episode", "make_question",
           "make_answer", "split_answer", "verdict_word", "build_tiny_vlm", "TinySpec", "TrainConfig", "train",
           "load_vlm", "VLM", "detect_local", "detect_llm", "join_rows", "score_rows", "aggregate"]
