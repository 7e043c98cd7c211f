"""Wider benchmark: the families of Sugar's examples at several sizes, plus random structured instances.

Generates `.csp` files written the way Sugar's examples are written
(tests/conformance/sugar-examples: the same variable names, the same
decompositions, the same bounds) and runs each through the pipeline with
benchmarks/run.py's per-file subprocess (time per stage, CNF size, peak
memory). Random instances (open shop, job shop, linear, colouring) use a
fixed seed, so every run sees the same files.

usage: .venv/bin/python benchmarks/families.py [--only NAME] [--timeout S] [-O KEY=VALUE] [--list] [--write DIR]
       .venv/bin/python benchmarks/families.py --compare BEFORE.json AFTER.json
Writes benchmarks/results/families.json (or --output) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

# Known optima of the Golomb ruler (marks -> length).
GOLOMB_OPT = {5: 11, 6: 17, 7: 25, 8: 34, 9: 44, 10: 55, 11: 72, 12: 85}
# Chromatic numbers of the Mycielski graphs (myciel_k: k = 3 → 4, ...).
MYCIEL_CHI = {3: 4, 4: 5, 5: 6, 6: 7, 7: 8}


def magic_square(n: int) -> str:
    """Sugar's magicSquare-NxN: a permutation of 1..n², every row, column and diagonal summing to n(n²+1)/2."""
    n2 = n * n
    s = n * (n2 + 1) // 2
    cells = [[f"x_{i}_{j}" for j in range(1, n + 1)] for i in range(1, n + 1)]
    out = [f"; Magic Square {n} x {n}"]
    out += [f"(int {x} 1 {n2})" for row in cells for x in row]
    out.append("(alldifferent " + " ".join(x for row in cells for x in row) + ")")
    lines = [row for row in cells] + [[cells[i][j] for i in range(n)] for j in range(n)]
    lines += [[cells[i][i] for i in range(n)], [cells[i][n - 1 - i] for i in range(n)]]
    out += [f"(= (+ {' '.join(line)}) {s})" for line in lines]
    return "\n".join(out + ["; END"]) + "\n"


def knight_tour(n: int) -> str:
    """Sugar's knightTour-N: x_i_j is the step at which the knight visits (i, j); each step but the last is followed by a knight's move."""
    n2 = n * n
    out = [f"; Knight's Tour {n} x {n}"]
    out += [f"(int x_{i}_{j} 1 {n2})" for i in range(1, n + 1) for j in range(1, n + 1)]
    out.append("(alldifferent " + " ".join(f"x_{i}_{j}" for i in range(1, n + 1) for j in range(1, n + 1)) + ")")
    moves = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            nxt = sorted((i + a, j + b) for a, b in moves if 1 <= i + a <= n and 1 <= j + b <= n)
            alts = [f"(= x_{i}_{j} {n2})"] + [f"(= (+ x_{i}_{j} 1) x_{a}_{b})" for a, b in nxt]
            out.append(f"(or {' '.join(alts)})")
    return "\n".join(out + ["; END"]) + "\n"


def golomb(m: int, decision: bool = False) -> str:
    """Sugar's golombRuler-M (minimise the length); `decision`: no objective, length ≤ the known optimum."""
    ub = (1 << (m - 1)) - 1
    lb = m * (m - 1) // 2
    out = [f"; Golomb ruler of {m} marks"]
    if decision:
        out.append(f"(int length {lb} {GOLOMB_OPT[m]})")
    else:
        out += [f"(int length {lb} {ub})", "(objective minimize length)"]
    out.append("(int m_0 0 0)")
    out += [f"(int m_{i} 0 {ub})" for i in range(1, m)]
    out += [f"(< m_{i} m_{i + 1})" for i in range(m - 1)]
    out.append(f"(<= m_{m - 1} length)")
    ds = []
    for j in range(m - 1):
        for i in range(j + 1, m):
            ds.append(f"d_{i}_{j}")
            out += [f"(int d_{i}_{j} 0 {ub})", f"(= d_{i}_{j} (- m_{i} m_{j}))"]
    out.append("(alldifferent " + " ".join(ds) + ")")
    return "\n".join(out + ["; END"]) + "\n"


