import json

import pytest

from tests.dsg.conftest import SCHEMAS
from toolkit.core.errors import InputError
from toolkit.dsg.prompts import grounding_question
from toolkit.dsg.resolve import level_asks
from toolkit.dsg.schema import expand, from_json, levels, load_schema, order, parse_notation, to_notation

# The notebook's schema programs for its two strategic concepts (its notation, its term names).
MAZE = ("p(image | concept=maze) = p(layout | concept=maze) p(walls | concept=maze, layout) "
        "p(entry-exit | concept=maze, layout) p(image | layout, walls, entry-exit)")
TICTACTOE = ("p(image | concept=tic-tac-toe) = p(board | concept=tic-tac-toe) p(symbols | concept=tic-tac-toe, board) "
             "p(image | board, symbols)")


@pytest.mark.parametrize("program", [MAZE, TICTACTOE])
def test_official_programs_round_trip(program):
    s = parse_notation(program)
    assert to_notation(s) == program
    assert to_notation(parse_notation(to_notation(s))) == program


def test_parsed_maze_has_its_parents_final_and_spoken_terms():
    s = parse_notation(MAZE)
    assert s.name == "maze" and [n.id for n in s.nodes] == ["layout", "walls", "entry_exit"]
    assert s.node("walls").parents == ("layout",) and s.final == ("layout", "walls", "entry_exit")
    assert s.node("entry_exit").question == "entry exit"  # hyphens read as spaces


def test_questions_equal_the_official_template_byte_for_byte():
    s = parse_notation(MAZE)
    first = level_asks(s, ["layout"], {})[0].question
    assert first == ("Imagine that the image represents maze, what is the layout? "
                     "Answer with one word or phrase only, do not elaborate.")
    child = level_asks(s, ["entry_exit"], {"layout": "a 4 by 4 grid"})[0].question
    assert child == ("Imagine that the image represents maze and the layout is a 4 by 4 grid, what is the entry exit? "
                     "Answer with one word or phrase only, do not elaborate.")
    t = parse_notation(TICTACTOE)
    assert grounding_question(t.name, [("board", "3x3"), ("symbols", "x and o")], "winner") == (
        "Imagine that the image represents tic tac toe and the board is 3x3, and the symbols is x and o, "
        "what is the winner? Answer with one word or phrase only, do not elaborate.")


def _doc(nodes, final=None):
    return {"concept": "c", "nodes": nodes, "final": final if final is not None else [n["id"] for n in nodes]}


@pytest.mark.parametrize(("nodes", "message"), [
    ([{"id": "a", "question": "a", "parents": ["b"]}, {"id": "b", "question": "b", "parents": ["a"]}], "cycle"),
    ([{"id": "a", "question": "a", "parents": ["zzz"]}], "node 'a': unknown parent 'zzz'"),
    ([{"id": "a", "question": "a", "parents": []}, {"id": "a", "question": "b", "parents": []}],
     "node 'a': duplicate id"),
    ([{"id": "a", "question": "cell {row}", "parents": []}], "node 'a': unknown placeholder {row}"),
    ([], "nodes: [] should be non-empty"),
])
def test_bad_schemas_name_the_node(nodes, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]").replace("{", r"\{")):
        from_json(_doc(nodes), "s.json")


def test_unparsable_notation_is_an_input_error():
    with pytest.raises(InputError, match="unparsable"):
        parse_notation("the maze has walls", where="x")
    with pytest.raises(InputError, match="cycle"):
        parse_notation("p(image | concept=c) = p(a | concept=c, b) p(b | concept=c, a) p(image | a, b)")


def test_order_is_deterministic_and_parents_come_first():
    doc = _doc([{"id": "z", "question": "z", "parents": ["m"]}, {"id": "m", "question": "m", "parents": []},
                {"id": "a", "question": "a", "parents": ["m"]}])
    s = from_json(doc, "s")
    assert order(s) == ["m", "z", "a"] == order(from_json(json.loads(json.dumps(doc)), "s"))
    assert levels(s) == [["m"], ["z", "a"]]


def test_foreach_expands_from_a_grounded_size():
    maze = load_schema(SCHEMAS / "maze.schema.json")
    right = maze.node("vertical_walls")
    assert [k for k, _ in expand(right, {"layout": "3"})] == [f"vertical_walls[{r},{c}]" for r in (1, 2, 3)
                                                               for c in (1, 2)]
    assert expand(right, {"layout": "4"})[0] == ("vertical_walls[1,1]", "wall right of cell r1c1")
    assert expand(right, {"layout": "no idea"}) == []  # an ungrounded layout expands to nothing
    asks = level_asks(maze, ["horizontal_walls"], {"layout": "4"})
    assert len(asks) == 12 and "the size is 4," in asks[0].question


@pytest.mark.parametrize("name", ["maze", "tictactoe", "stacks"])
def test_shipped_schemas_validate_and_have_a_composer(name):
    from toolkit.dsg.compose import COMPOSERS

    s = load_schema(SCHEMAS / f"{name}.schema.json")
    assert s.concept == name and s.compose in COMPOSERS
