"""Scoring `dsg.answer` records against gold items: accuracy per concept x question type with a bootstrap
95 % CI and the chance level, and for synthetic items (gold node values known) per-node grounding
accuracy and the first wrongly grounded node (in grounding order) behind each wrong answer."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import read_records
from toolkit.dsg.data import read_gold
from toolkit.dsg.score import correct, same_answer
from toolkit.dsg.train import node_type

BOOTSTRAP = 1000


def bootstrap_ci(hits: list[int], n: int = BOOTSTRAP, seed: int = 0) -> tuple[float, float]:
    """Percentile 95 % interval of the mean over `n` resamples (seeded: the same input gives the same CI)."""
    if not hits:
        return (0.0, 0.0)
    rng = random.Random(seed)
    k = len(hits)
    means = sorted(sum(hits[rng.randrange(k)] for _ in range(k)) / k for _ in range(n))
    return (means[int(0.025 * (n - 1))], means[int(0.975 * (n - 1))])


def chance(golds: list[dict[str, Any]]) -> float:
    """Expected accuracy of a uniform guess: over the options (multiple choice) or the distinct gold values."""
    values = sorted({str(g["answer"]) for g in golds})
    rates = [1 / len(g["choices"]) if g.get("choices") else 1 / max(1, len(values)) for g in golds]
    return sum(rates) / max(1, len(rates))


def question_key(item: dict[str, Any]) -> str:
    """What a question-only prior conditions on: the generated task, else concept and question text."""
    return str(item.get("task") or f"{item['concept']}: {item.get('question', '')}")


def prior_from(train_path: str | Path) -> dict[str, Counter]:
    """Gold answer counts per question in a training split (the question-only prior)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for rec in read_gold(train_path).values():
        counts[question_key(rec)][str(rec["answer"])] += 1
    return counts


def prior_answer(prior: dict[str, Counter], item: dict[str, Any]) -> str:
    """The training split's most frequent answer to this question that is among the item's options (the first
    option when none is; ties go to the earlier option, or the smaller value)."""
    seen = prior.get(question_key(item), Counter())
    options = [str(c) for c in item.get("choices") or []]
    if options:
        return max(options, key=lambda c: (seen[c], -options.index(c)))
    return min(seen, key=lambda a: (-seen[a], a)) if seen else ""


def evaluate(pred_path: str | Path, gold_path: str | Path, semantic=None,
             prior: dict[str, Counter] | None = None) -> dict[str, Any]:
    """Scores by concept x question type next to chance (a uniform guess) and, given `prior`, the question-only
    prior's accuracy on the same items; `chance` and `prior` overall are weighted by the items of each row."""
    gold = read_gold(gold_path)
    answers: dict[str, dict[str, Any]] = {}
    groundings: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in read_records(pred_path, types=["dsg.answer", "dsg.grounding"], required=("id",)):
        if r["type"] == "dsg.answer":
            answers[str(r["id"])] = r
        else:
            groundings[str(r["id"])].append(r)
    unknown = [i for i in answers if i not in gold]
    if unknown:
        raise InputError(f"{pred_path}: {len(unknown)} of {len(answers)} predicted ids are not in {gold_path} "
                         f"(first: {unknown[0]})")
    if not answers:
        raise InputError(f"{pred_path}: no dsg.answer records")
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    prior_hits: dict[tuple[str, str], list[int]] = defaultdict(list)
    group_gold: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    node_hits: dict[tuple[str, str], list[int]] = defaultdict(list)
    first_wrong: Counter = Counter()
    flipped = {"wrong_answers": 0, "with_wrong_node": 0}
    for item_id, a in answers.items():
        g = gold[item_id]
        qtype = g.get("question_type", "open")
        ok = correct(str(a.get("answer", "")), str(g["answer"]), qtype, g.get("choices"), semantic)
        key = (g["concept"], qtype)
        groups[key].append(int(ok))
        group_gold[key].append(g)
        if prior is not None:
            prior_hits[key].append(int(correct(prior_answer(prior, g), str(g["answer"]), qtype, g.get("choices"))))
        nodes = g.get("gold_nodes")
        if not nodes or item_id not in groundings:
            continue
        wrong = None
        for rec in groundings[item_id]:
            if rec["node"] not in nodes:
                continue
            hit = same_answer(str(rec.get("answer", "")), nodes[rec["node"]])
            node_hits[(g["concept"], node_type(rec["node"]))].append(int(hit))
            if not hit and wrong is None:
                wrong = node_type(rec["node"])
        if not ok:
            flipped["wrong_answers"] += 1
            if wrong is not None:
                flipped["with_wrong_node"] += 1
                first_wrong[(g["concept"], wrong)] += 1
    rows = []
    for (concept, qtype), hits in sorted(groups.items()):
        lo, hi = bootstrap_ci(hits)
        rows.append({"concept": concept, "question_type": qtype, "n": len(hits),
                     "accuracy": round(sum(hits) / len(hits), 4), "ci95": [round(lo, 4), round(hi, 4)],
                     "chance": round(chance(group_gold[(concept, qtype)]), 4)})
        if prior is not None:
            rows[-1]["prior"] = round(sum(prior_hits[(concept, qtype)]) / len(hits), 4)
    every = [h for hits in groups.values() for h in hits]
    lo, hi = bootstrap_ci(every)
    by_concept = {}
    for concept in sorted({c for c, _ in groups}):
        hits = [h for (c, _), hs in groups.items() if c == concept for h in hs]
        by_concept[concept] = round(sum(hits) / len(hits), 4)
    weighted_chance = sum(chance(group_gold[k]) * len(hs) for k, hs in groups.items()) / len(every)
    extra = {}
    if prior is not None:
        extra["prior"] = round(sum(h for hs in prior_hits.values() for h in hs) / len(every), 4)
    return {
        "n": len(every), "missing": len([i for i in gold if i not in answers]),
        "accuracy": round(sum(every) / len(every), 4), "ci95": [round(lo, 4), round(hi, 4)],
        "chance": round(weighted_chance, 4), **extra,
        "by_concept": by_concept, "mean_concept_accuracy": round(sum(by_concept.values()) / len(by_concept), 4),
        "rows": rows,
        "node_accuracy": {f"{c}/{n}": round(sum(h) / len(h), 4) for (c, n), h in sorted(node_hits.items())},
        "first_wrong_node": {f"{c}/{n}": k for (c, n), k in first_wrong.most_common()},
        **flipped,
    }


