"""Pipeline stage "encode": cardinality constraints ``at most k of these literals`` by a totalizer.

Counting constraints over 0/1 variables (``(<= (+ b1 ... bn) k)``, ``count``,
exactly-one over many cells) are what puzzle files are made of. Through the
general linear encoding they are split into a tree of small sums, each
order-encoded with O(d²) clauses; a totalizer (Bailleux & Boufkhad 2003)
counts in unary instead, truncated at k+1 (Büttner & Rintanen), so its size is
O(n·k) for small k and O(n log² n)-ish at worst, with arc consistency by unit
propagation.

Only the direction that a ``≤`` literal needs is written: ``count ≥ j → o_j``.
The literal ``¬o_{k+1}`` then implies ``count ≤ k`` and can be used anywhere in
a clause (normalised literals are always ``≤``, so its polarity is always
positive: a ``≥`` is an ``at most`` over the negated literals). The defining
clauses only force outputs up, so they are satisfiable whatever the inputs
are and need no selector. Totalizers over the same literals are shared.

An at-most-one count is written over the groups of its inputs that the clauses already make
pairwise exclusive (`grouped_at_most_one`, `-O amo=auto`), else by the product encoding.
"""

from __future__ import annotations

import math
from itertools import chain, repeat
from typing import Sequence

from csp2sat.encoders.cnf import ClauseBuffer, Pool

METHODS = ("auto", "totalizer", "order")
# `-O amo=`: an at-most-one count over inputs that the clauses already make exclusive in groups is
# written over the groups (`auto`), or always by the product encoding (`product`).
AMO_METHODS = ("auto", "product")
# At-most-one over at most this many literals is written pairwise.
AMO_PAIRWISE_MAX = 6
# Reading the two-literal clauses costs a pass over the buffer and ~55 bytes per clause: beyond this
# many the groups are not looked for (an at-most-one is then written by the product encoding), nor
# after this many at-most-ones in a row without a group (say, 8 groups a week, product-encoded: no
# two-literal clause makes two groups exclusive; the index would only cost time and memory).
MAX_INDEXED_BINARIES = 500_000
MAX_FRUITLESS = 32
# Looking for groups costs O(n²) pair tests: longer at-most-ones are written by the product encoding.
MAX_GROUPED_AMO = 400


