"""Varied naming (`world --names varied`): table and column names that differ from database to database the way
real BIRD databases do, so that a model trained on them has to copy names from the schema it is shown.

Each database draws its own conventions (a `NameStyle`): the identifier case (snake_case, camelCase, PascalCase,
run-together lower case, UPPER_SNAKE, or words with spaces that SQL must quote), plural or singular table names,
how keys are named (`id`, `customer_id`, `CustomerID`, `dept_no`, `cust_code`), how foreign keys are named (as the
key they reference, by the parent's noun, or by a role: `ownerId`, `manager_ref`, `HostRef`), and the name
column (`name`, `product_name`, `title`). Words are English nouns, compounds of two nouns, abbreviations
(`dept`, `qty`, `emp`) and a share of invented syllable strings. Questions say the words (`order items`,
`quantity`), sometimes a synonym, not the identifier; a synonym always comes with a BIRD-style hint
(`pay refers to salary_amt`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.chase_sql.world.vocab import ENTITIES, SPLITS, SQL_WORDS, Entity, invented_word, split_vocabulary

CASES = ("snake", "snake", "snake", "camel", "pascal", "pascal", "lower", "upper", "spaced")
KEYS = ("id", "stem_id", "stem_id", "stem_id", "stemId", "StemID", "abbr_no", "abbr_code", "stem_key")
LABELS = ("name", "name", "stem_name", "stem_name", "title", "full_name", "label")
ROLES = ("owner", "manager", "holder", "buyer", "seller", "host", "leader", "creator", "assigned", "parent",
         "source", "origin", "maker", "reviewer", "keeper", "agent", "head", "primary", "home", "main")
ROLE_SUFFIXES = ("Id", "_id", "Ref", "_ref", "_key", "_no", "ID")
INVENTED_SHARE = 0.15  # of the words: syllable strings, so no word can be learned by heart

# Common abbreviations in real schemas (word -> abbreviation); other words get a rule-based one.
ABBREVIATIONS = {
    "department": "dept", "quantity": "qty", "amount": "amt", "number": "num", "employee": "emp",
    "customer": "cust", "address": "addr", "category": "cat", "account": "acct", "average": "avg",
    "description": "descr", "reference": "ref", "transaction": "txn", "manager": "mgr", "organization": "org",
    "information": "info", "temperature": "temp", "maximum": "max_val", "minimum": "min_val", "position": "pos",
    "telephone": "tel", "population": "pop", "percentage": "pct", "registration": "reg", "warehouse": "whse",
    "product": "prod", "supplier": "supp", "invoice": "inv", "schedule": "sched", "balance": "bal",
    "salary": "sal", "district": "dist", "region": "rgn", "document": "doc", "station": "stn",
    "version": "ver", "statement": "stmt", "vehicle": "veh", "identifier": "ident", "capacity": "cap",
}

# Question-side synonyms: a question may say the right-hand word for the left-hand one (always with a hint).
SYNONYMS = {
    "salary": ("pay", "wage"), "price": ("cost", "charge"), "city": ("town",), "quantity": ("amount ordered",
    "number of units"), "rating": ("score",), "weight": ("heaviness",), "amount": ("sum",), "category": ("type",
    "kind"), "status": ("state",), "country": ("nation",), "height": ("tallness",), "speed": ("velocity",),
    "length": ("extent",), "population": ("number of inhabitants",), "budget": ("funds",), "age": ("years of age",),
    "capacity": ("room",), "duration": ("length of time",), "color": ("colour",), "genre": ("style",),
    "distance": ("range",), "region": ("area",), "rank": ("position",), "size": ("dimension",),
}

# Column words by value kind (used for about half of the columns; the rest are any attribute word).
KIND_WORDS = {
    "city": ("city", "town", "hometown", "location", "birth city", "base city", "hq city", "city name"),
    "country": ("country", "country of origin", "home country", "nationality", "birth country"),
    "status": ("status", "current status", "condition", "phase", "order status"),
    "color": ("color", "colour", "paint", "shade name"),
    "tier": ("tier", "grade", "class", "category", "segment", "membership level"),
    "person": ("manager", "contact", "owner name", "supervisor name", "agent name", "head"),
    "year": ("year", "founded", "start year", "year built", "opened", "release year", "season year"),
    "count": ("quantity", "stock", "count", "seats", "employees", "members", "copies", "visits"),
    "rating": ("rating", "stars", "review score", "grade points", "rank value"),
    "flag": ("active", "is open", "enabled", "approved", "has discount", "verified flag"),
    "price": ("price", "unit price", "cost", "list price", "charge"),
    "weight": ("weight", "net weight", "mass kg", "load"),
    "amount": ("amount", "total", "revenue", "salary", "budget", "balance due", "payment"),
    "date": ("date", "start date", "created", "hired on", "birth date", "opened on", "visit date", "due date"),
}


def _word_list(name: str) -> tuple[str, ...]:
    text = (Path(__file__).with_name(name)).read_text(encoding="utf-8")
    return tuple(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


DOMAIN_NOUNS = _word_list("domain_nouns.txt")
NOUNS = _word_list("nouns.txt")
ATTRIBUTE_WORDS = tuple(w.replace("_", " ") for w in _word_list("attribute_words.txt"))
IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "mouse": "mice",
             "foot": "feet", "tooth": "teeth", "goose": "geese", "ox": "oxen", "datum": "data",
             "criterion": "criteria", "analysis": "analyses", "series": "series", "species": "species"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def plural(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x", "z")):
        return word + "es"
    return word + "s"


def abbreviate(word: str) -> str:
    """A real-schema abbreviation: a known one, else the first syllable-ish prefix (`warranty` -> `warr`)."""
    if word in ABBREVIATIONS:
        return ABBREVIATIONS[word]
    if len(word) <= 5:
        return word
    cut = 4 if word[3] not in "aeiou" else 3
    return word[:cut]


def styled(words: list[str], case: str) -> str:
    """Join words in one identifier case; words may hold spaces (they are split)."""
    parts = [p for w in words for p in w.split()]
    if case == "snake":
        return "_".join(parts)
    if case == "upper":
        return "_".join(parts).upper()
    if case == "lower":
        return "".join(parts)
    if case == "camel":
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    if case == "pascal":
        return "".join(p[:1].upper() + p[1:] for p in parts)
    if case == "spaced":
        return " ".join(p[:1].upper() + p[1:] for p in parts)
    raise ValueError(f"unknown case {case!r}")


def sql_name(name: str) -> str:
    """The identifier as SQL must write it: backquoted when it is not a plain name or is a keyword."""
    return name if _IDENT.match(name) and name.lower() not in SQL_WORDS else f"`{name}`"


@dataclass(frozen=True)
class NameStyle:
    """One database's naming conventions."""

    table_case: str
    column_case: str
    plural_tables: float   # probability that a table name is plural
    key: str
    label: str
    role_fks: float        # share of foreign keys named by a role rather than by the referenced key
    abbreviations: float   # share of words written abbreviated in identifiers

    @classmethod
    def draw(cls, rng) -> NameStyle:
        table_case = rng.choice(CASES[:-1])  # spaced table names are rare in BIRD: columns only
        column_case = table_case if rng.random() < 0.7 else rng.choice(CASES)
        return cls(table_case, column_case, rng.choice((0.0, 0.0, 1.0, 1.0, 1.0, 0.5)), rng.choice(KEYS),
                   rng.choice(LABELS), rng.choice((0.0, 0.0, 0.2, 0.5)), rng.choice((0.0, 0.1, 0.3)))


