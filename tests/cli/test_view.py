"""`reason view` end to end through the real executable: the summary record, bad input, the --out rules."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KV = ROOT / "assets" / "kvcompress" / "eval-1k.jsonl"
GAMA = ROOT / "assets" / "gama" / "expected.jsonl"


def test_builds_a_site_and_prints_one_summary_record(reason, tmp_path):
    out = tmp_path / "site"
    res = reason("view", str(KV), str(GAMA), "--out", str(out), "--title", "my runs")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["type"] == "view.site" and rec["schema"] == 1
    assert rec["by_type"] == {"gama.result": 8, "gama.summary": 1, "kvcompress.eval": 21}
    assert rec["records"] == 30 and rec["pages"] == 3
    assert "30 record(s)" in res.stderr and "index.html" in res.stderr
    index = (out / "index.html").read_text()
    assert "<title>index · my runs</title>" in index and 'href="gama.html"' in index


def test_reads_stdin_and_skips_bad_lines_when_asked(reason, tmp_path):
    text = KV.read_text().splitlines()
    data = "\n".join([text[0], "{not json", text[1], "[1, 2]"]) + "\n"
    strict = reason("view", "-", "--out", str(tmp_path / "a"), input=data)
    assert strict.returncode == 2 and strict.stdout == ""
    assert strict.stderr.strip() == "error: <stdin>:2: malformed JSON: Expecting property name enclosed in " \
                                    "double quotes"
    assert not (tmp_path / "a").exists()  # nothing written before every input was read
    lenient = reason("view", "-", "--out", str(tmp_path / "b"), "--skip-bad", input=data)
    assert lenient.returncode == 0, lenient.stderr
    rec = json.loads(lenient.stdout)
    assert rec["bad_lines"] == 2 and rec["records"] == 2
    assert "skipped 2 malformed line(s)" in lenient.stderr and "<stdin>:4" in lenient.stderr
    assert "2 malformed line(s) skipped" in (tmp_path / "b" / "index.html").read_text()


def test_out_rules_and_input_errors_are_one_line_exit_2(reason, tmp_path):
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "todo.txt").write_text("keep me")
    cases = [
        ((str(KV), "--out", str(foreign)), "not empty and holds no earlier site; use --force"),
        ((str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "s")), "nope.jsonl: no such file"),
        ((str(tmp_path), "--out", str(tmp_path / "s")), "is a directory"),
        ((str(KV), "--out", str(foreign / "todo.txt")), "is a file, expected a folder"),
        ((str(KV), "--page-size", "0"), "--page-size"),
    ]
    for args, message in cases:
        res = reason("view", *args)
        assert res.returncode == 2, (args, res.stderr)
        assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert res.stdout == ""
    assert [p.name for p in foreign.iterdir()] == ["todo.txt"]
    forced = reason("view", str(KV), "--out", str(foreign), "--force")
    assert forced.returncode == 0 and (foreign / "todo.txt").read_text() == "keep me"
    again = reason("view", str(GAMA), "--out", str(foreign))  # now an earlier site: rebuilt in place
    assert again.returncode == 0 and not (foreign / "kvcompress.html").exists() and (foreign / "gama.html").exists()


def test_help_has_an_example(reason):
    res = reason("view", "--help")
    assert res.returncode == 0 and "Example: reason view" in res.stdout + res.stderr


def test_help_states_where_relative_images_are_looked_for(reason):
    res = reason("view", "--help", env={"COLUMNS": "400"})
    text = " ".join((res.stdout + res.stderr).replace("│", " ").split())
    rule = "under the record's `dir` field, then in the folder of the record file, then in the current directory"
    assert rule in text
