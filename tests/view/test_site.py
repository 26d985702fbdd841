"""The site built from real records of every family: pages, dispatch, filters' data, images, no network."""

from __future__ import annotations

import json
import re

import pytest

from tests.view.conftest import WRONG_SAMPLE
from toolkit.core.errors import InputError
from toolkit.view import build_site
from toolkit.view.site import MARKER

FAMILY_PAGES = {"failgen.html", "swe.html", "gama.html", "sql.html", "kvcompress.html", "steer.html"}


def page(out, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


def items(html: str) -> list[str]:
    return re.findall(r'<div class="item"[^>]*>', html)


def test_index_lists_every_type_with_counts(site):
    out, summary = site
    index = page(out, "index.html")
    for rtype, count in summary.by_type.items():
        assert f'data-type="{rtype}"' in index, rtype
        row = re.search(rf'data-type="{re.escape(rtype)}">.*?class="num">(\d+)<', index, re.S)
        assert row and int(row.group(1)) == count, rtype
    assert {"failgen.episode", "aha.sample", "aha.verdict", "swe.tree", "swe.prediction", "gama.round",
            "gama.result", "gama.summary", "sql.prediction", "sql.eval", "kvcompress.eval", "steer.sweep",
            "future.thing", "microtheory.relevance"} <= set(summary.by_type)
    assert FAMILY_PAGES <= {p.name for p in out.glob("*.html")}
    assert (out / "other-future.thing.html").exists() and (out / MARKER).exists()
    assert summary.missing_images == 0 and summary.bad_lines == 0


def test_pages_reference_nothing_outside_the_site(site):
    out, _ = site
    for path in [*out.glob("*.html"), *out.glob("static/*")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9]", text, re.I), path.name
        if path.suffix == ".html":
            assert "default-src 'none'" in text
            for ref in re.findall(r'(?:src|href)="([^"]+)"', text):
                assert (out / ref.split("#")[0]).exists(), (path.name, ref)


def test_failgen_gallery_marks_the_wrong_verdict_and_copies_images(site):
    out, _ = site
    html = page(out, "failgen.html")
    cards = items(html)
    assert len(cards) == 3  # nominal, grasp, slip episodes; their samples sit inside the cards
    wrong = [c for c in cards if 'data-verdict="wrong"' in c]
    assert len(wrong) == 1 and 'data-mode="grasp"' in wrong[0]
    assert sum('data-verdict="correct"' in c for c in cards) == 2
    assert "detector right on <strong>4 of 5</strong>" in html
    assert html.count("✗ wrong") == 1 and WRONG_SAMPLE in html
    assert html.count('class="frame"') == 3 * 7 * 3  # 3 episodes x 7 keyframes x 3 views
    assert len(re.findall(r'<img src="media/[^"]+front.gif"', html)) == 3 and "missing image" not in html
    assert '<option value="grasp">' in html and '<option value="wrong">' in html
    images = re.findall(r'<img src="(media/[^"]+)"', html)
    assert images and all((out / src).stat().st_size > 0 for src in images)


def test_search_tree_highlights_the_chosen_node_and_opens_its_path(site):
    out, _ = site
    html = page(out, "swe.html")
    assert len(items(html)) == 3  # two trees, one prediction without a tree
    clamp = html[html.index("mini__clamp-1"):html.index("mini__inventory-1")]
    chosen = re.search(r'<details class="node kind-\w+ chosen" data-node="(\d+)" open>', clamp)
    assert chosen and chosen.group(1) == "7"
    assert re.search(r'data-node="1" open>', clamp) and re.search(r'data-node="2">', clamp)  # off-path: closed
    assert "reward 100 · value 100 · visits 1 · tests 5/5" in clamp
    assert clamp.count('<span class="add">') >= 1 and "test_clamp" in clamp
    assert 'data-resolved="false"' in html and 'data-resolved="true"' in html


def test_game_runs_plot_every_seat_and_rank_the_leaderboard(site, record_files):
    out, _ = site
    html = page(out, "gama.html")
    guess = html[html.index("random*2,best-response"):]
    chart = guess[guess.index("<svg"):guess.index("</svg>")]
    assert chart.count("<polyline") == 4 and chart.count("<circle") == 4 * 5
    board = html[html.index("leaderboard"):html.index("runs</h2>")]
    summary = next(r for r in map(json.loads, record_files["gama_summary"].read_text().splitlines())
                   if r["type"] == "gama.summary")
    shipped = f"{summary['overall']:.2f}"
    assert summary["overall"] > 73.35 and board.index("llm*2,equilibrium") < board.index("random*2,best-response")
    assert shipped in board and "73.35" in board


def test_sql_questions_group_candidates_and_mark_wrong_ones(site):
    out, _ = site
    html = page(out, "sql.html")
    cards = items(html)
    assert len(cards) == 3
    assert sum('data-result="wrong"' in c for c in cards) == 2 and sum('data-result="right"' in c for c in cards) == 1
    assert html.count('<span class="badge chosen">chosen</span>') == 3
    assert "result cluster(s) of 21 candidate(s)" in html and "most pairwise wins" in html


def test_charts_for_kv_budgets_and_steering_alpha(site):
    out, _ = site
    kv = page(out, "kvcompress.html")
    assert kv.count("<svg") == 1 and kv.count("<polyline") == 6  # 5 compressed methods + the full cache line
    steer = page(out, "steer.html")
    assert steer.count("<svg") == 3 * 2  # accuracy, KL, entropy for the validation and test sweeps
    assert "KL(P0 || Palpha), nats vs alpha" in steer


def test_unknown_types_render_as_json_trees(site):
    out, _ = site
    html = page(out, "other-future.thing.html")
    assert len(items(html)) == 2 and 'class="jkey">leaf<' in html and "name=alpha" in html
    assert '<details class="jlong">' in html  # the 300-character string folds
    index = page(out, "index.html")
    assert "other-future.thing.html" in index and "name=alpha" in index


def test_pagination_missing_images_and_determinism(record_files, tmp_path):
    samples = record_files["samples"].read_text().splitlines()
    broken = tmp_path / "samples.jsonl"
    broken.write_text("\n".join(samples).replace("grid_0.png", "gone.png") + "\n")
    files = [str(record_files["verdicts"]), str(broken)]
    summary = build_site(files, tmp_path / "a", page_size=1)
    assert summary.missing_images == 3  # each episode's first sample
    # no episode records: each of the 5 samples is its own gallery item, one a page
    assert (tmp_path / "a" / "failgen-5.html").exists() and not (tmp_path / "a" / "failgen-6.html").exists()
    first = (tmp_path / "a" / "failgen.html").read_text()
    assert 'href="failgen-5.html"' in first and "missing image" in first
    assert "3 missing image(s)" in (tmp_path / "a" / "index.html").read_text()
    build_site(files, tmp_path / "b", page_size=1)
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file() and path.name != MARKER:
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path


def test_out_folder_rules(record_files, tmp_path):
    files = [str(record_files["kv"])]
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty.*--force"):
        build_site(files, foreign)
    assert sorted(p.name for p in foreign.iterdir()) == ["keep.txt"]
    build_site(files, foreign, force=True)
    assert (foreign / "keep.txt").read_text() == "mine" and (foreign / "kvcompress.html").exists()
    site = tmp_path / "site"
    build_site(files + [str(record_files["steer"])], site)
    build_site(files, site)  # an earlier site is replaced without --force
    assert not (site / "steer.html").exists() and (site / "kvcompress.html").exists()


def test_known_types_with_unexpected_fields_fall_back_to_json(tmp_path):
    bad = tmp_path / "odd.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in [
        {"type": "swe.tree", "schema": 1, "instance_id": "x", "nodes": "not a list", "chosen_node": 3},
        {"type": "gama.result", "schema": 1, "game": "guess", "seats": 5, "score": "high"},
        {"type": "aha.sample", "schema": 1, "sample_id": 7},
    ]) + "\n")
    summary = build_site([str(bad)], tmp_path / "site")
    assert summary.records == 3
    pages = {p.name for p in (tmp_path / "site").glob("*.html")}
    assert {"swe.html", "failgen.html"} <= pages  # tolerated: an empty tree, a sample without fields
    # `seats` is a number: the game family cannot draw it, so its records show as JSON, and the index says why
    assert "gama.html" not in pages and "other-gama.result.html" in pages
    assert len(summary.fallbacks) == 1 and summary.fallbacks[0].startswith("gama: TypeError")
    assert "fields not as expected" in (tmp_path / "site" / "index.html").read_text()


