"""The generator's training texts, re-spelling, chat template, and the selector directory check."""

from __future__ import annotations

import random

import pytest

from toolkit.chase_sql.learned.corpus import broken_versions, keyword_target, world_texts
from toolkit.chase_sql.learned.encoding import Speller
from toolkit.chase_sql.learned.pairwise import check_selector_dir
from toolkit.chase_sql.learned.template import CHAT_TEMPLATE, COMPACT_CHAT_TEMPLATE
from toolkit.chase_sql.prompts import dc_prompt, keywords_prompt
from toolkit.chase_sql.world import write_world
from toolkit.core.errors import InputError
from toolkit.core.tokenizers import piece_tokenizer


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    out = tmp_path_factory.mktemp("world") / "w"
    write_world(out, 3, 2, "train", 6)
    return out


@pytest.fixture(scope="module")
def texts(small_world):
    return world_texts(small_world, 0)


@pytest.fixture(scope="module")
def tok(texts):
    t = piece_tokenizer(["\n".join(m["content"] for m in x.messages) + x.target for x in texts], 400)
    t.chat_template = CHAT_TEMPLATE
    return t


def test_keywords_are_literals_as_the_question_writes_them():
    gold = "SELECT COUNT(*) FROM t WHERE city = 'Tallinn' AND kind = 'O''Brien'"
    assert keyword_target(gold, {"value": "Tallinn", "written": "Talplinn"}) == ["Talplinn", "O'Brien"]
    assert keyword_target("SELECT MAX(x) FROM t", None) == []


def test_broken_versions_misspell_the_value_and_rename_a_column():
    gold = "SELECT price FROM shop WHERE city = 'Tallinn'"
    broken = broken_versions(gold, {"value": "Tallinn", "written": "Talplinn"}, ["price", "city", "shop_id"],
                             random.Random(1))
    assert broken[0] == "SELECT price FROM shop WHERE city = 'Talplinn'"
    assert len(broken) == 2 and broken[1] != gold


def test_every_stage_gets_texts_and_generator_targets_are_gold(texts, small_world):
    import json

    stages = {t.stage for t in texts}
    assert stages == {"keywords", "dc", "qp", "os", "fix", "synth"}
    gold = {str(q["question_id"]): q["SQL"] for q in json.loads((small_world / "dev.json").read_text())}
    for t in texts:
        if t.stage in ("dc", "qp", "os", "fix"):
            assert t.target == gold[t.qid]
    fixes = [t for t in texts if t.stage == "fix"]
    assert fixes and all("Execution feedback: " in t.messages[-1]["content"] for t in fixes)


def test_template_keeps_the_task_and_the_real_database_only(tok):
    text = tok.apply_chat_template(dc_prompt("CREATE TABLE zz (a INT);", "How many zz?", "", ""), tokenize=False,
                                   add_generation_prompt=True)
    assert text.startswith("<s>## Task: divide-and-conquer SQL generation\nDatabase schema:\nCREATE TABLE zz")
    assert "another database" not in text and "employees" not in text and text.endswith("How many zz?\nHint: none=>\n")
    kw = tok.apply_chat_template(keywords_prompt("Who is in Oslo?", ""), tokenize=False, add_generation_prompt=True)
    assert "Oslo" in kw and "Research & Development" not in kw  # the prompt's worked examples are dropped


def test_compact_template_folds_each_table_into_one_line(tok, texts, small_world):
    schema = ("CREATE TABLE shop (\n  shop_id INTEGER PRIMARY KEY, -- unique id of the shop\n"
              "  city TEXT, -- city of the shop; examples: 'Oslo', 'Riga'\n);\n\n"
              "CREATE TABLE sale (\n  sale_id INTEGER PRIMARY KEY, -- unique id\n  shop_id INTEGER, -- the shop\n"
              "  FOREIGN KEY (shop_id) REFERENCES shop(shop_id)\n);")
    text = tok.apply_chat_template(dc_prompt(schema, "How many sales in Oslo?", "", "shop.city: 'Oslo'"),
                                   tokenize=False, add_generation_prompt=True, chat_template=COMPACT_CHAT_TEMPLATE)
    assert text.startswith("<s>## Task: divide-and-conquer SQL generation\nDatabase schema:\n"
                           "shop(shop_id, city)\nsale(sale_id, shop_id, shop_id->shop.shop_id)\n")
    assert "shop.city: 'Oslo'" in text and "How many sales in Oslo?" in text and text.endswith("=>\n")
    assert "examples:" not in text and "employees" not in text
    def tokens(messages, template):
        rendered = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, chat_template=template)
        return len(tok(rendered)["input_ids"])

    schema_heavy = [t.messages for t in texts if t.stage in ("dc", "qp")]
    full = sum(tokens(m, CHAT_TEMPLATE) for m in schema_heavy)
    assert sum(tokens(m, COMPACT_CHAT_TEMPLATE) for m in schema_heavy) < 0.5 * full


def test_respelling_is_consistent_within_a_text_and_plain_matches_the_tokenizer(tok, texts):
    t = next(x for x in texts if x.stage == "dc")
    prompt = tok.apply_chat_template(t.messages, tokenize=False, add_generation_prompt=True)
    plain, start = Speller(tok).encode(prompt, t.target, None)
    assert plain == tok(prompt + t.target, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    assert tok.decode(plain[start:], skip_special_tokens=True) == t.target
    spelled, _ = Speller(tok, respell_share=1.0, dropout=0.9).encode(prompt, t.target, random.Random(0))
    assert len(spelled) > len(plain)  # words cut into smaller pieces
    assert tok.decode(spelled, skip_special_tokens=True) == tok.decode(plain, skip_special_tokens=True)


def test_selector_dir_that_is_not_a_pairwise_selector_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(InputError) as err:
        check_selector_dir(tmp_path)
    assert "not a pairwise selector model" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError, match="no such directory"):
        check_selector_dir(tmp_path / "missing")