def social_golfer(groups: int, size: int, weeks: int) -> str:
    """Sugar's socialGolfer-G-S-W: x_p_k = 1 when player p plays in group k (week-major); pairs meet at most once."""
    players = groups * size
    slots = groups * weeks
    x = [[f"x_{p}_{k}" for k in range(1, slots + 1)] for p in range(1, players + 1)]
    out = [f"; Social Golfer Problem: {groups} groups, {size} members, {weeks} weeks"]
    out += [f"(int {v} 0 1)" for row in x for v in row]
    for p in range(players):
        for w in range(weeks):
            out.append(f"(= (+ {' '.join(x[p][w * groups:(w + 1) * groups])}) 1)")
    for k in range(slots):
        out.append(f"(= (+ {' '.join(x[p][k] for p in range(players))}) {size})")
    for p in range(players):
        for q in range(p + 1, players):
            mins = " ".join(f"(min {x[p][k]} {x[q][k]})" for k in range(slots))
            out.append(f"(<= (+ {mins}) 1)")
    return "\n".join(out + ["; END"]) + "\n"


def mycielski_edges(k: int) -> tuple[int, list[tuple[int, int]]]:
    """The Mycielski graph myciel_k (myciel3 = Grötzsch graph, 11 nodes), nodes 1..n."""
    n, edges = 2, [(1, 2)]  # myciel_1 in DIMACS numbering is K2
    for _ in range(k - 1):
        # Mycielskian: copies u_i of v_i (i = 1..n) adjacent to v_i's neighbours, and w adjacent to every u_i.
        new = list(edges)
        for a, b in edges:
            new += [(a, b + n), (b, a + n)]
        w = 2 * n + 1
        new += [(i + n, w) for i in range(1, n + 1)]
        n, edges = w, new
    return n, sorted((min(a, b), max(a, b)) for a, b in edges)


def colouring(name: str, n: int, edges: list[tuple[int, int]], ub: int) -> str:
    """Sugar's gcp-*: minimise the largest colour."""
    out = [f"; Graph Coloring Problem {name}", f"(int color 2 {ub})", "(objective minimize color)"]
    for v in range(1, n + 1):
        out += [f"(int n{v} 1 {ub})", f"(<= n{v} color)"]
    out += [f"(!= n{a} n{b})" for a, b in edges]
    return "\n".join(out + ["; END"]) + "\n"


def _greedy_makespan(jobs: list[list[tuple[int, int]]], machines: int) -> int:
    """A feasible makespan of a job shop (operations in job order, each as early as its machine allows)."""
    job_free = [0] * len(jobs)
    mach_free = [0] * machines
    ops = [(k, j) for k in range(max(len(j) for j in jobs)) for j in range(len(jobs)) if k < len(jobs[j])]
    for k, j in ops:
        m, d = jobs[j][k]
        start = max(job_free[j], mach_free[m])
        job_free[j] = mach_free[m] = start + d
    return max(job_free)