def format_table(result: dict[str, Any]) -> str:
    has_prior = "prior" in result
    lines = [f"{'concept':<10} {'type':<7} {'n':>5} {'acc':>6} {'95% CI':>15} {'chance':>7}"
             + (f" {'prior':>6}" if has_prior else "")]
    for r in result["rows"]:
        ci = f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        lines.append(f"{r['concept']:<10} {r['question_type']:<7} {r['n']:>5} {r['accuracy']:>6.3f} {ci:>15} "
                     f"{r['chance']:>7.3f}" + (f" {r['prior']:>6.3f}" if has_prior else ""))
    lines.append(f"overall {result['accuracy']:.3f} [{result['ci95'][0]:.3f}, {result['ci95'][1]:.3f}] over "
                 f"{result['n']} ({result['missing']} gold items without a prediction); chance {result['chance']:.3f}"
                 + (f"; question-only prior {result['prior']:.3f}" if has_prior else ""))
    if result["node_accuracy"]:
        lines.append("grounding accuracy: " + ", ".join(f"{k} {v:.3f}" for k, v in result["node_accuracy"].items()))
    if result["first_wrong_node"]:
        lines.append(f"first wrong node behind {result['with_wrong_node']}/{result['wrong_answers']} wrong answers: "
                     + ", ".join(f"{k} {v}" for k, v in result["first_wrong_node"].items()))
    return "\n".join(lines)


def primitive_accuracy(asker, prims: list[dict[str, Any]], train_prims: list[dict[str, Any]]) -> dict[str, Any]:
    """A grounding model on primitive questions (image paths resolved), per component, next to the
    question-only prior: each question answered with its most frequent gold answer in `train_prims` (the same
    question text; the component's most frequent answer for a question never seen there)."""
    by_question: dict[str, Counter] = defaultdict(Counter)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    for p in train_prims:
        by_question[p["question"]][str(p["gold"])] += 1
        by_kind[f"{p['concept']}/{node_type(p['node'])}"][str(p["gold"])] += 1
    answers = asker.ask([(p["image"], p["question"]) for p in prims])
    hits: dict[str, list[int]] = defaultdict(list)
    prior_hits: dict[str, list[int]] = defaultdict(list)
    for p, a in zip(prims, answers, strict=True):
        kind = f"{p['concept']}/{node_type(p['node'])}"
        seen = by_question.get(p["question"]) or by_kind.get(kind) or Counter({"": 1})
        hits[kind].append(int(same_answer(a, str(p["gold"]))))
        prior_hits[kind].append(int(same_answer(min(seen, key=lambda v: (-seen[v], v)), str(p["gold"]))))
    every = [h for v in hits.values() for h in v]
    prior_every = [h for v in prior_hits.values() for h in v]
    lo, hi = bootstrap_ci(every)
    return {"n": len(every), "accuracy": round(sum(every) / len(every), 4), "ci95": [round(lo, 4), round(hi, 4)],
            "prior": round(sum(prior_every) / len(prior_every), 4),
            "by_component": {k: {"n": len(v), "accuracy": round(sum(v) / len(v), 4),
                                 "prior": round(sum(prior_hits[k]) / len(v), 4)} for k, v in sorted(hits.items())}}
