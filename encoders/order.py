"""Pipeline stage "encode": the order encoding of integer variables and linear comparisons.

An integer variable x with sorted domain values v₀ < v₁ < ... < vₙ₋₁ gets one
CNF variable ``p(x ≤ vₖ)`` for k < n-1 (none for the largest value, and a
domain with holes has none for the missing values), chained by the axioms
``p(x ≤ vₖ) → p(x ≤ vₖ₊₁)``. A 0/1 variable is therefore a single Boolean.

``Σ aᵢ·xᵢ ≤ c`` is encoded by the standard clauses over the boundary values
(Tamura et al., "Compiling finite linear CSP into SAT"): for every way of
letting the first terms take their low values, the last term must fit in
what is left. The term with the largest domain goes last, because its
literal is found by bisection instead of enumeration; a sum of m terms with
domains d₁..dₘ costs at most d₁·...·dₘ₋₁ clauses.

Variables marked *direct* (the compiler's choice, option ``int``) get the
direct (one-hot) encoding instead: one CNF variable ``p(x = vₖ)`` per value,
an at-least-one clause and an at-most-one (pairwise up to `DIRECT_PAIRWISE_MAX`
values, else `encoders.cardinality.at_most_one`).
Every method below answers for them too, so that no other encoder needs to
know: `equal`/`not_equal` are single literals, and `le` (for the rare direct
variable in a sum or an objective bound) is built on demand as a ladder
``p(x ≤ vₖ) ⇔ p(x ≤ vₖ₋₁) ∨ p(x = vₖ)`` of fully defined literals.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable, Sequence

from csp2sat.encoders.cardinality import at_most_one
from csp2sat.encoders.cnf import ClauseBuffer, Pool, numpy_module
from csp2sat.syntax import Domain


# `encode_le` hands its last two terms to numpy (one row per value) when `vectorise` is set (the
# compiler sets it for CNFs big enough to pay numpy's import) and the second-last has this many values.
VECTOR_MIN_VALUES = 32
# A direct variable of at most this many values gets a pairwise at-most-one, else the product encoding
# (the pentomino owners, 12 values: first 100 packings of 5x12 in 12.1 s of CPU against 20.7 s).
DIRECT_PAIRWISE_MAX = 16


class OrderEncoding:
    """Order-encoding variables of a list of integer domains, from one shared pool."""

    def __init__(self, domains: Sequence[Domain], pool: Pool, direct: "Sequence[bool] | None" = None,
                 out: "ClauseBuffer | None" = None) -> None:
        """`direct[i]`: variable i gets the direct encoding (then `out` receives the clauses `le` adds later)."""
        self.values: list[list[int]] = [list(d.values()) for d in domains]
        self.base: list[int] = []
        self.direct: list[bool] = [bool(x) and len(v) > 2 for x, v in zip(direct, self.values)] if direct else []
        for i, vals in enumerate(self.values):
            n = len(vals) if self.direct and self.direct[i] else len(vals) - 1
            self.base.append(pool.block(n) if len(vals) > 1 else 0)
        self._equal: dict[tuple[int, int], "int | bool"] = {}
        self._pool = pool
        self._out = out
        self._ladder: dict[int, list[int]] = {}  # direct var -> its p(x ≤ vₖ) literals built so far
        self._vec = None  # (numpy, values of the last two terms) while `encode_le` vectorises them
        self.vectorise = False

    @property
    def num_order_vars(self) -> int:
        """Number of CNF variables of the integer variables (order literals, or one per value when direct)."""
        return sum(len(v) if self.direct and self.direct[i] else max(len(v) - 1, 0) for i, v in enumerate(self.values))

    def is_direct(self, var: int) -> bool:
        """True when `var` has the direct encoding."""
        return bool(self.direct) and self.direct[var]

    def axioms(self, out: ClauseBuffer) -> None:
        """The clauses ``p(x ≤ vₖ) → p(x ≤ vₖ₊₁)`` of every variable (direct ones: exactly one value)."""
        lits = out.lits
        direct = self.direct
        for var, (vals, base) in enumerate(zip(self.values, self.base)):
            if direct and direct[var]:
                n = len(vals)
                out.add(range(base, base + n))
                at_most_one(range(base, base + n), [], self._pool, out, pairwise_max=DIRECT_PAIRWISE_MAX)
                continue
            for p in range(base, base + len(vals) - 2):
                lits.extend((-p, p + 1, 0))
            out.count += max(len(vals) - 2, 0)

    def le(self, var: int, bound: int) -> "int | bool":
        """The literal for ``var ≤ bound`` (True/False when the domain decides it)."""
        vals = self.values[var]
        k = bisect_right(vals, bound)
        if k == 0:
            return False
        if k == len(vals):
            return True
        if self.direct and self.direct[var]:
            return self._direct_le(var, k)
        return self.base[var] + k - 1

    def _direct_le(self, var: int, k: int) -> int:
        """``p(x ≤ v_{k-1})`` (1 ≤ k < n) of a direct variable, the ladder built up to k on demand."""
        base = self.base[var]
        n = len(self.values[var])
        if k == n - 1:
            return -(base + n - 1)  # x < the largest value
        ladder = self._ladder.setdefault(var, [base])  # ladder[j] = p(x ≤ v_j); p(x ≤ v_0) = p(x = v_0)
        out = self._out
        while len(ladder) < k:
            j = len(ladder)
            prev, eq, lit = ladder[-1], base + j, self._pool.new()
            # lit ⇔ prev ∨ eq
            out.lits.extend((-lit, prev, eq, 0, lit, -prev, 0, lit, -eq, 0))
            out.count += 3
            ladder.append(lit)
        return ladder[k - 1]

    def le_literals(self, var: int) -> "Sequence[int]":
        """``p(x ≤ vₖ)`` for every value but the largest (a direct variable's ladder is built whole)."""
        n = len(self.values[var])
        if self.direct and self.direct[var]:
            return [self._direct_le(var, k) for k in range(1, n)]
        return range(self.base[var], self.base[var] + n - 1)

    def index_range(self, var: int, coef: int, c: int) -> tuple[int, int]:
        """The value indices ``lo..hi-1`` of `var` that satisfy ``coef·var ≤ c`` (an empty range when none)."""
        vals = self.values[var]
        if coef > 0:
            return 0, bisect_right(vals, c // coef)
        return bisect_left(vals, -(c // -coef)), len(vals)

    def not_equal(self, var: int, value: int) -> "list[int] | None":
        """Literals whose disjunction says ``var ≠ value``; None when always true, [] when never."""
        vals = self.values[var]
        k = bisect_left(vals, value)
        if k == len(vals) or vals[k] != value:
            return None
        base = self.base[var]
        if self.direct and self.direct[var]:
            return [-(base + k)]
        lits = []
        if k > 0:
            lits.append(base + k - 1)  # x ≤ the previous value
        if k < len(vals) - 1:
            lits.append(-(base + k))  # x > value
        return lits

    def equal(self, var: int, value: int, pool: Pool, out: ClauseBuffer) -> "int | bool":
        """A literal equivalent to ``var = value`` (True/False when the domain decides it).

        The extreme values reuse an order literal; an inner value gets one
        variable defined by three clauses, made once per (var, value) and shared
        by every encoder that asks (alldifferent, cardinality over indicators).
        """
        key = (var, value)
        hit = self._equal.get(key)
        if hit is not None:
            return hit
        vals = self.values[var]
        k = bisect_left(vals, value)
        n = len(vals)
        base = self.base[var]
        lit: "int | bool"
        if k == n or vals[k] != value:
            lit = False
        elif n == 1:
            lit = True
        elif self.direct and self.direct[var]:
            lit = base + k
        elif k == 0:
            lit = base
        elif k == n - 1:
            lit = -(base + n - 2)
        else:
            lit = pool.new()
            le, lt = base + k, base + k - 1  # p(x ≤ value), p(x ≤ previous value)
            out.lits.extend((-lit, le, 0, -lit, -lt, 0, lit, -le, lt, 0))
            out.count += 3
        self._equal[key] = lit
        return lit

    def decode(self, var: int, true: Callable[[int], bool]) -> int:
        """The value of `var`: the smallest vₖ whose ``p(x ≤ vₖ)`` is true (`true(lit)` reads the model)."""
        vals = self.values[var]
        base = self.base[var]
        if self.direct and self.direct[var]:
            # Exactly one p(x = vₖ) is true in a model of the CNF (at-least-one, at-most-one).
            return next((v for k, v in enumerate(vals) if true(base + k)), vals[-1])
        lo, hi = 0, len(vals) - 1  # answer in [lo, hi]; p(x ≤ v_{n-1}) is implicitly true
        while lo < hi:
            mid = (lo + hi) // 2
            if true(base + mid):
                hi = mid
            else:
                lo = mid + 1
        return vals[lo]

    def _table(self, a: int, var: int) -> "tuple[Sequence[int], Sequence[int]]":
        """Values of ``a·var`` ascending, and for each k the literal ``a·var < ys[k]`` (k ≥ 1).

        Not cached: a cache of these per (coefficient, variable) cost more memory than
        the whole clause buffer (a list of Python ints per variable); the literals
        are a `range`, and for a = 1 the values are the domain's own list.
        """
        vals = self.values[var]
        base = self.base[var]
        n = len(vals)
        if self.direct and self.direct[var]:  # the ladder of order literals, built on demand
            les = [0] + [self._direct_le(var, k) for k in range(1, n)]  # les[k] = p(x ≤ v_{k-1})
            if a > 0:
                return (vals if a == 1 else [a * v for v in vals]), les
            return [a * v for v in reversed(vals)], [0] + [-les[n - k] for k in range(1, n)]
        if a > 0:
            ys = vals if a == 1 else [a * v for v in vals]
            lts = range(base - 1, base + n - 1)  # lts[k] = p(x ≤ v_{k-1}); lts[0] unused
        else:
            ys = [a * v for v in reversed(vals)]
            # ys[k] = a·v_{n-1-k}; a·x < ys[k] ⇔ x > v_{n-1-k} ⇔ ¬p(x ≤ v_{n-1-k}) = -(base + n-1-k).
            lts = range(-(base + n - 1), -(base - 1))
        return ys, lts

    def encode_le(self, coefs: Sequence[int], vars: Sequence[int], c: int, prefix: list[int], out: ClauseBuffer) -> None:
        """Clauses for ``prefix ∨ (Σ coefs[i]·vars[i] ≤ c)``."""
        terms = sorted(zip(coefs, vars), key=lambda t: len(self.values[t[1]]))
        tabs = [self._table(a, v) for a, v in terms]
        m = len(tabs)
        lbs = [0] * (m + 1)
        ubs = [0] * (m + 1)
        for i in range(m - 1, -1, -1):
            ys = tabs[i][0]
            lbs[i] = lbs[i + 1] + ys[0]
            ubs[i] = ubs[i + 1] + ys[-1]
        if ubs[0] <= c:
            return
        self._vec = None
        if self.vectorise and m >= 2 and len(tabs[-2][0]) >= VECTOR_MIN_VALUES \
                and isinstance(tabs[-2][1], range) and isinstance(tabs[-1][1], range):
            np = numpy_module()  # only here: a big CNF amortises its import (start-up of small files)
            self._vec = (np, np.asarray(tabs[-2][0], dtype=np.int64), np.asarray(tabs[-1][0], dtype=np.int64))
        try:
            self._rec(tabs, lbs, ubs, 0, c, prefix, out)
        finally:
            self._vec = None  # the encoder is pickled with the compiled problem (-j, Dask): no module left in it

    def _last_two(self, tabs, lbs, ubs, i, s, prefix, out) -> None:
        """`_rec` for the last two terms, with numpy: one clause per value of term i, as `_rec` writes them."""
        np, ys_np, ys1_np = self._vec
        ys, lts = tabs[i]
        lts1 = tabs[i + 1][1]
        rest_lb, rest_ub = lbs[i + 1], ubs[i + 1]
        n = len(ys)
        # s - ys[k] falls as k grows: rows k < first are skipped (the rest can never exceed s2),
        # rows first ≤ k < stop get "yᵢ < ys[k] ∨ y ≤ s − ys[k]", and row stop ends the loop.
        first = bisect_right(ys, s - rest_ub)
        stop = bisect_right(ys, s - rest_lb)
        lits = out.lits
        if first == 0 and stop > 0:
            lits.extend(prefix)
            lits.append(lts1[bisect_right(tabs[i + 1][0], s - ys[0])])
            lits.append(0)
            out.count += 1
            first = 1
        if stop > first:
            ks = np.arange(first, stop, dtype=np.int64)
            kk = np.searchsorted(ys1_np, s - ys_np[first:stop], side="right")
            width = len(prefix) + 3
            rows = np.empty((stop - first, width), dtype=np.int32)
            if prefix:
                rows[:, :width - 3] = prefix
            rows[:, width - 3] = lts.start + ks
            rows[:, width - 2] = lts1.start + kk
            rows[:, width - 1] = 0
            lits.frombytes(rows.tobytes())
            out.count += stop - first
        if stop < n:
            lits.extend(prefix)
            if stop:
                lits.append(lts[stop])
            lits.append(0)
            out.count += 1

    def _rec(self, tabs, lbs, ubs, i, s, prefix, out) -> None:
        # Invariant: the clause must hold Σ_{j ≥ i} yⱼ ≤ s unless a literal of `prefix` is true.
        lits = out.lits
        ys, lts = tabs[i]
        if self._vec is not None and i == len(tabs) - 2:
            self._last_two(tabs, lbs, ubs, i, s, prefix, out)
            return
        if i == len(tabs) - 1:
            k = bisect_right(ys, s)
            lits.extend(prefix)
            if k:
                lits.append(lts[k])
            lits.append(0)
            out.count += 1
            return
        rest_lb = lbs[i + 1]
        rest_ub = ubs[i + 1]
        for k in range(len(ys)):
            s2 = s - ys[k]
            if s2 >= rest_ub:
                continue
            here = prefix + [lts[k]] if k else prefix
            if s2 < rest_lb:
                # yᵢ ≥ ys[k] leaves no room: yᵢ < ys[k], which also covers every larger k.
                lits.extend(here)
                lits.append(0)
                out.count += 1
                return
            self._rec(tabs, lbs, ubs, i + 1, s2, here, out)
