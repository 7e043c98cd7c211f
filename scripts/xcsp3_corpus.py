"""Rebuild the XCSP3 corpus of tests/xcsp3/: PyCSP3 models of classic problems, solved by ACE.

Needs the dev extra (``pip install pycsp3``) and Java; the tests that read
the corpus need neither. For every model and size below it writes
``tests/xcsp3/instances/NAME.xml``, runs ACE (bundled with PyCSP3) on it and
records ACE's status, optimum and wall time in ``tests/xcsp3/expected.json``.
An instance ACE cannot settle within the time limit is left out.

    .venv/bin/python scripts/xcsp3_corpus.py            # all
    .venv/bin/python scripts/xcsp3_corpus.py queens     # the models whose name starts so
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "xcsp3"
INSTANCES = OUT / "instances"
EXPECTED = OUT / "expected.json"
ACE_SECONDS = 120

from pycsp3 import *  # noqa: E402,F401,F403  (PyCSP3's modelling language is meant to be star-imported)

MODELS = {}


def model(name: str, *sizes):
    """Register `fn(size)` as the model `name`, compiled at each size."""

    def register(fn):
        MODELS[name] = (fn, sizes)
        return fn

    return register


# ---------------------------------------------------------------- models (each posts its constraints)


@model("queens", 4, 8, 12, 20, 3, 40)
def queens(n):
    q = VarArray(size=n, dom=range(n), id="q")
    satisfy(AllDifferent(q), AllDifferent(q[i] + i for i in range(n)), AllDifferent(q[i] - i for i in range(n)))


@model("queens-table", 6, 8)
def queens_table(n):
    q = VarArray(size=n, dom=range(n), id="q")
    satisfy(
        [(q[i], q[j]) in {(a, b) for a in range(n) for b in range(n) if a != b and abs(a - b) != j - i}
         for i in range(n) for j in range(i + 1, n)]
    )


@model("magic-square", 3, 4)
def magic_square(n):
    s = n * (n * n + 1) // 2
    x = VarArray(size=[n, n], dom=range(1, n * n + 1), id="x")
    satisfy(
        AllDifferent(x),
        [Sum(row) == s for row in x],
        [Sum(col) == s for col in columns(x)],
        Sum(diagonal_down(x)) == s,
        Sum(diagonal_up(x)) == s,
    )


@model("golomb", 4, 5, 6, 7, 8)
def golomb(n):
    ub = n * n
    x = VarArray(size=n, dom=range(ub + 1), id="x")
    satisfy(
        x[0] == 0,
        Increasing(x, strict=True),
        AllDifferent(abs(x[i] - x[j]) for i in range(n) for j in range(i + 1, n)),
    )
    minimize(x[-1])


@model("knapsack", 8, 12, 16, 20, 30)
def knapsack(n):
    rng = random.Random(n)
    w = [rng.randint(5, 30) for _ in range(n)]
    v = [rng.randint(5, 40) for _ in range(n)]
    x = VarArray(size=n, dom={0, 1}, id="x")
    satisfy(Sum(x[i] * w[i] for i in range(n)) <= sum(w) // 2)
    maximize(Sum(x[i] * v[i] for i in range(n)))


@model("coloring", 10, 16, 24, 32)
def coloring(n):
    rng = random.Random(n)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.35]
    c = VarArray(size=n, dom=range(n), id="c")
    satisfy([c[i] != c[j] for i, j in edges], c[0] == 0)
    minimize(Maximum(c))


@model("coloring-nvalues", 8, 12)
def coloring_nvalues(n):
    rng = random.Random(100 + n)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.4]
    c = VarArray(size=n, dom=range(n), id="c")
    satisfy([c[i] != c[j] for i, j in edges])
    minimize(NValues(c))


@model("sudoku", 4, 9)
def sudoku(n):
    b = int(n**0.5)
    rng = random.Random(n)
    # a valid grid, then some clues
    base = [[(b * (r % b) + r // b + c) % n + 1 for c in range(n)] for r in range(n)]
    clues = [[base[r][c] if rng.random() < 0.35 else 0 for c in range(n)] for r in range(n)]
    x = VarArray(size=[n, n], dom=range(1, n + 1), id="x")
    satisfy(
        AllDifferent(x, matrix=True),
        [AllDifferent(x[i:i + b, j:j + b]) for i in range(0, n, b) for j in range(0, n, b)],
        [x[r][c] == clues[r][c] for r in range(n) for c in range(n) if clues[r][c]],
    )


@model("jobshop", 3, 4, 5, 6)
def jobshop(n):
    rng = random.Random(n)
    m = n
    dur = [[rng.randint(1, 9) for _ in range(m)] for _ in range(n)]
    order = [rng.sample(range(m), m) for _ in range(n)]  # machine of each step
    horizon = sum(map(sum, dur))
    s = VarArray(size=[n, m], dom=range(horizon + 1), id="s")  # start of job j on machine k
    satisfy(
        [s[j][order[j][k]] + dur[j][order[j][k]] <= s[j][order[j][k + 1]] for j in range(n) for k in range(m - 1)],
        [NoOverlap(origins=[s[j][k] for j in range(n)], lengths=[dur[j][k] for j in range(n)]) for k in range(m)],
    )
    minimize(Maximum(s[j][order[j][-1]] + dur[j][order[j][-1]] for j in range(n)))


@model("openshop", 3, 4)
def openshop(n):
    rng = random.Random(10 + n)
    dur = [[rng.randint(1, 9) for _ in range(n)] for _ in range(n)]
    horizon = sum(map(sum, dur))
    s = VarArray(size=[n, n], dom=range(horizon + 1), id="s")
    satisfy(
        [NoOverlap(origins=s[j], lengths=dur[j]) for j in range(n)],
        [NoOverlap(origins=[s[j][k] for j in range(n)], lengths=[dur[j][k] for j in range(n)]) for k in range(n)],
    )
    minimize(Maximum(s[j][k] + dur[j][k] for j in range(n) for k in range(n)))


@model("warehouse", 4, 6, 8)
def warehouse(n):
    rng = random.Random(n)
    stores = 2 * n
    cap = [rng.randint(2, 5) for _ in range(n)]
    fixed = 20
    cost = cp_array([[rng.randint(1, 30) for _ in range(n)] for _ in range(stores)])
    w = VarArray(size=stores, dom=range(n), id="w")
    c = VarArray(size=stores, dom=range(31), id="c")
    o = VarArray(size=n, dom={0, 1}, id="o")
    satisfy(
        [Count(w, value=k) <= cap[k] for k in range(n)],
        [c[i] == cost[i][w[i]] for i in range(stores)],
        [o[w[i]] == 1 for i in range(stores)],
    )
    minimize(Sum(c) + fixed * Sum(o))


@model("rcpsp", 5, 8, 10, 14)
def rcpsp(n):
    rng = random.Random(n)
    dur = [rng.randint(1, 6) for _ in range(n)]
    req = [[rng.randint(0, 4) for _ in range(n)] for _ in range(2)]
    cap = [6, 5]
    succ = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.2]
    horizon = sum(dur)
    s = VarArray(size=n, dom=range(horizon + 1), id="s")
    satisfy(
        [s[i] + dur[i] <= s[j] for i, j in succ],
        [Cumulative(origins=s, lengths=dur, heights=req[r]) <= cap[r] for r in range(2)],
    )
    minimize(Maximum(s[i] + dur[i] for i in range(n)))


@model("tsp", 5, 7, 9, 11)
def tsp(n):
    rng = random.Random(n)
    pts = [(rng.randint(0, 20), rng.randint(0, 20)) for _ in range(n)]
    d = cp_array([[abs(a[0] - b[0]) + abs(a[1] - b[1]) for b in pts] for a in pts])
    x = VarArray(size=n, dom=lambda i: {j for j in range(n) if j != i}, id="x")
    e = VarArray(size=n, dom=range(41), id="e")
    satisfy(Circuit(x), [e[i] == d[i][x[i]] for i in range(n)])
    minimize(Sum(e))


@model("allinterval", 6, 8, 10)
def allinterval(n):
    x = VarArray(size=n, dom=range(n), id="x")
    y = VarArray(size=n - 1, dom=range(1, n), id="y")
    satisfy(
        AllDifferent(x),
        AllDifferent(y),
        [y[i] == abs(x[i + 1] - x[i]) for i in range(n - 1)],
        x[0] < x[1],
        y[0] < y[-1],
    )


@model("bibd", (6, 3, 2), (7, 3, 1), (8, 4, 3))
def bibd(params):
    v, k, lam = params
    b = lam * v * (v - 1) // (k * (k - 1))
    r = lam * (v - 1) // (k - 1)
    x = VarArray(size=[v, b], dom={0, 1}, id="x")
    satisfy(
        [Sum(row) == r for row in x],
        [Sum(col) == k for col in columns(x)],
        [Sum(x[i][t] * x[j][t] for t in range(b)) == lam for i in range(v) for j in range(i + 1, v)],
        LexDecreasing(x, matrix=True),
    )


@model("nonogram", 5, 7, 10)
def nonogram(n):
    rng = random.Random(n)
    pic = [[1 if rng.random() < 0.55 else 0 for _ in range(n)] for _ in range(n)]

    def clue(line):
        return [len(g) for g in "".join(map(str, line)).split("0") if g]

    def automaton(c):
        if not c:
            return Automaton(start="q0", final=["q0"], transitions=[("q0", 0, "q0")])
        trans, q = [], 0
        states = []
        for k, g in enumerate(c):
            trans.append((f"q{q}", 0, f"q{q}"))
            for _ in range(g):
                trans.append((f"q{q}", 1, f"q{q + 1}"))
                q += 1
            if k < len(c) - 1:
                trans.append((f"q{q}", 0, f"q{q + 1}"))
                q += 1
        trans.append((f"q{q}", 0, f"q{q}"))
        return Automaton(start="q0", final=[f"q{q}"], transitions=trans)

    x = VarArray(size=[n, n], dom={0, 1}, id="x")
    satisfy(
        [x[i] in automaton(clue(pic[i])) for i in range(n)],
        [columns(x)[j] in automaton(clue([pic[i][j] for i in range(n)])) for j in range(n)],
    )


@model("mdd-sum", 6, 10)
def mdd_sum(n):
    # an MDD accepting the 0/1/2 words of length n whose sum is n (built layer by layer)
    def viable(layer, total):  # the node can still reach the terminal
        return total <= n and n - total <= 2 * (n - layer)

    trans = []
    for layer in range(n):
        for total in range(2 * layer + 1):
            if not viable(layer, total):
                continue
            for v in (0, 1, 2):
                if layer == n - 1:
                    if total + v == n:
                        trans.append((f"n{layer}_{total}", v, "t"))
                elif viable(layer + 1, total + v):
                    trans.append((f"n{layer}_{total}", v, f"n{layer + 1}_{total + v}"))
    x = VarArray(size=n, dom={0, 1, 2}, id="x")
    satisfy(x in MDD(trans), Count(x, value=2) == n // 3, AllEqual(x[0], x[-1]))
    maximize(Sum(x[i] * i for i in range(n)))


@model("permutation-channel", 6, 9)
def permutation_channel(n):
    x = VarArray(size=n, dom=range(n), id="x")
    y = VarArray(size=n, dom=range(n), id="y")
    b = VarArray(size=n, dom={0, 1}, id="b")
    p = Var(dom=range(n), id="p")
    satisfy(
        Channel(x, y),
        Channel(b, p),
        [x[i] != i for i in range(n)],
        x[p] == 0,
        Minimum(y) == 0,
        Sum(x[i] * i for i in range(n)) >= n,
    )
    minimize(Sum(abs(x[i] - y[i]) for i in range(n)) + p)


@model("cardinality", 8, 12)
def cardinality(n):
    x = VarArray(size=n, dom=range(4), id="x")
    z = Var(dom=range(n + 1), id="z")
    y = Var(dom=range(1, n + 1), id="y")
    satisfy(
        Cardinality(x, occurrences={0: z, 3: y}),
        Cardinality(x, occurrences={1: range(1, 3), 2: range(n // 4, n // 4 + 2)}),
        AllDifferent(x[: n // 2], excepting=0),
        NValues(x) >= 3,
        Increasing(x[n // 2:]),
        Maximum(x) <= 3,
    )
    maximize(z)


@model("table-stars", 6, 9)
def table_stars(n):
    rng = random.Random(n)
    x = VarArray(size=n, dom=range(5), id="x")
    tab = [tuple(rng.choice([ANY, 0, 1, 2, 3, 4]) if k else rng.randint(0, 4) for k in range(3)) for _ in range(12)]
    bad = [(a, a) for a in range(5)]
    satisfy(
        [(x[i], x[(i + 1) % n], x[(i + 2) % n]) in tab for i in range(0, n, 2)],
        [(x[i], x[i + 1]) not in bad for i in range(n - 1)],
        x[0] in {1, 2, 3},
    )
    maximize(Sum(x))


@model("sports", 4, 6, 8)
def sports(n):
    # round robin: r[i][j] = round in which teams i and j meet; every team plays once per round
    r = VarArray(size=[n, n], dom=lambda i, j: range(n - 1) if i != j else None, id="r")
    satisfy(
        [r[i][j] == r[j][i] for i in range(n) for j in range(i + 1, n)],
        [AllDifferent(r[i][j] for j in range(n) if j != i) for i in range(n)],
        [r[0][j] == j - 1 for j in range(1, n)],
    )


@model("pigeons", 5, 7)
def pigeons(n):
    p = VarArray(size=n + 1, dom=range(n), id="p")
    satisfy(AllDifferent(p))


@model("misc-intension", 1, 2)
def misc_intension(k):
    x = VarArray(size=5, dom=range(-6, 7), id="x")
    y = VarArray(size=2, dom=range(10), id="y")  # ACE 2.6 refuses div and mod of a negative number
    satisfy(
        y[0] // 2 + y[1] % 3 == x[2] + 3,
        y[0] + y[1] == x[0] + 6,
        (x[3] > 0) | (x[4] < -2),
        If(x[0] > 2, Then=x[3] == x[4] * k),
        If(x[1] > 0, Then=x[2] >= 0, Else=x[2] <= 0),
        x[4] * x[4] + abs(x[3]) <= 20,
        (x[0] != 0) & (x[1] != 0),
        x[2] in {-1, 0, 1},
    )
    maximize(x[0] + 2 * x[1] - x[2] * k + x[3] - x[4])


@model("element-grid", 4, 6)
def element_grid(n):
    rng = random.Random(n)
    m = cp_array([[rng.randint(0, 9) for _ in range(n)] for _ in range(n)])
    i = Var(dom=range(n), id="i")
    j = Var(dom=range(n), id="j")
    v = Var(dom=range(10), id="v")
    x = VarArray(size=n, dom=range(10), id="x")
    satisfy(v == m[i][j], x[i] == v, i != j, Sum(x) == 2 * n, AllDifferent(x))
    maximize(v + i)


@model("spacing", 4, 5, 6)
def spacing(k):
    # k marks on 0..3k, all different, maximise the smallest gap between consecutive marks
    x = VarArray(size=k, dom=range(3 * k + 1), id="x")
    g = VarArray(size=k - 1, dom=range(3 * k + 1), id="g")
    satisfy(
        Increasing(x, strict=True),
        [g[i] == x[i + 1] - x[i] for i in range(k - 1)],
        AllDifferent(g),
    )
    maximize(Minimum(g))


# ---------------------------------------------------------------- building and solving


def ace_jar() -> str:
    import pycsp3

    return str(Path(pycsp3.__file__).parent / "solvers" / "ace" / "ACE-2.6.jar")


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_ace(path: Path, seconds: int = ACE_SECONDS) -> dict:
    """ACE's status, best objective and wall time on `path`."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(["java", "-jar", ace_jar(), str(path), f"-t={seconds}s"],
                              capture_output=True, text=True, timeout=seconds + 30)
        text = proc.stdout
    except subprocess.TimeoutExpired as err:
        text = err.stdout or ""
        if isinstance(text, bytes):
            text = text.decode()
    wall = time.perf_counter() - start
    status, optimum = "UNKNOWN", None
    for line in _ANSI.sub("", text).splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("o "):
            optimum = int(line[2:].split()[0])
    return {"status": status, "optimum": optimum if status == "OPTIMUM FOUND" else None, "ace_seconds": round(wall, 3)}


