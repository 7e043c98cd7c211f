"""Wider benchmark: the families of Sugar's examples at several sizes, plus random structured instances.

Generates `.csp` files written the way Sugar's examples are written
(tests/conformance/sugar-examples: the same variable names, the same
decompositions, the same bounds) and runs each through the pipeline with
benchmarks/run.py's per-file subprocess (time per stage, CNF size, peak
memory). Random instances (open shop, job shop, linear, colouring) use a
fixed seed, so every run sees the same files.

usage: .venv/bin/python benchmarks/families.py [--only NAME] [--timeout S] [-O KEY=VALUE] [--list] [--write DIR]
       .venv/bin/python benchmarks/families.py --compare BEFORE.json AFTER.json
       .venv/bin/python benchmarks/families.py --sugar "SUGAR COMMAND" [--only NAME | --csp FILE] [--timeout S]
       .venv/bin/python benchmarks/families.py --report families-vs-sugar.json
Writes benchmarks/results/families.json (or --output) and prints a Markdown table.

Side by side with Sugar (issue 10's targets are ratios to Sugar 2.3.3 + MiniSat): --sugar names
the user's Sugar installation, i.e. Sugar's own perl driver with whatever it needs, e.g.
    --sugar "perl ~/sugar-v2-3-3/bin/sugar -jar ~/sugar-v2-3-3/bin/sugar-v2-3-3.jar -solver minisat"
Each instance then runs through the csp2sat command (`csp2sat solve -v`, as a user runs it) and
through Sugar in the same pass, one after the other (the order alternates between instances), each
in its own process group: status, objective, wall, CPU (user+sys of the process and every child it
waited for: Java and MiniSat for Sugar), peak RSS of the largest process, CNF variables/clauses
(csp2sat's -v line; the header of Sugar's CNF, kept with Sugar's "-keep -tmp PREFIX" flags, which
are appended to the command before the file), and the load average. Results go to
benchmarks/results/families-vs-sugar.json and .md (ratios csp2sat/Sugar and the issue's targets).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
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


def insertions_edges(k: int, n: int) -> tuple[int, list[tuple[int, int]]]:
    """DIMACS's k-Insertions_n graph (Caramia and Dell'Olmo), nodes 1..N.

    The generalised Mycielskian ("cone") with k + 1 levels of copies, applied n - 1 times to K2:
    copy i of a vertex is joined to copy i - 1 of its neighbours, the last copies to one new
    vertex. Triangle-free, chromatic number n + 1; 1-Insertions_4 has 67 nodes and 232 edges,
    2-Insertions_3 37 and 72, as in the DIMACS files.
    """
    levels = k + 1
    nodes, edges = 2, [(1, 2)]
    for _ in range(n - 1):
        new = list(edges)
        for level in range(1, levels + 1):
            below, here = (level - 1) * nodes, level * nodes
            for a, b in edges:
                new += [(a + below, b + here), (b + below, a + here)]
        top = (levels + 1) * nodes + 1
        new += [(v + levels * nodes, top) for v in range(1, nodes + 1)]
        nodes, edges = top, new
    return nodes, sorted((min(a, b), max(a, b)) for a, b in edges)


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
    for k, n in ((2, 3), (3, 3), (4, 3), (1, 4), (2, 4), (1, 5)):
        def gen(k=k, n=n) -> str:
            nodes, edges = insertions_edges(k, n)
            return colouring(f"{k}-Insertions_{n}", nodes, edges, n + 2)
        yield f"gcp-{k}-Insertions_{n}", gen
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


def _seeded_colourings(params: tuple[tuple[int, float, int], ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    """Random colourings G(n, p) at the given (n, p, seed), named with their seed (the unseen sets)."""
    for n, p, seed in params:
        def gen(n=n, p=p, seed=seed) -> str:
            nn, edges = random_colouring(n, p, seed=seed)
            return colouring(f"random G({n},{p}) seed {seed}", nn, edges, 12)
        yield f"gcp-random-{n}-s{seed}", gen


def _seeded_open_shops(params: tuple[tuple[int, int], ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    """Random n x n open shops at the given (n, seed)."""
    for n, seed in params:
        yield f"oss-random-{n}x{n}-s{seed}", lambda n=n, seed=seed: open_shop(n, seed=seed)


def _seeded_job_shops(params: tuple[tuple[int, int, int], ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    """Random job shops of n jobs on m machines at the given (n, m, seed)."""
    for n, m, seed in params:
        yield f"jss-random-{n}x{m}-s{seed}", lambda n=n, m=m, seed=seed: job_shop(n, m, seed=seed)


def _queens(sizes: tuple[int, ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    """n-queens of the given sizes."""
    for n in sizes:
        yield f"nqueens-{n}", lambda n=n: nqueens(n)


def _seeded_linears(params: tuple[tuple[int, int, int, int, int], ...]) -> Iterator[tuple[str, Callable[[], str]]]:
    """Random linear systems at the given (variables, equations, terms, domain bound, seed)."""
    for n, m, k, d, seed in params:
        yield (f"linear-{n}-{m}-{k}-{d}-s{seed}",
               lambda n=n, m=m, k=k, d=d, seed=seed: random_linear(n, m, k, d, seed=seed))


def unseen_instances() -> Iterator[tuple[str, Callable[[], str]]]:
    """(name, generator) of members of the same families at seeds and sizes that no tuning used (`--unseen`).

    A check that the families' figures are no artefact of the instances above: the random
    families at new seeds (and a few new sizes), n-queens at sizes between the listed ones.
    Chosen once (2026-11-29) without running them first; do not tune to these either.
    """
    yield from _seeded_open_shops(((5, 501), (6, 601), (7, 701), (8, 801)))
    yield from _seeded_job_shops(((7, 7, 707), (9, 9, 909), (10, 6, 1006), (12, 5, 1205), (12, 6, 1206)))
    yield from _seeded_colourings(((40, 0.3, 401), (60, 0.2, 601), (80, 0.15, 801), (100, 0.1, 1001)))
    yield from _queens((30, 75, 150, 300))
    yield from _seeded_linears(((30, 15, 5, 25, 3), (40, 20, 5, 40, 4), (50, 25, 4, 60, 5)))


def unseen_instances_2() -> Iterator[tuple[str, Callable[[], str]]]:
    """A second set of unseen members (`--unseen 2`), chosen 2026-12-03 after the first had been measured.

    Besides new seeds of the random families it holds members of the fixed families that
    neither list has: magicSquare-11x11, golombRuler-7, social golfers of other shapes.
    Written down before csp2sat or Sugar ran any of them; nothing was tuned to them.
    """
    yield "magicSquare-11x11", lambda: magic_square(11)
    yield "golombRuler-7", lambda: golomb(7)
    yield "golombRuler-7-decision", lambda: golomb(7, decision=True)
    for g, s, w in ((3, 3, 4), (4, 2, 7), (5, 4, 4), (6, 3, 5), (7, 3, 6)):
        yield f"socialGolfer-{g}-{s}-{w}", lambda g=g, s=s, w=w: social_golfer(g, s, w)
    yield from _seeded_colourings(((45, 0.25, 451), (90, 0.12, 901), (120, 0.08, 1201)))
    yield from _seeded_open_shops(((5, 502), (6, 602), (7, 702), (8, 802)))
    yield from _seeded_job_shops(((8, 6, 806), (9, 7, 907), (11, 5, 1105), (13, 5, 1305)))
    yield from _queens((20, 120, 250, 400))
    yield from _seeded_linears(((35, 18, 5, 30, 7), (45, 25, 5, 50, 8), (60, 30, 4, 80, 9)))


# --unseen N: the sets of unseen members, and where their side-by-side results go.
UNSEEN = {1: (unseen_instances, "families-vs-sugar-unseen.json"),
          2: (unseen_instances_2, "families-vs-sugar-unseen-2.json")}


def compare(before_path: str, after_path: str) -> str:
    """A Markdown table of two result files side by side: status, clauses, total seconds, peak MB."""
    def load(path: str) -> dict[str, dict]:
        return {row["name"]: row for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]}

    before, after = load(before_path), load(after_path)
    lines = ["| instance | status before | status after | clauses before | clauses after | s before | s after "
             "| CPU s before | CPU s after | MB before | MB after |", "|" + "---|" * 11]
    for name, a in after.items():
        b = before.get(name, {})

        def cell(row: dict, key: str, spec: str) -> str:
            value = row.get(key)
            return "" if value is None else format(value, spec)

        lines.append(f"| {name} | {b.get('status', '')} | {a.get('status', '')} | {cell(b, 'cnf_clauses', ',')} "
                     f"| {cell(a, 'cnf_clauses', ',')} | {cell(b, 'total_s', '.1f')} | {cell(a, 'total_s', '.1f')} "
                     f"| {cell(b, 'cpu_s', '.1f')} | {cell(a, 'cpu_s', '.1f')} "
                     f"| {cell(b, 'peak_mb', '.0f')} | {cell(a, 'peak_mb', '.0f')} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Side by side with Sugar: one measured child process per tool and instance.

VS_SUGAR_JSON = RESULTS / "families-vs-sugar.json"
VS_SUGAR_MD = RESULTS / "families-vs-sugar.md"


def measure(cmd: list[str], timeout: float) -> dict:
    """Run `cmd` in its own process group and measure it like /usr/bin/time does.

    Returns stdout, stderr, wall seconds, CPU seconds (user+sys of the process and of every
    descendant it waited for, which is how Sugar's driver runs Java and MiniSat), the peak RSS
    in MB of the largest of them, and whether the time-out killed the group.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    out: dict[str, bytes] = {}

    def drain(name: str, stream) -> None:
        out[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, st), daemon=True)
               for n, st in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for r in readers:
        r.start()
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # our own child's group: Sugar's perl, Java, MiniSat
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        # wait4 rather than Popen.wait: its rusage covers the grandchildren the child waited for.
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if killed.is_set():
        # Grandchildren killed mid-run were never waited for: make sure none is left, then stop reading.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for r in readers:
        r.join(timeout=5)
    return {
        "stdout": out.get("stdout", b"").decode("utf-8", "replace"),
        "stderr": out.get("stderr", b"").decode("utf-8", "replace"),
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "timed_out": killed.is_set(),
        "exit": proc.returncode,
    }


