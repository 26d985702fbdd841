"""dsg fixtures: a small generated split, a tiny VLM over its vocabulary, the CLI run in-process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "assets" / "dsg" / "schemas"


@pytest.fixture(scope="session")
def split(tmp_path_factory) -> Path:
    """4 scenes per concept in the train styles (seed 7), with items and primitives."""
    from toolkit.core.records import RecordWriter
    from toolkit.dsg.data import generate_split
    from toolkit.dsg.schema import load_schemas
    from toolkit.dsg.styles import get_style

    out = tmp_path_factory.mktemp("dsg-split")
    items, prims = generate_split(["tictactoe", "maze", "stacks"], 4, get_style("train"), 7, out,
                                  load_schemas(SCHEMAS))
    for name, recs in (("items.jsonl", items), ("primitives.jsonl", prims)):
        with RecordWriter(out / name) as w:
            for r in recs:
                w.write(r)
    return out


@pytest.fixture(scope="session")
def tiny_dsg_vlm(tmp_path_factory, split) -> Path:
    """A random-weight tiny LLaVA (CLIP tower, 32 px) over the split's vocabulary."""
    from toolkit.core.records import read_records
    from toolkit.core.tiny_vlm import TinySpec
    from toolkit.dsg.train import build

    texts = [r["question"] for r in read_records(split / "primitives.jsonl")]
    out = tmp_path_factory.mktemp("dsg-tiny")
    build(out, texts, seed=0, spec=TinySpec(image_size=32, patch_size=8, vision_hidden=32, vision_layers=1,
                                            text_hidden=32, text_layers=1, vision="clip"))
    return out


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run `reason ARGS...` in this process: (exit code, stdout, stderr)."""
    from cli.main import main

    def run(*args: str, stdin: str | None = None):
        monkeypatch.setattr(sys, "argv", ["reason", *args])
        if stdin is not None:
            import io

            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code or 0
        out = capsys.readouterr()
        return code, out.out, out.err

    return run
