"""Any record type without a family: one section per type, each record as a collapsible JSON tree."""

from __future__ import annotations

import re

from toolkit.view.jsontree import first_fields, tree
from toolkit.view.model import Context, Item, Rec, Section


def slug(rtype: str) -> str:
    return "other-" + (re.sub(r"[^A-Za-z0-9_.-]+", "_", rtype).strip("_.") or "record")


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    sections = []
    for rtype, recs in records.items():
        items = [Item(ctx.render("json_record.html.j2", rec=r, first=first_fields(r.data), body=tree(r.data)))
                 for r in recs]
        sections.append(Section(slug(rtype), rtype, {rtype: len(recs)}, items,
                                note=first_fields(recs[0].data)))
    return sections