def parse_answer(stdout: str) -> tuple[str, int | None]:
    """The final status and the last objective value of Sugar-format output (`s ...`, `o N`)."""
    status, objective = "", None
    for line in stdout.splitlines():
        if line.startswith("s ") and line[2:].strip() != "UNKNOWN":
            status = line[2:].strip()
        elif line.startswith("o "):
            parts = line.split()
            if len(parts) > 1 and re.fullmatch(r"-?\d+", parts[1]):
                objective = int(parts[1])
    return status, objective


def dimacs_header(path: Path) -> tuple[int, int] | None:
    """(variables, clauses) from the `p cnf V C` line of a DIMACS file, or None."""
    try:
        with open(path, "rb") as f:
            for raw in f:
                line = raw.decode("ascii", "replace").split()
                if line[:2] == ["p", "cnf"] and len(line) >= 4:
                    return int(line[2]), int(line[3])
                if line and line[0] != "c":
                    return None
    except OSError:
        return None
    return None


def _tool_row(m: dict, status: str, objective: int | None, cnf: tuple[int, int] | None) -> dict:
    if m["timed_out"]:
        status = "TIMEOUT"
    elif not status:
        status = "ERROR"
    row = {"status": status, "objective": objective, "wall_s": round(m["wall_s"], 3),
           "cpu_s": round(m["cpu_s"], 3), "peak_mb": round(m["peak_mb"], 1),
           "cnf_vars": cnf[0] if cnf else None, "cnf_clauses": cnf[1] if cnf else None}
    if status == "ERROR":
        row["error"] = (m["stderr"] or m["stdout"]).strip().splitlines()[-3:]
    return row


