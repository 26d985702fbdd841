"""Optional extras: a command whose extra is missing fails with one line naming it."""

from __future__ import annotations

import importlib.util

from toolkit.core.errors import RuntimeFailure

EXTRAS = {
    "ml": ["torch", "transformers", "peft", "accelerate", "safetensors"],
    "sim": ["pybullet"],
    "sql": ["sqlglot", "rapidfuzz"],
    "swe": ["git", "coverage"],
    "ray": ["ray"],
    "graph": ["torch_geometric"],
    "circuit": ["PySpice", "schemdraw", "spicelib", "networkx", "lcapy"],
    "causal": ["sklearn", "networkx"],
    "geo": ["sympy", "shapely", "lark", "sklearn"],
    "vision": ["cv2", "pytesseract", "simpleeval", "num2words", "rapidfuzz"],
    "rl": ["gymnasium", "sklearn", "onnx", "onnxruntime"],
    "dsg": ["jsonschema", "networkx", "word2number"],
    "logic": ["constraint", "automata"],
    "selfaware": ["yaml", "sklearn"],
}


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def require(extra: str, *modules: str) -> None:
    """Raise a one-line error if any module of `extra` (or the listed ones) is missing."""
    needed = modules or tuple(EXTRAS[extra])
    missing = [m for m in needed if not has(m)]
    if missing:
        raise RuntimeFailure(
            f"this command needs the '{extra}' extra (missing: {', '.join(missing)}); "
            f"install it with: pip install 'reason-toolkit[{extra}]'"
        )


def installed_extras() -> dict[str, bool]:
    return {name: all(has(m) for m in mods) for name, mods in EXTRAS.items()}
