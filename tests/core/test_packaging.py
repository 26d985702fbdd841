"""What the code imports is what pyproject declares, the wheel carries every tracked module and asset, and the
shipped assets are found through one helper."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

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


def _tracked(*folders: str) -> list[str]:
    """Files git tracks (or would: untracked but not ignored) under the folders; skip outside a git checkout."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard", "--",
                          *folders], capture_output=True, text=True, check=True).stdout
    return sorted({line for line in out.splitlines() if (ROOT / line).is_file()})


def test_every_code_folder_is_a_package():
    """find_packages skips a folder without __init__.py, and with it every module inside."""
    folders = {str(Path(f).parent) for f in _tracked("toolkit", "cli") if f.endswith(".py")}
    missing = sorted(d for d in folders if not (ROOT / d / "__init__.py").is_file())
    assert not missing, f"folders of modules without __init__.py (left out of the wheel): {missing}"


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    """Build the wheel once from a copy of the tracked files (the checkout gets no build/ or egg-info)."""
    if importlib.util.find_spec("build") is None:
        if os.environ.get("CI"):
            pytest.fail("the `build` package is missing; CI installs the dev extra, which includes it")
        pytest.skip("the `build` package (dev extra) is not installed")
    src = tmp_path_factory.mktemp("src")
    for name in _tracked("."):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    dist = src / "dist"
    r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    (wheel,) = dist.glob("reason_toolkit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_holds_every_tracked_module_and_data_file(wheel_names):
    code = _tracked("toolkit", "cli")
    assert any(f.startswith("toolkit/dsg/") for f in code)
    missing = [f for f in code if "__pycache__" not in f and f not in wheel_names]
    assert not missing, f"tracked under toolkit/ or cli/ but not in the wheel: {missing}"


def test_wheel_holds_every_shipped_asset(wheel_names):
    assets = [f for f in _tracked("assets") if ".chase-index" not in f and "__pycache__" not in f]
    missing = [f for f in assets if "reason_assets/" + f.removeprefix("assets/") not in wheel_names]
    assert not missing, f"tracked under assets/ but not in the wheel: {missing[:10]} ({len(missing)} in all)"


def test_every_extra_module_the_code_imports_maps_to_its_extra():
    """A command that fails on a missing module is told which extra installs it (toolkit.core.extras)."""
    from tests.support.hidden_extras import extra_modules
    from toolkit.core.extras import extras_of

    of_extras = extra_modules()
    code = [m for m in imported("toolkit", "cli") if m in of_extras]
    assert "torch" in code and "pybullet_data" in code
    wrong = {m: (extras_of(m), sorted(of_extras[m])) for m in code if not extras_of(m)
             or not set(extras_of(m)) <= of_extras[m]}
    assert not wrong, f"module -> (extras named by toolkit.core.extras, extras installing it): {wrong}"
