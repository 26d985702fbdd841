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
