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
    if isinstance(node.get("duplicate_of"), int) and node["duplicate_of"] >= 0:
        mark += f" [dim](duplicate of #{node['duplicate_of']})[/]"
    style = STYLE.get(node.get("kind", "step"), "")
    head = f"[{style}]#{node['id']} {escape(name)}[/]" if style else f"#{node['id']} {escape(name)}"
    return (f"{head} {escape(args)}  reward={node['reward']:g} value={node['value']:g} "
            f"visits={node['visits']}{mark}")


def tree_problem(record: dict[str, Any]) -> str | None:
    """What makes a swe.tree record's nodes unrenderable (None when they are fine)."""
    nodes = record.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        return "no field 'nodes'"
    ids = set()
    for i, node in enumerate(nodes):
        if not isinstance(node, dict):
            return f"nodes[{i}] is not an object"
        for key in ("id", "reward", "value", "visits"):
            if not isinstance(node.get(key), int | float) or isinstance(node.get(key), bool):
                return f"nodes[{i}]: field '{key}' missing or not a number"
        children = node.get("children", [])
        if not isinstance(children, list):
            return f"nodes[{i}]: field 'children' is not a list"
        ids.add(node["id"])
    if 0 not in ids:
        return "no root node (id 0)"
    seen: set = set()
    todo = [0]
    by_id = {n["id"]: n for n in nodes}
    while todo:
        node_id = todo.pop()
        if node_id in seen:
            return f"node {node_id} is reached twice (not a tree)"
        seen.add(node_id)
        for child in by_id[node_id].get("children", []):
            if child not in by_id:
                return f"node {node_id}: child {child!r} is not a node"
            todo.append(child)
    return None


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
