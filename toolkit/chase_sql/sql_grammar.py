"""An incremental grammar of the SQLite SELECT subset that generated queries use, fed one lexical token at a time
by the scanner (`sql_scanner.py`, which splits characters into words, literals and symbols and checks names).

PICARD-style (Scholak et al., 2021): each token is accepted only if the tokens so far can still be completed to
a query; `can_end` says whether they already are one. Covered: SELECT [DISTINCT|ALL] items with [AS] aliases,
expressions (literals, names, `T.c`, function calls with DISTINCT and `*`, CASE, CAST(.. AS type), unary and
binary operators, comparisons, IN (list | subquery), [NOT] BETWEEN .. AND, [NOT] LIKE/GLOB [ESCAPE], IS [NOT],
ISNULL/NOTNULL, EXISTS, COLLATE, parentheses, scalar subqueries), FROM lists and JOIN .. ON/USING, derived
tables, WHERE / GROUP BY / HAVING / ORDER BY [ASC|DESC] [NULLS FIRST|LAST] / LIMIT [OFFSET], compound selects,
WITH [RECURSIVE] and a trailing `;`. Window clauses (OVER, FILTER) are not (the scanner does not take them).

The state is a stack of small contexts; a step changes only the top ones, so feeding a token costs O(1).
"""

from __future__ import annotations

from dataclasses import dataclass

RESERVED = frozenset("""
select from where group by order having limit offset union intersect except all distinct as on join inner left
right full outer cross natural using and or not in is null like glob regexp between case when then else end cast
exists asc desc with recursive collate escape isnull notnull current_date current_time current_timestamp
""".split())
LITERAL_WORDS = frozenset(("null", "true", "false", "current_date", "current_time", "current_timestamp"))
BINARY_SYMBOLS = frozenset(("+", "-", "*", "/", "%", "||", "=", "==", "!=", "<>", "<", "<=", ">", ">=", "&", "|",
                            "<<", ">>"))
PAIRS = frozenset(("||", "==", "!=", "<>", "<=", ">=", "<<", ">>"))  # two-character operators
LIKE_WORDS = frozenset(("like", "glob", "regexp", "match"))
JOIN_WORDS = frozenset(("join", "inner", "left", "right", "full", "cross", "natural"))
COMPOUND = frozenset(("union", "intersect", "except"))
# Clauses of a query in SQLite's order, and the ones that may follow each.
NEXT_CLAUSE = {
    "select": ("from", "where", "group", "order", "limit"),
    "from": ("where", "group", "order", "limit"), "where": ("group", "order", "limit"),
    "group": ("having", "order", "limit"), "having": ("order", "limit"), "order": ("limit",), "limit": ("offset",),
    "offset": (),
}
AGGREGATES = frozenset(("count", "sum", "avg", "total", "group_concat", "string_agg"))  # min/max: also scalar
NO_ARGUMENTS = frozenset(("pi", "random", "changes", "last_insert_rowid", "total_changes"))
NO_COMPOUND_AFTER = frozenset(("order", "limit", "offset"))
# Function calls, CASE and CAST nested in one another (within one query): the shipped gold queries nest at most 3
# deep, BIRD's `ROUND(CAST(SUM(CASE ...) AS REAL) ..., 2)` 4; deeper is the small generator looping
# (`soundex(SQRT(CASE WHEN soundex(CASE WHEN ...`), valid at every prefix until its closing text no longer fits.
MAX_NESTING = 4
NESTING = frozenset(("args", "case", "cast"))


class GrammarError(Exception):
    """The tokens so far cannot be completed to a query."""


