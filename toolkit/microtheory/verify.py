"""Entailment checks through the LLM (LLM-as-verifier), memoized per run."""

from __future__ import annotations

from toolkit.microtheory import prompts


class Verifier:
    """`entails(premises, hypothesis)` asks the LLM for a yes/no entailment verdict (temperature 0)."""

    def __init__(self, llm, max_tokens: int = 4) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.cache: dict[tuple[tuple[str, ...], str], bool] = {}

    def entails(self, premises: list[str], hypothesis: str) -> bool:
        key = (tuple(premises), hypothesis)
        if key not in self.cache:
            if not premises:
                self.cache[key] = False
            else:
                reply = self.llm.complete(prompts.entail_messages(list(premises), hypothesis), n=1,
                                          temperature=0.0, max_tokens=self.max_tokens)
                self.cache[key] = prompts.parse_yes_no(reply.text)
        return self.cache[key]

    @property
    def calls(self) -> int:
        return len(self.cache)


class NLIVerifier:
    """Entailment by a local NLI / cross-encoder sequence-classification model directory (`nli:PATH`).

    The premises are joined into one text and paired with the hypothesis; the verdict is "entails"
    when the label whose name contains "entail" gets the highest probability. The directory must hold
    a transformers model whose config names its labels (id2label).
    """

    def __init__(self, path) -> None:
        from toolkit.core.errors import InputError
        from toolkit.core.extras import require
        from toolkit.core.models import check_model_dir, quiet_library_logs

        require("ml", "torch", "transformers")
        quiet_library_logs()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path = check_model_dir(path, "NLI model")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        self.model = AutoModelForSequenceClassification.from_pretrained(str(path)).eval()
        labels = {int(i): str(name).lower() for i, name in self.model.config.id2label.items()}
        hits = [i for i, name in labels.items() if "entail" in name and "not" not in name]
        if len(hits) != 1:
            raise InputError(f"{path}: config id2label {sorted(labels.values())} has no single 'entailment' label")
        self.label = hits[0]
        self.cache: dict[tuple[tuple[str, ...], str], bool] = {}

    def entails(self, premises: list[str], hypothesis: str) -> bool:
        import torch

        key = (tuple(premises), hypothesis)
        if key not in self.cache:
            if not premises:
                self.cache[key] = False
            else:
                enc = self.tokenizer(" ".join(premises), hypothesis, return_tensors="pt", truncation=True)
                with torch.no_grad():
                    logits = self.model(**enc).logits[0]
                self.cache[key] = int(torch.argmax(logits)) == self.label
        return self.cache[key]

    @property
    def calls(self) -> int:
        return len(self.cache)


def make_verifier(spec: str | None, llm):
    """`nli:PATH` -> NLIVerifier; anything else -> the LLM verifier over `llm`."""
    if spec and spec.startswith("nli:"):
        return NLIVerifier(spec[4:])
    return Verifier(llm)
