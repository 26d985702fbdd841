"""The chat template of the shipped generator: what of each pipeline prompt the small model reads.

It keeps every prompt's `## Task:` line (which generator or stage is asking) and the part about the
real database. The fixed worked examples about the example database (the same words in every
divide-and-conquer, query-plan and keyword prompt) and the system line are left out: they carry
nothing about the question and would triple the context of a model this small.
"""

from __future__ import annotations

REAL_TASK = "Now the real task.\n\n"
ANSWER_CUE = "=>\n"  # right after the prompt's last line

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for m in messages %}{% if m['role'] == 'user' %}"
    "{% set c = m['content'] %}{% set task = c.split('\\n')[0] %}"
    "{% if '" + REAL_TASK.replace("\n", "\\n") + "' in c %}"
    "{{ task }}\n{{ c.split('" + REAL_TASK.replace("\n", "\\n") + "')[-1] }}"
    "{% elif task == '## Task: keyword extraction' %}"
    "{{ task }}\nQuestion:{{ c.split('Question:')[-1] }}"
    "{% else %}{{ c }}{% endif %}"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}" + ANSWER_CUE + "{% endif %}"
)
