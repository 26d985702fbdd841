"""Question and answer wording of the AHA samples.

The question follows the AHA instruction format: the sub-task is named, the model answers "yes" or
"no" first and then explains a failure. Answers: "Yes" for a sub-task that succeeded, "No, <why>"
for the failed one, with a mode-specific explanation naming the objects involved.
"""

from __future__ import annotations

# The wording of grids in the earlier row order (front, overhead, wrist): kept word for word, it is
# what the shipped detector was trained on.
LEGACY_QUESTION = ('For the given sub-task, first determine whether it has succeeded by choosing from ["yes", "no"], '
            "and then explain the reason why the current sub-task has failed. "
            "The image shows the robot at successive keyframes (columns, numbered) from the front, overhead "
            'and wrist cameras (rows). Sub-task: "{subtask}"')

EXPLANATIONS = {
    "grasp": "the robot gripper did not close on the {obj}, so the {obj} was never grasped",
    "slip": "the {obj} slipped out of the robot gripper while it was being moved",
    "translation_x": "the robot gripper was misaligned with the {obj} along the x-axis (forwards/backwards)",
    "translation_y": "the robot gripper was misaligned with the {obj} along the y-axis (left/right)",
    "translation_z": "the robot gripper stopped too high above the {obj} (misaligned along the z-axis)",
    "rotation_x": "the robot gripper was rolled to a wrong angle (rotation about the x-axis) at the {obj}",
    "rotation_y": "the robot gripper was pitched to a wrong angle (rotation about the y-axis) at the {obj}",
    "rotation_z": "the robot gripper turned to a wrong yaw angle (rotation about the z-axis) with the {obj}",
    "no_rotation": "the robot gripper did not rotate to the required orientation for the {obj}",
    "wrong_sequence": "the robot executed the steps in the wrong order, so the {obj} was not handled correctly",
    "wrong_object": "the robot went for the {other} instead of the {obj}",
}


# Wording that depends on the skill as well as the mode.
SKILL_EXPLANATIONS = {
    ("pull", "slip"): "the robot gripper lost its hold on the handle of the {obj} while pulling it",
    ("grasp_handle", "grasp"): "the robot gripper did not close on the handle of the {obj}",
    ("grasp_handle", "wrong_object"): "the robot grasped the handle of the {other} instead of the {obj}",
    ("push", "wrong_object"): "the robot pushed the {other} instead of the {obj}",
    ("turn", "no_rotation"): "the robot gripper did not rotate the {obj} to match the {target}",
    ("turn", "rotation_z"): "the robot gripper turned the {obj} to a wrong yaw angle, not matching the {target}",
}


# The official format's wording (NVlabs/AHA make_json.py), with the rows named in their order.
OFFICIAL_QUESTION = ('For the given sub-task, first determine whether it has succeeded by choosing from ["yes", "no"], '
                     "and then explain the reason why the current sub-task has failed. "
                     "The image shows the robot at successive keyframes (columns, numbered) from different views: "
                     "the top row is the {0} view; the middle row is the {1} view, and the bottom is the {2} view."
                     "{future} Sub-task: \"{subtask}\"")
WHITE_CELLS = " The white cells are future sub-tasks that have yet to happen and should be ignored."


def question(subtask: str, rows: tuple[str, ...] | None = None, future: str = "white") -> str:
    """The question for a grid with view rows `rows` (default: the official order) whose future cells
    are white or trimmed off."""
    from toolkit.failgen.grid import LEGACY_ROWS, ROWS

    rows = tuple(rows or ROWS)
    if rows == LEGACY_ROWS:
        return LEGACY_QUESTION.format(subtask=subtask)
    return OFFICIAL_QUESTION.format(*rows, future=WHITE_CELLS if future == "white" else "", subtask=subtask)


def explanation(mode: str, obj: str, other: str | None = None, target: str | None = None,
                skill: str | None = None) -> str:
    special = SKILL_EXPLANATIONS.get((skill, mode))
    if special:
        return special.format(obj=obj, other=other or "another object", target=target or "target")
    focus = obj
    if mode.startswith(("translation_", "rotation_")) and target:
        focus = target
    return EXPLANATIONS[mode].format(obj=focus, other=other or "another object")


def answer(label: str, explanation_text: str = "") -> str:
    return "Yes" if label == "Yes" else f"No, {explanation_text}."
