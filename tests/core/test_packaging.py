"""What the code imports is what pyproject declares, and the shipped assets are found through one helper."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = {"cli", "toolkit", "tests", "reason_assets"}
# Declared but never imported by name, each for a stated reason.
NOT_IMPORTED = {
    "accelerate": "transformers needs it for device_map and quantized loading",
    "bitsandbytes": "transformers loads it for --load-in-4bit/8bit (checked with extras.require)",
    "pytest-xdist": "pytest plugin (make test -n 2)",
    "ruff": "the linter, run as a command",
    "build": "the packaging front-end, run by make dist",
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    return _norm(re.split(r"[\s\[<>=!~;]", spec.strip(), maxsplit=1)[0])


def declared() -> dict[str, set[str]]:
    """extra ('core' for the base dependencies) -> normalized distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = {"core": {_requirement_name(d) for d in project["dependencies"]}}
    for extra, specs in project["optional-dependencies"].items():
        out[extra] = {_requirement_name(s) for s in specs if not _requirement_name(s).startswith("reason-toolkit")}
    return out


def imported(*folders: str) -> dict[str, set[str]]:
    """Top-level third-party modules imported anywhere under the folders -> files importing them."""
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def distributions(modules) -> dict[str, str]:
    """module -> normalized distribution name, from the installed packages' metadata."""
    owners = importlib.metadata.packages_distributions()
    missing = sorted(m for m in modules if m not in owners)
    assert not missing, f"imported but not installed (so not declared anywhere): {missing}"
    return {m: _norm(owners[m][0]) for m in modules}


def test_every_imported_module_is_declared():
    decl = declared()
    runtime = set().union(*(names for extra, names in decl.items() if extra != "dev"))
    code = imported("toolkit", "cli")
    undeclared = {m: sorted(code[m])[:2] for m, d in distributions(code).items() if d not in runtime}
    assert not undeclared, f"imported by the code but not declared in core or an extra: {undeclared}"
    tests = imported("tests")
    undeclared = {m: sorted(tests[m])[:2] for m, d in distributions(tests).items()
                  if d not in runtime | decl["dev"]}
    assert not undeclared, f"imported by tests but not declared (dev extra): {undeclared}"


def test_nothing_declared_goes_unused():
    decl = declared()
    used = set(distributions(imported("toolkit", "cli", "tests")).values())
    unused = {extra: sorted(n for n in names if n not in used and n not in NOT_IMPORTED)
              for extra, names in decl.items()}
    assert not any(unused.values()), f"declared but never imported: {unused}"


def test_base_install_imports_only_core_at_startup():
    """`reason --help` must work without extras: the CLI modules import only core dependencies at top level."""
    core = declared()["core"]
    top_level: dict[str, str] = {}
    for path in [*(ROOT / "cli").glob("*.py"), *(ROOT / "toolkit" / "core").glob("*.py")]:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level only, not inside functions
            if isinstance(node, ast.Import | ast.ImportFrom) and getattr(node, "level", 0) == 0:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                        top_level[top] = str(path.relative_to(ROOT))
    outside = {m: top_level[m] for m, d in distributions(top_level).items() if d not in core}
    assert not outside, f"imported at module level but not a core dependency: {outside}"


def test_asset_path_finds_the_checkout_and_honours_the_override(tmp_path, monkeypatch):
    from toolkit.core.assets import ENV_VAR, asset_path, assets_root

    monkeypatch.delenv(ENV_VAR, raising=False)
    assert assets_root() == ROOT / "assets"
    assert (asset_path("aha/model") / "config.json").is_file()
    assert asset_path("chase_sql/demo/dev.json").is_file()
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert asset_path("steer/model") == tmp_path / "steer" / "model"


def test_asset_path_falls_back_to_the_installed_package(tmp_path, monkeypatch):
    """Outside a checkout (no pyproject.toml beside assets/), the `reason_assets` package is used."""
    import toolkit.core.assets as assets

    fake = tmp_path / "site" / "reason_assets"
    (fake / "aha").mkdir(parents=True)
    monkeypatch.delenv(assets.ENV_VAR, raising=False)
    monkeypatch.setattr(assets, "__file__", str(tmp_path / "site" / "toolkit" / "core" / "assets.py"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assets._packaged_root.cache_clear()
    try:
        assert assets.asset_path("aha") == fake / "aha"
    finally:
        assets._packaged_root.cache_clear()


def test_assets_readme_size_bound_holds():
    """assets/README.md states the largest file size; every shipped file keeps to it."""
    text = (ROOT / "assets" / "README.md").read_text(encoding="utf-8")
    bound = float(re.search(r"no file over ([\d.]+) MB", text).group(1)) * 1e6
    tracked = [p for p in (ROOT / "assets").rglob("*") if p.is_file() and ".chase-index" not in p.parts[-2]]
    over = {str(p.relative_to(ROOT)): p.stat().st_size for p in tracked if p.stat().st_size > bound}
    assert tracked and not over, f"over the bound of assets/README.md: {over}"
