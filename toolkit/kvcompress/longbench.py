"""LongBench-format inputs and LongBench's metrics (Bai et al., 2024), chosen by dataset name.

A record: {"input": question, "context": long text, "answers": [gold, ...], "length": words,
"dataset": name, "all_classes": [...] (classification only)}. The score of one prediction is the best
over its gold answers, as in LongBench's scorer; a dataset's score is the mean, in [0, 1].
"""

from __future__ import annotations

import re
import string
from collections import Counter
from difflib import SequenceMatcher

from toolkit.core.errors import InputError
from toolkit.core.records import read_records

REQUIRED = ("input", "context", "answers", "length", "dataset")


def normalize_answer(text: str) -> str:
    """Lower case, drop punctuation, English articles and extra whitespace (SQuAD-style)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: list[str], truth: list[str]) -> float:
    common = Counter(prediction) & Counter(truth)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(prediction), same / len(truth)
    return 2 * precision * recall / (precision + recall)


def qa_f1(prediction: str, truth: str, **_) -> float:
    return token_f1(normalize_answer(prediction).split(), normalize_answer(truth).split())


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(prediction: str, truth: str, **_) -> float:
    """ROUGE-L F1 over whitespace tokens (longest common subsequence)."""
    p, t = prediction.split(), truth.split()
    if not p or not t:
        return 0.0
    lcs = _lcs(p, t)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(p), lcs / len(t)
    return 2 * precision * recall / (precision + recall)


def classification(prediction: str, truth: str, all_classes=(), **_) -> float:
    """1/k when the gold class is among the k class names found in the prediction (names that are only a
    part of the gold name do not count)."""
    found = [c for c in all_classes if c in prediction]
    found = [c for c in found if not (c in truth and c != truth)]
    return 1.0 / len(found) if truth in found else 0.0


def code_sim(prediction: str, truth: str, **_) -> float:
    """Edit similarity of the first predicted line that is not a comment or a fence, to the gold line."""
    line = next((x for x in prediction.lstrip("\n").split("\n")
                 if "`" not in x and "#" not in x and "//" not in x), "")
    return SequenceMatcher(None, line, truth, autojunk=False).ratio()


def count_score(prediction: str, truth: str, **_) -> float:
    numbers = re.findall(r"\d+", prediction)
    return sum(n == str(truth) for n in numbers) / len(numbers) if numbers else 0.0


def retrieval_score(prediction: str, truth: str, **_) -> float:
    """Paragraph retrieval: the share of numbers in the prediction that name the gold paragraph."""
    gold = re.findall(r"Paragraph (\d+)", truth)
    numbers = re.findall(r"\d+", prediction)
    if not gold or not numbers:
        return 0.0
    return sum(n == gold[0] for n in numbers) / len(numbers)


METRICS = {"qa_f1": qa_f1, "rouge": rouge_l, "classification": classification, "code_sim": code_sim,
           "count": count_score, "retrieval": retrieval_score}
DATASET_METRIC = {
    **dict.fromkeys(("narrativeqa", "qasper", "multifieldqa_en", "hotpotqa", "2wikimqa", "musique", "triviaqa"),
                    "qa_f1"),
    **dict.fromkeys(("gov_report", "qmsum", "multi_news", "samsum"), "rouge"),
    **dict.fromkeys(("trec", "lsht"), "classification"),
    **dict.fromkeys(("lcc", "repobench-p"), "code_sim"),
    "passage_count": "count",
    "passage_retrieval_en": "retrieval",
}
FIRST_LINE_ONLY = ("trec", "triviaqa", "samsum", "lsht")  # few-shot sets: the answer is the first line
MAX_NEW_TOKENS = {"qa_f1": 32, "rouge": 128, "classification": 64, "code_sim": 64, "count": 32, "retrieval": 32}


def base_name(dataset: str) -> str:
    """LongBench-E names carry an `_e` suffix; the metric is the base set's."""
    return dataset[:-2] if dataset.endswith("_e") and dataset[:-2] in DATASET_METRIC else dataset


