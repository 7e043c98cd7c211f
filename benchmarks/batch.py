"""Benchmark of `csp2sat batch`: throughput (boards per second) with 1 and 2 workers, and the cost per task.

Throughput: every puzzle board of data/ (or the genres named) solved through `run_batch` on
the default local pool with --jobs 1 and --jobs 2, twice each, interleaved (the machine is
shared: the best of the two runs is reported, and both are printed). The pool's start-up is
timed apart from the batch.

Overhead: tiny tasks (the conformance corpus's features/, ~0.01 s of work each) on one
worker slot, locally and through a `distributed.LocalCluster` over TCP on the loopback: the
wall-clock time per task minus the time the task spent inside its sandboxed child
(fork, pipeline, exit) is what Dask, the sandbox round trip and the client add per task; the
child's time minus the pipeline's stage times is the fork, the untimed steps (decoding,
verification) and the result's way back. The sizes
of what crosses the network per task (the pickled task and the record) are printed too.

usage: .venv/bin/python benchmarks/batch.py [GENRE...] [--repeat N]
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat import batch  # noqa: E402


def _run(tasks: list[batch.Task], jobs: int | None = None, scheduler: str | None = None) -> tuple[float, float, list[dict]]:
    """(pool start-up s, batch wall s, records)."""
    started = time.perf_counter()
    pool = batch.open_pool(jobs, scheduler)
    try:
        ready = time.perf_counter()
        records = list(batch.run_batch(tasks, batch.Settings(), pool))
        finished = time.perf_counter()
    finally:
        pool.close()
    bad = [r for r in records if r["status"] not in ("SATISFIABLE", "UNSATISFIABLE", "OPTIMUM FOUND")]
    if bad:
        raise SystemExit(f"benchmark: {len(bad)} task(s) did not answer, e.g. {bad[0]['file']}: {bad[0]['status']}")
    return ready - started, finished - ready, records


def throughput(genres: list[str], repeat: int) -> None:
    paths = [str(ROOT / "data" / g) for g in genres] if genres else [str(ROOT / "data")]
    tasks, _ = batch.collect(paths)
    print(f"throughput: {len(tasks)} boards of {', '.join(genres) or 'data/'}, solve mode, "
          f"{batch.available_cores()} cores")
    best: dict[int, float] = {}
    for round_ in range(repeat):
        for jobs in (1, 2):
            startup, wall, records = _run(tasks, jobs)
            rate = len(tasks) / wall
            best[jobs] = max(best.get(jobs, 0.0), rate)
            busy = sum(r["wall_s"] for r in records)
            print(f"  run {round_ + 1} --jobs {jobs}: {wall:6.2f} s for {len(tasks)} boards = {rate:5.2f} boards/s"
                  f"  (pool start-up {startup:.2f} s; task time in the children {busy:.1f} s)")
    print(f"best: 1 worker {best[1]:.2f} boards/s, 2 workers {best[2]:.2f} boards/s, "
          f"speed-up {best[2] / best[1]:.2f}x")


def overhead() -> None:
    from distributed import LocalCluster

    tasks, _ = batch.collect([str(ROOT / "tests" / "conformance" / "features")])
    settings = batch.Settings()
    sent = [len(pickle.dumps((batch.load(t), settings))) for t in tasks]
    print(f"overhead: {len(tasks)} tiny tasks (tests/conformance/features) on one worker slot")
    for label, make in (("local pool (in-process Dask, 1 thread)", lambda: _run(tasks, 1)),
                        ("LocalCluster, 1 worker process over TCP", None)):
        if make is None:
            with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                              dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0") as cluster:
                startup, wall, records = _run(tasks, scheduler=cluster.scheduler_address)
        else:
            startup, wall, records = make()
        per_task = wall / len(tasks)
        child = statistics.mean(r["wall_s"] for r in records)
        stages = statistics.mean(sum((r["times"] or {}).values()) for r in records)
        print(f"  {label}: {per_task * 1000:6.1f} ms per task = pipeline {stages * 1000:5.1f} ms"
              f" + rest in the child {(child - stages) * 1000:5.1f} ms + Dask/sandbox/client {(per_task - child) * 1000:5.1f} ms")
    print("  (pipeline: the stage times a record lists; rest in the child: fork, decoding, verification,"
          " the result's way back; a no-op task's fork round trip alone is ~15 ms)")
    received = [len(pickle.dumps(r)) for r in records]
    print(f"  sent per task: {statistics.mean(sent):.0f} bytes on average (the task with its file's text);"
          f" received: {statistics.mean(received):.0f} bytes (the record)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help="data/ folders to run (default: all of data/)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per worker count (default 2)")
    parser.add_argument("--no-overhead", action="store_true", help="skip the per-task overhead measurement")
    args = parser.parse_args()
    throughput(args.genres, args.repeat)
    if not args.no_overhead:
        overhead()
    return 0


if __name__ == "__main__":
    sys.exit(main())
