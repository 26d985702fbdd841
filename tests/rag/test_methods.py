"""The methods on canned-line backends: document counts, IterDRAG's loop, token accounting."""

from __future__ import annotations

import pytest

from toolkit.core.errors import InputError
from toolkit.core.llm.base import Completion
from toolkit.core.llm.function import FunctionBackend
from toolkit.rag import index as ix
from toolkit.rag import prompts, world
from toolkit.rag.methods import Config, Runner
from toolkit.rag.pipeline import gold_demo


def _world():
    w = world.generate(1002, per_hop=10, demo_per_hop=5)
    return w, ix.build([d.record() for d in w.docs])


def _canned(lines_for, calls):
    def fn(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
        prompt = messages[-1]["content"]
        calls.append(prompt)
        return Completion([lines_for(prompt)], prompt_tokens=1000 + len(calls))
    return FunctionBackend(name="canned", fn=fn)


def test_drag_holds_m_times_k_plus_k_documents():
    w, idx = _world()
    pool = [gold_demo(q.record()) for q in w.questions if q.split == "demo"]
    calls: list[str] = []
    llm = _canned(lambda p: "answer : x", calls)
    q = next(q.record() for q in w.questions if q.split == "test" and q.hops == 2)
    rec = Runner(llm, idx, pool).run([q], Config("drag", 3, 2))[0]
    assert sum(line.startswith("document :") for line in calls[0].splitlines()) == 2 * 3 + 3
    assert calls[0].count("\nanswer : ") == 2 and calls[0].rstrip().endswith(f"question : {q['question']}")
    assert rec["prediction"] == "x" and rec["calls"] == 1 and rec["effective_tokens"] == 1001
    calls.clear()
    Runner(llm, idx, pool).run([q], Config("rag", 5))
    assert sum(line.startswith("document :") for line in calls[0].splitlines()) == 5


def test_iterdrag_retrieves_subqueries_appends_once_forces_final_and_sums_tokens():
    w, idx = _world()
    q = next(q.record() for q in w.questions if q.split == "test" and q.hops == 3)
    sub = q["decomposition"][0]["question"]
    calls: list[str] = []

    def lines(prompt):
        last = prompt.splitlines()[-1]
        if last.startswith(prompts.FINAL):
            return "zed"
        if last.startswith(prompts.FOLLOW):
            return f"{prompts.INTERMEDIATE} mid"
        return f"{prompts.FOLLOW} {sub}"  # the same sub-query every time: its documents come once

    rec = Runner(_canned(lines, calls), idx).run([q], Config("iterdrag", 2, 0, 3))[0]
    # 3 follow-ups + 3 intermediate answers + the forced final
    assert rec["calls"] == 7 and rec["prediction"] == "zed" and rec["format_errors"] == 0
    assert calls[-1].rstrip().endswith(prompts.FINAL)
    assert rec["effective_tokens"] == sum(1000 + i for i in range(1, 8))
    gold_doc = q["decomposition"][0]["doc"]
    assert gold_doc in rec["retrieved"]
    titles = [line for line in calls[-1].splitlines() if line.startswith("document :")]
    assert len(titles) == len(set(titles)) == len(rec["retrieved"])
    assert len(rec["retrieved"]) <= 4  # k for the question + k for the (repeated) sub-query
    # the sub-query's documents arrive before its intermediate answer
    assert sum(line.startswith("document :") for line in calls[1].splitlines()) > \
        sum(line.startswith("document :") for line in calls[0].splitlines()) or gold_doc in rec["retrieved"][:2]


def test_iterdrag_final_line_and_format_errors():
    w, idx = _world()
    q = next(q.record() for q in w.questions if q.split == "test" and q.hops == 1)
    calls: list[str] = []
    rec = Runner(_canned(lambda p: "i think it is blue", calls), idx).run([q], Config("iterdrag", 2, 0, 3))[0]
    assert rec["format_errors"] == 1 and rec["prediction"] == "i think it is blue" and rec["calls"] == 1
    done = Runner(_canned(lambda p: f"{prompts.FINAL} qux", []), idx).run([q], Config("iterdrag", 2, 0, 3))[0]
    assert done["prediction"] == "qux" and done["calls"] == 1 and done["format_errors"] == 0


def test_over_context_calls_are_not_made():
    w, idx = _world()
    q = next(q.record() for q in w.questions if q.split == "test")
    calls: list[str] = []
    llm = _canned(lambda p: "answer : x", calls)
    llm.prompt_tokens = lambda messages: len(messages[-1]["content"].split())
    rec = Runner(llm, idx, max_context=50).run([q], Config("rag", 8))[0]
    assert rec["over_context"] and rec["calls"] == 0 and not calls


def test_word_count_when_the_backend_reports_no_tokens():
    w, idx = _world()
    q = next(q.record() for q in w.questions if q.split == "test")
    llm = FunctionBackend(name="f", fn=lambda m, **kw: ["answer : x"])
    rec = Runner(llm, idx).run([q], Config("rag", 2))[0]
    assert rec["tokens_estimated"] and 40 < rec["effective_tokens"] < 120


def test_eval_reports_chain_length_per_hop_count_and_the_stand_in_follows_every_hop():
    from toolkit.core.llm import from_uri
    from toolkit.rag.evaluate import score_answers

    w, idx = _world()
    qs = [q.record() for q in w.questions if q.split == "test"]
    llm = from_uri("py:toolkit.rag.standin:reader")
    gold = {q["id"]: q for q in qs}
    full = {s["task"]: s for s in score_answers(Runner(llm, idx).run(qs, Config("iterdrag", 8, 0, 4)), gold, "x")}
    for h in (1, 2, 3, 4):  # one follow-up and one intermediate answer per hop, then the final line
        assert full[f"{h}hop"]["follow_ups"] == h and full[f"{h}hop"]["calls"] == 2 * h + 1
        assert full[f"{h}hop"]["chain_matches_hops"] == 1.0
    capped = {s["task"]: s for s in score_answers(Runner(llm, idx).run(qs, Config("iterdrag", 8, 0, 2)), gold, "x")}
    # n=2: longer chains are cut at 2 follow-ups (then a forced final call) and still count as complete
    assert capped["4hop"]["follow_ups"] == 2 and capped["4hop"]["calls"] == 5
    assert capped["4hop"]["chain_matches_hops"] == 1.0
    # a reader that stops one hop early is caught
    short = [{**a, "follow_ups": a["follow_ups"] - 1} if gold[a["id"]]["hops"] == 3 else a
             for a in Runner(llm, idx).run(qs, Config("iterdrag", 8, 0, 4))]
    assert {s["task"]: s for s in score_answers(short, gold, "x")}["3hop"]["chain_matches_hops"] == 0.0
    rag = {s["task"]: s for s in score_answers(Runner(llm, idx).run(qs, Config("rag", 4)), gold, "x")}
    assert rag["2hop"]["calls"] == 1 and "chain_matches_hops" not in rag["2hop"]


def test_a_reader_trained_on_marked_prompts_gets_them_marked_and_others_do_not(tmp_path):
    import json
    from types import SimpleNamespace

    from toolkit.rag.methods import reads_marked

    w, idx = _world()
    q = next(q.record() for q in w.questions if q.split == "test" and q.hops == 1)
    calls: list[str] = []
    llm = _canned(lambda p: "answer : x", calls)
    Runner(llm, idx).run([q], Config("rag", 4))
    Runner(llm, idx, mark=True).run([q], Config("rag", 4))
    assert prompts.MARK not in calls[0].split() and calls[1] == prompts.mark_query_terms(calls[0])
    assert prompts.MARK in calls[1].split()
    (tmp_path / "training_log.json").write_text(json.dumps({"mark": True}))
    reader = SimpleNamespace(name=f"hf:{tmp_path}", path=tmp_path)
    assert reads_marked(reader) and reads_marked(SimpleNamespace(inner=reader))  # a recording wrapper
    (tmp_path / "training_log.json").write_text(json.dumps({"mark": False}))
    assert not reads_marked(reader) and not reads_marked(llm) and not reads_marked(None)
    (tmp_path / "training_log.json").write_text('{"mark": tru')
    with pytest.raises(InputError, match="training_log.json: not a reader's training log"):
        reads_marked(reader)