def test_train_generator_saves_its_schema_template_and_log(reason, small_world, tmp_path):
    import json

    out = tmp_path / "gen"
    run = reason("chase-sql", "train-generator", str(small_world), "-o", str(out), "--minutes", "0.05",
                 "--vocab-size", "300", "--batch-tokens", "1500", "--schema", "compact")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["type"] == "sql.generator_training" and record["schema_format"] == "compact" and record["steps"] >= 1
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(out).chat_template == COMPACT_CHAT_TEMPLATE  # served as it was trained
    log = json.loads((out / "training_log.json").read_text())
    assert record["schema"] == 1 and log["schema_format"] == "compact" and log["texts"] == record["texts"]
    bad = reason("chase-sql", "train-generator", str(small_world), "-o", str(tmp_path / "x"), "--schema", "tiny")
    assert bad.returncode == 2 and "--schema tiny" in bad.stderr and not (tmp_path / "x").exists()


def test_copy_head_generator_is_served_by_hf_and_its_trunk_trains_a_selector(reason, small_world, tmp_path):
    import json

    from tests.chase_sql.conftest import ROOT
    from toolkit.chase_sql.learned.pairwise import ModelSelector
    from toolkit.chase_sql.learned.train_pairwise import train_pairwise
    from toolkit.core.llm import from_uri

    out = tmp_path / "gen"
    run = reason("chase-sql", "train-generator", str(small_world), "-o", str(out), "--minutes", "0.05",
                 "--vocab-size", "300", "--batch-tokens", "1500", "--schema", "compact", "--copy-head")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["copy_head"] is True
    assert json.loads((out / "config.json").read_text())["model_type"] == "copy_llama"
    assert type(from_uri(f"hf:{out}").model).__name__ == "CopyLlamaForCausalLM"
    # a second chunk continues the first: same tokenizer and template, the copy head kept, its weights moved on
    more = reason("chase-sql", "train-generator", str(small_world), "-o", str(tmp_path / "gen2"), "--minutes",
                  "0.05", "--batch-tokens", "1500", "--init", str(out))
    assert more.returncode == 0, more.stderr
    chunk = json.loads(more.stdout)
    assert chunk["copy_head"] is True and chunk["schema_format"] == "compact" and chunk["init"] == str(out)
    assert (tmp_path / "gen2" / "tokenizer.json").read_text() == (out / "tokenizer.json").read_text()
    bad_init = reason("chase-sql", "train-generator", str(small_world), "-o", str(tmp_path / "x"), "--init",
                      str(tmp_path / "nothing"))
    assert bad_init.returncode == 2 and "--init" in bad_init.stderr
    lines = (ROOT / "assets" / "chase_sql" / "selector-test-pairs.jsonl").read_text().splitlines()[:12]
    train_pairwise([json.loads(x) for x in lines], out, tmp_path / "sel", minutes=0.02, batch=4, max_length=128)
    assert json.loads((tmp_path / "sel" / "config.json").read_text())["model_type"] == "llama"
    probs = ModelSelector(tmp_path / "sel").prob_a([json.loads(lines[0])["text"]])
    assert len(probs) == 1 and 0.0 <= probs[0] <= 1.0
    # a selector continues with its own A/B head (a generator's trunk gets a new one), here with the swap term
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    from toolkit.chase_sql.learned.train_pairwise import load_for_training

    model, loaded = load_for_training(tmp_path / "sel", AutoTokenizer.from_pretrained(tmp_path / "sel"))
    assert loaded and torch_equal(model.score.weight, load_file(tmp_path / "sel" / "model.safetensors")["score.weight"])
    assert not load_for_training(out, AutoTokenizer.from_pretrained(out))[1]
    more = train_pairwise([json.loads(x) for x in lines], tmp_path / "sel", tmp_path / "sel2", minutes=0.02, batch=4,
                          max_length=128, swap_weight=1.0)
    assert more["head_loaded"] is True and more["swap_weight"] == 1.0
    assert json.loads((tmp_path / "sel" / "selector.json").read_text())["head_loaded"] is False


def torch_equal(a, b) -> bool:
    import torch

    return bool(torch.equal(a.detach(), b))


def test_swap_term_pairs_each_pair_with_its_swapped_twin_and_is_zero_when_the_orders_agree():
    import torch

    from toolkit.chase_sql.learned.train_pairwise import swap_penalty, twin_units

    pairs = [{"qid": "1", "label": "A"}, {"qid": "1", "label": "B"}, {"qid": "2", "label": "A"},
             {"qid": "3", "label": "B"}, {"qid": "3", "label": "A"}]
    assert twin_units(pairs) == [[0, 1], [2], [3, 4]]
    agree = torch.tensor([0.9, 0.1, 0.5, 0.3, 0.7])  # P(A) of a pair and of it swapped sum to 1: no penalty
    assert float(swap_penalty(agree, [0, 3])) < 1e-9
    position = torch.tensor([0.9, 0.9, 0.5, 0.2, 0.2])  # says A (or B) whatever the order: penalised
    assert abs(float(swap_penalty(position, [0, 3])) - (0.8 ** 2 + 0.6 ** 2) / 2) < 1e-6
