"""A private temporary clone of the instance's repository; every search state is a commit in it.

The user's repository (a directory or a git bundle) is only read, by `git clone`; all edits,
commits and test runs happen under a fresh temporary directory that `close()` removes.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from toolkit.core.errors import InputError

AUTHOR = ["-c", "user.name=reason", "-c", "user.email=reason@localhost", "-c", "commit.gpgsign=false"]


def check_repo_source(src: Path, where: str) -> None:
    """A clear error when `src` is neither a git repository nor a git bundle."""
    import git

    if not src.exists():
        raise InputError(f"{where}: field 'repo': {src} does not exist")
    if src.is_dir():
        try:
            git.Repo(src)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise InputError(f"{where}: field 'repo': {src} is not a git repository") from None
        return
    try:
        git.Git().bundle("list-heads", str(src))
    except git.GitCommandError:
        raise InputError(f"{where}: field 'repo': {src} is neither a git repository nor a git bundle") from None


class Workspace:
    """Clone `src` into a temporary directory and check out `base_commit` (detached)."""

    def __init__(self, src: Path, base_commit: str, where: str = "instance") -> None:
        import git

        check_repo_source(src, where)
        self.tmp = Path(tempfile.mkdtemp(prefix="reason-swe-"))
        self.root = self.tmp / "repo"
        self.scratch = self.tmp / "scratch"
        self.scratch.mkdir()
        try:
            self.repo = git.Repo.clone_from(str(src), str(self.root), no_checkout=True, no_hardlinks=True)
        except git.GitCommandError as exc:
            self.close()
            raise InputError(f"{where}: field 'repo': cannot clone {src} ({_last_line(exc.stderr)})") from None
        try:
            self.base = self.repo.git.rev_parse("--verify", "--quiet", f"{base_commit}^{{commit}}")
        except git.GitCommandError:
            self.close()
            raise InputError(f"{where}: field 'base_commit': {base_commit!r} is not a commit of {src}") from None
        # fixed identity and dates: the same search makes the same commits (hashes are reproducible)
        self.repo.git.update_environment(GIT_AUTHOR_DATE="2025-01-01T00:00:00+00:00",
                                         GIT_COMMITTER_DATE="2025-01-01T00:00:00+00:00")
        self.repo.git.checkout("--quiet", "--detach", "--force", self.base)
        self.head = self.base
        self.scratch_files: dict[str, str] = {}

    def set_scratch_files(self, files: dict[str, tuple[str | list[str], str]]) -> None:
        """Files present in every state but never committed nor in a patch (git's info/exclude), e.g. a
        reproduction test: {path: (test name or names, content)}."""
        self.scratch_files = {path: content for path, (_, content) in files.items()}
        if files:
            exclude = Path(self.repo.git_dir) / "info" / "exclude"
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a", encoding="utf-8") as fh:
                fh.writelines(f"/{path}\n" for path in files)
        self._write_scratch()

    def _write_scratch(self) -> None:
        for path, content in self.scratch_files.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")

    def added_files(self) -> list[str]:
        """Files the current state adds to the base commit."""
        out = self.repo.git.diff("--name-only", "--diff-filter=A", self.base, self.head)
        return [line for line in out.splitlines() if line.strip()]

    def check_patch(self, patch: str, name: str) -> str | None:
        """Why `patch` cannot be applied to the base commit (None when it can)."""
        import git

        base_files = set(self.repo.git.ls_tree("-r", "--name-only", self.base).splitlines())
        for m in re.finditer(r"^--- a/(\S+)", patch, re.MULTILINE):
            if m.group(1) not in base_files:
                return f"{name} changes {m.group(1)}, which is not in the repository at base_commit"
        path = self.scratch / f"{name}.patch"
        path.write_text(patch, encoding="utf-8")
        try:
            self._git("apply", "--check", "--whitespace=nowarn", str(path))
        except git.GitCommandError as exc:
            return f"{name} does not apply to base_commit ({_last_line(exc.stderr)})"
        return None

    def apply(self, patch: str, name: str) -> bool:
        """Apply `patch` to the working tree; False if it does not apply."""
        import git

        if not patch.strip():
            return True
        path = self.scratch / f"{name}.patch"
        path.write_text(patch, encoding="utf-8")
        try:
            self._git("apply", "--whitespace=nowarn", str(path))
        except git.GitCommandError:
            return False
        return True

    def _git(self, *args: str) -> str:
        return self.repo.git.execute(["git", *AUTHOR, *args])

    def checkout(self, commit: str) -> None:
        self._git("checkout", "--quiet", "--detach", "--force", commit)
        self.head = commit
        self._git("clean", "-fdxq")
        self._write_scratch()

    def commit(self, message: str) -> str:
        """Commit the working tree as a new state (a commit even when nothing changed)."""
        self._git("add", "-A")
        self._git("commit", "--quiet", "--allow-empty", "--no-verify", "-m", message)
        self.head = self.repo.git.rev_parse("HEAD")
        return self.head

    def tree_hash(self) -> str:
        """The content hash of the checked-out commit's tree (equal states share it)."""
        return self.repo.git.rev_parse(f"{self.head}^{{tree}}")

    def diff(self, commit: str) -> str:
        """The patch from the base commit to `commit` (SWE-bench `model_patch`)."""
        return self.repo.git.diff(self.base, commit, "--no-color", "--no-ext-diff", strip_newline_in_stdout=False)

    def apply_on_base(self, patch: str) -> bool:
        """Check out the base commit and apply a patch to the working tree; False if it does not apply."""
        self.checkout(self.base)
        return self.apply(patch, "candidate")

    def close(self) -> None:
        repo = getattr(self, "repo", None)
        if repo is not None:
            repo.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _last_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip("'") if lines else "git failed"


def resolve_path(root: Path, rel: str) -> Path | None:
    """`rel` as a path inside `root`, or None when it escapes it (absolute paths, '..', symlinks)."""
    if not rel or "\x00" in rel:
        return None
    candidate = (root / rel).resolve()
    base = root.resolve()
    if candidate != base and base not in candidate.parents:
        return None
    if ".git" in candidate.relative_to(base).parts:
        return None
    return candidate

