"""A training-only grounding loss on a LLaVA model's image tokens: "the asked object is in this patch".

A tiny VLM trained from scratch to write a box learns the box that minimises the loss with the image
ignored long before it learns where the object is: the box words' gradient reaches the vision tower only
through the language model's attention. A per-patch head on the projector input (the vision tower's selected
features, one row per image token) trained against the patches the object's box covers gives the tower a
direct gradient, so every image token says whether it holds the object. The head has one output per class
(e.g. the object's colour named in the question); a target trains the asked class's output only, so the
features learn "the red sign is here", not "some sign is here". The head is dropped when training ends:
the saved model is the plain VLM.

Targets travel in the encoded items under `aux_`-prefixed keys (one row per image of the item, in the
order the images reach the tower); `toolkit.core.vlm_train.forward` leaves those keys out of the model call.
"""

from __future__ import annotations

from typing import Any

from toolkit.core.errors import InputError

MASK, CLASS = "aux_patch_mask", "aux_patch_class"  # the `aux_` prefix keeps them out of the model call
QUERY = "aux_box_query"  # per item: the position that writes the first box coordinate (-1: none)
NO_TARGET = -1  # a class index for an image with no target (its mask row is ignored)


def patch_mask(box: list[float], size: tuple[int, int], grid: int) -> list[float]:
    """Row-major grid x grid 0/1 targets: 1 where the pixel box covers part of the patch. The tower sees the
    image resized to a square, so patch (r, c) holds the image's cell [c/grid, (c+1)/grid) x [r/grid, ...)."""
    w, h = size
    x0, y0, x1, y1 = box[0] / w * grid, box[1] / h * grid, box[2] / w * grid, box[3] / h * grid
    out = []
    for r in range(grid):
        for c in range(grid):
            covered = min(x1, c + 1) - max(x0, c) > 0 and min(y1, r + 1) - max(y0, r) > 0
            out.append(1.0 if covered else 0.0)
    return out


def find_projector_input(model):
    """The module whose input is one feature row per image token (LLaVA's multi_modal_projector)."""
    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] == "multi_modal_projector":
            return module
    raise InputError("the patch grounding loss needs a LLaVA-style model (a multi_modal_projector module)")


class PatchGrounding:
    """Captures the projector input on every forward and scores each image token against its patch target."""

    def __init__(self, model, n_classes: int, device):
        import torch

        projector = find_projector_input(model)
        width = next(m for m in projector.modules() if isinstance(m, torch.nn.Linear)).in_features
        self.head = torch.nn.Linear(width, n_classes).to(device)
        self._features = None
        self._hook = projector.register_forward_pre_hook(self._capture)

    def _capture(self, module, inputs):
        self._features = inputs[0]

    def parameters(self):
        return list(self.head.parameters())

    def loss(self, batch: dict[str, Any]):
        """Binary cross-entropy of the asked class's output per patch, the covered and the other patches
        weighing half each, over the images that have a target (zero, graph kept, when none has)."""
        import torch.nn.functional as F

        feats, self._features = self._features, None
        if feats is None:
            raise InputError("patch grounding: the model's forward pass did not go through its projector")
        classes, masks = batch[CLASS].to(feats.device), batch[MASK].to(feats.device)
        if feats.shape[0] != classes.shape[0] or feats.shape[1] != masks.shape[1]:
            raise InputError(f"patch grounding: {feats.shape[0]} images of {feats.shape[1]} tokens in the batch, "
                             f"targets for {classes.shape[0]} of {masks.shape[1]} patches")
        keep = classes != NO_TARGET
        if not bool(keep.any()):
            return self.head.weight.sum() * 0.0
        logits = self.head(feats[keep].float())  # (images, patches, classes)
        asked = logits.gather(-1, classes[keep].view(-1, 1, 1).expand(-1, logits.shape[1], 1)).squeeze(-1)
        target = masks[keep].float()
        ce = F.binary_cross_entropy_with_logits(asked, target, reduction="none")
        # balanced: the object covers a few of the patches, and "nowhere" must not be the cheap answer
        pos = (ce * target).sum() / target.sum().clamp(min=1.0)
        neg = (ce * (1 - target)).sum() / (1 - target).sum().clamp(min=1.0)
        return (pos + neg) / 2

    def state_dict(self) -> dict[str, Any]:
        return self.head.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.head.load_state_dict(state)

    def close(self) -> None:
        self._hook.remove()


