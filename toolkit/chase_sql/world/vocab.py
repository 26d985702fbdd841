"""Schema vocabularies of the generated worlds, one disjoint pool per split.

Table names (entity stems) and attribute column words are listed per split, so no table or
column name of the test split ever appears in a training or validation database. Keys are
`<stem>_id`, label columns `<stem>_name`; both carry the split's own stems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SPLITS = ("train", "validation", "test")


@dataclass(frozen=True)
class Entity:
    stem: str      # table name
    plural: str    # how questions speak of its rows
    label: str     # value pool of its name column: person, place, org, product, title


@dataclass(frozen=True)
class Attribute:
    kind: str      # value pool / generator (see world.values)
    sql_type: str  # INTEGER, REAL, TEXT or DATE
    words: dict[str, tuple[str, ...]]  # split -> column names of this kind


def _e(spec: str) -> tuple[Entity, ...]:
    return tuple(Entity(*item.split(":")) for item in spec.split())


ENTITIES: dict[str, tuple[Entity, ...]] = {
    "train": _e("customer:customers:person employee:employees:person supplier:suppliers:org "
                "product:products:product store:stores:place warehouse:warehouses:place "
                "author:authors:person book:books:title patient:patients:person clinic:clinics:place "
                "course:courses:title student:students:person publisher:publishers:org gadget:gadgets:product"),
    "validation": _e("courier:couriers:person depot:depots:place vendor:vendors:org parcel:parcels:product "
                     "musician:musicians:person album:albums:title venue:venues:place label:labels:org "
                     "chef:chefs:person dish:dishes:product diner:diners:place critic:critics:person"),
    "test": _e("athlete:athletes:person stadium:stadiums:place sponsor:sponsors:org trophy:trophies:title "
               "pilot:pilots:person aircraft:aircraft:product airfield:airfields:place carrier:carriers:org "
               "botanist:botanists:person greenhouse:greenhouses:place seedling:seedlings:product "
               "journal:journals:title"),
}


def _a(kind: str, sql_type: str, train: str, validation: str, test: str) -> Attribute:
    return Attribute(kind, sql_type, {"train": tuple(train.split()), "validation": tuple(validation.split()),
                                      "test": tuple(test.split())})


ATTRIBUTES: tuple[Attribute, ...] = (
    _a("city", "TEXT", "city home_city", "town base_town", "locality municipality"),
    _a("country", "TEXT", "country", "nation", "homeland origin_nation"),
    _a("status", "TEXT", "status", "state", "standing"),
    _a("color", "TEXT", "color", "colour_code", "hue"),
    _a("tier", "TEXT", "tier", "level_name", "grade_band"),
    _a("person", "TEXT", "manager contact_person", "supervisor", "steward liaison"),
    _a("year", "INTEGER", "start_year", "founded_year", "opening_year debut_year"),
    _a("count", "INTEGER", "quantity stock", "units capacity", "headcount volume_units"),
    _a("rating", "INTEGER", "rating", "score", "stars"),
    _a("flag", "INTEGER", "is_active", "verified", "flagged"),
    _a("price", "REAL", "price", "cost", "fee tariff"),
    _a("weight", "REAL", "weight_kg", "mass", "load_tons"),
    _a("amount", "REAL", "amount", "total_value", "balance"),
    _a("date", "DATE", "created_on signup_date", "registered_on", "enrolled_on issued_on"),
)


def split_vocabulary(split: str) -> set[str]:
    """Every table and column name a database of this split may use (lower case)."""
    names = set()
    for ent in ENTITIES[split]:
        names |= {ent.stem, f"{ent.stem}_id", f"{ent.stem}_name"}
    for attr in ATTRIBUTES:
        names |= set(attr.words[split])
    return names


# Invented names (`--names random`): every database gets table and column names of its own, English words
# (nouns.txt, attribute_words.txt) or strings spelled from syllables, so a model trained on such worlds cannot
# learn names by heart and has to copy them from the schema it is shown. Words of the other splits' fixed
# vocabularies and SQL keywords are never drawn.
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gl", "kr", "pl",
           "st", "tr", "sk", "ch", "sh")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
_CODAS = ("", "", "", "n", "r", "l", "m", "k", "st")
_LABELS = ("person", "place", "org", "product", "title")
SQL_WORDS = frozenset((  # SQLite's keywords (sqlite.org/lang_keywords.html), lower case
    "abort action add after all alter always analyze and as asc attach autoincrement before begin between by "
    "cascade case cast check collate column commit conflict constraint create cross current current_date "
    "current_time current_timestamp database default deferrable deferred delete desc detach distinct do drop each "
    "else end escape except exclude exclusive exists explain fail filter first following for foreign from full "
    "generated glob group groups having if ignore immediate in index indexed initially inner insert instead "
    "intersect into is isnull join key last left like limit match materialized natural no not nothing notnull null "
    "nulls of offset on or order others outer over partition plan pragma preceding primary query raise range "
    "recursive references regexp reindex release rename replace restrict returning right rollback row rows "
    "savepoint select set table temp temporary then ties to transaction trigger unbounded union unique update "
    "using vacuum values view virtual when where window with without "
    "count sum avg min max real integer text date").split())


ENGLISH_SHARE = 0.5  # of invented names: an English word from the lists below, else a syllable string


def _word_list(name: str) -> tuple[str, ...]:
    text = (Path(__file__).with_name(name)).read_text(encoding="utf-8")
    return tuple(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


NOUNS = _word_list("nouns.txt")
ATTRIBUTE_WORDS = _word_list("attribute_words.txt")


def invented_word(rng, syllables: tuple[int, int] = (2, 3)) -> str:
    n = rng.randint(*syllables)
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(n)) + rng.choice(_CODAS)


class InventedNames:
    """Draws the names of one database: distinct, and outside `forbidden` (the other splits' vocabularies)."""

    def __init__(self, rng, split: str) -> None:
        self.rng = rng
        self.used: set[str] = set(SQL_WORDS)
        self.forbidden = set().union(*(split_vocabulary(s) for s in SPLITS if s != split))

    def _fresh(self, make) -> str:
        while True:
            word = make()
            names = {word, f"{word}_id", f"{word}_name", word + "s"}
            if not names & (self.used | self.forbidden):
                self.used |= names
                return word

    def _english_or_invented(self, words: tuple[str, ...], syllables: tuple[int, int]) -> str:
        return self.rng.choice(words) if self.rng.random() < ENGLISH_SHARE else invented_word(self.rng, syllables)

    def entity(self) -> Entity:
        stem = self._fresh(lambda: self._english_or_invented(NOUNS, (2, 3)))
        return Entity(stem, stem + ("es" if stem.endswith(("s", "sh", "ch")) else "s"), self.rng.choice(_LABELS))

    def column(self) -> str:
        def make() -> str:
            word = self._english_or_invented(ATTRIBUTE_WORDS, (1, 3))
            return word if self.rng.random() < 0.6 else f"{word}_{self._english_or_invented(ATTRIBUTE_WORDS, (1, 2))}"
        return self._fresh(make)
