"""py: backends used by the tests (a deterministic LLM judge)."""


def judge(messages, **kwargs):
    text = messages[-1]["content"]
    pred = text.split("Predicted answer:", 1)[1].split("\n", 1)[0].strip()
    ref = text.split("Reference answer:", 1)[1].split("\n", 1)[0].strip()
    if pred == ref:
        return "correct"
    if pred.split(",")[0] == ref.split(",")[0]:
        return "Partial."
    return "incorrect"
