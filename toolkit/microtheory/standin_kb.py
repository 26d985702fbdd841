"""What the deterministic stand-in "model" believes: a small elementary-science knowledge base.

Taxonomy/material edges and class properties, each with paraphrases the stand-in may use when
sampling. It stands in for an LLM's parametric knowledge; see toolkit/microtheory/standin.py.
"""

from __future__ import annotations

# (member, relation, class): relation "kind" -> "X is a kind of Y", "made" -> "X is made of Y".
EDGES: list[tuple[str, str, str]] = []


def _kind(cls: str, *members: str) -> None:
    EDGES.extend((m, "kind", cls) for m in members)


_kind("fish", "trout", "salmon", "shark", "tuna", "goldfish", "catfish", "cod")
_kind("mammal", "whale", "bat", "dolphin", "horse", "mouse", "bear", "rabbit")
_kind("bird", "penguin", "robin", "eagle", "ostrich", "owl", "parrot")
_kind("reptile", "snake", "lizard", "turtle", "crocodile", "iguana")
_kind("amphibian", "frog", "toad", "salamander", "newt")
_kind("insect", "ant", "bee", "butterfly", "beetle", "grasshopper", "ladybug")
_kind("arachnid", "spider", "scorpion", "tick")
_kind("animal", "fish", "mammal", "bird", "reptile", "amphibian", "insect", "arachnid")
_kind("plant", "oak tree", "sunflower", "fern", "moss", "cactus", "rose", "maple tree")
_kind("metal", "copper", "iron", "aluminum", "silver", "steel")
_kind("electrical insulator", "rubber", "plastic", "glass", "wood")
_kind("solid", "ice", "brick", "coin")
_kind("liquid", "milk", "juice", "honey", "vinegar")
_kind("gas", "steam", "oxygen", "helium", "carbon dioxide")
_kind("star", "the sun", "Sirius", "Polaris")
_kind("planet", "Earth", "Mars", "Jupiter", "Venus", "Saturn")
_kind("natural satellite", "the moon", "Titan", "Europa")
_kind("igneous rock", "granite", "basalt", "obsidian", "pumice")
_kind("sedimentary rock", "sandstone", "limestone", "shale")
_kind("fossil fuel", "coal", "oil", "natural gas")
_kind("nonrenewable resource", "fossil fuel")
EDGES.extend([
    ("copper wire", "made", "copper"), ("iron nail", "made", "iron"), ("paper clip", "made", "steel"),
    ("soda can", "made", "aluminum"), ("steel", "made", "iron"), ("rubber glove", "made", "rubber"),
    ("plastic straw", "made", "plastic"), ("wooden spoon", "made", "wood"), ("glass jar", "made", "glass"),
])

# (subject, predicate, extra paraphrases as full sentences)
PROPS: list[tuple[str, str, list[str]]] = [
    ("fish", "breathes with gills", ["Fish breathe with gills.", "Fishes use gills to breathe."]),
    ("fish", "has fins", ["Fish have fins."]),
    ("mammal", "feeds its young with milk", ["Mammals feed their babies milk."]),
    ("mammal", "has fur or hair", ["Mammals have fur or hair."]),
    ("bird", "has feathers", ["Birds have feathers."]),
    ("bird", "has a beak", ["Birds have beaks."]),
    ("reptile", "has dry scaly skin", ["Reptiles have dry, scaly skin."]),
    ("reptile", "is cold-blooded", ["Reptiles are cold-blooded."]),
    ("amphibian", "starts life in water", ["Amphibians begin life in water."]),
    ("insect", "has six legs", ["Insects have six legs."]),
    ("arachnid", "has eight legs", ["Arachnids have eight legs."]),
    ("animal", "needs food to survive", ["Animals need food to survive."]),
    ("animal", "needs oxygen to survive", ["Animals need oxygen to survive."]),
    ("plant", "makes its own food from sunlight", ["Plants make their own food using sunlight."]),
    ("plant", "needs water to grow", ["Plants need water to grow."]),
    ("metal", "conducts electricity", ["Metals conduct electricity."]),
    ("electrical insulator", "blocks the flow of electricity",
     ["Electrical insulators block the flow of electricity."]),
    ("iron", "is attracted to a magnet", ["Iron is pulled toward a magnet."]),
    ("solid", "has a definite shape", ["Solids have a definite shape."]),
    ("liquid", "takes the shape of its container", ["Liquids take the shape of their container."]),
    ("gas", "spreads out to fill its container", ["Gases spread out to fill their container."]),
    ("star", "produces its own light", ["Stars produce their own light."]),
    ("planet", "orbits a star", ["Planets orbit stars."]),
    ("natural satellite", "orbits a planet", ["Natural satellites orbit planets."]),
    ("igneous rock", "forms when melted rock cools", ["Igneous rock forms from cooled molten rock."]),
    ("sedimentary rock", "forms from layers of sediment", ["Sedimentary rock forms from layers of sediment."]),
    ("fossil fuel", "releases carbon dioxide when burned", ["Fossil fuels release carbon dioxide when burned."]),
    ("nonrenewable resource", "cannot be replaced quickly by nature",
     ["Nonrenewable resources cannot be replaced quickly by nature."]),
]

MASS = {"copper", "iron", "aluminum", "silver", "steel", "rubber", "plastic", "glass", "wood", "ice", "milk",
        "juice", "honey", "vinegar", "steam", "oxygen", "helium", "carbon dioxide", "granite", "basalt",
        "obsidian", "pumice", "sandstone", "limestone", "shale", "coal", "oil", "natural gas", "igneous rock",
        "sedimentary rock", "moss"}


def display(name: str) -> str:
    """The noun phrase with its article: 'a trout', 'an eagle', 'copper', 'the sun', 'Mars'."""
    if name in MASS or name[:1].isupper() or name.startswith("the "):
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def sentence(subject_phrase: str, rest: str) -> str:
    text = f"{subject_phrase} {rest}".strip()
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def edge_sentence(member: str, relation: str, cls: str) -> str:
    verb = "is a kind of" if relation == "kind" else "is made of"
    return sentence(display(member), f"{verb} {cls}")


def edge_variants(member: str, relation: str, cls: str) -> list[str]:
    first = edge_sentence(member, relation, cls)
    if relation == "kind":
        return [first, sentence(display(member), f"is a type of {cls}")]
    return [first]


def prop_variants(subject: str, predicate: str, extra: list[str]) -> list[str]:
    return [sentence(display(subject), predicate), *extra]
