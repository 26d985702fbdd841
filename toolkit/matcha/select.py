"""Choose a base TTA's hyperparameters (and Matcha's step size) on validation graph pairs.

Each candidate runs Matcha on the validation targets with saved source models (MODELS/SHIFT-seedS, as the bench's
--save-models writes them); the candidate with the highest mean Matcha accuracy is chosen, ties going to the one
listed first. Labels of the validation targets are used only here: the chosen values are then measured by the bench
on other seeds, whose graphs and models the selection never saw.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import make_record
from toolkit.matcha.bench import make_pair
from toolkit.matcha.tta import DEFAULTS

MATCHA_KEYS = {"lr": float, "rounds": int, "schedule": str, "stop": str}


def _cast(key: str, text: str):
    from toolkit.matcha.output import SCHEDULES, STOPS

    kind = MATCHA_KEYS.get(key) or type(DEFAULTS.get(key, None))
    if key not in MATCHA_KEYS and key not in DEFAULTS:
        raise InputError(f"--grid {key!r}: unknown hyperparameter (one of: {', '.join([*MATCHA_KEYS, *DEFAULTS])})")
    allowed = {"schedule": SCHEDULES, "stop": STOPS}.get(key)
    if allowed and text not in allowed:
        raise InputError(f"--grid {key}={text!r}: expected one of {', '.join(allowed)}")
    try:
        return kind(text)
    except ValueError:
        raise InputError(f"--grid {key}={text!r}: expected a {kind.__name__}") from None


def parse_grid(specs: list[str]) -> list[dict]:
    """Each spec "k=v1,v2 k2=v3" is a product of values; several specs are joined, duplicates dropped."""
    out = []
    for spec in specs:
        axes = []
        for part in spec.split():
            key, sep, values = part.partition("=")
            if not sep or not values:
                raise InputError(f"--grid {part!r}: expected KEY=V1,V2")
            axes.append([(key, _cast(key, v)) for v in values.split(",")])
        for combo in itertools.product(*axes):
            cand = dict(combo)
            if cand not in out:
                out.append(cand)
    if not out:
        raise InputError("--grid: give at least one candidate, e.g. --grid 't3a_temperature=1,0.1'")
    return out


def select(models_dir: Path, settings: list[str], seeds: list[int], tta: str, candidates: list[dict],
           nodes: int = 5000, features: int = 2000, mu: float = 0.03):
    """Yield one matcha.selection record per candidate, then the choice."""
    from toolkit.matcha.adapt import matcha_adapt
    from toolkit.matcha.gprgnn import expected_features, load_model
    from toolkit.matcha.output import DEFAULT_SCHEDULE, DEFAULT_STOP

    pairs = []
    for setting in settings:
        for seed in seeds:
            d = Path(models_dir) / f"{setting.removesuffix('-attr')}-seed{seed}"
            if not (d / "config.json").is_file():
                raise InputError(f"{d}: no saved source model (bench --save-models {models_dir} writes them)")
            model, memory = load_model(str(d))
            if expected_features(model) != features:
                raise InputError(f"{d}: model expects {expected_features(model)} features, --features is {features}")
            pairs.append((setting, seed, model, memory, make_pair(setting, seed, nodes, features, mu)[1]))
    scored = []
    for cand in candidates:
        hp = {k: v for k, v in cand.items() if k not in MATCHA_KEYS}
        per = []
        for setting, seed, model, memory, target in pairs:
            res = matcha_adapt(model, target, tta, rounds=cand.get("rounds", 50), lr=cand.get("lr", 1.0),
                               schedule=cand.get("schedule", DEFAULT_SCHEDULE), stop=cand.get("stop", DEFAULT_STOP),
                               memory=memory, **hp)
            accs = [row["accuracy"] for row in res.trace]
            per.append({"setting": setting, "seed": seed, "base": accs[0], "matcha": accs[res.chosen_round],
                        "last_round": accs[-1], "last_step_change": round(abs(accs[-1] - accs[-2]), 6)
                        if len(accs) > 1 else 0.0, "wall_s": res.wall_s})
        mean = sum(p["matcha"] for p in per) / len(per)
        scored.append((mean, cand))
        yield make_record("matcha.selection", 1, tta=tta, candidate=cand, validation=per, mean_matcha=round(mean, 6),
                          mean_base=round(sum(p["base"] for p in per) / len(per), 6))
    best = max(scored, key=lambda sc: sc[0])  # max keeps the first of equal scores
    yield make_record("matcha.selection", 1, tta=tta, chosen=best[1], mean_matcha=round(best[0], 6),
                      settings=settings, seeds=seeds)
