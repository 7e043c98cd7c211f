"""Presolve cases (issue 10, item 4): products and equations over wide domains, each a fresh process.

The files in benchmarks/presolve/ are the small cases behind the presolve rules of docs/encodings.md
(products fixed by the file, bounds through products, products by cases of a narrow factor, equations
between two wide variables, narrowing of domains with thousands of holes): a prime and a semiprime as
x·y over 2..100,000, x·y bounded with x + y, a price·quantity cost minimised, a narrow factor times a
wide one, and nine random files that fuzzing against CP-SAT turned up. Three of them are for the rules
of 2026-12-03: a comparison of two variables split on the narrower's values, a product of two functions
of one variable as a table, quotients over the pieces of their argument. Three are for the rules of the
next session of that day, from benchmarks/fuzz_cpsat.py (seeds 292, 1099 and 1197 with
``--tight-every 0``): a product with a common factor decided by signs, a product plus a constant bounded
through a factor whose sign is fixed, tables read after the sums' fixpoint. Each runs as a user runs it
(`csp2sat solve -v`, `--count` for names starting with ``count``), with a time limit; the table gives
status, wall seconds, CNF clauses and the stage that took longest.

usage: .venv/bin/python benchmarks/presolve.py [--timeout S] [--csp2sat COMMAND] [FILE ...]
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "presolve"
STAGE = re.compile(r"^c (parse|normalise|encode|load|solve|count)\s+([0-9.]+) s", re.M)
SIZE = re.compile(r"([0-9,]+) CNF clauses")


def run_case(path: Path, command: list[str], timeout: float) -> dict:
    """One fresh `csp2sat solve -v` of `path`: status, wall time, clauses and the slowest stage."""
    args = command + ["solve", "-v", "--timeout", str(timeout)]
    if path.name.startswith("count"):
        args.append("--count")
    start = time.perf_counter()
    try:
        done = subprocess.run(args + [str(path)], capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return {"file": path.name, "status": "KILLED", "wall": time.perf_counter() - start}
    wall = time.perf_counter() - start
    lines = done.stdout.splitlines()
    status = next((l[2:] for l in reversed(lines) if l.startswith("s ")), "")
    status = next((l[2:] for l in reversed(lines) if l.startswith("c SOLUTIONS")), status) or f"exit {done.returncode}"
    stages = {name: float(sec) for name, sec in STAGE.findall(done.stderr)}
    size = SIZE.search(done.stderr)
    slowest = max(stages, key=stages.__getitem__) if stages else ""
    return {"file": path.name, "status": status, "wall": wall, "clauses": size.group(1) if size else "",
            "slowest": f"{slowest} {stages[slowest]:.2f} s" if slowest else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="the .csp files (default: benchmarks/presolve/*.csp)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per file (csp2sat's --timeout)")
    parser.add_argument("--csp2sat", default=f"{sys.executable} -m csp2sat", help="the command to run")
    args = parser.parse_args()
    files = args.files or sorted(CASES.glob("*.csp"))
    print("| file | status | wall s | CNF clauses | slowest stage |")
    print("|---|---|---|---|---|")
    for path in files:
        row = run_case(path, shlex.split(args.csp2sat), args.timeout)
        print(f"| {row['file']} | {row['status']} | {row['wall']:.2f} | {row.get('clauses', '')} | "
              f"{row.get('slowest', '')} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
