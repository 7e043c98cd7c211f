"""Enumeration study (issue 10 item 5): branching on HIDDEN integer variables, first-fail, two ways.

Neither method is used by `csp2sat solve`; this script measures them so that the figures in
benchmarks/results/count_methods.md ("Fourth study") can be reproduced.

* ``mrv-decide``: ONE CaDiCaL 1.9.5 search, connected to an IPASIR-UP external propagator that
  (a) gives the solver's decisions: the unassigned integer variable (printed or hidden, at most
  ``--max-values`` values) with the fewest values left, set to its first value left, as an
  exact-cover search branches on the cell with the fewest candidates; (b) rejects every complete
  model in `check_model` with the blocking clause of its printed values, so the search goes on
  without a restart. Values left are tracked incrementally from `on_assignment` (one-hot literals
  per value under ``int=direct``; bounds only under the order encoding) and undone on backtracking.
* ``cube-conquer``: adaptive cube-and-conquer on one incremental solver: a cube (assumptions) is
  enumerated by blocking clauses with a conflict budget per SAT call; when the budget runs out,
  the cube is split one child per value left of the integer variable (hidden included) with the
  fewest values left under `propagate(cube)`. Blocking clauses are permanent for the query (one
  activation literal), so an answer reached through several extensions is still counted once.

``--expand-intervals`` rewrites ``(and (<= a X) (<= X b))`` into ``(or (= X a) ... (= X b))`` in the
file text before compiling, so that ``-O int=direct`` gives one-hot literals to the pentomino
placement numbers too (the generator's intervals keep them order-encoded). A study device only.

usage: .venv/bin/python benchmarks/count_mrv.py FILE.csp --method mrv-decide|cube-conquer
       [--max-values N] [--budget CONFLICTS] [--solver NAME] [--expand-intervals] [--limit N]
       [-O KEY=VALUE ...]
Prints one JSON row (answers, distinct answers, CPU s of the enumeration, conflicts, decisions).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from pysat.engines import Propagator
from pysat.solvers import Solver

from csp2sat.commands._common import parse_model
from csp2sat.compiler import compile_model
from csp2sat.enumerate import CompiledSpace

_INTERVAL = re.compile(r"\(and \(<= (-?\d+) ([^\s()]+)\) \(<= \2 (-?\d+)\)\)")


def expand_intervals(text: str) -> str:
    """``(and (<= a X) (<= X b))`` -> ``(or (= X a) ... (= X b))`` (same meaning, equalities only)."""
    def one(m: re.Match) -> str:
        lo, name, hi = int(m.group(1)), m.group(2), int(m.group(3))
        return "(or " + " ".join(f"(= {name} {v})" for v in range(lo, hi + 1)) + ")"
    return _INTERVAL.sub(one, text)


class FirstFail(Propagator):
    """IPASIR-UP propagator: first-fail decisions on integer variables, in-search blocking of answers."""

    def __init__(self, compiled, space: CompiledSpace, limit: int | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.space = space
        self.is_lazy = False
        self.compiled = compiled
        self.kind: list[int] = []  # 0: one literal per value (direct); 1: order literals x <= v_i
        self.lits: list[list[int]] = []
        self.where: dict[int, list[tuple[int, int, bool]]] = {}  # SAT var -> (variable, index, literal sign)
        self.lb: list[int] = []
        self.ub: list[int] = []
        self.alive: list[int] = []
        self.fixed: list[bool] = []
        self.dead: list[list[bool] | None] = []
        self.trail: list[tuple[int, int, object]] = []
        self.levels: list[int] = []
        self.answers: list[tuple] = []
        self.pending: list[list[int]] = []
        self.decisions = 0

    def add_variable(self, value_literals: list[list[int]]) -> list[int]:
        """Track one integer variable given its values' literal lists; returns the literals to observe."""
        k = len(value_literals)
        if all(len(lits) == 1 for lits in value_literals):
            kind, lits = 0, [lits[0] for lits in value_literals]
            self.dead.append([False] * k)
        else:  # order encoding: value i is (x > v_{i-1}) & (x <= v_i); keep the "x <= v_i" literals
            kind, lits = 1, [value_literals[i][-1] for i in range(k - 1)]
            self.dead.append(None)
        x = len(self.kind)
        self.kind.append(kind)
        self.lits.append(lits)
        self.lb.append(0)
        self.ub.append(k - 1)
        self.alive.append(k)
        self.fixed.append(False)
        for i, lit in enumerate(lits):
            self.where.setdefault(abs(lit), []).append((x, i, lit > 0))
        return lits

    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        info = self.where.get(abs(lit))
        if info is None:
            return
        trail = self.trail
        for x, i, sign in info:
            truth = (lit > 0) == sign
            if self.kind[x] == 0:
                if truth:
                    if not fixed:
                        trail.append((x, 0, self.fixed[x]))
                    self.fixed[x] = True
                else:
                    if not fixed:
                        trail.append((x, 1, i))
                    self.alive[x] -= 1
                    self.dead[x][i] = True
            elif truth and i < self.ub[x]:
                if not fixed:
                    trail.append((x, 2, self.ub[x]))
                self.ub[x] = i
            elif not truth and i + 1 > self.lb[x]:
                if not fixed:
                    trail.append((x, 3, self.lb[x]))
                self.lb[x] = i + 1

    def on_new_level(self) -> None:
        self.levels.append(len(self.trail))

    def on_backtrack(self, to: int) -> None:
        if to >= len(self.levels):
            return
        mark = self.levels[to]
        del self.levels[to:]
        trail = self.trail
        while len(trail) > mark:
            x, what, old = trail.pop()
            if what == 0:
                self.fixed[x] = old
            elif what == 1:
                self.alive[x] += 1
                self.dead[x][old] = False
            elif what == 2:
                self.ub[x] = old
            else:
                self.lb[x] = old

    def decide(self) -> int:
        best, fewest = -1, 1 << 30
        for x, kind in enumerate(self.kind):
            if kind == 0:
                if self.fixed[x]:
                    continue
                n = self.alive[x]
            else:
                n = self.ub[x] - self.lb[x] + 1
            if 1 < n < fewest:
                best, fewest = x, n
                if n == 2:
                    break
        if best < 0:
            return 0
        self.decisions += 1
        if self.kind[best] == 1:
            return self.lits[best][self.lb[best]]  # x <= its lowest value left: x = that value
        dead = self.dead[best]
        return next((lit for i, lit in enumerate(self.lits[best]) if not dead[i]), 0)

    def propagate(self) -> list[int]:
        return []

    def provide_reason(self, lit: int) -> list[int]:
        return []

    def check_model(self, model: list[int]) -> bool:
        full = [0] * self.compiled.num_vars  # the model holds the observed variables only
        for lit in model:
            full[abs(lit) - 1] = lit
        answer = self.space.project(full)
        self.answers.append(tuple(answer.values()))
        if self.limit is not None and len(self.answers) >= self.limit:
            self.pending.append([])  # the empty clause ends the search
        else:
            self.pending.append(self.space.block_clause(answer))
        return False

    def has_clause(self) -> bool:
        return bool(self.pending)

    def add_clause(self) -> list[int]:
        return self.pending.pop() if self.pending else []


