"""Schema-constrained decoding: the scanner, the logits processor on a tiny hand-made vocabulary, the copy-head
decoder with it, and the shipped generator on the hand-written foreign databases with and without it."""

from __future__ import annotations

import pytest

from tests.chase_sql.conftest import ROOT
from toolkit.chase_sql.schema_constraint import SchemaConstraint, TokenVocab, schema_from_prompt
from toolkit.chase_sql.sql_scanner import SchemaNames, scan

PROMPT = """## Task: divide-and-conquer SQL generation
Now the real task.

Database schema:
CREATE TABLE shop (
  shop_id INTEGER PRIMARY KEY,
  city TEXT -- examples: 'Oslo'
);

CREATE TABLE `Order Details` (
  `order id` INTEGER,
  `Unit Price` REAL,
  shop_id INTEGER,
  FOREIGN KEY (shop_id) REFERENCES shop(shop_id)
);
Question: ..."""

# A tiny vocabulary: whole words, pieces of names, symbols, and tokens that mix them.
VOCAB = ["</s>", " ", "SELECT", "FROM", "WHERE", "AS", "shop", "ship", "sh", "op", "ip", "city", "cty", "T1", "T",
         "1", ".", ",", "*", "`", '"', "Order", "Details", "Unit", "Price", "=", "'", "Oslo", "(", ")", "COUNT",
         " FROM", "shop_id", "order", "id", ".city", "xyz"]
ID = {t: i for i, t in enumerate(VOCAB)}
EOS = ID["</s>"]


@pytest.fixture(scope="module")
def schema():
    return schema_from_prompt(PROMPT)


def test_prompt_schema_is_read_by_sqlite_with_quoted_names(schema):
    assert schema.tables == {"shop": {"shop_id", "city"}, "order details": {"order id", "unit price", "shop_id"}}


@pytest.mark.parametrize("sql", [
    "SELECT T1.city FROM shop AS T1 WHERE T1.city = 'Oslo'",
    "SELECT `Unit Price` FROM `Order Details` WHERE \"order id\" = 3",
    "SELECT T2.`Unit Price` FROM shop AS T1 JOIN \"Order Details\" AS T2 ON T1.shop_id = T2.shop_id",
    "SELECT city FROM shop WHERE shop_id IN (SELECT T1.shop_id FROM `Order Details` AS T1 WHERE T1.`order id` > 2)",
    "SELECT CAST(COUNT(*) AS REAL) AS n FROM shop GROUP BY city ORDER BY n DESC LIMIT 1",
    "WITH big AS (SELECT city FROM shop) SELECT city FROM big",
    "SELECT s.city FROM (SELECT city FROM shop) AS s",
    "SELECT s.city FROM shop s WHERE s.shop_id > 1",
    "SELECT city FROM shop WHERE city = 'it''s' UNION SELECT city FROM shop",
])
def test_valid_queries_scan_to_the_end(schema, sql):
    state = scan(schema, sql)
    assert state is not None and state.can_end(), sql


@pytest.mark.parametrize("sql", [
    "SELECT city FROM shops",                      # no such table
    "SELECT T1.price FROM shop AS T1",             # T1 is shop: no such column there
    "SELECT cty FROM shop",                        # no such column anywhere
    "SELECT `Unit Prices` FROM `Order Details`",   # a quoted name must match whole
    "SELECT city FROM shop WHERE xyz.city = 1",    # an alias no FROM can declare any more
    "SELECT T1.city FROM shop WHERE city = 1",     # T1 is never declared
    "SELECT city FROM shop WHERE FROM shop",       # FROM out of clause order
    "SELECT city FROM shop)",                      # a parenthesis never opened
    "SELECT city FROM shop WHERE pi = 1",          # a function, not a column
    "SELECT city FROM shop ORDER city",            # ORDER without BY
    "SELECT city FROM shop WHEREcity = 1",         # an alias without AS must look like one (T1, s)
    "SELECT city FROM shop WHERE generated = 1",   # a DDL keyword is no column
    "SELECT shop_id FROM `Order Details` WHERE city = 'Oslo'",  # city is shop's, and shop is not in FROM
    "SELECT city FROM `Order Details`",            # the same, named before FROM
])
def test_invalid_queries_are_rejected_or_cannot_end(schema, sql):
    state = scan(schema, sql)
    assert state is None or not state.can_end(), sql


