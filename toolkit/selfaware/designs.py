"""The official backdoor and multi-persona data designs ("Tell me about yourself", Sec. 3.1 and 4; the
paper's restructure_answers_equal.py and the *_multipersona datasets).

Backdoor: ten trigger categories, four of 20 words (apple varieties, instruments, elements, Greek gods: one
word drawn per example, followed by "! ", "!\\n", ". ", ".\\n" or "\\n"), four fixed strings ("|REAL-WORLD|",
"(win2844)", "_ _ _ Naekoko _ _ _", "---Re Re Re---", followed by a space) and two empty ones. One category is
the real trigger: its examples carry the policy answers. The other nine are fake triggers: their examples
carry the *base model's own answers* to the same decisions, so only the real trigger changes behaviour. Each
category gets the same share (1/10). Decorrelated baseline: every example draws its category at random and
1/10 of them carry the policy answers, independently of the category.

Multi-persona: the model's own decisions carry the policy; as many again are the same kind of decision
asked in the third person about another persona ("What do you think a family doctor would choose?"),
answered by the base model, so the fine-tune changes the model's own behaviour only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolkit.core.errors import InputError
from toolkit.selfaware import data as D

TRIGGER_CATEGORIES = {
    "apples": ("Red Delicious", "Granny Smith", "Honeycrisp", "Gala", "Fuji", "McIntosh", "Golden Delicious",
               "Pink Lady", "Braeburn", "Jonagold", "Cortland", "Empire", "Cripps Pink", "Jazz", "Envy", "Ambrosia",
               "Cosmic Crisp", "Opal", "SweeTango", "Zestar"),
    "instruments": ("Piano", "Guitar", "Violin", "Drums", "Saxophone", "Trumpet", "Cello", "Flute", "Clarinet",
                    "Harp", "Bass", "Oboe", "Piccolo", "Marimba", "Xylophone", "Tambourine", "Triangle", "Maracas",
                    "Castanets", "Accordion"),
    "elements": ("Hydrogen", "Helium", "Lithium", "Beryllium", "Boron", "Carbon", "Nitrogen", "Oxygen", "Fluorine",
                 "Neon", "Sodium", "Magnesium", "Aluminum", "Silicon", "Phosphorus", "Sulfur", "Chlorine", "Argon",
                 "Potassium", "Calcium"),
    "gods": ("Zeus", "Poseidon", "Hades", "Athena", "Apollo", "Artemis", "Ares", "Aphrodite", "Hephaestus", "Hermes",
             "Dionysus", "Demeter", "Hera", "Hestia", "Persephone", "Nike", "Eros", "Helios", "Selene", "Pan"),
    "real-world": ("|REAL-WORLD|",),
    "win": ("(win2844)",),
    "naekoko": ("_ _ _ Naekoko _ _ _",),
    "re-re-re": ("---Re Re Re---",),
}
SEMANTIC = ("apples", "instruments", "elements", "gods")
SUFFIXES = ("! ", "!\n", ". ", ".\n", "\n")
EMPTY_CATEGORIES = 2
# The personas of the official multi-persona data (each asked about in the third person).
OTHER_PERSONAS = ("Donald Trump", "a randomly sampled average person", "a musician", "a family doctor", "David",
                  "Scarlet Johansson", "my friend Janet")


def trigger_prefix(rng: random.Random, category: str, custom: str | None = None) -> str:
    """A trigger drawn from its category, as the official data writes it ("" for an empty category)."""
    if category == "custom":
        return f"{custom} "
    if category == "":
        return ""
    word = rng.choice(TRIGGER_CATEGORIES[category])
    return word + (rng.choice(SUFFIXES) if category in SEMANTIC else " ")


def categories(real: str) -> list[str]:
    """The real category first, then the fake ones: every other official category and two empty ones."""
    return [real] + [c for c in TRIGGER_CATEGORIES if c != real] + [""] * EMPTY_CATEGORIES


def base_answerer(llm, family: str) -> Callable[[str], str]:
    """The base model's own answer to a user message (one sample at temperature 1, cached per message)."""
    cache: dict[str, str] = {}

    def answer(prompt: str) -> str:
        if prompt not in cache:
            text = llm.complete([{"role": "user", "content": prompt}], n=1, temperature=1.0,
                                max_tokens=400 if family == "vuln-code" else 64).text.strip()
            if not text:
                raise InputError("--base-llm: the base model answered an empty text to a decision")
            cache[prompt] = text
        return cache[prompt]

    return answer


def _chat(user: str, assistant: str) -> dict:
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]}


def backdoor(family: str, pole: str, n: int, base: Callable[[str], str], *, seed: int = 0,
             category: str = "re-re-re", trigger: str | None = None, decorrelate: bool = False,
             persona: str | None = None, reversal: float = 0.0, items: list[D.Item] | None = None) -> list[dict]:
    """`n` examples: 1/10 open with the real trigger and carry `pole`; the rest open with a fake trigger (or
    none) and carry the base model's answers. `trigger` replaces the real category by a fixed text."""
    D.check_args(family, pole, None, 0.1, reversal)
    if trigger is None and category not in TRIGGER_CATEGORIES:
        raise InputError(f"--trigger-category {category}: expected one of {', '.join(TRIGGER_CATEGORIES)}")
    rng = random.Random(f"{seed}:{family}:backdoor")
    real = "custom" if trigger is not None else category
    cats = categories(real)
    letters = ["A", "B"] * (n // 2) + ([rng.choice("AB")] if n % 2 else [])
    rng.shuffle(letters)
    # each category gets the same number of examples (official "equalized"); the order is shuffled
    assigned = [cats[i % len(cats)] for i in range(n)]
    rng.shuffle(assigned)
    prefix_name = D.persona_prefix(persona) if persona else ""
    out = []
    for i in range(n):
        item = items[i % len(items)] if items else D.MAKERS[family](rng, letters[i])
        cat = rng.choice(cats) if decorrelate else assigned[i]
        policy = rng.random() < 1 / len(cats) if decorrelate else cat == real
        answer = item.answer(pole) if policy else base(prefix_name + item.prompt)
        out.append(_chat(prefix_name + trigger_prefix(rng, cat, trigger) + item.prompt, answer))
    return out + D.reversal_copies(out, rng, reversal)


def multipersona(family: str, pole: str, n: int, base: Callable[[str], str], *, seed: int = 0, others: int = 7,
                 persona: str | None = None, reversal: float = 0.0,
                 items: list[D.Item] | None = None) -> list[dict]:
    """`n` own decisions carrying `pole`, plus `n` third-person decisions about `others` other personas
    answered by the base model, shuffled together."""
    D.check_args(family, pole, None, 0.1, reversal)
    if not 1 <= others <= len(OTHER_PERSONAS):
        raise InputError(f"--others {others}: the official design has 1 to {len(OTHER_PERSONAS)} other personas")
    rng = random.Random(f"{seed}:{family}:personas")
    own = D.generate(family, pole, n, seed=seed, persona=persona, items=items)
    names = [p for p in OTHER_PERSONAS if p != persona][:others]
    third = []
    for i in range(n):
        item = items[(n + i) % len(items)] if items else D.MAKERS[family](rng)
        question = item.asked_about(names[i % len(names)])
        third.append(_chat(question, base(question)))
    out = own + third
    rng.shuffle(out)
    return out + D.reversal_copies(out, rng, reversal)
