"""The generator's training texts, re-spelling, chat template, and the selector directory check."""

from __future__ import annotations

import random

import pytest

from toolkit.chase_sql.learned.corpus import broken_versions, keyword_target, world_texts
from toolkit.chase_sql.learned.encoding import Speller
from toolkit.chase_sql.learned.pairwise import check_selector_dir
from toolkit.chase_sql.learned.template import CHAT_TEMPLATE
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
