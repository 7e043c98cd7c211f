"""Shikaku genre: reader, generated CSP, decoder and renderers, and every data/shikaku board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.parser import parse_text
from csp2sat.generators import shikaku
from csp2sat.generators.base import PuzzleError, genre, read_log
from genre_support import expected_answer, instances, puzzle_text, solve_twice, statuses, strip_lines

TINY = "4 - 2\n- - -\n- 3 -\n"
TINY_ANSWER = "1 1 2\n1 1 2\n3 3 3\n"


def values_from_labels(puzzle: shikaku.Shikaku, labels: list[list[int]]) -> dict[str, int]:
    """The k_R_C values of a solution given as rectangle numbers (what a solver would print)."""
    values = {}
    for clue, rects, chooser in zip(puzzle.clues, puzzle.rects, puzzle.choosers):
        label = labels[clue.row][clue.col]
        cells = [(r, c) for r, row in enumerate(labels) for c, v in enumerate(row) if v == label]
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        rect = (top, left, max(r for r, _ in cells) - top + 1, max(c for _, c in cells) - left + 1)
        values[chooser.var] = rects.index(rect) + 1
    return values


def check_division(puzzle: shikaku.Shikaku, labels: list[list[int]]) -> None:
    """Independent check of the rules: every region is a full rectangle with one clue equal to its area."""
    clues = {(c.row, c.col): c.area for c in puzzle.clues}
    for label in {v for row in labels for v in row}:
        cells = {(r, c) for r, row in enumerate(labels) for c, v in enumerate(row) if v == label}
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        assert len(cells) == len(rows) * len(cols), f"region {label} is not a rectangle"
        inside = [clues[cell] for cell in cells if cell in clues]
        assert len(inside) == 1, f"region {label} holds {len(inside)} clues"
        assert inside[0] in (None, len(cells))


# ---------------------------------------------------------------- reader


def test_reader_accepts_data_seed_and_character_forms():
    data = shikaku.read(TINY)
    seed = shikaku.read("# np.loadtxt comment\n4 0 2\n0 0 0\n0 3 -1\n")
    chars = shikaku.read("4.2\n...\n.3.\n")
    assert data == seed == chars
    assert [(c.row, c.col, c.area) for c in data.clues] == [(0, 0, 4), (0, 2, 2), (2, 1, 3)]


def test_unknown_clue_is_a_clue_of_any_area():
    puzzle = shikaku.read("? -\n- -\n")
    assert puzzle.clues[0].area is None
    assert {h * w for _, _, h, w in puzzle.rects[0]} == {1, 2, 4}


def test_candidates_avoid_other_clues():
    puzzle = shikaku.read(TINY)
    assert puzzle.rects[1] == ((0, 1, 1, 2), (0, 2, 2, 1))


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("4 - 2\n- -\n- 3 -\n", "row has 2 cells", 2, 4),
        ("4 - 2\n- - - -\n- 3 -\n", "row has 4 cells", 2, 7),
        ("4 - 2\n- x -\n- 3 -\n", "unknown cell 'x'", 2, 3),
        ("4 - 2\n- - -\n- 30 -\n", "clue 30 is impossible", 3, 3),
        ("7 - -\n- - -\n- - -\n", "no rectangle of area 7", 1, 1),
        ("1 - -\n- - -\n- - 1\n", "no clue's rectangle can cover", 1, 3),
        ("- -\n- -\n", "no clue", 1, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    with pytest.raises(PuzzleError) as err:
        shikaku.read(text)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (line, col)


# ---------------------------------------------------------------- generator


def test_generated_file_is_readable_sugar():
    text = shikaku.generate(shikaku.read(TINY))
    assert text.startswith("; Shikaku puzzle, 3 rows x 3 columns\n;\n;   4 - 2\n")
    assert "; Rule: each clue lies in exactly one rectangle" in text
    assert "; Rule: the rectangles divide the grid" in text
    tree = parse_text(text)
    declared = {s.name for s in tree.statements if hasattr(s, "spec")}
    assert {"k_0_0", "k_0_2", "k_2_1", "_o_1_1"} <= declared


@pytest.mark.parametrize("name", instances("shikaku"))
def test_every_data_board_generates_a_parsable_file(name):
    parse_text(shikaku.generate(shikaku.read(puzzle_text("shikaku", name))), name)


# ---------------------------------------------------------------- decoder and renderers


@pytest.mark.parametrize("name", ["pzprjs_6x6", "cspuz_6x6_qclue"])
def test_decoding_the_known_solution_gives_the_answer_file(name):
    puzzle = shikaku.read(puzzle_text("shikaku", name))
    answer = expected_answer("shikaku", name)
    labels = [[int(v) for v in line.split()] for line in answer.splitlines()]
    check_division(puzzle, labels)
    solution = shikaku.decode(puzzle, values_from_labels(puzzle, labels))
    assert shikaku.render(puzzle, solution, "answer") == answer


def test_decoder_reports_a_missing_variable():
    puzzle = shikaku.read(TINY)
    with pytest.raises(PuzzleError, match="no value for k_0_2"):
        shikaku.decode(puzzle, {"k_0_0": 1})


def test_drawing_and_svg_of_a_small_board():
    puzzle = shikaku.read(TINY)
    solution = shikaku.decode(puzzle, {"k_0_0": 1, "k_0_2": 2, "k_2_1": 1})
    assert shikaku.render(puzzle, solution, "answer") == TINY_ANSWER
    assert shikaku.render(puzzle, solution, "drawing") == (
        "+---+---+---+\n"
        "| 4     | 2 |\n"
        "+       +   +\n"
        "|       |   |\n"
        "+---+---+---+\n"
        "|     3     |\n"
        "+---+---+---+\n"
    )
    svg = ET.fromstring(shikaku.render(puzzle, solution, "svg"))
    assert svg.tag.endswith("svg")
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == ["4", "2", "3"]


def test_registered_under_its_name():
    assert genre("shikaku").read is shikaku.read


# ---------------------------------------------------------------- end to end

STATUS = statuses("shikaku")


@pytest.mark.parametrize("name", instances("shikaku"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    puzzle = shikaku.read(puzzle_text("shikaku", name))
    values, another = solve_twice(shikaku, puzzle)
    solution = shikaku.decode(puzzle, values)
    check_division(puzzle, solution)
    answer = shikaku.render(puzzle, solution, "answer")
    if expected_answer("shikaku", name) is not None:
        assert strip_lines(answer) == expected_answer("shikaku", name)
    assert another == (STATUS[name] == "MULTIPLE")


def test_decoder_reads_a_sugar_log_with_tabs_and_extra_variables():
    puzzle = shikaku.read(TINY)
    log = "c Sugar\ns SATISFIABLE\na k_0_0\t1\na k_0_2\t2\na k_2_1\t1\na o_1_1\t1\na\n"
    solution = shikaku.decode(puzzle, read_log(log))
    assert shikaku.render(puzzle, solution, "answer") == TINY_ANSWER


@pytest.mark.parametrize("reader, text, hinted", [
    (shikaku.read, "10\n9\n", True),  # one column of numbers: the size line tells it from a typo
    (shikaku.read, "10\n-\n", True),
    (genre("slitherlink").read, "3.2\n...\n1.\n", False),  # rows that are no single token: a typo only
    (genre("pentomino").read, "..#\n..\n", False),
])
def test_the_one_column_hint_is_given_only_where_each_row_could_be_one_token(reader, text, hinted) -> None:
    with pytest.raises(PuzzleError) as err:
        reader(text)
    assert "but the first row has" in err.value.message
    assert ("needs a line 'size" in err.value.message) == hinted
