"""A default pipeline finishes: the fixer stops starting attempts once its time budget is spent, and the copy-head
decoder ends a row caught in a loop of one short unit instead of running to max_new_tokens."""

from __future__ import annotations

import pytest

from toolkit.chase_sql.context import build_context
from toolkit.chase_sql.executor import Executor
from toolkit.chase_sql.fixer import fix_queries
from toolkit.chase_sql.schema import load_schema
from toolkit.core.llm import Completion


class Stubborn:
    """Answers every fix request with another broken query; each batch 'takes' 40 s of the fake clock."""

    def __init__(self, clock):
        self.clock, self.batches = clock, 0

    def complete(self, messages, **kw):
        self.batches += 1
        self.clock.now += 40.0
        return Completion([f"```sql\nSELECT nope{self.batches} FROM members\n```"])


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_fixer_starts_no_attempt_after_its_budget(library_db):
    ctx = build_context(None, None, load_schema(library_db), "How many members live in Hamburg?", "")
    ex = Executor()
    bad = "SELECT nope FROM members"
    clock = Clock()
    llm = Stubborn(clock)
    fixed = fix_queries(llm, ex, library_db, ctx, [(bad, ex.run(library_db, bad))], max_attempts=3, seconds=60.0,
                        clock=clock)[0]
    # attempt 1 starts at 0 s, attempt 2 at 40 s, attempt 3 would start at 80 s > 60 s: not started
    assert llm.batches == 2 and len(fixed.attempts) == 2 and fixed.result.error is not None
    assert fixed.stopped == "fixer time budget of 60 s spent"
    unbounded = Stubborn(Clock())
    again = fix_queries(unbounded, ex, library_db, ctx, [(bad, ex.run(library_db, bad))], max_attempts=3,
                        clock=unbounded.clock)[0]
    assert unbounded.batches == 3 and again.stopped is None


def test_copy_head_decoder_ends_a_looping_row():
    torch = pytest.importorskip("torch")
    from toolkit.core.copy_lm import CopyLlamaConfig, CopyLlamaForCausalLM, _looping

    prev = torch.tensor([[5, 6, 7] * 20, list(range(60))])
    assert _looping(prev, torch.tensor([5, 60]), 48).tolist() == [True, False]
    torch.manual_seed(0)
    config = CopyLlamaConfig(vocab_size=40, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                             num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                             attn_implementation="sdpa")
    model = CopyLlamaForCausalLM(config).eval()
    ids = torch.tensor([[3, 4, 5, 6, 7, 8]])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        free, _ = model.decode(ids, mask, 300, eos_token_id=39, repeat_window=0)
        stopped, _ = model.decode(ids, mask, 300, eos_token_id=39, repeat_window=24)
    assert free.shape[1] == 300 and 39 not in free[0].tolist()  # an untrained model loops greedily to the end
    assert stopped.shape[1] < 300 and stopped[0, -1].item() == 39
    n = stopped.shape[1] - 1
    assert stopped[0, :n].tolist() == free[0, :n].tolist()  # the same text up to where the loop was cut
