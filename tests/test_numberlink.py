"""Numberlink genre: reader, generated CSP, decoder, checker and renderers, and every data/numberlink board."""

from __future__ import annotations

import pytest

from csp2sat.generators import numberlink, puzzlink
from csp2sat.generators.base import genre
from csp2sat.parser import parse_text
from genre_support import assert_read_error, check_board_end_to_end, expected_answer, instances, solve_once

SMALL = "1 - - - -\n2 - - 3 -\n- - - - -\n- 1 - - 2\n- - - - 3\n"


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("1 1 1\n", "the number 1 stands more than twice", 1, 5),
        ("1 2 2\n", "the number 1 stands only once", 1, 1),
        ("1 ? 1\n", "cannot be unknown", 1, 3),
        ("1 x 1\n", "unknown cell 'x'", 1, 3),
        ("every_cell\n1 - 1\n", "unknown rule line 'every_cell'", 1, 1),  # not "row has 1 cell"
        ("1 - 1\n  no2x2\n- - -\n", "unknown rule line 'no2x2'", 2, 3),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    assert_read_error(numberlink.read, text, message, line, col)


def test_generated_file_is_readable_sugar():
    puzzle = numberlink.read(SMALL)
    assert puzzle.pairs() == [1, 2, 3]
    text = numberlink.generate(puzzle)
    assert "(= (+ h_0_0 v_0_0) 1)" in text
    # no closed circuit: the turn counts (hidden) of the three segments at cell (0,1); none at a number
    assert "(bool _w_h_0_0_0)" in text
    assert "(turns_lrd h_0_0 h_0_1 v_0_1 _w_h_0_0_0 _w_h_0_0_1 _w_h_0_1_0 _w_h_0_1_1 _w_v_0_1_0 _w_v_0_1_1)" in text
    assert "(turns_rd h_0_0 v_0_0 " not in text
    parse_text(text)


def test_published_answer_checks_and_round_trips():
    puzzle = numberlink.read(SMALL)
    values = solve_once(numberlink.generate(puzzle))
    drawn = numberlink.decode(puzzle, values)
    assert numberlink.check(puzzle, drawn) == []
    assert numberlink.render(puzzle, drawn, "answer") == expected_answer("numberlink", "pzprjs_5x5")
    assert numberlink.render(puzzle, drawn, "drawing").splitlines()[0].startswith(" 1 -")
    assert "<line" in numberlink.render(puzzle, drawn, "svg")


def test_checker_names_broken_rules():
    puzzle = numberlink.read("1 - 2\n- - -\n2 - 1\n")
    crossed = numberlink.read("1 2\n2 1\n")
    rules = [v.rule for v in numberlink.check(crossed, {((0, 0), (1, 0)), ((0, 1), (1, 1))})]
    assert rules[0] == "the line from 1 ends at cell row 1, column 0, not at the other 1"
    rules = [v.rule for v in numberlink.check(puzzle, {((0, 0), (0, 1))})]
    assert "a line never branches or ends in an empty cell, and here 1 segments meet" in rules
    loop = {((1, 0), (1, 1)), ((1, 1), (2, 1)), ((1, 0), (2, 0))}
    assert numberlink.check(numberlink.read("- -\n- -\n"), set()) == []
    assert any("closed line" in v.rule for v in numberlink.check(
        numberlink.read("- - -\n- - -\n- - -\n"), loop | {((2, 0), (2, 1))}))


def test_lines_cannot_cross_or_loop_alone():
    assert solve_once(numberlink.generate(numberlink.read("- 1 -\n2 - 2\n- 1 -\n"))) is None  # they would cross
    assert solve_once(numberlink.generate(numberlink.read("1 - 1\n"))) is not None


def test_url_round_trip():
    assert puzzlink.to_url(SMALL, "numberlink") == "https://puzz.link/p?numlin/5/5/1j2h3m1h2j3"


def test_registered_under_its_names():
    assert genre("numlin") is genre("numberlink")


