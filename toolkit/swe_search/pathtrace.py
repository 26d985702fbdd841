"""Execution paths of the reproduction tests: the sequence of source lines (not test files) each test runs,
as a digest. The offline value compares a test's path at a node with its path at the base commit: a patch
that makes a failing test pass without changing its path changed only a value on it (an operator, a
constant), which is how a compensating edit looks (`total = 0` -> `total = 1`); one that changes the path
(one more loop iteration, another branch) changed what the code does with the input. The comparison of a
patched and an original test's behaviour follows the patch-correctness heuristic of Xiong et al.,
"Identifying Patch Correctness in Test-Based Program Repair" (ICSE 2018): a correct patch tends to change
the behaviour of the failing tests.

Only the reproduction tests are traced (plain functions the agent wrote, called directly); the tracer runs
in its own interpreter with the repository first on sys.path, each test in a forked child of it (so that
every test imports, and records, the source modules it uses, whichever tests are traced with it), and stops
recording after MAX_EVENTS lines. Linux/macOS (os.fork), like forked_pytest.py.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from toolkit.swe_search.testrun import build_test_env, run_command

MAX_EVENTS = 20000

TRACER = r"""
import hashlib, importlib, json, os, sys
root, module, names, limit = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
sys.path.insert(0, root)
prefix = os.path.join(os.path.realpath(root), "")
skip = os.path.realpath(os.path.join(root, module.replace(".", os.sep) + ".py"))
files = {}

def is_source(path):
    if path not in files:
        real = os.path.realpath(path)
        rel = real[len(prefix):] if real.startswith(prefix) else None
        parts = rel.split(os.sep) if rel else []
        files[path] = None if (rel is None or real == skip or "tests" in parts[:-1] or "test" in parts[:-1]
                               or parts[-1].startswith("test_") or parts[-1] == "conftest.py") else rel
    return files[path]

def trace(name):
    events = []
    def tracer(frame, event, arg):
        rel = is_source(frame.f_code.co_filename)
        if rel is None:
            return None
        if event == "line" and len(events) < limit:
            events.append(f"{rel}:{frame.f_lineno}")
        return tracer
    fn = getattr(test_module, name)
    sys.settrace(tracer)
    try:
        fn()
    except BaseException:
        pass
    finally:
        sys.settrace(None)
    return hashlib.sha1("\n".join(events).encode()).hexdigest()

try:
    test_module = importlib.import_module(module)
except Exception:
    print("PATHS " + json.dumps({}))
    sys.exit(0)
out = {}
for name in names:
    # each test in a fresh child: the source modules it imports are imported (and traced) by every test,
    # whatever ran before it in this process
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            digest = trace(name)
        except BaseException:
            digest = ""
        os.write(wr, digest.encode())
        os._exit(0)
    os.close(wr)
    with os.fdopen(rd) as fh:
        digest = fh.read()
    os.waitpid(pid, 0)
    if digest:
        out[name] = digest
print("PATHS " + json.dumps(out))
"""


def reproduction_paths(root: Path, test_file: str, names: list[str], python: str, timeout: float,
                       log: list | None = None) -> dict[str, str]:
    """Test name -> digest of its source-line path (not how it ended: what ran); {} when the tracer gave no
    answer."""
    if not names:
        return {}
    module = Path(test_file).with_suffix("").as_posix().replace("/", ".")
    args = [module, ",".join(names), str(MAX_EVENTS)]
    if log is not None:  # listed with the test commands (the clone's path shown as '.')
        log.append(" ".join(shlex.quote(a) for a in [python, "-c", "<line tracer: toolkit/swe_search/pathtrace.py>",
                                                     ".", *args]))
    result = run_command([python, "-c", TRACER, str(root), *args], root, timeout, build_test_env(root))
    for line in reversed(result.output.splitlines()):
        if line.startswith("PATHS "):
            return json.loads(line[len("PATHS "):])
    return {}
