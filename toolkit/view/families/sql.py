"""sql.prediction / sql.eval: per question the candidates by result cluster, pairwise wins, the chosen SQL."""

from __future__ import annotations

from collections import defaultdict

from toolkit.view.model import Context, Family, Filter, Item, Rec, Section


def clusters(candidates: list[dict], chosen: object) -> list[dict]:
    """Candidates grouped by the cluster of their execution result, the chosen one's cluster first."""
    groups: dict[object, list[dict]] = defaultdict(list)
    for i, c in enumerate(candidates):
        if isinstance(c, dict):
            groups[c.get("cluster")].append({**c, "index": i, "chosen": i == chosen})
    out = [{"cluster": k, "members": v, "has_chosen": any(m["chosen"] for m in v),
            "wins": max((m.get("score") or 0 for m in v), default=0), "result": v[0].get("result")}
           for k, v in groups.items()]
    out.sort(key=lambda g: (not g["has_chosen"], -len(g["members"])))
    return out


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    evals = {(str(e.data.get("db_id")), str(e.data.get("qid"))): e.data for e in records.get("sql.eval", [])}
    items = []
    for p in records.get("sql.prediction", []):
        pred = p.data
        ev = evals.get((str(pred.get("db_id")), str(pred.get("qid"))))
        correct = None if ev is None else ev.get("correct")
        cands = pred.get("candidates") if isinstance(pred.get("candidates"), list) else []
        chosen = pred.get("chosen")
        chosen_cand = cands[chosen] if isinstance(chosen, int) and 0 <= chosen < len(cands) else None
        html = ctx.render("sql_question.html.j2", pred=pred, ev=ev, correct=correct, groups=clusters(cands, chosen),
                          chosen=chosen_cand)
        state = "unscored" if correct is None else "right" if correct else "wrong"
        items.append(Item(html, {"result": state, "difficulty": str(pred.get("difficulty", "")),
                                 "db": str(pred.get("db_id", ""))}))
    summaries = [s.data for s in records.get("sql.eval_summary", [])]
    header = ctx.render("sql_header.html.j2", summaries=summaries, items=items)
    filters = [Filter(a, label, sorted({i.attrs[a] for i in items}))
               for a, label in (("result", "result"), ("difficulty", "difficulty"), ("db", "database"))]
    counts = {k: len(v) for k, v in records.items()}
    return [Section("sql", "text-to-SQL", counts, items, header=header, filters=filters)]


FAMILY = Family("sql", "text-to-SQL", ("sql.prediction", "sql.eval", "sql.eval_summary"), build)
