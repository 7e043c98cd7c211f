"""Fillmat genre: reader, the seed-004 CSP, decoder and renderers, and every data/fillmat board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.parser import parse_text
from csp2sat.generators import fillmat
from csp2sat.generators.base import PuzzleError, genre
from genre_support import expected_answer, instances, puzzle_text, solve_once, solve_twice, statuses, strip_lines

DOC = "13.3\n....\n..2.\n....\n"
DOC_ANSWER = "1313\n2323\n2323\n4444\n"


def check_blocks(puzzle: fillmat.Fillmat, sizes: list[list[int]]) -> None:
    """Independent check of the rules on a size grid."""
    labels = fillmat.blocks(sizes)
    rows, cols = len(sizes), len(sizes[0])
    for label in {v for row in labels for v in row}:
        cells = [(r, c) for r in range(rows) for c in range(cols) if labels[r][c] == label]
        size = sizes[cells[0][0]][cells[0][1]]
        assert len(cells) == size, f"block {label} has {len(cells)} cells but size {size}"
        assert len({r for r, _ in cells}) == 1 or len({c for _, c in cells}) == 1, "block not straight"
        assert sum((cell in puzzle.clues) for cell in cells) <= 1, "two clues in one block"
    for (r, c), value in puzzle.clues.items():
        assert value is None or sizes[r][c] == value
    for r in range(rows - 1):
        for c in range(cols - 1):
            assert not (
                labels[r][c] != labels[r][c + 1]
                and labels[r + 1][c] != labels[r + 1][c + 1]
                and labels[r][c] != labels[r + 1][c]
                and labels[r][c + 1] != labels[r + 1][c + 1]
            ), f"four borders meet below-right of ({r}, {c})"


def test_reader_accepts_characters_and_the_seed_tokens():
    chars = fillmat.read(DOC)
    seed = fillmat.read("1 3 0 3\n0 0 0 0\n0 0 2 0\n0 0 0 -1\n")
    assert chars == seed
    assert chars.clues == {(0, 0): 1, (0, 1): 3, (0, 3): 3, (2, 2): 2}
    assert fillmat.read("?.\n..\n").clues == {(0, 0): None}


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("13.3\n..5.\n", "clue 5 is impossible", 2, 3),
        ("13.3\n..x.\n", "unknown cell 'x'", 2, 3),
        ("13.3\n...\n", "row has 3 cells", 2, 4),
        ("..\n.4\n", "a block of 4 cells does not fit", 2, 2),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    with pytest.raises(PuzzleError) as err:
        fillmat.read(text)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (line, col)


def test_generated_file_has_the_seed_rules():
    text = fillmat.generate(fillmat.read(DOC))
    assert text.startswith("; Fillmat puzzle, 4 rows x 4 columns\n")
    assert "(int _b_0_0 1 4)" in text  # corners cannot be the middle of a block
    assert "(int _b_1_1 1 6)" in text
    assert "(or (= a_0_0 a_1_0) (= a_0_1 a_1_1) (= a_0_0 a_0_1) (= a_1_0 a_1_1))" in text
    # the two 3s of the first row may not be one block of 3
    assert "(or (!= a_0_1 a_0_2) (!= a_0_2 a_0_3))" in text
    parse_text(text)


def test_doc_example_is_unique_only_with_the_one_clue_per_block_rule():
    puzzle = fillmat.read(DOC)
    values, another = solve_twice(fillmat, puzzle)
    assert not another
    assert fillmat.render(puzzle, fillmat.decode(puzzle, values), "answer") == DOC_ANSWER
    # Without the rule the seed's other answer (one block of 3 across both 3s) is allowed.
    text = fillmat.generate(puzzle)
    relaxed = text[: text.index("; Rule: a block holds at most one clue")]
    assert solve_once(relaxed + "(= a_0_2 3)\n") is not None
    assert solve_once(text + "(= a_0_2 3)\n") is None


def test_drawing_and_svg():
    puzzle = fillmat.read(DOC)
    sizes = [[int(ch) for ch in row] for row in DOC_ANSWER.split()]
    assert fillmat.render(puzzle, sizes, "drawing") == (
        "+---+---+---+---+\n"
        "| 1 | 3 | 1 | 3 |\n"
        "+---+   +---+   +\n"
        "| 2 | 3 | 2 | 3 |\n"
        "+   +   +   +   +\n"
        "| 2 | 3 | 2 | 3 |\n"
        "+---+---+---+---+\n"
        "| 4   4   4   4 |\n"
        "+---+---+---+---+\n"
    )
    svg = ET.fromstring(fillmat.render(puzzle, sizes, "svg"))
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == ["1", "3", "3", "2"]


def test_decoder_rejects_a_bad_value():
    puzzle = fillmat.read("1\n")
    with pytest.raises(PuzzleError, match="not a block size"):
        fillmat.decode(puzzle, {"a_0_0": 7})
    with pytest.raises(PuzzleError, match="no value for a_0_0"):
        fillmat.decode(puzzle, {})


def test_registered_under_its_name():
    assert genre("fillmat").decode is fillmat.decode


STATUS = statuses("fillmat")


@pytest.mark.parametrize("name", instances("fillmat"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    puzzle = fillmat.read(puzzle_text("fillmat", name))
    values, another = solve_twice(fillmat, puzzle)
    sizes = fillmat.decode(puzzle, values)
    check_blocks(puzzle, sizes)
    if expected_answer("fillmat", name) is not None:
        assert strip_lines(fillmat.render(puzzle, sizes, "answer")) == expected_answer("fillmat", name)
    assert another == (STATUS[name] == "MULTIPLE")
