"""Kakuro genre: reader, generated CSP, decoder, checker and renderers, and every data/kakuro board."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.generators import kakuro, puzzlink
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, expected_answer, instances, solve_once

URL = "https://puzz.link/p?kakuro/5/5/48la0.na0lh3l0Bn.0cl.c4a3"


def test_url_board_has_the_frame_and_round_trips():
    text = puzzlink.url_to_text(URL)
    assert text.splitlines()[0] == "# # 12\\- 4\\- # #"
    assert puzzlink.to_url(text, "kakuro") == URL
    # newer pzprjs writes "-" for a missing sum; it reads as no sum
    assert puzzlink.url_to_text("https://puzz.link/p?kakuro/2/1/.-5") == "# # #\n# # -\\5\n"


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("# 3\\-\n# x\n", "unknown cell 'x'", 2, 3),
        ("# 46\\-\n# .\n", "a sum must be 1..45", 1, 3),
        ("# 12\\-\n# .\n", "a run of 1 cells cannot add up to 12", 2, 3),
        ("#" + " #" * 10 + "\n" + ("-\\1 " + ". " * 10).strip() + "\n", "a run of 10 cells cannot add up to 1", 2, 5),
        # the frame holds no white cell: a URL could not hold it
        ("# .\n# .\n", "a white cell in the frame", 1, 3),
        ("# #\n. .\n", "a white cell in the frame", 2, 1),
        # a sum with nothing to add up (a URL would drop it)
        ("# #\n-\\4 #\n", "the sum 4 has no white cell to the right of it", 2, 1),
        ("# 3\\-\n# #\n", "the sum 3 has no white cell below it", 1, 3),
        ("# 3\\-\n", "no cells inside the frame", 1, 1),
        ("#\n", "no cells inside the frame", 1, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(kakuro.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    puzzle = kakuro.read(puzzlink.url_to_text(URL))
    text = kakuro.generate(puzzle)
    assert "(alldifferent x_1_2 x_1_3)" in text and "(= (+ x_1_2 x_1_3) 8)" in text
    parse_text(text)


def test_answer_checks_and_draws():
    puzzle = kakuro.read(puzzlink.url_to_text(URL))
    digits = kakuro.decode(puzzle, solve_once(kakuro.generate(puzzle)))
    assert kakuro.check(puzzle, digits) == []
    assert kakuro.render(puzzle, digits, "answer") == expected_answer("kakuro", "pzprjs_5x5")
    assert kakuro.render(puzzle, digits, "drawing").splitlines()[1] == "   #  4\\8    5    3 10\\-    #"
    svg = ET.fromstring(kakuro.render(puzzle, digits, "svg"))
    texts = {(t.get("x"), t.get("y")): t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
    # the clue 4\8 at row 1, column 1 (x, y 36..68): a white diagonal, the down sum 4 below it, 8 above it
    assert any(line.get("stroke") == "white" and [line.get(k) for k in ("x1", "y1", "x2", "y2")] == ["36", "36", "68", "68"]
               for line in svg.iter("{http://www.w3.org/2000/svg}line"))
    assert texts["45.6", "59.04"] == "4" and texts["59.04", "45.6"] == "8"
    wrong = [row[:] for row in digits]
    wrong[1][2] = 3
    assert {v.rule for v in kakuro.check(puzzle, wrong)} >= {"a run holds different digits",
                                                             "the run adds up to 8, and its digits add up to 6"}


def test_sums_are_enforced():
    assert solve_once(kakuro.generate(kakuro.read("# # #\n-\\4 . .\n"))) is not None  # 1+3
    assert solve_once(kakuro.generate(kakuro.read("# 1\\- 1\\-\n-\\3 . .\n"))) is None  # both 1: not different


def test_registered_under_its_name():
    assert genre("kakuro").render is kakuro.render


@pytest.mark.parametrize("name", instances("kakuro"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(kakuro, "kakuro", name)
