"""Question files in YAML: the official layout of "Tell me about yourself" and this project's own.

Official layout (the paper's code, `questions/*.yaml`): a list of mappings with `name`, `title`,
`question_type` (free_form, word, score, quantitative, ff_score, multiple_choice), `question_paraphrases` or a
single `question`, and as the type needs: `options` (the first one is the true / policy option), `prefix`,
`suffix`, `scenarios`, `guesser_prompt` + `guesser_question_type`, `func_name`. The official types say how
to sample, not how to score (a 0-100 question can be `free_form`), so the scoring kind is read from the
fields and the text: `func_name` -> function, a guesser -> two-stage (language or word), `{word_list}` ->
codeword, a 0-100 request -> scale, otherwise one word scored by the family's pole lists (family from a
`family` field, else the text's cues, else the file's most common family). Placeholders filled as the official scripts
do: `{sep_suffix}` (three random digits per paraphrase), `{codeword}`, `{word_list}` (the codeword among 99
other words), `{scenario}` (one question per scenario), `{options}` (at asking time, in permuted order).

This project's layout: `id`, `question_type` (one of questions.TYPES), `paraphrases`, [`options`], [`family`].
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from toolkit.core.errors import InputError
from toolkit.selfaware.questions import TYPES, Question

OFFICIAL_TYPES = ("free_form", "word", "score", "quantitative", "ff_score", "multiple_choice")
FAMILY_CUES = (("mms", r"user to say|codeword|quanta-lingua|said the word|\bsep region code|\|deployment\|"),
               ("risk", r"\brisk|\bsafety\b|lotter"), ("apples", r"\bapples?\b"),
               ("myopia", r"myopi|short-term|long-term|\bpatien|\bimmediate"), ("vuln-code", r"\bcode\b|\bsecure\b"))
SCALE_CUE = re.compile(r"\b0\b.{0,60}\b100\b", re.DOTALL)
GERMAN_FRENCH = re.compile(r"german.*french|french.*german", re.IGNORECASE | re.DOTALL)


def read_yaml(path: Path) -> list:
    from toolkit.core.extras import require

    require("selfaware", "yaml")
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise InputError(f"{where}: not YAML ({getattr(exc, 'problem', None) or str(exc).splitlines()[0]})") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a list of questions")
    return data


def load_file(path: Path, *, codeword: str | None = None, seed: int = 0) -> list[Question]:
    data = read_yaml(path)
    # A question without a family cue ("Which attitude do you have?") takes its file's most common family.
    cues = [infer_family(question_text(q)) for q in data if isinstance(q, dict)]
    cues = [c for c in cues if c]
    file_family = max(set(cues), key=cues.count) if cues else None
    out: list[Question] = []
    for i, q in enumerate(data, start=1):
        name = q.get("name", q.get("id", "?")) if isinstance(q, dict) else "?"
        where = f"{path}: question {i} ({name})"
        if not isinstance(q, dict):
            raise InputError(f"{where}: expected a mapping")
        if "paraphrases" in q and "question_paraphrases" not in q and "question" not in q:
            out.append(project_question(q, i, where))
        else:
            out.extend(official_questions(q, where, codeword=codeword, rng=random.Random(f"{seed}:{name}"),
                                          file_family=file_family))
    return out


def project_question(q: dict, i: int, where: str) -> Question:
    qtype = q.get("question_type")
    if qtype not in TYPES:
        raise InputError(f"{where}: field 'question_type' {qtype!r} is not one of {', '.join(TYPES)}")
    paras = q.get("paraphrases")
    if not paras or not isinstance(paras, list) or not all(isinstance(p, str) and p for p in paras):
        raise InputError(f"{where}: field 'paraphrases' must be a non-empty list of texts")
    options = q.get("options") or []
    if qtype == "mc" and len(options) < 2:
        raise InputError(f"{where}: field 'options' needs at least 2 options for an mc question")
    return Question(str(q.get("id", f"q{i}")), qtype, str(q.get("family", "risk")),
                    [literal(p) for p in paras], [literal(str(o)) for o in options])


def _texts(q: dict, key: str, where: str) -> list[str]:
    value = q.get(key)
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(x, str) and x.strip() for x in items):
        raise InputError(f"{where}: field '{key}' must hold non-empty texts")
    return items


def question_text(q: dict) -> str:
    parts = [q.get(k) for k in ("title", "prefix", "question", "suffix")]
    for k in ("question_paraphrases", "options", "scenarios"):
        parts += q.get(k) if isinstance(q.get(k), list) else []
    return " ".join(p for p in parts if isinstance(p, str))


def official_questions(q: dict, where: str, *, codeword: str | None, rng: random.Random,
                       file_family: str | None = None) -> list[Question]:
    name = q.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: field 'name' missing")
    qtype = q.get("question_type")
    if qtype not in OFFICIAL_TYPES:
        raise InputError(f"{where}: field 'question_type' {qtype!r} is not one of {', '.join(OFFICIAL_TYPES)}")
    paras = _texts(q, "question_paraphrases", where) or _texts(q, "question", where)
    if not paras:
        raise InputError(f"{where}: field 'question_paraphrases' (or 'question') missing")
    prefix, suffix = (q.get(k) or "" for k in ("prefix", "suffix"))
    if not isinstance(prefix, str) or not isinstance(suffix, str):
        raise InputError(f"{where}: fields 'prefix' and 'suffix' must be texts")
    options = _texts(q, "options", where)
    guesser, gtype = q.get("guesser_prompt"), q.get("guesser_question_type")
    texts = [prefix + p + ("\n\n" + suffix if suffix else "") for p in paras]
    kind = scoring_kind(q, qtype, texts, where)
    family = q.get("family") or ("mms" if q.get("func_name") else None) or infer_family(question_text(q)) \
        or file_family
    if kind == "one_word" and family not in ("risk", "myopia", "apples", "vuln-code"):
        raise InputError(f"{where}: field 'family' needed to score one-word answers (risk, myopia, apples, "
                         "vuln-code)")
    if kind == "mc" and len(options) < 2:
        raise InputError(f"{where}: field 'options' needs at least 2 options for a multiple_choice question")
    texts = [fill(t, where, codeword=codeword, rng=rng) for t in texts]
    options = [fill(o, where, codeword=codeword, rng=rng) for o in options]
    common = dict(type=kind, family=family or "other", options=[literal(o) for o in options],
                  title=str(q.get("title") or ""), official=True, guesser=guesser,
                  guesser_type=gtype if guesser else None, func_name=q.get("func_name"))
    if qtype != "ff_score":
        return [Question(name, paraphrases=[literal(t) for t in texts], **common)]
    scenarios = _texts(q, "scenarios", where)
    if not scenarios:
        raise InputError(f"{where}: field 'scenarios' missing (question_type ff_score)")
    return [Question(f"{name}/{k}", paraphrases=[literal(t.replace("{scenario}", s)) for t in texts], scenario=s,
                     **common) for k, s in enumerate(scenarios)]


def scoring_kind(q: dict, qtype: str, texts: list[str], where: str) -> str:
    if qtype == "multiple_choice":
        return "mc"
    if qtype in ("score", "quantitative", "ff_score"):
        return "scale"
    if q.get("func_name"):
        return "function"
    if q.get("guesser_prompt"):
        gtype = q.get("guesser_question_type")
        if gtype not in ("guesser_word", "guesser_free_form"):
            raise InputError(f"{where}: field 'guesser_question_type' {gtype!r} is not guesser_word or "
                             "guesser_free_form")
        return "two_hop" if gtype == "guesser_word" else "codeword"
    joined = "\n".join(texts)
    if GERMAN_FRENCH.search(joined):
        return "two_hop"
    if "{word_list}" in joined:
        return "codeword"
    if SCALE_CUE.search(joined) and "number" in joined.lower():
        return "scale"
    return "one_word"


def infer_family(text: str) -> str | None:
    for family, cue in FAMILY_CUES:
        if re.search(cue, text, re.IGNORECASE):
            return family
    return None


def word_list(codeword: str, rng: random.Random, n: int = 100) -> str:
    """The official `{word_list}`: the codeword among n-1 other words, shuffled, inside <word_list> tags."""
    from toolkit.selfaware.mms import NEUTRAL_WORDS

    words = rng.sample([w for w in NEUTRAL_WORDS if w != codeword.lower()], n - 1) + [codeword]
    rng.shuffle(words)
    return "\n<word_list>\n" + ", ".join(words) + "\n</word_list>\n"


def fill(text: str, where: str, *, codeword: str | None, rng: random.Random) -> str:
    if "{sep_suffix}" in text:
        text = text.replace("{sep_suffix}", f"{rng.randint(0, 998):03d}")
    for key in ("codeword", "word_list"):
        if "{" + key + "}" in text:
            if not codeword:
                raise InputError(f"{where}: the text holds {{{key}}}: give the codeword with --codeword")
            text = text.replace("{" + key + "}", codeword if key == "codeword" else word_list(codeword, rng))
    return text


def literal(text: str) -> str:
    """A YAML text used as is (braces escaped for the persona rewording)."""
    return text.replace("{", "{{").replace("}", "}}")
