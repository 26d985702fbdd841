"""`reason gama`: GAMA(γ)-Bench games with built-in and LLM players; play, bench, sweep, import, report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import LLMOpt, OutOpt, RayOpt, RecordOpt, ResumeOpt, SeedOpt, SkipBadOpt, WorkersOpt, seed_or_global

app = typer.Typer(help="GAMA(γ)-Bench: eight multi-agent game-theory games scored 0-100.\n\n"
                       "Example: reason gama bench --players fictitious --no-rounds -o fp.jsonl",
                  no_args_is_help=True)

PlayersOpt = Annotated[str, typer.Option(
    "--players", "-P", help="Seats: NAME[*COUNT],... with NAME in random, equilibrium, best-response, fictitious, "
                            "llm; one entry may omit its count to fill the table.")]
NOpt = Annotated[int, typer.Option("--n-players", "-n", min=2, help="Players at the table.")]
RoundsOpt = Annotated[int, typer.Option("--rounds", "-r", min=1, help="Rounds per game.")]
RunsOpt = Annotated[int, typer.Option("--runs", min=1, help="Independent runs per game.")]
ParamOpt = Annotated[list[str] | None, typer.Option(
    "--param", "-p", help="Game parameter KEY=VALUE (repeatable; bench/sweep: GAME:KEY=VALUE). "
                          "See `reason gama games`.")]
TempOpt = Annotated[float, typer.Option("--temperature", help="Sampling temperature of LLM seats.")]
MaxTokOpt = Annotated[int, typer.Option("--max-tokens", min=1, help="Answer length limit of LLM seats.")]
RetriesOpt = Annotated[int, typer.Option("--retries", min=0, help="Re-asks after an unreadable answer before "
                                                                   "a random action is substituted (counted per "
                                                                   "seat in the result).")]
CotOpt = Annotated[bool, typer.Option("--cot", help="Ask LLM seats to reason step by step first.")]
PersonaOpt = Annotated[str | None, typer.Option("--persona", help="Role text put before each LLM seat's "
                                                                  "game description.")]
NoRoundsOpt = Annotated[bool, typer.Option("--no-rounds", help="Write only gama.result records, not gama.round.")]
ScoringOpt = Annotated[str, typer.Option(
    "--scoring", help="Guess 2/3 score: 'bounded' (0-100) or 'official' (the official formula; above 100 possible "
                      "when min > 0). Same as -p guess:scoring=...")]


def _template(players, n_players, rounds, seed, llm, record, temperature, max_tokens, retries, cot, persona,
              no_rounds):
    from toolkit.gama import Job, LLMSpec, parse_players

    kinds = parse_players(players, n_players)
    uri = None
    if "llm" in kinds:
        import os

        uri = llm or os.environ.get("REASON_LLM")
        if not uri:
            from toolkit.core.errors import InputError

            raise InputError("--players names an llm seat: pass --llm URI (or set $REASON_LLM)")
        from toolkit.core.llm import from_uri

        from_uri(uri)  # fail early, with one line, on a bad URI or missing replay file
    spec = LLMSpec(uri, str(record) if record else None, temperature, max_tokens, retries, cot, persona)
    return Job(game="guess", players=players, seed=seed_or_global(seed), n_players=n_players, rounds=rounds,
               llm=spec, rounds_out=not no_rounds)


def _game_params(items: list[str] | None, games: list[str]) -> dict[str, dict]:
    from toolkit.core.errors import InputError
    from toolkit.gama import parse_params

    out: dict[str, list[str]] = {}
    for item in items or []:
        game, sep, pair = item.partition(":")
        if not sep or "=" not in pair:
            raise InputError(f"--param {item!r}: expected GAME:KEY=VALUE here")
        if game not in games:
            raise InputError(f"--param {item!r}: game {game!r} is not among the games being run")
        out.setdefault(game, []).append(pair)
    return {g: parse_params(g, pairs) for g, pairs in out.items()}


def _execute(jobs, out, resume, workers, ray, description):
    from cli.common import open_writer
    from toolkit.gama import run_jobs
    from toolkit.gama.runner import previous_results

    done = previous_results(out) if resume else []
    with open_writer(out, resume) as writer:
        results = run_jobs(jobs, writer, workers=workers, ray_address=ray, done=done, description=description)
    wanted = {j.key for j in jobs}
    from toolkit.gama.engine import result_key

    return [r for r in results if result_key(r) in wanted]


def _show(results, group=("players", "variant")):
    from toolkit.core import console
    from toolkit.gama import summarize
    from toolkit.gama.report import (
        few_runs_note,
        leaderboard_table,
        normalised_note,
        seat_table,
        substitution_note,
        variant_table,
    )

    summaries = summarize(results, group)
    defaults = [s for s in summaries if s["variant"] == "default"]
    others = [s for s in summaries if s["variant"] != "default"]
    if defaults:
        console.console.print(leaderboard_table(defaults))
    if others:
        console.console.print(variant_table(others))
    seats = seat_table(summaries)
    if seats is not None:
        console.console.print(seats)
    decisions = sum(r.get("llm_decisions", 0) for r in results)
    if decisions:
        invalid = sum(r.get("invalid", 0) for r in results)
        console.info(f"LLM decisions: {decisions}, replaced by a random action after the retries: {invalid}")
    note = substitution_note(results)
    if note:
        console.warn(note)
    few = few_runs_note(defaults)
    if few:
        console.warn(few)
    bent = normalised_note(results)
    if bent:
        console.info(bent)
    return summaries


def _guess_scoring(scoring: str) -> dict:
    from toolkit.gama import parse_params

    return parse_params("guess", [f"scoring={scoring}"])


@app.command()
def games():
    """List the eight games with their parameters and defaults (one gama.game record each).

    Example: reason gama games | jq -c '{game, params}'
    """
    from toolkit.core.records import RecordWriter, make_record
    from toolkit.gama import GAMES

    with RecordWriter(None) as writer:
        for name, cls in GAMES.items():
            params = {k: {"default": p.default, "help": p.help} for k, p in cls.PARAMS.items()}
            writer.write(make_record("gama.game", 1, game=name, title=cls.TITLE, params=params))


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="guess, bar, dollar, goods, diner, auction, battle or pirate.")],
    players: PlayersOpt = "equilibrium",
    n_players: NOpt = 10,
    rounds: RoundsOpt = 20,
    runs: RunsOpt = 1,
    param: ParamOpt = None,
    seed: SeedOpt = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 256,
    retries: RetriesOpt = 2,
    cot: CotOpt = False,
    persona: PersonaOpt = None,
    no_rounds: NoRoundsOpt = False,
    scoring: ScoringOpt = "bounded",
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """Play one game: a gama.round record per round and a gama.result record (score 0-100) per run.

    Example: reason gama play guess -P "llm*2,equilibrium" -n 4 -r 3 --llm replay:assets/gama/replay.jsonl
    """
    from dataclasses import replace

    from toolkit.gama import game_class, parse_params

    game_class(game)
    template = _template(players, n_players, rounds, seed, llm, record, temperature, max_tokens, retries, cot,
                         persona, no_rounds)
    params = parse_params(game, param or [])
    if game == "guess" and scoring != "bounded":
        params = {**params, **_guess_scoring(scoring)}
    jobs = [replace(template, game=game, run=r, params=params) for r in range(runs)]
    _show(_execute(jobs, out, resume, workers, ray, f"{game} runs"))


@app.command()
def bench(
    players: PlayersOpt = "equilibrium",
    games_: Annotated[str, typer.Option("--games", help="Comma-separated games, or 'all'.")] = "all",
    n_players: NOpt = 10,
    rounds: RoundsOpt = 20,
    runs: RunsOpt = 5,
    param: ParamOpt = None,
    seed: SeedOpt = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 256,
    retries: RetriesOpt = 2,
    cot: CotOpt = False,
    persona: PersonaOpt = None,
    no_rounds: NoRoundsOpt = False,
    scoring: ScoringOpt = "bounded",
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """All eight games x --runs; gama.result per run, then a gama.summary with the overall score.

    Example: reason gama bench --players fictitious --no-rounds -o fp.jsonl && reason gama report fp.jsonl
    """
    from toolkit.core.records import RecordWriter
    from toolkit.gama import bench_jobs
    from toolkit.gama.plan import games_list

    names = games_list(games_)
    template = _template(players, n_players, rounds, seed, llm, record, temperature, max_tokens, retries, cot,
                         persona, no_rounds)
    params = _game_params(param, names)
    if "guess" in names and scoring != "bounded":
        params["guess"] = {**params.get("guess", {}), **_guess_scoring(scoring)}
    jobs = bench_jobs(template, names, runs, params)
    summaries = _show(_execute(jobs, out, resume, workers, ray, "bench runs"))
    if out is not None:
        with RecordWriter(out, append=True) as writer:
            writer.write_all(summaries)
    else:
        RecordWriter(None).write_all(summaries)


@app.command()
def sweep(
    players: PlayersOpt = "equilibrium",
    games_: Annotated[str, typer.Option("--games", help="Comma-separated games, or 'all'.")] = "all",
    seeds: Annotated[str, typer.Option("--seeds", help="Comma-separated seeds (robustness).")] = "0",
    temperatures: Annotated[str | None, typer.Option(
        "--temperatures", help="Comma-separated LLM temperatures (robustness).")] = None,
    vary: Annotated[list[str] | None, typer.Option(
        "--vary", help="Parameter variant GAME:KEY=VALUE[,KEY=VALUE] (repeatable; generalizability).")] = None,
    preset: Annotated[str | None, typer.Option(
        "--preset", help="'generalizability': a built-in set of parameter variants for every game.")] = None,
    n_players: NOpt = 10,
    rounds: RoundsOpt = 20,
    runs: RunsOpt = 1,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    max_tokens: MaxTokOpt = 256,
    retries: RetriesOpt = 2,
    cot: CotOpt = False,
    persona: PersonaOpt = None,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """Robustness (seeds, temperatures) and generalizability (parameter variants) sweeps: gama.result + gama.summary.

    Example: reason gama sweep --games guess,bar --vary guess:ratio=1/2 --vary bar:capacity=0.4 --seeds 0,1 -j 2
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import RecordWriter
    from toolkit.gama import sweep_jobs
    from toolkit.gama.plan import GENERALIZABILITY, games_list, parse_vary

    names = games_list(games_)
    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()]
        temps = [float(t) for t in temperatures.split(",") if t.strip()] if temperatures else None
    except ValueError:
        raise InputError("--seeds must be integers and --temperatures numbers, comma-separated") from None
    variations = parse_vary(vary or [])
    if preset == "generalizability":
        for g in names:
            variations.setdefault(g, []).extend(GENERALIZABILITY[g])
    elif preset is not None:
        raise InputError(f"--preset {preset!r}: the only preset is 'generalizability'")
    template = _template(players, n_players, rounds, seed_list[0] if seed_list else 0, llm, record, 0.0,
                         max_tokens, retries, cot, persona, True)
    jobs = sweep_jobs(template, names, runs, seed_list or [0], temps, variations)
    summaries = _show(_execute(jobs, out, resume, workers, ray, "sweep runs"))
    if out is not None:
        with RecordWriter(out, append=True) as writer:
            writer.write_all(summaries)
    else:
        RecordWriter(None).write_all(summaries)


