"""The question templates of the official notebook (grounding, composition) and the baselines."""

from __future__ import annotations

SYSTEM = ("You interpret images as abstract concepts. The objects in an image can stand for the parts of a "
          "concept: branches can be the walls of a maze, cookies the marks of a game, cups the objects of a "
          "pile. Tie each part of the concept to the objects that play its role.")
ANSWER_SHORT = " Answer with one word or phrase only, do not elaborate."
ANSWER_FINAL = " Answer concisely without explanation, with the final answer only."
SCENARIO_NOTE = " Note that this scenario may be wrong."
COT = (" Reason over the {concept}'s parts first (what plays each part and its value), then give the final "
       "answer on the last line as 'Answer: <answer>'.")


def spoken_concept(name: str) -> str:
    return name.replace("-", " ")


def grounding_question(concept: str, parents: list[tuple[str, str]], term: str) -> str:
    """'Imagine that the image represents C and the p is v, ... what is the term? Answer with one word ...'"""
    text = f"Imagine that the image represents {spoken_concept(concept)}"
    text += "".join(f" and the {p} is {v}," for p, v in parents) if parents else ","
    return text + f" what is the {term}?" + ANSWER_SHORT


def composition_question(concept: str, grounded: list[tuple[str, str]], question: str) -> str:
    text = f"Imagine that the image represents {spoken_concept(concept)}"
    text += "".join(f" and the {c} is {v}," for c, v in grounded) if grounded else ","
    return text + SCENARIO_NOTE + f" {question}" + ANSWER_FINAL


def direct_question(question: str) -> str:
    return question + ANSWER_FINAL


def cot_question(concept: str, question: str) -> str:
    return question + COT.format(concept=spoken_concept(concept))


def clean_answer(text: str) -> str:
    """Lowercased, periods stripped, surrounding whitespace dropped (the notebook's normalization)."""
    return text.strip().lower().replace(".", "").strip()


def with_options(question: str, choices: list[str] | tuple[str, ...] | None) -> str:
    """The abstract question as every mode asks it: multiple choice lists its options."""
    return f"{question} Options: {', '.join(choices)}." if choices else question
