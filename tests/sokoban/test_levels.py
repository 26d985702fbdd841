"""Boxoban text round-trips byte for byte; every malformed level is a one-line error naming file:line."""

from __future__ import annotations

import pytest

from toolkit.core.errors import InputError
from toolkit.sokoban.levels import format_levels, parse_text, read_levels

BOXOBAN = ("; 0\n##########\n#        #\n#  $ .   #\n#   @    #\n#        #\n#  *     #\n#        #\n"
           "# $     .#\n#        #\n##########\n\n; 1\n##########\n#@ $ .   #\n#        #\n#        #\n"
           "#        #\n#        #\n#        #\n#        #\n#        #\n##########\n\n")


def test_boxoban_round_trip_is_byte_identical(tmp_path, gen_levels):
    lv = parse_text(BOXOBAN, "x")
    assert [x.id for x in lv] == ["0", "1"]
    text = format_levels(lv)
    assert text == BOXOBAN
    assert format_levels(parse_text(text, "y")) == text
    generated = format_levels([g for g, _, _ in gen_levels])
    path = tmp_path / "g.txt"
    path.write_bytes(generated.encode())
    assert format_levels(read_levels(str(path))).encode() == path.read_bytes()


def test_player_on_target_and_box_on_target_parse():
    text = "; p\n######\n#+$  #\n#*$. #\n######\n\n"
    (lv,) = parse_text(text, "p")
    assert lv.player == (0, 0) and lv.targets[0, 0] and lv.boxes[1, 0] and lv.targets[1, 0]
    assert format_levels([lv]) == text


@pytest.mark.parametrize("rows, message", [
    ("#####\n#@$.#\n####\n", "non-rectangular"),
    ("#####\n#@$x#\n#####\n", "unknown character 'x'"),
    ("#####\n# $.#\n#####\n", "0 agents"),
    ("######\n#@$.@#\n######\n", "2 agents"),
    ("######\n#@$$.#\n######\n", "2 boxes but 1 targets"),
    ("#####\n @$.#\n#####\n", "open border"),
])
def test_bad_levels_name_file_and_line(tmp_path, rows, message):
    path = tmp_path / "bad.txt"
    path.write_text("; ok\n#####\n#@$.#\n#####\n\n; bad\n" + rows)
    with pytest.raises(InputError) as err:
        read_levels(str(path))
    assert message in str(err.value) and f"{path}:7" in str(err.value)
    from toolkit.core.records import BadLines

    bad = BadLines()
    kept = read_levels(str(path), skip_bad=True, bad=bad)
    assert len(kept) == 1 and bad.count == 1


def test_jsonl_levels(tmp_path, gen_levels):
    import json

    from toolkit.sokoban.levels import level_record

    path = tmp_path / "l.jsonl"
    path.write_text("".join(json.dumps(level_record(g)) + "\n" for g, _, _ in gen_levels[:3]))
    got = read_levels(str(path))
    assert [x.text() for x in got] == [g.text() for g, _, _ in gen_levels[:3]]