class AttentionGrounding:
    """Training only: the language model's attention, where it writes a box, goes to the object's image tokens.

    Image tokens that say "the red sign is here" (PatchGrounding) do not make the language model look at them:
    from scratch it learns the constant box first, and the gradient that would teach one attention head to
    find the sign through the question's colour is weak. This loss takes one head of the last layer, at the
    position that writes the first box coordinate (`QUERY`; -1: the reply writes no box), and asks it to put
    its attention on the patches of the image the reply crops (the item's last image; its row of `MASK`):
    -log(attention mass on those patches). Needs eager attention (the weights are read from a hook).
    """

    def __init__(self, model, head: int = 0):
        layers = [m for n, m in model.named_modules() if n.endswith("self_attn") and "language_model" in n]
        if not layers:
            raise InputError("the attention grounding loss needs a LLaVA-style model (a language_model)")
        self.model, self.restore = model, model.config._attn_implementation
        model.set_attn_implementation("eager")  # sdpa returns no weights
        self.image_token = int(model.config.image_token_id)
        self.head = head
        self._weights = None
        self._hook = layers[-1].register_forward_hook(self._capture)

    def _capture(self, module, inputs, output):
        self._weights = output[1] if isinstance(output, tuple) and len(output) > 1 else None

    def parameters(self):
        return []

    def loss(self, batch: dict[str, Any]):
        import torch

        weights, self._weights = self._weights, None
        if weights is None:
            raise InputError("attention grounding: the last attention layer returned no weights (eager needed)")
        ids, queries, masks = batch["input_ids"], batch[QUERY], batch[MASK]
        n_patches = masks.shape[1]
        offset, terms = 0, []
        for b in range(ids.shape[0]):
            positions = (ids[b] == self.image_token).nonzero().squeeze(1)
            n_images = len(positions) // n_patches
            q = int(queries[b])
            if q >= 0 and n_images:
                on = masks[offset + n_images - 1].to(weights.device).bool()
                if bool(on.any()):
                    mass = weights[b, self.head, q, positions[-n_patches:][on]].sum()
                    terms.append(-torch.log(mass.float() + 1e-6))
            offset += n_images
        if not terms:
            return weights.sum() * 0.0
        return torch.stack(terms).mean()

    def close(self) -> None:
        """Unhook and give the model back its own attention implementation."""
        self._hook.remove()
        if self.restore:
            self.model.set_attn_implementation(self.restore)


def _module(model, suffix: str, what: str):
    """The last module whose dotted name ends with `suffix` (e.g. the language model's final norm)."""
    found = [m for n, m in model.named_modules() if n == suffix or n.endswith("." + suffix)]
    if not found:
        raise InputError(f"the readout loss needs a LLaVA-style model with {what} ({suffix})")
    return found[-1]


