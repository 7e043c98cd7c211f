"""Test helpers for the puzzle genres: the project's data/ instances, their recorded status, and
an end-to-end solve (generate -> parse -> compile -> SAT) with a uniqueness check on the
variables that determine the answer. Reads only the project's own data/ directory."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Callable

DATA = Path(__file__).resolve().parent.parent / "data"
_NOT_PUZZLES = {"sources.txt", "pieces.txt", "counts.txt"}


def instances(genre_dir: str, pattern: str = "*.txt") -> list[str]:
    """Names (without .txt) of the puzzle files of one data/ directory."""
    return sorted(
        p.stem
        for p in (DATA / genre_dir).glob(pattern)
        if p.name not in _NOT_PUZZLES and not p.name.endswith(".solution.txt")
    )


def statuses(genre_dir: str) -> dict[str, str]:
    """name -> the first word of its ``status:`` line in sources.txt (unique, MULTIPLE, ...)."""
    text = (DATA / genre_dir / "sources.txt").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\S+)\.txt\n  size:.*\n  status: (\S+)", text, re.M)}


def puzzle_text(genre_dir: str, name: str) -> str:
    """The text of data/GENRE/NAME.txt."""
    return (DATA / genre_dir / f"{name}.txt").read_text(encoding="utf-8")


def expected_answer(genre_dir: str, name: str) -> str | None:
    """NAME.solution.txt with trailing spaces removed per line, or None when there is none."""
    path = DATA / genre_dir / f"{name}.solution.txt"
    return strip_lines(path.read_text(encoding="utf-8")) if path.exists() else None


def strip_lines(text: str) -> str:
    """Text with trailing spaces removed from every line (solution files may carry them)."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


def solve_once(csp_text: str) -> dict | None:
    """The values of one answer of a CSP text (compiled and solved here), or None when unsatisfiable."""
    import csp2sat
    from csp2sat.compiler import compile_model
    from pysat.solvers import Solver

    compiled = compile_model(csp2sat.parse(csp_text))
    with Solver(name="cadical195") as solver:
        compiled.load(solver)
        return compiled.decode(solver.get_model()) if solver.solve() else None


def solve_twice(genre: ModuleType, puzzle: object) -> tuple[dict, bool]:
    """Solve the generated CSP; return the values and whether a second, different answer exists.

    "Different" is judged on `genre.puzzle_variables(puzzle)` only (auxiliary numberings may
    vary freely), by adding the compiler's blocking clause for the first answer.
    """
    import csp2sat
    from csp2sat.compiler import compile_model
    from pysat.solvers import Solver

    model = csp2sat.parse(genre.generate(puzzle))
    compiled = compile_model(model)
    with Solver(name="cadical195") as solver:
        compiled.load(solver)
        assert solver.solve(), "the generated CSP is unsatisfiable"
        values = compiled.decode(solver.get_model())
        names = genre.puzzle_variables(puzzle)
        solver.add_clause(compiled.block_clause({n: values[n] for n in names}))
        return values, solver.solve()


def check_board_end_to_end(genre: ModuleType, genre_dir: str, name: str) -> None:
    """Solve data/GENRE/NAME end to end: the rule checker accepts the answer, it equals the source's
    solution where there is one, and a second solution exists exactly when sources.txt says MULTIPLE
    (none at all when it says UNSOLVABLE)."""
    puzzle = genre.read(puzzle_text(genre_dir, name))
    if statuses(genre_dir)[name] == "UNSOLVABLE":
        assert solve_once(genre.generate(puzzle)) is None
        return
    values, another = solve_twice(genre, puzzle)
    solution = genre.decode(puzzle, values)
    assert genre.check(puzzle, solution) == []
    expected = expected_answer(genre_dir, name)
    if expected is not None and not another:
        assert strip_lines(genre.render(puzzle, solution, "answer")) == expected
    assert another == (statuses(genre_dir)[name] == "MULTIPLE")


def assert_read_error(read: "Callable[[str], object]", text: str, message: str, line: int, col: int) -> None:
    """`read(text)` raises a `PuzzleError` whose message contains `message`, at `line`:`col`."""
    import pytest

    from csp2sat.generators.base import PuzzleError

    with pytest.raises(PuzzleError) as err:
        read(text)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (line, col)
