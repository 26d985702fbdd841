"""An incremental SQL scanner that knows a schema: it reads generated SQL one character at a time and says
whether the text so far can still become a query that names only real tables and columns.

In the spirit of PICARD (Scholak et al., 2021: reject a prefix as soon as it cannot be completed). The scanner
splits characters into words, literals and symbols and feeds them to the SQL grammar (`sql_grammar.py`, syntax);
itself it checks identifiers, the failure the small generator shows on databases it has never seen:
- after FROM / JOIN (and a comma of a FROM list) an identifier must be a table of the schema (or a CTE);
- after `Q.` it must be a column of Q: a table, or an alias the query declares;
- a bare identifier must be a keyword, a function, a column, a table, or a name the query declares
  (`AS cnt`, an alias, a CTE); a function name must open its parentheses. A qualifier used before its FROM
  clause declares it (`SELECT T1.name FROM shop AS T1`) must look like an alias (one letter, then 0-2 digits):
  its columns are checked against the table once the alias is declared, and no clause after FROM may start
  (nor the query end) while such an alias is undeclared.
A few clause rules come along because they cost nothing: clause keywords in SQLite's order (no FROM after
WHERE), BY only after GROUP / ORDER / PARTITION and always after them, no parenthesis after a table name, and
an alias declared without AS shaped like one (`FROM shop s`, not `FROM shop WHEREcity`).
Quoted identifiers (`"Order Details"`, `` `Order Qty` ``, `[Order Qty]`) are matched whole, spaces and all.
Names match case-insensitively, as SQLite matches them. String literals and numbers are free.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from toolkit.chase_sql.sql_grammar import LITERAL_WORDS, RESERVED, Grammar, GrammarError

FORWARD_ALIAS = re.compile(r"[a-z][0-9]{0,2}")  # T1, a: prefix-closed (every prefix of a match matches)
PLAIN = re.compile(r"[a-z_][a-z0-9_$]*")
# Every prefix of a numeric literal SQLite reads (`12`, `1.5`, `2e-3`, `0x1F`): `1.hired` is no number.
NUMBER_PREFIX = re.compile(r"\d+(\.\d*)?([eE][+-]?\d*)?|0[xX][0-9a-fA-F]*")
QUOTES = {'"': '"', "`": "`", "[": "]"}

# Keywords that a SELECT query may hold (DDL words and type names are left out: a type only follows AS, where
# any name may stand, and `WHERE generated = 1` should not pass for a column).
KEYWORDS = frozenset("""
all and as asc between by case cast collate cross current current_date current_time current_timestamp desc distinct
else end escape except exists false filter first following from full glob group groups having in inner intersect
is isnull join last left like limit match natural not notnull null nulls offset on or order outer over partition
preceding range recursive regexp right row rows select then true unbounded union using when where window with
""".split())
FUNCTIONS = frozenset("""
abs avg changes char coalesce count cume_dist date datetime dense_rank first_value format glob group_concat hex
ifnull iif instr julianday lag last_value lead length like likelihood likely lower ltrim max min nth_value
ntile nullif percent_rank printf quote random randomblob rank replace round row_number rtrim sign soundex sqrt
strftime string_agg substr substring sum time total trim typeof unicode unixepoch unlikely upper zeroblob
ceil ceiling floor ln log log10 log2 mod pi pow power exp
""".split())
# Keywords of clauses the grammar does not take (windows, NULLS FIRST): unquoted, such a word can only be a name
# the schema or the query declares (`WHERE groups = ...` is "no such column", `FROM t GROUPs` no alias).
CONTEXTUAL = KEYWORDS - RESERVED - LITERAL_WORDS
CLAUSES = frozenset("select from join where on group order having limit offset with union intersect except "
                    "using".split())
# Where a clause keyword may stand in a query (SQLite's clause order): the clauses it may follow.
_AFTER = {
    "select": (None, "with"), "from": ("select",), "join": ("from", "join", "on", "using"), "on": ("join",),
    "using": ("join",), "where": ("from", "join", "on", "using"),
    "group": ("from", "join", "on", "using", "where"), "having": ("group",),
    "order": ("select", "from", "join", "on", "using", "where", "group", "having"),
    "limit": ("select", "from", "join", "on", "using", "where", "group", "having", "order"), "offset": ("limit",),
    "union": ("select", "from", "join", "on", "using", "where", "group", "having", "order", "limit", "offset"),
}
_AFTER["intersect"] = _AFTER["except"] = _AFTER["union"]
FROM_LIST = frozenset(("from", "join", "on", "using"))  # clauses of a FROM list, where a comma adds a table
_LEAVE_FROM = frozenset(("where", "group", "having", "order", "limit", "union", "intersect", "except"))

# Clause keywords as the generator writes them: inside a string literal they mean the literal was never closed
# (`= '1960 ORDER BY birth_date ...`); a value that holds them is rare enough to give up.
# The check falls on the character after the word (a space, `?`, `(`), a token the processor judges one by one.
CLAUSE_IN_LITERAL = (" FROM", " WHERE", " ORDER", " GROUP", " LIMIT", "SELECT", " JOIN", " DESC", " ASC", " =")
MAX_SPACES = 8  # a longer run of whitespace between tokens is a decoding loop, not formatting

BARE, TABLE, COLUMN, ALIAS, AFTER_TABLE, FREE, CTE = "bare", "table", "column", "alias", "after_table", "free", "cte"


def is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


class Sorted:
    """Names for prefix tests: `has_prefix` by bisection, `has` by set."""

    def __init__(self, names) -> None:
        self.names = sorted(set(names))
        self.set = frozenset(self.names)

    def has(self, word: str) -> bool:
        return word in self.set

    def has_prefix(self, prefix: str, excluded: frozenset[str] = frozenset()) -> bool:
        i = bisect.bisect_left(self.names, prefix)
        while i < len(self.names) and self.names[i].startswith(prefix):
            if self.names[i] not in excluded:
                return True
            i += 1
        return False

    def with_prefix(self, prefix: str) -> list[str]:
        i = bisect.bisect_left(self.names, prefix)
        out = []
        while i < len(self.names) and self.names[i].startswith(prefix):
            out.append(self.names[i])
            i += 1
        return out


_BY = Sorted(["by"])


class SchemaNames:
    """The tables and columns a query may name (lower case), from {table: [column, ...]}."""

    def __init__(self, tables: dict[str, list[str]]) -> None:
        self.tables = {t.lower(): frozenset(c.lower() for c in cols) for t, cols in tables.items()}
        self.all_columns = frozenset(c for cols in self.tables.values() for c in cols)
        # (quoted, unquoted): a name with a space or a symbol can only be written quoted
        self.table_names = (Sorted(self.tables), Sorted(_plain(self.tables)))
        self.column_names = (Sorted(self.all_columns), Sorted(_plain(self.all_columns)))
        self.column_sets = {t: (Sorted(cols), Sorted(_plain(cols))) for t, cols in self.tables.items()}
        self.bare = Sorted(KEYWORDS | FUNCTIONS | set(_plain(self.tables.keys() | self.all_columns)))
        self.quoted_bare = Sorted(self.tables.keys() | self.all_columns)
        self.keywords = Sorted(KEYWORDS)
        self._bare_for: dict = {}
        self._not_covering: dict = {}

    def not_covering(self, columns: frozenset[str]) -> frozenset[str]:
        """The tables a FROM list may not start with after a SELECT that named `columns` unqualified: those
        without all of them (when some table has all; else those with none of them). A heuristic, not
        SQLite's rule (a JOIN could bring the rest), that keeps the generator from a table it cannot leave
        (`SELECT AVG(price) FROM order_items ...`: no clause may follow, a dead end)."""
        if columns not in self._not_covering:
            full = {t for t, cols in self.tables.items() if columns <= cols}
            ok = full or {t for t, cols in self.tables.items() if columns & cols}
            self._not_covering[columns] = frozenset(self.tables.keys() - ok)
        return self._not_covering[columns]

    def bare_for(self, tables: frozenset[str] | None, quoted: bool) -> Sorted:
        """The bare names once a query's FROM clause has named `tables` (None: not yet, or unknown columns):
        keywords, functions and table names, and only those tables' columns."""
        if tables is None:
            return self.quoted_bare if quoted else self.bare
        key = (tables, quoted)
        if key not in self._bare_for:
            cols = {c for t in tables for c in self.tables.get(t, ())}
            names = self.tables.keys() | cols
            self._bare_for[key] = Sorted(names if quoted else KEYWORDS | FUNCTIONS | set(_plain(names)))
        return self._bare_for[key]


