"""Fuzzing against OR-tools CP-SAT: random wide-domain files, solved by csp2sat (a fresh process each) and by
CP-SAT (one worker), compared on status and optimum, with both times.

Each seed gives one small file (2-5 integer variables over 0..10 up to ±10⁹, 1-8 constraints of sums,
products, div, mod, abs, min, max and if, nested in not/and/or; an objective one time in three). Odd
seeds multiply wide variables, and one seed in five has narrow domains and more constraints. The same
seed always gives the same file, so a seed named in a commit or a note can be run again:
``--seeds 292 --keep DIR`` writes the file. csp2sat's answers are checked by its own evaluator; here a
different status or optimum is WRONG, and a file that takes csp2sat more than `--slow` seconds is SLOW.
Each presolve rule of benchmarks/presolve/ started as a SLOW seed.

usage: .venv/bin/python benchmarks/fuzz_cpsat.py [--seeds A-B | --seeds N,M,...] [--timeout S] [--slow S]
       [--csp2sat COMMAND] [--keep DIR] [--log FILE.jsonl]
Prints every WRONG, SLOW or undecided seed, then a summary; exits 1 if any answer is WRONG.
Needs `pip install ortools` (not a csp2sat dependency).
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WIDTHS = [(0, 10), (-20, 20), (0, 1000), (-1000, 1000), (0, 100000), (-70000, 70000), (0, 10**6),
          (-2**20, 2**20), (-10**9, 10**9)]
Expr = tuple  # ("v", name) | ("c", k) | (op, args...), as drawn below


def draw(seed: int, tight_every: int = 5) -> tuple[dict[str, tuple[int, int]], list[Expr], tuple[str, str] | None]:
    """The variables' domains, the constraints and the objective (sense, variable) of seed `seed`."""
    rnd = random.Random(seed)
    products = seed % 2 == 1  # products of wide variables, nested in extrema and if
    tight = bool(tight_every) and seed % tight_every == 2  # narrower domains, more constraints
    domains = {}
    for i in range(rnd.randint(2, 5)):
        lo, hi = rnd.choice(WIDTHS[:4] if tight else WIDTHS if not products else WIDTHS[2:8])
        if rnd.random() < 0.3:
            lo = rnd.randint(lo, hi)
            hi = rnd.randint(lo, hi)
        domains[f"x{i}"] = (lo, hi)
    names = list(domains)
    narrow = [v for v in names if domains[v][1] - domains[v][0] <= 2 * 10**6]
    kinds = ["add", "sub", "cmul", "mul", "div", "mod", "abs", "min", "max", "if"]
    if products:
        kinds += ["mul"] * 4 + ["min", "max", "if"]

    def term(depth: int) -> Expr:
        if rnd.random() < 0.35 or depth == 0:
            return ("c", rnd.randint(-50, 50)) if rnd.random() < 0.15 else ("v", rnd.choice(names))
        kind = rnd.choice(kinds)
        if kind in ("add", "sub", "min", "max"):
            return (kind, term(depth - 1), term(depth - 1))
        if kind == "cmul":
            return ("cmul", rnd.choice([-3, -2, 2, 3, 7, 16, 100, rnd.randint(-10**6, 10**6)]), term(depth - 1))
        if kind == "mul":
            if not narrow:
                return ("v", rnd.choice(names))
            first = ("v", rnd.choice(narrow))
            return ("mul", first, ("v", rnd.choice(narrow)) if rnd.random() < 0.8 else ("c", rnd.randint(2, 9)))
        if kind in ("div", "mod"):
            return (kind, term(depth - 1), rnd.choice([2, 3, 7, 10, 1000]))
        if kind == "abs":
            return ("abs", term(depth - 1))
        return ("if", formula(0), term(depth - 1), term(depth - 1))

    def formula(depth: int) -> Expr:
        r = rnd.random()
        if depth > 0 and r < 0.15:
            return ("not", formula(depth - 1))
        if depth > 0 and r < 0.35:
            return (rnd.choice(["or", "and"]), formula(depth - 1), formula(depth - 1))
        depth = rnd.randint(0, 2)
        op, left = rnd.choice(["=", "!=", "<", "<=", ">", ">="]), term(depth)
        return ("cmp", op, left, term(depth) if rnd.random() < 0.6 else ("c", rnd.randint(-10**6, 10**6)))

    constraints = [formula(1) for _ in range(rnd.randint(4, 8) if tight else rnd.randint(1, 4))]
    objective = (rnd.choice(["minimize", "maximize"]), rnd.choice(names)) if rnd.random() < 0.35 else None
    return domains, constraints, objective