@pytest.mark.parametrize("name", instances("numberlink"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    check_board_end_to_end(numberlink, "numberlink", name)


def test_rule_lines_every_cell_and_no_2x2():
    # 1 and 2 run side by side along two rows; the empty third row must be filled with every-cell,
    # which only a line turning in place (a 2x2 block of one line) can do, so no-2x2 makes it unsolvable
    text = "1 - - 1\n2 - - 2\n- - - -\n"
    plain = numberlink.read(text)
    assert not plain.every_cell and not plain.no_2x2
    assert solve_once(numberlink.generate(plain)) is not None
    filled = numberlink.read("every-cell\n" + text)
    assert filled.every_cell and filled.text_lines()[0] == "every-cell"
    values = solve_once(numberlink.generate(filled))
    drawn = numberlink.decode(filled, values)
    assert numberlink.check(filled, drawn) == []
    assert all("." not in line for line in numberlink.render(filled, drawn, "answer").splitlines()[::2])
    strict = numberlink.read("every-cell\nno-2x2\n" + text)
    assert strict.no_2x2
    assert solve_once(numberlink.generate(strict)) is None
    # the checker names the broken rule
    assert any("2x2" in v.rule for v in numberlink.check(strict, drawn))
    straight = {((0, 0), (0, 1)), ((0, 1), (0, 2)), ((0, 2), (0, 3)), ((1, 0), (1, 1)), ((1, 1), (1, 2)), ((1, 2), (1, 3))}
    assert numberlink.check(plain, straight) == []
    assert any("every-cell" in v.rule for v in numberlink.check(filled, straight))


@pytest.mark.parametrize("rules, solvable", [("", True), ("every-cell\n", False), ("every-cell\nno-2x2\n", False)])
def test_a_board_of_one_cell(rules: str, solvable: bool) -> None:
    # its cell has no segment: under every-cell no line can pass it (the CSP had no constraint at all and
    # solving it ended in "our own answer breaks a rule")
    puzzle = numberlink.read(rules + "-\n")
    values = solve_once(numberlink.generate(puzzle))
    assert (values is not None) == solvable
    if values is not None:
        assert numberlink.check(puzzle, numberlink.decode(puzzle, values)) == []


def test_rule_line_errors_have_positions():
    assert_read_error(numberlink.read, "every-cell yes\n1 1\n", "holds that word alone", 1, 12)


def test_no_detour_counts_answers_up_to_detours():
    from genre_support import solve_twice

    # 17 answers under the plain rules (the lines may bulge into the empty middle row), one without detours:
    # both lines straight
    text = "1 - - 1\n- - - -\n2 - - 2\n"
    _, another = solve_twice(numberlink, numberlink.read(text))
    assert another
    puzzle = numberlink.read("no-detour\n" + text)
    assert puzzle.no_detour and puzzle.text_lines()[0] == "no-detour"
    values, another = solve_twice(numberlink, puzzle)
    assert not another
    drawn = numberlink.decode(puzzle, values)
    assert numberlink.check(puzzle, drawn) == []
    assert numberlink.render(puzzle, drawn, "answer").splitlines()[0] == "1-+-+-1"
    generated = numberlink.generate(puzzle)
    # the pair seen left of (0,2) has 2 bits; left of (0,1) stands a number, whose pair bits serve
    assert "No detour" in generated and "(bool _l_0_2_1)" in generated and "_l_0_1_" not in generated
    assert "(direct h_0_0 _c_0_1_0 _c_0_1_1 _c_0_0_0 _c_0_0_1)" in generated
    parse_text(generated)


@pytest.mark.parametrize("name", ["pzprjs_5x5", "cspuz_6x6", "penpa_2_11x11"])
def test_no_detour_keeps_the_answer_of_a_unique_board(name):
    from genre_support import puzzle_text, solve_twice

    plain = numberlink.read(puzzle_text("numberlink", name))
    strict = numberlink.read("no-detour\n" + puzzle_text("numberlink", name))
    values, another = solve_twice(numberlink, strict)
    assert not another
    assert numberlink.render(strict, numberlink.decode(strict, values), "answer") == expected_or_solved(plain)


def expected_or_solved(puzzle) -> str:
    """The answer drawing of `puzzle` solved under the plain rules."""
    return numberlink.render(puzzle, numberlink.decode(puzzle, solve_once(numberlink.generate(puzzle))), "answer")


def test_no_detour_refuses_every_cell():
    assert_read_error(numberlink.read, "every-cell\nno-detour\n1 1\n", "do not go together", 2, 1)


def test_url_refuses_a_rule_line_it_cannot_hold():
    from csp2sat.generators.base import PuzzleError

    with pytest.raises(PuzzleError) as err:
        puzzlink.to_url("- -\nevery-cell\n1 1\n", "numberlink")
    assert "cannot hold the rule line 'every-cell'" in err.value.message and (err.value.line, err.value.col) == (2, 1)
