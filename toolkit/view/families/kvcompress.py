"""kvcompress.eval: accuracy against KV budget per method, one chart per context length."""

from __future__ import annotations

from collections import defaultdict

from toolkit.view.model import Context, Family, Item, Rec, Section
from toolkit.view.svg import Series, line_chart


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    rows = [r.data for r in records.get("kvcompress.eval", [])]
    by_context: dict[object, list[dict]] = defaultdict(list)
    for r in rows:
        by_context[r.get("context_mean")].append(r)
    items = []
    for context, group in sorted(by_context.items(), key=lambda kv: str(kv[0])):
        budgets = sorted({r["budget"] for r in group if isinstance(r.get("budget"), int | float)})
        methods: dict[str, dict] = defaultdict(dict)
        full = [r for r in group if r.get("budget") is None]
        for r in group:
            if isinstance(r.get("budget"), int | float):
                name = str(r.get("method")) + (" (pinned)" if r.get("pinned_support") else "")
                methods[name][r["budget"]] = r.get("accuracy")
        series = [Series(m, budgets, [acc.get(b) for b in budgets]) for m, acc in methods.items()]
        # The uncompressed cache has no budget: drawn as a flat line across the budgets.
        series += [Series(str(f.get("method")), budgets, [f.get("accuracy")] * len(budgets)) for f in full if budgets]
        label = f"{context:g}" if isinstance(context, int | float) else str(context)
        chart = line_chart(series, title=f"accuracy vs KV budget (context {label} tokens)",
                           x_label="budget (tokens per head)", y_label="accuracy", log_x=True)
        html = ctx.render("kvcompress_eval.html.j2", context=label, chart=chart, rows=group,
                          tasks=sorted({t for r in group for t in (r.get("by_task") or {})}))
        items.append(Item(html))
    counts = {k: len(v) for k, v in records.items()}
    return [Section("kvcompress", "KV compression", counts, items)]


FAMILY = Family("kvcompress", "KV compression", ("kvcompress.eval",), build)
