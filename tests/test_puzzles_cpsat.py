"""The CP-SAT models of benchmarks/puzzles_cpsat.py: every genre has one, and its answers are checked.

OR-tools is not a dependency of csp2sat, so these tests are skipped where it is
not installed. On the smallest board of every genre, CP-SAT's answer passes the
genre's rule checker and the uniqueness verdict is csp2sat's; a model that leaves
out a rule is caught by the checker; the fresh-process side (``--one``) reports
the same answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ortools")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import puzzles_cpsat  # noqa: E402

from csp2sat.generators.base import genre, genre_names  # noqa: E402
from csp2sat.generators.run import solve_puzzle  # noqa: E402
from scripts.regen_csp import GENRE_DIRS, puzzle_files  # noqa: E402


def _smallest(name: str) -> Path:
    """The genre's board with the shortest text (a quick one)."""
    return min(puzzle_files(GENRE_DIRS[name]), key=lambda path: (len(path.read_text(encoding="utf-8")), path.name))


def test_every_genre_has_a_model() -> None:
    assert sorted(puzzles_cpsat.MODELS) == sorted(genre_names())


# Every pentomino box has thousands of packings and a second one takes a few seconds on both sides.
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "pentomino" else name
                                  for name in genre_names()])
def test_cpsat_answer_passes_the_rule_checker_and_agrees_on_uniqueness(name: str) -> None:
    g = genre(name)
    path = _smallest(g.name)
    puzzle = g.read(path.read_text(encoding="utf-8"))
    theirs = puzzles_cpsat.run_cpsat(g, puzzle, unique=True)
    mine = solve_puzzle(g, puzzle, unique=True)
    assert theirs["broken"] == []
    if mine.solution is None:
        assert theirs["answer"] is None and theirs["verdict"] == "none"
        return
    assert theirs["answer"] is not None
    assert theirs["verdict"] == ("unique" if mine.unique else "MULTIPLE")
    if mine.unique:
        assert theirs["answer"] == g.render(puzzle, mine.solution, "answer").split("\n")[:-1]


def test_a_model_missing_a_rule_is_caught_by_the_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sudoku without its houses: CP-SAT returns a grid that breaks them, and the checker says so."""
    def givens_only(model, p):  # type: ignore[no-untyped-def]
        x = puzzles_cpsat._grid(model, p.size, p.size, 1, p.size)
        for cell, v in p.givens.items():
            model.Add(x[cell] == v)
        for cell in x:
            if cell not in p.givens:
                model.Add(x[cell] == 1)
        return puzzles_cpsat._named("x", x)

    monkeypatch.setitem(puzzles_cpsat.MODELS, "sudoku", givens_only)
    g = genre("sudoku")
    path = next(p for p in puzzle_files(GENRE_DIRS["sudoku"]) if "9x9" in p.name and "full" not in p.name)
    theirs = puzzles_cpsat.run_cpsat(g, g.read(path.read_text(encoding="utf-8")))
    assert theirs["broken"], "the rule checker let a grid of 1s through"


def test_the_fresh_process_side_reports_the_same_answer() -> None:
    g = genre("shikaku")
    path = _smallest("shikaku")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "puzzles_cpsat.py"), "--one", g.name, str(path),
                           "--unique"], capture_output=True, text=True, check=True)
    fresh = json.loads(proc.stdout)
    here = puzzles_cpsat.run_cpsat(g, g.read(path.read_text(encoding="utf-8")), unique=True)
    assert fresh["answer"] == here["answer"] and fresh["verdict"] == here["verdict"] == "unique"
    assert fresh["broken"] == []


def test_the_numberlink_model_keeps_the_arukone_rules() -> None:
    """every-cell and no-2x2 (janko's Arukone boards): unique under both, so CP-SAT must find the same lines."""
    g = genre("numberlink")
    puzzle = g.read((ROOT / "data" / "numberlink" / "janko_arukone_14x14.txt").read_text(encoding="utf-8"))
    theirs = puzzles_cpsat.run_cpsat(g, puzzle, unique=True)
    mine = solve_puzzle(g, puzzle)
    assert theirs["broken"] == [] and theirs["verdict"] == "unique"
    assert theirs["answer"] == g.render(puzzle, mine.solution, "answer").split("\n")[:-1]
