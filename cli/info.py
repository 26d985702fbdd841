"""`reason info`: what this installation has (versions, extras, devices)."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

from rich.markup import escape
from rich.table import Table

from toolkit import __version__
from toolkit.core.assets import assets_root
from toolkit.core.console import console
from toolkit.core.extras import has, installed_extras

PACKAGES = ["typer", "rich", "numpy", "numba", "scipy", "torch", "transformers", "peft", "accelerate",
            "bitsandbytes", "safetensors", "pybullet", "sqlglot", "rapidfuzz", "gitpython",
            "ray"]


def gather() -> dict:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    facts = {"reason": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
             "packages": versions, "extras": installed_extras(), "assets": str(assets_root())}
    facts["torch_device"], facts["cuda"] = "none", False
    if has("torch"):
        import torch

        facts["cuda"] = bool(torch.cuda.is_available())
        facts["torch_device"] = torch.cuda.get_device_name(0) if facts["cuda"] else "cpu"
    import numba

    facts["numba_threading_layer"] = numba.config.THREADING_LAYER
    facts["ocr"] = ocr_engine()
    facts["tesseract"] = facts["ocr"]["tesseract"]  # the version that reads, not merely the one on PATH
    return facts


def ocr_engine() -> dict:
    """cogcom's OCR engine as it would run here (toolkit.cogcom.ocr.engine_info), or why none runs."""
    try:
        from toolkit.cogcom.ocr import engine_info
    except ImportError as exc:  # the vision extra is not installed
        return {"engine": None, "tesseract": None, "program": None, "tessdata": None, "missing": exc.name}
    return engine_info()


def ocr_line(ocr: dict) -> str:
    if ocr["engine"] == "tesserocr":
        program = f"; tesseract program {ocr['program']} not used" if ocr["program"] else ""
        return f"tesseract {ocr['tesseract']} in-process (tesserocr){program}"
    if ocr["engine"] == "pytesseract":
        return f"tesseract program {ocr['tesseract']} (pytesseract)"
    return "missing (make sysdeps; pip install '.[vision]')"


def show(facts: dict) -> None:
    table = Table(title=f"reason {facts['reason']}", show_header=False)
    table.add_row("python", facts["python"])
    table.add_row("platform", facts["platform"])
    table.add_row("shipped models and data", facts["assets"])
    table.add_row("torch device", facts["torch_device"])
    table.add_row("CUDA available", str(facts["cuda"]))
    table.add_row("numba threading layer", str(facts["numba_threading_layer"]))
    table.add_row("OCR (cogcom)", escape(ocr_line(facts["ocr"])))
    for extra, ok in facts["extras"].items():
        table.add_row(f"extra: {extra}", "installed" if ok else "missing")
    for name, version in facts["packages"].items():
        table.add_row(name, version or "-")
    console.print(table)
