"""Hashiwokakero genre: reader, the seed's encoding, Sugar's own log and drawing, end-to-end solving."""

from __future__ import annotations

import pytest

from csp2sat.generators import hashiwokakero as H
from csp2sat.generators.base import PuzzleError, read_log
from csp2sat.generators.run import solve_puzzle
from tests.genre_support import expected_answer, instances, puzzle_text, statuses
from tests.loop_genre_support import bridge_lines, bridge_values

DIR = "hashi"
SEED = "sugar_hashiwokakero-0_7x7"

# Sugar 2.3.3's answer for the seed's board, as printed in the Hashiwokakero seed (tabs as Sugar writes them).
SEED_LOG = """s SATISFIABLE
a v_0_0\t2
a h_0_0\t2
a h_0_2\t1
a v_0_4\t0
a h_0_4\t2
a v_0_6\t1
a v_1_1\t0
a h_1_1\t-2
a v_1_5\t-2
a v_2_0\t0
a h_2_0\t1
a v_2_3\t2
a h_2_3\t0
a v_2_6\t2
a h_4_0\t-2
a v_4_3\t2
a h_4_3\t2
a v_4_5\t0
a h_5_4\t-1
a h_6_1\t-1
a h_6_3\t1
a z_0_0\t1
a r_0_0\t1
a
"""

# The drawing hashiwokakero.pl -s printed from that log, character for character (trailing spaces included).
SEED_DRAWING = (
    "; Hashiwokakero Puzzle\n"
    "; # http://www.nikoli.co.jp/en/puzzles/hashiwokakero/\n"
    "; size 7 7\n"
    "; 4 - 3 - 3 - 3\n"
    "; - 2 - - - 4 -\n"
    "; 3 - - 3 - - 3\n"
    "; - - - - - - -\n"
    "; 2 - - 8 - 4 -\n"
    "; - - - - 1 - 3\n"
    "; - 1 - 4 - 1 -\n"
    "\n"
    " 4 === 3 --- 3 === 3  \n"
    " #  2 ========= 4  |  \n"
    " 3 ------ 3     #  3  \n"
    "          #     #  #  \n"
    " 2 ====== 8 === 4  #  \n"
    "          #  1 --- 3  \n"
    "    1 --- 4 --- 1     \n"
    "\n"
    "; END\n"
)


def test_reader_accepts_characters_and_hashiwokakero_pl_tokens() -> None:
    chars = H.read(puzzle_text(DIR, SEED))
    tokens = H.read("\n".join(line[2:] for line in SEED_DRAWING.splitlines()[3:10]))
    zeros = H.read("4 0 3 0 3 0 3\n" + "\n".join(line[2:] for line in SEED_DRAWING.splitlines()[4:10]))
    assert chars == tokens == zeros
    assert len(chars.islands) == 17 and chars.islands[(4, 3)] == 8
    assert H.read("2.?\n...\n1..\n").islands[(0, 2)] is None


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("1.1\n..\n", 2, 3, "row has 2 cells"),
        ("1.x\n...\n", 1, 3, "unknown cell 'x'"),
        ("1.9\n...\n", 1, 3, "impossible"),
        ("...\n.5.\n.1.\n", 2, 2, "island 5 is impossible"),
        ("...\n...\n", 1, 1, "no island"),
    ],
)
def test_reader_errors_have_positions(text: str, line: int, col: int, words: str) -> None:
    with pytest.raises(PuzzleError) as err:
        H.read(text)
    assert (err.value.line, err.value.col) == (line, col)
    assert words in err.value.message


