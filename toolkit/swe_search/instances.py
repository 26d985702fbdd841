"""SWE-bench-format instances: `instance_id`, `repo` (local directory or git bundle, relative to the
instances file or found under --repos-dir as `owner/name` or `owner__name`), `base_commit`,
`problem_statement`, `FAIL_TO_PASS`, `PASS_TO_PASS` (lists or, as published, JSON strings), `test_patch`
(the tests that arrive at evaluation time), optional `test_cmd`; `version`, `environment_setup_commit` and
other fields pass through.

The agent sees the repository at `base_commit` and the problem statement; it may run PASS_TO_PASS (tests
that exist in the repository) and tests it writes itself. `test_patch` and FAIL_TO_PASS are used only by the
final check."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records

REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS")
PASS_THROUGH = ("version", "environment_setup_commit", "created_at", "hints_text", "family", "trap_patch")


@dataclass
class Instance:
    instance_id: str
    repo: Path
    base_commit: str
    problem_statement: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    test_cmd: str | None = None
    where: str = ""
    test_patch: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def test_ids(self) -> list[str]:
        """The tests of the final check (FAIL_TO_PASS + PASS_TO_PASS)."""
        return list(dict.fromkeys(self.fail_to_pass + self.pass_to_pass))

    @property
    def visible_ids(self) -> list[str]:
        """The tests an agent may run: those in the repository that must keep passing."""
        hidden = set(self.fail_to_pass)
        return [t for t in self.pass_to_pass if t not in hidden]

    def to_job(self) -> dict[str, Any]:
        return {"instance_id": self.instance_id, "repo": str(self.repo), "base_commit": self.base_commit,
                "problem_statement": self.problem_statement, "FAIL_TO_PASS": self.fail_to_pass,
                "PASS_TO_PASS": self.pass_to_pass, "test_cmd": self.test_cmd, "where": self.where,
                "test_patch": self.test_patch, "extra": self.extra}

    @classmethod
    def from_job(cls, job: dict[str, Any]) -> Instance:
        return cls(job["instance_id"], Path(job["repo"]), job["base_commit"], job["problem_statement"],
                   list(job["FAIL_TO_PASS"]), list(job["PASS_TO_PASS"]), job.get("test_cmd"), job.get("where", ""),
                   job.get("test_patch", ""), dict(job.get("extra") or {}))


def _test_list(value: Any, where: str, name: str) -> list[str]:
    if isinstance(value, str):  # SWE-bench stores these lists as JSON strings
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise InputError(f"{where}: field '{name}': not a JSON list of test ids") from None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"{where}: field '{name}': expected a list of test ids")
    return value


def resolve_repo(name: str, base_dir: Path, repos_dir: Path | None) -> Path:
    """A local path as given (relative to the instances file), else `owner/name` or `owner__name` under
    `repos_dir` (directory or `.bundle`)."""
    repo = Path(name).expanduser()
    if not repo.is_absolute():
        repo = (base_dir / repo).resolve()
    if repo.exists() or repos_dir is None:
        return repo
    for cand in (name, name.replace("/", "__"), name.rsplit("/", 1)[-1]):
        for path in (repos_dir / cand, repos_dir / f"{cand}.bundle"):
            if path.exists():
                return path.resolve()
    return repo


def parse_instance(record: dict[str, Any], where: str, base_dir: Path, repos_dir: Path | None = None) -> Instance:
    for name in ("instance_id", "repo", "base_commit", "problem_statement"):
        if not isinstance(record[name], str) or not record[name].strip():
            raise InputError(f"{where}: field '{name}': expected a non-empty string")
    repo = resolve_repo(record["repo"], base_dir, repos_dir)
    f2p = _test_list(record["FAIL_TO_PASS"], where, "FAIL_TO_PASS")
    p2p = _test_list(record["PASS_TO_PASS"], where, "PASS_TO_PASS")
    if not f2p:
        raise InputError(f"{where}: field 'FAIL_TO_PASS': must name at least one test")
    test_cmd = record.get("test_cmd")
    if test_cmd is not None and not isinstance(test_cmd, str):
        raise InputError(f"{where}: field 'test_cmd': expected a string")
    test_patch = record.get("test_patch") or ""
    if not isinstance(test_patch, str):
        raise InputError(f"{where}: field 'test_patch': expected a string (a unified diff)")
    extra = {k: record[k] for k in PASS_THROUGH if k in record}
    return Instance(record["instance_id"], repo, record["base_commit"], record["problem_statement"], f2p, p2p,
                    test_cmd, where, test_patch, extra)


def load_instances(path: str | Path, *, skip_bad: bool = False, bad: BadLines | None = None,
                   only: list[str] | None = None, repos_dir: Path | None = None) -> list[Instance]:
    base_dir = Path.cwd() if str(path) == "-" else Path(path).resolve().parent
    bad = bad if bad is not None else BadLines()
    out, name = [], "<stdin>" if str(path) == "-" else str(path)
    for lineno, record in enumerate(read_records(path, required=REQUIRED, skip_bad=skip_bad, bad=bad), 1):
        where = f"{name}:{lineno}"
        try:
            inst = parse_instance(record, where, base_dir, repos_dir)
        except InputError as exc:
            if not skip_bad:
                raise
            bad.add(str(exc))
            continue
        if only and inst.instance_id not in only:
            continue
        out.append(inst)
    return out
