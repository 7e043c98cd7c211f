"""Masyu genre: reader, generated CSP, decoder/renderers from the known solution, end-to-end solving."""

from __future__ import annotations

import pytest

from csp2sat.generators import masyu as M
from csp2sat.generators.base import PuzzleError
from csp2sat.generators.run import solve_puzzle
from tests.genre_support import expected_answer, instances, puzzle_text, statuses, strip_lines
from tests.loop_genre_support import grid_edge_values

DIR = "masyu"


def values_of(p: M.Masyu, answer: str) -> dict[str, int]:
    return grid_edge_values(answer, p.rows, p.cols, p.cols - 1, p.rows - 1, p.cols)


def test_reader_characters_and_tokens_agree() -> None:
    chars = M.read("W...\n..B.\n....\n....\n")
    assert chars == M.read("1 0 0 0\n-1 . 2 .\n- - - -\n0 0 0 0\n") == M.read("w . . .\n. . b .\n. . . .\n. . . .\n")
    assert chars.circles[1] == ("", "", "B", "")


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("W..\n..\n", 2, 3, "row has 2 cells"),
        ("W.x\n...\n", 1, 3, "unknown cell 'x'"),
        ("W...\n.B..\n....\n", 2, 2, "black circle needs room"),
    ],
)
def test_reader_errors_have_positions(text: str, line: int, col: int, words: str) -> None:
    with pytest.raises(PuzzleError) as err:
        M.read(text)
    assert (err.value.line, err.value.col) == (line, col)
    assert words in err.value.message


def test_generated_file_is_valid_sugar_with_circle_rules() -> None:
    from csp2sat.checker import check
    from csp2sat.parser import parse_text

    text = M.generate(M.read(puzzle_text(DIR, "pzprjs_6x6")))
    check(parse_text(text))
    assert ";   ..W...\n;   .B..W.\n" in text
    # White at 0,2: straight along the row (no room in the column), and a turn next to it.
    assert "(= h_0_1 h_0_2)\n(=> (= h_0_1 1) (or (= h_0_0 0) (= h_0_3 0)))\n(= v_0_2 0)" in text
    # Black at 1,1: a turn, no room to the left or up, straight on to the right and down.
    assert "(or (= h_1_0 0) (= h_1_1 0))\n(= h_1_0 0)\n(=> (= h_1_1 1) (= h_1_2 1))" in text
    assert "root is node 0,2" in text and "(= _p_1_4 1)" in text


def test_answer_and_drawing_of_the_known_solution() -> None:
    p = M.read(puzzle_text(DIR, "pzprjs_6x6"))
    answer = expected_answer(DIR, "pzprjs_6x6")
    solution = M.decode(p, values_of(p, answer))
    assert strip_lines(M.render(p, solution, "answer")) == answer
    drawing = M.render(p, solution, "drawing")
    assert drawing.splitlines()[:3] == ["+---+---W---+   +---+", "|           |   |   |", "+   B---+---+   W   +"]
    svg = M.render(p, solution, "svg")
    assert svg.count("<circle") == 5 and 'fill="black"' in svg


@pytest.mark.parametrize("name", instances(DIR))
def test_every_instance_is_solved_with_the_recorded_answer_and_uniqueness(name: str) -> None:
    p = M.read(puzzle_text(DIR, name))
    run = solve_puzzle(M.GENRE, p, unique=True)
    assert run.solution is not None
    expected = expected_answer(DIR, name)
    if expected is not None:
        assert strip_lines(M.render(p, run.solution, "answer")) == expected
    assert run.unique == (statuses(DIR)[name] == "unique")


def test_every_cell_the_error_message_offers_is_read_as_it_says() -> None:
    with pytest.raises(PuzzleError, match=r"expected W or 1 white, B or 2 black, '\.', '-' or 0 empty"):
        M.read("W?\n..\n")
    board = M.read("W1.0-\n.....\n..2..\n.....\n.....\n")
    assert board.circles[0] == ("W", "W", "", "", "") and board.circles[2] == ("", "", "B", "", "")


@pytest.mark.parametrize("text, count", [("...\n...\n...\n", 13), ("..\n..\n", 1), ("...\n", 0)])
def test_board_without_circles_is_solved(text: str, count: int) -> None:
    """No circle is a well-formed board: any one loop is a solution (pzprjs asks only for a loop);
    the 3x3 grid has 13 cycles."""
    p = M.read(text)
    assert not any(any(row) for row in p.circles)
    result = solve_puzzle(M.GENRE, p, count=True)
    assert result.count == count
    assert (result.solution is None) == (count == 0)