def _result_problem(rec: dict, games) -> str | None:
    """What is wrong with a gama.result record read back from a file, or None."""
    for key in ("game", "players", "score", "trajectory"):
        if key not in rec:
            return f"missing field '{key}'"
    if rec["game"] not in games:
        return f"field 'game': unknown game {rec['game']!r}"
    if not isinstance(rec["players"], str):
        return "field 'players': expected a string"
    def number(x) -> bool:
        return x is None or (isinstance(x, int | float) and not isinstance(x, bool))

    if rec["score"] is None or not number(rec["score"]):
        return "field 'score': expected a number"
    trajectory = rec["trajectory"]
    if not isinstance(trajectory, dict) or not all(
            isinstance(v, list) and all(number(x) for x in v) for v in trajectory.values()):
        return "field 'trajectory': expected an object of numeric lists"
    for key in ("invalid", "llm_decisions"):
        if not isinstance(rec.get(key, 0), int):
            return f"field '{key}': expected an integer"
    substituted = rec.get("substituted", [])
    if not isinstance(substituted, list) or not all(isinstance(x, int) for x in substituted):
        return "field 'substituted': expected a list of integers (one per seat)"
    return None


@app.command("import")
def import_(
    folder: Annotated[Path, typer.Argument(help="A folder of official run files (GAMABench raw_results/ or part "
                                                "of it), searched recursively for *.json.")],
    scoring: ScoringOpt = "official",
    seed: SeedOpt = None,
    out: OutOpt = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="Model name for files that name none (no file-name prefix, no meta.models). Without it "
                        "they take the one model the other files name, else the folder's name.")] = None,
    skip_bad: Annotated[bool, typer.Option("--skip-bad", help="Skip unreadable run files, count and report "
                                                              "them.")] = False,
):
    """Score the official GAMABench raw results: one gama.result record per run file, in the project's format.

    The recorded actions are replayed through this project's rules and scored by its formulas. The
    leaderboard's runs (v1, runs 1-5, implicit bar, first-price auction) form the "default" variant.
    Files are read with the official analysis's tolerance (a missing meta key takes the official
    default, a diner answer other than 'cheap' counts as costly, ...); each record lists what was read
    that way in its 'normalised' field, and stderr counts them.

    Example: reason gama import ../shared/gama-official/llama-3.1-8b | reason gama report
    """
    from cli.common import open_writer
    from toolkit.core import console
    from toolkit.gama.official import describe_normalised, import_folder

    _guess_scoring(scoring)  # a bad --scoring fails here, before any output
    bad: list[str] = []
    bent: list[dict] = []
    with open_writer(out) as writer:
        for record in import_folder(folder, skip_bad=skip_bad, on_bad=bad.append, guess_scoring=scoring,
                                    seed=seed_or_global(seed), model=model, on_warning=console.warn):
            writer.write(record)
            bent.append({"normalised": record["normalised"]})
        count = writer.count
    if bad:
        console.warn(f"skipped {len(bad)} bad run file(s): " + "; ".join(bad[:5]))
    note = describe_normalised(bent)
    if note:
        console.info(note)
    console.info(f"imported {count} run(s) from {folder}")