def test_steer_choice_is_shown_with_its_sweep(site, record_files):
    out, summary = site
    steer = page(out, "steer.html")
    assert summary.by_type["steer.choice"] == 1 and not (out / "other-steer.choice.html").exists()
    assert steer.count("chosen on validation") == 2  # beside the validation and the test sweep of its family
    choice = next(json.loads(line) for line in record_files["steer"].read_text().splitlines()
                  if '"steer.choice"' in line)
    assert f"chosen on validation: layer {choice['layer']}, alpha {choice['alpha']:.3g}" in steer


def test_stand_in_records_mark_every_page_they_are_on(record_files, tmp_path):
    def demo(name: str) -> str:  # the records as a run through a stand-in writes them
        recs = [json.loads(line) for line in record_files[name].read_text().splitlines()]
        return str(write_lines_(tmp_path / f"demo-{name}.jsonl", [{**r, "backend": "stand-in"} for r in recs]))

    files = [demo("gama"), str(record_files["episodes"]), str(record_files["samples"]), demo("verdicts"),
             str(record_files["kv"])]
    summary = build_site(files, tmp_path / "site", page_size=1)
    assert set(summary.stand_in) == {t for t in summary.by_type if t.startswith("gama.")} | {"aha.verdict"}
    marked = sorted((tmp_path / "site").glob("gama*.html")) + sorted((tmp_path / "site").glob("failgen*.html"))
    assert len(marked) == 1 + 3
    for p in marked:  # the leaderboard, and every page of the gallery
        assert 'id="stand-in"' in p.read_text() and "pipeline demo, not a model result" in p.read_text(), p
    assert 'id="stand-in"' not in page(tmp_path / "site", "kvcompress.html")
    assert "stand-in-tag" in page(tmp_path / "site", "index.html")


