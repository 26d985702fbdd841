"""The shipped generator and selector on the shipped test world (databases and schema names never trained on)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.chase_sql.conftest import ROOT

ASSETS = ROOT / "assets" / "chase_sql"
GENERATOR, SELECTOR, WORLD = ASSETS / "generator", ASSETS / "selector", ASSETS / "world-test"
# assets/chase_sql/README.md, "Measured": greedy divide-and-conquer on the first 12 test questions
README_GREEDY_DC_EX = 50.0
README_GREEDY_DC_EXECUTES = 75.0


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    out = tmp_path_factory.mktemp("world-test") / "w"
    shutil.copytree(WORLD, out, ignore=shutil.ignore_patterns("*.chase-index"))
    return out


def test_generator_greedy_ex_holds_the_readme_figure(world):
    from toolkit.chase_sql.learned.greedy_ex import greedy_ex
    from toolkit.core.llm import from_uri

    got = greedy_ex(from_uri(f"hf:{GENERATOR}"), world, limit=12, fmt="dc")
    assert got["n"] == 12
    assert got["ex"] >= README_GREEDY_DC_EX - 3.0, got  # 12 questions: one question is 8.3 points
    # the README's figures stay true both ways: a better or a worse model must update them
    assert got["ex"] <= README_GREEDY_DC_EX + 3.0 and abs(got["executes"] - README_GREEDY_DC_EXECUTES) <= 10.0, got
    assert sum(sql.startswith("SELECT ") for sql in got["sql"]) >= 11  # it writes SQL, not free text


# assets/chase_sql/README.md, "Measured": the shipped selector on the 220 shipped test pairs (target: >= 90%)
README_SWAP_AGREEMENT = 0.527
README_PAIR_ACCURACY = 0.627


def test_selector_agreement_under_ab_swap_is_the_readme_figure():
    from toolkit.chase_sql.learned.pairwise import ModelSelector

    pairs = [json.loads(line) for line in (ASSETS / "selector-test-pairs.jsonl").read_text().splitlines()]
    assert len(pairs) >= 40 and all(p["qid"] for p in pairs)
    probs = ModelSelector(SELECTOR).prob_a([p["text"] for p in pairs])
    # the file holds each pair as (right, wrong) then (wrong, right)
    twins = [(probs[i] >= 0.5, probs[i + 1] >= 0.5) for i in range(0, len(pairs), 2)]
    agree = sum(a != b for a, b in twins) / len(twins)
    accuracy = sum((p >= 0.5) == (x["label"] == "A") for p, x in zip(probs, pairs, strict=True)) / len(pairs)
    # the measured figures, both ways (the target of 90% agreement is missed; README says why)
    assert abs(agree - README_SWAP_AGREEMENT) <= 0.02 and abs(accuracy - README_PAIR_ACCURACY) <= 0.02


def test_cli_runs_the_shipped_models_and_eval_reads_the_records(world, tmp_path, reason):
    preds = tmp_path / "p.jsonl"
    run = reason("chase-sql", "run", "--data", str(world), "--limit", "1", "--llm", f"hf:{GENERATOR}",
                 "--selector", f"model:{SELECTOR}", "--per-generator", "2", "--fix-attempts", "1", "--seed", "3",
                 "--generators", "dc,qp",  # os first asks for synthetic examples: long outputs, slow on one thread
                 "--cache-dir", str(tmp_path / "idx"), "-o", str(preds))
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in preds.read_text().splitlines()]
    assert len(records) == 1 and all(len(r["candidates"]) == 4 for r in records)
    assert all(r.get("backend") != "stand-in" for r in records)
    assert {c["generator"] for r in records for c in r["candidates"]} == {"dc", "qp"}
    for c in (c for r in records for c in r["candidates"]):  # a draft that failed or found nothing went to the fixer
        assert c["fixes"] or (c["result"]["status"] == "ok" and c["result"]["n_rows"] > 0), c
    ev = reason("chase-sql", "eval", str(preds), "--data", str(world))
    assert ev.returncode == 0, ev.stderr
    summary = [json.loads(x) for x in ev.stdout.splitlines() if '"sql.eval_summary"' in x][0]
    assert summary["n"] == 1 and "stand-in" not in ev.stderr
    bad = reason("chase-sql", "run", "--data", str(world), "--limit", "1", "--llm", f"hf:{GENERATOR}",
                 "--selector", f"model:{GENERATOR}", "-o", str(tmp_path / "q.jsonl"))
    assert bad.returncode == 2 and "not a pairwise selector model" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
