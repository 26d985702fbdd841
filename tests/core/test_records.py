import json

import pytest

from toolkit.core.errors import InputError
from toolkit.core.records import (
    BadLines,
    RecordWriter,
    existing_keys,
    load_records,
    make_record,
    read_records,
)


def write_lines(path, lines):
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_round_trip(tmp_path):
    out = tmp_path / "r.jsonl"
    recs = [make_record("demo.item", id=i, text=f"t{i}", nested={"x": [1, 2]}) for i in range(3)]
    with RecordWriter(out) as w:
        w.write_all(recs)
    assert load_records(out, types=["demo.item"], required=["id"]) == recs
    assert json.loads(out.read_text().splitlines()[0])["type"] == "demo.item"


@pytest.mark.parametrize(
    "bad_line, expected",
    [
        ('{"type": "demo.item", "id": 3', ":2: malformed JSON (truncated line?)"),
        ("[1, 2]\n", ":2: expected a JSON object, got list"),
        ('{"type": "demo.item"}\n', ":2: missing field 'id'"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, bad_line, expected):
    path = write_lines(tmp_path / "in.jsonl", ['{"type": "demo.item", "id": 1}\n', bad_line])
    with pytest.raises(InputError) as err:
        load_records(path, required=["id"])
    assert str(err.value) == f"{path}{expected}" or str(err.value).startswith(f"{path}{expected}")
    assert err.value.exit_code == 2


def test_skip_bad_counts(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", ['{"type":"a","id":1}\n', "nope\n", "[]\n", '{"type":"a"}\n',
                                                '{"type":"a","id":2}\n'])
    bad = BadLines()
    got = list(read_records(path, required=["id"], skip_bad=True, bad=bad))
    assert [r["id"] for r in got] == [1, 2]
    assert bad.count == 3
    assert "in.jsonl:2" in bad.report()


def test_wrong_type_is_rejected(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", ['{"type":"other","id":1}\n'])
    with pytest.raises(InputError, match="record type 'other' is not one of: demo.item"):
        load_records(path, types=["demo.item"])


def test_resume_appends_without_duplicates(tmp_path):
    out = tmp_path / "r.jsonl"
    with RecordWriter(out) as w:
        for i in range(3):
            w.write(make_record("demo.item", id=i))
    with out.open("a") as fh:  # an interrupted writer left half a record
        fh.write('{"type": "demo.item", "id"')
    done = existing_keys(out, key=lambda r: r["id"])
    assert done == {0, 1, 2}
    with RecordWriter(out, append=True) as w:
        for i in range(5):
            if i not in done:
                w.write(make_record("demo.item", id=i))
    assert [r["id"] for r in load_records(out)] == [0, 1, 2, 3, 4]


def test_missing_and_directory_inputs(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_records(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="is a directory"):
        load_records(tmp_path)


def test_write_failure_is_one_runtime_error(tmp_path):
    from pathlib import Path

    from toolkit.core.errors import RuntimeFailure

    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    with pytest.raises(RuntimeFailure, match=r"/dev/full: write failed after 0 record\(s\) \(No space left"):
        with RecordWriter("/dev/full") as writer:
            writer.write(make_record("t.x", a=1))
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="a parent is a file"):
        RecordWriter(tmp_path / "file" / "out.jsonl")


def test_cli_write_failure_is_one_line(reason):
    from pathlib import Path

    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    out = reason("gama", "play", "guess", "-n", "3", "-r", "2", "-o", "/dev/full")
    assert out.returncode == 1
    assert out.stderr.strip() == "error: /dev/full: write failed after 0 record(s) (No space left on device)"
