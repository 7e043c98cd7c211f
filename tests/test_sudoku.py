"""Sudoku genre: reader, generated CSP, decoder, checker and renderers, and every data/sudoku board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import sudoku
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = ". 1 . .\n. . . 2\n3 . . .\n. . 3 .\n"
SMALL_ANSWER = "2 1 4 3\n4 3 1 2\n3 4 2 1\n1 2 3 4\n"


def test_reader_forms_and_block_shapes():
    assert sudoku.read(SMALL) == sudoku.read(".1..\n...2\n3...\n..3.\n")
    assert sudoku.read(SMALL).givens == {(0, 1): 1, (1, 3): 2, (2, 0): 3, (3, 2): 3}
    assert sudoku.block_shape(4) == (2, 2)
    assert sudoku.block_shape(6) == (2, 3)
    assert sudoku.block_shape(9) == (3, 3)
    assert sudoku.block_shape(16) == (4, 4)


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("1 2 3\n- - -\n", "a Sudoku is square", 1, 1),
        ("- 5 - -\n- - - -\n- - - -\n- - - -\n", "clue 5 is impossible", 1, 3),
        ("1 - - -\n- - - -\n- - - -\n1 - - -\n", "1 is given twice in column 0", 4, 1),
        ("1 - - -\n- 1 - -\n- - - -\n- - - -\n", "1 is given twice in block 0", 2, 3),
        ("- - -\n- - -\n- - -\n", "no blocks", 1, 1),
        ("? - - -\n- - - -\n- - - -\n- - - -\n", "no unknown", 1, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(sudoku.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    text = sudoku.generate(sudoku.read(SMALL))
    assert "(int x_0_1 1 1)" in text and "(int x_0_0 1 4)" in text
    assert "(alldifferent x_0_0 x_0_1 x_1_0 x_1_1)" in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = sudoku.read(SMALL)
    values = {f"x_{r}_{c}": int(v) for r, line in enumerate(SMALL_ANSWER.split("\n")[:4])
              for c, v in enumerate(line.split())}
    grid = sudoku.decode(puzzle, values)
    assert sudoku.check(puzzle, grid) == []
    assert sudoku.render(puzzle, grid, "answer") == SMALL_ANSWER
    drawing = sudoku.render(puzzle, grid, "drawing")
    assert drawing.splitlines()[1] == "| 2  [1]| 4   3 |"
    svg = ET.fromstring(sudoku.render(puzzle, grid, "svg"))
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}text"))) == 16


def test_checker_names_broken_rules():
    puzzle = sudoku.read(SMALL)
    wrong = [[1, 1, 4, 3], [4, 3, 1, 2], [3, 4, 2, 1], [2, 2, 3, 4]]
    found = {str(v) for v in sudoku.check(puzzle, wrong)}
    assert "cell row 0, column 1: the given 1 stays" not in found
    assert "row 0: each number once, and 2 is missing" in found
    assert "column 0: each number once, and 1 is missing" not in found
    assert sudoku.check(puzzle, [[2, 4, 1, 3], *wrong[1:]])[0].rule == "the given 1 stays"


def test_no_solution_when_the_givens_block_a_cell():
    # (0, 0) sees 1 in its row, 2 in its column and 3, 4 in its block.
    assert solve_once(sudoku.generate(sudoku.read("- 1 - -\n3 4 - -\n2 - - -\n- - - -\n"))) is None


def test_registered_under_its_name():
    assert genre("sudoku").render is sudoku.render


@pytest.mark.parametrize("name", instances("sudoku"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(sudoku, "sudoku", name)


def _listed_answers() -> dict[str, list[str]]:
    """name -> the solutions its source lists (sources.txt 'answers:' line, 81 digits each)."""
    import re

    from genre_support import DATA

    text = (DATA / "sudoku" / "sources.txt").read_text(encoding="utf-8")
    return {name: line.split() for name, line in re.findall(r"^(\S+)\.txt\n(?:  .*\n)*?  answers: (.*)", text, re.M)}


@pytest.mark.parametrize("name", sorted(_listed_answers()))
def test_the_solutions_a_source_lists_are_among_the_answers(name):
    import puzzle_bruteforce as bf
    from genre_support import puzzle_text

    puzzle = sudoku.read(puzzle_text("sudoku", name))
    found = {"".join(str(v) for row in grid for v in row) for grid in bf.accepted(sudoku.check, puzzle, bf.sudoku(puzzle))}
    listed = _listed_answers()[name]
    assert len(set(listed)) == len(listed) and set(listed) <= found