def job_shop(n: int, m: int, seed: int) -> str:
    """Sugar's jss-*: n jobs of m operations with random machines and durations 1..99, minimise the makespan."""
    rnd = random.Random(seed)
    jobs = []
    for _ in range(n):
        order = list(range(m))
        rnd.shuffle(order)
        jobs.append([(mc, rnd.randint(1, 99)) for mc in order])
    lb = max(max(sum(d for _, d in job) for job in jobs),
             max(sum(d for job in jobs for mc, d in job if mc == k) for k in range(m)))
    ub = _greedy_makespan(jobs, m)
    out = ["; JSS", f"; {n} {m}"]
    out += ["; " + " ".join(f"{mc} {d}" for mc, d in job) for job in jobs]
    out += [f"(int makespan {lb} {ub})", "(objective minimize makespan)"]
    out += [f"(int s_{j}_{k} 0 {ub})" for j in range(n) for k in range(m)]
    for j, job in enumerate(jobs):
        for k in range(m - 1):
            out.append(f"(<= (+ s_{j}_{k} {job[k][1]}) s_{j}_{k + 1})")
        out.append(f"(<= (+ s_{j}_{m - 1} {job[-1][1]}) makespan)")
    by_machine: dict[int, list[tuple[int, int, int]]] = {}
    for j, job in enumerate(jobs):
        for k, (mc, d) in enumerate(job):
            by_machine.setdefault(mc, []).append((j, k, d))
    for mc in sorted(by_machine):
        ops = by_machine[mc]
        for a in range(len(ops)):
            for b in range(a + 1, len(ops)):
                (j1, k1, d1), (j2, k2, d2) = ops[a], ops[b]
                out.append(f"(or (<= (+ s_{j1}_{k1} {d1}) s_{j2}_{k2}) (<= (+ s_{j2}_{k2} {d2}) s_{j1}_{k1}))")
    return "\n".join(out + ["; END"]) + "\n"


def open_shop(n: int, seed: int) -> str:
    """Sugar's oss-*: n jobs × n machines with random durations, no operation order, minimise the makespan."""
    rnd = random.Random(seed)
    dur = [[rnd.randint(1, 999) for _ in range(n)] for _ in range(n)]
    lb = max(max(sum(row) for row in dur), max(sum(dur[j][k] for j in range(n)) for k in range(n)))
    # A feasible schedule: operations in the order of a Latin square (job j on machine (j+t) mod n in round t).
    ub = _greedy_makespan([[((j + t) % n, dur[j][(j + t) % n]) for t in range(n)] for j in range(n)], n)
    out = ["; OSS", f"; {n} {n}"] + ["; " + " ".join(map(str, row)) for row in dur]
    out += [f"(int makespan {lb} {ub})", "(objective minimize makespan)"]
    for j in range(n):
        for k in range(n):
            out += [f"(int s_{j}_{k} 0 {ub})", f"(<= (+ s_{j}_{k} {dur[j][k]}) makespan)"]
    for j in range(n):  # a job does one operation at a time
        for a in range(n):
            for b in range(a + 1, n):
                out.append(f"(or (<= (+ s_{j}_{a} {dur[j][a]}) s_{j}_{b}) (<= (+ s_{j}_{b} {dur[j][b]}) s_{j}_{a}))")
    for k in range(n):  # a machine does one job at a time
        for a in range(n):
            for b in range(a + 1, n):
                out.append(f"(or (<= (+ s_{a}_{k} {dur[a][k]}) s_{b}_{k}) (<= (+ s_{b}_{k} {dur[b][k]}) s_{a}_{k}))")
    return "\n".join(out + ["; END"]) + "\n"


def nqueens(n: int) -> str:
    """Sugar's nqueens-N: three alldifferents."""
    q = [f"q_{i}" for i in range(1, n + 1)]
    out = [f"; {n}-Queens Problem"] + [f"(int {v} 1 {n})" for v in q]
    out.append("(alldifferent " + " ".join(q) + ")")
    out.append("(alldifferent " + " ".join(f"(+ {v} {i})" for i, v in enumerate(q, 1)) + ")")
    out.append("(alldifferent " + " ".join(f"(- {v} {i})" for i, v in enumerate(q, 1)) + ")")
    return "\n".join(out + ["; END"]) + "\n"


