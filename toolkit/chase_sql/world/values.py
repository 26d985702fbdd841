"""Value pools of the generated worlds (shared by all splits: values are data, not schema) and typos.

Names are long enough that a one-edit misspelling is still recognisable, which is what value
retrieval (LSH + re-ranking) has to recover.
"""

from __future__ import annotations

import random
import string

FIRST = ("Amara Lena Diego Yuki Sofia Omar Ingrid Mateo Hannah Ravi Beatriz Tobias Katarina Emeka Marguerite "
         "Anselm Priyanka Henrike Rodrigo Svetlana Oluwaseun Cornelius Fiorella Magnus Valentina Ignatius "
         "Leopold Rosalind Dmitri Esperanza Gwendolyn Bartholomew Ximena Florian Theodora Casimir").split()
LAST = ("Okafor Fischer Ramirez Tanaka Rossi Haddad Berg Silva Cohen Patel Albuquerque Lindqvist Novak "
        "Abernathy Villanueva Kowalski Nakamura Oyelaran Castellano Thorvaldsen Mukherjee Delacroix Fitzgerald "
        "Petrovic Szymanski Hendricks Montgomery Valderrama Wojcik Brandstetter Gallagher Ferreira").split()
CITIES = ("Hamburg Lagos Bogota Osaka Oslo Zurich Geneva Lisbon Marseille Rotterdam Krakow Valparaiso Montevideo "
          "Edinburgh Salzburg Thessaloniki Guadalajara Wellington Ljubljana Tallinn Bratislava Cartagena "
          "Stavanger Antwerp Bordeaux Heidelberg Nairobi Ahmedabad Brisbane Winnipeg Halifax Trondheim").split()
COUNTRIES = ("Argentina Australia Belgium Brazil Canada Colombia Denmark Estonia Finland Germany Ireland Japan "
             "Kenya Mexico Netherlands Nigeria Norway Portugal Slovenia Switzerland Uruguay Vietnam").split()
STATUS = ("active", "suspended", "pending", "closed", "archived")
COLORS = ("crimson", "turquoise", "amber", "indigo", "charcoal", "emerald", "magenta", "ivory")
TIERS = ("Platinum", "Gold", "Silver", "Bronze")
ADJ = ("Copper Velvet Granite Silver Amber Crimson Golden Hollow Northern Quiet Radiant Wandering Midnight "
       "Emerald Frosted Painted Hidden Rusty").split()
NOUN = ("Kettle Lantern Compass Harbour Falcon Orchard Meadow Beacon Anchor Prism Willow Thistle Sparrow "
        "Cascade Summit Ember Glacier Pinnacle").split()
ORG_SUFFIX = ("Logistics", "Holdings", "Brothers", "Industries", "Partners", "Collective", "Trading")
PLACE_SUFFIX = ("Central", "Harbourside", "Riverside", "Heights", "Junction", "Gardens", "Quarter")


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def label_value(kind: str, rng: random.Random) -> str:
    """A name for an entity row of the given label kind."""
    if kind == "person":
        return person(rng)
    if kind == "place":
        return f"{rng.choice(CITIES)} {rng.choice(PLACE_SUFFIX)}"
    if kind == "org":
        return f"{rng.choice(LAST)} {rng.choice(ORG_SUFFIX)}"
    if kind == "product":
        return f"{rng.choice(ADJ)} {rng.choice(NOUN)}"
    if kind == "title":
        return f"The {rng.choice(ADJ)} {rng.choice(NOUN)}"
    raise ValueError(f"unknown label kind {kind!r}")


def attribute_value(kind: str, rng: random.Random, choices: dict[str, tuple]) -> object:
    """A value of an attribute column; text kinds draw from this database's narrowed pool `choices`."""
    if kind in choices:
        return rng.choice(choices[kind])
    if kind == "year":
        return rng.randint(1960, 2024)
    if kind == "count":
        return rng.randint(0, 500)
    if kind == "rating":
        return rng.randint(1, 5)
    if kind == "flag":
        return int(rng.random() < 0.4)
    if kind == "price":
        return round(rng.uniform(1, 400), 2)
    if kind == "weight":
        return round(rng.uniform(0.2, 90), 1)
    if kind == "amount":
        return round(rng.uniform(10, 20000), 2)
    if kind == "date":
        return f"{rng.randint(2015, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    raise ValueError(f"unknown attribute kind {kind!r}")


def text_choices(rng: random.Random) -> dict[str, tuple]:
    """Per database, a few values of each text kind, so filters on them match several rows."""
    def pick(pool, k):
        return tuple(rng.sample(list(pool), k))
    return {"city": pick(CITIES, 6), "country": pick(COUNTRIES, 5), "status": pick(STATUS, 3),
            "color": pick(COLORS, 4), "tier": pick(TIERS, 3), "person": tuple(person(rng) for _ in range(6))}


def misspell(value: str, rng: random.Random, avoid: set[str]) -> str | None:
    """One edit (substitute, delete or insert a letter) inside a word of 5+ letters; None if none fits."""
    words = [i for i, w in enumerate(value.split(" ")) if len(w) >= 5 and w.isalpha()]
    lowered = {a.lower() for a in avoid}
    for _ in range(20):
        if not words:
            return None
        parts = value.split(" ")
        wi = rng.choice(words)
        w = parts[wi]
        pos = rng.randint(1, len(w) - 2)  # keep the first and last letter, as typos usually do
        op = rng.choice(("sub", "del", "ins"))
        letter = rng.choice(string.ascii_lowercase)
        if op == "sub":
            w = w[:pos] + letter + w[pos + 1:]
        elif op == "del":
            w = w[:pos] + w[pos + 1:]
        else:
            w = w[:pos] + letter + w[pos:]
        parts[wi] = w
        out = " ".join(parts)
        if out.lower() != value.lower() and out.lower() not in lowered:
            return out
    return None
