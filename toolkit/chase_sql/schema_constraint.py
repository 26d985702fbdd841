"""Schema-constrained decoding: a logits processor that lets the generator write only names of its prompt's schema.

At each step, for each row, every token that would make the SQL written so far name a table, column or
alias the prompt's schema lacks gets probability zero (`sql_scanner.py` decides, one character at a time);
so does every token that breaks the SQL grammar (`sql_grammar.py`), and the end of the answer unless it is a
whole query. A row is bounded: it closes its query before its token budget runs out (or stops when it cannot),
and stops at a dead end or when the mask has refused its first choice OVERRULED_STOP times in a row. Rows of
other stages (keywords, synthetic examples) and rows whose prompt shows no CREATE TABLE statement run free.

It is a transformers `LogitsProcessor` (`__call__(input_ids, scores) -> scores`): `generate(...,
logits_processor=[...])` takes it, and so does the copy-head model's cached `decode`. It is on by default
for the generators trained here (`attach`), whose answer is the SQL itself; `--no-schema-constraint` turns
it off.

Greedy answers under the constraint come from a small beam (`attach(beams=DEFAULT_BEAMS)`, the backend's
`beam_decode`): a hypothesis the processor stops at a dead end, or that can no longer close in time, gets no
token at all (`prune`), so the beam backs up to its next-best prefix (PICARD's setting); `reorder` follows it.

Cost: tokens made only of name characters are judged in bulk from the names that may follow (cached per
state); the few others (spaces, symbols, quotes) by feeding them to a copy of the row's scanner.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache

from toolkit.chase_sql.learned.template import ANSWER_CUE
from toolkit.chase_sql.prompts import TASK_DC, TASK_FIX, TASK_OS, TASK_QP
from toolkit.chase_sql.sql_scanner import (
    FORWARD_ALIAS,
    NUMBER_PREFIX,
    Invalid,
    ScanState,
    SchemaNames,
)

OVERRULED_STOP = 24  # a row whose first choice was refused this many steps in a row has lost its way
CLOSE_MARGIN = 64  # tokens before the budget's end from which a row that cannot end yet is watched ...
LOOP_WINDOW = 40  # a row whose last tokens repeat one unit of up to LOOP_UNIT tokens is made to close (the
LOOP_UNIT = 8  # copy-head decoder ends such a row, unclosed, after 48)
DEFAULT_BEAMS = 4  # greedy SQL answers: a beam this wide backs up from dead ends (foreign dc: 90.6% -> 100% run)
CLOSE_SLACK = 4  # ... and made to close once its closing text needs no more than this many tokens beyond it
SQL_TASKS = (TASK_DC, TASK_QP, TASK_OS, TASK_FIX)  # stages whose answer is one SQL query
_CREATE = re.compile(r"CREATE TABLE .*?\n\);", re.S)
_NAME_TOKEN = re.compile(r"[A-Za-z0-9_]+")


class TokenVocab:
    """What each token id spells, sorted for the processor: name-character tokens by their lower-case text,
    the other tokens (spaces, symbols, mixed) for one-by-one checks, special tokens never allowed."""

    def __init__(self, texts: list[str | None], eos_id: int) -> None:
        self.size, self.eos_id, self.texts = len(texts), eos_id, texts
        self.by_text: dict[str, list[int]] = {}
        self.letter_start, self.digit_start, self.other = [], [], []
        self.short: list[tuple[str, int]] = []  # name tokens short enough to spell an alias (T1, sub)
        for i, text in enumerate(texts):
            if i == eos_id or not text:
                continue
            if _NAME_TOKEN.fullmatch(text):
                low = text.lower()
                self.by_text.setdefault(low, []).append(i)
                (self.digit_start if low[0].isdigit() else self.letter_start).append(i)
                if len(low) <= 5:
                    self.short.append((low, i))
            else:
                self.other.append((i, text))
        self.name_ids = self.letter_start + self.digit_start
        self.exact = {t: i for i, t in enumerate(texts) if t and i != eos_id}  # a closing text's pieces
        self.longest = max((len(t) for t in self.exact), default=1)
        self.max_len = max((len(t) for t in self.by_text), default=0)

    def pieces(self, text: str) -> list[int]:
        """`text` cut greedily into the longest tokens that spell it ([] when some character has no token)."""
        out, i = [], 0
        while i < len(text):
            for k in range(min(self.longest, len(text) - i), 0, -1):
                token = self.exact.get(text[i:i + k])
                if token is not None:
                    out.append(token)
                    i += k
                    break
            else:
                return []
        return out


def token_texts(tokenizer) -> list[str | None]:
    """The text of every token id (None for special tokens). Exact for tokenizers whose decoder concatenates
    pieces (the project's piece tokenizer); a leading `Ġ`/`▁` space marker is read as a space."""
    special = set(tokenizer.all_special_ids)
    out: list[str | None] = []
    for i, tok in enumerate(tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))):
        if i in special or tok is None:
            out.append(None)
            continue
        if tok[:1] in ("Ġ", "▁"):
            tok = " " + tok[1:]
        out.append(tok)
    return out