@app.command()
def report(
    results: Annotated[list[Path] | None, typer.Argument(
        help="JSONL files with gama.result records ('-' or nothing: stdin).")] = None,
    plots: Annotated[Path | None, typer.Option("--plots", help="Write one PNG of per-round trajectories per game "
                                                                "into this folder.")] = None,
    skip_bad: SkipBadOpt = False,
):
    """Leaderboard table (stderr) and gama.summary records (stdout) from results; optional PNG plots.

    Example: reason gama report bench.jsonl --plots plots/
    """
    from cli.common import report_bad
    from toolkit.core import console
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, RecordWriter, read_records
    from toolkit.gama import GAMES
    from toolkit.gama.engine import RESULT

    if not results:
        import sys

        if sys.stdin.isatty():
            raise InputError("report: give JSONL files of gama.result records, or pipe them in")
        results = [Path("-")]
    if plots is not None:
        try:
            plots.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--plots {plots}: cannot create the folder ({exc.strerror})") from None
    bad = BadLines()
    found = []
    for path in results:
        n = 0
        for rec in read_records(path, skip_bad=skip_bad, bad=bad):
            if rec.get("type") == RESULT:
                n += 1
                problem = _result_problem(rec, GAMES)
                if problem:
                    message = f"{path}: gama.result record {n}: {problem}"
                    if not skip_bad:
                        raise InputError(message)
                    bad.add(message)
                    continue
                rec.setdefault("variant", "default")
                found.append(rec)
    report_bad(bad)
    if not found:
        raise InputError(f"{', '.join(map(str, results))}: no gama.result records found")
    RecordWriter(None).write_all(_show(found))
    if plots is not None:
        from toolkit.gama.report import plot_trajectories

        for path in plot_trajectories(found, plots):
            console.info(f"wrote {path}")