def _step(schema: SchemaNames, generated: list[str], prompt_len: int = 3):
    """The processor's scores for the next token after `generated` (all logits equal before)."""
    import torch

    proc = SchemaConstraint(TokenVocab(VOCAB, EOS), [schema])
    prompt = [ID["op"]] * prompt_len
    proc(torch.tensor([prompt]), torch.zeros(1, len(VOCAB)))  # first call: the prompt's width
    ids = torch.tensor([prompt + [ID[t] for t in generated]])
    return dict(zip(VOCAB, proc(ids, torch.zeros(1, len(VOCAB)))[0].tolist(), strict=True))


def test_after_from_an_invalid_table_is_impossible_and_a_valid_one_possible(schema):
    after = _step(schema, ["SELECT", " ", "*", " ", "FROM", " "])
    assert after["shop"] == 0.0 and after["sh"] == 0.0          # shop, or its first piece
    assert after["ship"] == float("-inf") and after["city"] == float("-inf") and after["T1"] == float("-inf")
    assert after["</s>"] == float("-inf")                         # FROM still waits for its table
    pieces = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "sh"])
    assert pieces["op"] == 0.0 and pieces["ip"] == float("-inf")  # sh+op = shop; sh+ip = ship
    done = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "shop"])
    assert done["</s>"] == 0.0 and done[" "] == 0.0


def test_after_an_alias_dot_only_that_tables_columns(schema):
    fwd = _step(schema, ["SELECT", " ", "T1", "."])               # T1 not declared yet: any column of the schema
    assert fwd["city"] == 0.0 and fwd["cty"] == float("-inf") and fwd[" "] == float("-inf")
    late = _step(schema, ["SELECT", " ", "T1", ".", "city", " ", "FROM", " ", "shop", " ", "AS", " "])
    assert late["T1"] == 0.0                                       # T1 = shop is consistent with T1.city
    assert fwd["order"] == float("-inf")                           # `order id` can only be written quoted
    quoted = ["SELECT", " ", "T1", ".", "`", "order", " ", "id", "`", " ", "FROM", " "]
    # shop has no `order id`: T1 may be typed (T12 would be another alias) but cannot end as shop's alias
    assert _step(schema, quoted + ["shop", " ", "AS", " ", "T1"])[" "] == float("-inf")
    assert _step(schema, quoted + ["`", "Order", " ", "Details", "`", " ", "AS", " ", "T1"])[" "] == 0.0
    bound = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "shop", " ", "AS", " ", "T1", " ", "WHERE", " ",
                           "T1", "."])
    assert bound["city"] == 0.0 and bound["shop_id"] == 0.0 and bound["Unit"] == float("-inf")


def test_bare_names_come_from_the_schema_and_mixed_tokens_are_judged_whole(schema):
    bare = _step(schema, ["SELECT", " "])
    assert bare["city"] == 0.0 and bare["COUNT"] == 0.0 and bare["ship"] == float("-inf")
    assert bare["T1"] == 0.0     # an alias used before FROM declares it (T1.city)
    assert bare["cty"] == float("-inf") and bare["xyz"] == float("-inf")
    mixed = _step(schema, ["SELECT", " ", "city"])
    assert mixed[" FROM"] == 0.0 and mixed[".city"] == float("-inf")  # city is a column, not a qualifier


def test_quoted_names_are_exact_spaces_included(schema):
    opened = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "`"])
    assert opened["Order"] == 0.0 and opened["Unit"] == float("-inf") and opened["shop"] == 0.0
    half = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "`", "Order"])
    assert half[" "] == 0.0 and half["`"] == float("-inf")        # `Order` alone is no table
    whole = _step(schema, ["SELECT", " ", "*", " ", "FROM", " ", "`", "Order", " ", "Details"])
    assert whole["`"] == 0.0 and whole['"'] == float("-inf")      # closed by its own quote only


def test_copy_head_decoder_with_the_processor_writes_only_schema_names(schema):
    """A random tiny copy-head model: unconstrained it writes anything; constrained, every greedy and sampled
    row scans as a query over the schema's names (or stops at a prefix that can still become one)."""
    import torch

    from toolkit.core.copy_lm import _classes

    config_class, model_class = _classes()
    torch.manual_seed(0)
    model = model_class(config_class(vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64,
                                     num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2)).eval()
    context = [i for i in range(len(VOCAB)) if i != EOS]  # something of every token to copy from
    prompt = torch.tensor([context] * 4)
    mask = torch.ones_like(prompt)
    vocab = TokenVocab(VOCAB, EOS)
    for temperature, seeds in ((0.0, None), (1.0, [1, 2, 3, 4])):
        proc = SchemaConstraint(vocab, [schema] * 4)
        with torch.no_grad():
            tokens, _ = model.decode(prompt, mask, 24, temperature, seeds, EOS, logits_processor=proc)
        for row in tokens.tolist():
            text = "".join(VOCAB[t] for t in (row[: row.index(EOS)] if EOS in row else row))
            assert scan(schema, text) is not None, text
    free = model.decode(prompt, mask, 24, 1.0, [1, 2, 3, 4], EOS)[0].tolist()
    texts = ["".join(VOCAB[t] for t in r if t != EOS) for r in free]
    assert any(scan(schema, t) is None for t in texts), texts  # the same model, free, breaks the schema


