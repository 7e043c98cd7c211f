"""LITS genre: shapes, reader, generated CSP, decoder, checker and renderers, and every data/lits board."""

from __future__ import annotations

import pytest

from csp2sat.generators import lits, puzzlink
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, instances, solve_once

SMALL = "0 0 1 1\n0 0 1 2\n0 1 1 2\n2 2 2 2\n"
SMALL_ANSWER = "#.##\n###.\n#.#.\n####\n"
SLOW = {"noqx_24x24"}  # 24x24: the uniqueness check takes over a minute


def test_shapes_have_their_orientations():
    assert [len(lits.orientations(s)) for s in "LITS"] == [8, 2, 4, 4]
    assert lits.shape_of([(0, 0), (0, 1), (1, 1), (1, 2)]) == "S"  # a Z is an S
    assert lits.shape_of([(0, 0), (0, 1), (1, 0), (1, 1)]) is None  # no O


def test_reader_refuses_a_region_without_room_for_a_tetromino():
    assert_read_error(lits.read, "0 0 1\n1 1 1\n", "no L, I, T or S tetromino fits in region 0", 1, 1)


def test_generated_file_is_readable_sugar():
    text = lits.generate(lits.read(SMALL))
    for rule in ("one tetromino", "same shape never share an edge", "no 2x2", "shaded cells are connected"):
        assert rule in text
    parse_text(text)


def test_known_answer_round_trips_checks_and_draws():
    puzzle = lits.read(SMALL)
    rows = SMALL_ANSWER.split()
    solution = lits.decode(puzzle, {f"s_{r}_{c}": int(ch == "#") for r, row in enumerate(rows)
                                    for c, ch in enumerate(row)})
    assert lits.check(puzzle, solution) == []
    assert lits.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert lits.render(puzzle, solution, "drawing").splitlines()[1] == "|###    |### ###|"


def test_checker_names_broken_rules():
    puzzle = lits.read(SMALL)
    rules = " / ".join(v.rule for v in lits.check(puzzle, ["##..", "##..", "....", "...."]))
    assert "no 2x2 square is all shaded" in rules
    assert "this one shades 0 cells" in rules
    rules = " / ".join(v.rule for v in lits.check(lits.read("0 0 0 0\n1 1 1 1\n"), ["####", "####"]))
    assert "both hold an I" in rules


def test_equal_shapes_may_not_touch():
    assert solve_once(lits.generate(lits.read("0 0 0 0\n1 1 1 1\n"))) is None  # two I's side by side
    assert solve_once(lits.generate(lits.read("0 0 0 0\n1 1 1 1\n1 1 1 1\n"))) is not None


def test_url_round_trip():
    assert puzzlink.to_url(SMALL, "lits") == "https://puzz.link/p?lits/4/4/9q02jg"


def test_registered_under_its_name():
    assert genre("lits").render is lits.render


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                  for n in instances("lits")])
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(lits, "lits", name)
