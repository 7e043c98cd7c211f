"""Hitori genre: reader, generated CSP, decoder, checker and renderers, and every data/hitori board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import hitori
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = "1 1 1 4\n1 4 2 3\n3 3 2 1\n4 2 1 3\n"
SMALL_ANSWER = "#.#.\n....\n#.#.\n...#\n"


def test_reader_forms():
    assert hitori.read(SMALL).numbers == hitori.read("1114\n1423\n3321\n4213\n").numbers
    puzzle = hitori.read("1 - ?\n")
    assert puzzle.numbers == ((1, None, None),)
    assert puzzle.text_lines() == ["1 - ?"]


@pytest.mark.parametrize(
    "text, message, line, col",
    [("1 2\n1 x\n", "unknown cell 'x'", 2, 3), ("1 2\n1\n", "row has 1 cell but", 2, 2)],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(hitori.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    text = hitori.generate(hitori.read(SMALL))
    assert "(or (= s_0_0 1) (= s_0_1 1))" in text
    for rule in ("at most once unshaded", "never share an edge", "unshaded cells are connected"):
        assert rule in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = hitori.read(SMALL)
    rows = SMALL_ANSWER.split()
    solution = hitori.decode(puzzle, {f"s_{r}_{c}": int(ch == "#") for r, row in enumerate(rows)
                                      for c, ch in enumerate(row)})
    assert hitori.check(puzzle, solution) == []
    assert hitori.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert hitori.render(puzzle, solution, "drawing").splitlines()[1] == "|#1#  1  #1#  4 |"
    svg = ET.fromstring(hitori.render(puzzle, solution, "svg"))
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}text"))) == 16


def test_checker_names_broken_rules():
    puzzle = hitori.read(SMALL)
    rules = [v.rule for v in hitori.check(puzzle, ["....", "....", "#.#.", "...#"])]
    assert any(rule.startswith("a number appears once unshaded") for rule in rules)
    rules = [v.rule for v in hitori.check(puzzle, ["##..", "....", "#.#.", "...#"])]
    assert any(rule.startswith("shaded cells never share an edge") for rule in rules)
    assert "the unshaded cells are connected, and they fall into 2 parts" in [
        v.rule for v in hitori.check(hitori.read("1 2\n2 1\n"), [".#", "#."])]


def test_unshaded_cells_must_stay_connected():
    # Four 1s: the only shadings without touching cells are the diagonals, which split the rest.
    assert solve_once(hitori.generate(hitori.read("1 1\n1 1\n"))) is None
    assert solve_once(hitori.generate(hitori.read("1 1\n2 3\n"))) is not None


def test_registered_under_its_name():
    assert genre("hitori").render is hitori.render


@pytest.mark.parametrize("name", instances("hitori"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(hitori, "hitori", name)
