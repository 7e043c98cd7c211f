"""Norinori genre: reader, generated CSP, decoder, checker and renderers, and every data/norinori board."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import norinori, puzzlink
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = "0 0 1 2 2\n1 1 1 2 2\n1 3 3 2 2\n3 3 3 3 3\n4 4 3 3 3\n"
SMALL_ANSWER = "##...\n..##.\n##..#\n....#\n##...\n"


def test_reader_renumbers_regions():
    assert norinori.read("BBA\nCCA\n").regions == ((0, 0, 1), (2, 2, 1))


def test_reader_errors_have_positions():
    assert_read_error(norinori.read, "0 0\n0\n", "row has 1 cell but", 2, 2)


def test_generated_file_is_readable_sugar():
    text = norinori.generate(norinori.read(SMALL))
    assert "(= (+ s_0_0 s_0_1) 2)" in text
    assert "(=> (= s_0_0 1) (= (+ s_0_1 s_1_0) 1))" in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = norinori.read(SMALL)
    rows = SMALL_ANSWER.split()
    solution = norinori.decode(puzzle, {f"s_{r}_{c}": int(ch == "#") for r, row in enumerate(rows)
                                        for c, ch in enumerate(row)})
    assert norinori.check(puzzle, solution) == []
    assert norinori.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert norinori.render(puzzle, solution, "drawing").splitlines()[1] == "|### ###|   |       |"
    assert ET.fromstring(norinori.render(puzzle, solution, "svg")) is not None


def test_checker_names_broken_rules():
    puzzle = norinori.read(SMALL)
    found = {str(v) for v in norinori.check(puzzle, ["###..", *SMALL_ANSWER.split()[1:]])}
    assert "region 1: a region holds two shaded cells, and this one holds 3" in found
    assert "cell row 0, column 1: a shaded cell has one shaded neighbour, and this one has 2" in found


def test_dominoes_are_required():
    assert solve_once(norinori.generate(norinori.read("0 1\n"))) is None  # one cell per region
    assert solve_once(norinori.generate(norinori.read("0 0\n"))) is not None


def test_url_round_trip():
    assert puzzlink.to_url(SMALL, "norinori") == "https://puzz.link/p?norinori/5/5/cag4ocjo"


def test_registered_under_its_name():
    assert genre("norinori").render is norinori.render


@pytest.mark.parametrize("name", instances("norinori"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(norinori, "norinori", name)
