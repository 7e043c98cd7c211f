"""Star Battle genre: reader, generated CSP, decoder, checker and renderers, and every data/starbattle board."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import puzzlink, starbattle
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = "stars 1\n0 0 0 1 1 1\n0 1 1 1 2 2\n0 3 3 4 4 2\n5 5 3 3 4 2\n5 4 4 4 4 2\n5 2 2 2 2 2\n"
SMALL_ANSWER = ".*....\n...*..\n.....*\n..*...\n....*.\n*.....\n"


def test_reader_forms_and_renumbering():
    letters = starbattle.read("stars 1\nAAAB\nACCB\nDCCB\nDDDB\n".replace("B", "E"))
    assert letters.regions[0] == (0, 0, 0, 1)
    assert starbattle.read(SMALL).stars == 1
    assert starbattle.read("0 1\n1 1\n").stars == 1  # no stars line: one star


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("stars x\n0 0\n0 0\n", "a stars line must be", 1, 1),
        ("stars 1\n0 0 0\n0 0 0\n", "square", 2, 1),
        ("stars 2\n0 0\n1 1\n", "do not fit", 2, 1),
        ("stars 1\n0 0\n1\n", "row has 1 cell but", 3, 2),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(starbattle.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    text = starbattle.generate(starbattle.read(SMALL))
    assert "(= (+ t_0_0 t_0_1 t_0_2 t_0_3 t_0_4 t_0_5) 1)" in text
    assert "(<= (+ t_0_0 t_0_1 t_1_0 t_1_1) 1)" in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = starbattle.read(SMALL)
    rows = SMALL_ANSWER.split()
    solution = starbattle.decode(puzzle, {f"t_{r}_{c}": int(ch == "*") for r, row in enumerate(rows)
                                          for c, ch in enumerate(row)})
    assert starbattle.check(puzzle, solution) == []
    assert starbattle.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert starbattle.render(puzzle, solution, "drawing").splitlines()[1] == "|     *     |           |"
    svg = ET.fromstring(starbattle.render(puzzle, solution, "svg"))
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == ["\u2605"] * 6


def test_checker_names_broken_rules():
    puzzle = starbattle.read(SMALL)
    found = {str(v) for v in starbattle.check(puzzle, ["*.....", ".*....", *SMALL_ANSWER.split()[2:]])}
    assert "row 0: holds 1 star(s), and has 1" not in found
    assert "column 3: holds 1 star(s), and has 0" in found
    assert any("stars never touch" in v for v in found)


def test_touching_stars_are_refused():
    assert solve_once(starbattle.generate(starbattle.read("0 0\n0 0\n"))) is None
    assert solve_once(starbattle.generate(starbattle.read("0 0 0\n1 1 1\n2 2 2\n"))) is None
    assert solve_once(starbattle.generate(starbattle.read("stars 1\n0 0 0 1\n0 2 2 1\n0 2 3 1\n3 3 3 1\n"))) is None


def test_url_round_trip_keeps_the_star_count():
    url = puzzlink.to_url(SMALL, "starbattle")
    assert url == "https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhou"
    assert puzzlink.url_to_text(url) == SMALL


def test_registered_under_its_name():
    assert genre("starbattle").render is starbattle.render


@pytest.mark.parametrize("name", instances("starbattle"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(starbattle, "starbattle", name)
