"""`reason failgen`: procedurally perturbed PyBullet demonstrations -> AHA failure-reasoning data."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cli.common import RayOpt, ResumeOpt, SeedOpt, SkipBadOpt, WorkersOpt, seed_or_global
from toolkit.core import console

app = typer.Typer(
    help="Generate robot-failure episodes (FailGen on PyBullet) and AHA question/answer samples.\n\n"
         "Example: reason failgen --task stack --out runs/stack",
    invoke_without_command=True,
    no_args_is_help=False,
)


@app.callback()
def generate(
    ctx: typer.Context,
    task: Annotated[str | None, typer.Option("--task", "-t", help="Task name, comma list, or 'all'.")] = None,
    episodes: Annotated[int, typer.Option("--episodes", "-n", min=1, help="Seeds per task.")] = 1,
    modes: Annotated[str, typer.Option("--modes", "-m", help="'all' or a comma list of failure modes.")] = "all",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output dir (runs/failgen-TASK).")] = None,
    seed: SeedOpt = None,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
    resume: ResumeOpt = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite a non-empty output directory.")] = False,
    image_size: Annotated[int, typer.Option("--image-size", min=16, max=1024, help="Camera image side, px.")] = 128,
    no_images: Annotated[bool, typer.Option("--no-images", help="Records only, no camera images.")] = False,
    gif: Annotated[bool, typer.Option("--gif", help="Also write an animated front-view GIF per episode.")] = False,
    export: Annotated[tuple[str, Path] | None, typer.Option(
        "--export", help="After generating, write the samples as FORMAT FILE (format: llava).")] = None,
    no_nominal: Annotated[bool, typer.Option("--no-nominal", help="Only perturbed episodes.")] = False,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Extra draws when a mode had no effect.")] = 3,
    translation: Annotated[float | None, typer.Option("--translation", help="Translation noise, m (0.06).")] = None,
    rotation: Annotated[float | None, typer.Option("--rotation", help="Yaw noise, degrees (34).")] = None,
    tilt: Annotated[float | None, typer.Option("--tilt", help="Roll/pitch noise, degrees (69).")] = None,
    slip_steps: Annotated[int | None, typer.Option("--slip-steps", help="Steps before a slip opens (15).")] = None,
    grid_rows: Annotated[str, typer.Option("--grid-rows", help="View rows of the grid, top to bottom (official: "
                                           "front,wrist,overhead; earlier: front,overhead,wrist).")]
    = "front,wrist,overhead",
    future: Annotated[str, typer.Option("--future", help="Cells of keyframes after the sub-task: white (official) "
                                        "or trim (dropped from the grid).")] = "white",
) -> None:
    """Generate episodes: one nominal demo and one perturbed demo per selected mode, per seed.

    Writes OUT/episodes.jsonl, OUT/samples.jsonl and OUT/<episode_id>/ images; streams the records to
    stdout when it is piped; prints a summary table on stderr.

    Example: reason failgen --task stack --episodes 2 --out runs/stack | jq -c 'select(.type=="aha.sample")'
    """
    if ctx.invoked_subcommand is not None:
        return
    if task is None:
        console.info(ctx.get_help())
        raise typer.Exit(0)
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require

    require("sim")  # before anything is written: a rerun after installing it must not find a half-made OUT
    from toolkit.failgen import runner
    from toolkit.failgen.grid import FUTURES, parse_rows
    from toolkit.failgen.summary import show_summary

    rows = parse_rows(grid_rows)
    if future not in FUTURES:
        raise InputError(f"--future {future}: unknown; known: {', '.join(FUTURES)}")
    tasks = runner.resolve_tasks(task)
    mode_map = runner.resolve_modes(modes, tasks)
    if export is not None and export[0] != "llava":
        raise InputError(f"--export {export[0]}: unknown format; known formats: llava")
    if export is not None and no_images:
        raise InputError("--export llava needs images; drop --no-images")
    out_dir = out or Path("runs") / f"failgen-{task.replace(',', '_')}"
    runner.prepare_out(out_dir, resume=resume, force=force)
    opts = runner.Options(image_size=image_size, images=not no_images, gif=gif, retries=retries,
                          translation=translation, rotation_deg=rotation, slip_steps=slip_steps,
                          tilt_deg=tilt, grid_rows=rows, future=future)
    jobs = runner.plan_jobs(tasks, mode_map, seed_or_global(seed), episodes, out_dir, str(out_dir), opts,
                            with_nominal=not no_nominal)
    stream = None
    if not sys.stdout.isatty():
        from toolkit.core.records import dumps

        def stream(record: dict) -> None:
            sys.stdout.write(dumps(record) + "\n")
            sys.stdout.flush()

    start = time.perf_counter()
    summary = runner.run(jobs, out_dir, resume=resume, workers=workers, ray_address=ray, stream=stream)
    show_summary(summary, out_dir, time.perf_counter() - start)
    if export is not None:
        from toolkit.failgen.export import export as do_export

        n = do_export(out_dir / runner.SAMPLES, export[0], export[1])
        console.info(f"exported {n} samples to {export[1]} ({export[0]})")


@app.command("tasks")
def tasks_cmd(as_json: Annotated[bool, typer.Option("--json", help="One record per task on stdout.")] = False):
    """List the tasks, their sub-tasks and the failure modes that apply to each.

    Example: reason failgen tasks --json | jq -r .task
    """
    from toolkit.failgen import describe_tasks

    rows = describe_tasks()
    if as_json:
        from toolkit.core.records import dumps, make_record

        for row in rows:
            print(dumps(make_record("failgen.task", 1, **row)))
        return
    from rich.table import Table

    table = Table(title="failgen tasks")
    for col in ("task", "what", "sub-tasks", "modes"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(row["task"], row["summary"], "\n".join(row["subtasks"]), ", ".join(row["modes"]))
    console.console.print(table)


@app.command("modes")
def modes_cmd(as_json: Annotated[bool, typer.Option("--json", help="One record per mode on stdout.")] = False):
    """List the eleven failure modes, what each perturbs, and the tasks each applies to.

    Example: reason failgen modes
    """
    from toolkit.failgen import describe_modes

    rows = describe_modes()
    if as_json:
        from toolkit.core.records import dumps, make_record

        for row in rows:
            print(dumps(make_record("failgen.mode", 1, **row)))
        return
    from rich.table import Table

    table = Table(title="failgen failure modes")
    for col in ("mode", "perturbation", "tasks"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(row["mode"], row["description"], ", ".join(row["tasks"]))
    console.console.print(table)


@app.command("export")
def export_cmd(
    samples: Annotated[Path, typer.Argument(help="A samples.jsonl written by `reason failgen`.")],
    to: Annotated[Path, typer.Option("--to", help="Output JSON file.")],
    fmt: Annotated[str, typer.Option("--format", help="Export format: llava.")] = "llava",
    skip_bad: SkipBadOpt = False,
):
    """Export aha.sample records as LLaVA conversation JSON (image paths relative to the JSON file).

    Example: reason failgen export runs/stack/samples.jsonl --to runs/stack/llava.json
    """
    from toolkit.failgen.export import export

    n = export(samples, fmt, to, skip_bad=skip_bad)
    console.info(f"exported {n} samples to {to}")
