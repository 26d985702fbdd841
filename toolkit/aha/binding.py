"""A training-only binding head: at the named object's colour word, did the robot handle that object?

The pair-margin loss (pairs.py) asks the verdict token for the word-image interaction in one step:
the verdict position must attend to the colour word, and the colour word must already carry a
comparison with the image. While neither exists, the loss's gradient towards either is the product
of two near-zero factors, and the margin never starts to depend on the word. This head asks for the
first factor on its own: a linear read-out of the language model's hidden state after `layer`
decoder layers, at the position of the colour word the sub-task names, must say whether that object
is the one the robot handled. The residual stream there holds the word's own embedding plus what its
attention gathered from the image tokens, so the layer's MLP can compute the match directly, with a
gradient that does not wait on the verdict position. Once the match sits at the word, the verdict
(one layer later) reads it linearly, where the pair-margin loss's gradient is first-order.

Targets come from the hindsight twins only (a wrong-object grid and its relabelled twin, a nominal
grid and its "#other" twin): the same image named both ways, so a head reading the word alone stays
at chance (ln 2). The head is dropped when training ends; the saved model is the plain LLaVA model.
"""

from __future__ import annotations

import math
from typing import Any

from toolkit.aha.pairs import COLOUR_WORDS
from toolkit.aha.samples import Sample

CHANCE = math.log(2)


def _colours(text: str) -> set[str]:
    return set(COLOUR_WORDS.findall(text.lower()))


def binding_targets(samples: list[Sample], pairs: list[tuple[int, int]]) -> dict[int, tuple[str, int]]:
    """Per member of a twin pair: (the colour word of the object its sub-task names, 1 when the robot
    handled that object). That word is the one the two sub-tasks do not share; the member labelled
    "Yes" names the handled object. A pair whose sub-tasks differ by other than one colour word each
    gives nothing."""
    out = {}
    for a, b in pairs:
        only_a = _colours(samples[a].subtask) - _colours(samples[b].subtask)
        only_b = _colours(samples[b].subtask) - _colours(samples[a].subtask)
        if len(only_a) != 1 or len(only_b) != 1:
            continue
        for i, word in ((a, only_a.pop()), (b, only_b.pop())):
            out[i] = (word, int(samples[i].label == "Yes"))
    return out


def word_position(item: dict[str, Any], token_id: int) -> int:
    """The last prompt position holding `token_id` (the sub-task closes the question), -1 when none."""
    answer = (item["labels"] != -100).nonzero()
    end = int(answer[0]) if len(answer) else int(item["input_ids"].shape[0])
    hits = (item["input_ids"][:end] == token_id).nonzero()
    return int(hits[-1]) if len(hits) else -1


class BindingHead:
    """A linear match logit on the hidden state at the named colour word (training only)."""

    def __init__(self, width: int, layer: int, device):
        import torch

        self.layer = layer
        self.linear = torch.nn.Linear(width, 1).to(device)

    def parameters(self):
        return list(self.linear.parameters())

    def loss(self, hidden_states, rows: list[int], positions: list[int], matches: list[int]):
        """Logistic loss of the head at (row, position) of the hidden states after `layer` layers;
        zero (graph kept) when the batch holds no target."""
        import torch
        import torch.nn.functional as F

        if not rows:
            return self.linear.weight.sum() * 0.0
        states = hidden_states[self.layer]
        device = states.device
        at = states[torch.tensor(rows, device=device), torch.tensor(positions, device=device)].float()
        logits = self.linear(at).squeeze(-1)
        return F.binary_cross_entropy_with_logits(logits, torch.tensor(matches, device=device, dtype=torch.float))

    def state_dict(self) -> dict[str, Any]:
        return self.linear.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.linear.load_state_dict(state)
