"""End-to-end runs of `reason gama` (subprocess): play, bench (shipped replay, resume), sweep, report."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPLAY_ARGS = ["--players", "llm*2,equilibrium", "--n-players", "4", "--rounds", "3", "--runs", "1", "--seed", "0",
               "--no-rounds"]


def records(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_games_and_play(reason):
    listed = records(reason("gama", "games").stdout)
    assert [r["game"] for r in listed] == ["guess", "bar", "dollar", "goods", "diner", "auction", "battle", "pirate"]
    assert listed[1]["params"]["capacity"]["default"] == 0.6
    out = reason("gama", "play", "guess", "--players", "equilibrium", "--rounds", "3", "--runs", "2",
                 "-p", "ratio=1/2", "--seed", "3")
    assert out.returncode == 0, out.stderr
    recs = records(out.stdout)
    assert [r["type"] for r in recs] == ["gama.round"] * 3 + ["gama.result"] + ["gama.round"] * 3 + ["gama.result"]
    assert recs[3]["score"] == 100.0 and recs[3]["params"]["ratio"] == 0.5
    assert "Guessing" in out.stderr


def test_bench_replays_shipped_recording(reason):
    out = reason("gama", "bench", *REPLAY_ARGS, "--llm", f"replay:{ROOT / 'assets/gama/replay.jsonl'}")
    assert out.returncode == 0, out.stderr
    got = records(out.stdout)
    want = records((ROOT / "assets/gama/expected.jsonl").read_text())
    for r in got + want:
        r.pop("llm", None)
    assert got == want
    summary = got[-1]
    assert summary["type"] == "gama.summary" and len(summary["games"]) == 8 and summary["overall"] is not None
    assert "LLM decisions: 40" in out.stderr
    assert "Mixed tables" in out.stderr and "equilibrium" in out.stderr


def test_bench_resume_after_interruption(reason, tmp_path):
    args = ["gama", "bench", "--players", "fictitious", "--games", "guess,bar,battle", "--runs", "2",
            "--rounds", "5", "--seed", "1"]
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    assert reason(*args, "-o", str(full)).returncode == 0
    lines = full.read_text().splitlines(keepends=True)
    part.write_text("".join(lines[:13]) + lines[13][:20])  # two finished runs and a cut line
    again = reason(*args, "-o", str(part), "--resume")
    assert again.returncode == 0, again.stderr
    done = [r for r in records(part.read_text()) if r["type"] == "gama.result"]
    assert len(done) == 6
    rounds = [r for r in records(part.read_text()) if r["type"] == "gama.round"]
    assert len(rounds) == len([r for r in records(full.read_text()) if r["type"] == "gama.round"])
    assert sum(r["type"] == "gama.summary" for r in records(part.read_text())) == 1
    assert sorted(json.dumps(r, sort_keys=True) for r in done) == sorted(
        json.dumps(r, sort_keys=True) for r in records(full.read_text()) if r["type"] == "gama.result")


def test_sweep_workers_match_and_report_plots(reason, tmp_path):
    args = ["gama", "sweep", "--players", "best-response*5,random", "--games", "guess,bar", "--rounds", "6",
            "--seeds", "0,1", "--vary", "guess:ratio=1/2", "--vary", "bar:capacity=40%"]
    one = reason(*args, "-o", str(tmp_path / "one.jsonl"))
    two = reason(*args, "-o", str(tmp_path / "two.jsonl"), "-j", "2")
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert (tmp_path / "one.jsonl").read_text() == (tmp_path / "two.jsonl").read_text()
    recs = records((tmp_path / "one.jsonl").read_text())
    variants = {r["variant"] for r in recs if r["type"] == "gama.result"}
    assert variants == {"ratio=0.5,seed=0", "ratio=0.5,seed=1", "capacity=0.4,seed=0", "capacity=0.4,seed=1"}
    rep = reason("gama", "report", str(tmp_path / "one.jsonl"), "--plots", str(tmp_path / "plots"))
    assert rep.returncode == 0, rep.stderr
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {"guess.png", "bar.png"}
    assert (tmp_path / "plots" / "guess.png").read_bytes()[:4] == b"\x89PNG"
    summaries = records(rep.stdout)
    assert len(summaries) == 4 and all(s["type"] == "gama.summary" for s in summaries)


def test_errors_are_one_line(reason, tmp_path):
    bad = reason("gama", "play", "bar", "-p", "capcity=0.4")
    assert bad.returncode == 2 and "unknown parameter 'capcity'" in bad.stderr and "Traceback" not in bad.stderr
    nollm = reason("gama", "play", "guess", "--players", "llm*2,random", env={"REASON_LLM": ""})
    assert nollm.returncode == 2 and "--llm" in nollm.stderr
    (tmp_path / "x.jsonl").write_text('{"type": "gama.result"\n')
    broken = reason("gama", "report", str(tmp_path / "x.jsonl"))
    assert broken.returncode == 2 and "x.jsonl:1" in broken.stderr


def test_report_rejects_bad_result_records(reason, tmp_path):
    good = {"type": "gama.result", "schema": 1, "game": "guess", "players": "equilibrium", "score": 50.0,
            "trajectory": {"mean": [1.0, None]}, "invalid": 0, "llm_decisions": 0}
    cases = [({"game": "nosuch"}, "field 'game': unknown game 'nosuch'"),
             ({"score": "high"}, "field 'score': expected a number"),
             ({"trajectory": 5}, "field 'trajectory'"),
             ({"invalid": "x"}, "field 'invalid'")]
    for change, needle in cases:
        path = tmp_path / "r.jsonl"
        path.write_text(json.dumps(good) + "\n" + json.dumps({**good, **change}) + "\n")
        out = reason("gama", "report", str(path))
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip() == f"error: {path}: gama.result record 2: {needle}" or needle in out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
        skipped = reason("gama", "report", str(path), "--skip-bad")
        assert skipped.returncode == 0 and "skipped 1 bad line" in skipped.stderr
    (tmp_path / "file").write_text("")
    path.write_text(json.dumps(good) + "\n")
    out = reason("gama", "report", str(path), "--plots", str(tmp_path / "file" / "plots"))
    assert out.returncode == 2 and "--plots" in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""  # the folder is checked before any record is written


def test_import_pipes_into_report_flags_substitutions_and_bad_files_are_one_line(reason, tmp_path):
    from tests.gama.official_fixtures import write_fixtures

    root = write_fixtures(tmp_path / "raw")
    imported = reason("gama", "import", str(root))
    assert imported.returncode == 0, imported.stderr
    results = records(imported.stdout)
    assert len(results) == 11 and {r["type"] for r in results} == {"gama.result"}
    # one played run with two actions substituted for unreadable answers, piped in after the imported ones
    played = {"type": "gama.result", "schema": 1, "game": "guess", "players": "llm", "variant": "default", "run": 0,
              "seed": 0, "score": 50.0, "trajectory": {}, "invalid": 2, "llm_decisions": 6, "substituted": [2, 0]}
    rep = reason("gama", "report", input=imported.stdout + json.dumps(played) + "\n")
    assert rep.returncode == 0, rep.stderr
    summaries = records(rep.stdout)
    default = next(s for s in summaries if s["variant"] == "default" and s["players"] == "tiny")
    assert default["games"]["pirate"] == pytest.approx(50 * (200 - 9) / 200 + 40)
    assert default["overall"] == pytest.approx(sum(default["games"].values()) / 8)
    assert default["substituted_runs"] == 0
    assert next(s for s in summaries if s["players"] == "llm")["substituted_runs"] == 1
    assert "Overall" in rep.stderr and "price=second" in rep.stderr
    assert "1 of 12 runs include actions substituted at random" in rep.stderr and "guess run 0" in rep.stderr
    # one run per game: the table says so and the report warns that the official figure rests on 5
    assert "runs/game" in rep.stderr and "fewer runs than the official 5" in rep.stderr
    (root / "pirate_game" / "tiny_pirate_game_v1_2.json").write_text('{"meta": {}, "round_records": []}')
    bad = reason("gama", "import", str(root))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert "tiny_pirate_game_v1_2.json: missing key 'player_data'" in bad.stderr
    skipped = reason("gama", "import", str(root), "--skip-bad")
    assert skipped.returncode == 0 and len(records(skipped.stdout)) == 11
    assert "skipped 1 bad run file(s)" in skipped.stderr


def test_import_names_unnamed_files_and_counts_normalisations(reason, tmp_path):
    from tests.gama.official_fixtures import FIXTURES

    root = tmp_path / "raw" / "diner_dilemma"
    root.mkdir(parents=True)
    data = json.loads(json.dumps(FIXTURES["diner_dilemma/tiny_diner_dilemma_v1_1.json"]))
    data["round_records"][0]["responses"][1] = "costly_dish"
    (root / "diner_dilemma_v1_1.json").write_text(json.dumps(data))  # no model prefix, no meta.models
    out = reason("gama", "import", str(tmp_path / "raw"), "--model", "my-model")
    assert out.returncode == 0, out.stderr
    (rec,) = records(out.stdout)
    assert rec["players"] == "my-model" and rec["score"] == pytest.approx(400 / 6)
    assert [n.split(":")[0] for n in rec["normalised"]] == ["model", "answers"]
    assert "normalised 2 value(s) in 1 of 1 run(s)" in " ".join(out.stderr.split())


def test_report_tables_are_whole_at_80_columns(reason, tmp_path):
    """A terminal of 80 columns gets every header and player name whole (the columns are split instead)."""
    out = tmp_path / "fp.jsonl"
    bench = reason("gama", "bench", "--players", "fictitious*2,best-response*2", "--n-players", "4", "--rounds", "3",
                   "--runs", "1", "--seed", "0", "--no-rounds", "-o", str(out), env={"COLUMNS": "80"})
    assert bench.returncode == 0, bench.stderr
    rep = reason("gama", "report", str(out), env={"COLUMNS": "80"})
    assert rep.returncode == 0, rep.stderr
    lines = [line for line in rep.stderr.splitlines() if not line.startswith("warning:")]  # warnings: one line each
    assert "…" not in "\n".join(lines) and max(map(len, lines)) <= 80, rep.stderr
    words = ["players", "Overall", "Guessing", "Bar", "Dollar", "Goods", "Diner", "Auction", "Battle", "Pirate",
             "seat type", "fictitious*2,best-response*2", "fictitious", "best-response"]
    assert [w for w in words if not any(w in line for line in lines)] == [], rep.stderr
