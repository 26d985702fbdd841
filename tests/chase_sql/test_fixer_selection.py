from toolkit.chase_sql.context import build_context
from toolkit.chase_sql.executor import ExecResult, Executor
from toolkit.chase_sql.fixer import fix_query
from toolkit.chase_sql.prompts import fix_prompt
from toolkit.chase_sql.schema import load_schema
from toolkit.chase_sql.selection import TIE, LLMSelector, clusters, self_consistency, tournament
from toolkit.core.llm import Completion, from_uri, write_exchange

Q = "How many members live in Hamburg?"


def test_fixer_repairs_broken_candidate_through_replay(library_db, tmp_path):
    ctx = build_context(None, None, load_schema(library_db), Q, "")
    ex = Executor()
    broken = "SELECT COUNT(*) FROM member WHERE city = 'Hamburg'"
    first = ex.run(library_db, broken)
    assert "no such table" in first.error
    schema, values = ctx.filtered.render(), ctx.values_text()
    rec = tmp_path / "fix.jsonl"
    answer = "The table is members.\n```sql\nSELECT COUNT(*) FROM members WHERE city = 'Hamburg'\n```"
    write_exchange(rec, fix_prompt(schema, Q, "", values, broken, f"error: {first.error}"), Completion([answer]),
                   temperature=0.0, max_tokens=1024)
    fixed = fix_query(from_uri(f"replay:{rec}"), ex, library_db, ctx, broken, first)
    assert fixed.sql == "SELECT COUNT(*) FROM members WHERE city = 'Hamburg'"
    assert len(fixed.attempts) == 1 and fixed.result.rows == [(3,)]
    assert fixed.attempts[0]["feedback"] == "error: no such table: member"
    # an empty result is re-prompted too, and the attempts are bounded
    rec2 = tmp_path / "fix2.jsonl"
    bad = "SELECT full_name FROM members WHERE city = 'Hamberg'"
    write_exchange(rec2, fix_prompt(schema, Q, "", values, bad, "the query ran but returned no rows (check the "
                                    "filter values and joins)"),
                   Completion(["```sql\nSELECT full_name FROM members WHERE city = 'Hamburg'\n```"]),
                   temperature=0.0, max_tokens=1024)
    fixed2 = fix_query(from_uri(f"replay:{rec2}"), ex, library_db, ctx, bad, ex.run(library_db, bad))
    assert fixed2.result.status() == "ok" and len(fixed2.result.rows) == 3


def test_fixer_gives_up_after_three_attempts(library_db):
    ctx = build_context(None, None, load_schema(library_db), Q, "")
    ex = Executor()
    calls = []

    class Stubborn:
        def complete(self, messages, **kw):
            calls.append(1)
            return Completion([f"```sql\nSELECT nope{len(calls)} FROM members\n```"])

    bad = "SELECT nope FROM members"
    fixed = fix_query(Stubborn(), ex, library_db, ctx, bad, ex.run(library_db, bad))
    assert len(calls) == 3 and fixed.result.error is not None


def R(*rows, error=None):
    return ExecResult(rows=list(rows), error=error)


def test_tournament_picks_correct_candidate_when_majority_is_wrong():
    correct, wrong = R((3,)), R((16,))
    results = [wrong, wrong, correct, wrong, R(error="no such column"), correct, wrong]
    ids = clusters(results)
    assert ids == [0, 0, 1, 0, -1, 1, 0]
    sc = self_consistency(ids)
    assert results[sc] is wrong  # the majority is wrong

    def judge(a, b):  # a selector that recognises the right result
        return "A" if results[a] is correct else "B"

    tour = tournament(ids, judge)
    assert results[tour.winner] is correct and tour.winner == 2
    # 4 wrong x 2 correct pairs, both orders
    assert tour.comparisons == 16 and len(tour.votes) == 16
    assert tour.scores[4] == 0  # the failed candidate takes no part
    # correct #2: +1 for the same-result pair with #5, +2 per wrong rival (both orders) = 9
    assert tour.scores[2] == 9 and tour.scores[5] == 8
    one = tournament(ids, judge, both_orders=False)
    assert one.comparisons == 8 and results[one.winner] is correct


def test_tournament_order_bias_is_cancelled_by_both_orders():
    results = [R((1,)), R((2,))]
    always_a = tournament(clusters(results), lambda a, b: "A")
    assert always_a.scores == [1, 1] and always_a.winner == 0
    assert tournament(clusters([R(error="x"), R(error="y")]), lambda a, b: "A").winner == 0


def test_llm_selector_caches_and_parses(tmp_path):
    asked = []

    class Judge:
        def complete(self, messages, **kw):
            asked.append(messages[-1]["content"])
            return Completion(["Answer: B"])

    sel = LLMSelector(Judge())
    assert sel.choose("s", "q", "", "SELECT 1", R((1,)), "SELECT 2", R((2,))) == "B"
    assert sel.choose("s", "q", "", "SELECT 1", R((1,)), "SELECT 2", R((2,))) == "B"
    assert len(asked) == 1 and "Result A: columns" in asked[0] and "Candidate B:\n```sql\nSELECT 2" in asked[0]


def test_unparsable_selector_reply_is_a_tie_not_a():
    class Mumble:
        def complete(self, messages, **kw):
            return Completion(["I cannot tell"])

    sel = LLMSelector(Mumble())
    assert sel.choose("s", "q", "", "SELECT 1", R((1,)), "SELECT 2", R((2,))) == TIE
    ids = clusters([R((1,)), R((2,)), R((2,))])
    # candidates 1 and 2 agree (+1 to 1); every A/B question is a tie, so position gives nothing
    tour = tournament(ids, lambda a, b: sel.choose("s", "q", "", str(a), R((a,)), str(b), R((b,))))
    assert tour.scores == [0, 1, 0] and tour.winner == 1 and tour.comparisons == 4
    # the old reading (an unparsable reply counted as "A") would have rewarded whichever came first
    biased = tournament(ids, lambda a, b: "A")
    assert biased.scores[0] == 2
