"""Reference for `solve --count`: OR-tools CP-SAT enumerating the packings of a pentomino box (one worker).

The model is CP-SAT's natural form of the same exact cover as the generated
`.csp` (generators/pentomino.py): one Boolean per placement of a piece,
``AddExactlyOne`` per piece and per cell. ``enumerate_all_solutions`` with
``num_search_workers=1`` counts every packing (a solution callback counts
them); with ``--timeout`` the rate so far (packings per CPU second) is
reported, so that a full count can be estimated when it takes too long.

usage: .venv/bin/python benchmarks/count_cpsat.py data/pentomino/box_5x12.txt [--timeout S] [--fix p_X 12]
Prints one JSON line: box, status, packings, wall_s, cpu_s, cpu_s_per_packing.
Needs `pip install ortools` (not a csp2sat dependency).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from csp2sat.generators import pentomino


def count(box_file: Path, timeout: float | None, fix: tuple[str, int] | None = None) -> dict:
    """Enumerate the packings of the box in `box_file` with CP-SAT on one worker."""
    from ortools.sat.python import cp_model

    box = pentomino.read(box_file.read_text())
    model = cp_model.CpModel()
    covering: dict[tuple[int, int], list] = {cell: [] for cell in box.cells}
    for chooser in box.choosers:
        chosen = [model.NewBoolVar(f"{chooser.var}_{k}") for k in range(len(chooser.options))]
        model.AddExactlyOne(chosen)
        if fix is not None and fix[0] == chooser.var:
            model.Add(chosen[fix[1] - 1] == 1)  # placement numbers start at 1, as in the .csp
        for var, cells in zip(chosen, chooser.options):
            for cell in cells:
                covering[cell].append(var)
    for cell_vars in covering.values():
        model.AddExactlyOne(cell_vars)

    class Counter(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found = 0

        def on_solution_callback(self) -> None:
            self.found += 1

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_search_workers = 1
    if timeout:
        solver.parameters.max_time_in_seconds = timeout
    counter = Counter()
    wall, cpu = time.perf_counter(), time.process_time()
    status = solver.Solve(model, counter)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "box": box_file.name, "status": solver.StatusName(status), "packings": counter.found,
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "cpu_s_per_packing": round(cpu / counter.found, 4) if counter.found else None,
        "conflicts": solver.NumConflicts(), "branches": solver.NumBranches(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("box", type=Path)
    parser.add_argument("--timeout", type=float, default=None, help="CP-SAT time limit in seconds")
    parser.add_argument("--fix", nargs=2, metavar=("NAME", "VALUE"), help="a sub-space: p_X 12 fixes X's placement 12")
    args = parser.parse_args()
    fix = (args.fix[0], int(args.fix[1])) if args.fix else None
    print(json.dumps({**count(args.box, args.timeout, fix), "fix": args.fix}))


if __name__ == "__main__":
    main()
