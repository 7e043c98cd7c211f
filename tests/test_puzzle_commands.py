"""The puzzle commands gen, draw and puzzle: output, error positions and exit statuses."""

from __future__ import annotations

import re

from pathlib import Path

import pytest

from csp2sat import cli
from csp2sat.diagnostics import Exit
from csp2sat.generators.base import PuzzleError, genre_names
from csp2sat.generators.base import genre as get_genre
from tests.genre_support import DATA
from tests.test_hashiwokakero import SEED_DRAWING, SEED_LOG

SEED = str(DATA / "hashi" / "sugar_hashiwokakero-0_7x7.txt")
MINE = ("csp2sat.commands.gen", "csp2sat.commands.draw", "csp2sat.commands.puzzle")


@pytest.fixture(autouse=True)
def only_puzzle_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    # The puzzle commands alone, so these tests do not depend on the other commands' modules.
    monkeypatch.setattr(cli, "COMMAND_MODULES", MINE)


def test_draw_sugars_log_from_a_file_and_from_stdin(tmp_path: Path, capsys, monkeypatch) -> None:
    log = tmp_path / "seed.log"
    log.write_text(SEED_LOG)
    assert cli.main(["draw", "hashi", SEED, str(log)]) == 0
    assert capsys.readouterr().out == SEED_DRAWING
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(SEED_LOG))
    assert cli.main(["draw", "hashiwokakero", SEED, "-", "--format", "answer"]) == 0
    assert "0 0 0 2 2\n" in capsys.readouterr().out


@pytest.mark.parametrize("log", ["s SATISFIABLE\na\n", "s SATISFIABLE\na\nc UNIQUE\n", "s SATISFIABLE\na\n\na\n"])
def test_draw_an_answer_without_variables(tmp_path: Path, capsys, log: str) -> None:
    """A board with nothing to decide (an Akari of one black cell) has an answer of no variables: a lone `a`.
    It is drawn, not skipped with nothing printed."""
    board, path = tmp_path / "a.txt", tmp_path / "a.log"
    board.write_text("#\n")
    path.write_text(log)
    assert cli.main(["draw", "akari", str(board), str(path), "--format", "answer"]) == 0
    assert capsys.readouterr().out.split() == ["#"]
    path.write_text("s UNSATISFIABLE\n")
    assert cli.main(["draw", "akari", str(board), str(path)]) == Exit.SYNTAX


def test_gen_writes_the_csp_file(tmp_path: Path) -> None:
    out = tmp_path / "seed.csp"
    assert cli.main(["gen", "hashi", SEED, "-o", str(out)]) == 0
    assert "(int h_0_0 0 2)" in out.read_text() and "(int _z_0_2 2 17)" in out.read_text()


def test_puzzle_solves_draws_and_checks_uniqueness(capsys) -> None:
    assert cli.main(["puzzle", "hashi", SEED, "--unique"]) == 0
    captured = capsys.readouterr()
    assert captured.out == SEED_DRAWING
    assert "the solution is unique" in captured.err


def test_puzzle_verbose_reports_every_stage_and_the_cnf(capsys) -> None:
    assert cli.main(["puzzle", "hashi", SEED, "--unique", "-v"]) == 0
    captured = capsys.readouterr()
    assert captured.out == SEED_DRAWING  # the drawing alone on stdout
    stages = [line.split()[1] for line in captured.err.splitlines() if line.startswith("c ") and " s   (" in line]
    assert stages == ["generate", "parse", "encode", "search", "verify", "unique", "draw"]
    assert re.search(r"^c size +[0-9,]+ CNF vars, [0-9,]+ CNF clauses", captured.err, re.M)
    assert cli.main(["puzzle", "hashi", SEED]) == 0
    assert "c size" not in capsys.readouterr().err  # quiet without -v