def test_generated_file_prints_bridge_counts_and_hides_the_numbering() -> None:
    from csp2sat.checker import check
    from csp2sat.parser import parse_text

    text = H.generate(H.read(puzzle_text(DIR, SEED)))
    model = check(parse_text(text))
    for line in (
        "(int v_0_0 0 2)  ; 0,0 - 2,0",
        "(= (+ v_2_3 h_4_0 v_4_3 h_4_3) 8)",
        "(or (= h_2_0 0) (= v_1_1 0))",
        "(int _z_0_0 1 1)",
        "(int _z_4_3 2 17)",
        "(or (and (> v_2_3 0) (< _z_2_3 _z_4_3)) (and (> h_4_0 0) (< _z_4_0 _z_4_3))"
        " (and (> v_4_3 0) (< _z_6_3 _z_4_3)) (and (> h_4_3 0) (< _z_4_5 _z_4_3)))",
    ):
        assert line in text
    printed = [n for n in model.int_vars if not n.startswith("_")] + [n for n in model.bool_vars if not n.startswith("_")]
    assert sorted(printed) == sorted(b.var for b in H.read(puzzle_text(DIR, SEED)).bridges)
    assert len(printed) == 21


def test_sugars_own_log_draws_exactly_like_the_seed() -> None:
    p = H.read(puzzle_text(DIR, SEED))
    solution = H.decode(p, read_log(SEED_LOG))
    assert H.render(p, solution, "drawing") == SEED_DRAWING
    assert bridge_lines(H.render(p, solution, "answer")) == bridge_lines(expected_answer(DIR, SEED))


@pytest.mark.parametrize("name", [n for n in instances(DIR) if expected_answer(DIR, n)])
def test_answer_of_known_solution_round_trips(name: str) -> None:
    p = H.read(puzzle_text(DIR, name))
    answer = expected_answer(DIR, name)
    solution = H.decode(p, bridge_values(answer, p))
    rendered = H.render(p, solution, "answer")
    assert bridge_lines(rendered) == bridge_lines(answer)
    # The informative picture matches the source's where it gives one.
    lines = answer.splitlines()
    marks = [i for i, line in enumerate(lines) if line.startswith("# picture")]
    pictures = lines[marks[0] + 1:] if marks else []
    if pictures:
        assert [line.rstrip() for line in rendered.splitlines()[-len(pictures):]] == pictures


def test_svg_draws_islands_and_double_bridges() -> None:
    p = H.read("2.2\n")
    svg = H.render(p, H.decode(p, {"h_0_0": -2}), "svg")
    assert svg.count("<circle") == 2 and svg.count('stroke="green"') == 2 and svg.rstrip().endswith("</svg>")


def test_decoder_rejects_a_log_without_the_bridges() -> None:
    p = H.read("2.2\n")
    with pytest.raises(PuzzleError, match="h_0_0"):
        H.decode(p, read_log("s SATISFIABLE\na z_0_0\t1\na\n"))


@pytest.mark.parametrize("name", instances(DIR))
def test_every_instance_is_solved_with_the_recorded_answer_and_uniqueness(name: str) -> None:
    p = H.read(puzzle_text(DIR, name))
    run = solve_puzzle(H.GENRE, p, unique=True)
    assert run.solution is not None
    for pos, count in p.islands.items():
        if count is not None:
            assert sum(k for b, k in run.solution.items() if pos in (b.a, b.b)) == count
    expected = expected_answer(DIR, name)
    if expected is not None:
        assert bridge_lines(H.render(p, run.solution, "answer")) == bridge_lines(expected)
    assert run.unique == (statuses(DIR)[name] == "unique")


def test_bridges_between_neighbouring_islands_are_shown() -> None:
    # hashiwokakero.pl draws bridges in water cells only: side by side ones vanished from the drawing
    p = H.read("22\n..\n")
    solution = H.decode(p, {"h_0_0": 2})
    drawing = H.render(p, solution, "drawing")
    assert " 2==2 " in drawing
    answer = H.render(p, solution, "answer")
    assert "neighbouring islands (row col, 0-based): 0 0 - 0 1 (double)" in answer
    p = H.read("1.\n1.\n")
    drawing = H.render(p, H.decode(p, {"v_0_0": 1}), "drawing")
    assert "; bridges between neighbouring islands (row col, 0-based): 0 0 - 1 0\n; END" in drawing
