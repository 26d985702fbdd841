"""`reason dsg` as a user runs it: generate, answer by schema grounding, evaluate, through pipes."""

import json

from tests.dsg.conftest import cli, split, tiny_dsg_vlm  # noqa: F401 - fixtures


def test_gen_run_eval_pipeline(reason, cli, tmp_path, tiny_dsg_vlm):  # noqa: F811
    va = tmp_path / "va"
    # tic-tac-toe: its composer answers within the options whatever a random-weight model grounds (a run in which
    # no answer names an option exits 1)
    res = reason("dsg", "gen", "--concepts", "tictactoe", "--n", "3", "--styles", "heldout", "--out", str(va),
                 "--export", "llava", str(tmp_path / "llava.json"))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["items"] == 3 and (va / "images").is_dir()
    llava = json.loads((tmp_path / "llava.json").read_text())
    assert llava[0]["conversations"][0]["value"].startswith("<image>\nImagine that the image represents tic tac toe")
    # (the model run in this process: loading torch once keeps the test short)
    code, out, err = cli("dsg", "run", "--items", str(va / "items.jsonl"), "--model", str(tiny_dsg_vlm),
                         "--mode", "dsg")
    assert code == 0, err
    ev = reason("dsg", "eval", "--pred", "-", "--gold", str(va / "items.jsonl"), "--json", input=out)
    assert ev.returncode == 0, ev.stderr
    result = json.loads(ev.stdout)
    assert result["type"] == "dsg.eval" and result["n"] == 3 and 0.0 <= result["accuracy"] <= 1.0


def test_schema_extraction_from_the_stand_in_is_labelled(reason, tmp_path):
    out = tmp_path / "kitchen.schema.json"
    res = reason("dsg", "schema", "--concept", "kitchen", "--llm", "py:toolkit.dsg.standin:schema_llm", "-o", str(out))
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    assert doc["concept"] == "kitchen" and [n["id"] for n in doc["nodes"]] == ["parts", "arrangement", "states"]
    assert doc["backend"] == "stand-in"
    assert "pipeline demo, not a model result" in res.stderr
