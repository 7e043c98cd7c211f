"""Benchmark of the front end (parser and checker): throughput on a large generated file.

Writes a file shaped like a generated puzzle encoding (declarations, edge
disjunctions such as ``(or (= v_1_1 0) (= h_2_0 0))``, sums, an alldifferent
per row) with the requested number of constraints into a temporary directory,
then times `parse_text` and `check` separately and prints MB/s and
constraints/s, by wall-clock time and by the process's CPU time (the figure to
compare on a shared machine, where wall-clock time includes waiting for a core).

    .venv/bin/python benchmarks/parse_throughput.py [--constraints 200000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from csp2sat.checker import check
from csp2sat.parser import parse_text


def generate(n_constraints: int) -> str:
    """CSP text with about `n_constraints` constraints over a square grid of cells and edges."""
    side = max(2, int((n_constraints / 4) ** 0.5))
    lines = ["; generated benchmark: grid of cells and edges"]
    for r in range(side):
        for c in range(side):
            lines.append(f"(int v_{r}_{c} 0 1)")
            lines.append(f"(int h_{r}_{c} 0 1)")
            lines.append(f"(int n_{r}_{c} 0 4)")
    count = 0
    r = c = 0
    while count < n_constraints:
        r2, c2 = (r + 1) % side, (c + 1) % side
        lines.append(f"(or (= v_{r}_{c} 0) (= h_{r2}_{c} 0))")
        lines.append(f"(= (+ v_{r}_{c} h_{r}_{c} v_{r}_{c2} h_{r2}_{c}) n_{r}_{c})")
        lines.append(f"(<= n_{r}_{c} 3) ; degree bound")
        lines.append(f"(imp (= n_{r}_{c} 2) (!= v_{r}_{c} h_{r}_{c}))")
        count += 4
        c += 1
        if c == side:
            c, r = 0, (r + 1) % side
    for r in range(min(side, 50)):
        lines.append("(alldifferent " + " ".join(f"n_{r}_{c}" for c in range(min(side, 5))) + ")")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Generate, parse and check; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--constraints", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=1, help="take the best of this many runs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.csp")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(generate(args.constraints))
        size = os.path.getsize(path)
        best = {"parse": (float("inf"),) * 2, "check": (float("inf"),) * 2}
        for _ in range(args.repeat):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            t0, c0 = time.perf_counter(), time.process_time()
            tree = parse_text(text, path)
            t1, c1 = time.perf_counter(), time.process_time()
            model = check(tree)
            t2, c2 = time.perf_counter(), time.process_time()
            best["parse"] = min(best["parse"], (t1 - t0, c1 - c0))
            best["check"] = min(best["check"], (t2 - t1, c2 - c1))
    n = len(model.constraints)
    mb = size / 1e6
    print(f"file: {mb:.1f} MB, {len(tree.statements)} statements, {n} constraints, {len(model.int_vars)} int vars")
    best["total"] = tuple(p + c for p, c in zip(best["parse"], best["check"]))
    for stage, (wall, cpu) in best.items():
        print(
            f"{stage}: {wall:.2f} s  {mb / wall:.2f} MB/s  {n / wall:,.0f} constraints/s"
            f"  | CPU {cpu:.2f} s  {mb / cpu:.2f} MB/s  {n / cpu:,.0f} constraints/s"
        )

if __name__ == "__main__":
    main()
