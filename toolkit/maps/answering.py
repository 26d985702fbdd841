"""`answer`: pair questions with their circuit's netlist (and simulation) and run one answerer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import load_records
from toolkit.maps.answer import (
    ANSWER_PROMPT,
    REFINE_PROMPT,
    fill_empty,
    parse_answer_json,
    parse_spice_block,
    pick_letter,
    read_question,
    reduce_answer,
    rule_answer,
    sim_text,
    unit_of,
)
from toolkit.maps.io import iter_netlists, sim_from_record
from toolkit.maps.netlist import parse_netlist


def answer_all(netlists: str, questions: Path, **kwargs) -> Iterator[dict]:
    items = [(cid, net, rec) for cid, _, net, rec in iter_netlists(netlists)]
    yield from _answer(items, questions, **kwargs)


def answer_records(records: list[dict], questions: Path, **kwargs) -> Iterator[dict]:
    items = [(r["id"], parse_netlist(r["netlist"]), r) for r in records]
    yield from _answer(items, questions, **kwargs)


def _answer(items, questions: Path, *, answerer: str, simulator=None, llm=None, no_sim: bool = False):
    by_id = {cid: (net, rec) for cid, net, rec in items}
    for lineno, q in enumerate(load_records(questions, types=["maps.question"], required=["id", "text"]), start=1):
        cid = q.get("circuit") or q["id"].rsplit("-q", 1)[0]
        if cid not in by_id:
            raise InputError(f"{questions}:{lineno}: field 'circuit': no netlist for circuit '{cid}'")
        net, rec = by_id[cid]
        used_sim, why, extra = False, None, {}
        if net is None:
            value, why = None, "netlist could not be parsed"
        elif answerer == "rule":
            value, used_sim, why = rule_answer(q, net, sim_from_record(rec), simulator)
        elif answerer == "reduce":
            value, why = reduce_answer(q, net)
        else:
            image = question_image(q, rec, questions, lineno)
            value, used_sim, why, extra = llm_answer(q, net, sim_from_record(rec), simulator, llm, no_sim, image)
        asked = read_question(q["text"])
        out = {"type": "maps.answer", "schema": 1, "id": q["id"], "circuit": cid, "answerer": answerer,
               "value": value, "unit": unit_of(*asked) if asked else None,
               "letter": pick_letter(value, q.get("options") or []), "used_sim": used_sim,
               "abstained": value is None, "reason": why, **extra}
        yield out


def question_image(q: dict, rec: dict | None, questions: Path, lineno: int) -> str | None:
    """The circuit's image as a data URL for the answer prompt, or None when no record names one. The netlist
    record's `image` is a path as written; the question's is relative to the questions file (as generate
    writes it). A named image that is missing or unreadable is an input error, not a silent text-only prompt."""
    from toolkit.core.vlm import image_data_url

    where = f"{questions}:{lineno}"
    named = [Path(rec["image"])] if rec and rec.get("image") else []
    if q.get("image"):
        path = Path(q["image"])
        named += [path] if path.is_absolute() else [Path(questions).parent / path, path]
    if not named:
        return None
    found = next((p for p in named if p.is_file()), named[0])
    return image_data_url(found, where=f"{where}: field 'image'")


def llm_answer(q: dict, net, sim, simulator, llm, no_sim: bool, image: str | None = None):
    """The anchor's flow: refine <Empty> values through the LLM (text only, as the anchor's refine step),
    simulate, then ask with the results and the circuit's image (an OpenAI-style image part, as the anchor's
    step 2 sends it)."""
    extra = {"refined": False, "parsed": True, "image_sent": image is not None}
    if net.has_empty:
        prompt = REFINE_PROMPT.format(question=q["text"], netlist=net.text())
        reply = llm.complete([{"role": "user", "content": prompt}], max_tokens=1024).texts[0]
        block = parse_spice_block(reply)
        extra["refined"] = True
        filled = None
        if block:
            try:
                filled = parse_netlist(block, allow_empty=False)
            except InputError:
                filled = None
        net = filled or fill_empty(net, q["text"]) or net
        sim = None
    results = ""
    used_sim = False
    if not no_sim and not net.has_empty:
        if sim is None or not sim.ok:
            sim = simulator.run(net)
        if sim.ok:
            results, used_sim = sim_text(sim), True
    prompt = ANSWER_PROMPT.format(question=q["text"], netlist=net.text(), results=results)
    content = prompt if image is None else [{"type": "text", "text": prompt},
                                            {"type": "image_url", "image_url": {"url": image}}]
    reply = llm.complete([{"role": "user", "content": content}], max_tokens=256).texts[0]
    value = parse_answer_json(reply)
    if value is None:
        extra["parsed"] = False
        return None, used_sim, "unparsed reply", extra
    return value, used_sim, None, extra