def branching(compiled, max_values: int) -> list[tuple[str, list[list[int]]]]:
    """Every integer variable (hidden included) of 2..max_values values, with its values' literal lists."""
    out = []
    for name in compiled._int_index:
        values = compiled.domain_values(name)
        if 1 < len(values) <= max_values:
            out.append((name, [list(compiled.value_literals(name, v)) for v in values]))
    return out


def mrv_decide(compiled, model, max_values: int, limit: int | None) -> dict:
    space = CompiledSpace(compiled, model, verify=False)
    solver = Solver(name="cadical195")
    compiled.load(solver)
    prop = FirstFail(compiled, space, limit)
    observe: set[int] = set()
    for _, lists in branching(compiled, max_values):
        observe.update(abs(lit) for lit in prop.add_variable(lists))
    for name in space.split_names():  # every printed variable, Booleans included
        for v in space.values_of(name):
            observe.update(abs(lit) for lit in space.value_literals(name, v))
    solver.connect_propagator(prop)
    for var in sorted(observe):
        solver.observe(var)
    start = time.process_time()
    solver.solve()
    cpu = time.process_time() - start
    stats = solver.accum_stats()
    return {"answers": len(prop.answers), "distinct": len(set(prop.answers)), "cpu_s": round(cpu, 2),
            "found": prop.answers,
            "conflicts": stats.get("conflicts"), "decisions_given": prop.decisions,
            "branching_vars": len(prop.kind), "observed": len(observe)}


def cube_conquer(compiled, model, max_values: int, budget: int, solver_name: str, limit: int | None) -> dict:
    space = CompiledSpace(compiled, model, verify=False)
    solver = Solver(name=solver_name)
    space.load(solver)
    variables = branching(compiled, max_values)
    act = compiled.new_var()
    stack: list[list[int]] = [[]]
    seen: set[tuple] = set()
    answers = calls = splits = 0
    start = time.process_time()
    while stack and (limit is None or answers < limit):
        cube = stack.pop()
        while True:
            if limit is not None and answers >= limit:
                break
            solver.conf_budget(budget)
            calls += 1
            status = solver.solve_limited(assumptions=cube + [act])
            if status is None:
                break
            if not status:
                break
            answer = space.project(solver.get_model())
            answers += 1
            seen.add(tuple(answer.values()))
            solver.add_clause(space.block_clause(answer) + [-act])
        if status is not None or (limit is not None and answers >= limit):
            continue
        splits += 1
        ok, implied = solver.propagate(assumptions=cube + [act])
        if not ok:
            continue
        true = set(implied)
        true.update(cube)
        best = None
        for _, lists in variables:
            alive = [lits for lits in lists if not any(-lit in true for lit in lits)]
            if len(alive) > 1 and not any(all(lit in true for lit in lits) for lits in alive):
                if best is None or len(alive) < len(best):
                    best = alive
        if best is None:  # nothing left to split on: conquer without a budget
            budget = -1
            stack.append(cube)
            continue
        stack.extend(cube + [lit for lit in lits if lit not in true] for lits in best)
    cpu = time.process_time() - start
    stats = solver.accum_stats()
    return {"answers": answers, "distinct": len(seen), "cpu_s": round(cpu, 2), "conflicts": stats.get("conflicts"),
            "found": sorted(seen, key=repr),
            "sat_calls": calls, "splits": splits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--method", choices=["mrv-decide", "cube-conquer"], default="mrv-decide")
    parser.add_argument("--max-values", type=int, default=64)
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--solver", default="glucose4")
    parser.add_argument("--expand-intervals", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="stop after this many answers")
    parser.add_argument("-O", dest="options", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    text = args.file.read_text()
    if args.expand_intervals:
        text = expand_intervals(text)
    model = parse_model(text, str(args.file))
    options = dict(o.split("=", 1) for o in args.options)
    compiled = compile_model(model, options=options or None)
    if args.method == "mrv-decide":
        row = mrv_decide(compiled, model, args.max_values, args.limit)
    else:
        row = cube_conquer(compiled, model, args.max_values, args.budget, args.solver, args.limit)
    row = {"file": args.file.name, "method": args.method, "max_values": args.max_values,
           "expand_intervals": args.expand_intervals, "options": options, "limit": args.limit, **row}
    row.pop("found")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
