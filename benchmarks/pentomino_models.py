"""Benchmark of CNF models of the pentomino box packing: csp2sat's CNF against exact-cover models.

Why: the one-answer search on the pentomino boxes is most of a `csp2sat puzzle` run, and CDCL
luck makes one run per box say little (the same box varies 10x). This script builds, for every
box, csp2sat's own CNF (`pipeline`: the generated .csp compiled; `pipeline-one`: with the box's
symmetry broken, as `csp2sat puzzle` compiles it for one answer) and
CNFs written directly with literals (the exact-cover models below), then solves each several
times with its variables renumbered and its clauses shuffled at random (seed 0: as built), and
prints conflicts and CPU seconds per box and the geometric mean, median and 90th percentile over
all boxes and seeds.

Exact-cover models, named PIECE/CELL/OWNER:
  one literal q per placement (piece k at placement j, i.e. p_k = j); at least one per piece;
  PIECE: the piece's at-most-one: `ladder` (order literals p_k <= j chained, q_j <=> p_k <= j and
         not p_k <= j-1: the order encoding with fully defined equality literals), `seq`
         (sequential counter), `product`, `pairwise`;
  CELL:  `owner`: a literal o(cell, k) per piece that can cover the cell, q -> o for each cell of
         the placement, o -> (one of the placements of k covering the cell) as one clause, and at
         least one owner per cell; `owner-order`: the same but "p_k is one of those placements"
         written with the order literals (needs PIECE=ladder), as csp2sat's encoding of the
         generated `(iff (= _c_R_C k) (intervals of p_k))` does;
  OWNER: the owners' at-most-one: `pairwise`, `product`, `ladder`, `pairwise+ladder`.

usage: .venv/bin/python benchmarks/pentomino_models.py [MODEL ...] [--seeds N] [--solver NAME] [--boxes NAME,...]
       e.g. pipeline ladder/owner/pairwise ladder/owner-order/pairwise --seeds 4
            pipeline pipeline-one --seeds 4
            pipeline-one@int=order pipeline-one@int=direct --seeds 4   (encoding options after '@')
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pysat.solvers import Solver  # noqa: E402

from csp2sat.checker import check  # noqa: E402
from csp2sat.compiler import compile_model  # noqa: E402
from csp2sat.generators import pentomino  # noqa: E402
from csp2sat.parser import parse_text  # noqa: E402

Clauses = list[list[int]]


def _rect(rows: int, cols: int, holes: set[tuple[int, int]] = frozenset()) -> str:
    return "".join("".join("#" if (r, c) in holes else "." for c in range(cols)) + "\n" for r in range(rows))


def boxes() -> dict[str, str]:
    """The five boxes of data/pentomino, their transposes and seven boxes with holes (all 60 cells)."""
    found = {}
    for rows, cols in [(3, 20), (4, 15), (5, 12), (6, 10)]:
        found[f"{rows}x{cols}"] = _rect(rows, cols)
        found[f"{cols}x{rows}"] = _rect(cols, rows)
    found["8x8 centre 2x2"] = _rect(8, 8, {(3, 3), (3, 4), (4, 3), (4, 4)})
    found["8x8 corner 2x2"] = _rect(8, 8, {(0, 0), (0, 1), (1, 0), (1, 1)})
    found["8x8 four holes"] = _rect(8, 8, {(2, 2), (2, 5), (5, 2), (5, 5)})
    found["8x8 diagonal holes"] = _rect(8, 8, {(0, 0), (2, 2), (5, 5), (7, 7)})
    found["8x8 off-centre 2x2"] = _rect(8, 8, {(2, 3), (2, 4), (3, 3), (3, 4)})
    found["7x9 3 holes"] = _rect(7, 9, {(0, 0), (3, 4), (6, 8)})
    found["9x7 3 holes"] = _rect(9, 7, {(0, 6), (4, 3), (8, 0)})
    found["5x10 + 2x5 foot"] = _rect(7, 10, {(r, c) for r in (5, 6) for c in range(5, 10)})
    return found


class _Pool:
    def __init__(self) -> None:
        self.top = 0

    def new(self) -> int:
        self.top += 1
        return self.top


def _at_most_one(out: Clauses, pool: _Pool, lits: list[int], kind: str) -> None:
    n = len(lits)
    if n <= 1:
        return
    if kind == "pairwise" or n <= 5:
        out.extend([-lits[i], -lits[j]] for i in range(n) for j in range(i + 1, n))
    elif kind == "product":
        rows = math.isqrt(n - 1) + 1
        cols = -(-n // rows)
        rv = [pool.new() for _ in range(rows)]
        cv = [pool.new() for _ in range(cols)]
        for i, x in enumerate(lits):
            out.append([-x, rv[i // cols]])
            out.append([-x, cv[i % cols]])
        _at_most_one(out, pool, rv, "product")
        _at_most_one(out, pool, cv, "product")
    elif kind == "seq":
        s = [pool.new() for _ in range(n - 1)]
        for i in range(n - 1):
            out.append([-lits[i], s[i]])
            if i:
                out.append([-s[i - 1], s[i]])
                out.append([-lits[i], -s[i - 1]])
        out.append([-lits[n - 1], -s[n - 2]])
    elif kind == "ladder":
        _ladder(out, pool, lits)
    elif kind == "pairwise+ladder":
        _ladder(out, pool, lits)
        _at_most_one(out, pool, lits, "pairwise")
    else:
        raise SystemExit(f"unknown at-most-one {kind!r}")


def _ladder(out: Clauses, pool: _Pool, q: list[int]) -> list[int]:
    """Order literals le[j] = (p <= j+1) over equality literals q[j] = (p = j+1); returns le."""
    n = len(q)
    le = [pool.new() for _ in range(n - 1)]
    out.extend([-le[j], le[j + 1]] for j in range(n - 2))
    for j in range(n):
        upper = le[j] if j < n - 1 else None  # p <= j+1
        lower = le[j - 1] if j > 0 else None  # p <= j
        if upper:
            out.append([-q[j], upper])
        if lower:
            out.append([-q[j], -lower])
        out.append([q[j]] + ([-upper] if upper else []) + ([lower] if lower else []))
    return le


def exact_cover(box: pentomino.Box, piece: str, cell: str, owner: str) -> tuple[int, Clauses]:
    """(number of variables, clauses) of one exact-cover model (see the module docstring)."""
    pool, out = _Pool(), []
    placement_of: dict[int, int] = {}  # q -> its 1-based placement number
    ladders: dict[int, list[int]] = {}
    covering: dict[tuple[int, int], dict[int, list[int]]] = {c: {} for c in box.cells}
    qs: dict[int, list[int]] = {}
    for ch in box.choosers:
        q = [pool.new() for _ in ch.options]
        qs[ch.ident] = q
        out.append(list(q))
        if piece == "ladder":
            ladders[ch.ident] = _ladder(out, pool, q)
        else:
            _at_most_one(out, pool, q, piece)
        for j, option in enumerate(ch.options):
            placement_of[q[j]] = j + 1
            for c in option:
                covering[c].setdefault(ch.ident, []).append(q[j])
    if cell == "owner-order" and piece != "ladder":
        raise SystemExit("CELL=owner-order needs PIECE=ladder (the order literals)")
    for c in box.cells:
        owners = []
        for k, q in covering[c].items():
            o = pool.new()
            owners.append(o)
            out.extend([-x, o] for x in q)
            if cell == "owner":
                out.append([-o] + q)
            elif cell == "owner-order":
                out.extend(_member_by_order(o, [placement_of[x] for x in q], ladders[k], len(qs[k])))
            else:
                raise SystemExit(f"unknown cell model {cell!r}")
        out.append(owners)
        _at_most_one(out, pool, owners, owner)
    return pool.top, out


def _member_by_order(o: int, numbers: list[int], le: list[int], n: int) -> Clauses:
    """``o -> p ∈ numbers`` by order literals: p within the outer bounds, and outside no gap."""
    spans: list[list[int]] = []
    for v in sorted(numbers):
        if spans and spans[-1][1] == v - 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])

    def at_most(v: int) -> "int | bool":  # the literal p <= v
        return True if v >= n else False if v <= 0 else le[v - 1]

    clauses = []
    for lits in [[(at_most(spans[-1][1]), True)], [(at_most(spans[0][0] - 1), False)]] + \
            [[(at_most(a[1]), True), (at_most(b[0] - 1), False)] for a, b in zip(spans, spans[1:])]:
        clause = [-o]
        for lit, positive in lits:
            if isinstance(lit, bool):
                if lit == positive:
                    break
                continue
            clause.append(lit if positive else -lit)
        else:
            clauses.append(clause)
    return clauses


def pipeline(box: pentomino.Box, one_answer: bool = False, options: "dict[str, str] | None" = None) -> tuple[int, Clauses]:
    """csp2sat's CNF of the generated .csp (`pipeline`), or of the text with the box's symmetry broken
    that `csp2sat puzzle` compiles for one answer (`pipeline-one`: `pentomino.generate_one`);
    `options`: encoding choices (`-O`), from a model named e.g. ``pipeline-one@int=direct``."""
    text = pentomino.generate_one(box) if one_answer else pentomino.generate(box)
    compiled = compile_model(check(parse_text(text)), options=options)
    return compiled.num_vars, [list(c) for c in compiled.clauses()]


def solve(num_vars: int, clauses: Clauses, seed: int, solver: str) -> tuple[int, float]:
    """(conflicts, CPU seconds) to the first answer; seed > 0 renumbers variables and shuffles clauses."""
    if seed:
        rnd = random.Random(seed)
        perm = list(range(1, num_vars + 1))
        rnd.shuffle(perm)
        clauses = [[perm[abs(x) - 1] if x > 0 else -perm[abs(x) - 1] for x in c] for c in clauses]
        rnd.shuffle(clauses)
    with Solver(name=solver, bootstrap_with=clauses) as sat:
        start = time.process_time()
        found = sat.solve()
        spent = time.process_time() - start
        conflicts = sat.accum_stats().get("conflicts", 0)
    if not found:
        raise SystemExit("a box without a packing: a bug in the model")
    return conflicts, spent


def main() -> int:
    """Run the models named on the command line over the boxes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=["pipeline", "ladder/owner/pairwise"])
    parser.add_argument("--seeds", type=int, default=4, help="shuffled runs per box (0: the CNF as built, once)")
    parser.add_argument("--solver", default="cadical195")
    parser.add_argument("--boxes", help="comma-separated box names (default: all)")
    args = parser.parse_args()
    chosen = boxes()
    if args.boxes:
        chosen = {name: chosen[name] for name in args.boxes.split(",")}
    seeds = list(range(1, args.seeds + 1)) or [0]
    runs: dict[str, list[tuple[int, float]]] = {m: [] for m in args.models}
    print(f"{'box':20s}" + "".join(f" | {m:>24s} clauses conflicts    cpu" for m in args.models))
    for name, text in chosen.items():
        box = pentomino.read(text)
        line = f"{name:20s}"
        for model in args.models:
            base, *opts = model.split("@")
            if base in ("pipeline", "pipeline-one"):
                options = dict(opt.split("=", 1) for opt in opts)
                nv, clauses = pipeline(box, one_answer=base == "pipeline-one", options=options)
            else:
                nv, clauses = exact_cover(box, *model.split("/"))
            here = [solve(nv, clauses, seed, args.solver) for seed in seeds]
            runs[model].extend(here)
            line += f" | {'':>24s} {len(clauses):7d} {sum(c for c, _ in here):9d} {sum(t for _, t in here):6.2f}"
        print(line, flush=True)
    print(f"\n{len(chosen)} boxes x {len(seeds)} seeds, {args.solver}")
    for model, found in runs.items():
        conflicts = [c for c, _ in found]
        cpu = [t for _, t in found]
        geo_c = math.exp(statistics.fmean(math.log(c + 1) for c in conflicts))
        geo_t = math.exp(statistics.fmean(math.log(t + 1e-4) for t in cpu))
        p90 = sorted(conflicts)[int(0.9 * len(conflicts))]
        print(f"{model:28s} conflicts: geometric mean {geo_c:8.0f}, median {statistics.median(conflicts):8.0f}, "
              f"90th percentile {p90:8d}, sum {sum(conflicts):9d}; CPU: geometric mean {geo_t:.3f} s, sum {sum(cpu):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
