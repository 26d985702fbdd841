"""`reason maps`: circuit diagrams to SPICE netlists, ngspice simulation and simulation-aided answers (MAPS)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, SeedOpt, SkipBadOpt, WorkersOpt, open_writer, report_bad, seed_or_global
from toolkit.core import console
from toolkit.core.errors import InputError

app = typer.Typer(help="Circuit diagram -> SPICE netlist -> ngspice -> answer (MAPS).\n\n"
                       "Example: reason maps generate --tier small --n 20 --seed 7 --out-dir runs/c",
                  no_args_is_help=True)

TIERS = ("small", "medium", "dynamic", "v11")


def _need_circuit() -> None:
    from toolkit.core.extras import require

    require("circuit")


@app.command()
def generate(
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for circuits.jsonl, questions.jsonl, images/.")],
    tier: Annotated[str, typer.Option("--tier", help="small, medium, dynamic or v11.")] = "small",
    n: Annotated[int, typer.Option("--n", min=1, help="Number of circuits.")] = 20,
    style: Annotated[str, typer.Option("--style", help="clean or noisy (jitter, rotation, blur, JPEG).")] = "clean",
    questions: Annotated[int, typer.Option("--questions", min=0, help="Questions per circuit.")] = 2,
    workers: WorkersOpt = 1,
    seed: SeedOpt = None,
):
    """Random grid circuits with schematic images, SPICE netlists and questions answered by ngspice.

    Example: reason maps generate --tier small --n 20 --seed 7 --out-dir runs/c
    """
    if tier not in TIERS:
        raise InputError(f"--tier {tier}: must be one of {', '.join(TIERS)}")
    if style not in ("clean", "noisy"):
        raise InputError(f"--style {style}: must be clean or noisy")
    _need_circuit()
    from toolkit.maps.dataset import generate as run
    from toolkit.maps.simulate import ngspice_binary

    ngspice_binary()
    circuits, count = run(tier, n, seed_or_global(seed), out_dir, style=style, workers=workers, per_circuit=questions)
    console.info(f"wrote {circuits} circuits and {count} questions to {out_dir}")