def run_csp2sat(path: Path, args: argparse.Namespace) -> dict:
    """`csp2sat solve -v FILE` as a user runs it (parse, compile, solve, independent check, print)."""
    cmd = shlex.split(args.csp2sat) + ["solve", "-v", "--solver", args.solver]
    for opt in args.encoding:
        cmd += ["-O", opt]
    m = measure(cmd + [str(path)], args.timeout)
    return _tool_row(m, *parse_answer(m["stdout"]), cnf_size_of_verbose(m["stderr"]))


def cnf_size_of_verbose(stderr: str) -> tuple[int, int] | None:
    """(variables, clauses) from the `c size ... 1,752 CNF vars, 64,789 CNF clauses` line of `solve -v`."""
    size = re.search(r"([\d,]+) CNF vars, ([\d,]+) CNF clauses", stderr)
    return (int(size.group(1).replace(",", "")), int(size.group(2).replace(",", ""))) if size else None


def run_sugar(path: Path, args: argparse.Namespace, tmp: Path) -> dict:
    """Sugar's driver on FILE, keeping its CNF (-keep -tmp PREFIX) to read the header."""
    prefix = tmp / f"sugar-{path.stem}"
    m = measure(shlex.split(args.sugar) + ["-keep", "-tmp", str(prefix), str(path)], args.timeout)
    cnf = dimacs_header(Path(f"{prefix}.cnf"))
    for leftover in tmp.glob(f"sugar-{path.stem}.*"):
        leftover.unlink()
    row = _tool_row(m, *parse_answer(m["stdout"]), cnf)
    if row["status"] == "ERROR":
        row["error"] = [line for line in m["stdout"].splitlines() if "ERROR" in line][-3:] or row.get("error")
    return row


