"""Read the official GAMA(γ)-Bench run files and score them with this project's games.

The official repository (CUHK-ARISE/GAMABench) keeps one JSON file per run,
`raw_results/<game>/[<mode>/]<model>_<game>_<version>[_<tag>].json`, with keys `meta` (the game's
parameters), `round_records` (every round's actions) and `player_data`. Each file becomes one
`gama.result` record: the recorded actions are replayed through the game's own rules, so the score
is the one `reason gama play` would give for the same actions.

Runs tagged `<version>_<n>` with version v1 are the leaderboard's runs (variant "default"); every
other tag (temperatures, prompts, CoT, ...) becomes its own variant, and so do the explicit bar and
the second-price auction, so that the default rows hold exactly the leaderboard's runs.

The official analysis tolerates files a strict reader would refuse (a meta key left out takes the
constructor's default, a diner answer other than `cheap` counts as costly, a shot at a player who
is out is simply not aimed at the strongest, ...). The import reads them the same way and lists
each such reading in the record's `normalised` field ("KIND: what was read how"), see
`official_readers.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.gama.engine import RESULT, SCHEMA
from toolkit.gama.games import game_class
from toolkit.gama.official_readers import READERS, BadRunFile, RunFile, file_identity, replay_all

__all__ = ["BadRunFile", "import_file", "import_folder", "normalised_kinds", "run_files"]


def run_files(folder: Path) -> list[Path]:
    """Every *.json file under `folder`, in a stable order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of official run files")
    return sorted(p for p in folder.rglob("*.json") if p.is_file())


def _named_model(path: Path) -> str | None:
    """The model a file names (its file-name prefix, else meta.models); None when it names none.

    A file that cannot be read at all counts as naming one (""): importing it reports the problem.
    """
    try:
        _game, prefix, _version, _tag = file_identity(path)
    except BadRunFile:
        return ""
    if prefix:
        return prefix
    try:
        models = json.loads(path.read_text(encoding="utf-8")).get("meta", {}).get("models")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return ""
    return str(models) if models else None


def fallback_model(folder: Path, names: list[str | None], model: str | None) -> tuple[str, str, str | None]:
    """(name, where it comes from, a warning or None) for the files of `folder` that name no model."""
    if model:
        return model, "--model", None
    named = {m for m in names if m}
    if len(named) == 1:
        return next(iter(named)), "the model the other files in the folder name", None
    if not named:
        return Path(folder).resolve().name, "the folder's name", None
    shown = ", ".join(sorted(named)[:4]) + (", ..." if len(named) > 4 else "")
    return "unknown", "several models in the folder", (
        f"{folder}: files that name no model are listed as 'unknown' because the folder holds runs of "
        f"{len(named)} models ({shown}); pass --model NAME, or import one model's folder at a time")


def import_folder(folder: Path, *, skip_bad: bool = False, on_bad: Callable[[str], None] | None = None,
                  guess_scoring: str = "official", seed: int = 0, model: str | None = None,
                  on_warning: Callable[[str], None] | None = None) -> Iterator[dict]:
    """A `gama.result` record per run file; a bad file raises BadRunFile, or with skip_bad goes to on_bad.

    Files that name no model (no file-name prefix, no meta.models) take `model`, else the one model the
    other files name, else the folder's name; with several models in the folder they become 'unknown'
    and `on_warning` hears why.
    """
    files = run_files(folder)
    if not files:
        raise InputError(f"{folder}: no .json run files found")
    names = [_named_model(p) for p in files]
    fallback = ("unknown", "no model given", None)
    if None in names:
        fallback = fallback_model(folder, names, model)
        if fallback[2] and on_warning is not None:
            on_warning(fallback[2])
    for path in files:
        try:
            yield import_file(path, root=Path(folder), guess_scoring=guess_scoring, seed=seed,
                              fallback=fallback[:2])
        except BadRunFile as exc:
            if not skip_bad:
                raise
            if on_bad is not None:
                on_bad(str(exc))


def import_file(path: Path, root: Path | None = None, guess_scoring: str = "official", seed: int = 0,
                fallback: tuple[str, str] = ("unknown", "no model given")) -> dict:
    """One run file as a `gama.result` record (`seed` only breaks auction ties the file does not settle)."""
    run = RunFile(path)
    game_name, prefix, version, tag = file_identity(path)
    model = run.model(prefix, fallback)
    reader = READERS[game_name]
    params, variant_params = reader.params(run)
    if game_name == "guess":
        params["scoring"] = guess_scoring
    n = run.players()
    rounds = run.rounds()
    try:
        game = game_class(game_name)(n, len(rounds), params, np.random.default_rng(seed))
    except InputError as exc:
        raise BadRunFile(f"{path}: meta: {exc}") from None
    replay_all(run, game, rounds)
    scored = game.score()
    default = version == "v1" and tag.isdigit()
    label = ",".join([*(f"{k}={v}" for k, v in variant_params.items()),
                      *([] if default else [f"run={version}{'_' + tag if tag else ''}"])]) or "default"
    seat_scores = [x for x in scored["seat_scores"] or [] if x is not None]
    return make_record(
        RESULT, SCHEMA, game=game_name, variant=label, players=model, run=int(tag) if default else 0, seed=seed,
        title=game.TITLE, n_players=n, rounds=len(rounds), rounds_played=len(game.history), params=dict(game.p),
        seats=[model] * n, score=float(scored["score"]), seat_scores=scored["seat_scores"],
        by_player={model: float(np.mean(seat_scores))} if seat_scores else {},
        payoffs=np.sum([h["payoffs"] for h in game.history], axis=0).tolist() if game.history else [],
        invalid=0, llm_decisions=0, substituted=[0] * n, trajectory=scored["trajectory"],
        actions=[reader.actions(rec) for rec in rounds], normalised=run.normalised,
        source={"format": "GAMABench raw_results", "file": str(path.relative_to(root) if root else path),
                "meta": run.meta})


def normalised_kinds(records: list[dict]) -> dict[str, int]:
    """How many runs had each kind of normalisation ("meta", "answers", "shot", "model")."""
    counts: dict[str, int] = {}
    for rec in records:
        for kind in dict.fromkeys(str(n).split(":", 1)[0] for n in rec.get("normalised") or []):
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def describe_normalised(records: list[dict]) -> str | None:
    """One line for stderr: how many runs were read with the official tolerance, by kind; None if none."""
    bent = [r for r in records if r.get("normalised")]
    if not bent:
        return None
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(normalised_kinds(bent).items()))
    values = sum(len(r["normalised"]) for r in bent)
    return (f"normalised {values} value(s) in {len(bent)} of {len(records)} run(s) the way the official analysis "
            f"reads them (runs by kind: {kinds}); each record's 'normalised' field lists them")
