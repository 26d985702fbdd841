"""What the families produce: sections of page items, and the context they render with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup


@dataclass
class Rec:
    """One input record and the folder of the file it came from (for relative image paths)."""

    data: dict[str, Any]
    base: Path
    where: str  # file:line, for messages

    @property
    def type(self) -> str:
        return str(self.data.get("type"))


@dataclass
class Item:
    """One entry on a page: its HTML and the values the page's filters match against."""

    html: Markup
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Filter:
    """A drop-down on the page that hides the items whose `attr` differs from the chosen value."""

    attr: str
    label: str
    values: list[str]


@dataclass
class Section:
    """One family's pages: a header shown on the first page, then items, paginated."""

    slug: str
    title: str
    counts: dict[str, int]
    items: list[Item]
    header: Markup = Markup("")
    filters: list[Filter] = field(default_factory=list)
    note: str = ""


@dataclass
class Family:
    """A group of record types rendered together; `build` turns their records into sections."""

    slug: str
    title: str
    types: tuple[str, ...]
    build: Callable[[Context, dict[str, list[Rec]]], list[Section]]


@dataclass
class Context:
    env: Environment
    media: Any  # toolkit.view.media.Media

    def render(self, template: str, **values: Any) -> Markup:
        return Markup(self.env.get_template(template).render(**values))
