"""Schema vocabularies of the generated worlds, one disjoint pool per split.

Table names (entity stems) and attribute column words are listed per split, so no table or
column name of the test split ever appears in a training or validation database. Keys are
`<stem>_id`, label columns `<stem>_name`; both carry the split's own stems.
"""

from __future__ import annotations

from dataclasses import dataclass

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
