"""Render a `swe.tree` record as a rich tree on stderr."""

from __future__ import annotations

import json
from typing import Any

from rich.markup import escape
from rich.tree import Tree as RichTree

from toolkit.core.console import console

STYLE = {"root": "bold", "finish": "green", "reject": "red", "error": "yellow", "step": ""}


def _label(node: dict[str, Any], chosen: int | None, width: int) -> str:
    action = node.get("action") or {}
    args = json.dumps(action.get("args", {}), ensure_ascii=False)
    if len(args) > width:
        args = args[: width - 3] + "..."
    name = action.get("name", "start")
    mark = " [bold magenta]<= chosen[/]" if node["id"] == chosen else ""
    style = STYLE.get(node.get("kind", "step"), "")
    head = f"[{style}]#{node['id']} {escape(name)}[/]" if style else f"#{node['id']} {escape(name)}"
    return (f"{head} {escape(args)}  reward={node['reward']:g} value={node['value']:g} "
            f"visits={node['visits']}{mark}")


def render_tree(record: dict[str, Any], *, width: int = 80, details: bool = False) -> None:
    nodes = {n["id"]: n for n in record["nodes"]}
    chosen = record.get("chosen_node")
    title = (f"{record['instance_id']}  strategy={record.get('strategy')}  expansions={record.get('expansions')}  "
             f"resolved={record.get('resolved')}")
    top = RichTree(escape(title))

    def add(branch: RichTree, node_id: int) -> None:
        node = nodes[node_id]
        sub = branch.add(_label(node, chosen, width))
        if details:
            first = (node.get("observation") or "").strip().splitlines()[:1]
            if first:
                sub.add(f"[dim]obs: {escape(first[0][:width])}[/]")
            if node.get("explanation"):
                sub.add(f"[dim]why: {escape(node['explanation'][:width])}[/]")
            if node.get("feedback"):
                sub.add(f"[dim]feedback: {escape(node['feedback'][:width])}[/]")
        for child in node.get("children", []):
            add(sub, child)

    add(top, 0)
    console.print(top)