def _plain(names) -> list[str]:
    return [n for n in names if PLAIN.fullmatch(n)]


@dataclass
class Frame:
    """One level of parentheses; a frame that holds a SELECT is an alias scope."""

    clause: str | None = None
    query: bool = False
    aliases: dict[str, str | None] = field(default_factory=dict)  # alias -> table (None: derived/CTE)
    pending: dict[str, set[str]] = field(default_factory=dict)  # alias used before declared -> columns
    bare: set[str] = field(default_factory=set)  # unqualified columns named before the FROM clause
    items: list[str | None] = field(default_factory=list)  # the FROM list's tables (None: unknown columns)
    merged: bool = False  # USING / NATURAL JOIN: a shared column may stand unqualified

    def clone(self) -> Frame:
        return Frame(self.clause, self.query, dict(self.aliases), {k: set(v) for k, v in self.pending.items()},
                     set(self.bare), list(self.items), self.merged)


Invalid = GrammarError  # the text can no longer become a query (a name the schema lacks, or bad syntax)


@dataclass
class ScanState:
    schema: SchemaNames
    mode: str = "n"  # n: between tokens, i: unquoted identifier, q: quoted, qd: quote just closed,
    #                  s: string, s_end: a quote inside a string (closes it unless doubled), num: number
    word: str = ""
    closer: str = ""
    role: tuple = (BARE,)
    frames: list[Frame] = field(default_factory=lambda: [Frame()])
    names: frozenset[str] = frozenset()  # declared column aliases and CTE names
    ctes: frozenset[str] = frozenset()
    started: bool = False
    prev: str = ""  # the last keyword, when the last word was one
    grammar: Grammar = field(default_factory=Grammar)  # the SQL syntax of the text so far
    literal: str = ""  # the string literal being read
    spaces: int = 0  # whitespace characters in a row

    def clone(self) -> ScanState:
        return ScanState(self.schema, self.mode, self.word, self.closer, self.role,
                         [f.clone() for f in self.frames], self.names, self.ctes, self.started, self.prev,
                         self.grammar.clone(), self.literal, self.spaces)

    # ---- what the identifier being typed may become -------------------------------------------------------
    def _aliases(self) -> set[str]:
        return {a for f in self.frames for a in f.aliases}

    def candidates(self, role: tuple, quoted: bool) -> tuple[list[Sorted], set[str], frozenset[str]] | None:
        """(static name lists, dynamic names, keywords not allowed here) an identifier in `role` may be;
        None: any name."""
        s = self.schema
        kind = role[0]
        pick = 0 if quoted else 1
        if kind == TABLE:
            scope = self._scope()
            first = scope.query and not scope.items and scope.bare  # the FROM list's first table
            return [s.table_names[pick]], set(self.ctes), \
                s.not_covering(frozenset(scope.bare)) if first else frozenset()
        if kind == COLUMN:
            if role[1] is None:
                return None
            return [(s.column_sets[role[1]] if role[1] != "*" else s.column_names)[pick]], set(), frozenset()
        if kind == BARE:
            if self.prev in ("group", "order", "partition"):
                return [_BY], set(), frozenset()
            scope = self._scope()
            vis = self._visible_tables() if scope.query and scope.clause not in (None, "select", "with") else None
            if quoted:
                return [s.bare_for(vis, True)], set(self.names) | self._aliases() | set(self.ctes), frozenset()
            return [s.bare_for(vis, False)], set(self.names) | self._aliases() | set(self.ctes), \
                self.excluded_keywords()
        if kind == AFTER_TABLE and not quoted:  # a keyword, or an alias without AS (shaped like T1)
            return [s.keywords], set(), self.excluded_keywords()
        return None

    def excluded_keywords(self) -> frozenset[str]:
        """Clause keywords that cannot stand here (out of SQLite's clause order, or leaving a FROM clause
        while an alias used before it is still undeclared)."""
        return frozenset(k for k in (*_AFTER, "with") if not self.keyword_ok(k))

    def keyword_ok(self, low: str, prev: str | None = None) -> bool:
        frame = self.frames[-1]
        if low == "by":
            return (self.prev if prev is None else prev) in ("group", "order", "partition")
        if low == "with":
            return len(self.frames) == 1 and frame.clause is None and not frame.query
        if low not in _AFTER:
            return True
        if not frame.query:  # parentheses of an expression: a subquery may start; a window may ORDER
            return (low == "select" and frame.clause in (None, "with")) or low == "order"
        if frame.clause not in _AFTER[low]:
            return False
        if low in _LEAVE_FROM and frame.pending and not self._outer_may_declare():
            return False
        if low in _LEAVE_FROM and not self._bare_seen(frame):
            return False
        return True

    def _outer_may_declare(self) -> bool:
        """Whether a query around the current one is still before its FROM clause (it may declare aliases)."""
        inner = self._scope()
        return any(f.query and f.clause in (None, "select") for f in self.frames if f is not inner)

    def _may_forward(self) -> bool:
        return any(f.query and f.clause in (None, "select") for f in self.frames)

    def prefix_ok(self, word: str, quoted: bool, role: tuple | None = None) -> bool:
        role = role or self.role
        low = word.lower()
        cands = self.candidates(role, quoted)
        if cands is None:
            return quoted or bool(PLAIN.fullmatch(low)) or low == ""
        lists, extra, excluded = cands
        if any(lst.has_prefix(low, excluded) for lst in lists) or any(n.startswith(low) for n in extra):
            return True
        return self._alias_shaped(low, quoted, role)

    def _alias_shaped(self, low: str, quoted: bool, role: tuple) -> bool:
        """An alias used before its FROM clause, or one declared without AS: shaped like T1."""
        if quoted or not FORWARD_ALIAS.fullmatch(low):
            return False
        return role[0] == AFTER_TABLE or (role[0] == BARE and self._may_forward())

    def _complete_ok(self, low: str, quoted: bool) -> bool:
        cands = self.candidates(self.role, quoted)
        if cands is None:
            return True
        lists, extra, excluded = cands
        return ((any(lst.has(low) for lst in lists) and low not in excluded) or low in extra
                or (self.role[0] == AFTER_TABLE and self._alias_shaped(low, quoted, self.role)))

    # ---- scope helpers --------------------------------------------------------------------------------------
    def _scope(self) -> Frame:
        for f in reversed(self.frames):
            if f.query:
                return f
        return self.frames[0]

    def _lookup(self, alias: str) -> tuple[bool, str | None]:
        for f in reversed(self.frames):
            if alias in f.aliases:
                return True, f.aliases[alias]
        return False, None

    def _bind(self, alias: str, table: str | None, declared: bool = False) -> None:
        """`alias` names `table` in this query; `declared`: an alias proper (AS T1), which may not repeat."""
        scope = self._scope()
        if declared and alias in scope.aliases and alias not in self.schema.tables:
            raise Invalid(f"alias {alias} declared twice")
        used = scope.pending.pop(alias, set())
        if table is not None and table in self.schema.tables and not used <= self.schema.tables[table]:
            raise Invalid(f"alias {alias} used with columns not in {table}")
        scope.aliases[alias] = table

    def _visible_tables(self) -> frozenset[str] | None:
        """The tables the FROM clauses around here have named; None when one of them has unknown columns
        (a derived table, a CTE) or none is named yet."""
        out = set()
        for f in self.frames:
            for table in f.aliases.values():
                if table is None:
                    return None
                out.add(table)
        return frozenset(out) or None

    def _bare_seen(self, frame: Frame) -> bool:
        """Whether the unqualified columns a scope named before its FROM clause belong to its tables."""
        if not frame.bare:
            return True
        vis = self._visible_tables()
        if vis is None:
            return True
        cols = {c for t in vis for c in self.schema.tables.get(t, ())}
        return frame.bare <= cols

    def _settle(self, frame: Frame, into: Frame | None) -> None:
        """Pending aliases of a closing scope: check against an outer declaration, else pass them outward."""
        for alias, cols in frame.pending.items():
            found, table = self._lookup(alias)
            if found:
                if table in self.schema.tables and not cols <= self.schema.tables[table]:
                    raise Invalid(f"alias {alias} used with columns not in {table}")
            elif into is not None and into.clause in (None, "select"):
                into.pending.setdefault(alias, set()).update(cols)
            else:
                raise Invalid(f"alias {alias} is never declared")
        frame.pending = {}

    # ---- identifiers ----------------------------------------------------------------------------------------
    def _finish_word(self, word: str, quoted: bool, nxt: str | None) -> bool:
        """Complete the identifier `word` followed by `nxt` (None: the end). True when `nxt` was consumed."""
        low = word.lower()
        kind = self.role[0]
        frame = self.frames[-1]
        if kind == BARE and nxt == ".":  # a qualifier
            self.grammar.qualified()
            self.role = self._qualifier(low, quoted, word)
            return True
        if not self._complete_ok(low, quoted):
            raise Invalid(f"{word}: not a name of the schema here")
        if not quoted and kind in (BARE, AFTER_TABLE) and low in CONTEXTUAL and not self._declared_or_schema(low):
            raise Invalid(f"{word}: a keyword of a clause this grammar does not take")
        self.grammar.word(low, quoted or kind in (COLUMN, TABLE, ALIAS, CTE, FREE))
        prev, self.prev = self.prev, ""
        if kind == BARE and not quoted and low in FUNCTIONS and nxt != "(" and not self._is_name(low):
            raise Invalid(f"{word}: a function name without its parentheses")
        if kind == BARE and nxt != "." and self._only_qualifier(low):
            raise Invalid(f"{word}: a table or alias where a value belongs (`{word}.column`)")
        if kind == COLUMN:
            if len(self.role) > 2:  # a column of an alias not declared yet
                self._scope().pending.setdefault(self.role[2], set()).add(low)
            self.role = (BARE,)
        elif kind == TABLE:  # the table's own name qualifies its columns too (`shop.city`)
            table = low if low in self.schema.tables else None
            self._bind(low, table)
            self._scope().items.append(table)
            self.role = (AFTER_TABLE, table)
        elif kind == ALIAS:
            self._bind(low, self.role[1], declared=True)
            self.role = (BARE,)
        elif kind == CTE:
            self.ctes, self.names = self.ctes | {low}, self.names | {low}
            self.role = (BARE,)
        elif kind == FREE:
            self.names = self.names | {low}
            self.role = (BARE,)
        elif kind == AFTER_TABLE and (quoted or low not in KEYWORDS):
            self._bind(low, self.role[1], declared=True)  # an alias without AS
            self.role = (BARE,)
        else:  # a keyword or another bare name
            after_table = self.role if kind == AFTER_TABLE else None
            self.role = (BARE,)
            scope = self._scope()
            if low in self.ambiguous() and not (low in FUNCTIONS and nxt == "(") and not self._lookup(low)[0]:
                raise Invalid(f"{word}: an ambiguous column (two tables of the FROM list have it)")
            if (low in self.schema.all_columns and scope.query and scope.clause == "select"
                    and not (not quoted and (low in KEYWORDS or low in FUNCTIONS))
                    and low not in self.names and low not in self.schema.tables and not self._lookup(low)[0]):
                scope.bare.add(low)
            if not quoted:
                self._keyword(low, frame, after_table, prev)
        return False

    def _declared_or_schema(self, low: str) -> bool:
        return (low in self.schema.all_columns or low in self.schema.tables or low in self.names or low in self.ctes
                or self._lookup(low)[0])

    def unusable_words(self) -> frozenset[str]:
        """CONTEXTUAL words that are no name here either, and for an unqualified name (not after `T1.`)
        functions where no call may open (nested too deep) and ambiguous columns: for masking name tokens in bulk."""
        if self.role[0] != BARE:
            return frozenset(w for w in CONTEXTUAL if not self._declared_or_schema(w))
        words = CONTEXTUAL if self.grammar.nest_ok() else CONTEXTUAL | FUNCTIONS
        return frozenset(w for w in words if not self._declared_or_schema(w)) | self.ambiguous()

    def ambiguous(self) -> frozenset[str]:
        """Columns that two tables of this query's FROM list share (a self-join's every column): SQLite
        refuses them unqualified ("ambiguous column name"). Empty before FROM, after USING / NATURAL JOIN
        and when a FROM item's columns are unknown (a derived table, a CTE)."""
        scope = self._scope()
        if (not scope.query or scope.clause in (None, "select", "with") or scope.merged or len(scope.items) < 2
                or None in scope.items):
            return frozenset()
        seen: set[str] = set()
        twice: set[str] = set()
        for table in scope.items:
            cols = self.schema.tables[table]
            twice |= seen & cols
            seen |= cols
        return frozenset(twice - self.names)

    def _only_qualifier(self, low: str) -> bool:
        """A table or alias name that is no column, keyword, function or declared name: it can only qualify
        (`WHERE customers = 'Spain'`, `ON T1 = 1` are no such column)."""
        if (low in KEYWORDS or low in FUNCTIONS or low in self.schema.all_columns or low in self.names
                or low in self.ctes):
            return False
        return low in self.schema.tables or self._lookup(low)[0]

    def _is_name(self, low: str) -> bool:
        """A keyword, column, table or declared name (not only a function)."""
        return (low in KEYWORDS or low in self.schema.all_columns or low in self.schema.tables or low in self.names
                or low in self.ctes or self._lookup(low)[0])

    def _keyword(self, low: str, frame: Frame, after_table: tuple | None, prev: str) -> None:
        if not self.keyword_ok(low, prev):
            raise Invalid(f"{low.upper()} cannot stand here")
        if low in KEYWORDS:
            self.prev = low
        if low in ("using", "natural"):
            self._scope().merged = True
        if low in ("from", "join"):
            frame.clause = low
            self.role = (TABLE,)
        elif low == "as":
            if after_table:
                self.role = (ALIAS, after_table[1])
            elif frame.clause != "with":  # `WITH x AS (...)`: the CTE's body follows
                self.role = (FREE,)
        elif low in ("with", "recursive"):
            frame.clause = "with"
            self.role = (CTE,)
        elif low == "select":
            frame.query, frame.clause = True, "select"
        elif low in ("union", "intersect", "except"):
            self._settle(frame, self._outer_scope())
            frame.aliases, frame.clause, frame.bare, frame.items, frame.merged = {}, None, set(), [], False
        elif low in CLAUSES:
            frame.clause = low

    def _qualifier(self, low: str, quoted: bool, word: str) -> tuple:
        """The role of the name after `low.`: a column of its table, of any table (an alias not declared yet),
        or any name (a derived table or CTE)."""
        scope = self._scope()
        forward = not quoted and FORWARD_ALIAS.fullmatch(low) and self._may_forward()
        if scope.items.count(low) > 1:  # `doctors.id` with doctors twice in the FROM list
            raise Invalid(f"{word}: an ambiguous qualifier (the FROM list has the table twice)")
        if low in scope.aliases:
            table = scope.aliases[low]
            return (COLUMN, table if table in self.schema.tables else None)
        if low in self.schema.tables:
            return (COLUMN, low)
        if forward and scope.clause in (None, "select"):  # before this scope's FROM: may be declared there
            return (COLUMN, "*", low)
        found, table = self._lookup(low)
        if found:
            return (COLUMN, table if table in self.schema.tables else None)
        if low in self.ctes:
            return (COLUMN, None)
        if forward:
            return (COLUMN, "*", low)
        raise Invalid(f"{word}: no such table or alias")

    def _outer_scope(self) -> Frame | None:
        for f in reversed(self.frames[:-1]):
            if f.query:
                return f
        return self.frames[0] if len(self.frames) > 1 else None

    # ---- characters -----------------------------------------------------------------------------------------
    def feed(self, text: str) -> None:
        for ch in text:
            self.step(ch)

    def step(self, ch: str) -> None:
        mode = self.mode
        if mode == "i":
            if is_ident_char(ch):
                self.word += ch
                if not self.prefix_ok(self.word, False):
                    raise Invalid(f"{self.word}: no name of the schema starts so")
                return
            self.mode = "n"
            if self._finish_word(self.word, False, ch):
                return
        elif mode == "q":
            if ch == self.closer:
                if not self.word:
                    raise Invalid("an empty quoted name")
                if not self._complete_ok_quoted():
                    raise Invalid(f"{self.word}: not a name of the schema here")
                self.mode = "qd"
                return
            self.word += ch
            if not self.prefix_ok(self.word, True):
                raise Invalid(f"{self.word}: no name of the schema starts so")
            return
        elif mode == "qd":
            self.mode = "n"
            if is_ident_char(ch) or ch in QUOTES:
                raise Invalid("a name straight after a quoted name")
            if self._finish_word(self.word, True, ch):
                return
        elif mode == "s":
            if ch == "'":
                self.mode = "s_end"
                return
            if not is_ident_char(ch) and self.literal.endswith(CLAUSE_IN_LITERAL):
                raise Invalid(f"a clause inside a string literal: '{self.literal}")
            if ch == "\n":  # a value over two lines: a literal the model never closed
                raise Invalid("a line break inside a string literal")
            self.literal += ch
            return
        elif mode == "s_end":
            if ch == "'":
                self.mode = "s"
                self.literal += ch
                return
            self.mode = "n"
        elif mode == "num":
            if is_ident_char(ch) or ch == "." or (ch in "+-" and self.literal[-1:] in ("e", "E")):
                if not NUMBER_PREFIX.fullmatch(self.literal + ch):
                    raise Invalid(f"{self.literal + ch}: not a number")
                self.literal += ch
                return
            self.mode = "n"
        self._neutral(ch)

    def _complete_ok_quoted(self) -> bool:
        low = self.word.lower()
        if self.role[0] == BARE:  # a quoted qualifier (`"Order Details".id`) is a table or an alias
            return self._complete_ok(low, True) or low in self.schema.tables or self._lookup(low)[0]
        return self._complete_ok(low, True)

    def _neutral(self, ch: str) -> None:
        kind = self.role[0]
        if ch.isspace():
            if kind == COLUMN:
                raise Invalid("a space after a qualifier's dot")
            self.spaces += 1
            if self.spaces > MAX_SPACES:
                raise Invalid("a run of whitespace")
            self.grammar.space()
            return
        self.spaces = 0
        self.started = True
        if is_ident_char(ch) and not ch.isdigit() and ch != "$":
            if not self.prefix_ok(ch, False):
                raise Invalid(f"{ch}: no name of the schema starts so")
            self.mode, self.word = "i", ch
            return
        if ch in QUOTES:
            if not self.grammar.ident_ok():
                raise Invalid("a quoted name cannot stand here")
            self.mode, self.word, self.closer = "q", "", QUOTES[ch]
            return
        if kind == AFTER_TABLE and ch == "(":
            raise Invalid("a parenthesis straight after a table name")
        if kind == AFTER_TABLE:  # the table had no alias: carry on as after any name
            self.role = (BARE,)
            kind = BARE
        if kind == COLUMN:
            if ch == "*":
                self.grammar.star()
                self.role = (BARE,)
                return
            raise Invalid("a column must follow a qualifier's dot")
        if kind == TABLE:
            if ch == "(":
                self.grammar.symbol(ch)
                self.frames.append(Frame())
                self.role = (BARE,)
                return
            raise Invalid("a table must follow FROM / JOIN")
        if kind != BARE:
            raise Invalid("a name must follow AS")
        frame = self.frames[-1]
        if ch.isdigit() or ch == "'":
            self.grammar.literal()
        elif ch != ".":
            self.grammar.symbol(ch)
        if ch.isdigit():
            self.mode, self.literal = "num", ch
        elif ch == "'":
            self.mode, self.literal = "s", ""
        elif ch == "(":
            self.frames.append(Frame())
        elif ch == ")":
            if len(self.frames) == 1:
                raise Invalid("a closing parenthesis without an opening one")
            if self.frames[-1].query and not self._bare_seen(self.frames[-1]):
                raise Invalid("a column that no table of the FROM clause has")
            closed = self.frames.pop()
            if closed.query:
                self._settle(closed, self._scope())
                if self.frames[-1].clause in ("from", "join"):
                    self.role = (AFTER_TABLE, None)  # a derived table: its alias has unknown columns
                    self._scope().items.append(None)
        elif ch == ",":
            if frame.clause in FROM_LIST:  # `FROM a JOIN b ON .., c`: a table follows, as the grammar says
                self.role = (TABLE,)
            elif frame.clause == "with":
                self.role = (CTE,)
        elif ch == ".":
            raise Invalid("a dot without a qualifier")

    # ---- the end --------------------------------------------------------------------------------------------
    def can_end(self) -> bool:
        """Whether the text so far is a whole query as far as names go."""
        if not self.started or self.mode in ("q", "s"):
            return False
        probe = self.clone()
        try:
            if probe.mode in ("i", "qd"):
                probe._finish_word(probe.word, probe.mode == "qd", None)
        except Invalid:
            return False
        if probe.role[0] in (TABLE, COLUMN, ALIAS, FREE, CTE) or len(probe.frames) > 1:
            return False
        if not probe.grammar.can_end():
            return False
        try:
            probe._settle(probe.frames[0], None)
        except Invalid:
            return False
        return probe._bare_seen(probe.frames[0])


def scan(schema: SchemaNames, text: str) -> ScanState | None:
    """The state after `text`, or None when `text` already names something the schema lacks."""
    state = ScanState(schema)
    try:
        state.feed(text)
    except Invalid:
        return None
    return state
