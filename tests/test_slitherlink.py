"""Slitherlink genre: reader, generated CSP, decoder/renderers from known solutions, end-to-end solving."""

from __future__ import annotations

import pytest

from csp2sat.generators import slitherlink as S
from csp2sat.generators.base import PuzzleError, read_log
from csp2sat.generators.run import solve_puzzle
from tests.genre_support import expected_answer, instances, puzzle_text, statuses, strip_lines
from tests.loop_genre_support import grid_edge_values

DIR = "slitherlink"
SMALL = "3...\n3...\n.22.\n.2.1\n"


def values_of(p: S.Slitherlink, answer: str) -> dict[str, int]:
    return grid_edge_values(answer, p.rows + 1, p.cols, p.cols, p.rows, p.cols + 1)


def test_reader_characters_and_seed_tokens_agree() -> None:
    chars = S.read("3.?\n.0.\n")
    tokens = S.read("3 -1 ?\n-1 0 -1\n")
    assert chars == tokens
    assert chars.clues == ((3, False, None), (False, 0, False))


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("3..\n..\n", 2, 3, "row has 2 cells"),
        ("3.x\n...\n", 1, 3, "unknown cell 'x'"),
        ("...\n.5.\n", 2, 2, "clue 5 is more than a cell's 4 sides"),
        ("3 -1\n-1 5\n", 2, 4, "clue 5 is more than"),
    ],
)
def test_reader_errors_have_positions(text: str, line: int, col: int, words: str) -> None:
    with pytest.raises(PuzzleError) as err:
        S.read(text)
    assert (err.value.line, err.value.col) == (line, col)
    assert words in err.value.message


@pytest.mark.parametrize("text, answer", [
    ("4\n", "+-+\n|4|\n+-+\n"),
    ("4.\n..\n", "+-+ +\n|4|  \n+-+ +\n     \n+ + +\n"),
])
def test_a_clue_4_is_the_loop_round_its_cell(text: str, answer: str) -> None:
    """A 4 is a clue (pzprjs keeps it): the one loop is the cell's own four sides."""
    board = S.read(text)
    run = solve_puzzle(S.GENRE, board, unique=True)
    assert S.render(board, run.solution, "answer") == answer and run.unique


def test_a_clue_4_beside_another_clue_has_no_solution() -> None:
    assert solve_puzzle(S.GENRE, S.read(".4.\n.2.\n...\n")).solution is None


def test_generated_file_is_valid_sugar_with_rule_blocks() -> None:
    from csp2sat.checker import check
    from csp2sat.parser import parse_text

    text = S.generate(S.read(SMALL))
    model = check(parse_text(text))
    assert text.startswith("; Slitherlink 4x4")
    assert ";   3...\n;   3...\n;   .22.\n;   .2.1\n" in text
    for title in ("; Edges:", "; Clues:", "; Inside and outside", "; Loop: every node", "; Loop: one circuit"):
        assert title in text
    assert "(= (+ h_3_3 h_4_3 v_3_3 v_3_4) 1)" in text
    assert {"h_0_0", "v_3_4", "_p_4_4"} <= set(model.int_vars)
    assert all(n[0] in "hv" for n in model.int_vars if not n.startswith("_")) and not [n for n in model.bool_vars if not n.startswith("_")]
    # One circuit by turning: 2 bits per edge, a rule per pair of edges at a node, none at the root
    # (the corner of the first 3), no numbers.
    assert {"_w_h_0_0_0", "_w_v_3_4_1"} <= set(model.bool_vars) and not [n for n in model.bool_vars if n.startswith("_z")]
    assert "(turns_lrd h_0_0 h_0_1 v_0_1 _w_h_0_0_0 _w_h_0_0_1 _w_h_0_1_0 _w_h_0_1_1 _w_v_0_1_0 _w_v_0_1_1)" in text
    assert "(turns_rd h_0_0 v_0_0 " not in text


def test_without_a_three_the_root_is_chosen_by_a_prefix_chain() -> None:
    text = S.generate(S.read("2.\n.1\n"))
    assert "(iff _s_0_1 (or _s_0_0 (= _p_0_1 1)))" in text and "\n_s_2_2\n" in text


@pytest.mark.parametrize("name", [n for n in instances(DIR) if expected_answer(DIR, n)])
def test_answer_of_known_solution_round_trips(name: str) -> None:
    p = S.read(puzzle_text(DIR, name))
    answer = expected_answer(DIR, name)
    solution = S.decode(p, values_of(p, answer))
    assert strip_lines(S.render(p, solution, "answer")) == answer


def test_drawing_and_svg_of_a_small_board() -> None:
    p = S.read(SMALL)
    solution = S.decode(p, values_of(p, expected_answer(DIR, "cspuz_4x4")))
    assert S.render(p, solution, "drawing") == (
        "+---+---+---+---+\n"
        "| 3             |\n"
        "+---+   +---+   +\n"
        "  3 |   |   |   |\n"
        "+---+   +   +   +\n"
        "|     2 | 2 |   |\n"
        "+   +---+   +---+\n"
        "|   | 2       1  \n"
        "+---+   +   +   +\n"
    )
    svg = S.render(p, solution, "svg")
    assert svg.startswith("<svg") and svg.count('stroke="green"') == len(solution.horizontal) + len(solution.vertical) == 22 and ">3</text>" in svg


def test_decoder_reads_a_sugar_log_and_reports_missing_variables() -> None:
    p = S.read("3\n")
    log = "s SATISFIABLE\na h_0_0\t1\na h_1_0\t1\na v_0_0 1\na v_0_1\t0\na p_0_0\t1\na\n"
    assert S.decode(p, read_log(log)) == S.Loop(frozenset({(0, 0), (1, 0)}), frozenset({(0, 0)}))
    with pytest.raises(PuzzleError, match="v_0_1"):
        S.decode(p, read_log("s SATISFIABLE\na h_0_0\t1\na h_1_0\t1\na v_0_0\t1\na\n"))


@pytest.mark.parametrize("name", instances(DIR))
def test_every_instance_is_solved_with_the_recorded_answer_and_uniqueness(name: str) -> None:
    p = S.read(puzzle_text(DIR, name))
    run = solve_puzzle(S.GENRE, p, unique=True)
    assert run.solution is not None
    answer = S.render(p, run.solution, "answer")
    expected = expected_answer(DIR, name)
    if expected is not None:
        assert strip_lines(answer) == expected
    assert run.unique == (statuses(DIR)[name] == "unique")


def test_inside_colouring_follows_the_border() -> None:
    text = S.generate(S.read(SMALL))
    # a border edge separates its cell from the outside; an inner edge two cells
    assert "(side h_0_0 false _in_0_0)" in text and "(side v_1_4 _in_1_3 false)" in text
    assert "(side h_2_1 _in_1_1 _in_2_1)" in text
