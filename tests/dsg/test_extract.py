import pytest

from toolkit.core.errors import RuntimeFailure
from toolkit.core.llm.function import FunctionBackend
from toolkit.dsg.extract import extract_schema

GOOD = ("Sure: p(image | concept=garden) = p(beds | concept=garden) p(plants | concept=garden, beds) "
        "p(image | beds, plants)")
CYCLE = ("p(image | concept=garden) = p(beds | concept=garden, plants) p(plants | concept=garden, beds) "
         "p(image | beds, plants)")


def _backend(replies):
    calls = []

    def fn(messages, **kw):
        calls.append(messages)
        return [replies[min(len(calls) - 1, len(replies) - 1)]]

    return FunctionBackend(name="py:test", fn=fn), calls


def test_few_shot_then_a_retry_after_a_cycle():
    llm, calls = _backend([CYCLE, GOOD])
    s = extract_schema(llm, "garden")
    assert [n.id for n in s.nodes] == ["beds", "plants"] and len(calls) == 2
    first = calls[0]
    assert first[1]["content"] == "Concept: maze" and first[2]["content"].startswith("p(image | concept=maze) = ")
    assert first[3]["content"] == "Concept: tic-tac-toe" and first[-1]["content"] == "Concept: garden"
    assert "cycle" in calls[1][-1]["content"]  # the error is quoted back


def test_gives_up_after_two_retries_naming_the_concept():
    llm, calls = _backend(["I think a garden has flowers."])
    with pytest.raises(RuntimeFailure, match="concept 'garden': no valid schema after 3 tries"):
        extract_schema(llm, "garden", retries=2)
    assert len(calls) == 3
