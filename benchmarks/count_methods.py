"""Enumeration study: conflicts and CPU per answer of three ways to enumerate, on one sub-space of a model.

The sub-space is the cube ``NAME = VALUE`` (default: the pentomino 5x12 box with
the X placement fixed, 114 packings), so that every method enumerates ALL its
answers in a few seconds and the figures are exact, not extrapolated:

* ``cubes``: csp2sat.enumerate.CubeEnumerator (the method of `solve --count`);
* ``blocking``: one blocking clause over the printed variables per answer, a
  new solve() call each time;
* ``in-search``: blocking inside ONE CaDiCaL 1.9.5 search through the IPASIR-UP
  external-propagator interface (`check_model` rejects each model with its
  blocking clause, so the search goes on from where it is, without a restart
  per answer). A prototype: not used by `solve`.

CPU time is process time of this process (the solver runs in it); conflicts
come from the solver's statistics, so both are independent of the load.
usage: .venv/bin/python benchmarks/count_methods.py [FILE.csp] [--fix NAME VALUE]
       [--methods cubes blocking in-search] [--solver cadical195] [--option KEY=INT ...]
Writes benchmarks/results/count_methods.json (appending one row per method).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from pysat.solvers import Solver

from csp2sat.commands._common import read_model
from csp2sat.compiler import compile_model
from csp2sat.enumerate import CompiledSpace, CubeEnumerator

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "count_methods.json"


def _printed_value_vars(compiled, names):
    found = set()
    for name in names:
        for value in compiled.domain_values(name):
            found.update(abs(lit) for lit in compiled.value_literals(name, value))
    return sorted(found)


def run(method: str, path: Path, fix: tuple[str, int] | None, solver_name: str, options: dict) -> dict:
    model, _ = read_model(str(path))
    compiled = compile_model(model)
    space = CompiledSpace(compiled, model, verify=False)
    names = [v.name for v in model.printed_int_vars()]
    solver = Solver(name=solver_name)
    if options:
        solver.configure(options)
    space.load(solver)
    cube = list(compiled.value_literals(*fix)) if fix else []
    start = time.process_time()
    calls = answers = 0
    if method == "cubes":
        search = CubeEnumerator(solver, space, [cube])
        answers = sum(1 for _ in search)
        calls = search.calls
    elif method == "blocking":
        act = compiled.new_var()
        while solver.solve(assumptions=cube + [act]):
            calls += 1
            answers += 1
            solver.add_clause(space.block_clause(space.project(solver.get_model())) + [-act])
        calls += 1
    elif method == "in-search":
        from pysat.engines import Propagator

        class Blocker(Propagator):
            def __init__(self) -> None:
                super().__init__()
                self.is_lazy = True
                self.on_assignment = pow  # a builtin: CaDiCaL reports every observed assignment, we need none
                self.pending: list[list[int]] = []
                self.answers = 0

            def on_new_level(self) -> None:
                pass

            def on_backtrack(self, to: int) -> None:
                pass

            def decide(self) -> int:
                return 0

            def propagate(self) -> list[int]:
                return []

            def provide_reason(self, lit: int) -> list[int]:
                return []

            def check_model(self, model: list[int]) -> bool:
                full = [0] * compiled.num_vars  # the model holds the observed (printed-value) variables only
                for lit in model:
                    full[abs(lit) - 1] = lit
                values = compiled.decode(full)
                self.answers += 1
                self.pending.append([-lit for n in names for lit in compiled.value_literals(n, values[n])])
                return False

            def has_clause(self) -> bool:
                return bool(self.pending)

            def add_clause(self) -> list[int]:
                return self.pending.pop() if self.pending else []

        blocker = Blocker()
        solver.connect_propagator(blocker)
        for var in _printed_value_vars(compiled, names):
            solver.observe(var)
        solver.solve(assumptions=cube)
        calls, answers = 1, blocker.answers
    cpu = time.process_time() - start
    stats = solver.accum_stats()
    solver.delete()
    conflicts = stats.get("conflicts", 0)
    return {
        "file": path.name, "fix": list(fix) if fix else None, "method": method, "solver": solver_name,
        "options": options, "answers": answers, "sat_calls": calls, "conflicts": conflicts,
        "cpu_s": round(cpu, 2), "ms_per_answer": round(1000 * cpu / max(answers, 1), 1),
        "conflicts_per_answer": round(conflicts / max(answers, 1)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=ROOT / "csp/pentomino/box_5x12.csp")
    parser.add_argument("--fix", nargs=2, metavar=("NAME", "VALUE"), default=["p_X", "12"])
    parser.add_argument("--methods", nargs="+", default=["cubes", "blocking", "in-search"])
    parser.add_argument("--solver", default="cadical195")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=INT")
    args = parser.parse_args()
    options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    fix = (args.fix[0], int(args.fix[1])) if args.fix[0] != "-" else None
    rows = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    for method in args.methods:
        if method == "in-search" and args.solver != "cadical195":
            continue  # IPASIR-UP exists in PySAT for CaDiCaL 1.9.5 only
        row = run(method, args.file, fix, args.solver, options)
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    RESULTS.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