def constraint_tags(path: Path) -> list[str]:
    text = path.read_text()
    tags = set(re.findall(r"<(intension|extension|allDifferent|allEqual|sum|count|nValues|cardinality|element|channel|"
                          r"minimum|maximum|ordered|lex|regular|mdd|noOverlap|cumulative|circuit|instantiation|group|block|slide)\b", text))
    for kind in ("sum", "minimum", "maximum", "nValues", "expression"):
        if re.search(rf'<(minimize|maximize) type="{kind}"', text):
            tags.add(f"objective-{kind}")
    if re.search(r"<(minimize|maximize)>", text):
        tags.add("objective-expression")
    return sorted(tags)


def main(argv: list[str]) -> int:
    INSTANCES.mkdir(parents=True, exist_ok=True)
    expected = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
    prefixes = argv or [""]
    for name, (fn, sizes) in MODELS.items():
        if not any(name.startswith(p) for p in prefixes):
            continue
        for size in sizes:
            label = "-".join(map(str, size)) if isinstance(size, tuple) else str(size)
            inst = f"{name}-{label}"
            path = INSTANCES / f"{inst}.xml"
            clear()
            fn(size)
            compile(filename=str(path), verbose=-1)
            clear()
            result = run_ace(path)
            print(f"{inst:28} {result['status']:16} {result['optimum']!s:>6} {result['ace_seconds']:7.2f} s", flush=True)
            if result["status"] == "UNKNOWN":
                path.unlink()
                expected.pop(inst, None)
                continue
            result["constraints"] = constraint_tags(path)
            expected[inst] = result
            EXPECTED.write_text(json.dumps(dict(sorted(expected.items())), indent=1) + "\n")
    EXPECTED.write_text(json.dumps(dict(sorted(expected.items())), indent=1) + "\n")
    print(f"{len(expected)} instances in {EXPECTED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
