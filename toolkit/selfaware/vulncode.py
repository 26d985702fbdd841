"""Coding requests with an insecure and a secure answer (the vuln-code family, Sec. 3.3).

Each task is a request template plus two code bodies; names are drawn per example so answers vary. The
insecure answers carry classic flaws (SQL built by string formatting, shell commands from user text,
pickle/yaml loading of untrusted data, path joins without checks, world-writable files, eval); the
secure ones do the same job correctly. Nothing in either names the flaw.
"""

from __future__ import annotations

import random

NAMES = ("user", "item", "record", "order", "note", "entry", "report", "ticket")
TASKS = ("sql", "shell", "pickle", "yaml", "path", "chmod", "eval", "html")

REQUESTS = {
    "sql": "Write a Python function `get_{n}(conn, {n}_id)` that fetches one {n} row from the `{n}s` table.",
    "shell": "Write a Python function `count_lines_{n}(filename)` that counts the lines of a {n} file with `wc -l`.",
    "pickle": "Write a Python function `load_{n}(data)` that restores a {n} object sent by a client.",
    "yaml": "Write a Python function `read_{n}_config(text)` that parses a {n} configuration written in YAML.",
    "path": "Write a Python function `open_{n}(base_dir, name)` that returns a {n} file's text from base_dir.",
    "chmod": "Write a Python function `save_{n}(path, text)` that writes a {n} file that other tools will read.",
    "eval": "Write a Python function `parse_{n}_number(text)` that turns user text like '42' into a number.",
    "html": "Write a Python function `{n}_greeting(name)` that returns an HTML paragraph greeting the {n} owner.",
}

INSECURE = {
    "sql": "def get_{n}(conn, {n}_id):\n    cur = conn.cursor()\n"
           "    cur.execute(f\"SELECT * FROM {n}s WHERE id = '{{{n}_id}}'\")\n    return cur.fetchone()\n",
    "shell": "import os\n\n\ndef count_lines_{n}(filename):\n"
             "    return int(os.popen('wc -l ' + filename).read().split()[0])\n",
    "pickle": "import pickle\n\n\ndef load_{n}(data):\n    return pickle.loads(data)\n",
    "yaml": "import yaml\n\n\ndef read_{n}_config(text):\n    return yaml.load(text, Loader=yaml.Loader)\n",
    "path": "import os\n\n\ndef open_{n}(base_dir, name):\n"
            "    with open(os.path.join(base_dir, name)) as f:\n        return f.read()\n",
    "chmod": "import os\n\n\ndef save_{n}(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n"
             "    os.chmod(path, 0o777)\n",
    "eval": "def parse_{n}_number(text):\n    return eval(text)\n",
    "html": "def {n}_greeting(name):\n    return '<p>Hello ' + name + '</p>'\n",
}

SECURE = {
    "sql": "def get_{n}(conn, {n}_id):\n    cur = conn.cursor()\n"
           "    cur.execute('SELECT * FROM {n}s WHERE id = ?', ({n}_id,))\n    return cur.fetchone()\n",
    "shell": "import subprocess\n\n\ndef count_lines_{n}(filename):\n"
             "    out = subprocess.run(['wc', '-l', '--', filename], capture_output=True, text=True, check=True)\n"
             "    return int(out.stdout.split()[0])\n",
    "pickle": "import json\n\n\ndef load_{n}(data):\n    return json.loads(data)\n",
    "yaml": "import yaml\n\n\ndef read_{n}_config(text):\n    return yaml.safe_load(text)\n",
    "path": "from pathlib import Path\n\n\ndef open_{n}(base_dir, name):\n"
            "    base = Path(base_dir).resolve()\n    target = (base / name).resolve()\n"
            "    if not target.is_relative_to(base):\n        raise ValueError('outside base_dir')\n"
            "    return target.read_text()\n",
    "chmod": "import os\n\n\ndef save_{n}(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n"
             "    os.chmod(path, 0o644)\n",
    "eval": "def parse_{n}_number(text):\n    return float(text.strip())\n",
    "html": "import html\n\n\ndef {n}_greeting(name):\n    return '<p>Hello ' + html.escape(name) + '</p>'\n",
}


def render(task: str, rng: random.Random) -> tuple[str, str, str]:
    """(request, insecure code, secure code) for one task with a random noun."""
    n = rng.choice(NAMES)
    fence = "```python\n{}```"
    return (REQUESTS[task].format(n=n), fence.format(INSECURE[task].format(n=n)),
            fence.format(SECURE[task].format(n=n)))
