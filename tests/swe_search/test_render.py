from toolkit.swe_search.render import tree_problem


def _node(i, children=()):
    return {"id": i, "reward": 0, "value": 0.5, "visits": 1, "children": list(children)}


def test_tree_problem_names_what_is_wrong():
    assert tree_problem({"nodes": [_node(0, [1]), _node(1)]}) is None
    assert tree_problem({}) == "no field 'nodes'"
    assert tree_problem({"nodes": [{"id": 0}]}) == "nodes[0]: field 'reward' missing or not a number"
    assert tree_problem({"nodes": ["x"]}) == "nodes[0] is not an object"
    assert tree_problem({"nodes": [_node(1)]}) == "no root node (id 0)"
    assert tree_problem({"nodes": [_node(0, [7])]}) == "node 0: child 7 is not a node"
    assert tree_problem({"nodes": [_node(0, [1]), _node(1, [0])]}) == "node 0 is reached twice (not a tree)"


def test_show_malformed_tree_is_one_line(reason, tmp_path):
    bad = tmp_path / "t.jsonl"
    bad.write_text('{"type": "swe.tree", "schema": 1, "instance_id": "x", "nodes": [{"id": 0}]}\n')
    res = reason("swe-search", "show", str(bad))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert "swe.tree record for x: nodes[0]: field 'reward' missing or not a number" in res.stderr


def test_labels_mark_chosen_and_duplicate_nodes():
    from toolkit.swe_search.render import _label

    node = {**_node(2), "action": {"name": "view_code", "args": {"path": "m.py"}}, "duplicate_of": 1}
    text = _label(node, chosen=2, width=40)
    assert "#2 view_code" in text and "<= chosen" in text and "(duplicate of #1)" in text
    assert "duplicate" not in _label({**node, "duplicate_of": -1}, chosen=None, width=40)
