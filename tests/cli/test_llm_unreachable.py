"""Every subcommand that takes `--llm`, pointed at a port where nothing listens: exit != 0 within 30 s, one line.

The subcommands are found by walking the typer apps, so a new one without inputs here fails the sweep."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.conftest import ROOT, run_reason

ASSETS = ROOT / "assets"
NOWHERE = "openai:x@http://127.0.0.1:9"
LIMIT_S = 30.0


def llm_commands() -> list[str]:
    """'group command' of every subcommand with an --llm option."""
    from typer.main import get_command

    from cli.main import app

    found = []

    def walk(cmd, path):
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])
        if not hasattr(cmd, "commands") and any("--llm" in getattr(p, "opts", ()) for p in cmd.params):
            found.append(" ".join(path))

    walk(get_command(app), [])
    return sorted(found)


def _head(src: Path, dst: Path, n: int = 1, image_key: str | None = None) -> Path:
    """The first n records of `src`, image paths made absolute so the copy reads them from anywhere."""
    lines = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines() if line.strip()][:n]
    with dst.open("w", encoding="utf-8") as fh:
        for rec in lines:
            if image_key:
                rec[image_key] = str((src.parent / rec[image_key]).resolve())
            fh.write(json.dumps(rec) + "\n")
    return dst


def _inputs(tmp: Path) -> dict[str, list[str]]:
    """The smallest valid arguments of each subcommand (without --llm)."""
    grid = next((ASSETS / "aha/examples").rglob("grid_*.png"))
    verdicts = tmp / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"type": "aha.verdict", "schema": 1, "sample_id": "s/0", "task": "stack",
                                    "raw": "No, the gripper closed too early.",
                                    "reference": "No, the gripper closed before reaching the cube."}) + "\n")
    demo = ASSETS / "chase_sql/demo"
    db = next(demo.rglob("*.sqlite"))
    micro = ASSETS / "microtheory"
    qa = _head(micro / "qa.jsonl", tmp / "qa.jsonl", 2)
    cogcom = _head(ASSETS / "cogcom/examples/items.jsonl", tmp / "cogcom.jsonl", image_key="image")
    dsg = _head(ASSETS / "dsg/examples/heldout/items.jsonl", tmp / "dsg.jsonl", image_key="image")
    maps = ASSETS / "maps/examples"
    circuits = _head(maps / "circuits.jsonl", tmp / "circuits.jsonl", image_key="image")
    questions = _head(maps / "questions.jsonl", tmp / "questions.jsonl", image_key="image")
    world = ASSETS / "rag/world-1000"
    rag_q = _head(world / "test.jsonl", tmp / "rag.jsonl")
    rag_demos = _head(world / "demos.jsonl", tmp / "rag-demos.jsonl")
    problems = _head(ASSETS / "ssm_limits/problems/iterate.jsonl", tmp / "problems.jsonl")
    items = _head(ASSETS / "geomrel/examples/items.jsonl", tmp / "geomrel.jsonl")
    swe = ASSETS / "swe_search/instances.jsonl"
    first_swe = json.loads(swe.read_text().splitlines()[0])["instance_id"]
    return {
        "aha detect": ["--image", str(grid), "--subtask", "pick up the blue cube"],
        "aha eval": ["--pred", str(verdicts), "--no-cosine"],
        "aha loop": ["--task", "pick-place", "--episodes", "1"],
        "chase-sql ask": ["--db", str(db), "How many rows are there?", "--no-values", "--per-generator", "1"],
        "chase-sql run": ["--data", str(demo), "--limit", "1", "--no-values", "--per-generator", "1"],
        "chase-sql greedy-ex": ["--data", str(demo), "--limit", "1", "--cache-dir", str(tmp / "cache")],
        "swe-search run": ["--instances", str(swe), "--instance", first_swe, "-n", "2",
                           "--repos-dir", str(swe.parent)],
        "microtheory store": ["-q", str(qa)],
        "microtheory distill": ["--store", str(micro / "store.jsonl"), "-k", "2", "--embedder", "bow"],
        "microtheory coverage": ["-t", str(micro / "theory.jsonl"), "-q", str(qa), "--embedder", "bow"],
        "microtheory ground": ["-c", str(micro / "corpus.jsonl"), "-q", str(qa)],
        "gama play": ["guess", "-P", "llm*1,equilibrium", "-n", "2", "-r", "1"],
        "gama bench": ["-P", "llm*1,equilibrium", "--games", "guess", "-n", "2", "-r", "1", "--runs", "1"],
        "gama sweep": ["-P", "llm*1,equilibrium", "--games", "guess", "-n", "2", "-r", "1"],
        "maps perceive": [str(circuits)],
        "maps answer": [str(circuits), "--questions", str(questions), "--answerer", "llm", "--no-sim"],
        "metacausal describe": ["--graph", str(ASSETS / "metacausal/agents-graph.jsonl")],
        "geomrel ask": [str(items)],
        "cogcom solve": ["--items", str(cogcom), "--policy", "vlm"],
        "cogcom synth": ["--items", str(cogcom), "--out", str(tmp / "synth")],
        "dsg schema": ["--concept", "kitchen"],
        "dsg run": ["--items", str(dsg), "--mode", "direct"],
        "rag demos": ["--questions", str(rag_q), "--index", str(world / "idx")],
        "rag run": ["--questions", str(rag_q), "--index", str(world / "idx"), "--method", "rag", "-k", "1"],
        "rag sweep": ["--questions", str(rag_q), "--index", str(world / "idx"), "--demos", str(rag_demos),
                      "--grid", "k=1;m=0;n=1", "--methods", "rag", "--budgets", "1k", "--no-anchors"],
        "ssm-limits ask": [str(problems)],
        "selfaware data": ["--n", "2", "-o", str(tmp / "ft.jsonl")],
        "selfaware behave": ["--n", "1", "--samples", "1"],
        "selfaware eval": ["--samples", "1", "--paraphrases", "1"],
    }


def _run(command: str, args: list[str]) -> tuple[str, object, float]:
    start = time.monotonic()
    res = run_reason(*command.split(), *args, "--llm", NOWHERE, timeout=LIMIT_S + 60)
    return command, res, time.monotonic() - start


def time_limit() -> float:
    """30 s on a machine of this kind at rest; on one whose run queue is k times its cores (other test runs), k
    times that: the start-up (torch imports) slows with the load, while the retries the limit is there to catch
    (1 + 2 + 4 ... s of backoff per item) would not."""
    cores = os.cpu_count() or 1
    return LIMIT_S * max(1.0, os.getloadavg()[0] / cores)


def _fault(res, seconds: float, limit: float) -> str | None:
    """What breaks the contract: exit 0, too slow, other than one line, or a line that names neither the address
    nor a missing extra (a machine without that extra stops before any request)."""
    lines = res.stderr.strip().splitlines()
    if res.returncode == 0:
        return "exit 0"
    if seconds > limit:
        return f"took {seconds:.1f} s (limit {limit:.0f} s)"
    if len(lines) != 1 or not lines[0].startswith("error: "):
        return f"{len(lines)} line(s) on stderr"
    if "127.0.0.1:9" not in lines[0] and "extra (missing:" not in lines[0]:
        return "the line does not name the address"
    return None


def test_every_llm_subcommand_fails_fast_with_one_line(tmp_path):
    inputs = _inputs(tmp_path)
    commands = llm_commands()
    assert len(commands) >= 25  # the walk found the apps' commands
    missing = [c for c in commands if c not in inputs]
    assert not missing, f"no sweep inputs for {missing}: add the smallest valid arguments to _inputs"
    # a few at a time: the machine has 2 cores, and most of each run is the start-up, not the request
    limit = time_limit()
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda c: _run(c, inputs[c]), commands))
    limit = max(limit, time_limit())
    problems = [f"{command}: {fault}: exit {res.returncode}, stderr {res.stderr[-600:]!r}"
                for command, res, seconds in results if (fault := _fault(res, seconds, limit))]
    assert not problems, "\n".join(problems)