class VariedNames:
    """Draws one database's names in its style: distinct (case-insensitively), never a word of another split's
    fixed vocabulary, never a bare SQL keyword."""

    def __init__(self, rng, split: str, style: NameStyle | None = None) -> None:
        self.rng = rng
        self.style = style or NameStyle.draw(rng)
        self.used: set[str] = set()
        others = [s for s in SPLITS if s != split]
        self.forbidden = {w.replace("_", " ") for s in others for w in split_vocabulary(s)}
        self.forbidden_words = {w for s in others for e in ENTITIES[s] for w in (e.stem, e.plural)}

    def _allowed(self, ident: str, *phrases: str) -> bool:
        """Not a keyword, not another split's name (as written or as words), no other split's table noun."""
        if ident.lower() in SQL_WORDS:
            return False
        names = {ident.lower(), *(p.lower() for p in phrases)}
        words = {w for n in names for w in re.split(r"[ _]", n)}
        return not any(n.replace("_", " ") in self.forbidden for n in names) and not words & self.forbidden_words

    def _free(self, ident: str, *phrases: str) -> bool:
        names = {ident.lower(), *(p.lower() for p in phrases)}
        return not names & self.used and self._allowed(ident, *phrases)

    def _take(self, *names: str) -> None:
        self.used |= {n.lower() for n in names}

    def _noun(self) -> str:
        r = self.rng.random()
        if r < INVENTED_SHARE:
            return invented_word(self.rng, (2, 3))
        return self.rng.choice(DOMAIN_NOUNS if r < 0.65 else NOUNS)

    def _written(self, words: list[str]) -> list[str]:
        """The words as the identifier writes them: some abbreviated (never all of a one-word name's letters)."""
        return [abbreviate(w) if self.rng.random() < self.style.abbreviations else w for w in words]

    def entity(self):
        """(singular phrase, plural phrase, table identifier); compounds take two nouns (`order item`)."""
        for _ in range(200):
            words = [self._noun()] if self.rng.random() < 0.75 else [self._noun(), self._noun()]
            if len(set(words)) < len(words):
                continue
            one, many = " ".join(words), " ".join(words[:-1] + [plural(words[-1])])
            written = self._written(words)
            is_plural = self.rng.random() < self.style.plural_tables
            if is_plural:
                written[-1] = plural(written[-1])
            ident = styled(written, self.style.table_case)
            if self._free(ident, one, many):
                self._take(ident, one, many)
                return Entity(one, many, self.rng.choice(("person", "place", "org", "product", "title"))), ident
        raise RuntimeError("no free table name")  # 200 draws from hundreds of nouns: does not happen

    def key(self, singular: str) -> str:
        words = singular.split()
        k = self.style.key
        if k == "id":
            name = styled(["id"], self.style.column_case) if self.style.column_case != "upper" else "ID"
        elif k == "stemId":
            name = styled(words, "camel") + "Id"
        elif k == "StemID":
            name = styled(words, "pascal") + "ID"
        elif k == "abbr_no":
            name = styled([abbreviate(w) for w in words] + ["no"], self._key_case())
        elif k == "abbr_code":
            name = styled([abbreviate(w) for w in words] + ["code"], self._key_case())
        elif k == "stem_key":
            name = styled(words + ["key"], self._key_case())
        else:
            name = styled(words + ["id"], self._key_case())
        return name

    def _key_case(self) -> str:
        return self.style.column_case if self.style.column_case != "spaced" else "snake"

    def foreign_key(self, parent_singular: str, parent_key: str, taken: set[str]) -> tuple[str, str]:
        """(identifier, phrase) of a column referencing the parent: its key's name, the parent's noun plus `_id`
        (when the key is a bare `id`), or a role name (`ownerId`)."""
        if self.rng.random() < self.style.role_fks:
            for _ in range(20):
                role = self.rng.choice(ROLES)
                suffix = self.rng.choice(ROLE_SUFFIXES)
                name = (styled([role], "pascal") if suffix in ("Ref", "ID") and self.rng.random() < 0.5
                        else role) + suffix
                if name.lower() not in taken and self._allowed(name):
                    return name, f"{role} {parent_singular}"
        if parent_key.lower() == "id" or parent_key.lower() in taken:
            name = styled(parent_singular.split() + ["id"], self._key_case())
            n = 2
            while name.lower() in taken:
                name = styled(parent_singular.split() + ["id", str(n)], self._key_case())
                n += 1
            return name, parent_singular
        return parent_key, parent_singular

    def label(self, singular: str, label_kind: str) -> str:
        k = self.style.label
        if k == "title" and label_kind not in ("title", "product"):
            k = "name"
        if k == "full_name" and label_kind != "person":
            k = "name"
        words = {"name": ["name"], "title": ["title"], "label": ["label"], "full_name": ["full", "name"],
                 "stem_name": singular.split() + ["name"]}[k]
        name = styled(words, self._key_case())
        return name if self._allowed(name) else styled(["name"], self._key_case())

    def column(self, kind: str, taken: set[str]) -> tuple[str, str, str]:
        """(identifier, expanded phrase, what questions say) of an attribute column of this value kind."""
        for _ in range(100):
            r = self.rng.random()
            if r < 0.5:
                phrase = self.rng.choice(KIND_WORDS[kind])
            elif r < 0.85:
                phrase = self.rng.choice(ATTRIBUTE_WORDS)
            else:
                phrase = invented_word(self.rng, (1, 3))
            if self.rng.random() < 0.15 and len(phrase.split()) == 1:
                phrase = f"{phrase} {self.rng.choice(ATTRIBUTE_WORDS).split()[0]}"
            words = self._written(phrase.split())
            ident = styled(words, self.style.column_case)
            if ident.lower() in taken or not self._allowed(ident, phrase):
                continue
            said = phrase
            if phrase in SYNONYMS and self.rng.random() < 0.3:
                said = self.rng.choice(SYNONYMS[phrase])
            return ident, phrase, said
        raise RuntimeError("no free column name")
