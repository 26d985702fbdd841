"""`reason failgen` end to end through the real executable."""

import json


def records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_stack_run_streams_records_writes_files_and_prints_summary(reason, tmp_path):
    out = tmp_path / "run"
    llava = tmp_path / "llava.json"
    res = reason("failgen", "--task", "stack", "--modes", "grasp,wrong_object", "--image-size", "24",
                 "--out", str(out), "--export", "llava", str(llava), "--seed", "3")
    assert res.returncode == 0, res.stderr
    recs = records(res.stdout)
    types = [r["type"] for r in recs]
    assert types.count("failgen.episode") == 3 and types.count("aha.sample") == 2 + 1 + 1
    assert {r["episode_id"] for r in recs} == {"stack-s3-nominal", "stack-s3-grasp", "stack-s3-wrong_object"}
    assert "failures by mode" in res.stderr and "wrong_object" in res.stderr
    assert (out / "episodes.jsonl").read_text().count("\n") == 3
    first = next(r for r in recs if r["type"] == "aha.sample")
    assert (out / first["image"]).exists()
    items = json.loads(llava.read_text())
    assert len(items) == 4 and items[0]["conversations"][0]["value"].startswith("<image>\n")
    again = reason("failgen", "--task", "stack", "--modes", "grasp", "--out", str(out))
    assert again.returncode == 2 and "not empty" in again.stderr and "--resume" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def test_listing_commands(reason):
    res = reason("failgen", "tasks", "--json")
    assert res.returncode == 0, res.stderr
    rows = records(res.stdout)
    assert len(rows) == 8 and {"stack", "open-drawer", "rotate"} <= {r["task"] for r in rows}
    assert all(r["type"] == "failgen.task" and r["modes"] for r in rows)
    modes = reason("failgen", "modes", "--json")
    names = [r["mode"] for r in records(modes.stdout)]
    assert len(names) == 11 and names[0] == "grasp" and names[-1] == "wrong_object"
    table = reason("failgen", "tasks")
    assert table.returncode == 0 and "stack-tower" in table.stderr


def test_bad_input_is_one_line_and_exit_2(reason, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = str(tmp_path / "o")
    cases = [
        (("--task", "juggle", "--out", out), "known tasks"),
        (("--task", "stack", "--modes", "sneeze", "--out", out), "known modes"),
        (("--task", "push", "--modes", "grasp", "--out", out), "does not apply"),
        (("--task", "stack", "--out", str(blocker / "sub")), "cannot write"),
    ]
    for args, message in cases:
        res = reason("failgen", *args)
        assert res.returncode == 2, (args, res.stderr)
        assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert res.stdout == ""


def test_help_has_examples(reason):
    for args in (("failgen", "--help"), ("failgen", "tasks", "--help"), ("failgen", "export", "--help")):
        res = reason(*args)
        assert res.returncode == 0 and "Example:" in res.stdout


def test_grid_format_options_are_checked_before_anything_is_written(reason, tmp_path):
    for args, message in ((("--grid-rows", "front,top,wrist"), "--grid-rows: front,top,wrist is not an order"),
                          (("--future", "grey"), "--future grey: unknown; known: white, trim")):
        res = reason("failgen", "--task", "stack", "--out", str(tmp_path / "o"), *args)
        assert res.returncode == 2 and message in res.stderr and "Traceback" not in res.stderr
        assert not (tmp_path / "o").exists()