@dataclass
class Ctx:
    """One nesting level. kind: query (a SELECT or the whole answer), paren (an opened parenthesis: a subquery or
    an expression), args (a function's arguments), case, cast, names (a column list), loose (window clauses).
    phase: where the level stands; need: True while an operand is awaited (expression levels)."""

    kind: str
    phase: str = ""
    need: bool = True
    after: str = ""  # an operator word awaiting its continuation: not, is, between, like, collate, in, exists
    between: int = 0  # BETWEENs whose AND is still to come
    fn: str = ""  # the last operand was this function's name (a `(` may follow)
    call: str = ""  # for args: the function called
    items: bool = False  # select-list or args position where `*` / DISTINCT may start an item

    def copy(self) -> Ctx:
        return Ctx(self.kind, self.phase, self.need, self.after, self.between, self.fn, self.call, self.items)

    def key(self) -> tuple:
        return (self.kind, self.phase, self.need, self.after, self.between, self.fn, self.call, self.items)


class Grammar:
    def __init__(self) -> None:
        self.stack: list[Ctx] = [Ctx("query", "start", False)]
        self.last = ""  # the previous token when it was a symbol with no space after it (for `<=`, `||`)
        self.done = False  # a `;` was read

    def clone(self) -> Grammar:
        g = Grammar.__new__(Grammar)
        g.stack, g.last, g.done = [c.copy() for c in self.stack], self.last, self.done
        return g

    def key(self) -> tuple:
        return (tuple(c.key() for c in self.stack), self.last, self.done)

    # ---- what may come ---------------------------------------------------------------------------------------
    def ident_ok(self) -> bool:
        """Whether a name (not a keyword) may stand here."""
        probe = self.clone()
        try:
            probe.word("name", True)
        except GrammarError:
            return False
        return True

    @staticmethod
    def _expr_operand(c: Ctx) -> bool:
        return c.need and c.phase not in ("start_q", "table", "by", "join_kw", "with_as", "start", "compound",
                                          "with_done", "after_cte", "cte_open", "subquery", "using")

    def dead_words(self, keywords: frozenset[str]) -> frozenset[str]:
        """Words that cannot stand here although a name may: refused keywords, and aggregate functions where
        no aggregate may be called."""
        dead = RESERVED - keywords
        return dead if self._aggregate_ok() else dead | AGGREGATES

    def keywords_ok(self) -> frozenset[str]:
        """The reserved words that may stand here (for filtering name tokens in bulk)."""
        out = set()
        for w in RESERVED:
            probe = self.clone()
            try:
                probe.word(w, False)
            except GrammarError:
                continue
            out.add(w)
        return frozenset(out)

    # ---- tokens ----------------------------------------------------------------------------------------------
    def space(self) -> None:
        self.last = ""
        if self.stack[-1].after == "bang":
            raise GrammarError("`!` without `=`")

    def word(self, low: str, quoted: bool) -> None:
        """A finished word: a keyword when unquoted and reserved, else a name."""
        if self.done:
            raise GrammarError("text after `;`")
        self.last = ""
        if self.stack[-1].after == "bang":
            raise GrammarError("`!` without `=`")
        if quoted or low not in RESERVED:
            self._name(low, quoted)
        else:
            self._keyword(low)

    def literal(self) -> None:
        """A string or a number starts (it cannot fail once started)."""
        if self.done:
            raise GrammarError("text after `;`")
        self.last = ""
        c = self.stack[-1]
        if c.after == "bang":
            raise GrammarError("`!` without `=`")
        if self._operand_ok(c):
            self._operand(c)
            return
        raise GrammarError("a literal cannot stand here")

    def qualified(self) -> None:
        """`Q.` starts a qualified column: an operand must be possible here."""
        c = self.stack[-1]
        if self.done or not self._operand_ok(c):
            raise GrammarError("a column cannot stand here")
        self.last = ""

    def star(self) -> None:
        """`*` right after `Q.`: a whole table's columns, only as a select item (`ON T1.* = 1` is no value)."""
        c = self.stack[-1]
        if not (c.kind == "query" and c.phase in ("select_start", "select") and c.items and not c.after):
            raise GrammarError("`Q.*` stands only as a select item")
        self._operand(c)

    def symbol(self, ch: str) -> None:
        if self.done:
            raise GrammarError("text after `;`")
        prev, self.last = self.last, ""
        c = self.stack[-1]
        if c.after == "bang":
            if ch != "=":
                raise GrammarError("`!` without `=`")
            c.after = "op"
            return
        if prev and prev + ch in PAIRS and c.after == "op":  # the second half of `<=`, `||`, ...
            return
        if ch == ";":
            if not self.can_end():
                raise GrammarError("`;` before the query is whole")
            self.done = True
            return
        if c.kind == "loose":
            if ch == "(":
                self.stack.append(Ctx("loose"))
            elif ch == ")":
                self._pop()
            return
        if ch == "(":
            return self._open(c)
        if ch == ")":
            return self._close(c)
        if ch == ",":
            return self._comma(c)
        if ch == "*" and c.need and c.items and not c.after:
            self._operand(c)
            return
        if ch in "-+~" and self._operand_ok(c):
            c.after, c.fn = "", ""  # unary
            return
        if ch == "!":
            if c.need:
                raise GrammarError("`!` where an operand belongs")
            self._binary(c)
            c.after = "bang"
            return
        if ch in "+-*/%|=<>&":
            if c.need:
                raise GrammarError(f"`{ch}` where an operand belongs")
            if not self._binary_ok(c):
                raise GrammarError(f"`{ch}` cannot stand here")
            self._binary(c)
            c.after = "op"
            self.last = ch if ch in "|=<>" else ""
            return
        raise GrammarError(f"`{ch}` cannot stand here")

    # ---- the end ---------------------------------------------------------------------------------------------
    def can_end(self) -> bool:
        if self.done:
            return True
        if len(self.stack) != 1:
            return False
        return self._query_complete(self.stack[0])

    def closing(self) -> str:
        """A short text that completes the query from here ("" when none is known)."""
        out = []
        probe = self.clone()
        for _ in range(160):
            if probe.can_end():
                return "".join(out)
            c = probe.stack[-1]
            for piece in self._closers(c):
                trial = probe.clone()
                try:
                    trial.feed_text(piece)
                except GrammarError:
                    continue
                probe = trial
                out.append(piece)
                break
            else:
                return ""
        return "".join(out) if probe.can_end() else ""

    @staticmethod
    def _closers(c: Ctx) -> tuple[str, ...]:
        if c.kind == "case":
            return (" 1", " END", " THEN", " WHEN")
        return (" 1", ")", " *", " AND 1", " THEN", " END", " REAL", " x", " BY")

    def feed_text(self, text: str) -> None:
        """Whitespace-separated words, numbers and single symbols (for `closing` and the tests)."""
        i = 0
        while i < len(text):
            ch = text[i]
            if ch.isspace():
                self.space()
                i += 1
            elif ch.isalpha() or ch == "_":
                j = i
                while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                    j += 1
                self.word(text[i:j].lower(), False)
                i = j
            elif ch.isdigit():
                self.literal()
                while i < len(text) and (text[i].isalnum() or text[i] == "."):
                    i += 1
            else:
                self.symbol(ch)
                i += 1

    # ---- helpers ---------------------------------------------------------------------------------------------
    def nesting(self) -> int:
        """Function calls, CASE and CAST open around here within the innermost query."""
        depth = 0
        for c in reversed(self.stack):
            if c.kind == "query":
                break
            depth += c.kind in NESTING
        return depth

    def _nest(self, ctx: Ctx) -> None:
        if self.nesting() >= MAX_NESTING:
            raise GrammarError(f"calls, CASE and CAST nested more than {MAX_NESTING} deep")
        self.stack.append(ctx)

    def nest_ok(self) -> bool:
        """Whether one more call, CASE or CAST may open here."""
        return self.nesting() < MAX_NESTING

    def _aggregate_ok(self) -> bool:
        """An aggregate may not stand inside another one's arguments, nor in WHERE / ON / GROUP BY of its query."""
        for c in reversed(self.stack):
            if c.kind == "args" and c.call in AGGREGATES:
                return False
            if c.kind == "query":
                return c.phase not in ("where", "on", "group")
        return True

    def _operand_ok(self, c: Ctx) -> bool:
        if c.kind == "args" and c.phase == "none":
            return False
        if c.kind == "query":
            return (self._expr_operand(c) and c.phase not in ("alias", "after_table", "with_name")
                    and c.after not in ("cast", "exists"))
        if c.kind in ("names", "loose"):
            return False
        if c.kind == "cast" and c.phase != "expr":
            return False
        if c.after in ("cast", "exists") or (c.kind == "paren" and c.phase == "subquery"):
            return False
        return c.need

    def _operand(self, c: Ctx) -> None:
        """An operand was read at level c."""
        if c.kind == "query" and c.phase == "limit_start":
            c.phase = "limit"
        c.need, c.after, c.fn, c.items = False, "", "", False
        if c.kind == "paren" and c.phase == "start_q":
            c.phase = "expr"
        if c.kind == "query" and c.phase == "select_start":
            c.phase = "select"
        if c.kind == "query" and c.phase == "select":
            c.phase = "select_alias_ok"

    def _binary_ok(self, c: Ctx) -> bool:
        if c.kind == "query":
            return c.phase in ("select", "select_alias_ok", "where", "on", "group", "having", "order", "limit")
        if c.kind in ("paren", "args", "case", "cast"):
            return c.phase not in ("type", "start_q") and not c.phase.startswith("q")
        return False

    def _binary(self, c: Ctx) -> None:
        c.need, c.fn, c.items = True, "", False
        if c.kind == "query" and c.phase == "select_alias_ok":
            c.phase = "select"

    def _pop(self) -> None:
        if len(self.stack) == 1:
            raise GrammarError("`)` without `(`")
        self.stack.pop()

    def _query_complete(self, c: Ctx) -> bool:
        if c.kind != "query" or c.after or c.between:
            return False
        if c.phase in ("select_alias_ok", "after_table", "after_table_alias", "after_alias", "order_dir",
                       "using_done"):
            return True
        return c.phase in ("select", "where", "on", "group", "having", "order", "limit", "offset") and not c.need

    # ---- names and keywords ----------------------------------------------------------------------------------
    def _name(self, low: str, quoted: bool) -> None:
        from toolkit.chase_sql.sql_scanner import FUNCTIONS

        c = self.stack[-1]
        if c.kind == "loose" or c.kind == "names":
            if c.kind == "names":
                if not c.need:
                    raise GrammarError("two names without a comma")
                c.need = False
            return
        if c.kind == "cast" and c.phase == "type":
            c.need = False
            return
        if c.kind == "query":
            if c.phase == "table":
                c.phase, c.need = "after_table", False
                return
            if c.phase in ("alias",):
                c.phase = c.after or "after_alias"
                c.after = ""
                return
            if c.phase == "after_table" and not c.after:
                c.phase = "after_table_alias"
                return
            if c.phase == "select_alias_ok" and not c.after:
                c.phase = "after_alias"
                return
            if c.phase == "with_name":
                c.phase = "with_as"
                return
        if not self._operand_ok(c):
            raise GrammarError(f"{low}: a name cannot stand here")
        if c.after in ("collate",):
            c.after, c.need = "", False
            return
        self._operand(c)
        c.fn = low if not quoted and low in FUNCTIONS else ""

    def _keyword(self, w: str) -> None:
        c = self.stack[-1]
        if c.kind == "loose":
            return
        if w in LITERAL_WORDS:
            if c.after == "is_not" or c.after == "is":
                c.after = ""
            if c.after == "not" and w == "null":  # `x NOT NULL`
                c.after, c.need = "", False
                return
            if not self._operand_ok(c):
                raise GrammarError(f"{w.upper()} cannot stand here")
            self._operand(c)
            return
        if c.kind == "case":
            return self._case_word(c, w)
        if c.kind == "cast":
            if w == "as" and c.phase == "expr" and not c.need:
                c.phase, c.need = "type", True
                return
        if c.kind == "query" and self._query_word(c, w):
            return
        if c.kind == "paren" and c.phase in ("start_q", "subquery") and w in ("select", "with"):
            c.kind, c.phase, c.need = "query", "start", False
            return self._query_word(c, w) or None
        if self._expr_word(c, w):
            return
        raise GrammarError(f"{w.upper()} cannot stand here")

    def _expr_word(self, c: Ctx, w: str) -> bool:
        """Expression keywords at any expression level; False when w is none of them here."""
        if c.kind == "paren" and c.phase == "start_q":
            c.phase = "expr"
        if c.kind == "args" and c.phase == "start" and w in ("distinct", "all"):
            c.phase = "expr"
            return True
        if c.need:
            if not self._operand_ok(c) and not (c.after == "is" and w == "not") and w not in ("case", "cast",
                                                                                                 "exists", "not"):
                return False
            if w in ("case", "cast", "exists", "not") and not self._operand_ok(c):
                return False
            if c.after == "is" and w == "not":
                c.after = "is_not"
                return True
            if w == "not" and c.after != "not":
                c.after = "" if c.after in ("op", "") else c.after
                return True
            if w == "exists" or w == "case" or w == "cast":
                if not self._operand_ok(c):
                    return False
                if w == "cast" and not self.nest_ok():  # its `(` could not open
                    raise GrammarError(f"calls, CASE and CAST nested more than {MAX_NESTING} deep")
                if w == "case":
                    self._nest(Ctx("case", "start", True))
                else:
                    c.after = w
                return True
            return False
        # after an operand
        if not self._binary_ok(c):  # `FROM teachers t isnull` is no condition
            return False
        if c.after == "not":
            if w in LIKE_WORDS or w in ("in", "between"):
                c.after = ""
            else:
                return False
        elif w == "not":
            c.after = "not"
            return True
        if w in ("and", "or"):
            if w == "and" and c.between:
                c.between -= 1
            self._binary(c)
            return True
        if w in LIKE_WORDS:
            self._binary(c)
            return True
        if w == "escape":
            self._binary(c)
            return True
        if w == "between":
            self._binary(c)
            c.between += 1
            return True
        if w == "in":
            self._binary(c)
            c.after = "in"
            return True
        if w == "is":
            self._binary(c)
            c.after = "is"
            return True
        if w in ("isnull", "notnull"):
            return True
        if w == "collate":
            c.need, c.after = True, "collate"
            return True
        return False

    def _case_word(self, c: Ctx, w: str) -> None:
        if c.phase == "start" and w == "when":
            c.phase, c.need = "when", True
            return
        if c.need or c.after:
            if self._expr_word(c, w):
                return
            raise GrammarError(f"{w.upper()} cannot stand here")
        nxt = {"start": ("when",), "when": ("then",), "then": ("when", "else", "end"), "else": ("end",)}
        if w in nxt.get(c.phase, ()) and not c.between:
            if w == "end":
                self.stack.pop()
                self._operand(self.stack[-1])
                return
            c.phase, c.need = w, True
            return
        if self._expr_word(c, w):
            return
        raise GrammarError(f"{w.upper()} cannot stand here")

    def _query_word(self, c: Ctx, w: str) -> bool:
        """Clause keywords of a query level; True when handled."""
        p = c.phase
        if p == "start":
            if w == "select":
                c.phase, c.need, c.items = "select_start", True, True
                return True
            if w == "with" and len(self.stack) == 1:
                c.phase = "with_name"
                return True
            raise GrammarError(f"{w.upper()} cannot start a query")
        if p == "with_name" and w == "recursive":
            return True
        if p == "with_as":
            if w == "as":
                c.phase = "cte_open"
                return True
            raise GrammarError("AS must follow a CTE name")
        if p == "with_done":
            if w == "select":
                c.phase, c.need, c.items = "select_start", True, True
                return True
            raise GrammarError("SELECT must follow the CTEs")
        if p == "compound":
            if w == "all" and not c.after:
                c.after = "all"
                return True
            if w == "select":
                c.phase, c.need, c.items, c.after = "select_start", True, True, ""
                return True
            raise GrammarError("SELECT must follow UNION / INTERSECT / EXCEPT")
        if p == "select_start" and w in ("distinct", "all") and c.items and c.need:
            c.items = True
            c.phase = "select"
            return True
        if p == "by":
            if w == "by":
                c.phase, c.need = c.after, True
                c.after = ""
                return True
            raise GrammarError("BY must follow GROUP / ORDER")
        if p == "join_kw":
            if w == "outer" and c.after in ("left", "right", "full"):
                c.after = "outer"
                return True
            if w == "join":
                c.phase, c.after, c.need = "table", "", True
                return True
            raise GrammarError("JOIN must follow")
        if p in ("table",) and w != "select":
            raise GrammarError("a table must follow FROM / JOIN")
        if p == "after_table" and w == "as":
            c.phase = "alias"
            c.after = "after_table_alias"
            return True
        if p in ("select_alias_ok",) and w == "as" and not c.after:
            c.phase = "alias"
            c.after = "after_alias"
            return True
        table_done = p in ("after_table", "after_table_alias")
        if table_done and w in JOIN_WORDS:
            if w == "join":
                c.phase, c.need = "table", True
            else:
                c.phase, c.after = "join_kw", w
            return True
        if table_done and w == "on":
            c.phase, c.need = "on", True
            return True
        if table_done and w == "using":
            c.phase = "using"
            return True
        complete = table_done or p == "after_alias" or (not c.need and not c.after and not c.between and p in (
            "select", "select_alias_ok", "where", "on", "group", "having", "order", "limit", "offset"))
        if p == "on" and complete and w in JOIN_WORDS:
            if w == "join":
                c.phase, c.need = "table", True
            else:
                c.phase, c.after = "join_kw", w
            return True
        if complete:
            clause = {"select_alias_ok": "select", "after_alias": c.after or "select", "after_table": "from",
                      "after_table_alias": "from", "on": "from", "using": "from"}.get(p, p)
            if p == "after_alias":
                clause = "select"
            if w == "from" and clause == "select":
                c.phase, c.need, c.after = "table", True, ""
                return True
            if w in NEXT_CLAUSE.get(clause, ()) or (w == "offset" and clause == "limit"):
                if w in ("group", "order"):
                    c.phase, c.after = "by", w
                elif w == "limit":
                    c.phase, c.need = "limit_start", True
                else:
                    c.phase, c.need = w, True
                c.items = False
                return True
            if w in COMPOUND and clause not in NO_COMPOUND_AFTER:
                c.phase, c.need, c.after = "compound", False, ""
                return True
            if p == "order" and w in ("asc", "desc") and not c.need:
                c.phase = "order_dir"
                return True
            if p == "order_dir":
                return False
        if p == "order_dir":
            if w in ("limit",):
                c.phase, c.need = "limit_start", True
                return True
            if w == "nulls":
                return True
        if p == "limit" and w == "offset" and not c.need:
            c.phase, c.need = "offset", True
            return True
        return False

    # ---- parentheses and commas ------------------------------------------------------------------------------
    def _open(self, c: Ctx) -> None:
        if c.kind == "query" and c.phase == "table":  # a derived table: `FROM (a.b, c)` is no table
            self.stack.append(Ctx("paren", "subquery", True))
            return
        if c.kind == "query" and c.phase == "cte_open":
            c.phase = "after_cte"
            self.stack.append(Ctx("paren", "start_q", True))
            return
        if c.kind == "query" and c.phase == "with_as":
            self.stack.append(Ctx("names", "", True))
            return
        if c.kind == "query" and c.phase == "using":
            c.phase = "using_done"
            self.stack.append(Ctx("names", "", True))
            return
        if c.kind == "cast" and c.phase == "type" and not c.need:
            self.stack.append(Ctx("loose"))
            return
        if c.after in ("cast",):
            c.after = ""
            self._nest(Ctx("cast", "expr", True))
            return
        if c.after == "exists":
            c.after = ""
            self.stack.append(Ctx("paren", "subquery", True))
            return
        if not c.need and c.fn:  # a function call
            name, c.fn = c.fn, ""
            if name in AGGREGATES and not self._aggregate_ok():
                raise GrammarError(f"{name}(): an aggregate inside an aggregate or in WHERE / ON / GROUP BY")
            self._nest(Ctx("args", "none" if name in NO_ARGUMENTS else "start", True, call=name,
                           items=name == "count"))  # `*` is an argument of COUNT only
            c.need = True  # the call's value is an operand once `)` closes
            return
        if c.after == "in":
            self.stack.append(Ctx("paren", "start_q", True))
            return
        if c.after == "collate":
            raise GrammarError("a collation name must follow COLLATE")
        if not self._operand_ok(c):
            raise GrammarError("`(` cannot stand here")
        self.stack.append(Ctx("paren", "start_q", True))

    def _close(self, c: Ctx) -> None:
        if c.kind == "query":
            if len(self.stack) == 1 or not self._query_complete(c):
                raise GrammarError("`)` before the subquery is whole")
        elif c.kind == "args":
            if c.need and not (c.phase in ("start", "none") and not c.after):
                raise GrammarError("`)` where an argument belongs")
        elif c.kind in ("paren", "cast"):
            if c.need or c.after or c.between or (c.kind == "cast" and c.phase != "type"):
                raise GrammarError("`)` where an operand belongs")
        elif c.kind == "names":
            if c.need:
                raise GrammarError("`)` where a name belongs")
        elif c.kind == "case":
            raise GrammarError("`)` inside CASE")
        self._pop()
        outer = self.stack[-1]
        if c.kind == "query" or (c.kind == "paren" and c.phase == "subquery"):
            if outer.kind == "query" and outer.phase == "table":
                outer.phase, outer.need = "after_table", False
                return
            if outer.kind == "query" and outer.phase == "after_cte":
                outer.phase = "with_done"
                return
        if c.kind == "names":
            if outer.kind == "query" and outer.phase == "with_as":
                return
            outer.phase = "after_table_alias" if outer.phase == "using_done" else outer.phase
            return
        self._operand(outer)

    def _comma(self, c: Ctx) -> None:
        if c.kind == "query":
            p = c.phase
            if p in ("after_table", "after_table_alias", "on", "using_done") and not c.need:
                c.phase, c.need = "table", True
                return
            if p in ("select_alias_ok", "after_alias", "select") and not c.need and not c.after:
                c.phase, c.need, c.items = "select", True, True
                return
            if p in ("group", "order", "order_dir") and not c.need and not c.after:
                c.phase, c.need = ("order" if p == "order_dir" else p), True
                return
            if p == "limit" and not c.need:
                c.phase, c.need = "offset", True
                return
            if p == "with_done":
                c.phase = "with_name"
                return
            raise GrammarError("`,` cannot stand here")
        if c.kind in ("args", "paren") and not c.need and not c.after and not c.between:
            c.need, c.phase = True, "expr"
            return
        if c.kind == "names" and not c.need:
            c.need = True
            return
        if c.kind == "loose":
            return
        raise GrammarError("`,` cannot stand here")
