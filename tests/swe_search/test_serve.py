"""End to end against a real OpenAI-compatible server (`transformers serve` on a tiny local model)."""

import json
import os
from pathlib import Path

import pytest

from tests.support.serve import chat_model, serving_available, transformers_server

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "assets" / "swe_search" / "instances.jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not serving_available():
        if os.environ.get("CI"):
            pytest.fail("transformers[serving] is missing in CI")
        pytest.skip("transformers[serving] (fastapi, uvicorn) is not installed")
    model = chat_model(tmp_path_factory.mktemp("swe-model") / "tiny-chat")
    with transformers_server(model) as url:
        yield model, url


def test_llm_run_against_transformers_serve_writes_harness_predictions(reason, server, tmp_path):
    model, url = server
    out, trees = tmp_path / "preds.jsonl", tmp_path / "trees.jsonl"
    res = reason("swe-search", "run", "--instances", str(INSTANCES), "--instance", "bench__simple-0", "-n", "3",
                 "--debate-agents", "1", "--debate-rounds", "1", "--llm", f"openai:{model}@{url}",
                 "--out", str(out), "--trees", str(trees), "--seed", "0", "--model-name", "tiny-chat")
    assert res.returncode == 0, res.stderr
    # a SWE-bench-style reader: one row per instance, keyed by instance_id
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    preds = {r["instance_id"]: r["model_patch"] for r in rows}
    assert list(preds) == ["bench__simple-0"] and isinstance(preds["bench__simple-0"], str)
    assert {r["type"] for r in rows} == {"swe.prediction"} and rows[0]["model_name_or_path"] == "tiny-chat"
    tree = json.loads(trees.read_text())
    assert tree["type"] == "swe.tree" and tree["expansions"] >= 1
    assert not any("test_issue" in c for c in tree["agent_commands"])