def write_lines_(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_relative_images_are_tried_beside_the_record_file_then_in_the_current_directory(record_files, tmp_path,
                                                                                       monkeypatch):
    samples = [json.loads(line) for line in record_files["samples"].read_text().splitlines()]
    run = record_files["samples"].parent
    moved = []
    for s in samples:  # paths relative to the folder above the run, no `dir`: as a command run there wrote them
        s = {k: v for k, v in s.items() if k != "dir"}
        s["image"] = f"{run.name}/{s['image']}"
        moved.append(s)
    listing = tmp_path / "lists" / "samples.jsonl"
    listing.parent.mkdir()
    write_lines_(listing, moved)
    monkeypatch.chdir(tmp_path)
    assert build_site([str(listing)], tmp_path / "a").missing_images == len(moved)  # neither beside it nor here
    monkeypatch.chdir(run.parent)
    assert build_site([str(listing)], tmp_path / "b").missing_images == 0  # found from the current directory
    write_lines_(run.parent / "samples-here.jsonl", moved)  # beside the record file wins
    monkeypatch.chdir(tmp_path)
    assert build_site([str(run.parent / "samples-here.jsonl")], tmp_path / "c").missing_images == 0


def test_filter_index_lists_every_item_of_the_family_with_its_page(record_files, tmp_path):
    files = [str(record_files[k]) for k in ("episodes", "samples", "verdicts")]
    build_site(files, tmp_path / "s", page_size=1)
    index = json.loads((tmp_path / "s" / "failgen.index.json").read_text())
    assert index["pages"] == ["failgen.html", "failgen-2.html", "failgen-3.html"]
    assert [p for p, _ in index["items"]] == [0, 1, 2] and set(index["filters"]) >= {"mode", "verdict"}
    values = {p: v for p, v in index["items"]}
    html = [page(tmp_path / "s", name) for name in index["pages"]]
    for p, v in values.items():  # the index says what the page's item carries
        for attr, value in v.items():
            assert f'data-{attr}="{value}"' in html[p]
    assert [v["mode"] for v in values.values() if v["verdict"] == "wrong"] == ["grasp"]
    assert 'src="failgen.index.js"' in html[1]
