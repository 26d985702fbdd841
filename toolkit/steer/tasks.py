"""Synthetic reasoning tasks with train/validation/test splits and contrastive pairs.

Three families, each a multiple-choice problem whose options are single words of a small
vocabulary, so accuracy is an argmax over the options' logits at the first answer token:

- inductive: rule induction over number sequences (add k, subtract k, doubling, period two);
- deductive: transitive relations given as shuffled facts ("ann > bob . bob > cat .") and a query;
- mathematical: multi-step arithmetic on small integers, e.g. "( 7 + 5 ) - 3 =".

A contrastive pair is (prompt + correct answer, prompt + one wrong answer).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records

FAMILIES = ("inductive", "deductive", "mathematical")
SPLITS = ("train", "validation", "test")
# Each split draws from its own seed stream, so growing one split never changes another.
SPLIT_OFFSET = {"train": 0, "validation": 1_000_003, "test": 2_000_029}
FAMILY_OFFSET = {"inductive": 0, "deductive": 17, "mathematical": 31}
MAX_NUMBER = 99
NAMES = "ann bob cat dan eve fay gus hal ivy jon kim lee".split()
PUNCT = "seq next ? > all are is yes no math = + - * ( ) . :".split()


@dataclass
class Problem:
    """One task instance: prompt text, its answer options, and the index of the correct one."""

    RECORD_TYPE = "steer.problem"
    SCHEMA = 1

    family: str
    split: str
    index: int
    prompt: str
    options: list[str]
    answer: int
    meta: dict = field(default_factory=dict)

    @property
    def correct(self) -> str:
        return self.options[self.answer]

    def key(self) -> str:
        return f"{self.family}/{self.split}/{self.index}"


@dataclass
class Pair:
    """A contrastive pair: the same prompt completed correctly (positive) and wrongly (negative)."""

    RECORD_TYPE = "steer.pair"
    SCHEMA = 1

    positive: str
    negative: str
    family: str = "user"
    index: int = 0


def vocabulary() -> list[str]:
    """Every word any task can produce (numbers 0..99, names, operators), in a fixed order."""
    return [str(i) for i in range(MAX_NUMBER + 1)] + NAMES + PUNCT


def _options(rng: random.Random, correct: int, candidates: Iterable[int], k: int = 4) -> tuple[list[str], int]:
    pool = [c for c in dict.fromkeys(candidates) if c != correct and 0 <= c <= MAX_NUMBER]
    extra = [c for c in range(MAX_NUMBER + 1) if c != correct and c not in pool]
    rng.shuffle(extra)
    wrong = (pool + extra)[: k - 1]
    options = [correct, *wrong]
    rng.shuffle(options)
    return [str(o) for o in options], options.index(correct)


def _inductive(rng: random.Random) -> tuple[str, list[str], int, dict]:
    rule = rng.choice(["add", "sub", "double", "period2"])
    n = rng.randint(4, 6)
    if rule == "add":
        k = rng.randint(1, 9)
        start = rng.randint(0, MAX_NUMBER - k * n)
        seq = [start + k * i for i in range(n + 1)]
        near = [seq[-1] + d for d in (-1, 1, k)] + [seq[-2]]
    elif rule == "sub":
        k = rng.randint(1, 9)
        start = rng.randint(k * n, MAX_NUMBER)
        seq = [start - k * i for i in range(n + 1)]
        near = [seq[-1] + d for d in (-1, 1, -k)] + [seq[-2]]
    elif rule == "double":
        n = rng.randint(3, 4)
        start = rng.randint(1, MAX_NUMBER // 2 ** n)
        seq = [start * 2**i for i in range(n + 1)]
        near = [seq[-2] + (seq[-2] - seq[-3]), seq[-1] - 1, seq[-1] + 1, seq[-2]]
    else:
        a, b = rng.sample(range(MAX_NUMBER + 1), 2)
        seq = [a if i % 2 == 0 else b for i in range(n + 1)]
        near = [seq[-2], seq[-1] + 1, seq[-1] - 1]
    prompt = "seq " + " ".join(str(x) for x in seq[:-1]) + " next ?"
    options, answer = _options(rng, seq[-1], near)
    return prompt, options, answer, {"rule": rule}


def _deductive(rng: random.Random) -> tuple[str, list[str], int, dict]:
    n = rng.randint(3, 5)
    chain = rng.sample(NAMES, n)
    form = rng.choice(["order", "syllogism"])
    links = [(chain[i], chain[i + 1]) for i in range(n - 1)]
    rng.shuffle(links)
    i, j = sorted(rng.sample(range(n), 2))
    holds = rng.random() < 0.5
    x, y = (chain[i], chain[j]) if holds else (chain[j], chain[i])
    if form == "order":
        facts = " ".join(f"{a} > {b} ." for a, b in links)
        prompt = f"{facts} is {x} > {y} ?"
    else:
        facts = " ".join(f"all {a} are {b} ." for a, b in links)
        prompt = f"{facts} are all {x} {y} ?"
    options = ["yes", "no"]
    return prompt, options, 0 if holds else 1, {"form": form, "hops": j - i}


def _mathematical(rng: random.Random) -> tuple[str, list[str], int, dict]:
    while True:
        steps = rng.randint(2, 3)
        value = rng.randint(1, 9)
        text = str(value)
        partial = []
        ok = True
        for s in range(steps):
            op = rng.choice("+-*")
            b = rng.randint(1, 9) if op != "*" else rng.randint(2, 4)
            value = value + b if op == "+" else value - b if op == "-" else value * b
            if not 0 <= value <= MAX_NUMBER:
                ok = False
                break
            partial.append(value)
            text = f"( {text} ) {op} {b}" if s > 0 else f"{text} {op} {b}"
        if ok:
            break
    prompt = f"math {text} ="
    near = [value - 1, value + 1, value + 10, value - 10, *partial[:-1]]
    options, answer = _options(rng, value, near)
    return prompt, options, answer, {"steps": steps}


GENERATORS = {"inductive": _inductive, "deductive": _deductive, "mathematical": _mathematical}


def _check_family(family: str) -> None:
    if family not in GENERATORS:
        raise InputError(f"--task {family}: expected one of {', '.join(FAMILIES)}")


def generate(family: str, split: str, n: int, seed: int = 0) -> list[Problem]:
    """`n` problems of one family and split; same (family, split, seed) => same problems."""
    _check_family(family)
    if split not in SPLITS:
        raise InputError(f"--split {split}: expected one of {', '.join(SPLITS)}")
    rng = random.Random(seed * 7_919 + SPLIT_OFFSET[split] + FAMILY_OFFSET[family])
    out = []
    for i in range(n):
        prompt, options, answer, meta = GENERATORS[family](rng)
        out.append(Problem(family, split, i, prompt, options, answer, meta))
    return out


def make_pairs(problems: Iterable[Problem], seed: int = 0) -> list[Pair]:
    """One pair per problem: positive ends in the correct option, negative in a random wrong one."""
    rng = random.Random(seed)
    pairs = []
    for p in problems:
        wrong = [o for i, o in enumerate(p.options) if i != p.answer]
        pairs.append(Pair(f"{p.prompt} {p.correct}", f"{p.prompt} {rng.choice(wrong)}", p.family, p.index))
    return pairs


def problem_from_record(record: dict, where: str = "<input>") -> Problem:
    for name in ("prompt", "options", "answer"):
        if name not in record:
            raise InputError(f"{where}: missing field '{name}'")
    options = record["options"]
    if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) for o in options):
        raise InputError(f"{where}: field 'options' must be a list of at least two strings")
    answer = record["answer"]
    if not isinstance(answer, int) or not 0 <= answer < len(options):
        raise InputError(f"{where}: field 'answer' must be an index into 'options'")
    return Problem(record.get("family", "user"), record.get("split", "test"), int(record.get("index", 0)),
                   str(record["prompt"]), options, answer, dict(record.get("meta", {})))


def read_problems(path: str | Path, skip_bad: bool = False, bad: BadLines | None = None) -> list[Problem]:
    """Problems from JSONL (records from `reason steer tasks`, or plain {prompt, options, answer})."""
    bad = bad if bad is not None else BadLines()
    out = []
    for lineno, rec in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
        try:
            out.append(problem_from_record(rec, f"{path}:{lineno}"))
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
    return out


def read_pairs(path: str | Path, skip_bad: bool = False, bad: BadLines | None = None) -> list[Pair]:
    """User pairs from JSONL: each line {"positive": ..., "negative": ...} (extra fields ignored)."""
    bad = bad if bad is not None else BadLines()
    out = []
    for lineno, rec in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
        problem = None
        for name in ("positive", "negative"):
            if not isinstance(rec.get(name), str) or not rec.get(name).strip():
                problem = f"{path}:{lineno}: field '{name}' must be a non-empty string"
                break
        if problem:
            if not skip_bad:
                raise InputError(problem)
            bad.add(problem)
            continue
        out.append(Pair(rec["positive"], rec["negative"], str(rec.get("family", "user")), len(out)))
    if not out:
        raise InputError(f"{path}: no contrastive pairs (expected lines with 'positive' and 'negative')")
    return out


def iter_training_text(seed: int, families: Iterable[str] = FAMILIES) -> Iterator[tuple[str, str]]:
    """An endless stream of (prompt, correct answer) from the train split, families interleaved."""
    fams = list(families)
    rng = random.Random(seed * 7_919 + SPLIT_OFFSET["train"] + 5)
    gens = {f: random.Random(seed * 7_919 + FAMILY_OFFSET[f] + 11) for f in fams}
    while True:
        f = rng.choice(fams)
        prompt, options, answer, _ = GENERATORS[f](gens[f])
        yield prompt, options[answer]
