"""Where the shipped models and demo data live: the checkout's assets/ or the installed `reason_assets` package.

Every default path of every system goes through `asset_path`, so the same code finds its files when run
from a clone (assets/ beside toolkit/) and from an installed wheel (assets/ packaged as `reason_assets`).
$REASON_ASSETS points at another copy of the tree (e.g. unpacked on a shared disk).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

ENV_VAR = "REASON_ASSETS"
PACKAGE = "reason_assets"


@functools.cache
def _packaged_root() -> Path | None:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def assets_root() -> Path:
    """The assets folder in use: $REASON_ASSETS, else the checkout's assets/, else the installed package."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "assets").is_dir():
        return checkout / "assets"
    # Neither: return the checkout path, so a missing default reads "no such ... directory" with its path.
    return _packaged_root() or checkout / "assets"


def asset_path(relative: str) -> Path:
    """The path of a shipped file or folder, e.g. asset_path("aha/model"); it may not exist yet (callers check)."""
    return assets_root().joinpath(*relative.split("/"))


def given_or_shipped(path: str | Path) -> Path:
    """A path as the user typed it, or, when it does not exist and reads `assets/...` (as the READMEs write the
    shipped files), the shipped copy of that file: `--model assets/maps/ppm` works from any directory."""
    given = Path(path)
    text = given.as_posix()
    if not given.exists() and not given.is_absolute() and text.startswith("assets/"):
        shipped = asset_path(text.removeprefix("assets/"))
        if shipped.exists():
            return shipped
    return given