def test_beam_decoder_follows_the_constraint_and_a_beam_of_one_is_greedy(schema):
    """The copy-head beam: with one hypothesis and no processor it writes what greedy `decode` writes; with the
    processor (told to drop stopped rows) its answers scan as whole queries of the schema."""
    import torch

    from toolkit.core.copy_lm import _classes

    config_class, model_class = _classes()
    prompt = torch.tensor([[i for i in range(len(VOCAB)) if i != EOS]])
    found = []
    for seed in range(4):
        torch.manual_seed(seed)
        model = model_class(config_class(vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2)).eval()
        with torch.no_grad():
            greedy = model.decode(prompt, torch.ones_like(prompt), 20, 0.0, None, EOS)[0][0].tolist()
            stop = greedy[6]  # taken for the end token, greedy decoding ends where it first writes it
            one = model.beam_decode(prompt, 20, 1, stop)
            assert one == greedy[: greedy.index(stop)], (one, greedy)
            proc = SchemaConstraint(TokenVocab(VOCAB, EOS), [schema])
            proc.budget, proc.prune = 24, True
            beam = model.beam_decode(prompt, 24, 4, EOS, logits_processor=proc)
        if beam is not None:
            text = "".join(VOCAB[t] for t in beam)
            state = scan(schema, text)
            assert state is not None and state.can_end(), text
            found.append(text)
    assert found  # some random model finishes a query within the budget


GENERATOR = ROOT / "assets" / "chase_sql" / "generator"
FOREIGN = ROOT / "assets" / "chase_sql" / "foreign"


def test_shipped_tokenizer_is_a_learned_generator_and_its_token_texts_round_trip():
    from transformers import AutoTokenizer

    from toolkit.chase_sql.schema_constraint import is_learned_generator, token_texts

    tok = AutoTokenizer.from_pretrained(str(GENERATOR))
    assert is_learned_generator(tok)
    texts = token_texts(tok)
    sql = "SELECT T1.`Unit Price` FROM \"Order Details\" AS T1 WHERE T1.city = 'Zurich'"
    assert "".join(texts[i] for i in tok(sql, add_special_tokens=False)["input_ids"]) == sql


def test_constraint_raises_the_share_of_foreign_queries_that_execute(tmp_path):
    """The foreign databases (hand-written, ordinary English names; the generator never saw them): greedy
    queries that execute, with the constraint against without it, on the same questions."""
    import shutil

    from toolkit.chase_sql.learned.greedy_ex import greedy_ex
    from toolkit.chase_sql.schema_constraint import attach
    from toolkit.core.llm import from_uri

    data = tmp_path / "foreign"
    shutil.copytree(FOREIGN, data, ignore=shutil.ignore_patterns("*.chase-index"))
    llm = from_uri(f"hf:{GENERATOR}")
    assert attach(llm, False) is False
    free = greedy_ex(llm, data, limit=16)
    assert attach(llm, True) is True
    constrained = greedy_ex(llm, data, limit=16)
    assert constrained["schema_constraint"] and not free["schema_constraint"]
    assert constrained["executes"] >= free["executes"] + 25.0, (free["executes"], constrained["executes"])
    assert constrained["beams"] == 4 and constrained["executes"] >= 90.0, constrained  # the default decode
    assert constrained["ex"] >= free["ex"], (free["ex"], constrained["ex"])


def test_constraint_keeps_or_raises_greedy_ex_on_the_shipped_test_world(tmp_path):
    """Test-split names the generator never saw: the constraint may only remove wrong names, so EX and the share
    of queries that execute must not fall (first 12 questions)."""
    import shutil

    from toolkit.chase_sql.learned.greedy_ex import greedy_ex
    from toolkit.chase_sql.schema_constraint import attach
    from toolkit.core.llm import from_uri

    data = tmp_path / "world"
    shutil.copytree(ROOT / "assets" / "chase_sql" / "world-test", data, ignore=shutil.ignore_patterns("*.chase-index"))
    llm = from_uri(f"hf:{GENERATOR}")
    free = greedy_ex(llm, data, limit=12)
    attach(llm, True)
    constrained = greedy_ex(llm, data, limit=12)
    assert constrained["ex"] >= free["ex"] and constrained["executes"] >= free["executes"], (free, constrained)
