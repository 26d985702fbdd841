"""The learned PPM: a transformers VisionEncoderDecoderModel built from configs - a tiny Swin encoder
over the grayscale schematic and a 3-layer GPT-2 decoder - that writes the circuit's grid text
(grid_text.py) with the project's word tokenizer. Greedy decoding, then `to_netlist`.

A model directory holds the transformers files (weights in shards under 4 MB), the tokenizer and
`ppm.json` (format, image size, training summary).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.maps.grid_text import base_words, grid_text

FORMAT = "maps-ppm-ved-1"
MAX_TOKENS = 128


@dataclass
class PPMSpec:
    image_size: int = 256
    patch_size: int = 4
    embed_dim: int = 24  # doubles at each Swin stage: 24, 48, 96; the decoder reads 16 x 16 tokens
    depths: tuple[int, ...] = (1, 1, 2)
    window: int = 8
    decoder_dim: int = 128
    decoder_layers: int = 3
    decoder_heads: int = 4

    def check(self) -> None:
        token = self.patch_size * 2 ** (len(self.depths) - 1)  # pixels per token at the last stage
        if self.image_size % (token * self.window):
            raise InputError(f"--image-size {self.image_size}: must be a multiple of {token * self.window} "
                             f"(Swin windows of {self.window} tokens at every stage)")


def is_learned(path: Path) -> bool:
    return (path / "ppm.json").is_file()


def build_tokenizer(vocab: list[str]):
    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    return word_tokenizer(list(dict.fromkeys([*SPECIALS, *vocab])))


def build_model(spec: PPMSpec, tok, seed: int = 0):
    import torch

    from toolkit.core.vlm import quiet_transformers

    quiet_transformers()
    from transformers import (
        GPT2Config,
        GPT2LMHeadModel,
        SwinConfig,
        SwinModel,
        VisionEncoderDecoderConfig,
        VisionEncoderDecoderModel,
    )

    spec.check()
    torch.manual_seed(seed)
    stages = len(spec.depths)
    enc = SwinConfig(image_size=spec.image_size, patch_size=spec.patch_size, num_channels=1,
                     embed_dim=spec.embed_dim, depths=list(spec.depths),
                     num_heads=[max(1, spec.embed_dim * 2 ** i // 32) for i in range(stages)],
                     window_size=spec.window, mlp_ratio=2.0,
                     use_absolute_embeddings=True)  # windows see relative positions only; the grid needs absolute ones
    dec = GPT2Config(vocab_size=len(tok), n_positions=MAX_TOKENS + 2, n_embd=spec.decoder_dim,
                     n_layer=spec.decoder_layers, n_head=spec.decoder_heads, add_cross_attention=True,
                     is_decoder=True, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                     pad_token_id=tok.pad_token_id)
    config = VisionEncoderDecoderConfig.from_encoder_decoder_configs(enc, dec)
    config.decoder_start_token_id = tok.bos_token_id
    config.pad_token_id = tok.pad_token_id
    config.eos_token_id = tok.eos_token_id
    model = VisionEncoderDecoderModel(config=config, encoder=SwinModel(enc), decoder=GPT2LMHeadModel(dec))
    model.generation_config.decoder_start_token_id = tok.bos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    return model


# ---- data ---------------------------------------------------------------------------------------------

def load_pixels(path: Path, size: int):
    """A size x size uint8 array (255 = ink) of a schematic; ValueError when unreadable."""
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            gray = im.convert("L")
    except (OSError, UnidentifiedImageError, SyntaxError) as exc:
        raise ValueError(f"cannot read image ({type(exc).__name__})") from None
    if gray.size != (size, size):
        gray = gray.resize((size, size), Image.BILINEAR)
    return 255 - np.asarray(gray, dtype=np.uint8)


def to_tensor(pixels):
    """uint8 [N, S, S] -> float [N, 1, S, S] in [-1, 1]."""
    import torch

    return torch.as_tensor(pixels).float().div(127.5).sub(1.0).unsqueeze(1)


def encode_folders(dirs: list[Path], size: int, limit: int | None = None) -> dict:
    """{'pixels': uint8 [N, S, S], 'texts': [...], 'ids': [...]} from folders written by `generate`."""
    import numpy as np

    from toolkit.core.records import read_records

    pixels, texts, ids = [], [], []
    for folder in dirs:
        path = folder / "circuits.jsonl"
        if not path.is_file():
            raise InputError(f"{path}: no such file (expected a folder written by `reason maps generate`)")
        for lineno, rec in enumerate(read_records(path, types=["maps.circuit"],
                                                  required=["layout", "components", "image"]), start=1):
            if limit and len(texts) >= limit:
                break
            try:
                pixels.append(load_pixels(folder / rec["image"], size))
            except (ValueError, FileNotFoundError) as exc:
                raise InputError(f"{path}:{lineno}: field 'image': {exc}") from None
            texts.append(grid_text(rec["layout"], rec["components"]))
            ids.append(rec["id"])
    if not texts:
        raise InputError("no training circuits found")
    return {"pixels": np.stack(pixels), "texts": texts, "ids": ids}


def cached_encoding(dirs: list[Path], size: int, cache: Path | None, limit: int | None = None) -> dict:
    """encode_folders, kept in `cache` (an .npz keyed by folders, size and limit) between runs."""
    import numpy as np

    key = json.dumps([[str(d) for d in dirs], size, limit])
    if cache is not None and cache.is_file():
        with np.load(cache, allow_pickle=False) as z:
            if str(z["key"]) == key:
                return {"pixels": z["pixels"], "texts": list(z["texts"]), "ids": list(z["ids"])}
    data = encode_folders(dirs, size, limit)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, key=key, pixels=data["pixels"], texts=np.array(data["texts"]), ids=np.array(data["ids"]))
    return data


def label_batch(tok, texts: list[str]):
    """Token ids + </s>, padded with -100 (ignored by the loss)."""
    import torch

    rows = [tok.convert_tokens_to_ids(t.split()) + [tok.eos_token_id] for t in texts]
    width = max(len(r) for r in rows)
    return torch.tensor([r + [-100] * (width - len(r)) for r in rows])


# ---- training -----------------------------------------------------------------------------------------

@dataclass
class TrainConfig:
    minutes: float = 20.0
    max_steps: int | None = None
    batch_size: int = 16
    lr: float = 1e-3
    # the encoder moves 10x slower: at the full rate its features collapsed to one image-independent output
    # (std across images 0.009 after 724 steps, 0.18 at initialisation) before the decoder learned to read them
    encoder_lr_scale: float = 0.1
    warmup: float = 0.02  # share of the run (the anchor's 2 % warmup), then cosine decay to 10 %
    seed: int = 0
    log_every: int = 10


def lr_factor(progress: float, warmup: float) -> float:
    if progress < warmup:
        return max(progress / warmup, 0.01)
    frac = min(1.0, (progress - warmup) / max(1e-9, 1 - warmup))
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac))


def train(data: dict, out: Path, spec: PPMSpec, cfg: TrainConfig,
          log: Callable[[dict], None] | None = None) -> dict:
    """Train on encoded data until the step cap or the wall-clock cap; progress (for the schedule) is the
    larger of the two shares. Saves the model to `out`; returns the training summary."""
    import numpy as np
    import torch

    vocab = base_words() + sorted({w for t in data["texts"] for w in t.split()} - set(base_words()))
    tok = build_tokenizer(vocab)
    model = build_model(spec, tok, cfg.seed)
    model.train()
    encoder = list(model.encoder.parameters())
    ids = {id(p) for p in encoder}
    opt = torch.optim.AdamW([{"params": encoder, "scale": cfg.encoder_lr_scale},
                             {"params": [p for p in model.parameters() if id(p) not in ids], "scale": 1.0}],
                            lr=cfg.lr, weight_decay=0.01)
    rng = np.random.default_rng(cfg.seed)
    n = len(data["texts"])
    start, step, losses, history = time.time(), 0, [], []
    budget = cfg.minutes * 60.0
    while True:
        elapsed = time.time() - start
        progress = max(elapsed / budget if budget > 0 else 0.0,
                       step / cfg.max_steps if cfg.max_steps else 0.0)
        if progress >= 1.0:
            break
        for group in opt.param_groups:
            group["lr"] = cfg.lr * group["scale"] * lr_factor(progress, cfg.warmup)
        idx = rng.choice(n, size=min(cfg.batch_size, n), replace=False)
        pixels = to_tensor(data["pixels"][idx])
        labels = label_batch(tok, [data["texts"][i] for i in idx])
        loss = model(pixel_values=pixels, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        losses.append(loss.item())
        if step % cfg.log_every == 0 or step == 1:
            entry = {"step": step, "loss": round(float(np.mean(losses[-cfg.log_every:])), 4),
                     "seconds": round(time.time() - start, 1)}
            history.append(entry)
            if log:
                log(entry)
    seconds = time.time() - start
    summary = {"format": FORMAT, "spec": asdict(spec), "train": asdict(cfg), "circuits": n, "steps": step,
               "seconds": round(seconds, 1), "steps_per_s": round(step / max(seconds, 1e-9), 3),
               "first_loss": history[0]["loss"] if history else None,
               "last_loss": round(float(np.mean(losses[-cfg.log_every:])), 4) if losses else None,
               "params": sum(p.numel() for p in model.parameters()), "vocab_size": len(tok)}
    save(model, tok, out, summary, history)
    return summary


def save(model, tok, out: Path, summary: dict, history: list[dict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, max_shard_size="3MB")
    tok.save_pretrained(out)
    (out / "ppm.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (out / "loss.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history), encoding="utf-8")


# ---- inference ----------------------------------------------------------------------------------------

class LearnedPPM:
    def __init__(self, model, tok, image_size: int):
        self.model, self.tok, self.image_size = model, tok, image_size

    def read_texts(self, pixels, batch_size: int = 16) -> list[str]:
        """Greedy grid texts for uint8 images [N, S, S]."""
        import torch

        out: list[str] = []
        for i in range(0, len(pixels), batch_size):
            with torch.no_grad():
                ids = self.model.generate(pixel_values=to_tensor(pixels[i:i + batch_size]),
                                          max_new_tokens=MAX_TOKENS, do_sample=False, num_beams=1)
            for row in ids.tolist():
                words = []
                for t in row[1:]:
                    if t == self.tok.eos_token_id:
                        break
                    words.append(self.tok.convert_ids_to_tokens(t))
                out.append(" ".join(w for w in words if w not in ("<pad>", "<s>")))
        return out


def load_learned(path: Path) -> LearnedPPM:
    """The learned PPM in `path`; a missing or corrupt part raises ValueError naming the file."""
    from toolkit.core.vlm import quiet_transformers

    meta_path = path / "ppm.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise KeyError("format")
        size = int(meta["spec"]["image_size"])
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        raise ValueError(f"{meta_path}: not a {FORMAT} description") from None
    quiet_transformers()
    from transformers import PreTrainedTokenizerFast, VisionEncoderDecoderModel

    try:
        model = VisionEncoderDecoderModel.from_pretrained(path, local_files_only=True)
        tok = PreTrainedTokenizerFast.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{path}: cannot load the learned PPM ({first[:200]})") from None
    model.eval()
    return LearnedPPM(model, tok, size)
