"""`reason view`: a self-contained static HTML site for browsing records (offline, no network requests)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from cli.common import SeedOpt, SkipBadOpt
from toolkit.core import console

app = typer.Typer(
    help="Browse records as a static offline site: failure galleries, search trees, game runs, SQL, charts.\n\n"
         "Example: reason view runs/fg/episodes.jsonl runs/fg/samples.jsonl verdicts.jsonl --out site",
    invoke_without_command=True,
    no_args_is_help=True,
    # a group stops reading options at its first argument by default; here options may follow the files
    context_settings={"allow_interspersed_args": True},
    subcommand_metavar="",  # no subcommands: the usage line shows the files only
)


@app.callback()
def view(
    records: Annotated[list[str], typer.Argument(
        help="Record files (JSONL, '-' for stdin), any mix of types. A relative image path is tried under the "
             "record's `dir` field, then in the folder of the record file, then in the current directory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Site folder (open OUT/index.html).")] = Path("site"),
    page_size: Annotated[int, typer.Option("--page-size", min=1, help="Items per page.")] = 200,
    title: Annotated[str, typer.Option("--title", help="Site title shown on every page.")] = "reason view",
    force: Annotated[bool, typer.Option("--force", help="Write into a non-empty folder that is not a site.")] = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
) -> None:
    """Write OUT/index.html and one page set per record family; prints one `view.site` record on stdout.

    Records are dispatched on `type`: failgen.episode / aha.sample / aha.verdict (filterable gallery),
    swe.tree / swe.prediction (collapsible search trees), gama.result / gama.round / gama.summary,
    sql.prediction / sql.eval, kvcompress.eval and steer.sweep (charts); any other type is listed
    under "other" as a JSON tree. Images are copied into OUT/media; a missing one shows a placeholder.
    A relative image path is tried under the record's `dir` field, then in the folder of the record file
    it was read from, then in the current directory. Pages built from records of a stand-in (`"backend":
    "stand-in"`) carry a badge: a pipeline demo, not a model result. Filters act on all pages of a family
    (an index of every item, OUT/SLUG.index.json, sits beside the pages) and are kept across pages.

    Example: reason view runs/fg/episodes.jsonl runs/fg/samples.jsonl verdicts.jsonl --out site
    """
    from toolkit.core.records import dumps
    from toolkit.view import build_site

    del seed  # the site is a pure function of the records; the option exists for a uniform interface
    start = time.perf_counter()
    summary = build_site(list(records), out, page_size=page_size, skip_bad=skip_bad, force=force, title=title)
    print(dumps(summary.record()), flush=True)
    if summary.bad_lines:
        console.warn(f"skipped {summary.bad_lines} malformed line(s): {'; '.join(summary.bad_examples)}")
    if summary.missing_images:
        console.warn(f"{summary.missing_images} image(s) not found, shown as placeholders: "
                     f"{'; '.join(summary.missing_examples)}")
    for message in summary.fallbacks:
        console.warn(f"shown as JSON under 'other' (fields not as expected): {message}")
    kinds = ", ".join(f"{t} {n}" for t, n in summary.by_type.items())
    console.info(f"{summary.records} record(s) ({kinds}) -> {summary.pages} page(s) in {out}/index.html "
                 f"in {time.perf_counter() - start:.1f} s")