def random_linear(n: int, m: int, k: int, d: int, seed: int) -> str:
    """m random equations of k terms (coefficients 1..5) over n variables 0..d, satisfiable by a hidden point."""
    rnd = random.Random(seed)
    point = [rnd.randint(0, d) for _ in range(n)]
    out = [f"; random linear: {n} variables 0..{d}, {m} equations of {k} terms, seed {seed}"]
    out += [f"(int x{i} 0 {d})" for i in range(n)]
    for _ in range(m):
        vs = rnd.sample(range(n), k)
        cs = [rnd.randint(1, 5) for _ in vs]
        rhs = sum(c * point[v] for c, v in zip(cs, vs))
        out.append(f"(= (+ {' '.join(f'(* {c} x{v})' for c, v in zip(cs, vs))}) {rhs})")
    return "\n".join(out + ["; END"]) + "\n"


def random_colouring(n: int, p: float, seed: int) -> tuple[int, list[tuple[int, int]]]:
    """A G(n, p) random graph."""
    rnd = random.Random(seed)
    return n, [(a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1) if rnd.random() < p]


def instances() -> Iterator[tuple[str, Callable[[], str]]]:
    """(name, generator) of every instance, smallest first within each family."""
    for n in (5, 6, 7, 8, 9, 10):
        yield f"magicSquare-{n}x{n}", lambda n=n: magic_square(n)
    for n in (5, 6, 7, 8):
        yield f"knightTour-{n}", lambda n=n: knight_tour(n)
    for m in (8, 9, 10, 11):
        yield f"golombRuler-{m}", lambda m=m: golomb(m)
        yield f"golombRuler-{m}-decision", lambda m=m: golomb(m, decision=True)
    for g, s, w in ((3, 2, 5), (4, 3, 4), (5, 3, 5), (4, 4, 5), (5, 5, 6)):
        yield f"socialGolfer-{g}-{s}-{w}", lambda g=g, s=s, w=w: social_golfer(g, s, w)
    for k in (3, 4, 5, 6):
        def gen(k=k) -> str:
            n, edges = mycielski_edges(k)
            return colouring(f"myciel{k}", n, edges, MYCIEL_CHI[k] + 1)
        yield f"gcp-myciel{k}", gen
    for n, p in ((30, 0.3), (50, 0.2), (70, 0.15)):
        def gen(n=n, p=p) -> str:
            nn, edges = random_colouring(n, p, seed=n)
            return colouring(f"random G({n},{p})", nn, edges, 12)
        yield f"gcp-random-{n}", gen
    for n in (3, 4, 5, 6, 7):
        yield f"oss-random-{n}x{n}", lambda n=n: open_shop(n, seed=n)
    for n, m in ((6, 6), (8, 8), (10, 5), (10, 10), (15, 5)):
        yield f"jss-random-{n}x{m}", lambda n=n, m=m: job_shop(n, m, seed=n * 100 + m)
    for n in (8, 50, 100, 200, 500, 1000):
        yield f"nqueens-{n}", lambda n=n: nqueens(n)
    for n, m, k, d in ((20, 10, 5, 20), (40, 20, 6, 30), (60, 40, 4, 100)):
        yield f"linear-{n}-{m}-{k}-{d}", lambda n=n, m=m, k=k, d=d: random_linear(n, m, k, d, seed=n)


def compare(before_path: str, after_path: str) -> str:
    """A Markdown table of two result files side by side: status, clauses, total seconds, peak MB."""
    def load(path: str) -> dict[str, dict]:
        return {row["name"]: row for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]}

    before, after = load(before_path), load(after_path)
    lines = ["| instance | status before | status after | clauses before | clauses after | s before | s after "
             "| MB before | MB after |", "|" + "---|" * 9]
    for name, a in after.items():
        b = before.get(name, {})

        def cell(row: dict, key: str, spec: str) -> str:
            value = row.get(key)
            return "" if value is None else format(value, spec)

        lines.append(f"| {name} | {b.get('status', '')} | {a.get('status', '')} | {cell(b, 'cnf_clauses', ',')} "
                     f"| {cell(a, 'cnf_clauses', ',')} | {cell(b, 'total_s', '.1f')} | {cell(a, 'total_s', '.1f')} "
                     f"| {cell(b, 'peak_mb', '.0f')} | {cell(a, 'peak_mb', '.0f')} |")
    return "\n".join(lines)


