"""Heyawake genre: reader, generated CSP, decoder, checker and renderers, and every data/heyawake board."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import heyawake, puzzlink
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

ROOMS = "0 1 1 2 2 3\n0 1 1 2 2 3\n0 1 1 2 2 3\n4 4 4 4 4 3\n5 5 5 6 6 3\n5 5 5 6 6 7\n"
NUMBERS = "2 2 - 2 - 2\n- - - - - -\n- - - - - -\n- - - - - -\n- - - - - -\n- - - - - -\n"
SMALL = ROOMS + "\n" + NUMBERS
SMALL_ANSWER = "#.#..#\n...#..\n#.#.#.\n......\n.#.#.#\n..#...\n"
# Boards whose uniqueness check takes more than a few seconds (the rooted connectivity numbering).
SLOW = {"penpa_3_12x12", "penpa_4_17x17"}


def test_reader():
    puzzle = heyawake.read(SMALL)
    assert puzzle.numbers == {0: 2, 1: 2, 2: 2, 3: 2}
    assert puzzle.text_lines()[7] == "2 2 - 2 - 2"
    assert heyawake.read("0 0\n\n0 -\n").numbers == {0: 0}


def test_comment_lines_around_the_grids():
    """A `;` comment block of its own is not the room grid, and `#` notes may follow the numbers."""
    puzzle = heyawake.read("; from a magazine\n\n" + SMALL + "\n# solved by hand\n")
    assert puzzle.numbers == heyawake.read(SMALL).numbers


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("0 0\n0 0\n", "needs 2 grids", 2, 1),
        ("0 0\n\n1 1\n", "room 0 has two numbers", 3, 3),
        ("0 1\n\n- 2\n", "larger than its room", 3, 3),
        ("0 1\n\n- - -\n", "number grid is 1x3", 3, 1),
        ("0 1\n\n- x\n", "unknown cell 'x'", 3, 3),
        # a third grid is not more rows of the second (it was read as a 2x2 number grid)
        ("0 1\n\n- -\n\n- -\n", "this is one more", 5, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(heyawake.read, text, message, line, col)


def test_crossings_are_the_runs_between_consecutive_borders():
    puzzle = heyawake.read(SMALL)
    assert [(0, 0), (0, 1), (0, 2), (0, 3)] in puzzle.crossings()
    text = heyawake.generate(puzzle)
    assert "(or (= s_0_0 1) (= s_0_1 1) (= s_0_2 1) (= s_0_3 1))" in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = heyawake.read(SMALL)
    rows = SMALL_ANSWER.split()
    solution = heyawake.decode(puzzle, {f"s_{r}_{c}": int(ch == "#") for r, row in enumerate(rows)
                                        for c, ch in enumerate(row)})
    assert heyawake.check(puzzle, solution) == []
    assert heyawake.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert heyawake.render(puzzle, solution, "drawing").splitlines()[1] == "|#2#| 2  ###| 2     |#2#|"
    assert [t.text for t in ET.fromstring(heyawake.render(puzzle, solution, "svg")).iter(
        "{http://www.w3.org/2000/svg}text")] == ["2", "2", "2", "2"]


def test_checker_names_broken_rules():
    puzzle = heyawake.read(SMALL)
    rules = {v.rule for v in heyawake.check(puzzle, ["......", *SMALL_ANSWER.split()[1:]])}
    assert "the number 2 counts the room's shaded cells, and there are 1" in rules
    assert "no line of unshaded cells crosses two room borders" in rules
    rules = {v.rule for v in heyawake.check(puzzle, ["##...#", *SMALL_ANSWER.split()[1:]])}
    assert any(rule.startswith("shaded cells never share an edge") for rule in rules)


def test_a_line_through_three_rooms_needs_a_shaded_cell():
    assert solve_once(heyawake.generate(heyawake.read("0 1 2\n\n- 0 -\n"))) is not None  # end cells may shade
    assert solve_once(heyawake.generate(heyawake.read("0 1 2\n\n0 - 0\n"))) is None


def test_url_round_trip():
    assert puzzlink.to_url(SMALL, "heyawake") == "https://puzz.link/p?heyawake/6/6/lll155007rs12222j"
    assert puzzlink.url_to_text("https://puzz.link/p?heyawake/6/6/lll155007rs12222j") == SMALL


def test_registered_under_its_name():
    assert genre("heyawake").render is heyawake.render


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                  for n in instances("heyawake")])
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(heyawake, "heyawake", name)
