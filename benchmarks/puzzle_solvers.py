"""Benchmark: CPU seconds of `csp2sat solve` and `solve --unique` on every generated puzzle file, per SAT solver.

Measures whether `--solver auto`'s rule (Glucose 4.1 for problems without an objective) should
also be the default of `csp2sat puzzle`. One fresh process per run; CPU is the children's
user+sys time, so the figures are comparable under load. Results: benchmarks/results/puzzle_solvers.{json,md}.

    .venv/bin/python benchmarks/puzzle_solvers.py [--solvers cadical195,glucose4] [--json OUT]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_of(argv: list[str]) -> tuple[float, str]:
    """(CPU seconds, verdict lines) of one fresh csp2sat process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    verdict = [line for line in done.stdout.splitlines() if line.startswith("s ") or line in ("c UNIQUE", "c MULTIPLE")]
    return round(cpu, 3), " ".join(verdict)


def main() -> None:
    """Run every csp/<genre>/*.csp with each solver, with and without --unique, and print per-file rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", default="cadical195,glucose4")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--timeout", default="60")
    args = parser.parse_args()
    command = os.path.join(os.path.dirname(sys.executable), "csp2sat")
    results: dict[str, dict[str, tuple[float, str]]] = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "csp", "*", "*.csp"))):
        row = {}
        for solver in args.solvers.split(","):
            for mode in ([], ["--unique"]):
                row[" ".join([solver, *mode])] = cpu_of([command, "solve", "--solver", solver, "--timeout", args.timeout, *mode, path])
        key = os.path.relpath(path, os.path.join(ROOT, "csp"))
        results[key] = row
        print(key, json.dumps(row), flush=True)
    totals = {mode: round(sum(row[mode][0] for row in results.values()), 2) for mode in next(iter(results.values()))}
    print("total CPU s:", json.dumps(totals))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"totals": totals, "files": results}, out, indent=1)


if __name__ == "__main__":
    main()
