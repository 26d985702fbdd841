import itertools
import json
import random

import networkx as nx

from tests.dsg.conftest import SCHEMAS
from toolkit.dsg.data import Item
from toolkit.dsg.generate import make_scene
from toolkit.dsg.run import run_dsg
from toolkit.dsg.schema import load_schemas
from toolkit.dsg.styles import STYLES, get_style


def _winner_brute_force(cells: dict[tuple[int, int], str]) -> str:
    """Every triple of cells on one straight line of the 3x3 board (found by enumeration, not a table)."""
    winners = set()
    for a, b, c in itertools.combinations(sorted(cells), 3):
        collinear = (b[0] - a[0]) * (c[1] - a[1]) == (b[1] - a[1]) * (c[0] - a[0])
        if collinear and cells[a] == cells[b] == cells[c] != "empty":
            winners.add(cells[a])
    assert len(winners) <= 1
    return winners.pop() if winners else "none"


def test_tictactoe_gold_equals_brute_force():
    style = get_style("train")
    for i in range(60):
        s = make_scene("tictactoe", style, 3, i)
        cells = {(r, c): s.nodes[f"marks[{r},{c}]"] for r in (1, 2, 3) for c in (1, 2, 3)}
        if s.task == "tictactoe.winner":
            assert s.answer == _winner_brute_force(cells)
        else:
            counts = {p: list(cells.values()).count(p) for p in s.choices}
            assert abs(counts[s.choices[0]] - counts[s.choices[1]]) == 1
            assert s.answer == min(counts, key=counts.get)


def test_maze_gold_equals_networkx_on_the_walls():
    style = get_style("heldout")
    answers = []
    for i in range(60):
        s = make_scene("maze", style, 5, i)
        g = nx.grid_2d_graph(4, 4)  # 0-based cells; walls cut edges
        for key, v in s.nodes.items():
            if v == "wall":
                r, c = (int(x) - 1 for x in key[key.index("[") + 1:-1].split(","))
                g.remove_edge((r, c), (r, c + 1) if key.startswith("vertical_walls") else (r + 1, c))
        start, goal = ((int(x[1]) - 1, int(x[3]) - 1) for x in (s.nodes["entry"], s.nodes["exit"]))
        has = nx.has_path(g, start, goal)
        if s.task == "maze.path":
            answers.append(s.answer)
            assert s.answer == ("yes" if has else "no")
        else:
            assert has and s.answer == str(nx.shortest_path_length(g, start, goal))
    assert 10 <= answers.count("yes") <= 20  # balanced


def test_style_sets_are_disjoint_and_class_names_shared():
    train, held = STYLES["train"], STYLES["heldout"]
    for field in ("palettes", "backgrounds", "fills", "materials"):
        assert not set(getattr(train, field)) & set(getattr(held, field)), field


def test_generation_is_deterministic():
    a = make_scene("stacks", get_style("train"), 11, 3)
    b = make_scene("stacks", get_style("train"), 11, 3)
    assert a.nodes == b.nodes and a.image.tobytes() == b.image.tobytes()


class GoldAsker:
    """Answers each grounding question with the gold value of the node it asks about (a test oracle)."""

    name = "gold"

    def __init__(self, nodes_by_image):
        self.nodes_by_image, self.calls = nodes_by_image, 0
        self.by_question = {}

    def ask(self, pairs):
        self.calls += 1
        return [self.by_question[(img, q)] for img, q in pairs]


def test_gold_primitives_compose_to_accuracy_one(tmp_path):
    from toolkit.dsg.ground import GroundingCache
    from toolkit.dsg.resolve import gold_asks
    from toolkit.dsg.score import correct

    schemas = load_schemas(SCHEMAS)
    rng = random.Random(0)
    items, gold, asker = [], {}, GoldAsker({})
    for k in range(50):
        concept = rng.choice(["tictactoe", "maze", "stacks"])
        s = make_scene(concept, get_style(rng.choice(["train", "heldout"])), 21, k)
        path = tmp_path / f"{k}.png"
        s.image.save(path)
        item = Item(id=str(k), image=str(path), concept=concept, question=s.question, question_type=s.question_type,
                    choices=tuple(s.choices) if s.choices else None, task=s.task)
        items.append(item)
        gold[str(k)] = s
        for ask, value in gold_asks(schemas[concept], s.nodes):
            asker.by_question[(str(path), ask.question)] = value
    out = list(run_dsg(items, schemas, asker, "program", GroundingCache(None), batch_items=8))
    answers = {r["id"]: r for r in out if r["type"] == "dsg.answer"}
    assert len(answers) == 50
    assert all(correct(a["answer"], gold[i].answer, gold[i].question_type, gold[i].choices)
               for i, a in answers.items()), json.dumps([a for i, a in answers.items()
                                                        if a["answer"] != gold[i].answer][:3])


def test_gold_answers_are_balanced_within_each_question():
    """A prior that knows only the question scores chance: every count value, every yes/no and each of A, B
    and none (tic-tac-toe winner) is gold equally often, up to one (the old generator gave stacks spread 1 in 1 %
    of items and maze lengths 7-8 in under 4 %); the tallest pile's position is uniform over the piles."""
    from collections import Counter, defaultdict

    by_task: dict[str, Counter] = defaultdict(Counter)
    for concept in ("maze", "stacks", "tictactoe"):
        for i in range(144):
            s = make_scene(concept, get_style("train"), 41, i)
            by_task[s.task][s.answer if s.task != "tictactoe.winner" or s.answer == "none" else "a mark"] += 1
    assert sorted(by_task["maze.length"]) == [str(v) for v in range(1, 7)]
    assert sorted(by_task["stacks.spread"]) == [str(v) for v in range(1, 7)]
    assert sorted(by_task["maze.path"]) == ["no", "yes"]
    for task in ("maze.length", "maze.path", "stacks.spread"):
        assert max(by_task[task].values()) - min(by_task[task].values()) <= 1, (task, by_task[task])
    assert by_task["tictactoe.winner"] == {"none": 24, "a mark": 48}  # A, B, none in turn (A, B drawn per scene)
    tallest = by_task["stacks.tallest"]  # 3-5 piles: positions 1-3 are each gold at rate (1/3 + 1/4 + 1/5) / 3
    expected = 72 * (1 / 3 + 1 / 4 + 1 / 5) / 3
    assert all(0.6 * expected <= tallest[str(p)] <= 1.4 * expected for p in (1, 2, 3)), tallest