def compare_search(before_path: str, after_path: str) -> str:
    """A Markdown table of two result files for optimisation work: status, objective, CPU s, SAT calls, re-encodings."""
    def load(path: str) -> dict[str, dict]:
        return {row["name"]: row for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]}

    def cell(row: dict, key: str, spec: str = "") -> str:
        value = row.get(key)
        return "" if value is None else format(value, spec)

    before, after = load(before_path), load(after_path)
    lines = ["| instance | status before | status after | objective before | objective after | CPU s before "
             "| CPU s after | wall s before | wall s after | SAT calls before | SAT calls after | re-encodings "
             "| clauses first | clauses last |", "|" + "---|" * 14]
    for name, a in after.items():
        b = before.get(name, {})
        lines.append(f"| {name} | {b.get('status', '')} | {a.get('status', '')} | {cell(b, 'objective')} "
                     f"| {cell(a, 'objective')} | {cell(b, 'cpu_s', '.1f')} | {cell(a, 'cpu_s', '.1f')} "
                     f"| {cell(b, 'total_s', '.1f')} | {cell(a, 'total_s', '.1f')} | {cell(b, 'sat_calls')} "
                     f"| {cell(a, 'sat_calls')} | {cell(a, 'shrinks')} | {cell(a, 'cnf_clauses', ',')} "
                     f"| {cell(a, 'cnf_clauses_last', ',')} |")
    return "\n".join(lines)


def main() -> int:
    """Generate the instances and run them (or only write or list them)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only instances whose name contains NAME (repeatable)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per instance (default 120)")
    parser.add_argument("--solver", default="cadical195", help="PySAT solver name")
    parser.add_argument("-O", dest="encoding", action="append", default=[], metavar="KEY=VALUE",
                        help="compiler option, e.g. -O alldifferent=pairwise")
    parser.add_argument("--output", default=str(RESULTS / "families.json"), help="JSON file to write")
    parser.add_argument("--list", action="store_true", help="list the instance names and exit")
    parser.add_argument("--write", metavar="DIR", help="write the .csp files into DIR and exit")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two result files and exit")
    parser.add_argument("--compare-search", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="compare two result files by CPU time, SAT calls and re-encodings, and exit")
    args = parser.parse_args()
    if args.compare:
        print(compare(*args.compare))
        return 0
    if args.compare_search:
        print(compare_search(*args.compare_search))
        return 0
    chosen = [(name, gen) for name, gen in instances() if not args.only or any(o in name for o in args.only)]
    if args.list:
        print("\n".join(name for name, _ in chosen))
        return 0
    if args.write:
        out = Path(args.write)
        out.mkdir(parents=True, exist_ok=True)
        for name, gen in chosen:
            (out / f"{name}.csp").write_text(gen(), encoding="utf-8")
        return 0
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run  # benchmarks/run.py: the per-file subprocess and the table

    rows = []
    with tempfile.TemporaryDirectory(prefix="csp2sat-families-") as tmp:
        for name, gen in chosen:
            path = Path(tmp) / f"{name}.csp"
            path.write_text(gen(), encoding="utf-8")
            row = run.run_one(name, "csp", str(path), args)
            rows.append(row)
            print(f"{name}: {row.get('status')} {row.get('total_s', 0):.2f} s "
                  f"{row.get('cnf_clauses', '')} clauses", file=sys.stderr, flush=True)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    if args.only and output.exists():
        previous = json.loads(output.read_text(encoding="utf-8"))
        options = dict(opt.split("=", 1) for opt in args.encoding)
        if previous.get("options") == options:
            fresh = {row["name"]: row for row in rows}
            rows = [fresh.pop(row["name"], row) for row in previous.get("rows", [])] + list(fresh.values())
    output.write_text(json.dumps({"options": dict(opt.split("=", 1) for opt in args.encoding),
                                  "solver": args.solver, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(run.table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
