"""Benchmark of `solve --count`: blocking clauses (the old loop) vs disjoint cubes, and cubes with 1 vs 2 jobs.

Each run is a fresh `csp2sat solve --count [-j N]` subprocess (or, for the
blocking baseline, a subprocess counting with `SolutionSpace.blocked_solutions`)
under a time limit; wall time and CPU time of the process and all its workers
(getrusage of waited-for children) are recorded with the count. The machine is
shared: compare CPU time as well as wall time.
Writes benchmarks/results/count_speedup.json and prints a Markdown table.

usage: .venv/bin/python benchmarks/count_speedup.py [FILE.csp ...] [--jobs 1 2] [--timeout S] [--blocking]
default files: csp/pentomino/box_3x20.csp and box_8x8_centre2x2.csp
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
CSP2SAT = Path(sys.executable).with_name("csp2sat")
BLOCKING = """
import sys
from csp2sat.commands._common import read_model
from csp2sat.compiler import compile_model
from csp2sat.enumerate import open_space
model, _ = read_model(sys.argv[1])
with open_space(compile_model(model), model, verify="sample") as space:
    print(f"c SOLUTIONS {sum(1 for _ in space.blocked_solutions())}")
"""


def run(command: list[str], timeout: float) -> dict:
    """Wall and CPU seconds (process + waited-for children) and the count printed, or a time-out."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
        status = "ok" if process.returncode == 0 else f"exit {process.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C for the whole group: workers included
        out, _ = process.communicate()
        status = "timeout"
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    count = next((int(line.split()[2]) for line in out.splitlines() if line.startswith("c SOLUTIONS")), None)
    return {"status": status, "count": count, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--blocking", action="store_true", help="also time the blocking-clause baseline")
    args = parser.parse_args()
    files = args.files or [ROOT / "csp/pentomino/box_3x20.csp", ROOT / "csp/pentomino/box_8x8_centre2x2.csp"]
    rows = []
    for path in files:
        if args.blocking:
            rows.append({"file": path.name, "method": "blocking", "jobs": 1,
                         **run([sys.executable, "-c", BLOCKING, str(path)], args.timeout)})
            print(rows[-1], file=sys.stderr)
        for jobs in args.jobs:
            rows.append({"file": path.name, "method": "cubes", "jobs": jobs,
                         **run([str(CSP2SAT), "solve", "--count", "-j", str(jobs), str(path)], args.timeout)})
            print(rows[-1], file=sys.stderr)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "count_speedup.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("| file | method | jobs | count | wall s | CPU s | status |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['file']} | {r['method']} | {r['jobs']} | {r['count']} | {r['wall_s']} | {r['cpu_s']} | {r['status']} |")


if __name__ == "__main__":
    main()
