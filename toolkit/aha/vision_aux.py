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

With sub-task words given (`SubtaskWords`), the probe also reads the sub-task as a bag of words and
multiplies it into the image features: a wrong-object grid and its hindsight twin (same image, other
object named, other label) then give the tower a gradient towards the handled object's colour, where a
probe on the image alone can only see them as noise.
"""

from __future__ import annotations

import math
import re
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


class SubtaskWords:
    """The word vocabulary of the training sub-tasks; a word never seen in training maps to nothing."""

    def __init__(self, subtasks: list[str]):
        self.index = {w: i for i, w in enumerate(sorted({w for t in subtasks for w in self.words(t)}))}

    @staticmethod
    def words(text: str) -> list[str]:
        return re.findall(r"[a-z]+", text.lower())

    def ids(self, text: str) -> list[int]:
        return [self.index[w] for w in self.words(text) if w in self.index]

    def __len__(self) -> int:
        return len(self.index)


class VisionProbe:
    """Captures the projector input on every forward and scores it against Yes/No labels."""

    isolate: bool = False  # hand the projector detached features (the tower learns from the probe alone)

    def __init__(self, model, device, words: SubtaskWords | None = None, colours: int = 0, colour_ids=None):
        import torch

        projector = find_projector(model)
        first = next(m for m in projector.modules() if isinstance(m, torch.nn.Linear))
        width = first.in_features
        self.head = torch.nn.Linear(width, 2).to(device)
        self.words = words
        self.device = device
        self.modules = [self.head]
        if words is not None:  # bag of sub-task words, gating the image features before a second head
            self.embed = torch.nn.EmbeddingBag(max(len(words), 1), width, mode="mean").to(device)
            torch.nn.init.normal_(self.embed.weight, std=1.0)
            self.joint = torch.nn.Linear(width, 2).to(device)
            self.modules += [self.embed, self.joint]
        if colours:  # the handled object's colour from the image alone (pairs.colour_labels)
            self.colour = torch.nn.Linear(width, colours).to(device)
            self.modules.append(self.colour)
        self._features = None
        self._pooled = None
        self._hook = projector.register_forward_pre_hook(self._capture)
        # colour_ids: the LM's token ids of the colour words. The colour is then read as the best match,
        # over the image tokens the projector hands the LM, with each colour word's input embedding, so
        # the image tokens carry the colour in the very space the LM reads the word in.
        self.colour_ids = colour_ids
        self._tokens = None
        self._out_hook = projector.register_forward_hook(self._capture_out) if colour_ids is not None else None
        self.embeddings = model.get_input_embeddings() if colour_ids is not None else None

    def _capture_out(self, module, inputs, output):
        self._tokens = output

    def _capture(self, module, inputs):
        self._features = inputs[0]
        if self.isolate:
            return (inputs[0].detach(), *inputs[1:])
        return None

    def parameters(self):
        return [p for m in self.modules for p in m.parameters()]

    def logits(self, pooled, subtasks: list[str] | None):
        import torch

        out = self.head(pooled)
        if self.words is None:
            return out
        if subtasks is None or len(subtasks) != pooled.shape[0]:
            raise ValueError("a sub-task-conditioned probe needs one sub-task per image")
        ids = [self.words.ids(t) or [0] for t in subtasks]
        flat = torch.tensor([i for row in ids for i in row], device=pooled.device)
        offsets = torch.tensor([0] + [len(r) for r in ids[:-1]], device=pooled.device).cumsum(0)
        return out + self.joint(pooled * self.embed(flat, offsets))

    def loss(self, verdicts, subtasks: list[str] | None = None):
        """Cross-entropy of the probe on the last forward's image features (one image per sample);
        labels equal to IGNORE are skipped, and a batch of only those gives zero."""
        import torch.nn.functional as F

        feats = self._features
        if feats is None:
            raise InputError("--vision-aux: the model's forward pass did not go through its projector")
        pooled = feats.float().reshape(verdicts.shape[0], -1, feats.shape[-1]).mean(dim=1)
        self._features = None
        self._pooled = pooled
        keep = verdicts != IGNORE
        if not bool(keep.any()):
            return self.head.weight.sum() * 0.0  # keeps the graph: backward() stays valid
        logits = self.logits(pooled, subtasks)
        return F.cross_entropy(logits[keep], verdicts[keep])

    def colour_loss(self, colours):
        """Cross-entropy of the colour head on the image features `loss` last read; IGNORE skipped."""
        import torch.nn.functional as F

        keep = colours != IGNORE
        if self._pooled is None or not bool(keep.any()):
            return self.colour.weight.sum() * 0.0
        if self.colour_ids is None:
            return F.cross_entropy(self.colour(self._pooled)[keep], colours[keep])
        tokens = self._tokens.float().reshape(colours.shape[0], -1, self._tokens.shape[-1])
        words = self.embeddings.weight[self.colour_ids.to(tokens.device)].float()  # (colours, width)
        logits = (tokens @ words.T).amax(dim=1) / tokens.shape[-1] ** 0.5
        return F.cross_entropy(logits[keep], colours[keep])

    def state_dict(self) -> dict[str, Any]:
        return {str(i): m.state_dict() for i, m in enumerate(self.modules)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if "weight" in state:  # a checkpoint of a probe on the image alone
            state = {"0": state}
        for i, m in enumerate(self.modules):
            m.load_state_dict(state[str(i)])

    def close(self) -> None:
        self._hook.remove()
        if self._out_hook is not None:
            self._out_hook.remove()
