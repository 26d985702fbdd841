"""Ask any LLM backend the problems (direct or CoT, with k gold-traced train-split shots) and parse replies."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import RecordWriter, existing_keys, make_record, read_records
from toolkit.ssm_limits.parse import parse_reply
from toolkit.ssm_limits.prompts import messages
from toolkit.ssm_limits.tasks import generate

MAX_TOKENS = {"direct": 64, "cot": 1024}


def shots_for(problem: dict, k: int, seed: int, cache: dict) -> list[dict]:
    """k worked examples of the same task, size and depth, from the train split (never a test table)."""
    if k == 0:
        return []
    p = problem["params"]
    key = (problem["task"], p["size"], p["depth"], bool(p.get("query_first")))
    if key not in cache:
        cache[key] = generate(problem["task"], p["size"], p["depth"], k, "train", seed, bool(p.get("query_first")))
    return cache[key]


def check_resume(out: Path | None, config: dict) -> set[str]:
    """Ids already answered under the same config; a changed config is an input error."""
    if out is None or not out.exists():
        return set()
    for rec in read_records(out, skip_bad=True):
        if rec.get("config") != config:
            raise InputError(f"{out}: --resume with a changed config (file has {rec.get('config')}, now {config})")
    return existing_keys(out, lambda r: r["id"])


def ask_all(problems: list[dict], llm, mode: str, shots: int, seed: int, workers: int, out: Path | None,
            resume: bool, config: dict) -> int:
    done = check_resume(out, config) if resume else set()
    todo = [p for p in problems if p["id"] not in done]
    cache: dict = {}
    requests = [(p, messages(p, mode, shots_for(p, shots, seed, cache))) for p in todo]

    def one(item):
        problem, msgs = item
        text = llm.complete(msgs, n=1, temperature=0.0, max_tokens=MAX_TOKENS[mode]).texts[0]
        parsed = parse_reply(problem["task"], text)
        return make_record("ssm.response", id=problem["id"], task=problem["task"], mode=mode, model=config["llm"],
                           text=text, answer=parsed["answer"], steps=parsed["steps"], config=config)

    with RecordWriter(out, append=resume) as writer, ThreadPoolExecutor(max_workers=workers) as pool:
        for rec in pool.map(one, requests):
            writer.write(rec)
    return len(todo)
