"""Images referenced by records: copied once into the site's media/ folder, missing ones counted."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from toolkit.core.paths import record_file_candidates

MEDIA = "media"


class Media:
    def __init__(self, site: Path) -> None:
        self.site = site
        self.copied: dict[Path, str] = {}
        self.missing: list[str] = []

    def url(self, rel: Any, record: dict[str, Any], base: Path, where: str = "") -> str | None:
        """The site-relative URL of the image `rel` of a record, or None (counted) when no such file exists.

        A relative path is looked up under the record's `dir` first, then in the folder of the file it was
        read from, then in the current directory (where a command that wrote paths relative to itself ran).
        """
        if not rel:
            return None
        candidates = record_file_candidates(rel, record.get("dir"), base)
        if not Path(str(rel)).is_absolute():
            candidates.append(Path.cwd() / str(rel))
        for cand in candidates:
            if cand.is_file():
                return self._copy(cand.resolve())
        self.missing.append(f"{where}: {rel}" if where else str(rel))
        return None

    def _copy(self, source: Path) -> str:
        if source not in self.copied:
            digest = hashlib.sha1(str(source).encode()).hexdigest()[:10]
            name = f"{digest}-{source.name}"
            target = self.site / MEDIA / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            self.copied[source] = f"{MEDIA}/{name}"
        return self.copied[source]