def side_by_side(chosen: list[tuple[str, Callable[[], str]]], args: argparse.Namespace,
                 on_row: Callable[[list[dict]], None] | None = None) -> list[dict]:
    """Both tools on every chosen instance, interleaved (the first tool alternates); `on_row` sees the rows so far."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="csp2sat-vs-sugar-") as tmpdir:
        tmp = Path(tmpdir)
        for i, (name, gen) in enumerate(chosen):
            path = tmp / f"{name}.csp"
            path.write_text(gen(), encoding="utf-8")
            load = os.getloadavg()[0]
            if i % 2 == 0:
                ours, theirs = run_csp2sat(path, args), run_sugar(path, args, tmp)
            else:
                theirs = run_sugar(path, args, tmp)
                ours = run_csp2sat(path, args)
            row = {"name": name, "csp2sat": ours, "sugar": theirs, "load": round(load, 2)}
            rows.append(row)
            if on_row:
                on_row(rows)
            print(f"{name}: csp2sat {ours['status']} {ours['wall_s']:.2f} s wall {ours['cpu_s']:.2f} s CPU "
                  f"{ours['cnf_clauses']} clauses | Sugar {theirs['status']} {theirs['wall_s']:.2f} s wall "
                  f"{theirs['cpu_s']:.2f} s CPU {theirs['cnf_clauses']} clauses | load {load:.1f}",
                  file=sys.stderr, flush=True)
    return rows


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _finished(row: dict) -> bool:
    return row["status"] not in ("TIMEOUT", "ERROR")


def report(data: dict) -> str:
    """The Markdown report of a side-by-side run: per instance, sums, and issue 10's targets."""
    rows = data["rows"]
    head = ("| instance | csp2sat | Sugar | same answer | wall csp2sat | wall Sugar | wall ratio | CPU csp2sat "
            "| CPU Sugar | CPU ratio | clauses csp2sat | clauses Sugar | clause ratio | MB csp2sat | MB Sugar | load |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    slower, bigger, disagree, undecided = [], [], [], []
    sums = {"wall": [0.0, 0.0], "cpu": [0.0, 0.0]}
    both = 0
    for r in rows:
        a, b = r["csp2sat"], r["sugar"]
        ok_a, ok_b = _finished(a), _finished(b)
        same = ""
        if ok_a and ok_b:
            same = "yes" if (a["status"], a["objective"]) == (b["status"], b["objective"]) else "**NO**"
            if same != "yes":
                disagree.append(r["name"])
        wall_ratio = _ratio(a["wall_s"], b["wall_s"]) if ok_b else None
        cpu_ratio = _ratio(a["cpu_s"], b["cpu_s"]) if ok_b else None
        # A CNF header of 0 clauses means Sugar was stopped before it finished encoding.
        clause_ratio = _ratio(a["cnf_clauses"], b["cnf_clauses"]) if b["cnf_clauses"] else None
        # An instance meets "wall <= Sugar's" when csp2sat finished no later than Sugar (a Sugar
        # time-out counts as met when csp2sat finished, a csp2sat time-out as missed when Sugar
        # finished); when both hit the time-out the run cannot tell.
        if not ok_a and not ok_b:
            undecided.append(r["name"])
        elif not ok_a or (ok_b and a["wall_s"] > b["wall_s"]):
            slower.append((r["name"], wall_ratio if ok_a else None))
        if clause_ratio is not None and clause_ratio > 1:
            bigger.append((r["name"], clause_ratio))
        if ok_a and ok_b:
            both += 1
            sums["wall"][0] += a["wall_s"]; sums["wall"][1] += b["wall_s"]
            sums["cpu"][0] += a["cpu_s"]; sums["cpu"][1] += b["cpu_s"]
        bound = ">" if not ok_a and ok_b else ""  # csp2sat stopped by the time-out: a lower bound
        obj = lambda t: t["status"] + (f" {t['objective']}" if t.get("objective") is not None else "")
        lines.append(
            f"| {r['name']} | {obj(a)} | {obj(b)} | {same} | {_fmt(a['wall_s'])} | {_fmt(b['wall_s'])} "
            f"| {bound}{_fmt(wall_ratio, '.3f')} | {_fmt(a['cpu_s'])} | {_fmt(b['cpu_s'])} | {bound}{_fmt(cpu_ratio, '.3f')} "
            f"| {_fmt(a['cnf_clauses'], ',')} | {_fmt(b['cnf_clauses'], ',')} | {_fmt(clause_ratio, '.3f')} "
            f"| {_fmt(a['peak_mb'], '.0f')} | {_fmt(b['peak_mb'], '.0f')} | {_fmt(r.get('load'), '.1f')} |")
    wall_sum = _ratio(*sums["wall"])
    cpu_sum = _ratio(*sums["cpu"])
    lines += ["", f"Sums over the {both} instances both tools finished: wall {sums['wall'][0]:.2f} s vs Sugar "
              f"{sums['wall'][1]:.2f} s (ratio {_fmt(wall_sum, '.3f')}), CPU {sums['cpu'][0]:.2f} s vs Sugar "
              f"{sums['cpu'][1]:.2f} s (ratio {_fmt(cpu_sum, '.3f')}).", "",
              "Issue 10's targets:", "",
              f"- every instance wall <= Sugar's: {'met' if not slower else 'NOT met'} "
              f"({len(rows) - len(slower) - len(undecided)}/{len(rows)}"
              + (f"; both hit the time-out on {len(undecided)}: {', '.join(undecided)}" if undecided else "") + ")"
              + ("; slower: " + ", ".join(f"{n} ({_fmt(q, '.2f')}x)" if q else f"{n} (csp2sat did not finish)"
                                          for n, q in slower) if slower else ""),
              f"- sum of wall <= 1/5 of Sugar's: {'met' if wall_sum is not None and wall_sum <= 0.2 else 'NOT met'} "
              f"(ratio {_fmt(wall_sum, '.3f')})",
              f"- CNF clauses <= Sugar's: {'met' if not bigger else 'NOT met'}"
              + ("; larger: " + ", ".join(f"{n} ({q:.2f}x)" for n, q in bigger) if bigger else ""),
              f"- same status and objective wherever both finished: "
              f"{'yes' if not disagree else 'NO: ' + ', '.join(disagree)}"]
    return "\n".join(lines)


def _fmt(x, spec: str = ".2f") -> str:
    return "" if x is None else format(x, spec)


def report_page(data: dict) -> str:
    """The whole families-vs-sugar.md: how it was run, the load, and the table."""
    loads = [r["load"] for r in data["rows"] if r.get("load") is not None]
    load = f"{min(loads):.1f} to {max(loads):.1f} (mean {sum(loads) / len(loads):.1f})" if loads else "not recorded"
    return "\n".join([
        "# The families benchmark side by side with Sugar",
        "",
        f"Run {data.get('date', '')} on {os.cpu_count()} cores; 1-minute load average at the start of each "
        f"instance: {load}. Time-out {data.get('timeout')} s per instance and tool. csp2sat: "
        f"`csp2sat solve -v --solver {data.get('solver')}` {' '.join('-O ' + o for o in data.get('options', []))}; "
        f"Sugar: {data.get('sugar_description', '')}.",
        "Wall and CPU are end to end as a user runs each tool (Java start-up and every MiniSat call of Sugar's "
        "objective search included); CPU is user+sys of the tool and the children it waited for; MB is the "
        "peak RSS of the largest process; Sugar's clauses are its CNF header (for objectives the driver's "
        "last bound clause is included; 0 means it was stopped before the header was written). Ratios are "
        "csp2sat/Sugar. On a TIMEOUT row CPU is a lower bound: the killed grandchildren (Java, MiniSat) were "
        "never waited for, so their CPU is not counted.",
        "",
        "Reproduce: `.venv/bin/python benchmarks/families.py --sugar \"SUGAR COMMAND\" --timeout "
        f"{data.get('timeout')}` (one instance: add `--only NAME`; any file: `--csp FILE`), then "
        "`.venv/bin/python benchmarks/families.py --report benchmarks/results/families-vs-sugar.json`.",
        "",
        report(data),
        "",
    ])


def main_side_by_side(chosen: list[tuple[str, Callable[[], str]]], args: argparse.Namespace) -> int:
    """--sugar: run both tools, print the report; save it (--csp: only to an explicit --output; a partial --only run updates its rows)."""
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    default = RESULTS / UNSEEN[args.unseen][1] if args.unseen else VS_SUGAR_JSON
    output = Path(args.output) if args.output != str(RESULTS / "families.json") else default
    previous = json.loads(output.read_text(encoding="utf-8")) if args.only and output.exists() else None

    def save(rows: list[dict]) -> dict:
        # Written after every instance, so that a long run stopped early keeps what it measured.
        data = {"date": started, "timeout": args.timeout, "solver": args.solver, "options": args.encoding,
                "sugar_description": args.sugar_description, "rows": rows}
        if args.csp and output == VS_SUGAR_JSON:
            return data  # files of the user's own are no rows of the families' table; --output saves them
        if previous and all(previous.get(k) == data[k] for k in ("timeout", "solver", "options")):
            fresh = {row["name"]: row for row in rows}
            data["rows"] = [fresh.pop(row["name"], row) for row in previous["rows"]] + list(fresh.values())
            data["date"] = previous.get("date", started) + f"; rows re-run {started}"
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        output.with_suffix(".md").write_text(report_page(data), encoding="utf-8")
        return data

    rows = side_by_side(chosen, args, on_row=save)
    data = save(rows)
    print(report(dict(data, rows=rows)))
    return 0


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
    parser.add_argument("--cpu-limit", type=float, metavar="S",
                        help="CPU seconds per instance (RLIMIT_CPU; fairer than --timeout on a loaded machine)")
    parser.add_argument("--solver", default="auto", help="PySAT solver name (default auto, as csp2sat solve)")
    parser.add_argument("-O", dest="encoding", action="append", default=[], metavar="KEY=VALUE",
                        help="compiler option, e.g. -O alldifferent=pairwise")
    parser.add_argument("--output", default=str(RESULTS / "families.json"), help="JSON file to write")
    parser.add_argument("--list", action="store_true", help="list the instance names and exit")
    parser.add_argument("--unseen", nargs="?", type=int, const=1, choices=sorted(UNSEEN), metavar="N",
                        help="the unseen members (other seeds and sizes of the same families) instead of the listed "
                             "ones: set 1 (chosen 2026-11-29, the default) or 2 (2026-12-03)")
    parser.add_argument("--write", metavar="DIR", help="write the .csp files into DIR and exit")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two result files and exit")
    side = parser.add_argument_group("side by side with Sugar")
    side.add_argument("--sugar", metavar="COMMAND",
                      help="run Sugar too: its driver command, e.g. \"perl /opt/sugar/bin/sugar -jar "
                           "/opt/sugar/sugar-v2-3-3.jar -solver minisat\" (gets -keep -tmp PREFIX FILE appended)")
    side.add_argument("--sugar-description", default="Sugar 2.3.3 built from its sources, run with MiniSat 2.2 "
                      "from Debian", help="how the Sugar install is described in the report")
    side.add_argument("--csp2sat", default=str(Path(sys.executable).with_name("csp2sat")), metavar="COMMAND",
                      help="the csp2sat command (default: the one next to this Python)")
    side.add_argument("--csp", action="append", default=[], metavar="FILE",
                      help="with --sugar: run these .csp files instead of the generated families (saved only with --output)")
    side.add_argument("--report", metavar="JSON",
                      help="write the Markdown report of a side-by-side result file next to it (.md) and print it")
    parser.add_argument("--compare-search", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="compare two result files by CPU time, SAT calls and re-encodings, and exit")
    args = parser.parse_args()
    if args.compare:
        print(compare(*args.compare))
        return 0
    if args.report:
        page = report_page(json.loads(Path(args.report).read_text(encoding="utf-8")))
        Path(args.report).with_suffix(".md").write_text(page, encoding="utf-8")
        print(page)
        return 0
    family = UNSEEN[args.unseen][0] if args.unseen else instances
    if args.csp:
        if not args.sugar:
            parser.error("--csp needs --sugar")
        chosen = [(Path(f).stem, lambda f=f: Path(f).read_text(encoding="utf-8")) for f in args.csp]
    else:
        chosen = [(name, gen) for name, gen in family() if not args.only or any(o in name for o in args.only)]
    if args.sugar:
        return main_side_by_side(chosen, args)
    if args.compare_search:
        print(compare_search(*args.compare_search))
        return 0
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
            print(f"{name}: {row.get('status')} {row.get('total_s', 0):.2f} s {row.get('cpu_s', 0):.2f} s CPU "
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
