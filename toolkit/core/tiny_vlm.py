"""A small LLaVA-style VLM built from configs: vision tower + projector + Llama LM.

The vision tower is a ViT (CLIP) or a Swin transformer. Trained from scratch on a few
thousand images, Swin's convolution-like inductive bias (small patches, local windows,
patch merging) learns the visual cues where a plain ViT of the same size does not.

Nothing is downloaded: the tokenizer is a word-level one built from the caller's
question/answer texts (plus a base text), and every weight is randomly initialised from `seed`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.core.errors import InputError

VISION_KINDS = ("clip", "swin")
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<image>"]
IMAGE_TOKEN = "<image>"
WORD_RE = re.compile(r"\w+|[^\w\s]")
CHAT_WORDS = "USER ASSISTANT"  # the LLaVA-1.5 prompt's role words


def words_of(text: str) -> list[str]:
    return WORD_RE.findall(text)


def build_vocab(texts: Iterable[str], base_text: str = "") -> list[str]:
    """Specials, then every word of `base_text` and of `texts`, in first-seen order (deterministic)."""
    seen = dict.fromkeys(SPECIALS)
    for text in [base_text, *texts]:
        for w in words_of(text):
            seen.setdefault(w, None)
    return list(seen)


def build_tokenizer(vocab: list[str]):
    """A fast word-level tokenizer: words and single punctuation marks are tokens."""
    from toolkit.core.tokenizers import word_tokenizer

    return word_tokenizer(vocab, split_punctuation=True, extra_special_tokens={"image_token": IMAGE_TOKEN})


def detokenize(text: str) -> str:
    """Undo the spaces a word-level decoder puts around punctuation."""
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s*([-_])\s*", r"\1", text)
    return text.strip()


@dataclass
class TinySpec:
    image_size: int = 96
    patch_size: int = 12
    vision_hidden: int = 96
    vision_layers: int = 3
    vision_heads: int = 4
    vision: str = "clip"
    swin_window: int = 6
    swin_stages: int = 3  # patch size 4, merged at each later stage: one image token per 4 * 2**(stages-1) pixels
    text_hidden: int = 128
    text_layers: int = 2
    text_heads: int = 4
    max_positions: int = 512

    def check(self) -> None:
        if self.vision not in VISION_KINDS:
            raise InputError(f"--vision {self.vision!r}: expected one of {', '.join(VISION_KINDS)}")
        if self.vision == "swin":
            token = 4 * 2 ** (self.swin_stages - 1)
            if self.image_size % token or (self.image_size // token) % self.swin_window:
                raise InputError(f"--image-size {self.image_size}: a {self.swin_stages}-stage swin tower needs a "
                                 f"multiple of {token} whose {token}-pixel grid divides into windows of "
                                 f"{self.swin_window}")
            return
        if self.image_size % self.patch_size:
            raise InputError(f"--image-size {self.image_size} is not a multiple of --patch-size {self.patch_size}")
        for name, hidden, heads in (("vision", self.vision_hidden, self.vision_heads),
                                    ("text", self.text_hidden, self.text_heads)):
            if hidden % heads:
                raise InputError(f"{name} hidden size {hidden} is not divisible by {heads} heads")


def build_tiny_vlm(out: str | Path, texts: list[str] | None = None, spec: TinySpec | None = None,
                   seed: int = 0, base_text: str = CHAT_WORDS) -> dict:
    """Save a tiny LLaVA model, its processor and word tokenizer under `out`; return a summary.
    The vocabulary holds every word of `base_text` and `texts`."""
    import torch

    from toolkit.core.vlm import quiet_transformers

    quiet_transformers()
    from transformers import (
        CLIPImageProcessor,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    spec = spec or TinySpec()
    spec.check()
    vocab = build_vocab(texts or [], base_text)
    tok = build_tokenizer(vocab)
    vision, patch, extra_tokens, strategy = _vision_config(spec)
    n_patches = (spec.image_size // patch) ** 2
    text = LlamaConfig(vocab_size=len(vocab), hidden_size=spec.text_hidden, intermediate_size=2 * spec.text_hidden,
                       num_hidden_layers=spec.text_layers, num_attention_heads=spec.text_heads,
                       num_key_value_heads=spec.text_heads, max_position_embeddings=spec.max_positions,
                       pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                       tie_word_embeddings=True)
    image_token = tok.convert_tokens_to_ids(IMAGE_TOKEN)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=image_token,
                         vision_feature_select_strategy=strategy, vision_feature_layer=-1,
                         image_seq_length=n_patches, projector_hidden_act="gelu")
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    size = {"height": spec.image_size, "width": spec.image_size}
    images = CLIPImageProcessor(size=size, crop_size=size, do_center_crop=False, do_resize=True,
                                image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5])
    processor = LlavaProcessor(image_processor=images, tokenizer=tok, patch_size=patch,
                               vision_feature_select_strategy=strategy, num_additional_image_tokens=extra_tokens)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    params = sum(p.numel() for p in model.parameters())
    summary = {"out": str(out), "params": params, "vocab_size": len(vocab), "image_tokens": n_patches,
               "spec": asdict(spec), "seed": seed}
    (out / "tiny_spec.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _vision_config(spec: TinySpec):
    """(config, pixels per image token, extra tokens the tower adds, LLaVA feature strategy)."""
    from transformers import CLIPVisionConfig, SwinConfig

    if spec.vision == "swin":
        # widths double at each merge; the last stage's width is what the projector sees
        stages = spec.swin_stages
        depths = [1] * (stages - 1) + [max(1, spec.vision_layers - stages + 1)]
        scale = 2 ** (stages - 1)
        heads = [max(1, spec.vision_heads * 2 ** i // scale) for i in range(stages)]
        config = SwinConfig(image_size=spec.image_size, patch_size=4, embed_dim=max(1, spec.vision_hidden // scale),
                            depths=depths, num_heads=heads, window_size=spec.swin_window, mlp_ratio=2.0)
        return config, 4 * scale, 0, "full"
    config = CLIPVisionConfig(hidden_size=spec.vision_hidden, intermediate_size=2 * spec.vision_hidden,
                              num_hidden_layers=spec.vision_layers, num_attention_heads=spec.vision_heads,
                              image_size=spec.image_size, patch_size=spec.patch_size, projection_dim=spec.vision_hidden)
    return config, spec.patch_size, 1, "default"
