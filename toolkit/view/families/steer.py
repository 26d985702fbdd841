"""steer.sweep: accuracy, KL and entropy against the steering strength alpha, one row of charts per sweep;
a steer.choice (the point chosen on validation, judged on test) is shown with the sweeps of its file and family."""

from __future__ import annotations

from collections import defaultdict

from toolkit.view.model import Context, Family, Item, Rec, Section
from toolkit.view.svg import Series, line_chart

METRICS = (("accuracy", "accuracy"), ("kl_nats", "KL(P0 || Palpha), nats"), ("entropy_bits", "entropy, bits"))


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    # One sweep = one file's points for one task family and split; layers are the series.
    sweeps: dict[tuple, dict[object, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in records.get("steer.sweep", []):
        source = r.where.split("#", 1)[0]
        sweeps[(source, str(r.data.get("family")), str(r.data.get("split")))][r.data.get("layer")].append(r.data)
    choices: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in records.get("steer.choice", []):
        choices[(r.where.split("#", 1)[0], str(r.data.get("family")))].append(r.data)
    items = []
    for (source, family, split), layers in sweeps.items():
        charts = []
        for key, label in METRICS:
            series = []
            for layer, points in sorted(layers.items(), key=lambda kv: str(kv[0])):
                points = sorted(points, key=lambda p: p.get("alpha", 0))
                series.append(Series(f"layer {layer}", [p.get("alpha", 0) for p in points],
                                     [p.get(key) for p in points]))
            charts.append(line_chart(series, title=f"{label} vs alpha", x_label="alpha", y_label=label,
                                     width=430, height=240))
        best = max((p for pts in layers.values() for p in pts), key=lambda p: p.get("accuracy") or 0)
        base = [p for pts in layers.values() for p in pts if p.get("alpha") == 0]
        html = ctx.render("steer_sweep.html.j2", source=source, family=family, split=split, charts=charts,
                          best=best, base=base[0] if base else None,
                          points=sum(len(p) for p in layers.values()), choices=choices.get((source, family), []))
        items.append(Item(html, {"family": family}))
    shown = {(source, family) for source, family, _ in sweeps}
    for (source, family), chosen in choices.items():
        if (source, family) not in shown:  # a choice whose sweep was not given: on its own
            html = ctx.render("steer_sweep.html.j2", source=source, family=family, split="choice", charts=[],
                              best=None, base=None, points=0, choices=chosen)
            items.append(Item(html, {"family": family}))
    counts = {k: len(v) for k, v in records.items()}
    return [Section("steer", "steering sweeps", counts, items)]


FAMILY = Family("steer", "steering sweeps", ("steer.sweep", "steer.choice"), build)
