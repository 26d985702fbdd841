"""The pieces the pages are made of: labels, seat actions, SQL clusters, tree nesting, chart axes, JSON trees."""

from __future__ import annotations

import re

from toolkit.view.families.failgen import judge, label_of
from toolkit.view.families.gama import leaderboard, seat_actions
from toolkit.view.families.sql import clusters
from toolkit.view.families.swe import nest
from toolkit.view.jsontree import first_fields, tree
from toolkit.view.svg import Series, line_chart


def test_labels_and_judging_follow_the_word_before_the_first_comma():
    assert label_of("No, the gripper slipped.") == "No" and label_of(" yes") == "Yes"
    assert label_of("Maybe, hard to say") is None and label_of("") is None and label_of(None) is None
    sample = {"label": "No", "answer": "No, the cube fell."}
    assert judge({"label": "No", "raw": "No, dropped"}, sample)["right"] is True
    assert judge({"label": None, "raw": "unclear"}, sample)["right"] is False
    assert judge({"label": "Yes"}, None)["right"] is None  # no sample, no reference: no gold
    assert judge({"label": "Yes", "reference": "Yes"}, None)["right"] is True


def test_seat_actions_pick_the_per_seat_field_of_each_game():
    assert seat_actions({"choices": [3, 76, 33], "payoffs": [0, 0, 1]}, 3) == ("choices", [3.0, 76.0, 33.0])
    assert seat_actions({"go": [True, False], "go_ratio": 0.5}, 2) == ("go", [1.0, 0.0])
    assert seat_actions({"proposer": 0, "plan": [5, 3], "payoffs": [5.0, 3.0, 0.0]}, 3) == \
        ("payoffs", [5.0, 3.0, 0.0])  # pirate: the plan is not one value per seat
    assert seat_actions({"winner": 1}, 2) is None


def test_leaderboard_ranks_summaries_and_result_runs_together():
    results = [{"players": "a", "game": "guess", "score": 50.0}, {"players": "a", "game": "guess", "score": 70.0},
               {"players": "a", "game": "bar", "score": 90.0}, {"players": "b", "game": "guess", "score": 1.0}]
    games, rows = leaderboard(results, [{"players": "b", "games": {"guess": 99.0}, "overall": 99.0}])
    assert games == ["bar", "guess"]
    assert [(r["players"], r["overall"]) for r in rows] == [("b", 99.0), ("a", 75.0)]  # mean of 60 and 90


def test_sql_clusters_put_the_chosen_cluster_first():
    cands = [{"sql": "a", "cluster": 0, "score": 1}, {"sql": "b", "cluster": 1, "score": 4},
             {"sql": "c", "cluster": 0, "score": 2}, {"sql": "d", "cluster": 2, "score": 0}]
    groups = clusters(cands, 1)
    assert [g["cluster"] for g in groups] == [1, 0, 2]
    assert groups[0]["has_chosen"] and groups[0]["members"][0]["chosen"]
    assert [m["index"] for m in groups[1]["members"]] == [0, 2] and groups[1]["wins"] == 2


def test_tree_nesting_opens_the_path_to_the_chosen_node_only():
    nodes = [{"id": 0, "parent": -1, "children": [1, 2]}, {"id": 1, "parent": 0, "children": [3]},
             {"id": 2, "parent": 0, "children": []}, {"id": 3, "parent": 1, "children": [],
                                                     "action": {"name": "finish", "args": {"x": 1}}}]
    root = nest(nodes, 3)
    assert root["open"] and root["kids"][0]["open"] and not root["kids"][1]["open"]
    leaf = root["kids"][0]["kids"][0]
    assert leaf["chosen"] and leaf["name"] == "finish" and leaf["args"] == '{"x": 1}'
    assert nest([{"id": 5, "parent": 4}], None) is None


def test_chart_axes_stay_readable_for_flat_and_tight_series():
    flat = str(line_chart([Series("acc", [-1, 0, 1], [0.487, 0.487, 0.487])], title="t", x_label="a", y_label="b"))
    ticks = re.findall(r'class="tick" text-anchor="end">([^<]+)<', flat)
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks)  # distinct labels even for a flat line
    tight = str(line_chart([Series("h", [0, 1], [1.0171, 1.0175])], title="t", x_label="a", y_label="b"))
    labels = re.findall(r'class="tick" text-anchor="end">([^<]+)<', tight)
    assert len(set(labels)) == len(labels) >= 2
    gap = str(line_chart([Series("g", [1, 2, 3, 4], [1.0, None, 2.0, 3.0])], title="t", x_label="a", y_label="b"))
    assert gap.count("<polyline") == 1 and gap.count("<circle") == 3
    assert "no data" in str(line_chart([Series("e", [1], [None])], title="t", x_label="a", y_label="b"))


def test_json_tree_escapes_and_folds():
    html = str(tree({"type": "x", "name": "<b>", "deep": {"list": [1, None, True]}, "long": "y" * 200}))
    assert "&lt;b&gt;" in html and "<b>" not in html
    assert '<span class="jnull">null</span>' in html and '<span class="jbool">true</span>' in html
    assert '<details class="jlong">' in html
    assert first_fields({"type": "x", "schema": 1, "a": "b" * 50, "n": 3}) == f"a={'b' * 40}…, n=3"
