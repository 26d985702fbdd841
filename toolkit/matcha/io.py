"""Graph files: our `.npz`, H2GCN-style sparse `.npz` (Syn-Cora, Syn-Products) and `.pt` dicts of tensors.

In memory a graph keeps edges symmetrised (both directions), deduplicated and without self-loops, so every
format and every generator ends up in the same shape. Each problem in a file is one InputError naming the
file and the key (and the first bad column or node).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError


@dataclass
class Graph:
    x: np.ndarray                       # float32 [N, F]
    edge_index: np.ndarray              # int64 [2, E], symmetric, no duplicates or self-loops
    y: np.ndarray | None = None         # int64 [N]
    train_mask: np.ndarray | None = None
    test_mask: np.ndarray | None = None

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.x.shape[1])

    def undirected(self) -> np.ndarray:
        """Each edge once, as (i < j) columns."""
        ei = self.edge_index
        return ei[:, ei[0] < ei[1]]

    @classmethod
    def from_undirected(cls, x, edges, y=None, **masks) -> Graph:
        return cls(np.asarray(x, dtype=np.float32), clean_edges(edges, len(x)), y, **masks)

    def with_edges(self, edges: np.ndarray) -> Graph:
        return replace(self, edge_index=clean_edges(edges, self.num_nodes))


def clean_edges(edges: np.ndarray, n: int) -> np.ndarray:
    """Symmetrise, drop self-loops and duplicates; columns sorted by (source, target)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(2, -1)
    both = np.concatenate([edges, edges[::-1]], axis=1)
    both = both[:, both[0] != both[1]]
    keys = np.unique(both[0] * n + both[1])
    return np.stack([keys // n, keys % n]).astype(np.int64)


def graph_stats(graph: Graph) -> dict:
    """N, undirected edge count, realised mean degree, edge homophily and class sizes."""
    n, und = graph.num_nodes, graph.undirected()
    stats = {"nodes": n, "edges": int(und.shape[1]), "features": graph.num_features,
             "mean_degree": round(2 * und.shape[1] / max(n, 1), 4), "isolated_nodes":
             int(n - len(np.unique(graph.edge_index[0]))) if n else 0}
    if graph.y is not None:
        y = graph.y
        stats["classes"] = int(y.max()) + 1 if len(y) else 0
        stats["class_sizes"] = np.bincount(y, minlength=stats["classes"]).tolist()
        same = y[und[0]] == y[und[1]]
        stats["edge_homophily"] = round(float(same.mean()), 4) if len(same) else None
    if graph.test_mask is not None:
        stats["test_nodes"] = int(graph.test_mask.sum())
    return stats


# ---------------------------------------------------------------- loading

def load_graph(path: str | Path, *, allow_pickle: bool = False, need_labels: bool = False) -> Graph:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected a graph file (.npz or .pt)")
    if p.suffix == ".pt":
        graph = _load_pt(p, allow_pickle)
    elif p.suffix == ".npz":
        graph = _load_npz(p)
    else:
        raise InputError(f"{p}: unknown graph format '{p.suffix}' (expected .npz or .pt)")
    if need_labels and graph.y is None:
        raise InputError(f"{p}: key 'y' is missing (labels are needed here)")
    return graph


def _load_npz(p: Path) -> Graph:
    try:
        data = np.load(p, allow_pickle=False)
        keys = set(data.files)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"{p}: not a readable .npz file ({exc})") from None
    try:
        if "adj_data" in keys or "adj_indptr" in keys:
            return _from_h2gcn(p, data, keys)
        arrays = {k: _get(p, data, k) for k in ("x", "edge_index") if _need(p, keys, k)}
        for k in ("y", "train_mask", "test_mask"):
            arrays[k] = _get(p, data, k) if k in keys else None
        return validate(p, **arrays)
    finally:
        data.close()


def _need(p: Path, keys: set, key: str) -> bool:
    if key not in keys:
        raise InputError(f"{p}: key '{key}' is missing (has: {', '.join(sorted(keys)) or 'nothing'})")
    return True


def _get(p: Path, data, key: str) -> np.ndarray:
    try:
        return data[key]
    except ValueError as exc:  # an object array needs pickle; we never unpickle an npz
        raise InputError(f"{p}: key '{key}' cannot be read without pickle ({exc})") from None


def _from_h2gcn(p: Path, data, keys: set) -> Graph:
    import scipy.sparse as sp

    def csr(prefix):
        parts = [f"{prefix}_{s}" for s in ("data", "indices", "indptr", "shape")]
        for k in parts:
            _need(p, keys, k)
        try:
            return sp.csr_matrix(tuple(_get(p, data, k) for k in parts[:3]), shape=tuple(_get(p, data, parts[3])))
        except (ValueError, TypeError) as exc:
            raise InputError(f"{p}: keys '{prefix}_*' do not form a sparse matrix ({exc})") from None

    adj = csr("adj").tocoo()
    if "attr_matrix" in keys:
        x = _get(p, data, "attr_matrix")
    else:
        x = csr("attr").toarray()
    _need(p, keys, "labels")
    return validate(p, x=x, edge_index=np.stack([adj.row, adj.col]), y=_get(p, data, "labels"))


def _load_pt(p: Path, allow_pickle: bool) -> Graph:
    import pickle

    import torch

    try:
        obj = torch.load(p, map_location="cpu", weights_only=not allow_pickle)
    except pickle.UnpicklingError as exc:
        if not allow_pickle:
            raise InputError(f"{p}: holds pickled objects, not only tensors; pass --allow-pickle to load it "
                             f"(only for files you trust)") from None
        raise InputError(f"{p}: cannot unpickle ({exc})") from None
    except (RuntimeError, EOFError, OSError) as exc:
        raise InputError(f"{p}: not a readable torch file ({str(exc).splitlines()[0]})") from None
    if not isinstance(obj, dict):  # a torch_geometric Data object (only reachable with --allow-pickle)
        obj = {k: getattr(obj, k, None) for k in ("x", "edge_index", "y", "train_mask", "test_mask")}
    arrays = {}
    for k in ("x", "edge_index", "y", "train_mask", "test_mask"):
        v = obj.get(k)
        if v is None and k in ("x", "edge_index"):
            raise InputError(f"{p}: key '{k}' is missing")
        arrays[k] = v.detach().cpu().numpy() if hasattr(v, "detach") else (None if v is None else np.asarray(v))
    return validate(p, **arrays)


def validate(p: Path, x, edge_index, y=None, train_mask=None, test_mask=None) -> Graph:
    x = np.asarray(x)
    if x.ndim != 2 or not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise InputError(f"{p}: key 'x' must be a numeric [N, F] array (got shape {list(x.shape)}, {x.dtype})")
    x = x.astype(np.float32)
    bad_rows = np.flatnonzero(~np.isfinite(x).all(axis=1))
    if len(bad_rows):
        raise InputError(f"{p}: key 'x' has non-finite values (first at node {bad_rows[0]})")
    n = x.shape[0]
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2 or not np.issubdtype(ei.dtype, np.integer):
        raise InputError(f"{p}: key 'edge_index' must be an integer [2, E] array (got shape {list(ei.shape)}, "
                         f"{ei.dtype})")
    out = np.flatnonzero(((ei < 0) | (ei >= n)).any(axis=0))
    if len(out):
        c = out[0]
        raise InputError(f"{p}: key 'edge_index' column {c} ({ei[0, c]}, {ei[1, c]}) has a node id outside 0..{n - 1}")
    if y is not None:
        y = np.asarray(y)
        if y.shape != (n,) or not np.issubdtype(y.dtype, np.integer):
            raise InputError(f"{p}: key 'y' must be {n} integer labels (got shape {list(y.shape)}, {y.dtype})")
        neg = np.flatnonzero(y < 0)
        if len(neg):
            raise InputError(f"{p}: key 'y' has a negative label at node {neg[0]}")
        y = y.astype(np.int64)
    masks = {}
    for name, m in (("train_mask", train_mask), ("test_mask", test_mask)):
        if m is not None:
            m = np.asarray(m)
            if m.shape != (n,):
                raise InputError(f"{p}: key '{name}' must have {n} entries (got shape {list(m.shape)})")
            masks[name] = m.astype(bool)
    return Graph(x, clean_edges(ei, n), y, **masks)


def check_labels(graph: Graph, classes: int, path: str | Path) -> None:
    if graph.y is not None and len(graph.y) and graph.y.max() >= classes:
        node = int(np.flatnonzero(graph.y >= classes)[0])
        raise InputError(f"{path}: key 'y' has label {graph.y[node]} at node {node}, outside 0..{classes - 1}")


# ---------------------------------------------------------------- saving

def save_graph(graph: Graph, path: str | Path) -> Path:
    p = Path(path)
    if p.suffix != ".npz":
        raise InputError(f"{p}: graphs are written as .npz")
    p.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"x": graph.x, "edge_index": graph.edge_index}
    for k in ("y", "train_mask", "test_mask"):
        if getattr(graph, k) is not None:
            arrays[k] = getattr(graph, k)
    tmp = p.with_name(p.name + ".part.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(p)  # never leave half a graph under the final name
    return p
