"""`hf:PATH` — a local transformers causal LM, batched generation on CPU or CUDA.

Options in the URI query: `?load_in_4bit=1`, `?load_in_8bit=1` (bitsandbytes, CUDA only),
`?device=cpu|cuda`, `?dtype=float32|bfloat16|float16`, `?batch_size=N` (requests per batched call),
`?adapter=DIR` (a peft adapter, e.g. a LoRA fine-tune, applied on top of the base model), `?beams=K` (greedy
requests under a `processor_for` constraint decoded by a beam of K, for models with a cached `beam_decode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.extras import require
from toolkit.core.llm.base import Backend, Completion, apply_stop, message_text
from toolkit.core.models import load_causal_lm


@dataclass
class HFBackend(Backend):
    path: Path = Path()
    options: dict[str, str] | None = None
    batch_size: int = 8
    # requests of one batch (one list of messages a row) -> a transformers LogitsProcessor for it, or None;
    # a system sets it to constrain what the model may write (chase-sql: only its prompt's schema names)
    processor_for: Callable[[list[list[dict[str, Any]]]], Any] | None = None
    # greedy constrained requests: a beam of this many hypotheses backs up from dead ends (1: plain greedy)
    beams: int = 1

    def __post_init__(self) -> None:
        require("ml", "torch", "transformers")
        opts = self.options or {}
        self.name = f"hf:{self.path}"
        self.batch_size = int(opts.get("batch_size", self.batch_size))  # complete_many's batch
        self.beams = int(opts.get("beams", self.beams))
        self.model, self.tokenizer, self.device = load_causal_lm(
            self.path,
            device=opts.get("device", "auto"),
            dtype=opts.get("dtype"),
            load_in_4bit=opts.get("load_in_4bit") in ("1", "true"),
            load_in_8bit=opts.get("load_in_8bit") in ("1", "true"),
        )
        if opts.get("adapter"):
            self.model = load_adapter(self.model, Path(opts["adapter"]))
            self.name += f"?adapter={opts['adapter']}"

    def render(self, messages: list[dict[str, Any]]) -> str:
        for m in messages:
            if not isinstance(m["content"], str) and any(p.get("type") != "text" for p in m["content"]):
                raise InputError(f"{self.name}: a causal LM cannot take images; use a VLM command")
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            msgs = [{"role": m["role"], "content": message_text(m)} for m in messages]
            return tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        lines = [f"{m['role']}: {message_text(m)}" for m in messages]
        return "\n".join(lines) + "\nassistant:"

    def prompt_tokens(self, messages: list[dict[str, Any]]) -> int:
        """How many tokens the rendered prompt takes (checked against the context window before a call)."""
        return len(self.tokenizer(self.render(messages), add_special_tokens=self._special())["input_ids"])

    def _special(self) -> bool:
        """Add BOS/EOS ourselves only without a chat template (a template writes its own)."""
        return not getattr(self.tokenizer, "chat_template", None)

    def _pad(self) -> int:
        tok = self.tokenizer
        return tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id

    def _seeds(self, prompts: list[str]) -> list[int]:
        """One sampling seed per prompt (`sample_seed`); random ones without a run seed."""
        import torch

        if self.seed is None:
            return torch.randint(0, 2 ** 62, (len(prompts),)).tolist()
        return [self.sample_seed(p) for p in prompts]

    def _left_padded(self, rows: list[list[int]]):
        import torch

        width = max(len(r) for r in rows)
        ids = torch.tensor([[self._pad()] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        return ids, mask

    def _trim(self, row: list[int]) -> list[int]:
        eos = self.tokenizer.eos_token_id
        if eos is not None and eos in row:
            row = row[: row.index(eos)]
        return [t for t in row if t != self._pad()]

    def _complete_many(self, requests, temperature, max_tokens, stop) -> list[Completion]:
        """`batch_size` requests at a time, left-padded. A model with its own cached `decode` (the copy-head
        LM) also batches sampled requests, each row on its own seeded stream; other models sample one by one."""
        fast = hasattr(self.model, "decode")
        if temperature > 0 and not fast:
            return super()._complete_many(requests, temperature, max_tokens, stop)
        import torch

        tok = self.tokenizer
        out: list[Completion] = []
        for lo in range(0, len(requests), self.batch_size):
            batch = requests[lo: lo + self.batch_size]
            prompts = [self.render(m) for m in batch]
            rows = [tok(p, add_special_tokens=self._special())["input_ids"] for p in prompts]
            ids, mask = self._left_padded(rows)
            proc = self.processor_for(batch) if self.processor_for is not None else None
            if temperature == 0 and self._beam_ok(proc):
                out.extend(self._beam(m, max_tokens, stop) for m in batch)
                continue
            if hasattr(proc, "budget"):
                proc.budget = max_tokens  # so that a constrained row closes its answer within the limit
            with torch.no_grad():
                if fast:
                    seeds = self._seeds(prompts) if temperature > 0 else None
                    seqs = self.model.decode(ids, mask, max_tokens, temperature, seeds, tok.eos_token_id,
                                             logits_processor=proc)[0].tolist()
                else:
                    seqs = self.model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_tokens,
                                               do_sample=False, pad_token_id=self._pad(),
                                               **self._processors(proc))[:, ids.shape[1]:].tolist()
            for r, row in zip(rows, seqs, strict=True):
                row = self._trim(row)
                out.append(Completion([apply_stop(tok.decode(row, skip_special_tokens=True), stop)], None,
                                      len(r), len(row)))
        return out

    def _beam_ok(self, proc) -> bool:
        return self.beams > 1 and proc is not None and hasattr(self.model, "beam_decode")

    def _beam(self, messages, max_tokens, stop) -> Completion:
        """One greedy request decoded by a beam under its own processor (told to drop rows it stops); plain
        greedy decoding when no hypothesis of the beam finished."""
        import torch

        tok = self.tokenizer
        row = tok(self.render(messages), add_special_tokens=self._special())["input_ids"]
        proc = self.processor_for([messages])
        if proc is not None:
            proc.budget, proc.prune = max_tokens, True
        with torch.no_grad():
            ids = self.model.beam_decode(torch.tensor([row], device=self.device), max_tokens, self.beams,
                                         tok.eos_token_id, logits_processor=proc)
        if ids is None:
            beams, self.beams = self.beams, 1
            try:
                return self._complete_many([messages], 0.0, max_tokens, stop)[0]
            finally:
                self.beams = beams
        ids = self._trim(ids)
        return Completion([apply_stop(tok.decode(ids, skip_special_tokens=True), stop)], None, len(row), len(ids))

    @staticmethod
    def _processors(proc) -> dict[str, Any]:
        if proc is None:
            return {}
        from transformers import LogitsProcessorList

        return {"logits_processor": LogitsProcessorList([proc])}

    def _complete(self, messages, n, temperature, max_tokens, stop) -> Completion:
        import torch

        tok = self.tokenizer
        prompt = self.render(messages)
        enc = tok([prompt], return_tensors="pt", add_special_tokens=self._special())
        enc = {k: v.to(self.device) for k, v in enc.items()}
        prompt_len = enc["input_ids"].shape[1]
        sample = temperature > 0
        seed = self._seeds([prompt])[0] if sample else 0
        proc = self.processor_for([messages] * n) if self.processor_for is not None else None
        if not sample and n == 1 and self._beam_ok(proc):
            return self._beam(messages, max_tokens, stop)
        if hasattr(proc, "budget"):
            proc.budget = max_tokens
        if hasattr(self.model, "decode"):
            with torch.no_grad():
                new_tokens, chosen = self.model.decode(
                    enc["input_ids"].repeat(n, 1), enc["attention_mask"].repeat(n, 1), max_tokens, temperature,
                    [seed + r * 2 ** 31 for r in range(n)], tok.eos_token_id, logits_processor=proc)
        else:
            kwargs = dict(max_new_tokens=max_tokens, do_sample=sample, num_return_sequences=n,
                          output_scores=True, return_dict_in_generate=True, pad_token_id=self._pad())
            kwargs.update(self._processors(proc))
            if sample:
                kwargs["temperature"] = float(temperature)
                if self.seed is not None:
                    torch.manual_seed(seed)
            with torch.no_grad():
                out = self.model.generate(**enc, **kwargs)
            new_tokens = out.sequences[:, prompt_len:]
            logsoft = torch.stack([s.float().log_softmax(-1) for s in out.scores], dim=1)  # (n, steps, vocab)
            chosen = logsoft.gather(2, new_tokens[:, :, None])[:, :, 0]
        texts, logprobs, produced = [], [], 0
        for row in range(new_tokens.shape[0]):
            ids = self._trim(new_tokens[row].tolist())
            produced += len(ids)
            texts.append(apply_stop(tok.decode(ids, skip_special_tokens=True), stop))
            logprobs.append([(tok.decode([t]), float(chosen[row, i])) for i, t in enumerate(ids)])
        return Completion(texts, logprobs, prompt_len, produced)


def load_adapter(model, adapter: Path):
    """The base model with a peft adapter from `adapter` (a directory holding adapter_config.json)."""
    if not (adapter / "adapter_config.json").is_file():
        raise InputError(f"{adapter}: not a peft adapter (no adapter_config.json)")
    require("ml", "peft")
    from peft import PeftModel

    try:
        return PeftModel.from_pretrained(model, str(adapter)).eval()
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{adapter}: cannot load the adapter ({first})") from None