class ReadoutGrounding:
    """Training only: one head's output, read through the language model's own output words, names the box word.

    Attending to the sign's image tokens is not enough: a head's output is the attention-weighted *values* of
    those tokens, and rotary positions only steer where a head looks, never what it reads, so nothing makes an
    image token's value say which column or row it sits in. Two terms, both passed through the model's final
    norm and (tied) output head, so a head's output that satisfies them points at the word the reply needs:

    - at the position that writes the first coordinate (`QUERY`), head `x_head` of the last layer, and two
      tokens later (the second coordinate), head `y_head`: cross-entropy of the written word;
    - on every image token of each row's first image (the scene), the same heads' values alone, read the same
      way, must name the word of their own column (`x_head`) and row (`y_head`) among `position_words`
      (`position_words[k]`: the word a reply writes for grid column / row k).
    """

    def __init__(self, model, position_words: list[int], x_head: int = 0, y_head: int = 1):
        import torch

        layers = [(n, m) for n, m in model.named_modules() if n.endswith("self_attn") and "language_model" in n]
        if not layers:
            raise InputError("the readout loss needs a LLaVA-style model (a language_model)")
        attention = layers[-1][1]
        self.o_proj, self.v_proj = attention.o_proj, attention.v_proj
        self.norm = _module(model, "language_model.norm", "a final norm")
        self.lm_head = _module(model, "lm_head", "an output head")
        config = model.config.text_config
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.group = config.num_attention_heads // config.num_key_value_heads
        self.image_token = int(model.config.image_token_id)
        self.heads = (x_head, y_head)
        self.choices = sorted(set(position_words))  # the dense term picks among the position words only
        self.word_index = torch.tensor([self.choices.index(w) for w in position_words])
        self.grid = len(position_words)
        self.parts: dict[str, float] = {}
        self._mixed = self._values = None
        self._hooks = [self.o_proj.register_forward_pre_hook(self._capture_mixed),
                       self.v_proj.register_forward_hook(self._capture_values)]

    def _capture_mixed(self, module, inputs):
        self._mixed = inputs[0]  # (batch, tokens, heads * head_dim): each head's attention-weighted values

    def _capture_values(self, module, inputs, output):
        self._values = output  # (batch, tokens, kv heads * head_dim)

    def parameters(self):
        return []

    def read(self, vectors, head: int):
        """Logits over the vocabulary of head `head`'s (batch of) head_dim vectors, as the output head sees them."""
        d = self.head_dim
        out = vectors @ self.o_proj.weight[:, head * d:(head + 1) * d].T
        return self.lm_head(self.norm(out))

    def loss(self, batch: dict[str, Any]):
        import torch
        import torch.nn.functional as F

        mixed, values, self._mixed, self._values = self._mixed, self._values, None, None
        if mixed is None or values is None:
            raise InputError("readout grounding: the model's forward pass did not go through its last attention")
        ids, queries, d = batch["input_ids"].to(mixed.device), batch[QUERY], self.head_dim
        n_patches = self.grid * self.grid
        zero = mixed.sum() * 0.0
        written, dense = [], []
        for b in range(ids.shape[0]):
            q = int(queries[b])
            for k, head in enumerate(self.heads):
                at = q + 2 * k  # the coordinate word after "[[" (x) and after "," (y)
                if q >= 0 and at + 1 < ids.shape[1]:
                    logits = self.read(mixed[b, at, head * d:(head + 1) * d], head)
                    written.append(F.cross_entropy(logits.float().unsqueeze(0), ids[b, at + 1].unsqueeze(0)))
            positions = (ids[b] == self.image_token).nonzero().squeeze(1)[:n_patches]
            if len(positions) == n_patches:
                grid = torch.arange(n_patches, device=mixed.device)
                for k, head in enumerate(self.heads):
                    kv = head // self.group
                    logits = self.read(values[b, positions, kv * d:(kv + 1) * d], head)[:, self.choices]
                    cell = grid % self.grid if k == 0 else grid // self.grid  # column for x, row for y
                    dense.append(F.cross_entropy(logits.float(), self.word_index.to(mixed.device)[cell]))
        written_loss = torch.stack(written).mean() if written else zero
        dense_loss = torch.stack(dense).mean() if dense else zero
        self.parts = {"readout_loss": round(float(written_loss.detach()), 5),
                      "position_loss": round(float(dense_loss.detach()), 5)}
        return written_loss + dense_loss

    def close(self) -> None:
        for hook in self._hooks:
            hook.remove()
