"""Records made through a deterministic stand-in carry "backend": "stand-in", through files, replays and workers."""

import json
from pathlib import Path

from toolkit.core import provenance
from toolkit.core.llm import from_uri
from toolkit.core.records import RecordWriter, make_record, read_records

ROOT = Path(__file__).resolve().parents[2]
GAMA_STANDIN = "py:toolkit.gama.standin:respond"
PLAY = ("gama", "play", "guess", "-P", "llm*2,equilibrium", "-n", "4", "-r", "2")


def lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_py_backend_labels_what_the_process_writes(tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    with RecordWriter(out) as w:
        w.write(make_record("x.before", 1))
    assert provenance.stand_in_source() is None
    backend = from_uri(GAMA_STANDIN)
    assert backend.stand_in and provenance.stand_in_source() == GAMA_STANDIN
    provenance.announce()
    assert capsys.readouterr().err.strip() == f"note: answers come from a deterministic stand-in ({GAMA_STANDIN}): " \
        "pipeline demo, not a model result"
    with RecordWriter(out, append=True) as w:
        w.write(make_record("x.after", 1, value=3))
    recs = lines(out.read_text())
    assert "backend" not in recs[0] and recs[1] == {"type": "x.after", "schema": 1, "value": 3, "backend": "stand-in"}


def test_a_callable_can_declare_itself_not_a_stand_in():
    from toolkit.core.llm.function import load_function

    def real(messages, **kw):
        return ["ok"]

    real.stand_in = False
    import types

    module = types.ModuleType("fake_real_backend")
    module.real = real
    import sys

    sys.modules["fake_real_backend"] = module
    try:
        assert load_function("fake_real_backend:real").stand_in is False
        from_uri("py:fake_real_backend:real")
        assert provenance.stand_in_source() is None
    finally:
        del sys.modules["fake_real_backend"]


def test_reading_a_labelled_record_labels_the_reader(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"type": "x", "schema": 1, "backend": "stand-in"}) + "\n")
    assert provenance.stand_in_source() is None
    list(read_records(src))
    assert provenance.stand_in_source() == str(src)


def test_cli_stand_in_replay_and_report_carry_the_label(reason, tmp_path):
    rec = tmp_path / "rec.jsonl"
    direct = reason(*PLAY, "--llm", GAMA_STANDIN, "--record", str(rec))
    assert direct.returncode == 0, direct.stderr
    assert "not a model result" in direct.stderr
    results = lines(direct.stdout)
    assert results and all(r["backend"] == "stand-in" for r in results)
    assert all(r["backend"] == "stand-in" for r in lines(rec.read_text()))  # the recording says where it came from
    replayed = reason(*PLAY, "--llm", f"replay:{rec}")
    assert replayed.returncode == 0, replayed.stderr
    again = lines(replayed.stdout)
    for r in results + again:
        r.pop("llm", None)
    assert again == results  # the replay of a stand-in recording is labelled like the stand-in's own run
    out = tmp_path / "results.jsonl"
    out.write_text(replayed.stdout)
    report = reason("gama", "report", str(out))
    assert report.returncode == 0, report.stderr
    notices = [line for line in report.stderr.splitlines() if "not a model result" in line]
    assert len(notices) == 1 and str(out) in notices[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(replayed.stdout.splitlines()[0] + "\n{not json\n")
    failed = reason("gama", "report", str(bad))
    assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1  # an error stays one line


def test_strategies_without_llm_carry_no_label(reason):
    played = reason(*PLAY[:3], "-P", "equilibrium*2,random", "-n", "3", "-r", "2")
    assert played.returncode == 0, played.stderr
    assert all("backend" not in r for r in lines(played.stdout)) and "stand-in" not in played.stderr
