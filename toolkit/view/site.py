"""Build the site: read every record file, dispatch records by type to families, write the pages."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from toolkit.core import provenance
from toolkit.core.errors import InputError
from toolkit.core.records import STDIO, BadLines, read_records
from toolkit.view.families import FAMILIES, other
from toolkit.view.media import MEDIA, Media
from toolkit.view.model import Context, Rec, Section

HERE = Path(__file__).parent
MARKER = ".reason-view.json"  # written last; marks a folder as a site that a rebuild may replace
STATIC = "static"
NO_TYPE = "(no type)"


@dataclass
class BuildSummary:
    out: str
    files: list[str]
    records: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    bad_lines: int = 0
    bad_examples: list[str] = field(default_factory=list)
    missing_images: int = 0
    missing_examples: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)  # families whose records were shown as JSON instead
    stand_in: dict[str, int] = field(default_factory=dict)  # record type -> records made through a stand-in

    def record(self) -> dict:
        return {"type": "view.site", "schema": 1, **asdict(self)}


def prepare_out(out: Path, force: bool) -> None:
    """Refuse a non-empty folder that is not an earlier site (unless --force); clear an earlier site."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file, expected a folder")
    if not out.exists() or not any(out.iterdir()):
        return
    if (out / MARKER).is_file():
        for name in (MEDIA, STATIC):
            shutil.rmtree(out / name, ignore_errors=True)
        for page in [*out.glob("*.html"), *out.glob("*.index.json"), *out.glob("*.index.js")]:
            page.unlink()
        (out / MARKER).unlink()
        return
    if not force:
        raise InputError(f"--out {out}: folder is not empty and holds no earlier site; use --force to write into it")


def read_all(paths: list[str], skip_bad: bool, bad: BadLines) -> tuple[dict[str, list[Rec]], int]:
    by_type: dict[str, list[Rec]] = defaultdict(list)
    total = 0
    for path in paths:
        base = Path.cwd() if path == STDIO else Path(path).resolve().parent
        name = "<stdin>" if path == STDIO else path
        for n, data in enumerate(read_records(path, skip_bad=skip_bad, bad=bad), start=1):
            rtype = data.get("type")
            key = rtype if isinstance(rtype, str) and rtype else NO_TYPE
            by_type[key].append(Rec(data, base, f"{name}#{n}"))
            total += 1
    return by_type, total


def make_env() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda v, digits=3: "–" if v is None else (f"{v:.{digits}g}" if isinstance(v, float)
                                                                      else str(v))
    return env


def stand_in_counts(by_type: dict[str, list[Rec]]) -> dict[str, int]:
    """Record type -> how many of its records say they were made through a stand-in (`"backend": "stand-in"`)."""
    counts = {t: sum(r.data.get(provenance.FIELD) == provenance.STAND_IN for r in recs) for t, recs in by_type.items()}
    return {t: n for t, n in sorted(counts.items()) if n}


def write_filter_index(out: Path, section: Section, names: list[str], page_size: int) -> str:
    """OUT/SLUG.index.json: every item's filter values and page, so the filters act on the whole family;
    the same data as SLUG.index.js for the pages (a page opened from file:// may load scripts, not JSON)."""
    index = {"section": section.slug, "pages": names, "filters": [f.attr for f in section.filters],
             "items": [[i // page_size, {f.attr: item.attrs.get(f.attr, "") for f in section.filters}]
                       for i, item in enumerate(section.items)]}
    text = json.dumps(index, separators=(",", ":"), sort_keys=True)
    (out / f"{section.slug}.index.json").write_text(text + "\n", encoding="utf-8")
    (out / f"{section.slug}.index.js").write_text(f"window.REASON_INDEX = {text};\n", encoding="utf-8")
    return f"{section.slug}.index.js"


def page_names(slug: str, count: int) -> list[str]:
    return [f"{slug}.html" if i == 0 else f"{slug}-{i + 1}.html" for i in range(max(count, 1))]


def build_site(paths: list[str], out: str | Path, *, page_size: int = 200, skip_bad: bool = False,
               force: bool = False, title: str = "reason view") -> BuildSummary:
    out = Path(out)
    bad = BadLines()
    by_type, total = read_all(paths, skip_bad, bad)  # every input is read before anything is written
    prepare_out(out, force)
    out.mkdir(parents=True, exist_ok=True)
    env = make_env()
    ctx = Context(env=env, media=Media(out))
    sections: list[Section] = []
    claimed: set[str] = set()
    fallbacks: list[str] = []
    for family in FAMILIES:
        records = {t: by_type[t] for t in family.types if t in by_type}
        if not records:
            continue
        try:
            sections.extend(family.build(ctx, records))
        except Exception as exc:  # noqa: BLE001 - records of a known type with unexpected fields: never fail the build
            fallbacks.append(f"{family.slug}: {type(exc).__name__}: {exc}"[:300])
            continue
        claimed.update(records)
    rest = {t: recs for t, recs in sorted(by_type.items()) if t not in claimed}
    other_sections = other.build(ctx, rest) if rest else []

    nav = [{"slug": s.slug, "title": s.title, "href": page_names(s.slug, 1)[0]} for s in sections]
    if other_sections:
        nav.append({"slug": "other", "title": "other", "href": "index.html#other"})
    stand_in = stand_in_counts(by_type)
    common = {"site_title": title, "nav": nav}
    pages = 0
    listed = []
    for section in sections + other_sections:
        chunks = [section.items[i:i + page_size] for i in range(0, len(section.items), page_size)] or [[]]
        names = page_names(section.slug, len(chunks))
        current = "other" if section in other_sections else section.slug
        index_js = write_filter_index(out, section, names, page_size) if section.filters else None
        demo = sum(stand_in.get(t, 0) for t in section.counts)
        for number, (name, chunk) in enumerate(zip(names, chunks, strict=True), start=1):
            html = env.get_template("section.html.j2").render(
                **common, title=section.title, current=current, header=section.header, filters=section.filters,
                note=section.note, items=chunk, page=number, pages=names, index_js=index_js, stand_in=demo)
            (out / name).write_text(html, encoding="utf-8")
            pages += 1
        listed.append((section, names))

    summary = BuildSummary(out=str(out), files=[str(p) for p in paths], records=total,
                           by_type={t: len(v) for t, v in sorted(by_type.items())}, pages=pages + 1,
                           bad_lines=bad.count, bad_examples=bad.examples,
                           missing_images=len(ctx.media.missing), missing_examples=ctx.media.missing[:5],
                           fallbacks=fallbacks, stand_in=stand_in)
    index_sections = [{"title": s.title, "href": names[0], "counts": s.counts, "pages": len(names),
                       "stand_in": sum(stand_in.get(t, 0) for t in s.counts)}
                      for s, names in listed if s not in other_sections]
    other_rows = [{"type": t, "count": n, "href": names[0], "first": s.note}
                  for s, names in listed if s in other_sections for t, n in s.counts.items()]
    index = env.get_template("index.html.j2").render(
        **common, title="index", current="index", summary=summary, sections=index_sections, other=other_rows,
        stand_in=sum(stand_in.values()))
    (out / "index.html").write_text(index, encoding="utf-8")
    shutil.copytree(HERE / "static", out / STATIC, dirs_exist_ok=True)
    (out / MARKER).write_text(json.dumps(summary.record(), indent=1) + "\n", encoding="utf-8")
    return summary
