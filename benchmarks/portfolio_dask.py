"""Benchmark of `solve --jobs N --scheduler`: what running the solver portfolio on Dask costs over local processes.

For each file, the local portfolio (`csp2sat.parallel.portfolio_solve`, N spawned processes)
and the Dask portfolio (`csp2sat.dask_portfolio.portfolio_solve_on_dask`) on a
`distributed.LocalCluster` of N worker processes over TCP on the loopback, interleaved,
`--repeat` times each: wall time, the coordinator's CPU time, status, objective, winner.
The fixed costs are timed apart: importing `distributed` in a fresh interpreter (the
`solve` command pays it), connecting a client (with csp2sat's worker check), and starting
one racer process (``python -m csp2sat.dask_portfolio`` until it is ready to read).
The pickled problem's size is what each racer task carries over the network.

usage: .venv/bin/python benchmarks/portfolio_dask.py [FILE.csp...] [--jobs N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.commands._common import read_model  # noqa: E402
from csp2sat.compiler import compile_model  # noqa: E402
from csp2sat.dask_portfolio import portfolio_solve_on_dask  # noqa: E402
from csp2sat.parallel import connect, portfolio_solve  # noqa: E402

DEFAULT_FILES = [
    "tests/conformance/features/alldiff_pigeonhole_unsat.csp",
    "tests/conformance/sugar-examples/nqueens-8.csp",
    "tests/conformance/sugar-examples/gcp-myciel3.csp",
    "tests/conformance/sugar-examples/golombRuler-8.csp",
]


def _timed(call) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def _fixed_costs(address: str) -> dict:
    python = sys.executable
    imports = []
    for _ in range(3):
        wall = time.perf_counter()
        subprocess.run([python, "-c", "import distributed"], check=True)
        imports.append(time.perf_counter() - wall)
    connects = []
    for _ in range(3):
        wall = time.perf_counter()
        connect(address).close()
        connects.append(time.perf_counter() - wall)
    import tempfile

    from csp2sat import parse

    tiny = parse("(int x 1 3)\n(> x 2)\n")
    problem = tempfile.NamedTemporaryFile(suffix=".pickle")
    problem.write(pickle.dumps((tiny, compile_model(tiny), True), protocol=pickle.HIGHEST_PROTOCOL))
    problem.flush()
    starts = []
    for _ in range(3):  # a racer process solving a one-variable problem: start, imports, load, verdict, exit
        wall = time.perf_counter()
        done = subprocess.run([python, "-m", "csp2sat.dask_portfolio", "cadical195", problem.name],
                              capture_output=True, check=True)
        assert done.stdout, done.stderr
        starts.append(time.perf_counter() - wall)
    return {"import_distributed_s": min(imports), "connect_s": min(connects), "racer_start_s": min(starts)}


def main() -> None:
    """Run the comparison and print one JSON object per measurement, then a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    import distributed

    with distributed.LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                                  dashboard_address="127.0.0.1:0", memory_limit=0) as cluster:
        address = cluster.scheduler_address
        print(json.dumps(_fixed_costs(address)))
        summary = []
        for name in args.files:
            model, _ = read_model(str(ROOT / name))
            compiled = compile_model(model)
            size = len(pickle.dumps((model, compiled, True), protocol=pickle.HIGHEST_PROTOCOL))
            runs: dict[str, list[float]] = {"local": [], "dask": []}
            for _ in range(args.repeat):
                for where in ("local", "dask"):
                    if where == "local":
                        call = lambda: portfolio_solve(model, compiled, args.jobs)  # noqa: E731
                    else:
                        call = lambda: portfolio_solve_on_dask(model, compiled, args.jobs, address, first="cadical195")  # noqa: E731
                    wall, cpu, result = _timed(call)
                    runs[where].append(wall)
                    print(json.dumps({"file": name, "where": where, "wall_s": round(wall, 3), "client_cpu_s": round(cpu, 3),
                                      "status": result.status, "objective": result.objective, "winner": result.winner}))
            summary.append((name, size, min(runs["local"]), min(runs["dask"])))
    print(f"\n{'file':55} {'payload':>9} {'local':>8} {'dask':>8} {'added':>7}")
    for name, size, local, dask in summary:
        print(f"{name:55} {size / 1e6:7.2f}MB {local:7.2f}s {dask:7.2f}s {dask - local:+6.2f}s")
    print(f"median added: {statistics.median(d - l for _, _, l, d in summary):+.2f} s per solve (best of {args.repeat})")


if __name__ == "__main__":
    main()
