"""Aggregate matcha.cell records: mean ± std over seeds, paired Matcha − base differences, the share of the
oracle-γ gap Matcha closes, and the measured claims (homophily shift: large gains; degree shift: no loss)."""

from __future__ import annotations

import statistics
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import make_record, read_records
from toolkit.matcha.bench import SETTINGS, BenchConfig, cell_key

HOMOPHILY = ("homo2hetero", "hetero2homo")
DEGREE = ("high2low", "low2high")
CLAIM_GAIN = {"erm": 10.0, "tent": 10.0, "t3a": 5.0}


def previous_cells(path: Path | None, config: BenchConfig) -> set[tuple]:
    """Keys of the cells already in `path`; cells made with another configuration are an error."""
    if path is None or not Path(path).exists():
        return set()
    done, want = set(), config.key()
    for i, cell in enumerate(read_records(path, skip_bad=True), start=1):
        if cell.get("type") != "matcha.cell":
            continue
        if cell.get("config") != want:
            raise InputError(f"{path}:{i}: --resume onto cells made with other settings ({cell.get('config')} "
                             f"vs {want}); use another --out")
        done.add(cell_key(cell))
    return done


# two-sided 95% Student t quantiles by degrees of freedom (1..10); 1.96 beyond
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def _ms(values: list[float]) -> dict:
    pts = [100 * v for v in values]
    out = {"mean": round(statistics.fmean(pts), 2), "std": round(statistics.stdev(pts), 2) if len(pts) > 1 else 0.0,
           "n": len(pts)}
    if len(pts) > 1:  # 95% t-interval of the mean over seeds
        half = T95.get(len(pts) - 1, 1.96) * statistics.stdev(pts) / len(pts) ** 0.5
        out["ci95"] = [round(out["mean"] - half, 2), round(out["mean"] + half, 2)]
    return out


def paper_output(cell: dict) -> float | None:
    """The paper's output of a Matcha cell (constant step on γ, last round): recorded beside ours, or the cell's own
    accuracy when the cell was made that way."""
    if "accuracy_paper" in cell:
        return cell["accuracy_paper"]
    return cell["accuracy"] if "schedule" not in (cell.get("config") or {}) else None


def summarize(cells: list[dict]) -> dict:
    by = {}
    for c in cells:
        by[cell_key(c)] = c
    rows = []
    settings = [s for s in SETTINGS if any(k[0] == s for k in by)]
    settings += sorted({k[0] for k in by} - set(settings))
    ttas = [t for t in ("erm", "tent", "t3a", "adanpc") if any(k[2] == t for k in by)]
    for s in settings:
        for t in ttas:
            seeds = sorted({k[1] for k in by if k[0] == s and k[2] == t})
            paired = [seed for seed in seeds if (s, seed, t, False) in by and (s, seed, t, True) in by]
            if not paired:
                continue
            base = [by[(s, seed, t, False)]["accuracy"] for seed in paired]
            mat = [by[(s, seed, t, True)]["accuracy"] for seed in paired]
            row = {"setting": s, "tta": t, "seeds": paired, "base": _ms(base), "matcha": _ms(mat),
                   "diff": _ms([m - b for m, b in zip(mat, base, strict=True)])}
            paper = [paper_output(by[(s, seed, t, True)]) for seed in paired]
            if all(v is not None for v in paper):
                row["matcha_paper"] = _ms(paper)
                row["diff_paper"] = _ms([m - b for m, b in zip(paper, base, strict=True)])
            stop = [by[(s, seed, t, True)].get("accuracy_pic_stop") for seed in paired]
            if all(v is not None for v in stop):
                row["matcha_pic_stop"] = _ms(stop)
            oracle = [by[(s, seed, t, True)].get("oracle_accuracy") for seed in paired]
            if t == "erm" and all(v is not None for v in oracle):
                row["oracle"] = _ms(oracle)
                gaps = [(m - b) / (o - b) for m, b, o in zip(mat, base, oracle, strict=True) if o - b > 1e-9]
                row["oracle_gap_closed"] = round(statistics.fmean(gaps), 3) if gaps else None
            rows.append(row)
    return make_record("matcha.table", 1, rows=rows, claims=claims(rows))


