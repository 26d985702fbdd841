import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from tests.support.tiny_models import build_word_tokenizer  # noqa: E402
from toolkit.chase_sql.prompts import messages  # noqa: E402
from toolkit.chase_sql.selector_model import LoRASelector  # noqa: E402
from toolkit.chase_sql.selector_train import TrainConfig, build_pairs, train_lora_selector  # noqa: E402

WORDS = "A B user: system: assistant: candidate good bad answer which one".split()


def tiny_lm(path):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    tok = build_word_tokenizer(WORDS)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def test_lora_selector_learns_pair_preference(tmp_path):
    model = tiny_lm(tmp_path / "lm")
    pairs = []
    for k in range(4):
        pad = " which" * k
        pairs.append({"messages": messages(f"candidate good{pad} answer"), "label": "A"})
        pairs.append({"messages": messages(f"candidate bad{pad} answer"), "label": "B"})
    report = train_lora_selector(pairs, model, tmp_path / "lora", TrainConfig(epochs=12, lr=2e-2, batch_size=8,
                                                                            max_length=48))
    assert report["loss_last"] < report["loss_first"]
    assert report["train_accuracy_after"] == 1.0
    assert (tmp_path / "lora" / "adapter_config.json").is_file()
    sel = LoRASelector(tmp_path / "lora", device="cpu")
    assert sel.score(messages("candidate good which answer")) > 0
    assert sel.score(messages("candidate bad which which answer")) < 0


def test_pairs_from_pools_clustered_by_result(demo_dir):
    from toolkit.chase_sql.data import load_dataset

    ds = load_dataset(demo_dir)
    good = "SELECT COUNT(*) FROM members WHERE city = 'Hamburg'"
    pool = {"qid": "4", "candidates": [{"sql": "SELECT COUNT(*) FROM members"}, {"sql": good},
                                       {"sql": good + " AND 1 = 1"}, {"sql": "SELECT nope"}]}
    allright = {"qid": "0", "candidates": [{"sql": ds.examples[0].gold}]}
    pairs = build_pairs([pool, allright], ds)
    assert [p["label"] for p in pairs] == ["A", "B"]  # one correct cluster x one wrong cluster, both orders
    first = pairs[0]["messages"][-1]["content"]
    assert "Candidate A:\n```sql\n" + good in first and "Result B: columns (COUNT(*)): 10" in first
    assert "CREATE TABLE members" in first and "CREATE TABLE books" not in first
    second = pairs[1]["messages"][-1]["content"]  # the swapped order shows the same schema
    assert "CREATE TABLE members" in second and "Candidate B:\n```sql\n" + good in second
    by_sql = build_pairs([pool, allright], ds, unit="sql")  # both right SQL texts against the wrong one
    assert [p["label"] for p in by_sql] == ["A", "B", "A", "B"]
    shown = [p["messages"][-1]["content"] for p in by_sql]
    assert sum(good + " AND 1 = 1" in m for m in shown) == 2
    assert all("SELECT COUNT(*) FROM members\n" in m for m in shown)
