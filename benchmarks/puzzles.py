"""Benchmark of the puzzle pipeline: generate, parse+compile, solve and draw, per board of data/.

For every instance (or those of the genres named on the command line) prints
the time of each stage and the total, then the largest board of each genre
and the worst total. The targets: every board under 2 s end to end, Hashi
19x41 and Slitherlink 30x25 under 1 s. The same boards side by side with
OR-tools CP-SAT (a model of every genre, both from a fresh process and
without start-up): benchmarks/puzzles_cpsat.py.

usage: .venv/bin/python benchmarks/puzzles.py [GENRE...] [--unique]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.generators.base import genre, genre_names  # noqa: E402
from csp2sat.generators.run import solve_puzzle  # noqa: E402
from scripts.regen_csp import GENRE_DIRS, puzzle_files  # noqa: E402


def main() -> int:
    """Run the benchmark and print one line per board."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help="genres to run (default: all)")
    parser.add_argument("--unique", action="store_true", help="also time the uniqueness check")
    args = parser.parse_args()
    names = args.genres or genre_names()
    print(f"{'board':50s} {'size':>7s} {'gen':>6s} {'compile':>7s} {'solve':>6s} {'verify':>6s} {'draw':>6s} {'total':>6s}"
          f" {'clauses':>8s}" + ("  unique(s)" if args.unique else ""))
    worst: tuple[float, str] = (0.0, "")
    largest: dict[str, tuple[int, str, float]] = {}
    for name in names:
        g = genre(name)
        for path in puzzle_files(GENRE_DIRS[g.name]):
            puzzle = g.read(path.read_text(encoding="utf-8"))
            run = solve_puzzle(g, puzzle, unique=args.unique)
            t1 = time.perf_counter()
            if run.solution is not None:
                g.render(puzzle, run.solution, "drawing")
            draw = time.perf_counter() - t1
            # verify: decoding and the independent check of the answer (evaluator and the genre's rules)
            total = sum(run.times.get(k, 0.0) for k in ("generate", "compile", "solve", "verify")) + draw
            size = path.stem.rsplit("_", 1)[-1]
            label = f"{g.name}/{path.stem}"
            verdict = "no solution" if run.solution is None else "unique" if run.unique else "MULTIPLE"
            extra = f"  {run.times.get('unique', 0):.3f} {verdict}" if args.unique else ""
            print(f"{label:50s} {size:>7s} {run.times['generate']:6.3f} {run.times['compile']:7.3f}"
                  f" {run.times['solve']:6.3f} {run.times.get('verify', 0.0):6.3f} {draw:6.3f} {total:6.3f} {run.stats['cnf_clauses']:8d}{extra}",
                  flush=True)
            worst = max(worst, (total, label))
            if g.name not in largest or path.stat().st_size > largest[g.name][0]:
                largest[g.name] = (path.stat().st_size, label, total)
    print()
    for gname, (_, label, total) in largest.items():
        print(f"largest {gname:14s} {label:50s} total {total:.3f} s")
    print(f"worst total: {worst[0]:.3f} s ({worst[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
