"""Collect probe datasets from an agent's rollouts and fit square-level linear probes.

A 1x1 probe reads one square's C-dim vector; a 3x3 probe the zero-padded 3x3 neighbourhood (9C). Sources: each
layer's last-tick cell state c, its hidden state h, or the observation; and, as a diagnostic beside the paper's
probes, tanh(c) ('tanh-cell'), the squashed cell state the LSTM itself reads (h = o * tanh(c)): a cell state with
heavy tails can hold what a linear probe on c misses. Two fits:
- `conv` (the official train_conv_probe.py): a bias-free k x k conv over whole boards, cross-entropy over the
  squares, AdamW (lr 1e-3, weight decay 1e-3), batches of 16 boards, 30 epochs, torch.manual_seed(seed) for the
  default Conv2d initialisation and the shuffling;
- `logreg`: multinomial LogisticRegression on standardised squares, the scaling folded back into raw-space weights.
Both return (5, F) weights in `features` order and a (5,) bias (zero for `conv`), so a 1x1 probe's rows are
intervention directions either way. Score: precision_recall_fscore_support(average='macro', zero_division=1)
over all squares of the test episodes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError
from toolkit.sokoban.concepts import CLASSES, labels
from toolkit.sokoban.drc import DRCAgent
from toolkit.sokoban.levels import Level
from toolkit.sokoban.rollout import rollout

SOURCES = ("cell", "hidden", "obs", "tanh-cell")


def collect(agent: DRCAgent, levels: list[Level], episodes: int, seed: int, chunk: int = 64) -> dict[str, np.ndarray]:
    """Rollouts on `episodes` levels (cycled, shuffled by seed): obs, last-tick c and h per layer, CA/CB labels.

    Rollouts run `chunk` levels at a time and keep only each step's last tick, so memory holds the dataset
    itself, not every tick of every episode (rollout batches the same way, so the episodes are the same)."""
    rng = np.random.default_rng(seed)
    order = [levels[i % len(levels)] for i in rng.permutation(max(episodes, len(levels)))[:episodes]]
    obs, cell, hidden, ca, cb, ep_id, solved = [], [], [], [], [], [], []
    for start in range(0, len(order), chunk):
        for e in rollout(agent, order[start:start + chunk], keep_obs=True, keep_states=True, batch=chunk):
            i = len(solved)
            states = np.stack([s[-1] for s in e.states])  # last tick: (T, 2, D, C, H, W)
            e.states = None  # the other ticks go now, not at the end of the run
            obs.append(np.stack(e.obs).astype(np.float16))
            cell.append(states[:, 0])
            hidden.append(states[:, 1])
            ca.append(labels(e.players, e.actions, e.pushes, agent.cfg.grid, "CA").astype(np.int8))
            cb.append(labels(e.players, e.actions, e.pushes, agent.cfg.grid, "CB").astype(np.int8))
            ep_id.append(np.full(e.steps, i, np.int32))
            solved.append(e.solved)
    return {"obs": np.concatenate(obs), "cell": np.concatenate(cell), "hidden": np.concatenate(hidden),
            "CA": np.concatenate(ca), "CB": np.concatenate(cb), "episode": np.concatenate(ep_id),
            "solved": np.array(solved, np.int8)}


def save_dataset(data: dict[str, np.ndarray], path: Path, config_hash: str) -> None:
    from safetensors.numpy import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: np.ascontiguousarray(v) for k, v in data.items()}, str(path), metadata={"config_hash": config_hash})


def load_dataset(path: str | Path) -> tuple[dict[str, np.ndarray], str]:
    from safetensors import safe_open
    from safetensors.numpy import load_file

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such dataset file")
    try:
        with safe_open(str(p), "np") as f:
            meta = f.metadata() or {}
        data = load_file(str(p))
    except Exception as exc:  # a truncated or foreign file: one line, not a traceback
        raise InputError(f"{p}: not a probe dataset ({type(exc).__name__})") from None
    for key in ("obs", "cell", "hidden", "CA", "CB"):
        if key not in data:
            raise InputError(f"{p}: dataset without '{key}'")
    return data, meta.get("config_hash", "")


def solved_steps(data: dict[str, np.ndarray], path) -> dict[str, np.ndarray]:
    """The steps of solved episodes only: a stuck agent's capped tail (most steps of an unsolved episode)
    carries no plan to decode."""
    if "episode" not in data or "solved" not in data:
        raise InputError(f"{path}: dataset without episode outcomes")
    keep = data["solved"].astype(bool)[data["episode"]]
    if not keep.any():
        raise InputError(f"{path}: no solved episode")
    return {k: (v if k == "solved" else v[keep]) for k, v in data.items()}


def features(grid: np.ndarray, kernel: int) -> np.ndarray:
    """(N, F, H, W) -> (N*H*W, F*k*k): each square's own vector or its zero-padded 3x3 neighbourhood."""
    if kernel not in (1, 3):
        raise InputError(f"--kernel {kernel}: expected 1 or 3")
    n, f, h, w = grid.shape
    if kernel == 3:
        padded = np.pad(grid, ((0, 0), (0, 0), (1, 1), (1, 1)))
        grid = np.concatenate([padded[:, :, dr:dr + h, dc:dc + w] for dr in range(3) for dc in range(3)], axis=1)
    return grid.transpose(0, 2, 3, 1).reshape(n * h * w, -1).astype(np.float32)


