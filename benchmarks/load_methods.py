"""Benchmark of the load stage: PySAT's `append_formula` over clauses cut one by one, against `load_clauses`.

The first is how csp2sat loaded a CNF before commit 8568c7e (ClauseBuffer's chunk of
Python ints cut into one list per clause, then `append_formula`); the second is
`csp2sat.loading.load_clauses` over the buffer (run-wise lists, the native add call
mapped in C, the cyclic collector paused). Each file is compiled once, then loaded
into a fresh solver by each method in turn, RUNS times; prints min and median wall s.

usage: .venv/bin/python benchmarks/load_methods.py FILE.csp [FILE.csp ...] [--solver NAME] [--runs N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from array import array
from pathlib import Path
from typing import Iterator

import numpy as np
from pysat.solvers import Solver

import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.loading import load_clauses
from csp2sat.solver import _aliases

CHUNK = 1 << 20


def clauses_cut_one_by_one(lits: array) -> Iterator[list[int]]:
    """ClauseBuffer's iteration before 8568c7e: a chunk of the buffer as Python ints, a slice per clause."""
    total = len(lits)
    start = 0
    while start < total:
        size = CHUNK
        while True:
            stop = min(start + size, total)
            flat = np.frombuffer(lits, dtype=np.int32, count=stop - start, offset=4 * start)
            ends = np.flatnonzero(flat == 0)
            if len(ends) or stop == total:
                break
            size *= 2
        values = flat[: int(ends[-1]) + 1].tolist()
        del flat
        begin = 0
        for end in ends.tolist():
            yield values[begin:end]
            begin = end + 1
        start += begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--solver", default="glucose4")
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    name = _aliases()[args.solver][0]
    print("| file | clauses | solver | append_formula min / median s | load_clauses min / median s |")
    print("|---|---|---|---|---|")
    for path in args.files:
        compiled = compile_model(csp2sat.parse(path))
        buf = compiled._buffer
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for method in times:  # alternately, so that the machine's moods fall on both
                gc.collect()
                sat = Solver(name=name)
                start = time.perf_counter()
                if method == "before":
                    sat.append_formula(clauses_cut_one_by_one(buf.lits))
                else:
                    load_clauses(sat, buf)
                times[method].append(time.perf_counter() - start)
                sat.delete()
        cells = [f"{min(t):.2f} / {statistics.median(t):.2f}" for t in times.values()]
        print(f"| {path.stem} | {compiled.num_clauses:,} | {args.solver} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