def metric_for(dataset: str) -> str:
    name = base_name(dataset)
    if name not in DATASET_METRIC:
        raise InputError(f"dataset '{dataset}': no LongBench metric for it (known: {', '.join(DATASET_METRIC)}); "
                         "pass --metric")
    return DATASET_METRIC[name]


def score(dataset: str, prediction: str, answers: list[str], all_classes=(), metric: str | None = None) -> float:
    """LongBench score of one prediction: the best over the gold answers."""
    metric = metric or metric_for(dataset)
    if base_name(dataset) in FIRST_LINE_ONLY:
        prediction = prediction.lstrip("\n").split("\n")[0]
    fn = METRICS[metric]
    return max((fn(prediction, str(a), all_classes=all_classes) for a in answers), default=0.0)


def load_longbench(path, metric: str | None = None, skip_bad: bool = False, bad=None) -> list[dict]:
    """Validated LongBench records, each with its line number; a bad field names the line."""
    out = []
    for lineno, rec in enumerate(read_records(path, required=REQUIRED, skip_bad=skip_bad, bad=bad), start=1):
        where = f"{path}:{lineno}"
        try:
            for name in ("input", "context", "dataset"):
                if not isinstance(rec[name], str):
                    raise InputError(f"{where}: field '{name}': expected a string")
            if not isinstance(rec["answers"], list) or not rec["answers"]:
                raise InputError(f"{where}: field 'answers': expected a non-empty list")
            if not isinstance(rec["length"], int | float) or isinstance(rec["length"], bool):
                raise InputError(f"{where}: field 'length': expected a number")
            if metric is None:
                try:
                    metric_for(rec["dataset"])
                except InputError as exc:
                    raise InputError(f"{where}: field 'dataset': {exc}") from None
        except InputError as exc:
            if not skip_bad:
                raise
            if bad is not None:
                bad.add(str(exc))
            continue
        out.append(rec)
    return out


def prompt_text(rec: dict) -> str:
    """The context, then the question (the order of LongBench's prompt templates)."""
    return f"{rec['context']}\n\n{rec['input']}"


def truncate_middle(ids: list[int], max_length: int | None) -> list[int]:
    """LongBench keeps the first and last halves of an over-long prompt."""
    if max_length is None or len(ids) <= max_length:
        return ids
    half = max_length // 2
    return ids[:half] + ids[len(ids) - (max_length - half):]


def runner(model, tokenizer, records: list[dict], metric: str | None = None, max_length: int | None = None,
           max_new_tokens: int | None = None, on_prediction=None):
    """run(press, pinned) for evaluate.eval_grid: greedy answers to the records, scored by LongBench's metrics."""

    def run(press, pinned):
        import torch

        from toolkit.kvcompress.evaluate import cache_stats

        rows = []
        for rec in records:
            ids = truncate_middle(tokenizer(prompt_text(rec), add_special_tokens=True)["input_ids"], max_length)
            x = torch.tensor([ids], device=model.device)
            m = metric or metric_for(rec["dataset"])
            kwargs = dict(max_new_tokens=max_new_tokens or MAX_NEW_TOKENS[m], do_sample=False,
                          attention_mask=torch.ones_like(x), pad_token_id=tokenizer.pad_token_id,
                          eos_token_id=tokenizer.eos_token_id)
            with torch.no_grad(), press(model):
                out = model.generate(x, **kwargs)
            pred = tokenizer.decode(out[0, len(ids):].tolist(), skip_special_tokens=True)
            value = score(rec["dataset"], pred, rec["answers"], rec.get("all_classes") or (), metric)
            if on_prediction:
                on_prediction(press, rec, pred, value)
            rows.append({"task": rec["dataset"], "correct": value, "length": len(ids),
                         **cache_stats(press.last_cache)})
        return rows

    return run