def source_grid(data: dict[str, np.ndarray], source: str, layer: int) -> np.ndarray:
    if source not in SOURCES:
        raise InputError(f"--source {source}: expected one of {', '.join(SOURCES)}")
    if source == "obs":
        return data["obs"].astype(np.float32)
    if source == "tanh-cell":
        return np.tanh(data["cell"][:, layer].astype(np.float32))
    return data[source][:, layer].astype(np.float32)


FITS = ("conv", "logreg")


def fit_conv_probe(grid: np.ndarray, y: np.ndarray, kernel: int, seed: int, epochs: int = 30, lr: float = 1e-3,
                   weight_decay: float = 1e-3, batch: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """The official ConvProbe fit on boards grid (N, F, H, W) with labels y (N, H, W): (5, F*k*k) weights in
    `features` order and a zero bias."""
    import torch

    if kernel not in (1, 3):
        raise InputError(f"--kernel {kernel}: expected 1 or 3")
    torch.manual_seed(seed)
    n, f, h, w = grid.shape
    conv = torch.nn.Conv2d(f, len(CLASSES), kernel, padding=kernel // 2, bias=False)
    opt = torch.optim.AdamW(conv.parameters(), lr=lr, weight_decay=weight_decay)
    x_all = torch.from_numpy(np.ascontiguousarray(grid, np.float32))
    y_all = torch.from_numpy(np.ascontiguousarray(y, np.int64)).reshape(n, h * w)
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for idx in torch.randperm(n).split(batch):
            opt.zero_grad()
            loss = loss_fn(conv(x_all[idx]).reshape(len(idx), len(CLASSES), h * w), y_all[idx])
            loss.backward()
            opt.step()
    weight = conv.weight.detach().permute(0, 2, 3, 1).reshape(len(CLASSES), -1).numpy().astype(np.float32)
    return weight, np.zeros(len(CLASSES), np.float32)


def fit_probe(x: np.ndarray, y: np.ndarray, seed: int, max_samples: int):
    """Multinomial logistic regression on standardised features, returned with the scaling folded into raw-space
    weights (so a probe applies to states as they are: a 1x1 probe is a 1x1 conv, its rows are intervention
    directions). Unscaled, lbfgs stops far from the optimum on cell states of very different ranges."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))[:max_samples]
    xs, ys = x[idx].astype(np.float64), y[idx]
    present = np.unique(ys)
    if len(present) < 2:  # e.g. no box ever pushed: the probe can only answer the one class it saw
        return _Linear(present, np.zeros((1, x.shape[1])), np.zeros(1))
    mean, std = xs.mean(0), xs.std(0)
    std[std < 1e-6] = 1.0  # a constant feature (e.g. a one-hot channel never set) carries nothing to rescale
    clf = LogisticRegression(max_iter=1000, C=1.0, random_state=seed)
    clf.fit((xs - mean) / std, ys)
    coef, intercept = clf.coef_, clf.intercept_
    if len(clf.classes_) == 2:  # sklearn keeps one row for two classes: class 0 scores 0, class 1 scores w.x + b
        coef, intercept = np.vstack([np.zeros_like(coef), coef]), np.r_[0.0, intercept]
    raw = coef / std
    probe = _Linear(clf.classes_, raw, intercept - raw @ mean)
    probe.sklearn, probe.mean, probe.std = clf, mean, std  # what was fitted, kept for checking the folding
    return probe


class _Linear:
    """A fitted probe in raw feature space: classes_, coef_ (K, F), intercept_ (K,)."""

    def __init__(self, classes: np.ndarray, coef: np.ndarray, intercept: np.ndarray):
        self.classes_ = np.asarray(classes)
        self.coef_ = np.asarray(coef, np.float32)
        self.intercept_ = np.asarray(intercept, np.float32)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.classes_[(x @ self.coef_.T + self.intercept_).argmax(1)]


def fit_threads(n: int, fit: str):
    """Hold the fits to n threads: torch's (conv) and every BLAS and OpenMP pool (a context). The libraries are
    loaded first, as a limit reaches only the pools loaded when it is set."""
    import sklearn.linear_model  # noqa: F401
    import sklearn.metrics  # noqa: F401
    from threadpoolctl import threadpool_limits

    if fit == "conv":
        import torch

        torch.set_num_threads(n)
    return threadpool_limits(n)


def fit_and_score(train: dict, test: dict, concept: str, source: str, layer: int, kernel: int, seed: int,
                  fit: str = "conv", epochs: int = 30, max_samples: int = 100_000
                  ) -> tuple[np.ndarray, np.ndarray, dict]:
    """One probe fitted on the train dataset ('conv': the official fit on every transition; 'logreg': up to
    max_samples squares) and scored on the test dataset: (weight, bias, score)."""
    if fit not in FITS:
        raise InputError(f"--fit {fit}: expected one of {', '.join(FITS)}")
    grid_train, grid_test = source_grid(train, source, layer), source_grid(test, source, layer)
    y_train = train[concept].astype(np.int64)
    if fit == "conv":
        w, b = fit_conv_probe(grid_train, y_train, kernel, seed, epochs)
    else:
        w, b = full_weights(fit_probe(features(grid_train, kernel), y_train.reshape(-1), seed, max_samples))
    return w, b, score(test[concept].reshape(-1).astype(int), predict(w, b, features(grid_test, kernel)))


def full_weights(clf) -> tuple[np.ndarray, np.ndarray]:
    """(5, F) weights and (5,) bias, with rows for classes absent from the training sample set to -inf bias."""
    f = clf.coef_.shape[1]
    weight, bias = np.zeros((len(CLASSES), f), np.float32), np.full(len(CLASSES), -1e9, np.float32)
    weight[clf.classes_] = clf.coef_
    bias[clf.classes_] = clf.intercept_
    return weight, bias


def score(y_true: np.ndarray, y_pred: np.ndarray) -> dict:
    from sklearn.metrics import precision_recall_fscore_support

    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="macro", zero_division=1,
                                                 labels=list(range(len(CLASSES))))
    pc, rc, fc, sc = precision_recall_fscore_support(y_true, y_pred, average=None, zero_division=1,
                                                     labels=list(range(len(CLASSES))))
    return {"macro_f1": round(float(f), 4), "macro_precision": round(float(p), 4), "macro_recall": round(float(r), 4),
            "per_class": {c: {"precision": round(float(pc[i]), 4), "recall": round(float(rc[i]), 4),
                              "f1": round(float(fc[i]), 4), "support": int(sc[i])} for i, c in enumerate(CLASSES)}}


def predict(weight: np.ndarray, bias: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (x @ weight.T + bias).argmax(1)


def probe_key(concept: str, source: str, layer: int, kernel: int) -> str:
    return f"{concept}.{source}.{layer if source != 'obs' else 0}.k{kernel}"


def save_probes(probes: dict[str, tuple[np.ndarray, np.ndarray]], path: Path, config_hash: str, meta: dict) -> None:
    from safetensors.numpy import save_file

    tensors = {}
    for key, (w, b) in probes.items():
        tensors[key + ".weight"], tensors[key + ".bias"] = w, b
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata={"config_hash": config_hash, "meta": json.dumps(meta)})


def load_probes(path: str | Path, config_hash: str | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from safetensors import safe_open

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such probes file")
    try:
        with safe_open(str(p), "np") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as exc:
        raise InputError(f"{p}: not a probes file ({type(exc).__name__})") from None
    if config_hash is not None and meta.get("config_hash") != config_hash:
        raise InputError(f"{p}: probes of another agent (config hash {meta.get('config_hash')} != {config_hash})")
    keys = {k.rsplit(".", 1)[0] for k in tensors}
    return {k: (tensors[k + ".weight"], tensors[k + ".bias"]) for k in keys}