def at_most_one(
    lits: Sequence[int], prefix: list[int], pool: Pool, out: ClauseBuffer, pairwise_max: int = AMO_PAIRWISE_MAX
) -> None:
    """``prefix ∨ AMO(lits)``: pairwise for at most `pairwise_max` literals, else the product encoding.

    Product encoding (Chen 2010): the literals are laid out on a p×q grid; a
    true literal forces its row variable and its column variable, and at most
    one row and at most one column may be true (recursively). Unit propagation
    keeps it arc-consistent, with about 2k + 4√k clauses.
    """
    n = len(lits)
    if n <= pairwise_max:
        for i in range(n):
            for j in range(i + 1, n):
                out.add(prefix + [-lits[i], -lits[j]])
        return
    p = math.isqrt(n - 1) + 1
    q = -(-n // p)
    p = -(-n // q)
    rows = pool.block(p)
    cols = pool.block(q)
    flat = out.lits
    if prefix:
        for k, lit in enumerate(lits):
            r, c = divmod(k, q)
            flat.extend(prefix)
            flat.extend((-lit, rows + r, 0))
            flat.extend(prefix)
            flat.extend((-lit, cols + c, 0))
    else:  # the common case, written in one pass in C: literal k's row is k // q, its column k % q
        negated = [-lit for lit in lits]
        row_of = chain.from_iterable(repeat(rows + r, q) for r in range(p))
        col_of = chain.from_iterable(repeat(range(cols, cols + q), p))
        zeros = repeat(0)
        flat.extend(chain.from_iterable(zip(negated, row_of, zeros, negated, col_of, zeros)))
    out.count += 2 * n
    at_most_one(range(rows, rows + p), prefix, pool, out)
    at_most_one(range(cols, cols + q), prefix, pool, out)


class BinaryClauses:
    """The two-literal clauses written to a buffer so far, as implications ``u → v``, read incrementally.

    Only what the buffer holds when asked is read: each call of `update` reads the clauses added
    since the last one.
    """

    __slots__ = ("out", "pos", "implied", "count", "fruitless")

    def __init__(self, out: ClauseBuffer) -> None:
        self.out = out
        self.pos = 0
        self.implied: dict[int, list[int]] = {}
        self.count = 0
        self.fruitless = 0  # at-most-ones in a row in which no group was found

    def update(self) -> bool:
        """Read the clauses added since the last call; False once there are too many to index
        (or too many at-most-ones in a row had no group)."""
        if self.fruitless >= MAX_FRUITLESS:
            self.implied.clear()
            return False
        lits = self.out.lits
        end = len(lits)
        i = self.pos
        implied = self.implied
        index = lits.index
        while i < end and self.count <= MAX_INDEXED_BINARIES:
            j = index(0, i)
            if j == i + 2:
                u, v = lits[i], lits[i + 1]
                implied.setdefault(-u, []).append(v)
                implied.setdefault(-v, []).append(u)
                self.count += 1
            i = j + 1
        self.pos = i
        return self.count <= MAX_INDEXED_BINARIES

    def exclusive_groups(self, lits: Sequence[int]) -> list[list[int]]:
        """`lits` split into groups (in their order) whose members the binary clauses make pairwise exclusive.

        Two inputs a, b are exclusive when a → s and b → t (s = a and t = b included) for some
        binary clause ``¬s ∨ ¬t``: one step of unit propagation from either rules the other out
        (symmetric: the clause is read both ways). Greedy: each input joins the first group all of
        whose members it excludes.
        """
        implied = self.implied
        consequences = [[a] + implied.get(a, []) for a in lits]
        owners: dict[int, list[int]] = {}  # literal -> the inputs that make it true
        for j, cons in enumerate(consequences):
            for t in cons:
                owners.setdefault(t, []).append(j)
        excludes: list[set[int]] = []
        for cons in consequences:
            found: set[int] = set()
            for s in cons:
                for u in implied.get(s, ()):
                    hit = owners.get(-u)
                    if hit:
                        found.update(hit)
            excludes.append(found)
        if not any(excludes):
            return [[a] for a in lits]
        groups: list[list[int]] = []
        for i, found in enumerate(excludes):
            if found:
                for group in groups:
                    if found.issuperset(group):
                        group.append(i)
                        break
                else:
                    groups.append([i])
            else:
                groups.append([i])
        return [[lits[i] for i in group] for group in groups]


def grouped_at_most_one(lits: Sequence[int], pool: Pool, out: ClauseBuffer, binaries: BinaryClauses) -> None:
    """``AMO(lits)`` over the groups of inputs that the clauses already make exclusive.

    Each group of two or more inputs gets a literal ``c ⇔ (a₁ ∨ … ∨ aₖ)`` (the "commander"), and
    at most one of the groups' literals may be true: n + k clauses where the product encoding
    takes 2n + O(√n). (Social golfers: "p and q meet in week t" for the 30 meetings of a pair,
    the weeks being exclusive already; search 5–100x fewer conflicts than the product encoding,
    which also lays its grid across the weeks: docs/performance.md.) The definition's
    ``c → a₁ ∨ … ∨ aₖ`` half is not needed for the at-most-one but is what makes the search fast.
    """
    if len(lits) <= AMO_PAIRWISE_MAX or len(lits) > MAX_GROUPED_AMO or not binaries.update():
        at_most_one(lits, [], pool, out)
        return
    groups = binaries.exclusive_groups(lits)
    if len(groups) == len(lits):  # nothing exclusive already
        binaries.fruitless += 1
        at_most_one(lits, [], pool, out)
        return
    binaries.fruitless = 0
    heads = []
    for group in groups:
        if len(group) == 1:
            heads.append(group[0])
            continue
        c = pool.new()
        for a in group:
            out.add((-a, c))
        out.add([-c] + group)
        heads.append(c)
    if len(heads) > 1:
        at_most_one(heads, [], pool, out)


class Totalizers:
    """Builds (and shares) truncated totalizers over literal lists, in one pool and buffer."""

    __slots__ = ("pool", "out", "_cache", "_binaries")

    def __init__(self, pool: Pool, out: ClauseBuffer, amo: str = "auto") -> None:
        self.pool = pool
        self.out = out
        # sorted literals -> unary outputs (outputs[j] ⇐ "at least j+1 inputs are true")
        self._cache: dict[tuple[int, ...], list[int]] = {}
        # The two-literal clauses so far, read when an at-most-one may be written over groups (`-O amo=auto`).
        self._binaries = BinaryClauses(out) if amo == "auto" else None

    def add_at_most(self, lits: Sequence[int], k: int, prefix: list[int]) -> None:
        """Clauses for ``prefix ∨ at most k of lits`` (no output literal needed: smaller for k ≤ 1)."""
        out = self.out
        if k >= len(lits):
            return
        if k < 0:
            out.add(prefix)
        elif k == 0:
            for x in lits:
                out.add(prefix + [-x])
        elif k == 1:
            if prefix or self._binaries is None:
                at_most_one(lits, prefix, self.pool, out)
            else:
                grouped_at_most_one(lits, self.pool, out, self._binaries)
        else:
            out.add(prefix + [self.at_most(lits, k)])

    def at_most(self, lits: Sequence[int], k: int) -> "int | bool":
        """A literal that implies ``at most k of lits are true`` (True/False when decided).

        Small k: an "up" totalizer over lits truncated at k+1, literal ¬o_{k+1}.
        Large k: "at least n-k of the negations", a "down" totalizer truncated
        at n-k, literal u_{n-k}; either way the size grows with min(k, n-k).
        """
        n = len(lits)
        if k >= n:
            return True
        if k < 0:
            return False
        if k == 0:
            # One output "some input is true" is all that is needed.
            o = self.pool.new()
            for x in lits:
                self.out.lits.extend((-x, o, 0))
            self.out.count += n
            return -o
        if k + 1 <= n - k:
            return -self._outputs(lits, k + 1, True)[k]
        return self._outputs([-x for x in lits], n - k, False)[n - k - 1]

    def _outputs(self, lits: Sequence[int], m: int, up: bool) -> list[int]:
        key = (up,) + tuple(sorted(lits))
        outputs = self._cache.get(key)
        if outputs is None or len(outputs) < min(m, len(lits)):
            outputs = self._build(sorted(lits), m, up)
            self._cache[key] = outputs
        return outputs

    def _build(self, lits: list[int], m: int, up: bool) -> list[int]:
        """Unary outputs o_1..o_min(n, m) of the count of `lits`.

        up: ``at least j inputs true → o_j`` (counts above m forced into o_m);
        down: ``o_j → at least j inputs true``.
        """
        if len(lits) == 1:
            return lits
        half = len(lits) // 2
        a = self._build(lits[:half], m, up)
        b = self._build(lits[half:], m, up)
        size = min(len(a) + len(b), m)
        first = self.pool.block(size)
        flat = self.out.lits
        count = 0
        if up:
            for i, x in enumerate(a):
                flat.extend((-x, first + i, 0))
            for j, y in enumerate(b):
                flat.extend((-y, first + j, 0))
            count += len(a) + len(b)
            for i, x in enumerate(a):
                # Pairs beyond the truncation are implied: a larger count also forces the lower outputs.
                for j in range(min(len(b), size - 1 - i)):
                    flat.extend((-x, -b[j], first + i + j + 1, 0))
                    count += 1
        else:
            # o_{i+j+1} needs a_{i+1} or b_{j+1}: fewer than i+1 in a and fewer than j+1 in b leave at most i+j.
            for i in range(min(len(a), size - 1) + 1):
                for j in range(min(len(b), size - 1 - i) + 1):
                    if i + j + 1 > size:
                        break
                    if i < len(a):
                        flat.append(a[i])
                    if j < len(b):
                        flat.append(b[j])
                    flat.extend((-(first + i + j), 0))
                    count += 1
        self.out.count += count
        return list(range(first, first + size))
