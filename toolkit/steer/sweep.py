"""Alpha sweeps: accuracy over the answer options, KL(P_0 || P_alpha) and entropy per alpha."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.errors import InputError
from toolkit.steer.hooks import steering
from toolkit.steer.scoring import entropy_bits, kl_divergence, score_problems
from toolkit.steer.vectors import ControlVector


def parse_alphas(spec: str) -> list[float]:
    """'-1:1:0.25' (start:stop:step, stop included) or '0,0.5,1' -> sorted alphas (0 always added)."""
    try:
        if ":" in spec:
            start, stop, step = (float(x) for x in spec.split(":"))
            if step <= 0 or stop < start:
                raise ValueError
            n = int(round((stop - start) / step))
            values = [round(start + i * step, 10) for i in range(n + 1)]
        else:
            values = [float(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--alphas {spec}: expected start:stop:step (e.g. -1:1:0.25) or a list like 0,0.5,1") from None
    if not values:
        raise InputError(f"--alphas {spec}: no values")
    return sorted(set(values) | {0.0})


@dataclass
class SweepPoint:
    RECORD_TYPE = "steer.sweep"
    SCHEMA = 1

    family: str
    split: str
    layer: int
    alpha: float
    n: int
    accuracy: float
    kl_nats: float
    entropy_bits: float
    fixed: int = 0  # problems wrong at alpha = 0 and right at this alpha
    broken: int = 0  # problems right at alpha = 0 and wrong at this alpha


def sweep_split(model, tokenizer, problems, vec: ControlVector, layer: int, alphas: list[float], *,
                preserve_norm: bool = False, layers_path: str | None = None, batch_size: int = 64,
                family: str = "", split: str = "", device: str = "cpu") -> list[SweepPoint]:
    """One point per alpha, steering the single block `layer` (as in the paper)."""
    if not problems:
        raise InputError(f"no problems for {family or 'the sweep'} ({split})")
    one = vec.only([layer])
    with steering(model, {}, 0.0):
        base = score_problems(model, tokenizer, problems, batch_size=batch_size, device=device)
    points = []
    for alpha in alphas:
        if alpha == 0:
            scores = base
        else:
            with steering(model, one.directions, alpha, preserve_norm=preserve_norm, layers_path=layers_path):
                scores = score_problems(model, tokenizer, problems, batch_size=batch_size, device=device)
        kl = float(kl_divergence(base.probs, scores.probs).mean())
        ent = float(entropy_bits(scores.probs).mean())
        fixed = sum(1 for b, s in zip(base.correct, scores.correct, strict=True) if s and not b)
        broken = sum(1 for b, s in zip(base.correct, scores.correct, strict=True) if b and not s)
        points.append(SweepPoint(family, split, layer, alpha, len(problems), round(scores.accuracy, 6),
                                 round(kl, 8), round(ent, 6), fixed, broken))
    return points


def mcnemar_p(fixed: int, broken: int) -> float:
    """Exact two-sided McNemar p-value: a binomial test of fixed vs broken with p = 1/2."""
    if fixed + broken == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(fixed, fixed + broken, 0.5, alternative="two-sided").pvalue)


def choose(points: list[SweepPoint]) -> SweepPoint:
    """Best validation accuracy; ties go to the smaller |alpha| (0 first), then the lower layer."""
    return max(points, key=lambda p: (p.accuracy, -abs(p.alpha), -p.layer))


def choice_record(family: str, points: list[dict], *, vector: str, method: str) -> dict:
    """The `steer.choice` record of one family: (layer, alpha) chosen on validation, judged on test.

    `points` are the family's sweep records; the test accuracy at the chosen point is compared with alpha = 0
    on the same test problems (gain, fixed/broken counts, exact McNemar p-value).
    """
    from toolkit.core.records import make_record

    val = [SweepPoint(**{k: v for k, v in p.items() if k not in ("type", "schema")})
           for p in points if p["family"] == family and p["split"] == "validation"]
    best = choose(val)
    test = [p for p in points if p["family"] == family and p["split"] == "test"]
    base = next(p for p in test if p["alpha"] == 0.0)
    at_best = next(p for p in test if p["alpha"] == best.alpha and p["layer"] == best.layer)
    return make_record("steer.choice", 1, family=family, layer=best.layer, alpha=best.alpha,
                       validation_accuracy=best.accuracy, test_accuracy_base=base["accuracy"],
                       test_accuracy_steered=at_best["accuracy"],
                       test_gain=round(at_best["accuracy"] - base["accuracy"], 6),
                       test_fixed=at_best["fixed"], test_broken=at_best["broken"],
                       test_mcnemar_p=round(mcnemar_p(at_best["fixed"], at_best["broken"]), 6),
                       test_kl_nats=at_best["kl_nats"], test_entropy_bits=at_best["entropy_bits"],
                       vector=vector, method=method, n_test=at_best["n"])
