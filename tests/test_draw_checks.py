"""`draw` checks the log against the puzzle (issue 9): every genre's rule checker, and the command.

A log that breaks the puzzle's rules (a log of another board, an open path, a
wrong clue, `a h_0_0 7`) used to be drawn silently. Now `draw` exits 8 naming
the rule and the cell, and `--force` draws it anyway, marked NOT A SOLUTION.
The checkers are tested on hand-made wrong solutions, one per rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from csp2sat import cli
from csp2sat.diagnostics import Exit
from csp2sat.generators.base import Violation, genre, is_printed
from csp2sat.generators.run import solve_puzzle
from tests.genre_support import DATA

# A small unique board per genre, and the printed variable changed to make a wrong answer.
BOARDS = {
    "slitherlink": ("slitherlink/pzprjs_5x5.txt", "h_0_0", 0, "the clue 2 must be the number of its sides"),
    "masyu": ("masyu/pzprjs_6x6.txt", "h_0_0", 0, "the loop has a dead end here"),
    "hashiwokakero": ("hashi/pzprjs_5x5.txt", "h_0_0", 1, "the island 4 must have 4 bridges, and it has 3"),
    "nurikabe": ("nurikabe/pzprjs_5x5.txt", "g_0_0", 0, "the shaded cells are connected"),
    "fillmat": ("fillmat/pzprjs_5x5.txt", "a_0_0", 1, "the clue 3 is the size of its block"),
    "shikaku": ("shikaku/pzprjs_6x6.txt", "k_0_4", 1, "rectangles do not overlap"),
    "pentomino": ("pentomino/box_3x20.txt", "p_F", 2, "pieces do not overlap"),
}


def _log(values: dict) -> str:
    lines = [f"a {n}\t{str(v).lower() if isinstance(v, bool) else v}" for n, v in values.items()]
    return "s SATISFIABLE\n" + "\n".join(lines) + "\na\n"


def _printed_answer(name: str, path: str) -> dict:
    kind = genre(name)
    puzzle = kind.read((DATA / path).read_text())
    return {n: v for n, v in solve_puzzle(kind, puzzle).values.items() if is_printed(n)}


@pytest.mark.parametrize("name", BOARDS)
def test_draw_refuses_a_wrong_answer_naming_rule_and_cell_and_force_draws_it_marked(
        name: str, tmp_path: Path, capsys) -> None:
    path, var, wrong, rule = BOARDS[name]
    values = _printed_answer(name, path)
    good, bad = tmp_path / "good.log", tmp_path / "bad.log"
    good.write_text(_log(values))
    assert cli.main(["draw", name, str(DATA / path), str(good)]) == 0  # our own file's log draws
    drawing = capsys.readouterr().out
    assert values[var] != wrong
    bad.write_text(_log({**values, var: wrong}))
    assert cli.main(["draw", name, str(DATA / path), str(bad)]) == Exit.VERIFY
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{bad}: error: " in err and rule in err and "cell row " in err
    assert "--force draws it anyway" in err
    for fmt in ("drawing", "answer", "svg"):
        assert cli.main(["draw", name, str(DATA / path), str(bad), "--force", "--format", fmt]) == Exit.VERIFY
        forced = capsys.readouterr().out
        assert "NOT A SOLUTION" in forced
        if fmt == "drawing":
            assert forced.startswith("# NOT A SOLUTION") and forced.split("\n", 1)[1] != drawing


@pytest.mark.parametrize("name, var, value", [
    ("slitherlink", "h_0_0", 7), ("masyu", "v_0_0", -1), ("hashiwokakero", "h_0_0", 3),
    ("nurikabe", "g_0_0", 99), ("fillmat", "a_0_0", 5), ("shikaku", "k_0_4", 0), ("pentomino", "p_F", 10_000),
    ("slitherlink", "v_0_0", True), ("hashiwokakero", "v_0_0", False),
])
def test_draw_refuses_values_outside_the_puzzles_domain(name: str, var: str, value: int, tmp_path: Path, capsys) -> None:
    path = BOARDS[name][0]
    log = tmp_path / "odd.log"
    log.write_text(_log({**_printed_answer(name, path), var: value}))
    assert cli.main(["draw", name, str(DATA / path), str(log), "--force"]) == Exit.VERIFY
    out, err = capsys.readouterr()
    shown = str(value).lower() if isinstance(value, bool) else value
    assert out == "" and f"{log}: error: the log does not fit this puzzle: {var} = {shown}" in err


def test_a_log_of_another_board_is_not_drawn(tmp_path: Path, capsys) -> None:
    # Two 5x5 Slitherlink boards: the log of one breaks the other's clues.
    log = tmp_path / "other.log"
    log.write_text(_log(_printed_answer("slitherlink", "slitherlink/pzprjs_5x5.txt")))
    assert cli.main(["draw", "slitherlink", str(DATA / "slitherlink/penpa_3_5x5.txt"), str(log)]) == Exit.VERIFY
    assert "must be the number of its sides on the loop" in capsys.readouterr().err


def test_the_seeds_signed_bridge_log_and_sugars_log_still_draw(tmp_path: Path, capsys) -> None:
    from tests.test_hashiwokakero import SEED_DRAWING, SEED_LOG

    log = tmp_path / "seed.log"
    log.write_text(SEED_LOG)  # real Sugar's log of the seed's encoding: h_/v_ in -2..2, z_/r_ printed
    assert cli.main(["draw", "hashi", str(DATA / "hashi/sugar_hashiwokakero-0_7x7.txt"), str(log)]) == 0
    assert capsys.readouterr().out == SEED_DRAWING


# ---------------------------------------------------------------- the checkers, rule by rule


def _rules(found: list[Violation]) -> str:
    return "\n".join(map(str, found))


def test_slitherlink_checker_open_path_branch_and_two_loops() -> None:
    from csp2sat.generators import slitherlink as S

    p = S.read("...\n...\n")
    square = lambda c: ({(0, c), (1, c)}, {(0, c), (0, c + 1)})  # noqa: E731  the loop round cell 0,c
    h0, v0 = square(0)
    assert S.check(p, S.Loop(frozenset(h0), frozenset(v0))) == []
    h2, v2 = square(2)
    assert "there is only one loop" in _rules(S.check(p, S.Loop(frozenset(h0 | h2), frozenset(v0 | v2))))
    assert "dead end here" in _rules(S.check(p, S.Loop(frozenset(h0), frozenset({(0, 0)}))))
    branch = S.check(p, S.Loop(frozenset(h0 | {(0, 1)}), frozenset(v0 | {(0, 2)})))
    assert "lattice point row 0, column 1: the loop branches or crosses here (3 loop edges meet)" in _rules(branch)
    assert "there must be a loop" in _rules(S.check(p, S.Loop(frozenset(), frozenset())))


def test_masyu_checker_white_black_and_missed_circles() -> None:
    from csp2sat.generators import masyu as M

    # A 3x3 ring round the centre: corners turn, edge middles go straight.
    ring_h = frozenset({(0, 0), (0, 1), (2, 0), (2, 1)})
    ring_v = frozenset({(0, 0), (1, 0), (0, 2), (1, 2)})
    ring = M.Loop(ring_h, ring_v)
    white_corner = M.read("W..\n...\n...\n")
    assert "goes straight through a white circle, and turns here" in _rules(M.check(white_corner, ring))
    white_middle = M.read(".W.\n...\n...\n")  # straight, and turns at both corners next to it
    assert M.check(white_middle, ring) == []
    missed = M.read("...\n.W.\n...\n")
    assert "cell row 1, column 1: the loop passes through every circle" in _rules(M.check(missed, ring))
    black = M.read("....\n....\n..B.\n....\n")
    # A ring of 2x2 cells round (1,1)..(2,2): black at 2,2 is a corner, but the next cells turn at once.
    small = M.Loop(frozenset({(1, 1), (2, 1)}), frozenset({(1, 1), (1, 2)}))
    assert "turns in cell row 1, column 2" in _rules(M.check(black, small))
    straight = M.read("B..\n...\n...\n")
    assert "the loop turns on a black circle" not in _rules(M.check(straight, ring))
    black_middle = M.read(".B..\n....\n....\n....\n")
    assert "the loop turns on a black circle, and goes straight here" in _rules(M.check(black_middle, ring))


def test_hashi_checker_crossing_and_connectivity() -> None:
    from csp2sat.generators import hashiwokakero as H

    p = H.read(".1.\n1.1\n.1.\n")  # a plus: the two bridges cross at the centre
    found = _rules(H.check(p, {b: 1 for b in p.bridges}))
    assert "bridges do not cross" in found and "cell row 1, column 1" in found
    assert "all islands are connected, and 2 cannot be reached" in found
    p2 = H.read("1.1\n...\n1.1\n")
    by_ends = {(b.a, b.b): b for b in p2.bridges}
    two_pairs = {by_ends[((0, 0), (0, 2))]: 1, by_ends[((2, 0), (2, 2))]: 1}
    assert "all islands are connected" in _rules(H.check(p2, two_pairs))


def test_nurikabe_checker_every_rule() -> None:
    from csp2sat.generators import nurikabe as N

    p = N.read("2 - -\n- - -\n- - 1\n")
    assert _rules(N.check(p, ["..#", "###", "##."])) == (
        "cell row 1, column 0: no 2x2 square of shaded cells (this is its top-left cell)")
    found = _rules(N.check(p, ["...", "###", "##."]))
    assert "the clue 2 is the size of its island, and the island has 3 cells" in found
    found = _rules(N.check(p, ["..#", "#.#", "##."]))
    assert "the clue 2 is the size of its island" in found
    assert "an island holds one clue, and this one holds 2" in _rules(N.check(p, ["..#", "#.#", "#.."]))
    assert "a clue cell is never shaded" in _rules(N.check(p, ["#.#", "#.#", "##."]))
    assert "the shaded cells are connected" in _rules(N.check(p, ["..#", "#..", "..."]))
    assert "holds none" in _rules(N.check(p, ["..#", "###", ".#."]))


def test_fillmat_checker_every_rule() -> None:
    from csp2sat.generators import fillmat as F

    p = F.read("..\n..\n")
    assert "four block borders never meet at a point" in _rules(F.check(p, [[1, 2], [2, 1]]))
    assert "here 1 cell(s) of size 3 form one block" in _rules(F.check(p, [[2, 2], [1, 3]]))
    assert "here 2 cell(s) of size 1 form one block" in _rules(F.check(p, [[1, 1], [2, 2]]))
    assert "here 3 cell(s) of size 2 form one block (not in a line)" in _rules(F.check(p, [[2, 2], [2, 1]]))
    assert F.check(p, [[2, 2], [1, 1]]) != [] and F.check(p, [[2, 1], [2, 1]]) != []
    assert F.check(F.read("2.\n.."), [[2, 2], [1, 3]]) != []
    clued = F.read("2.\n2.\n")
    found = _rules(F.check(clued, [[2, 1], [2, 1]]))
    assert "a block holds at most one clue, and this one holds 2" in found
    assert "the clue 2 is the size of its block, and the block has size 1" in _rules(F.check(clued, [[1, 2], [2, 1]]))
    assert F.check(F.read("1.\n..\n"), [[1, 2], [1, 2]]) != []  # two 1-blocks side by side
    assert F.check(F.read("...\n...\n"), [[1, 2, 2], [3, 3, 3]]) == []


def test_shikaku_checker_every_rule() -> None:
    from csp2sat.generators import shikaku as K

    p = K.read("2 - -\n- - 4\n")  # 2x3 board, clues at 0,0 and 1,2
    assert "every cell is in a rectangle, and this one is in none" in _rules(K.check(p, [[1, 1, 2], [0, 0, 2]]))
    assert "two cover this cell" in _rules(K.check(p, [[1, -1, 2], [0, 0, 2]]))
    assert "regions are rectangles, and this one is not" in _rules(K.check(p, [[1, 2, 2], [1, 1, 2]]))
    assert "holds exactly one clue, and this one holds 2" in _rules(K.check(p, [[1, 1, 1], [1, 1, 1]]))
    assert "cell row 0, column 0: the clue 2 is the area of its rectangle, and the rectangle has 4 cells" in _rules(
        K.check(p, [[1, 1, 2], [1, 1, 2]]))
    assert K.check(p, [[1, 1, 2], [3, 3, 2]]) != []  # a rectangle without a clue
    assert K.check(p, [[1, 2, 2], [1, 3, 3]]) != [] and K.check(p, [[1, 2, 2], [3, 3, 3]]) != []
    assert K.check(p, [[1, 2, 2], [1, 2, 2]]) == []


def test_pentomino_checker_shapes_and_cover() -> None:
    from csp2sat.generators import pentomino as P

    box = P.read("\n".join(["." * 20] * 3))
    answer = (DATA / "pentomino" / "box_6x10.solution.txt").read_text().split()
    assert P.check(P.read("\n".join(["." * 10] * 6)), answer) == []
    rows = [list(r) for r in answer]
    rows[0][0], rows[5][9] = rows[5][9], rows[0][0]  # swap two cells of different pieces
    found = _rules(P.check(P.read("\n".join(["." * 10] * 6)), ["".join(r) for r in rows]))
    assert "each pentomino keeps its shape" in found
    assert "every cell of the box is covered" in _rules(P.check(box, ["." * 20] * 3))
    centre = P.read((DATA / "pentomino" / "box_8x8_centre2x2.txt").read_text())
    packed = (DATA / "pentomino" / "box_8x8_centre2x2.solution.txt").read_text().split()
    assert P.check(centre, packed) == []
    packed[3] = packed[3][:3] + packed[3][2] + packed[3][4:]  # a piece reaches into the blocked centre
    found = _rules(P.check(centre, packed))
    assert "cell row 3, column 3: blocked cells stay empty, and this one is covered" in found


# ---------------------------------------------------------------- logs with several answers


def test_a_log_with_several_answers_draws_each_or_the_chosen_one(tmp_path: Path, capsys) -> None:
    # Before: only the last answer of a --unique (MULTIPLE) or --all log was drawn, silently.
    board = str(DATA / "nurikabe/cspuz_6x6_multi.txt")
    csp = tmp_path / "multi.csp"
    assert cli.main(["gen", "nurikabe", board, "-o", str(csp)]) == 0
    log = tmp_path / "all.log"
    assert cli.main(["solve", "--all", str(csp)]) == 0
    log.write_text(capsys.readouterr().out)
    assert cli.main(["draw", "nurikabe", board, str(log), "-f", "answer"]) == 0
    out = capsys.readouterr().out
    assert out.count("# answer ") == 3 and "# answer 3 of 3\n" in out
    assert cli.main(["draw", "nurikabe", board, str(log), "-f", "answer", "--answer", "2"]) == 0
    second = capsys.readouterr().out
    assert "#" in second and "answer" not in second and second in out
    assert cli.main(["draw", "nurikabe", board, str(log), "-f", "svg"]) == Exit.USAGE
    assert "choose it with --answer K" in capsys.readouterr().err
    assert cli.main(["draw", "nurikabe", board, str(log), "--answer", "4"]) == Exit.USAGE
    assert "the log holds 3 answer(s)" in capsys.readouterr().err


def test_an_optimisation_log_draws_its_last_answer(tmp_path: Path, capsys) -> None:
    board = str(DATA / "slitherlink/cspuz_4x4.txt")
    right = _printed_answer("slitherlink", "slitherlink/cspuz_4x4.txt")
    wrong = {**right, "h_0_0": 1 - right["h_0_0"]}
    log = tmp_path / "opt.log"
    log.write_text(_log(wrong).replace("s SATISFIABLE\n", "s SATISFIABLE\no 2\n")
                   + _log(right).replace("s SATISFIABLE\n", "o 1\n") + "s OPTIMUM FOUND\n")
    assert cli.main(["draw", "slitherlink", board, str(log)]) == 0
    assert "# answer" not in capsys.readouterr().out


def test_puzzle_and_log_cannot_both_be_stdin(capsys) -> None:
    assert cli.main(["draw", "masyu", "-", "-"]) == Exit.USAGE
    assert "standard input (-) can be read only once" in capsys.readouterr().err


def test_puzzle_text_from_stdin_is_named_stdin_in_messages(monkeypatch, capsys) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("1..\n.x.\n..1\n"))
    assert cli.main(["puzzle", "hashi", "-"]) == Exit.SYNTAX
    assert capsys.readouterr().err.startswith("<stdin>:2:2: error: unknown cell 'x'")
    monkeypatch.setattr("sys.stdin", io.StringIO("1..\n...\n..1\n"))  # well-formed, no solution
    assert cli.main(["puzzle", "hashi", "-"]) == 1
    assert "c <stdin>:1:1: the puzzle has no solution: island 1 is impossible" in capsys.readouterr().err


# ---------------------------------------------------------------- the checkers accept the published solutions


def _published(genre_dir: str) -> list[str]:
    return sorted(p.name[: -len(".solution.txt")] for p in (DATA / genre_dir).glob("*.solution.txt"))


def _solution_object(name: str, puzzle, answer: str):
    """A data/ NAME.solution.txt read into the genre's solution object, without any solver."""
    from tests.loop_genre_support import bridge_values
    from tests.test_masyu import values_of as masyu_values
    from tests.test_slitherlink import values_of as slitherlink_values

    kind = genre(name)
    lines = [line for line in answer.splitlines() if line.strip()]
    if name == "slitherlink":
        return kind.decode(puzzle, slitherlink_values(puzzle, answer))
    if name == "masyu":
        return kind.decode(puzzle, masyu_values(puzzle, answer))
    if name == "hashiwokakero":
        return kind.decode(puzzle, bridge_values(answer, puzzle))
    if name == "shikaku":
        return [[int(x) for x in line.split()] for line in lines]
    if name == "fillmat":
        return [[int(ch) for ch in line.strip()] for line in lines]
    if name == "sudoku":
        return [[int(x) for x in line.split()] for line in lines]
    if name == "kakuro":
        return [[int(t) if t.isdigit() else None for t in line.split()] for line in lines]
    if name in ("numberlink", "yajilin"):
        rows = answer.splitlines()
        at = lambda y, x: rows[y][x] if y < len(rows) and x < len(rows[y]) else " "  # noqa: E731
        # every cell is as wide as the widest number (boardkit.segment_picture): cell (r, c) starts at
        # character c * (w + 1) of line 2r, its '|' below is centred in those w characters
        w = max([1] + [len(str(n)) for n in getattr(puzzle, "numbers", {}).values()])
        return ({((r, c), (r, c + 1)) for r in range(puzzle.rows) for c in range(puzzle.cols - 1)
                 if at(2 * r, c * (w + 1) + w) == "-"}
                | {((r, c), (r + 1, c)) for r in range(puzzle.rows - 1) for c in range(puzzle.cols)
                   if at(2 * r + 1, c * (w + 1) + (w - 1) // 2) == "|"})
    return [line.strip() for line in lines]  # nurikabe, pentomino, akari, ...: one character per cell


PUBLISHED = [(name, board) for name, d in
             (("slitherlink", "slitherlink"), ("masyu", "masyu"), ("hashiwokakero", "hashi"), ("shikaku", "shikaku"),
              ("fillmat", "fillmat"), ("nurikabe", "nurikabe"), ("pentomino", "pentomino"), ("sudoku", "sudoku"),
              ("akari", "akari"), ("hitori", "hitori"), ("starbattle", "starbattle"), ("norinori", "norinori"),
              ("heyawake", "heyawake"), ("lits", "lits"), ("numberlink", "numberlink"), ("kakuro", "kakuro"),
              ("yajilin", "yajilin"))
             for board in _published(d)]


@pytest.mark.parametrize("name, board", PUBLISHED, ids=[f"{n}-{b}" for n, b in PUBLISHED])
def test_every_published_solution_passes_its_genres_checker(name: str, board: str) -> None:
    d = "hashi" if name == "hashiwokakero" else name
    kind = genre(name)
    puzzle = kind.read((DATA / d / f"{board}.txt").read_text())
    answer = (DATA / d / f"{board}.solution.txt").read_text()
    assert kind.check(puzzle, _solution_object(name, puzzle, answer)) == []
