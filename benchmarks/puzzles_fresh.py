"""Every board of data/ end to end as users run it: `csp2sat puzzle GENRE FILE` in a fresh process.

Prints the CPU seconds (user + system of the child, best of --runs) of each
board and then the boards over --limit (default 0.8 s; issue 12's target is
1 s). CPU rather than wall time because the machine is shared; bytecode is
cached (as in an installed wheel), so the first run of a changed module pays
for compiling it and is not counted when --runs is 2 or more.

usage: .venv/bin/python benchmarks/puzzles_fresh.py [GENRE...] [--runs N] [--limit S]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.generators.base import genre, genre_names  # noqa: E402
from scripts.regen_csp import GENRE_DIRS, puzzle_files  # noqa: E402


def child_cpu(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """CPU seconds (user + system) of one run of `command`, and its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # from another directory, as users run it (not this checkout's csp2sat/ folder by accident)
    status = subprocess.run(command, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, status


def main() -> int:
    """Run every board and print its CPU time, then the boards over the limit."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help="genres to run (default: all)")
    parser.add_argument("--runs", type=int, default=2, help="runs per board; the best counts (default 2)")
    parser.add_argument("--limit", type=float, default=0.8, help="list the boards over this many CPU seconds")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    over = []
    for name in args.genres or genre_names():
        g = genre(name)
        for path in puzzle_files(GENRE_DIRS[g.name]):
            command = [sys.executable, "-m", "csp2sat", "puzzle", g.name, str(path)]
            results = [child_cpu(command, env) for _ in range(max(1, args.runs))]
            best = min(cpu for cpu, _ in results)
            statuses = sorted({status for _, status in results})
            label = f"{g.name}/{path.name}"
            print(f"{label:55s} {best:6.2f}  ({' '.join(f'{cpu:.2f}' for cpu, _ in results)})"
                  + ("" if statuses == [0] else f"  exit {statuses}"), flush=True)
            if best > args.limit:
                over.append((best, label))
    print(f"\nboards over {args.limit} s CPU: {len(over)}")
    for best, label in sorted(over, reverse=True):
        print(f"  {label:55s} {best:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