def sugar_text(domains: dict[str, tuple[int, int]], constraints: list[Expr], objective: tuple[str, str] | None) -> str:
    """The file in Sugar's syntax."""
    def term(e: Expr) -> str:
        kind = e[0]
        if kind in ("c", "v"):
            return str(e[1])
        if kind == "cmul":
            return f"(* {e[1]} {term(e[2])})"
        if kind in ("div", "mod"):
            return f"({kind} {term(e[1])} {e[2]})"
        if kind == "if":
            return f"(if {formula(e[1])} {term(e[2])} {term(e[3])})"
        symbol = {"add": "+", "sub": "-", "mul": "*"}.get(kind, kind)
        return f"({symbol} {' '.join(term(a) for a in e[1:])})"

    def formula(e: Expr) -> str:
        if e[0] == "cmp":
            return f"({e[1]} {term(e[2])} {term(e[3])})"
        return f"({e[0]} {' '.join(formula(a) for a in e[1:])})"

    lines = [f"(int {v} {lo} {hi})" for v, (lo, hi) in domains.items()]
    lines += [formula(c) for c in constraints]
    if objective:
        lines.append(f"(objective {objective[0]} {objective[1]})")
    return "\n".join(lines) + "\n"


def cpsat_model(domains: dict[str, tuple[int, int]], constraints: list[Expr], objective: tuple[str, str] | None) -> Any:
    """The same file as a CP-SAT model: every subterm a variable bounded by interval arithmetic; div and mod
    with floor semantics (Sugar's) as x = d·q + r, 0 ≤ r < d."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    limit = 4 * 10**18
    variables = {v: (model.NewIntVar(lo, hi, v), (lo, hi)) for v, (lo, hi) in domains.items()}

    def fresh(lo: int, hi: int) -> tuple[Any, tuple[int, int]]:
        lo, hi = max(lo, -limit), min(hi, limit)
        return model.NewIntVar(lo, hi, ""), (lo, hi)

    def term(e: Expr) -> tuple[Any, tuple[int, int]]:
        kind = e[0]
        if kind == "c":
            return fresh(e[1], e[1])
        if kind == "v":
            return variables[e[1]]
        if kind == "cmul":
            a, (lo, hi) = term(e[2])
            z, bounds = fresh(min(e[1] * lo, e[1] * hi), max(e[1] * lo, e[1] * hi))
            model.Add(z == e[1] * a)
            return z, bounds
        if kind in ("div", "mod"):
            a, (lo, hi) = term(e[1])
            d = e[2]
            q, q_bounds = fresh(lo // d, hi // d)
            r, r_bounds = fresh(0, d - 1)
            model.Add(a == d * q + r)
            return (q, q_bounds) if kind == "div" else (r, r_bounds)
        if kind == "abs":
            a, (lo, hi) = term(e[1])
            z, bounds = fresh(0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
            model.AddAbsEquality(z, a)
            return z, bounds
        if kind == "if":
            cond = formula(e[1])
            (a, (al, ah)), (b, (bl, bh)) = term(e[2]), term(e[3])
            z, bounds = fresh(min(al, bl), max(ah, bh))
            model.Add(z == a).OnlyEnforceIf(cond)
            model.Add(z == b).OnlyEnforceIf(cond.Not())
            return z, bounds
        (a, (al, ah)), (b, (bl, bh)) = term(e[1]), term(e[2])
        if kind == "add":
            z, bounds = fresh(al + bl, ah + bh)
            model.Add(z == a + b)
        elif kind == "sub":
            z, bounds = fresh(al - bh, ah - bl)
            model.Add(z == a - b)
        elif kind == "mul":
            corners = [al * bl, al * bh, ah * bl, ah * bh]
            z, bounds = fresh(min(corners), max(corners))
            model.AddMultiplicationEquality(z, [a, b])
        elif kind == "min":
            z, bounds = fresh(min(al, bl), min(ah, bh))
            model.AddMinEquality(z, [a, b])
        else:
            z, bounds = fresh(max(al, bl), max(ah, bh))
            model.AddMaxEquality(z, [a, b])
        return z, bounds

    holds = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
             "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
    negated = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

    def formula(e: Expr) -> Any:
        b = model.NewBoolVar("")
        if e[0] == "cmp":
            (x, _), (y, _) = term(e[2]), term(e[3])
            model.Add(holds[e[1]](x, y)).OnlyEnforceIf(b)
            model.Add(holds[negated[e[1]]](x, y)).OnlyEnforceIf(b.Not())
        elif e[0] == "not":
            model.Add(b == formula(e[1]).Not())
        else:
            x, y = formula(e[1]), formula(e[2])
            if e[0] == "or":
                model.AddBoolOr([x, y]).OnlyEnforceIf(b)
                model.AddBoolAnd([x.Not(), y.Not()]).OnlyEnforceIf(b.Not())
            else:
                model.AddBoolAnd([x, y]).OnlyEnforceIf(b)
                model.AddBoolOr([x.Not(), y.Not()]).OnlyEnforceIf(b.Not())
        return b

    for c in constraints:
        model.Add(formula(c) == 1)
    if objective:
        (model.Minimize if objective[0] == "minimize" else model.Maximize)(variables[objective[1]][0])
    return model


def run_seed(seed: int, command: list[str], timeout: float, folder: Path, tight_every: int = 5) -> dict:
    """Solve one seed with both tools; the record printed and logged."""
    from ortools.sat.python import cp_model

    domains, constraints, objective = draw(seed, tight_every)
    path = folder / f"s{seed}.csp"
    path.write_text(sugar_text(domains, constraints, objective))
    start = time.perf_counter()
    try:
        proc = subprocess.run(command + ["solve", str(path)], capture_output=True, text=True, timeout=timeout)
        lines = proc.stdout.splitlines()
        status = next((ln[2:] for ln in reversed(lines) if ln.startswith("s ")), f"exit {proc.returncode}")
        values = [int(ln[2:]) for ln in lines if ln.startswith("o ")]
        ours_objective = values[-1] if values and status == "OPTIMUM FOUND" else None
    except subprocess.TimeoutExpired:
        status, ours_objective = "TIMEOUT", None
    ours_s = time.perf_counter() - start
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = timeout
    start = time.perf_counter()
    result = solver.Solve(cpsat_model(domains, constraints, objective))
    cp_s = time.perf_counter() - start
    cp_status = solver.StatusName(result)
    cp_objective = int(solver.ObjectiveValue()) if objective and result == cp_model.OPTIMAL else None
    expected = {"OPTIMAL": "OPTIMUM FOUND" if objective else "SATISFIABLE", "INFEASIBLE": "UNSATISFIABLE"}.get(cp_status)
    if status == "TIMEOUT" or expected is None:
        verdict = "undecided"
    elif status.startswith("exit"):
        verdict = "refused"  # a reported limit (exit status), not an answer
    elif status != expected or ours_objective != cp_objective:
        verdict = "WRONG"
    else:
        verdict = "ok"
    return {"seed": seed, "csp2sat": status, "objective": ours_objective, "csp2sat_s": round(ours_s, 3),
            "cpsat": cp_status, "cpsat_objective": cp_objective, "cpsat_s": round(cp_s, 3), "verdict": verdict}


def parse_seeds(text: str) -> list[int]:
    """``A-B`` (inclusive) or ``N,M,...``."""
    if "-" in text and "," not in text:
        first, last = (int(part) for part in text.split("-", 1))
        return list(range(first, last + 1))
    return [int(part) for part in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-200", help="A-B or N,M,... (default 1-200)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per file and tool (default 20)")
    parser.add_argument("--slow", type=float, default=3.0, help="report csp2sat runs longer than this (default 3 s)")
    parser.add_argument("--csp2sat", default=f"{sys.executable} -m csp2sat", help="the csp2sat command")
    parser.add_argument("--keep", type=Path, help="write the files here (default: a temporary folder)")
    parser.add_argument("--log", type=Path, help="append every record to this JSON-lines file")
    parser.add_argument("--tight-every", type=int, default=5, metavar="N",
                        help="seeds ≡ 2 (mod N) get narrow domains and more constraints; 0: none, as the "
                             "generator of the seeds below 3000 of 2026-12-03 (default 5)")
    args = parser.parse_args(argv)
    command = shlex.split(args.csp2sat)
    counts: dict[str, int] = {}
    slow = 0
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for seed in parse_seeds(args.seeds):
            record = run_seed(seed, command, args.timeout, folder, args.tight_every)
            counts[record["verdict"]] = counts.get(record["verdict"], 0) + 1
            is_slow = record["csp2sat_s"] > args.slow
            slow += is_slow
            if args.log:
                with args.log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(record) + "\n")
            if record["verdict"] != "ok" or is_slow:
                print(("SLOW " if is_slow and record["verdict"] == "ok" else "") + json.dumps(record), flush=True)
    print(f"{sum(counts.values())} seeds: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
          + f"; {slow} slower than {args.slow:g} s")
    return 1 if counts.get("WRONG") else 0


if __name__ == "__main__":
    sys.exit(main())
