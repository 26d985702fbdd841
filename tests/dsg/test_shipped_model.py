import pytest

from tests.dsg.conftest import ROOT

EXAMPLES = ROOT / "assets" / "dsg" / "examples"


@pytest.mark.xfail(strict=True, reason="target 0.9 missed: the shipped model (3,239 steps, 8.8 epochs in a 25-minute "
                   "run on one core) measures 0.518 on these questions, at the majority-answer rate on most node "
                   "types; see assets/dsg/README.md")
def test_shipped_model_grounds_the_example_primitives():
    """The shipped primitive model on the 168 primitive questions of the train-style examples (fresh seed 20000)."""
    from toolkit.core.vlm import load_vlm
    from toolkit.dsg.data import read_primitives
    from toolkit.dsg.train import accuracy_by_kind, examples_from

    rows = examples_from(read_primitives(EXAMPLES / "train" / "primitives.jsonl"), None)
    acc = accuracy_by_kind(load_vlm(ROOT / "assets" / "dsg" / "model", device="cpu"), rows)
    overall = sum(a * n for a, n in acc.values()) / sum(n for _, n in acc.values())
    assert overall >= 0.9, acc
