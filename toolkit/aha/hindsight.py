"""Hindsight relabelling: FailGen grids re-described so that only the named object decides the label.

In FailGen data the object a sub-task names and the object the robot handles differ only in the
wrong_object failures, so a detector trained on it can reach a good loss while ignoring the sub-task's
wording altogether, and then cannot tell a wrong-object grasp from a good one. Relabelling adds pairs
of training samples whose image is unchanged and whose label flips with the object named:
- the wrong_object failure, described for the object the robot did handle: "Yes";
- the nominal run of the same scene and sub-task, described for the object the wrong_object run went
  for: "No, the robot went for the <handled> instead of the <named>".
Only the object words change; the images are the ones FailGen rendered. Applied to the training split
only, so validation stays as generated.
"""

from __future__ import annotations

import re
from dataclasses import replace

from toolkit.aha.samples import Sample
from toolkit.failgen.prompts import EXPLANATIONS, SKILL_EXPLANATIONS

WRONG_OBJECT = "wrong_object"
NOMINAL = "nominal"
TEMPLATES = [EXPLANATIONS[WRONG_OBJECT]] + [t for (_, mode), t in SKILL_EXPLANATIONS.items() if mode == WRONG_OBJECT]


def _pattern(template: str) -> re.Pattern:
    text = re.escape(template).replace(r"\{other\}", "(?P<other>.+?)").replace(r"\{obj\}", "(?P<obj>.+?)")
    return re.compile(f"^{text}$")


PATTERNS = [(t, _pattern(t)) for t in TEMPLATES]


def parse_wrong_object(explanation: str) -> tuple[str, str, str] | None:
    """(template, named object, handled object) of a wrong_object explanation; None for any other text."""
    text = explanation.strip().rstrip(".")
    for template, pattern in PATTERNS:
        m = pattern.match(text)
        if m:
            return template, m.group("obj"), m.group("other")
    return None


def _scene(sample: Sample) -> tuple[str, int]:
    """Episodes of one scene share the id up to the mode: '<task>-s<seed>-<mode>'."""
    return sample.episode_id.rsplit("-", 1)[0], sample.subtask_index


def _redescribe(sample: Sample, named: str, instead: str, label: str, explanation: str, suffix: str) -> Sample:
    subtask = sample.subtask.replace(named, instead)
    answer = "Yes" if label == "Yes" else f"No, {explanation}."
    return replace(sample, sample_id=f"{sample.sample_id}#{suffix}", subtask=subtask,
                   question=sample.question.replace(sample.subtask, subtask), answer=answer, label=label,
                   explanation=explanation, relabelled=True)


def hindsight(samples: list[Sample]) -> list[Sample]:
    """The relabelled samples for `samples` (the input is not changed or repeated)."""
    nominal = {_scene(s): s for s in samples if s.mode == NOMINAL and s.label == "Yes" and not s.relabelled}
    out = []
    for s in samples:
        if s.mode != WRONG_OBJECT or s.label != "No" or s.relabelled or s.subtask_index < 0:
            continue
        parsed = parse_wrong_object(s.explanation)
        if parsed is None or parsed[1] not in s.subtask:
            continue
        template, named, handled = parsed
        out.append(_redescribe(s, named, handled, "Yes", "", "handled"))
        twin = nominal.get(_scene(s))
        if twin is not None and named in twin.subtask:
            why = template.format(obj=handled, other=named)
            out.append(_redescribe(twin, named, handled, "No", why, "other"))
    return out