def test_puzzle_verbose_reports_the_stages_of_a_board_without_solution(capsys, tmp_path) -> None:
    box = tmp_path / "box.txt"  # 3x21 with 3 holes: no packing (found by the search, not by the reader)
    box.write_text("#.......#.#..........\n.....................\n.....................\n", encoding="utf-8")
    assert cli.main(["puzzle", "pentomino", str(box), "-v"]) == 1
    err = capsys.readouterr().err
    stages = [line.split()[1] for line in err.splitlines() if line.startswith("c ") and " s   (" in line]
    assert stages == ["generate", "parse", "encode", "search"] and "s UNSATISFIABLE" in err


def test_puzzle_verbose_says_how_the_second_solution_was_found(capsys) -> None:
    assert cli.main(["puzzle", "hashi", SEED, "--unique", "-v"]) == 0
    assert re.search(r"^c unique .*searched by SAT\)$", capsys.readouterr().err, re.M)
    box = str(DATA / "pentomino" / "box_6x10.txt")  # a rectangle: its mirror image is a second packing
    assert cli.main(["puzzle", "pentomino", box, "--unique", "-v"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^c unique .*image under a symmetry of the board, no search\)$", err, re.M)
    assert "the solution is NOT unique" in err


@pytest.mark.parametrize(
    "argv_tail, status, message",
    [
        (["gen", "hashi", "{bad}"], Exit.SYNTAX, "{bad}:2:2: error: unknown cell 'x'"),
        (["gen", "hashi", "{missing}"], Exit.IO, "{missing}: error: cannot read file"),
        (["gen", "nosuchgenre", "{bad}"], Exit.USAGE, "unknown genre 'nosuchgenre'"),
        (["draw", "hashi", SEED, "{bad}"], Exit.SYNTAX, "the log holds no answer"),
        (["draw", "hashi", SEED, "{unknown}"], Exit.SYNTAX, "the log says UNKNOWN: the run stopped before it found"),
    ],
)
def test_errors_are_positioned_with_distinct_statuses(tmp_path: Path, capsys, argv_tail, status, message) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("1.1\n.x.\n")
    unknown = tmp_path / "unknown.log"
    unknown.write_text("s UNKNOWN\n")
    names = {"bad": str(bad), "missing": str(tmp_path / "missing.txt"), "unknown": str(unknown)}
    assert cli.main([a.format(**names) for a in argv_tail]) == status
    assert message.format(**names) in capsys.readouterr().err


@pytest.mark.parametrize("genre, board, reason", [
    ("hashi", "4\n", "island 4 is impossible"),
    ("starbattle", "stars 2\na a\na a\n", "2 stars that never touch do not fit"),
    ("sudoku", "1 1 - -\n- - - -\n- - - -\n- - - -\n", "1 is given twice"),
    ("masyu", ".B.\n...\n...\n", "a black circle needs room"),
])
def test_a_board_its_reader_finds_unsolvable_is_answered_as_no_solution(capsys, tmp_path, genre, board, reason) -> None:
    """Well-formed, but a clue nothing can satisfy where it stands: `puzzle` says UNSATISFIABLE (status 1, as for a
    board the search proves unsolvable) and `gen` writes no CSP (status 1); neither calls it bad text (status 3).
    `url` and `batch`: tests/test_puzzlink.py and tests/test_batch.py."""
    path = tmp_path / "board.txt"
    path.write_text(board)
    assert cli.main(["puzzle", genre, str(path)]) == 1
    err = capsys.readouterr().err
    assert "s UNSATISFIABLE" in err and f"c {path}:" in err and "the puzzle has no solution: " + reason in err
    out = tmp_path / "board.csp"
    assert cli.main(["gen", genre, str(path), "-o", str(out)]) == 1
    assert not out.exists() and "the puzzle has no solution: " + reason in capsys.readouterr().err


def test_puzzle_facts_on_unique_boards_force_everything(capsys) -> None:
    # The Hashi seed board is unique although its bridge variables' directions are not forced.
    assert cli.main(["puzzle", "hashi", SEED, "--facts"]) == 0
    err = capsys.readouterr().err
    assert "the clues force 21 of 21 puzzle variables" in err and "NOT FORCED" not in err


def test_puzzle_facts_agree_with_all_solutions() -> None:
    """On a board with several solutions, a variable is forced exactly when every solution agrees on it."""
    from csp2sat import parse
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space
    from csp2sat.generators.base import genre
    from csp2sat.generators.run import solve_puzzle

    kind = genre("nurikabe")
    puzzle = kind.read((DATA / "nurikabe" / "cspuz_6x6_multi.txt").read_text())
    facts = solve_puzzle(kind, puzzle, facts=True).facts
    model = parse(kind.generate(puzzle))
    with open_space(compile_model(model), model, names=list(facts)) as space:
        answers = list(space.solutions())
    assert len(answers) > 1
    expected = {name: answers[0][name] if all(a[name] == answers[0][name] for a in answers) else None for name in facts}
    assert facts == expected
    assert any(value is None for value in facts.values()) and any(value is not None for value in facts.values())


@pytest.mark.parametrize("name", sorted(set(genre_names())))
def test_digits_of_other_scripts_are_read_errors_not_crashes(name: str) -> None:
    """Every number of a board replaced by '²' or '٣' (which `str.isdigit` takes): each genre's reader
    refuses it with a positioned `PuzzleError` or reads the board without that number, never an
    internal error (`int('²')` raised ValueError in Slitherlink, Hitori, ... readers)."""
    genre = get_genre(name)
    folder = DATA / genre.name
    board = sorted(p for p in folder.glob("*.txt") if ".solution." not in p.name and any(
        ch.isdigit() for line in p.read_text(encoding="utf-8").splitlines() if not line.startswith("#") for ch in line))
    if not board:
        pytest.skip(f"no board of {name} has a number")
    text = board[0].read_text(encoding="utf-8")
    for strange in ("\u00b2", "\u0663"):
        try:
            genre.read(re.sub(r"[0-9]", strange, text))
        except PuzzleError:
            pass


def test_puzzle_count_by_classes_on_two_workers(capsys) -> None:
    box = str(DATA / "pentomino" / "box_3x20.txt")
    assert cli.main(["puzzle", "pentomino", box, "--count", "-j", "2", "--format", "answer"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.split()) == 3  # the first packing is drawn as usual
    assert "box_3x20.txt: 8 solutions in 2 classes up to the board's symmetries" in captured.err


def test_a_board_without_symmetry_counts_no_classes(capsys, tmp_path) -> None:
    box = tmp_path / "box.txt"  # 7x10 with 10 holes that no turn or reflection maps onto themselves: 5 packings
    box.write_text('..#..#....\n....#..##.\n.........#\n..........\n.......#..\n..........\n..#....#.#\n', encoding="utf-8")
    assert cli.main(["puzzle", "pentomino", str(box), "--count", "--format", "answer"]) == 0
    err = capsys.readouterr().err
    assert "box.txt: 5 solutions\n" in err and "classes" not in err, err


def test_counts_are_spelt_in_the_singular_for_one(capsys):
    """A unique board's count reads "1 solution", not "1 solutions"."""
    board = DATA / "slitherlink" / "pzprjs_5x5.txt"
    assert cli.main(["puzzle", "slitherlink", str(board), "--count"]) == 0
    assert "pzprjs_5x5.txt: 1 solution\n" in capsys.readouterr().err


def test_facts_and_count_name_the_board_not_a_variable(capsys, tmp_path) -> None:
    board = tmp_path / "two.txt"
    board.write_text("1 1\n", encoding="utf-8")
    assert cli.main(["puzzle", "hitori", str(board), "--facts", "--count"]) == 0
    err = capsys.readouterr().err
    assert f"c {board}: 2 solutions" in err and "c NOT FORCED s_0_1" in err, err


def test_a_second_stars_line_is_named(capsys, tmp_path) -> None:
    board = tmp_path / "stars.txt"
    board.write_text("stars 1\nstars 2\n0 0\n0 0\n", encoding="utf-8")
    assert cli.main(["puzzle", "starbattle", str(board)]) == 3
    assert f"{board}:2:1: error: a second stars line (the first is line 1)" in capsys.readouterr().err