def schema_from_prompt(text: str) -> SchemaNames | None:
    """The tables and columns of the CREATE TABLE statements of a prompt (after `Now the real task.` when the
    prompt has worked examples first), read by SQLite itself so that quoting is exact."""
    part = text.split("Now the real task.")[-1]
    statements = _CREATE.findall(part)
    if not statements:
        return None
    conn = sqlite3.connect(":memory:")
    tables: dict[str, list[str]] = {}
    try:
        for stmt in statements:
            try:
                conn.execute(stmt)
            except sqlite3.Error:
                continue
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            tables[name] = [r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", (name,)).fetchall()]
    finally:
        conn.close()
    return SchemaNames(tables) if tables else None


@lru_cache(maxsize=256)
def _schema_cached(text: str) -> SchemaNames | None:
    return schema_from_prompt(text)


def schema_of_request(messages: list[dict]) -> SchemaNames | None:
    """The schema an SQL-writing stage's answer must respect; None for other stages."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if user is None or not isinstance(user.get("content"), str):
        return None
    if user["content"].split("\n", 1)[0] not in SQL_TASKS:
        return None
    return _schema_cached(user["content"])


class SchemaConstraint:
    """A transformers LogitsProcessor over a batch whose row r answers a prompt with schema `schemas[r]`
    (None: unconstrained). Rows keep their index for the whole generation; a row whose last token is special
    (it ended) is left alone. The prompt width is read at the first call (all of it is prompt)."""

    def __init__(self, vocab: TokenVocab, schemas: list[SchemaNames | None], prompt_width: int | None = None):
        self.vocab, self.schemas, self.width = vocab, schemas, prompt_width
        self.states: list[ScanState | None] = [ScanState(s) if s is not None else None for s in schemas]
        self.fed = [0] * len(schemas)
        self._name_cache: dict = {}
        self._other_cache: dict = {}
        self._keyword_cache: dict = {}
        self.masked_steps = 0  # steps where the model's first choice was not allowed
        self.budget: int | None = None  # new tokens a row may write (the backend sets it): rows close within it
        self.recent: list[list[int]] = [[] for _ in schemas]  # each row's last LOOP_WINDOW tokens
        self.overruled = [0] * len(schemas)  # consecutive steps where a row's first choice was not allowed
        self.stopped = 0  # rows ended early: lost (overruled OVERRULED_STOP times in a row) or at a dead end
        self.forced = 0  # steps where a row was made to close its query before the budget ran out
        self.prune = False  # a beam's processor: a stopped row gets no token at all (the beam drops it)

    def reorder(self, parents: list[int]) -> None:
        """A beam moved on: new row i continues old row parents[i] (rows may share a parent)."""
        self.schemas = [self.schemas[p] for p in parents]
        self.states = [None if self.states[p] is None else self.states[p].clone() for p in parents]
        self.fed = [self.fed[p] for p in parents]
        self.recent = [list(self.recent[p]) for p in parents]
        self.overruled = [self.overruled[p] for p in parents]

    def __call__(self, input_ids, scores):
        import torch

        if self.width is None:
            self.width = input_ids.shape[1]
        rows = input_ids.shape[0]
        if rows != len(self.schemas):
            raise ValueError(f"schema constraint: {rows} rows, {len(self.schemas)} schemas")
        for r in range(rows):
            state = self.states[r]
            if state is None:
                continue
            new = input_ids[r, self.width + self.fed[r]:].tolist()
            if new and self._ended(new[-1]):
                continue
            try:
                for t in new:
                    state.feed(self._text(t))
            except Invalid:  # a token the mask did not rule out (a fallback or an external stop)
                self.states[r] = None
                continue
            self.fed[r] += len(new)
            self.recent[r] = (self.recent[r] + new)[-LOOP_WINDOW:]
            stopped, free = self.stopped, self.allowed(state)
            allowed = self._bounded(r, state, free)
            if self.prune and self.stopped > stopped and self.vocab.eos_id not in free:  # it cannot end
                scores[r] = float("-inf")
                continue
            mask = torch.ones(scores.shape[1], dtype=torch.bool, device=scores.device)
            mask[torch.tensor(allowed, device=scores.device)] = False
            if bool(mask[scores[r].argmax()]):
                self.masked_steps += 1
                self.overruled[r] += 1
            else:
                self.overruled[r] = 0
            scores[r] = scores[r].masked_fill(mask, float("-inf"))
            if allowed == [self.vocab.eos_id]:
                scores[r, self.vocab.eos_id] = 0.0  # a row made to stop: end it whatever the model's score
        return scores

    def _bounded(self, r: int, state: ScanState, allowed: list[int]) -> list[int]:
        """The allowed tokens once the row's budget and its history are taken into account: a row with no
        allowed token (a dead end), or one the mask overruled OVERRULED_STOP times in a row (lost), ends now;
        a row whose budget is nearly spent may only write the text that closes its query (or end)."""
        eos = self.vocab.eos_id
        if not allowed or self.overruled[r] >= OVERRULED_STOP:
            self.stopped += 1
            return [eos]
        if eos in allowed:  # whole: it may go on, unless going on could leave it unclosed at the limit
            if self.budget is not None and self.budget - self.fed[r] <= CLOSE_SLACK:
                self.forced += 1
                return [eos]
            return allowed
        looping = _repeats(self.recent[r])  # the decoder would cut it there: close it while it can
        if self.budget is None and not looping:
            return allowed
        left = 10 ** 9 if self.budget is None else self.budget - self.fed[r]
        if left > CLOSE_MARGIN and not looping:
            return allowed
        closing = closing_text(state)
        pieces = self.vocab.pieces(closing)
        if not pieces:  # none found from here (a word half written, an alias never declared): go on
            return allowed
        if len(pieces) > left:  # no way to close in time: stop now, not at the limit
            self.stopped += 1
            return [eos]
        if len(pieces) + CLOSE_SLACK < left and not looping:
            return allowed
        if pieces[0] not in allowed:
            self.stopped += 1
            return [eos]
        self.forced += 1
        return [pieces[0]]

    def _ended(self, token: int) -> bool:
        return token == self.vocab.eos_id or token >= self.vocab.size or not self._text(token)

    def _text(self, token: int) -> str:
        return (self.vocab.texts[token] or "") if token < self.vocab.size else ""

    # ---- the allowed tokens of one state ---------------------------------------------------------------------
    def allowed(self, state: ScanState) -> list[int]:
        key = _state_key(state)
        other = self._other_cache.get(key)
        if other is None:
            other = []
            for i, text in self.vocab.other:
                probe = state.clone()
                try:
                    probe.feed(text)
                except Invalid:
                    continue
                other.append(i)
            if state.can_end():
                other.append(self.vocab.eos_id)
            self._other_cache[key] = other
        return self._names_allowed(state) + other

    def _names_allowed(self, state: ScanState) -> list[int]:
        v = self.vocab
        mode = state.mode
        if mode == "s":
            return v.name_ids
        if mode == "num":  # the digits (exponent, hex digits) that keep it a number
            key = ("num", state.literal)
            if key not in self._name_cache:
                self._name_cache[key] = [i for i in v.name_ids
                                         if NUMBER_PREFIX.fullmatch(state.literal + (v.texts[i] or ""))]
            return self._name_cache[key]
        if mode == "qd":
            return []
        quoted = mode == "q"
        base = state.word.lower() if mode in ("i", "q") else ""
        cands = state.candidates(state.role, quoted)
        key = (id(state.schema), mode == "n" or mode == "s_end", quoted, base, state.role,
               None if cands is None else (tuple(id(x) for x in cands[0]), frozenset(cands[1]), cands[2]),
               state._may_forward(), state.grammar.key(), state.ambiguous())
        hit = self._name_cache.get(key)
        if hit is not None:
            return hit
        if mode in ("n", "s_end"):
            digits = self._digits_ok(state)
            if cands is None:
                out = v.letter_start + (v.digit_start if digits else [])
            else:
                out = self._spelled(cands, base, state) + (v.digit_start if digits else [])
        elif cands is None:
            out = v.name_ids
        else:
            out = self._spelled(cands, base, state, quoted)
        if not quoted and mode in ("n", "s_end", "i"):
            keywords = self._keywords_ok(state.grammar)
            if not state.grammar.ident_ok():
                out = self._keyword_spelled(out, base, keywords)  # only keywords may stand here
            elif cands is not None:  # a name may, but not a keyword that cannot stand here (`COUNT(SELECT`)
                dead = (cands[0], cands[1], cands[2] | state.grammar.dead_words(keywords) | state.unusable_words())
                live = set(self._spelled(dead, base, state))
                if not base:  # a number may start here whatever the names
                    live.update(v.digit_start)
                out = [i for i in out if i in live]
        self._name_cache[key] = out
        return out

    def _keywords_ok(self, grammar) -> frozenset[str]:
        key = grammar.key()
        hit = self._keyword_cache.get(key)
        if hit is None:
            hit = self._keyword_cache[key] = grammar.keywords_ok()
        return hit

    def _keyword_spelled(self, ids: list[int], base: str, keywords: frozenset[str]) -> list[int]:
        """The tokens of `ids` with which base + token is a prefix of one of `keywords`."""
        texts = self.vocab.texts
        return [i for i in ids if (texts[i] or "0")[0].isdigit()
                or any(k.startswith(base + (texts[i] or "").lower()) for k in keywords)]

    def _digits_ok(self, state: ScanState) -> bool:
        probe = state.clone()
        try:
            probe.feed("0")
        except Invalid:
            return False
        return True

    def _spelled(self, cands, base: str, state: ScanState, quoted: bool = False) -> list[int]:
        """Name tokens t with base + t a prefix of a name that may stand here."""
        v = self.vocab
        lists, extra, excluded = cands
        words = [w for lst in lists for w in lst.with_prefix(base) if w not in excluded]
        words += [w for w in extra if w.startswith(base)]
        found: set[int] = set()
        for w in words:
            tail = w[len(base):]
            for k in range(1, min(len(tail), v.max_len) + 1):
                piece = tail[:k]
                if not piece[-1].isalnum() and piece[-1] != "_":
                    break
                found.update(v.by_text.get(piece, ()))
        if state._alias_shaped("t", quoted, state.role):  # an alias used before FROM, or without AS (T1)
            found.update(i for low, i in v.short if FORWARD_ALIAS.fullmatch(base + low))
        if not base:
            found.difference_update(v.digit_start)
        return sorted(found)


def _state_key(state: ScanState) -> tuple:
    frames = tuple((f.clause, f.query, tuple(sorted(f.aliases.items(), key=str)), tuple(f.items), f.merged,
                    tuple(sorted((k, tuple(sorted(c))) for k, c in f.pending.items()))) for f in state.frames)
    return (id(state.schema), state.mode, state.word.lower(), state.closer, state.role, frames, state.names,
            state.ctes, state.started, state.grammar.key(), state.spaces,
            state.literal[-12:] if state.mode in ("s", "s_end", "num") else "")


def _repeats(tokens: list[int]) -> bool:
    """Whether the last LOOP_WINDOW tokens repeat one unit of at most LOOP_UNIT tokens."""
    if len(tokens) < LOOP_WINDOW:
        return False
    return any(all(tokens[i] == tokens[i - unit] for i in range(unit, len(tokens)))
               for unit in range(1, LOOP_UNIT + 1))


def closing_text(state: ScanState) -> str:
    """A short text after which the row's query is whole ("" when none is found): the string literal or quoted
    name closed, then what the grammar needs (an operand, `)`, END), checked by feeding it to a copy."""
    head = {"s": "'", "q": state.closer, "i": " ", "qd": " ", "num": " ", "s_end": " "}.get(state.mode, "")
    probe = state.clone()
    try:
        probe.feed(head)
        tail = probe.grammar.closing()
        probe.feed(tail)
    except Invalid:
        return ""
    return head + tail if probe.can_end() else ""


# ---- the backend hook -------------------------------------------------------------------------------------------
class ConstraintFactory:
    """`HFBackend.processor_for`: the processor for one batch of requests (None when no row is SQL)."""

    def __init__(self, tokenizer) -> None:
        self.vocab = TokenVocab(token_texts(tokenizer), tokenizer.eos_token_id)
        self.last: SchemaConstraint | None = None

    def __call__(self, requests: list[list[dict]]) -> SchemaConstraint | None:
        schemas = [schema_of_request(m) for m in requests]
        if all(s is None for s in schemas):
            return None
        self.last = SchemaConstraint(self.vocab, schemas)
        return self.last


def is_learned_generator(tokenizer) -> bool:
    """A generator trained here answers with the SQL itself, right after the template's cue."""
    template = getattr(tokenizer, "chat_template", None)
    return isinstance(template, str) and "Now the real task" in template and template.rstrip().endswith(
        "{% if add_generation_prompt %}" + ANSWER_CUE + "{% endif %}")


def inner_backend(llm):
    """The backend under recording/collecting wrappers."""
    seen = 0
    while hasattr(llm, "inner") and seen < 8:
        llm, seen = llm.inner, seen + 1
    return llm


def attach(llm, enabled: bool = True, beams: int | None = DEFAULT_BEAMS) -> bool:
    """Turn schema-constrained decoding on (or off) for a local generator trained here; True when it is on.
    `beams`: greedy SQL answers are decoded by a beam of this many (None: the backend's own setting)."""
    backend = inner_backend(llm)
    if not hasattr(backend, "processor_for") or not hasattr(backend, "tokenizer"):
        return False
    if not enabled or not is_learned_generator(backend.tokenizer):
        backend.processor_for = None
        return False
    backend.processor_for = ConstraintFactory(backend.tokenizer)
    if beams is not None and hasattr(backend, "beams"):
        backend.beams = beams
    return True
