"""The chat templates of generators trained here: what of each pipeline prompt the small model reads.

Both keep every prompt's `## Task:` line (which generator or stage is asking) and the part about the
real database. The fixed worked examples about the example database (the same words in every
divide-and-conquer, query-plan and keyword prompt) and the system line are left out: they carry
nothing about the question and would triple the context of a model this small.

`COMPACT_CHAT_TEMPLATE` also folds each CREATE TABLE statement into one line, `table(col, col, fk->table)`:
column comments, types and example values go (the retrieved values stay), so a schema costs about a
fifth of its tokens. The template travels with the model (tokenizer_config.json), so the pipeline's
prompts stay as they are and the model reads them the way it was trained.
"""

from __future__ import annotations

REAL_TASK = "Now the real task.\n\n"
ANSWER_CUE = "=>\n"  # right after the prompt's last line

_REAL = REAL_TASK.replace("\n", "\\n")
_BODY = (
    "{% set c = m['content'] %}{% set task = c.split('\\n')[0] %}"
    "{% if '" + _REAL + "' in c %}{% set body = task + '\\n' + c.split('" + _REAL + "')[-1] %}"
    "{% elif task == '## Task: keyword extraction' %}{% set body = task + '\\nQuestion:' + c.split('Question:')[-1] %}"
    "{% else %}{% set body = c %}{% endif %}"
)


def _template(body_out: str, cue: str, macro: str | None = None) -> str:
    return ("{{ bos_token }}" + (macro or _COMPACT_MACRO)
            + "{% for m in messages %}{% if m['role'] == 'user' %}" + _BODY + body_out + "{% endif %}{% endfor %}"
            + "{% if add_generation_prompt %}" + cue + "{% endif %}")


# One schema line per table; every other line as it was. Blank lines go (tables end in a newline). A name that
# SQL must quote (`Order Qty`) stays whole; a foreign key shows the column it references (`ownerId->people.id`),
# since keys are not always named after their table.
_NAME = ("{% macro name(r) %}{% if r.startswith('`') %}`{{ r[1:].split('`')[0] }}`"
         "{% else %}{{ r.split(' ')[0] }}{% endif %}{% endmacro %}")
_COMPACT_MACRO = (
    _NAME + "{% macro compact(text) %}{% set ns = namespace(open=false, first=true) %}"
    "{% for line in text.split('\\n') %}"
    "{% if line.startswith('CREATE TABLE ') %}{{ name(line[13:]) }}("
    "{% set ns.open = true %}{% set ns.first = true %}"
    "{% elif ns.open and line.startswith(')') %}){{ '\\n' }}{% set ns.open = false %}"
    "{% elif ns.open and line.strip().startswith('FOREIGN KEY (') %}{% set ref = line.split('REFERENCES ')[1] %}"
    "{{ '' if ns.first else ', ' }}{{ line.split('(')[1].split(')')[0] }}->{{ ref.split('(')[0] }}."
    "{{ ref.split('(')[1].split(')')[0] }}{% set ns.first = false %}"
    "{% elif ns.open and line.strip() %}{{ '' if ns.first else ', ' }}{{ name(line.strip()) }}"
    "{% set ns.first = false %}"
    "{% elif line.strip() %}{{ line }}{{ '\\n' }}{% endif %}"
    "{% endfor %}{% endmacro %}"
)
# The first compact rendering (names cut at a space, `fk->table`): generators saved with it continue training with
# the current one (`train-generator --init`).
_COMPACT_MACRO_V1 = (
    "{% macro compact(text) %}{% set ns = namespace(open=false, first=true) %}"
    "{% for line in text.split('\\n') %}"
    "{% if line.startswith('CREATE TABLE ') %}{{ line[13:].split(' ')[0] }}("
    "{% set ns.open = true %}{% set ns.first = true %}"
    "{% elif ns.open and line.startswith(')') %}){{ '\\n' }}{% set ns.open = false %}"
    "{% elif ns.open and line.strip().startswith('FOREIGN KEY (') %}"
    "{{ '' if ns.first else ', ' }}{{ line.split('(')[1].split(')')[0] }}->{{ line.split('REFERENCES ')[1]"
    ".split('(')[0] }}{% set ns.first = false %}"
    "{% elif ns.open and line.strip() %}{{ '' if ns.first else ', ' }}{{ line.strip().split(' ')[0] }}"
    "{% set ns.first = false %}"
    "{% elif line.strip() %}{{ line }}{{ '\\n' }}{% endif %}"
    "{% endfor %}{% endmacro %}"
)

CHAT_TEMPLATE = _template("{{ body }}", ANSWER_CUE)
COMPACT_CHAT_TEMPLATE = _template("{{ compact(body) }}", ANSWER_CUE)
TEMPLATES = {"full": CHAT_TEMPLATE, "compact": COMPACT_CHAT_TEMPLATE}
# Templates of earlier generators -> the name of the current template that replaces them when training continues.
SUPERSEDED = {_template("{{ compact(body) }}", ANSWER_CUE, _COMPACT_MACRO_V1): "compact"}
