"""The five methods over any backend, batched across questions: zs, ms, rag, drag, iterdrag.

Effective context length = the summed prompt tokens of every call made for a question (outputs
excluded); a backend that reports none (a `py:` function) gets a word count (`tokens_estimated`).
A call whose prompt is over `max_context` is not made: the answer is marked `over_context` and the
configuration infeasible.

IterDRAG: retrieve k for the question; then up to n rounds of one generated line: a `follow up`
retrieves k documents for the sub-query (unseen ones appended) and the next line should be the
`intermediate answer`; the `so the final answer is` line ends it; after n follow-ups the final
line is forced. A line of no known kind ends the loop as the answer (a format error).
A reader trained on marked prompts (`rag train --mark`) gets every prompt with its query terms marked.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.rag import prompts

METHODS = ("zs", "ms", "rag", "drag", "iterdrag")
MAX_ANSWER_TOKENS = 32


@dataclass
class Config:
    method: str
    k: int = 0
    m: int = 0
    n: int = 1

    def key(self) -> str:
        return f"{self.method}:k={self.k}:m={self.m}:n={self.n}"

    def normalized(self) -> Config:
        """The parameters a method reads (zs/ms ignore k, zs/rag ignore m, only iterdrag reads n)."""
        k = 0 if self.method in ("zs", "ms") else self.k
        m = 0 if self.method in ("zs", "rag") else self.m
        n = self.n if self.method == "iterdrag" else 1
        return Config(self.method, k, m, n)


@dataclass
class State:
    question: dict
    demos: list[prompts.Demo]
    docs: list[dict] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    follow_ups: int = 0
    calls: int = 0
    tokens: int = 0
    estimated: bool = False
    format_errors: int = 0
    over_context: bool = False
    prediction: str | None = None
    trace: list[dict] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)


class Runner:
    """Runs one configuration over many questions, each IterDRAG step batched through `complete_many`."""

    def __init__(self, llm, index, demo_pool: list[dict] | None = None, *, max_context: int | None = None,
                 seed: int = 0, keep_trace: bool = True, workers: int = 1, mark: bool | None = None) -> None:
        self.llm, self.index = llm, index
        # query terms marked in the documents: as the reader was trained (None: ask the reader)
        self.mark = reads_marked(llm) if mark is None else mark
        self.workers = workers
        self.demo_pool = demo_pool or []
        self.max_context = max_context
        self.seed = seed
        self.keep_trace = keep_trace

    # -- demonstrations -------------------------------------------------------------------------------
    def demos_for(self, q: dict, cfg: Config) -> list[prompts.Demo]:
        if cfg.m == 0:
            return []
        if len(self.demo_pool) < cfg.m:
            raise InputError(f"-m {cfg.m}: only {len(self.demo_pool)} demonstration(s) available (--demos)")
        pool = [d for d in self.demo_pool if d["question"] != q["question"]]
        rng = random.Random(f"{self.seed}:{q['id']}")
        picked = rng.sample(pool, min(cfg.m, len(pool)))
        out = []
        for d in picked:
            if cfg.method == "iterdrag" and d.get("chain"):
                docs = self.index.top(d["question"], cfg.k)
                for sub in d.get("sub_questions", []):
                    docs = merge(docs, self.index.top(sub, cfg.k))
                out.append(prompts.Demo(d["question"], d["answer"], docs, list(d["chain"])))
            else:
                docs = self.index.top(d["question"], cfg.k) if cfg.method in ("drag", "iterdrag") else []
                out.append(prompts.Demo(d["question"], d["answer"], docs))
        return out

    # -- calls ----------------------------------------------------------------------------------------
    def _count(self, messages: list[dict]) -> int | None:
        counter = getattr(self.llm, "prompt_tokens", None) or getattr(getattr(self.llm, "inner", None),
                                                                     "prompt_tokens", None)
        return counter(messages) if callable(counter) else None

    def _call(self, states: list[State], prompts_: list[str], what: str) -> list[str | None]:
        """One call per state (None where the prompt is over the context window)."""
        msgs = [prompts.messages(prompts.mark_query_terms(p) if self.mark else p) for p in prompts_]
        live = []
        for i, (st, m) in enumerate(zip(states, msgs, strict=True)):
            size = self._count(m)
            if self.max_context and size is not None and size > self.max_context:
                st.over_context = True
                continue
            live.append(i)
        outs: list[str | None] = [None] * len(states)
        if not live:
            return outs
        batch = [msgs[i] for i in live]
        if self.workers > 1:  # a server answers several requests at once
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self.workers) as pool:
                comps = list(pool.map(lambda x: self.llm.complete(x, temperature=0.0, max_tokens=MAX_ANSWER_TOKENS,
                                                                  stop=["\n"]), batch))
        else:
            comps = self.llm.complete_many(batch, temperature=0.0, max_tokens=MAX_ANSWER_TOKENS, stop=["\n"])
        for i, comp in zip(live, comps, strict=True):
            st = states[i]
            tokens = comp.prompt_tokens
            if not tokens:
                tokens = sum(len(x["content"].split()) + 1 for x in msgs[i]) + 1
                st.estimated = True
            if self.max_context and tokens > self.max_context:
                st.over_context = True
            st.calls += 1
            st.tokens += tokens
            text = comp.text.strip()
            outs[i] = text
            if self.keep_trace:
                st.trace.append({"call": what, "prompt_tokens": tokens, "output": text})
        return outs

    # -- methods --------------------------------------------------------------------------------------
    def run(self, questions: list[dict], cfg: Config) -> list[dict]:
        cfg = cfg.normalized()
        states = [State(q, self.demos_for(q, cfg)) for q in questions]
        if cfg.k:
            for st, docs in zip(states, self.index.top_many([q["question"] for q in questions], cfg.k), strict=True):
                st.docs = docs
                st.retrieved = [d["id"] for d in docs]
        if cfg.method == "iterdrag":
            self._iterdrag(states, cfg)
        else:
            outs = self._call(states, [prompts.build_prompt(cfg.method, s.question["question"], s.docs, s.demos)
                                       for s in states], "answer")
            for st, out in zip(states, outs, strict=True):
                if out is not None:
                    kind, content = prompts.parse_line(out)
                    st.prediction = content if kind in ("answer", "final") else out
        return [self.record(st, cfg) for st in states]

    def _iterdrag(self, states: list[State], cfg: Config) -> None:
        active = list(states)
        while active:
            need_final = [s for s in active if s.follow_ups >= cfg.n]
            asking = [s for s in active if s.follow_ups < cfg.n]
            for st, out in zip(need_final, self._call(need_final, [self._prompt(s, cfg, True) for s in need_final],
                                                      "final (forced)"), strict=True):
                if out is not None:
                    kind, content = prompts.parse_line(out)
                    st.prediction = content if kind in ("final", "answer", "intermediate") else out
            nxt = []
            outs = self._call(asking, [self._prompt(s, cfg) for s in asking], "next line")
            follow: list[State] = []
            subs: list[str] = []
            for st, out in zip(asking, outs, strict=True):
                if out is None:
                    continue
                kind, content = prompts.parse_line(out)
                if kind in ("final", "answer"):
                    st.prediction = content
                elif kind == "follow":
                    st.chain.append(f"{prompts.FOLLOW} {content}")
                    st.follow_ups += 1
                    follow.append(st)
                    subs.append(content)
                else:  # an intermediate answer with no follow-up before it, or an unknown line
                    st.format_errors += 1
                    st.prediction = content if kind == "intermediate" else out
            if follow:
                for st, docs in zip(follow, self.index.top_many(subs, cfg.k), strict=True):
                    seen = {d["id"] for d in st.docs}
                    new = [d for d in docs if d["id"] not in seen]
                    st.docs = st.docs + new
                    st.retrieved += [d["id"] for d in new]
                outs = self._call(follow, [self._prompt(s, cfg) for s in follow], "intermediate answer")
                for st, out in zip(follow, outs, strict=True):
                    if out is None:
                        continue
                    kind, content = prompts.parse_line(out)
                    if kind == "intermediate":
                        st.chain.append(f"{prompts.INTERMEDIATE} {content}")
                        nxt.append(st)
                    elif kind in ("final", "answer"):
                        st.prediction = content
                    else:
                        st.format_errors += 1
                        st.prediction = out
            active = [s for s in nxt if not s.over_context]

    def _prompt(self, st: State, cfg: Config, force_final: bool = False) -> str:
        return prompts.build_prompt("iterdrag", st.question["question"], st.docs, st.demos, st.chain, force_final)

    def record(self, st: State, cfg: Config) -> dict:
        from toolkit.core.records import make_record

        rec = make_record("rag.answer", 1, id=st.question["id"], config=cfg.key(), method=cfg.method, k=cfg.k,
                          m=cfg.m, n=cfg.n, prediction=st.prediction or "", effective_tokens=st.tokens,
                          tokens_estimated=st.estimated, calls=st.calls, follow_ups=st.follow_ups,
                          format_errors=st.format_errors,
                          over_context=st.over_context, retrieved=st.retrieved)
        if self.keep_trace:
            rec["trace"] = st.trace
        return rec


def reads_marked(llm) -> bool:
    """Whether `llm` is a local reader trained on marked prompts (`reason rag train --mark` writes `"mark": true`
    into its training_log.json); recording and replaying wrappers are looked through."""
    while getattr(llm, "inner", None) is not None:
        llm = llm.inner
    if not str(getattr(llm, "name", "")).startswith("hf:"):
        return False
    log = Path(str(llm.path)) / "training_log.json"
    if not log.is_file():
        return False
    try:
        return bool(json.loads(log.read_text(encoding="utf-8")).get("mark", False))
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as e:
        raise InputError(f"{log}: not a reader's training log ({e.__class__.__name__}); it says whether the reader "
                         "reads marked prompts") from None


def merge(docs: list[dict], new: list[dict]) -> list[dict]:
    seen = {d["id"] for d in docs}
    return docs + [d for d in new if d["id"] not in seen]
