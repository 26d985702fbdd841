"""Writes the shipped QA set (qa.jsonl) and corpus (corpus.jsonl); every sentence is written by hand here.

Run from the repository root:  python assets/microtheory/make_data.py
Options are shuffled with a fixed hash so the answer letter varies; output is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolkit.microtheory.standin_kb import EDGES, display, sentence  # noqa: E402

HERE = Path(__file__).resolve().parent

# (split, question, correct option, three distractors)
QUESTIONS = [
    # properties the corpus does NOT state (the microtheory has to supply them)
    ("train", "Which of these animals breathes with gills?", "salmon", ["whale", "eagle", "horse"]),
    ("train", "Which of these animals breathes with gills?", "shark", ["dolphin", "owl", "bear"]),
    ("test", "Which of these animals breathes with gills?", "trout", ["bat", "robin", "rabbit"]),
    ("train", "Which of these animals has fur or hair?", "horse", ["snake", "trout", "beetle"]),
    ("train", "Which of these animals has fur or hair?", "bear", ["penguin", "lizard", "ant"]),
    ("test", "Which of these animals has fur or hair?", "rabbit", ["salmon", "turtle", "bee"]),
    ("train", "Which of these animals has feathers?", "robin", ["bat", "lizard", "ant"]),
    ("train", "Which of these animals has feathers?", "eagle", ["mouse", "frog", "tuna"]),
    ("test", "Which of these animals has feathers?", "penguin", ["whale", "snake", "beetle"]),
    ("train", "Which of these animals is cold-blooded?", "snake", ["whale", "owl", "horse"]),
    ("train", "Which of these animals is cold-blooded?", "lizard", ["bear", "robin", "dolphin"]),
    ("test", "Which of these animals is cold-blooded?", "crocodile", ["rabbit", "eagle", "bat"]),
    ("train", "Which of these animals starts life in water?", "frog", ["eagle", "horse", "bee"]),
    ("test", "Which of these animals starts life in water?", "salamander", ["owl", "bear", "ant"]),
    ("train", "Which of these animals has six legs?", "ant", ["spider", "snake", "robin"]),
    ("train", "Which of these animals has six legs?", "bee", ["scorpion", "mouse", "owl"]),
    ("test", "Which of these animals has six legs?", "butterfly", ["tick", "lizard", "horse"]),
    ("train", "Which of these needs oxygen to survive?", "dolphin", ["granite", "copper", "ice"]),
    ("train", "Which of these needs oxygen to survive?", "owl", ["basalt", "steel", "brick"]),
    ("test", "Which of these needs oxygen to survive?", "beetle", ["coin", "glass", "shale"]),
    ("train", "Which of these makes its own food from sunlight?", "sunflower", ["mouse", "eagle", "shark"]),
    ("train", "Which of these makes its own food from sunlight?", "fern", ["bear", "ant", "snake"]),
    ("test", "Which of these makes its own food from sunlight?", "oak tree", ["rabbit", "owl", "cod"]),
    ("train", "Which of these objects conducts electricity?", "copper wire",
     ["rubber glove", "plastic straw", "wooden spoon"]),
    ("train", "Which of these objects conducts electricity?", "soda can",
     ["glass jar", "rubber glove", "plastic straw"]),
    ("test", "Which of these objects conducts electricity?", "iron nail",
     ["wooden spoon", "glass jar", "plastic straw"]),
    ("train", "Which of these objects is attracted to a magnet?", "iron nail",
     ["copper wire", "plastic straw", "glass jar"]),
    ("test", "Which of these objects is attracted to a magnet?", "paper clip",
     ["soda can", "wooden spoon", "rubber glove"]),
    ("train", "Which of these takes the shape of its container?", "milk", ["brick", "coin", "ice"]),
    ("train", "Which of these takes the shape of its container?", "juice", ["granite", "brick", "coin"]),
    ("test", "Which of these takes the shape of its container?", "honey", ["ice", "basalt", "brick"]),
    ("train", "Which of these spreads out to fill its container?", "oxygen", ["brick", "ice", "honey"]),
    ("train", "Which of these spreads out to fill its container?", "helium", ["coin", "milk", "granite"]),
    ("test", "Which of these spreads out to fill its container?", "steam", ["juice", "brick", "vinegar"]),
    ("train", "Which of these produces its own light?", "the sun", ["the moon", "Mars", "Earth"]),
    ("train", "Which of these produces its own light?", "Sirius", ["Titan", "Venus", "Jupiter"]),
    ("test", "Which of these produces its own light?", "Polaris", ["the moon", "Saturn", "Europa"]),
    ("train", "Which of these orbits a planet?", "the moon", ["the sun", "Mars", "Sirius"]),
    ("test", "Which of these orbits a planet?", "Titan", ["Polaris", "Venus", "the sun"]),
    ("train", "Which of these rocks forms when melted rock cools?", "granite", ["sandstone", "limestone", "shale"]),
    ("train", "Which of these rocks forms when melted rock cools?", "basalt", ["shale", "sandstone", "limestone"]),
    ("test", "Which of these rocks forms when melted rock cools?", "obsidian", ["limestone", "shale", "sandstone"]),
    ("train", "Which of these releases carbon dioxide when burned?", "coal", ["sand", "ice", "granite"]),
    ("test", "Which of these releases carbon dioxide when burned?", "natural gas", ["glass", "brick", "ice"]),
    # properties the corpus states
    ("train", "Which of these animals has fins?", "tuna", ["bear", "bee", "robin"]),
    ("test", "Which of these animals has fins?", "cod", ["horse", "ant", "owl"]),
    ("train", "Which of these animals feeds its young with milk?", "whale", ["shark", "eagle", "snake"]),
    ("train", "Which of these animals has a beak?", "parrot", ["rabbit", "lizard", "trout"]),
    ("train", "Which of these animals has dry scaly skin?", "turtle", ["frog", "horse", "salmon"]),
    ("test", "Which of these animals has dry scaly skin?", "iguana", ["toad", "mouse", "tuna"]),
    ("train", "Which of these animals has eight legs?", "spider", ["ant", "bee", "robin"]),
    ("test", "Which of these animals has eight legs?", "scorpion", ["beetle", "ladybug", "owl"]),
    ("train", "Which of these needs food to survive?", "goldfish", ["granite", "coin", "steel"]),
    ("train", "Which of these objects blocks the flow of electricity?", "rubber glove",
     ["copper wire", "iron nail", "soda can"]),
    ("train", "Which of these orbits a star?", "Mars", ["the moon", "Titan", "Europa"]),
    ("train", "Which of these rocks forms from layers of sediment?", "sandstone", ["granite", "basalt", "obsidian"]),
    ("test", "Which of these rocks forms from layers of sediment?", "limestone", ["pumice", "granite", "basalt"]),
    # taxonomy questions and one the stand-in cannot support
    ("train", "A bat is a kind of which of these?", "mammal", ["bird", "insect", "fish"]),
    ("train", "A newt is a kind of which of these?", "amphibian", ["reptile", "mammal", "insect"]),
    ("train", "Which of these is the closest star to Earth?", "the sun", ["Sirius", "Polaris", "the moon"]),
]

# General properties the corpus states (the other class properties are the corpus's gaps).
CORPUS_PROPERTIES = [
    "Fish have fins.", "A mammal feeds its young with milk.", "Birds have beaks.", "Reptiles have dry, scaly skin.",
    "Arachnids have eight legs.", "Animals need food to survive.", "Plants need water to grow.",
    "Electrical insulators block the flow of electricity.", "A solid has a definite shape.", "Planets orbit stars.",
    "Sedimentary rock forms from layers of sediment.", "Nonrenewable resources cannot be replaced quickly by nature.",
]

FILLER = """
Water boils at 100 degrees Celsius at sea level.
Water freezes at 0 degrees Celsius.
The water cycle moves water between the oceans, the air and the land.
Evaporation happens faster on hot, windy days.
Clouds are made of tiny drops of water or ice crystals.
Rain, snow, sleet and hail are forms of precipitation.
Trout are popular with people who go fishing in cold mountain streams.
Salmon swim upstream every year to lay their eggs.
Sharks have lived in the oceans for hundreds of millions of years.
Tuna can swim very fast over long distances.
Goldfish are often kept as pets in bowls and ponds.
Whales sing songs that can travel far under the water.
Bats hunt insects at night using echoes.
Dolphins live in groups called pods.
Horses have been used by people for farming and travel.
Bears sleep through much of the winter.
Rabbits dig burrows under the ground.
Penguins cannot fly, but they swim well.
Robins often return to the same area each spring.
Eagles build large nests high in trees or on cliffs.
Ostriches are the largest living birds.
Owls hunt mostly at night.
Parrots can learn to copy human speech.
Snakes smell with their tongues.
Turtles carry a hard shell on their backs.
Crocodiles lie in the sun to warm their bodies.
Frogs catch insects with their long sticky tongues.
Toads usually have drier and bumpier skin than frogs.
Ants live together in large colonies.
Bees collect nectar and pollen from flowers.
Butterflies go through four stages of life.
Ladybugs eat small insects called aphids.
Spiders spin webs out of silk.
Scorpions carry a stinger at the end of their tail.
Ticks feed on the blood of other animals.
A food chain shows how energy passes from one living thing to another.
Producers, consumers and decomposers all play a part in an ecosystem.
Decomposers break down dead plants and animals.
Sunflowers turn to face the sun during the day.
Ferns grow well in shady, damp places.
Moss often grows on rocks and on the north side of trees.
A cactus stores water in its thick stem.
Oak trees produce acorns.
Maple trees lose their leaves in the fall.
Roses have thorns on their stems.
Leaves are usually green because they contain chlorophyll.
Roots hold a plant in the soil and take in water.
Seeds can be carried by wind, water or animals.
Copper is used to make electrical wires and pipes.
Iron rusts when it is left in wet air.
Aluminum is light and is used to make cans and airplanes.
Silver has been used to make coins and jewelry.
Steel is strong and is used to build bridges.
Rubber comes from the sap of rubber trees.
Plastic is made from chemicals found in oil.
Glass is made by melting sand.
Wood comes from the trunks of trees.
A magnet has a north pole and a south pole.
Opposite poles of two magnets pull toward each other.
A compass needle points north.
Electricity flows through a closed circuit.
A switch opens and closes an electric circuit.
A battery stores energy for a flashlight.
Ice floats on top of liquid water.
Milk is a good source of calcium.
Honey is made by bees from nectar.
Vinegar tastes sour.
Helium is lighter than air, so helium balloons float.
Carbon dioxide is a gas that plants take in from the air.
Steam can burn skin because it is very hot.
Matter can change from one state to another when it is heated or cooled.
Melting is the change from a solid to a liquid.
Freezing is the change from a liquid to a solid.
Condensation is the change from a gas to a liquid.
The sun is the closest star to Earth.
Sirius is the brightest star in the night sky.
Polaris is also called the North Star.
The moon reflects light from the sun.
The moon takes about a month to go around Earth.
Titan is the largest moon of Saturn.
Europa is covered by a shell of ice.
Earth is the third planet from the sun.
Mars is often called the red planet.
Jupiter is the largest planet in the solar system.
Venus is the hottest planet in the solar system.
Saturn has bright rings made of ice and rock.
Day and night are caused by Earth spinning on its axis.
Seasons are caused by the tilt of Earth's axis.
A year is the time Earth takes to go around the sun.
Volcanoes can erupt lava, ash and gas.
Granite is often used for kitchen counters.
Basalt makes up much of the ocean floor.
Obsidian is a dark, glassy rock.
Pumice is so full of holes that it can float on water.
Sandstone is often red, tan or brown.
Limestone often contains the shells of sea animals.
Shale splits easily into thin layers.
Fossils are most often found in sedimentary rock.
Weathering breaks rocks into smaller pieces.
Erosion carries soil and rock from one place to another.
Coal formed from plants that lived millions of years ago.
Oil is pumped from deep under the ground.
Natural gas is used to heat many homes.
Wind and sunlight are renewable sources of energy.
Recycling reduces the amount of trash sent to landfills.
A thermometer measures temperature.
A ruler measures length.
A balance measures mass.
Scientists repeat experiments to check their results.
Sound travels as vibrations.
Light travels faster than sound.
A shadow forms when an object blocks light.
Friction slows down moving objects.
Gravity pulls objects toward the center of Earth.
A lever helps people lift heavy loads.
""".strip().splitlines()


def _h(*parts) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


def corpus_edge(member: str, relation: str, cls: str) -> str:
    if relation == "made":
        return sentence(display(member), f"is made of {cls}")
    word = "kind" if _h(member, cls) % 2 else "type"
    return sentence(display(member), f"is a {word} of {cls}")


def main() -> None:
    letters = "ABCD"
    with (HERE / "qa.jsonl").open("w") as out:
        for i, (split, question, correct, wrong) in enumerate(QUESTIONS, start=1):
            options = [correct, *wrong]
            options.sort(key=lambda o: _h(i, o))
            record = {"id": f"q{i:02d}", "split": split, "question": question, "options": options,
                      "answer": letters[options.index(correct)]}
            out.write(json.dumps(record) + "\n")
    sentences = [corpus_edge(*e) for e in EDGES] + CORPUS_PROPERTIES + FILLER
    with (HERE / "corpus.jsonl").open("w") as out:
        for i, text in enumerate(sentences, start=1):
            out.write(json.dumps({"id": f"d{i:03d}", "text": text}) + "\n")
    print(f"{len(QUESTIONS)} questions, {len(sentences)} corpus sentences")


if __name__ == "__main__":
    main()
