"""Yajilin genre: reader, generated CSP, decoder, checker and renderers, and every data/yajilin board."""

from __future__ import annotations

import pytest

from csp2sat.generators import puzzlink, yajilin
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, expected_answer, instances, solve_once

SMALL = ". . . . .\n. . . . .\n. . . 2< .\n. . . . .\n. . . . 0^\n"


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        (". x\n", "unknown cell 'x'", 1, 3),
        ("3> . . . .\n", "3 shaded cells that never touch do not fit", 1, 1),
        (". 0> . 3<\n", "3 shaded cells that never touch do not fit", 1, 8),
        (". .\n.\n", "row has 1 cell but", 2, 2),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(yajilin.read, text, message, line, col)


def test_a_clue_cell_between_two_cells_lets_both_be_shaded():
    # Nikoli's sample 'otameshi 1' ends its last row so: the 2 shades the cells on both sides of the 1 clue,
    # which never touch; counting the cells the arrow sees as one run allowed only one
    puzzle = yajilin.read("1> . 1< . 2<\n")
    assert puzzle.clues[0, 4] == (2, "<") and puzzle.seen((0, 4)) == [(0, 3), (0, 1)]
    assert solve_once(yajilin.generate(yajilin.read(". . . . . .\n. . . . . .\n. 1< . 2< . .\n"))) is not None


def test_reader_forms():
    puzzle = yajilin.read("1v ?> 2\n. . .\n")
    assert puzzle.clues == {(0, 0): (1, "v"), (0, 1): (None, ">"), (0, 2): (2, "")}
    assert puzzle.seen((0, 0)) == [(1, 0)]


def test_generated_file_is_readable_sugar():
    text = yajilin.generate(yajilin.read(SMALL))
    assert "(= (+ (if (= _p_2_2 0) 1 0) (if (= _p_2_1 0) 1 0) (if (= _p_2_0 0) 1 0)) 2)" in text
    parse_text(text)


def test_answer_checks_and_draws():
    puzzle = yajilin.read(SMALL)
    loop = yajilin.decode(puzzle, solve_once(yajilin.generate(puzzle)))
    assert yajilin.check(puzzle, loop) == []
    assert yajilin.render(puzzle, loop, "answer") == expected_answer("yajilin", "pzprjs_5x5")
    assert " 2< " in yajilin.render(puzzle, loop, "drawing")
    assert "<line" in yajilin.render(puzzle, loop, "svg")
    rules = {v.rule for v in yajilin.check(puzzle, set())}
    assert "the clue counts 2 shaded cells in its direction, and there are 3" in rules
    assert any(rule.startswith("shaded cells never share an edge") for rule in rules)


def test_url_round_trip_ignores_the_display_flag():
    url = "https://puzz.link/p?yajilin/b/9/9/a21220.c212242h41h0.d0.f0.k0.f11d41h42h"
    text = puzzlink.url_to_text(url)
    assert puzzlink.to_url(text, "yajilin") == url.replace("/b/", "/")


def test_registered_under_its_name():
    assert genre("yajilin").render is yajilin.render


@pytest.mark.parametrize("name", instances("yajilin"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(yajilin, "yajilin", name)


def _source_shadings() -> list:
    """(name, shaded rows) for every sources.txt record whose source gives only the shading."""
    import re

    from genre_support import DATA

    text = (DATA / "yajilin" / "sources.txt").read_text(encoding="utf-8")
    return [pytest.param(name, rows.split("/"), id=name)
            for name, rows in re.findall(r"^(\S+)\.txt\n(?:  .*\n)*?  shaded: (\S+)", text, re.M)]


@pytest.mark.parametrize("name, rows", _source_shadings())
def test_shading_equals_the_sources_shading(name, rows):
    from genre_support import puzzle_text

    puzzle = yajilin.read(puzzle_text("yajilin", name))
    loop = yajilin.decode(puzzle, solve_once(yajilin.generate(puzzle)))
    shaded = yajilin._shaded(puzzle, loop)
    assert ["".join("#" if (r, c) in shaded else "." for c in range(puzzle.cols)) for r in range(puzzle.rows)] == rows
