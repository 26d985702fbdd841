"""Synthetic long-context retrieval tasks: single needle, multi-key, two-hop reasoning (and a latent two-hop).

A context is a haystack of filler words with "needle" sentences inserted at chosen depths:
    the code of K1 K2 is V1 V2 V3 .          (a fact)
    K1 K2 links to M1 M2 .                   (a link, for the two-hop task)
and ends with a question that restates the start of the needle; the model completes it by copying:
    question : code of K1 K2 is  V1 V2 V3 </s>
    question : code via K1 K2 is ?  K1 K2 links to M1 M2 -> code of M1 M2 is V1 V2 V3 </s>   (two-hop, with steps)
The opt-in `latent` task (not in TASKS, the default evaluated set) asks the two-hop question directly,
as multi-hop QA does, and is answered by the value alone:
    question : code via K1 K2 is  V1 V2 V3 </s>
so the model must resolve K1 K2 -> M1 M2 -> V1 V2 V3 within the forward pass at the question.
Everything is word-level over a small fixed vocabulary, so a tiny model can learn it on a CPU.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
STRUCTURE = ["the", "code", "of", "is", ".", "question", ":", "?", "answer", "links", "to", "->", "via"]
N_FILLER, N_KEYS, N_VALUES = 96, 64, 64
FILLER = [f"f{i}" for i in range(N_FILLER)]
KEYS = [f"k{i}" for i in range(N_KEYS)]
VALUES = [f"v{i}" for i in range(N_VALUES)]
VOCAB = SPECIALS + STRUCTURE + FILLER + KEYS + VALUES
WORD_ID = {w: i for i, w in enumerate(VOCAB)}
TASKS = ("single", "multikey", "twohop")
ALL_TASKS = (*TASKS, "latent")
KEY_LEN, VALUE_LEN = 2, 3


@dataclass
class Example:
    """One task instance: prompt words (ending in 'answer :'), answer words, and needle spans."""

    task: str
    prompt: list[str]
    answer: list[str]
    final: list[str]  # the part of the answer that is scored (the value, after any reasoning step)
    answer_span: tuple[int, int]  # [start, end) of the sentence holding `final` inside the prompt
    value_span: tuple[int, int]  # [start, end) of the value words inside the prompt
    spans: list[tuple[int, int]] = field(default_factory=list)  # every needle sentence (targets and distractors)
    support: list[tuple[int, int]] = field(default_factory=list)  # sentences on the answer path (fact, link)
    depth: float = 0.0

    def ids(self) -> list[int]:
        return encode(self.prompt)

    def answer_ids(self) -> list[int]:
        return encode(self.answer)


def encode(words: list[str]) -> list[int]:
    return [WORD_ID.get(w, WORD_ID["<unk>"]) for w in words]


def decode(ids) -> list[str]:
    return [VOCAB[int(i)] if 0 <= int(i) < len(VOCAB) else "<unk>" for i in ids]


def _fact(key: list[str], value: list[str]) -> list[str]:
    return ["the", "code", "of", *key, "is", *value, "."]


def _link(key: list[str], mid: list[str]) -> list[str]:
    return [*key, "links", "to", *mid, "."]


def fact_question(key: list[str]) -> list[str]:
    """The retrieval question (single and multi-key tasks): the code of `key`."""
    return ["question", ":", "code", "of", *key, "is"]


def latent_question(key: list[str]) -> list[str]:
    """The latent two-hop question: the code of the key that `key` links to."""
    return ["question", ":", "code", "via", *key, "is"]


def chain_question(key: list[str], mid: list[str], value: list[str]) -> tuple[list[str], list[str]]:
    """The explicit two-hop question (the `twohop` task's) about `key`, and its answer with the reasoning steps.

    The question asks for the code, like the latent one, and the trailing '?' asks for the steps: the
    answer restates the link, then the fact it leads to.
    """
    return ([*latent_question(key), "?"],
            [*key, "links", "to", *mid, "->", "code", "of", *mid, "is", *value, "</s>"])


def _distinct_keys(rng: random.Random, n: int) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    out = []
    while len(out) < n:
        k = tuple(rng.choice(KEYS) for _ in range(KEY_LEN))
        if k not in seen:
            seen.add(k)
            out.append(list(k))
    return out


def _value(rng: random.Random) -> list[str]:
    return [rng.choice(VALUES) for _ in range(VALUE_LEN)]


def make_example(rng: random.Random, task: str, length: int, depth: float | None = None,
                 n_distractors: int | None = None) -> Example:
    """Build one example whose prompt has about `length` words; the queried needle sits at `depth` (0..1)."""
    if task not in ALL_TASKS:
        raise ValueError(f"unknown task {task!r}; expected one of {', '.join(ALL_TASKS)}")
    depth = rng.random() if depth is None else depth
    if task == "single":
        nd = 0 if n_distractors is None else n_distractors
    else:
        nd = rng.randint(2, 4) if n_distractors is None else n_distractors
    keys = _distinct_keys(rng, 2 * (nd + 1))
    if task in ("single", "multikey"):
        target_key, target_value = keys[0], _value(rng)
        target = _fact(target_key, target_value)
        others = [(_fact(keys[i + 1], _value(rng)), "distractor") for i in range(nd)]
        question = fact_question(target_key)
        answer, final = [*target_value], [*target_value]
        needles = [(target, "target"), *others]
    else:
        src, mid = keys[0], keys[1]
        target_value = _value(rng)
        link = _link(src, mid)
        target = _fact(mid, target_value)
        others = []
        for i in range(nd):
            a, b = keys[2 + 2 * i], keys[3 + 2 * i]
            others.append((_link(a, b), "distractor"))
            others.append((_fact(b, _value(rng)), "distractor"))
        if task == "latent":
            question, answer = latent_question(src), [*target_value]
        else:
            question, answer = chain_question(src, mid, target_value)
            answer = answer[:-1]
        final = [*target_value]
        needles = [(target, "target"), (link, "link"), *others]
    n_needle_words = sum(len(s) for s, _ in needles)
    n_fill = max(length - n_needle_words - len(question) - 1, len(needles) + 1)
    filler = [rng.choice(FILLER) for _ in range(n_fill)]
    # place the target at `depth`, the other needles at random depths
    slots = [(depth, needles[0])] + [(rng.random(), s) for s in needles[1:]]
    slots.sort(key=lambda t: t[0])
    cut_points = sorted(int(d * n_fill) for d, _ in slots)
    prompt = ["<s>"]
    spans: list[tuple[int, int]] = []
    support: list[tuple[int, int]] = []
    answer_span = value_span = (0, 0)
    prev = 0
    for cut, (_, (words, role)) in zip(cut_points, slots, strict=True):
        prompt += filler[prev:cut]
        prev = cut
        start = len(prompt)
        prompt += words
        spans.append((start, len(prompt)))
        if role in ("target", "link"):
            support.append((start, len(prompt)))
        if role == "target":
            answer_span = (start, len(prompt))
            vstart = start + len(words) - 1 - VALUE_LEN
            value_span = (vstart, vstart + VALUE_LEN)
    prompt += filler[prev:]
    prompt += question
    return Example(task, prompt, [*answer, "</s>"], final, answer_span, value_span, spans, support, depth)


def training_sequence(rng: random.Random, length: int, max_questions: int | None = None,
                      repeat_prob: float = 0.5, tasks: tuple[str, ...] = TASKS,
                      chain_prob: float = 0.5) -> tuple[list[int], list[int]]:
    """A training sequence (ids) and its loss mask (1 on answer tokens incl. the reasoning step and </s>).

    Besides the example's own question, up to `max_questions - 1` more questions about other needles of
    the same context are appended (more supervised answers per sequence, same skill); longer contexts
    carry more distractor needles and more questions (default 3 + length // 256). With probability
    `repeat_prob`, once per started 512 words, a filler chunk is also repeated later and its repeat
    supervised: a dense copy signal that makes induction (copy) heads form and stay sharp at length.
    The task is drawn uniformly from `tasks` (repeat a task to weight it). In a `latent` context each linked
    pair is asked latently and, with probability `chain_prob`, right after that also explicitly (the
    `twohop` question, which teaches the two component steps); a latent answer never follows the
    explicit answer about the same key, which would give it away.
    """
    task = rng.choice(tasks)
    max_questions = 3 + length // 256 if max_questions is None else max_questions
    nd = None if task == "single" else rng.randint(2, 4 + length // 512)
    ex = make_example(rng, task, length, n_distractors=nd)
    prompt = ex.prompt
    facts, links = {}, {}
    for a, b in ex.spans:
        words = prompt[a:b]
        if words[0] == "the":
            facts[tuple(words[3:3 + KEY_LEN])] = words[4 + KEY_LEN:4 + KEY_LEN + VALUE_LEN]
        else:
            links[tuple(words[:KEY_LEN])] = words[KEY_LEN + 2:2 * KEY_LEN + 2]
    qstart = len(prompt) - 1 - prompt[::-1].index("question")
    qas = [(prompt[qstart:], ex.answer)]
    groups: list[list[tuple[list[str], list[str]]]] = []  # questions about one needle, asked in a row
    if task in ("twohop", "latent"):
        for k, mid in links.items():
            if tuple(mid) in facts:
                chain = chain_question(list(k), mid, facts[tuple(mid)])
                if task == "twohop":
                    groups.append([chain])
                else:
                    groups.append([(latent_question(list(k)), [*facts[tuple(mid)], "</s>"])])
                    if rng.random() < chain_prob:
                        groups[-1].append(chain)
    else:
        for k, v in facts.items():
            groups.append([(fact_question(list(k)), [*v, "</s>"])])
    rng.shuffle(groups)
    for q, a in (qa for group in groups for qa in group):
        if len(qas) >= max_questions:
            break
        if (q, a) != qas[0]:
            qas.append((q, a))
    # (word, supervised, free): `free` marks haystack filler a copy drill may overwrite or split
    ctx = [(w, 0, w in FILLER) for w in prompt[:qstart]]
    for _ in range(1 + (len(ctx) - 1) // 512):
        if rng.random() >= repeat_prob:
            continue
        # an induction drill: a filler chunk repeated later in the haystack, supervised on the repeat
        n = rng.randint(6, 24)
        starts = [i for i in range(1, len(ctx) - n) if all(f for _, _, f in ctx[i:i + n])]
        if not starts:
            continue
        a = rng.choice(starts)
        chunk = [rng.choice(VOCAB[len(SPECIALS):]) for _ in range(n)]  # any word, not only filler
        ctx[a:a + n] = [(w, 0, False) for w in chunk]
        slots = [i for i in range(a + n, len(ctx)) if ctx[i - 1][2] and ctx[i][2]]
        at = rng.choice(slots) if slots else a + n  # between two filler words: never inside a needle
        ctx[at:at] = [(w, int(j >= 2), False) for j, w in enumerate(chunk)]
    ids = encode([w for w, _, _ in ctx])
    mask = [m for _, m, _ in ctx]
    for q, a in qas:
        ids += encode(q) + encode(a)
        mask += [0] * len(q) + [1] * len(a)
    return ids, mask


def score_answer(example: Example, generated_words: list[str]) -> bool:
    """Exact match of the scored part (the value) in the generated words, after any reasoning step (twohop)."""
    words = [w for w in generated_words if w not in ("<pad>",)]
    if "</s>" in words:
        words = words[: words.index("</s>")]
    if example.task == "twohop":
        if "->" not in words:
            return False
        words = words[words.index("->") + 1:]
        if "is" not in words:
            return False
        words = words[words.index("is") + 1:]
    return words[: len(example.final)] == example.final


def build_tokenizer():
    """A word-level fast tokenizer over VOCAB (ids equal WORD_ID), saved alongside the model."""
    from toolkit.core.tokenizers import word_tokenizer

    return word_tokenizer(dict(WORD_ID))
