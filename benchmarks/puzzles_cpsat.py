"""Side-by-side benchmark: csp2sat against OR-tools CP-SAT (one worker) on the same puzzle boards.

For each board of the genres named (default: those with a CP-SAT model here)
prints the end-to-end time of csp2sat (generate, compile, solve, decode, in
this process) and of a straightforward CP-SAT model of the same rules (build
and solve with ``num_workers=1``), with both answers compared. The models read
the boards through the genres' own readers and state the rules directly with
CP-SAT's constraints (AddAllDifferent, sums, implications); Hitori's and
Heyawake's connectivity use the same rooted numbering as the Sugar files, as
CP-SAT has no connectivity constraint.

OR-tools is not a dependency of csp2sat: ``.venv/bin/pip install ortools`` first.

usage: .venv/bin/python benchmarks/puzzles_cpsat.py [GENRE...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.generators import akari, heyawake, hitori, norinori, starbattle, sudoku  # noqa: E402
from csp2sat.generators.base import genre  # noqa: E402
from csp2sat.generators.boardkit import neighbours, region_cells, runs  # noqa: E402
from csp2sat.generators.run import solve_puzzle  # noqa: E402
from scripts.regen_csp import GENRE_DIRS, puzzle_files  # noqa: E402


def _grid(model: Any, rows: int, cols: int, lo: int = 0, hi: int = 1) -> dict:
    return {(r, c): model.NewIntVar(lo, hi, f"x{r}_{c}") for r in range(rows) for c in range(cols)}


def _connected(model: Any, x: dict, inside: Callable[[Any], Any], rows: int, cols: int) -> None:
    """Cells with inside(var) true are connected: rooted numbering, as in boardkit.connected_rule."""
    n = rows * cols
    z = {cell: model.NewIntVar(1, n, "") for cell in x}
    root = {cell: model.NewBoolVar("") for cell in x}
    member = {cell: model.NewBoolVar("") for cell in x}
    for cell, var in x.items():
        model.Add(inside(var) == 1).OnlyEnforceIf(member[cell])
        model.Add(inside(var) == 0).OnlyEnforceIf(member[cell].Not())
        model.AddImplication(root[cell], member[cell])
        model.Add(z[cell] == 1).OnlyEnforceIf(root[cell])
        lower = []
        for other in neighbours(*cell, rows, cols):
            b = model.NewBoolVar("")
            model.AddImplication(b, member[other])
            model.Add(z[other] < z[cell]).OnlyEnforceIf(b)
            lower.append(b)
        model.AddBoolOr(lower + [root[cell], member[cell].Not()])
    model.Add(sum(root.values()) <= 1)


def model_sudoku(model: Any, p: sudoku.Sudoku) -> tuple[dict, Callable]:
    x = _grid(model, p.size, p.size, 1, p.size)
    for cell, v in p.givens.items():
        model.Add(x[cell] == v)
    for _, cells in p.houses():
        model.AddAllDifferent([x[c] for c in cells])
    return x, lambda v: [[v[(r, c)] for c in range(p.size)] for r in range(p.size)]


def model_akari(model: Any, p: akari.Akari) -> tuple[dict, Callable]:
    x = {cell: model.NewBoolVar("") for cell in ((r, c) for r in range(p.rows) for c in range(p.cols)) if p.white(*cell)}
    for (r, c), v in p.black.items():
        if v is not None:
            model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols) if n in x) == v)
    seen: dict = {}
    for run in runs(p.white, p.rows, p.cols):
        model.Add(sum(x[c] for c in run) <= 1)
        for cell in run:
            seen.setdefault(cell, set()).update(run)
    for cell, cells in seen.items():
        model.AddBoolOr([x[c] for c in cells])
    return x, lambda v: ["".join("*" if v.get((r, c)) else ch for c, ch in enumerate(line))
                         for r, line in enumerate(p.text_lines())]


def _shade_answer(p: Any) -> Callable:
    return lambda v: ["".join("#" if v[(r, c)] else "." for c in range(p.cols)) for r in range(p.rows)]


def model_hitori(model: Any, p: hitori.Hitori) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for a, b in p.repeats():
        model.Add(x[a] + x[b] >= 1)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return x, _shade_answer(p)


def model_starbattle(model: Any, p: starbattle.StarBattle) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for _, cells in p.lines():
        model.Add(sum(x[c] for c in cells) == p.stars)
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.Add(x[(r, c)] + x[(r, c + 1)] + x[(r + 1, c)] + x[(r + 1, c + 1)] <= 1)
    return x, lambda v: ["".join("*" if v[(r, c)] else "." for c in range(p.cols)) for r in range(p.rows)]


def model_norinori(model: Any, p: norinori.Norinori) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for cells in region_cells(p.regions):
        model.Add(sum(x[c] for c in cells) == 2)
    for (r, c), var in x.items():
        model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols)) == 1).OnlyEnforceIf(var)
    return x, _shade_answer(p)


def model_heyawake(model: Any, p: heyawake.Heyawake) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    rooms = region_cells(p.rooms)
    for k, v in p.numbers.items():
        if v is not None:
            model.Add(sum(x[c] for c in rooms[k]) == v)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    for run in p.crossings():
        model.Add(sum(x[c] for c in run) >= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return x, _shade_answer(p)


MODELS = {"sudoku": model_sudoku, "akari": model_akari, "hitori": model_hitori, "starbattle": model_starbattle,
          "norinori": model_norinori, "heyawake": model_heyawake}


def run_cpsat(name: str, puzzle: Any) -> tuple[float, list | None]:
    """Build and solve the CP-SAT model of a board with one worker: seconds and the answer rows."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    model = cp_model.CpModel()
    x, answer = MODELS[name](model, puzzle)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    status = solver.Solve(model)
    elapsed = time.perf_counter() - t0
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return elapsed, None
    return elapsed, answer({cell: solver.Value(var) for cell, var in x.items()})


def main() -> int:
    """Time both solvers on every board of the chosen genres and print one line per board."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help=f"genres to run (default: {', '.join(MODELS)})")
    args = parser.parse_args()
    print(f"{'board':40s} {'csp2sat':>8s} {'cp-sat':>8s}  answers")
    for name in args.genres or list(MODELS):
        g = genre(name)
        for path in puzzle_files(GENRE_DIRS[g.name]):
            puzzle = g.read(path.read_text(encoding="utf-8"))
            t0 = time.perf_counter()
            run = solve_puzzle(g, puzzle)
            ours = time.perf_counter() - t0
            theirs, answer = run_cpsat(name, puzzle)
            mine = None if run.solution is None else g.render(puzzle, run.solution, "answer").split("\n")[:-1]
            if name == "sudoku" and answer is not None:
                answer = [" ".join(map(str, row)) for row in answer]
            same = "both none" if mine is None and answer is None else "same" if mine == answer else "differ"
            print(f"{g.name + '/' + path.stem:40s} {ours:8.3f} {theirs:8.3f}  {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
