"""An auxiliary success probe on the image features, used only while training.

A VLM trained from scratch first learns the text-only answer (the share of "Yes" per
sub-task) and can stay on that plateau for a long time, because the Yes/No gradient
reaches the vision tower only through the language model's attention. A linear probe on
the mean-pooled projector input, trained with the same labels, gives the vision tower a
direct gradient, so its features encode success before the language model learns to read
them. The probe is dropped when training ends: the saved model is the plain VLM.

With `isolate` on (the vision warm-up stage of training), the projector sees the image features
detached: the answer loss still trains the projector, but the vision tower's only gradient is the
probe's. Adam scales each weight's step by its own gradient history, so on the tower the probe's
signal then sets the direction, however small its loss weight, instead of the answer loss's noise.
"""

from __future__ import annotations

import math
from typing import Any

from toolkit.core.errors import InputError

PROJECTOR_NAMES = ("multi_modal_projector",)
IGNORE = -100  # a label the probe skips (its image alone does not decide the answer)
CHANCE = math.log(2)  # the probe's cross-entropy when its features say nothing about Yes/No


def stuck_at_chance(mean_loss: float, margin: float = 0.05) -> bool:
    """True when the probe's loss stayed within `margin` of chance: the vision tower learned no success cue."""
    return mean_loss >= CHANCE - margin


def find_projector(model):
    """The module whose input is the vision tower's selected features (LLaVA-style models)."""
    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] in PROJECTOR_NAMES:
            return module
    raise InputError("--vision-aux needs a LLaVA-style model (a multi_modal_projector module); "
                     "this model has none: train without it")


class VisionProbe:
    """Captures the projector input on every forward and scores it against Yes/No labels."""

    isolate: bool = False  # hand the projector detached features (the tower learns from the probe alone)

    def __init__(self, model, device):
        import torch

        projector = find_projector(model)
        first = next(m for m in projector.modules() if isinstance(m, torch.nn.Linear))
        self.head = torch.nn.Linear(first.in_features, 2).to(device)
        self._features = None
        self._hook = projector.register_forward_pre_hook(self._capture)

    def _capture(self, module, inputs):
        self._features = inputs[0]
        if self.isolate:
            return (inputs[0].detach(), *inputs[1:])
        return None

    def parameters(self):
        return list(self.head.parameters())

    def loss(self, verdicts):
        """Cross-entropy of the probe on the last forward's image features (one image per sample);
        labels equal to IGNORE are skipped, and a batch of only those gives zero."""
        import torch.nn.functional as F

        feats = self._features
        if feats is None:
            raise InputError("--vision-aux: the model's forward pass did not go through its projector")
        pooled = feats.float().reshape(verdicts.shape[0], -1, feats.shape[-1]).mean(dim=1)
        self._features = None
        keep = verdicts != IGNORE
        if not bool(keep.any()):
            return self.head.weight.sum() * 0.0  # keeps the graph: backward() stays valid
        return F.cross_entropy(self.head(pooled[keep]), verdicts[keep])

    def state_dict(self) -> dict[str, Any]:
        return self.head.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.head.load_state_dict(state)

    def close(self) -> None:
        self._hook.remove()
