"""Enumeration methods across families: CPU and SAT conflicts of `--count` per (-O enumerate, -O satmode).

Every instance is counted completely by every combination, in this process,
through the code `solve --count` runs (`csp2sat.enumerate.open_space` with the
options), so counts are exact and comparable; parsing and encoding are not
timed. Instances (so that no choice is tuned to one family):

* n-queens 8-12 (Sugar's model, 92 ... 14,200 answers);
* pentomino boxes cut into sub-spaces by fixing the X placement (``box@p_X=K``:
  every other piece free), 3x20 whole;
* the puzzle boards with several solutions in data/ (``*_multi*``), generated
  by `csp2sat gen`;
* random CSPs (seeded): permutations of 0..7 under random sum and
  difference rules, hundreds to thousands of answers;
* loose random CSPs (``loose-N-K``): K variables over 0..N-1, all but the
  last different, one random sum rule: 10^4 to 10^5 answers with few dead
  ends (where ``-O enumerate=propagate`` is meant to win).

CPU seconds are process time (the solver runs in this process) and conflicts
come from the solver, so both are independent of the machine's load; the
combinations of one instance run back to back (interleaved, same load).

usage: .venv/bin/python benchmarks/count_suite.py [--only SUBSTRING ...] [--timeout S]
       [--combos cubes/default blocking/stable ...]
Writes benchmarks/results/count_suite.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from csp2sat.commands._common import read_model
from csp2sat.compiler import compile_model
from csp2sat.enumerate import open_space

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "count_suite.json"
COMBOS = ["cubes/default", "cubes/stable", "blocking/default", "blocking/stable"]


def nqueens(n: int) -> str:
    """Sugar's n-queens model (as tests/conformance/sugar-examples/nqueens-8.csp)."""
    lines = [f"(int q_{i} 1 {n})" for i in range(1, n + 1)]
    lines.append("(alldifferent " + " ".join(f"q_{i}" for i in range(1, n + 1)) + ")")
    lines.append("(alldifferent " + " ".join(f"(+ q_{i} {i})" for i in range(1, n + 1)) + ")")
    lines.append("(alldifferent " + " ".join(f"(- q_{i} {i})" for i in range(1, n + 1)) + ")")
    return "\n".join(lines) + "\n"


def random_csp(seed: int) -> str:
    """A random CSP with a few thousand answers at most: a permutation of 0..7 under random sum and difference rules."""
    rng = random.Random(seed)
    names = [f"x{i}" for i in range(8)]
    lines = [f"(int {n} 0 7)" for n in names]
    lines.append("(alldifferent " + " ".join(names) + ")")
    for _ in range(3):
        a, b, c, d = rng.sample(names, 4)
        lines.append(f"(<= (+ {a} {b}) (+ {c} {d} {rng.randint(-1, 1)}))")
    for _ in range(3):
        a, b = rng.sample(names, 2)
        lines.append(f"(!= (- {a} {b}) {rng.choice([-1, 1])})")
    return "\n".join(lines) + "\n"


def loose_csp(n: int, k: int, seed: int = 0) -> str:
    """K variables over 0..N-1, the first K-1 all different, one random sum rule on two of them (many answers)."""
    rng = random.Random(seed)
    names = [f"x{i}" for i in range(k)]
    lines = [f"(int {v} 0 {n - 1})" for v in names]
    lines.append("(alldifferent " + " ".join(names[:-1]) + ")")
    a, b = rng.sample(names, 2)
    lines.append(f"(< (+ {a} {b}) {rng.randint(n // 2, n)})")
    return "\n".join(lines) + "\n"


def instances(workdir: Path) -> list[tuple[str, Path, tuple[str, int] | None]]:
    """(label, .csp file, fixed value or None) for every instance of the suite."""
    found: list[tuple[str, Path, tuple[str, int] | None]] = []
    for n in range(8, 13):
        path = workdir / f"nqueens-{n}.csp"
        path.write_text(nqueens(n))
        found.append((f"nqueens-{n}", path, None))
    pento = ROOT / "csp" / "pentomino"
    found.append(("pentomino 3x20", pento / "box_3x20.csp", None))
    for box, values in (("4x15", (10, 20)), ("5x12", (4, 12, 16, 20)), ("6x10", (6, 12))):
        for k in values:
            found.append((f"pentomino {box}@p_X={k}", pento / f"box_{box}.csp", ("p_X", k)))
    for board in sorted((ROOT / "data").glob("*/*_multi*.txt")):
        genre = board.parent.name
        path = workdir / f"{genre}-{board.stem}.csp"
        subprocess.run([str(Path(sys.executable).with_name("csp2sat")), "gen", genre, str(board), "-o", str(path)],
                       check=True)
        found.append((f"{genre} {board.stem}", path, None))
    for seed in range(4):
        path = workdir / f"random-{seed}.csp"
        path.write_text(random_csp(seed))
        found.append((f"random-{seed}", path, None))
    for n, k in ((8, 5), (9, 5), (10, 6), (9, 6), (11, 6)):
        path = workdir / f"loose-{n}-{k}.csp"
        path.write_text(loose_csp(n, k))
        found.append((f"loose-{n}-{k}", path, None))
    return found


class _Timeout(Exception):
    pass


def count(path: Path, fix: tuple[str, int] | None, method: str, mode: str, timeout: float) -> dict:
    """Count the answers of one instance with one combination; CPU s, SAT calls and conflicts."""
    model, _ = read_model(str(path))
    if fix is not None:  # a sub-space: the same model with one printed variable fixed
        from csp2sat.parser import parse_text
        from csp2sat.checker import check

        model = check(parse_text(path.read_text() + f"\n(= {fix[0]} {fix[1]})\n"))
    compiled = compile_model(model, options={"enumerate": method, "satmode": mode})

    def stop(*_: object) -> None:
        raise _Timeout

    signal.signal(signal.SIGALRM, stop)
    answers = 0
    status = "ok"
    with open_space(compiled, model, verify=False) as space:
        start = time.process_time()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            for _ in space.solutions():
                answers += 1
        except _Timeout:
            status = "timeout"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        cpu = time.process_time() - start
        stats = space.solver.accum_stats() if status == "ok" else {}
    return {"answers": answers, "cpu_s": round(cpu, 2), "conflicts": stats.get("conflicts"), "status": status}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="instances whose label contains one of these")
    parser.add_argument("--combos", nargs="*", default=COMBOS, help="METHOD/SATMODE pairs")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, path, fix in instances(Path(tmp)):
            if args.only and not any(s in label for s in args.only):
                continue
            for combo in args.combos:
                method, mode = combo.split("/")
                row = {"instance": label, "method": method, "satmode": mode,
                       **count(path, fix, method, mode, args.timeout)}
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    RESULTS.write_text(json.dumps(old + rows, indent=1) + "\n")
    print("| instance | method | satmode | answers | CPU s | conflicts | status |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['instance']} | {r['method']} | {r['satmode']} | {r['answers']} | {r['cpu_s']} | "
              f"{r['conflicts']} | {r['status']} |")


if __name__ == "__main__":
    main()
