"""`reason metacausal`: meta-causal states — switching linear mechanisms, their directions and transitions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import OutOpt, RayOpt, ResumeOpt, SeedOpt, WorkersOpt, seed_or_global

app = typer.Typer(help="Meta-causal states: simulate switching systems, infer K linear Laplace mechanisms with their "
                       "directions, build the state graph, run the K-identification benchmark.\n\n"
                       "Example: reason metacausal simulate agents --seed 3 | reason metacausal infer --data - "
                       "--select bic | reason metacausal graph --fit - --png g.png",
                  no_args_is_help=True)

SelectOpt = Annotated[str, typer.Option("--select", help="How K is chosen: ad, bic, icl or ad+bic.")]
RestartsOpt = Annotated[str, typer.Option("--restarts", help="EM restarts per K': 'official' (2, 8, 26, 177 for "
                                                             "K'=1..4) or a number.")]
EngineOpt = Annotated[str, typer.Option("--engine", help="fast (compiled exact L1 fits) or reference (LP solver).")]
KmaxOpt = Annotated[int, typer.Option("--kmax", help="Largest number of mechanisms tried (1..8).")]


def _int_list(text: str, name: str) -> list[int]:
    from toolkit.core.errors import InputError

    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{name} {text!r}: expected comma-separated integers") from None
    if not values:
        raise InputError(f"{name} {text!r}: empty")
    return values


@app.command()
def protocol(
    k: Annotated[str, typer.Option("--k", help="True numbers of mechanisms, comma separated.")] = "1,2,3,4",
    problems: Annotated[int, typer.Option("--problems", min=1, help="Problems per K (problem p uses seed "
                                                                    "first-seed + p).")] = 100,
    select: Annotated[str, typer.Option("--select", help="Selection rules to summarise, comma separated "
                                                         "(ad, bic, icl, ad+bic); every problem record scores all "
                                                         "of them on the same fits.")] = "ad",
    kmax: KmaxOpt = 4,
    restarts: RestartsOpt = "official",
    engine: EngineOpt = "fast",
    imbalance: Annotated[float, typer.Option("--imbalance", help="Class imbalance of the generator.")] = 0.2,
    first_seed: Annotated[int, typer.Option("--first-seed", help="Seed of problem 0 (benchmark: 100; tune on "
                                                                 "other seeds, e.g. 10000).")] = 100,
    seed: SeedOpt = None,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = 1,
    ray: RayOpt = None,
):
    """The K-identification benchmark: metacausal.problem per problem, metacausal.confusion per selection rule.

    Example: reason metacausal protocol --k 1,2,3,4 --problems 100 --select ad,bic --workers 2 --resume -o p.jsonl
    """
    from toolkit.metacausal.options import check_fit_options, parse_selections
    from toolkit.metacausal.protocol import ProtocolSettings
    from toolkit.metacausal.protocol_run import run_protocol
    from toolkit.metacausal.report import show_confusions

    seed_or_global(seed)  # problems carry their own seeds; --seed is accepted for uniformity
    ks = _int_list(k, "--k")
    methods = parse_selections(select)
    restarts = check_fit_options(kmax, restarts, engine)
    settings = ProtocolSettings(kmax=kmax, restarts=str(restarts), engine=engine, imbalance=imbalance,
                                first_seed=first_seed)
    summaries = run_protocol(ks, problems, settings, methods, out, resume, workers, ray)
    show_confusions(summaries)
