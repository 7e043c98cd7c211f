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

from pysat.solvers import Solver

import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.encoders.cnf import clause_chunks
from csp2sat.loading import load_clauses
from csp2sat.solver import _aliases


def clauses_cut_one_by_one(lits: array) -> Iterator[list[int]]:
    """ClauseBuffer's iteration before 8568c7e: a chunk of the buffer as Python ints, a slice per clause.

    (The chunks come from `clause_chunks`, as copies; the old iteration read a view instead, a memory copy
    of 4 MB per chunk less.)"""
    for chunk, ends in clause_chunks(lits):
        values = chunk.tolist()
        begin = 0
        for end in ends.tolist():
            yield values[begin:end]
            begin = end + 1


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