def claims(rows: list[dict]) -> list[dict]:
    get = {(r["setting"], r["tta"]): r for r in rows}
    out = []
    for s in HOMOPHILY:
        for t, need in CLAIM_GAIN.items():
            r = get.get((s, t))
            if r:
                out.append({"claim": f"{s}: Matcha+{t} >= {t} + {need:g}", "measured": r["diff"]["mean"],
                            "met": r["diff"]["mean"] >= need})
    for t in ("erm", "tent"):
        diffs = {s: get[(s, t)]["diff"]["mean"] for s in DEGREE if (s, t) in get}
        if len(diffs) == 2:
            out.append({"claim": f"degree shift: Matcha+{t} >= {t} - 0.5 in both directions, >= +1 in one",
                        "measured": diffs, "met": min(diffs.values()) >= -0.5 and max(diffs.values()) >= 1.0})
    return out


def _fmt(m: dict | None) -> str:
    return "" if m is None else f"{m['mean']:.1f} ± {m['std']:.1f}"


def _ci(m: dict | None) -> str:
    if m is None:
        return ""
    ci = m.get("ci95")
    return f"{m['mean']:+.1f}" + (f" [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else "")


def markdown_table(table: dict) -> str:
    lines = ["| setting | TTA | base | + Matcha | Matcha − base (paired, 95% CI) | paper's output: Matcha − base | "
             "Matcha, PIC stop | oracle γ (ERM) | gap closed | seeds |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in table["rows"]:
        gap = r.get("oracle_gap_closed")
        lines.append(f"| {r['setting']} | {r['tta']} | {_fmt(r['base'])} | {_fmt(r['matcha'])} | "
                     f"{_ci(r['diff'])} | {_ci(r.get('diff_paper'))} | {_fmt(r.get('matcha_pic_stop'))} | "
                     f"{_fmt(r.get('oracle'))} | {'' if gap is None else f'{gap:.2f}'} | {len(r['seeds'])} |")
    if table["claims"]:
        lines += ["", "| claim | measured | met |", "|---|---|---|"]
        for c in table["claims"]:
            m = c["measured"]
            shown = ", ".join(f"{k} {v:+.1f}" for k, v in m.items()) if isinstance(m, dict) else f"{m:+.1f}"
            lines.append(f"| {c['claim']} | {shown} | {'yes' if c['met'] else 'no'} |")
    return "\n".join(lines)


def plot_gammas(cells: list[dict], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    erm = [c for c in cells if c["tta"] == "erm" and "gamma" in c]
    settings = [s for s in SETTINGS if any(c["setting"] == s for c in erm)]
    if not settings:
        raise InputError("--png: no ERM cells with hop weights to plot")
    fig, axes = plt.subplots(2, (len(settings) + 1) // 2, figsize=(3.2 * ((len(settings) + 1) // 2), 5.6),
                             squeeze=False)
    for ax, s in zip(axes.flat, settings, strict=False):
        for label, pick, style in (("source γ", lambda c: not c["matcha"], "k:"),
                                   ("Matcha γ", lambda c: c["matcha"], "C0-"),
                                   ("oracle γ", None, "C3--")):
            chosen = [c for c in erm if c["setting"] == s and (pick(c) if pick else c["matcha"])]
            key = "oracle_gamma" if pick is None else "gamma"
            vals = [c[key] for c in chosen if c.get(key)]
            if vals:
                ax.plot(np.mean(np.array(vals), axis=0), style, marker=".", label=label)
        ax.set_title(s, fontsize=9)
        ax.set_xlabel("hop k")
        ax.axhline(0, color="0.8", lw=0.5)
    axes.flat[0].legend(fontsize=7)
    for ax in list(axes.flat)[len(settings):]:
        ax.axis("off")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)
