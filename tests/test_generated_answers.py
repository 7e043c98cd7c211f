"""A generated file says the same thing as its puzzle (issue 9).

The printed variables of every generated file are exactly the puzzle's answer,
so `csp2sat solve --unique/--count/--all/--facts FILE.csp` (which count printed
assignments) agree with `csp2sat puzzle --unique/--facts` and with the status
recorded in data/*/sources.txt, for every board in data/. Before the helpers
were hidden, loop directions and numberings were printed, and unique
Slitherlink, Masyu, Hashiwokakero and Nurikabe boards came out MULTIPLE.

Every answer of `--all` is decoded and re-checked by the genre's rule checker,
and no two printed answers may decode to the same solution.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from csp2sat import cli
from csp2sat.generators.base import genre, is_printed, read_log
from csp2sat.generators.run import RecordingValues, solve_puzzle
from scripts.regen_csp import CSP, GENRE_DIRS, puzzle_files
from tests.genre_support import statuses

# Boards up to this many cells also get --count, --all and --facts (the rest --unique only, for CI time).
SMALL_CELLS = 36
# Larger boards whose complete enumeration is still quick.
ALSO_ENUMERATED = {("pentomino", "box_3x20")}  # 8 packings
# Runs of more than about 3 s of CPU: in the slow group (pytest -m slow).
SLOW = {("pentomino", "box_4x15"), ("pentomino", "box_5x12"), ("pentomino", "box_6x10"),
        ("pentomino", "box_8x8_centre2x2"), ("slitherlink", "puzzleloop_medium_5059634_30x25"),
        ("slitherlink", "puzzleloop_hard_3417429_30x25"), ("slitherlink", "puzzleloop_hard_5785762_30x25"),
        ("pentomino", "box_3x20"), ("slitherlink", "noqx_15x25"), ("heyawake", "penpa_3_12x12"),
        ("heyawake", "penpa_4_17x17"), ("lits", "noqx_24x24")}
SLOW_ENUMERATION = {("pentomino", "box_3x20"), ("masyu", "noqx_penpa1_6x6")}  # 8 and 266 solutions


def _params(boards: list[tuple[str, Path]], slow: set[tuple[str, str]]) -> list:
    return [pytest.param(b, id=_id(b), marks=[pytest.mark.slow] if (b[0], b[1].stem) in slow else [])
            for b in boards]


BOARDS = [(name, path) for name in GENRE_DIRS for path in puzzle_files(GENRE_DIRS[name])]


def _id(board: tuple[str, Path]) -> str:
    return f"{board[0]}-{board[1].stem}"


def _known_status(name: str, stem: str) -> str | None:
    """'unique' or 'multiple' as data/ records it, or None where it is not recorded."""
    if name == "pentomino":
        return "multiple"  # every box has many packings (data/pentomino/counts.txt)
    status = statuses(GENRE_DIRS[name]).get(stem, "").lower()
    return status if status in ("unique", "multiple") else None


def _solve(capsys: pytest.CaptureFixture, *argv: str) -> str:
    assert cli.main(["solve", *argv]) == 0
    return capsys.readouterr().out


def _answers(out: str) -> list[str]:
    """The answer blocks (``a`` lines up to a lone ``a``) of a solve output."""
    return re.findall(r"(?:^a \S+\t\S+\n)+^a\n", out, re.M)


@pytest.mark.parametrize("board", _params(BOARDS, SLOW))
def test_solve_unique_on_the_generated_file_agrees_with_puzzle_unique(board, capsys) -> None:
    name, path = board
    kind = genre(name)
    puzzle = kind.read(path.read_text(encoding="utf-8"))
    out = _solve(capsys, "--unique", str(CSP / GENRE_DIRS[name] / f"{path.stem}.csp"))
    file_says = ("unique" if "\nc UNIQUE\n" in out else "multiple" if "\nc MULTIPLE\n" in out
                 else "none" if out.startswith("s UNSATISFIABLE") else out)
    run = solve_puzzle(kind, puzzle, unique=True)
    puzzle_says = "none" if run.solution is None else "unique" if run.unique else "multiple"
    assert file_says == puzzle_says
    known = _known_status(name, path.stem)
    if known is not None:
        assert file_says == known


SMALL = [
    (name, path) for name, path in BOARDS
    if (name, path.stem) in ALSO_ENUMERATED
    or (lambda p: p.rows * p.cols)(genre(name).read(path.read_text(encoding="utf-8"))) <= SMALL_CELLS
]


@pytest.mark.parametrize("board", _params(SMALL, SLOW_ENUMERATION))
def test_count_all_and_facts_of_the_generated_file_are_the_puzzle_solutions(board, capsys) -> None:
    name, path = board
    kind = genre(name)
    puzzle = kind.read(path.read_text(encoding="utf-8"))
    csp = str(CSP / GENRE_DIRS[name] / f"{path.stem}.csp")
    blocks = _answers(_solve(capsys, "--all", csp))
    solutions = []
    for block in blocks:
        values = read_log("s SATISFIABLE\n" + block)
        assert all(is_printed(n) for n in values)
        solution = kind.decode(puzzle, values)
        assert kind.check(puzzle, solution) == [], "a printed answer breaks the puzzle's rules"
        solutions.append(kind.render(puzzle, solution, "answer"))
    assert len(set(solutions)) == len(solutions), "two printed answers are the same puzzle solution"
    count = re.search(r"^c SOLUTIONS (\d+)$", _solve(capsys, "--count", csp), re.M)
    assert count and int(count.group(1)) == len(blocks) >= 1
    if (known := _known_status(name, path.stem)) is not None:
        assert (len(blocks) == 1) == (known == "unique")
    # --facts: a value is forced exactly when every solution agrees on it, as `puzzle --facts` says.
    facts = dict(re.findall(r"^c FACT (\S+)\t(\S+)$", _solve(capsys, "--facts", csp), re.M))
    every = [read_log("s SATISFIABLE\n" + block) for block in blocks]
    for var, value in facts.items():
        agreed = {str(v[var]).lower() for v in every}
        assert value == (agreed.pop() if len(agreed) == 1 else "?")
    puzzle_facts = solve_puzzle(kind, puzzle, facts=True).facts
    assert set(puzzle_facts) == set(facts)
    assert {n for n, v in puzzle_facts.items() if v is None} == {n for n, v in facts.items() if v == "?"}


# One small board per genre for the naming convention.
FIRST = {name: next(path for n, path in BOARDS if n == name) for name in GENRE_DIRS}


@pytest.mark.parametrize("name", sorted(GENRE_DIRS))
def test_the_printed_variables_are_exactly_what_the_decoder_reads(name: str) -> None:
    """The hiding convention (generators.base): printed = the answer, everything else starts with '_'."""
    from csp2sat import parse

    kind = genre(name)
    puzzle = kind.read(FIRST[name].read_text(encoding="utf-8"))
    model = parse(kind.generate(puzzle))
    printed = {v.name for v in model.printed_int_vars()} | {v.name for v in model.printed_bool_vars()}
    run = solve_puzzle(kind, puzzle)
    recorder = RecordingValues(run.values)
    kind.decode(puzzle, recorder)
    assert set(recorder.used) == printed
