"""Akari genre: reader, generated CSP, decoder, checker and renderers, and every data/akari board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import akari
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = "......\n..4...\n....2.\n.0....\n...1..\n......\n"
SMALL_ANSWER = "..*...\n.*4*..\n..*.2*\n.0..*.\n*..1..\n...*..\n"


def _values(puzzle: akari.Akari, answer: str) -> dict[str, int]:
    rows = answer.split()
    return {name: int(rows[int(name.split("_")[1])][int(name.split("_")[2])] == "*")
            for name in akari.puzzle_variables(puzzle)}


def test_reader():
    puzzle = akari.read("#.\n.2\n")
    assert puzzle.black == {(0, 0): None, (1, 1): 2}
    assert puzzle.text_lines() == ["#.", ".2"]


def test_a_question_mark_is_a_black_cell_whose_number_is_not_given():
    # pzprjs shows such a cell as '?'; its URL writes it '.', which decodes to '#'
    assert akari.read("?.\n.2\n") == akari.read("#.\n.2\n")


def test_reader_takes_whitespace_separated_cells_as_the_help_says():
    assert akari.read("# .\n.\t2\n") == akari.read("#.\n.2\n")


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("..\n.x\n", "unknown cell 'x'", 2, 2),
        ("..\n...\n", "row has 3 cells", 2, 3),
        ("#3\n..\n", "clue 3 has only 1 white neighbours", 1, 2),
        ("# 12\n. .\n", "unknown cell '12'", 1, 3),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(akari.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    text = akari.generate(akari.read(SMALL))
    assert "(int l_0_0 0 1)" in text and "l_1_2" not in text
    for rule in ("counts the lights", "no light sees another", "every white cell is lit"):
        assert rule in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = akari.read(SMALL)
    solution = akari.decode(puzzle, _values(puzzle, SMALL_ANSWER))
    assert akari.check(puzzle, solution) == []
    assert akari.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert akari.render(puzzle, solution, "drawing").splitlines()[3] == "|     * |#4#| *         |"
    svg = ET.fromstring(akari.render(puzzle, solution, "svg"))
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.text != "\u25cf"] == ["4", "2", "0", "1"]


def test_checker_names_broken_rules():
    puzzle = akari.read(SMALL)
    dark = [row.replace("*", ".") for row in SMALL_ANSWER.split()]
    rules = {v.rule for v in akari.check(puzzle, dark)}
    assert "every white cell is lit, and this one is dark" in rules
    assert "the number 4 counts the lights next to it, and there are 0" in rules
    two = akari.check(akari.read("...\n"), ["*.*"])
    assert [v.where for v in two] == ["cell row 0, column 0", "cell row 0, column 2"]
    assert two[0].rule.startswith("no light sees another")


def test_lights_may_not_see_each_other():
    assert solve_once(akari.generate(akari.read("1..1\n"))) is None
    assert solve_once(akari.generate(akari.read("1#1\n.#.\n"))) is not None


def test_registered_under_its_names():
    assert genre("akari").render is akari.render
    assert genre("lightup") is genre("akari")


@pytest.mark.parametrize("name", instances("akari"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(akari, "akari", name)


def test_every_cell_the_error_message_offers_is_read_as_it_says() -> None:
    assert_read_error(akari.read, "..\n.x\n", "expected '.' or '-' white, '#', '?' or 0-4 black", 2, 2)
    assert akari.read(".-\n#0\n") == akari.read("..\n#0\n") and akari.read(".?\n#0\n") == akari.read(".#\n#0\n")
