"""Pipeline stage "encode": the log (binary) encoding of integer variables with huge domains.

The order encoding needs one CNF variable per domain value, and a linear
literal over two such variables one clause per value: hopeless for
``(int x 0 1000000)``. Here a variable with domain lb..ub is
``x = lb + Σ 2ʲ·bⱼ`` over ⌈log₂(ub-lb+1)⌉ bits, and values outside the domain
(above ub, or in holes) are excluded by clauses on aligned blocks of values.

A linear literal ``Σ aᵢ·xᵢ ≤ c`` that involves a log variable becomes a
pseudo-Boolean sum ``Σ wₖ·ℓₖ ≤ K`` with positive weights (log variables give
their bits, order-encoded variables their order literals, negative
coefficients flip literals), which is added up in binary: the bits of every
weight go to their column, columns are reduced by full and half adders
(carry-save), and the final binary number is compared with K. Every gate is
defined by full equivalence, so the resulting literal is *equivalent* to the
comparison and may be used in either polarity (objective bounds, assumptions).
"""

from __future__ import annotations

from typing import Callable, Container, Sequence

from csp2sat.encoders.cnf import ClauseBuffer, Pool

# A variable whose values other clauses keep within its domain (`LogEncoding`'s `defined`) still gets its holes
# cut when it has at most this many intervals: a few clauses, which help propagation.
HOLES_CUT_ALWAYS = 16

# Lit: a CNF literal, or True/False for a constant.
Lit = "int | bool"


class Gates:
    """Boolean gates over literals and constants, each output defined by full equivalence.

    Gates are hashed by their inputs (an AND or XOR of the same two literals is built once): every
    output is defined by full equivalence in the one clause buffer, so any later gate may reuse it.
    Comparisons of one variable with many constants (a table over a log variable: ``x ≤ u - 1 ∨
    x ≥ u + 1`` for each of its values u) then share the chains of the constants' common low bits.
    """

    __slots__ = ("pool", "out", "_built")

    def __init__(self, pool: Pool, out: ClauseBuffer) -> None:
        self.pool = pool
        self.out = out
        self._built: dict[int, int] = {}  # `_gate_key` -> output

    def _clauses(self, *clauses: tuple[int, ...]) -> None:
        flat = self.out.lits
        for clause in clauses:
            flat.extend(clause)
            flat.append(0)
        self.out.count += len(clauses)

    def and_(self, a: Lit, b: Lit) -> Lit:
        """a ∧ b."""
        if a is False or b is False:
            return False
        if a is True:
            return b
        if b is True or a == b:
            return a
        if a == -b:
            return False
        key = _gate_key(0, a, b)
        z = self._built.get(key)
        if z is None:
            z = self._built[key] = self.pool.new()
            self._clauses((-z, a), (-z, b), (z, -a, -b))
        return z

    def or_(self, a: Lit, b: Lit) -> Lit:
        """a ∨ b."""
        return _neg(self.and_(_neg(a), _neg(b)))

    def xor(self, a: Lit, b: Lit) -> Lit:
        """a ⊕ b."""
        if isinstance(a, bool):
            return _neg(b) if a else b
        if isinstance(b, bool):
            return _neg(a) if b else a
        if a == b:
            return False
        if a == -b:
            return True
        flip = (a < 0) != (b < 0)  # ¬a ⊕ b = ¬(a ⊕ b): one gate over the variables serves every sign
        a, b = abs(a), abs(b)
        key = _gate_key(1, a, b)
        z = self._built.get(key)
        if z is None:
            z = self._built[key] = self.pool.new()
            self._clauses((-z, a, b), (-z, -a, -b), (z, -a, b), (z, a, -b))
        return -z if flip else z

    def full_adder(self, a: Lit, b: Lit, c: Lit) -> tuple[Lit, Lit]:
        """(sum, carry) of three bits."""
        if any(isinstance(x, bool) for x in (a, b, c)):
            consts = [x for x in (a, b, c) if isinstance(x, bool)]
            rest = [x for x in (a, b, c) if not isinstance(x, bool)]
            ones = sum(consts)
            if len(rest) == 2:
                s, k = self.xor(rest[0], rest[1]), self.and_(rest[0], rest[1])
                return (_neg(s), self.or_(rest[0], rest[1])) if ones else (s, k)
            if len(rest) == 1:
                x = rest[0]
                return [(x, False), (_neg(x), x), (x, True)][ones]
            return ones % 2 == 1, ones >= 2
        s, k = self.pool.new(), self.pool.new()
        self._clauses(
            (-s, a, b, c), (-s, a, -b, -c), (-s, -a, b, -c), (-s, -a, -b, c),
            (s, -a, -b, -c), (s, -a, b, c), (s, a, -b, c), (s, a, b, -c),
            (-k, a, b), (-k, a, c), (-k, b, c), (k, -a, -b), (k, -a, -c), (k, -b, -c),
        )
        return s, k

    def sum_bits(self, terms: Sequence[tuple[int, int]]) -> list[Lit]:
        """Binary digits (least significant first) of ``Σ w·ℓ`` for (w > 0, literal) terms."""
        columns: list[list[Lit]] = []
        for w, lit in terms:
            j = 0
            while w:
                if w & 1:
                    while len(columns) <= j:
                        columns.append([])
                    columns[j].append(lit)
                w >>= 1
                j += 1
        digits: list[Lit] = []
        j = 0
        while j < len(columns):
            col = columns[j]
            while len(col) > 1:
                if len(col) == 2:
                    a, b = col.pop(), col.pop()
                    s, k = self.xor(a, b), self.and_(a, b)
                else:
                    a, b, c = col.pop(), col.pop(), col.pop()
                    s, k = self.full_adder(a, b, c)
                col.insert(0, s)  # the sum goes back (first, so that fresh inputs are combined first)
                if k is not False:
                    if len(columns) <= j + 1:
                        columns.append([])
                    columns[j + 1].append(k)
                if s is False:
                    col.pop(0)
            digits.append(col[0] if col else False)
            j += 1
        return digits

    def at_most(self, digits: Sequence[Lit], k: int) -> Lit:
        """The literal ⇔ (binary number `digits`, least significant first) ≤ k."""
        if k < 0:
            return False
        if k >> len(digits):
            return True
        le: Lit = True  # the digits below position i are ≤ k's digits below i
        for i, d in enumerate(digits):
            if (k >> i) & 1:
                le = self.or_(_neg(d), le)
            else:
                le = self.and_(_neg(d), le)
        return le


def _gate_key(kind: int, a: int, b: int) -> int:
    """One int for (kind, {a, b}): a dict of ints holds millions of gates in a fraction of the memory of tuples."""
    ua, ub = 2 * a if a > 0 else -2 * a + 1, 2 * b if b > 0 else -2 * b + 1
    if ua > ub:
        ua, ub = ub, ua
    return ((ua << 34) | ub) << 1 | kind


def _neg(x: Lit) -> Lit:
    return (not x) if isinstance(x, bool) else -x


def _exclude_outside(bits: list[int], intervals: Sequence[tuple[int, int]], lb: int, out: ClauseBuffer) -> None:
    """Clauses that leave the bits (value ``lb + Σ 2ʲ·bⱼ``) only the values of `intervals`.

    What the bits can express beyond the domain (above ub, and every hole) is cut into
    aligned blocks ``[a, a + 2ˢ - 1]``, each excluded by one clause on the bits above s:
    at most two blocks per bit and per hole, and no auxiliary variable. When every value
    shares its lowest bits (a domain of even numbers, or of multiples of 8 plus 3), those
    bits are fixed by unit clauses and the holes between the values disappear.
    """
    import math

    offsets = [(lo - lb, hi - lb) for lo, hi in intervals]
    shift = 0
    if all(lo == hi for lo, hi in offsets) and len(offsets) > 1:
        stride = math.gcd(*[lo - offsets[0][0] for lo, _ in offsets])
        shift = min((stride & -stride).bit_length() - 1, len(bits) - 1)
    if shift:
        first = offsets[0][0]
        for j in range(shift):
            out.add([bits[j] if (first >> j) & 1 else -bits[j]])
        high = bits[shift:]
        offsets = [(lo >> shift, lo >> shift) for lo, _ in offsets]
    else:
        high = bits
    excluded = [(hi + 1, lo - 1) for (_, hi), (lo, _) in zip(offsets, offsets[1:]) if hi + 1 <= lo - 1]
    excluded.append((offsets[-1][1] + 1, (1 << len(high)) - 1))
    width = len(high)
    for a, b in excluded:
        while a <= b:
            size = (a & -a).bit_length() - 1 if a else width  # the largest block aligned at a ...
            while a + (1 << size) - 1 > b:  # ... that ends within b
                size -= 1
            out.add([-high[j] if (a >> j) & 1 else high[j] for j in range(size, width)])
            a += 1 << size


class LogEncoding:
    """Bits of the log-encoded variables (others keep the order encoding)."""

    def __init__(self, domains: Sequence, is_log: Sequence[bool], pool: Pool, out: ClauseBuffer,
                 defined: Container[int] = ()) -> None:
        """`defined`: variables whose every value is forced into their domain by other clauses (auxiliaries equal
        to a sum); their holes are not cut where there are more than `HOLES_CUT_ALWAYS` (z = 6763·x over 49,137
        values of x: 626 k clauses for the holes between the multiples)."""
        self.gates = Gates(pool, out)
        self._sums: dict[tuple[tuple[int, int], ...], tuple[list[Lit], int]] = {}  # terms -> (digits, offset)
        self.lb: dict[int, int] = {}
        self.bits: dict[int, list[int]] = {}
        for var, (dom, log) in enumerate(zip(domains, is_log)):
            if not log:
                continue
            lb, ub = dom.lb, dom.ub
            n = max((ub - lb).bit_length(), 1)
            first = pool.block(n)
            self.lb[var] = lb
            self.bits[var] = list(range(first, first + n))
            loose = len(dom.intervals) > HOLES_CUT_ALWAYS and var in defined
            _exclude_outside(self.bits[var], ((lb, ub),) if loose else dom.intervals, lb, out)

    def value(self, var: int, true: Callable[[int], bool]) -> int:
        """The value of a log variable in a SAT model (`true(v)` reads CNF variable v)."""
        return self.lb[var] + sum(1 << j for j, b in enumerate(self.bits[var]) if true(b))

    def value_literals(self, var: int, value: int) -> list[int]:
        """The bit literals whose conjunction says var = value (ValueError outside the bits' range)."""
        d = value - self.lb[var]
        bits = self.bits[var]
        if d < 0 or d >> len(bits):
            raise ValueError(f"value {value} is outside the domain")
        return [b if (d >> j) & 1 else -b for j, b in enumerate(bits)]

    def le_terms(self, terms: Sequence[tuple[int, int]], c: int,
                 order_values: "dict[int, tuple[list[int], Sequence[int]]]") -> Lit:
        """The literal ⇔ ``Σ a·x ≤ c`` over (a, var) terms.

        Order-encoded vars are given as var -> (values, les) with ``les[i]`` the literal ``x ≤ values[i]``.
        """
        return self.gates.at_most(*self._digits(terms, c, order_values))

    def le_clauses(self, terms: Sequence[tuple[int, int]], c: int,
                   order_values: "dict[int, tuple[list[int], Sequence[int]]]") -> "list[list[int]] | bool":
        """``Σ a·x ≤ c`` as clauses over the sum's binary digits (True/False when the digits decide it).

        For a clause with no other such sum: each of its other literals goes into every one of these
        clauses, and no comparator gate is built (`at_most_clauses`). A table of a variable into a log
        variable (two such comparisons per value) took a chain of gates per comparison.
        """
        return at_most_clauses(*self._digits(terms, c, order_values))

    def _digits(self, terms: Sequence[tuple[int, int]], c: int,
                order_values: "dict[int, tuple[list[int], Sequence[int]]]") -> tuple[list[Lit], int]:
        """(binary digits of a sum of positive weights, bound K): ``Σ a·x ≤ c`` ⇔ digits ≤ K."""
        if len(terms) == 1 and terms[0][0] in (1, -1) and terms[0][1] in self.bits:
            # x ≤ c or -x ≤ c, the commonest: x's own bits are the digits (no adder to run them through)
            a, var = terms[0]
            bits = self.bits[var]
            if a == 1:
                return list(bits), c - self.lb[var]
            return [-b for b in bits], c + self.lb[var] + (1 << len(bits)) - 1
        # Σ and -Σ share one adder: the sum is built in the orientation whose first coefficient is positive, with
        # offset `off` (digits D = Σ - off), and -Σ ≤ c is Σ ≥ -c, i.e. the complemented digits ≤ 2ⁿ - 1 - (-c - off).
        # An equation's two halves (and a disequality's) built apart made two adders and comparators for the solver
        # to reconcile from either side.
        flip = terms[0][0] < 0
        canon = tuple((-a, v) for a, v in terms) if flip else tuple(terms)
        built = self._sums.get(canon)
        if built is None:
            built = self._sums[canon] = self._sum_digits(canon, order_values)
        digits, off = built
        if not flip:
            return digits, c - off
        return [_neg(d) for d in digits], (1 << len(digits)) - 1 + c + off

    def _sum_digits(self, terms: Sequence[tuple[int, int]],
                    order_values: "dict[int, tuple[list[int], Sequence[int]]]") -> tuple[list[Lit], int]:
        """(binary digits D of a sum of positive weights, offset off) with ``Σ a·x = D + off``."""
        weighted: list[tuple[int, int]] = []
        k = 0
        for a, var in terms:
            if var in self.bits:
                k -= a * self.lb[var]
                for j, b in enumerate(self.bits[var]):
                    w = a << j
                    if w > 0:
                        weighted.append((w, b))
                    else:  # w·b = w + |w|·¬b
                        k -= w
                        weighted.append((-w, -b))
                continue
            values, les = order_values[var]
            k -= a * values[0]
            for i in range(len(values) - 1):
                w = a * (values[i + 1] - values[i])  # paid when x > values[i], i.e. ¬p(x ≤ values[i])
                if w > 0:
                    weighted.append((w, -les[i]))
                else:
                    k -= w
                    weighted.append((-w, les[i]))
        # Σ ≤ c ⇔ D ≤ c + k for every c, so D = Σ + k
        return self.gates.sum_bits(weighted), -k


def at_most_clauses(digits: Sequence[Lit], k: int) -> "list[list[int]] | bool":
    """Clauses ⇔ (binary number `digits`, least significant first) ≤ k, without auxiliary variables.

    The number exceeds k exactly when, at some position j where k has a 0, its digit is 1 and so is
    every digit above j where k has a 1 (the highest position where they differ). So one clause per
    0 of k: ``¬dⱼ ∨ ⋁ {¬dᵢ : i > j, kᵢ = 1}``; the digits above k's highest 1 come out as units.
    """
    if k < 0:
        return False
    if k >> len(digits):
        return True
    clauses: list[list[int]] = []
    above: list[int] = []  # ¬dᵢ for the digits above j where k has a 1 (constant 1 digits drop out)
    for j in range(len(digits) - 1, -1, -1):
        d = digits[j]
        if (k >> j) & 1:
            if d is False:
                break  # a constant 0 where k has a 1: the number is below k, every lower clause holds
            if d is not True:
                above.append(-d)
            continue
        if d is False:
            continue
        if d is True:
            if not above:
                return False  # a 1 where k has a 0, and every higher 1 of k matched
            clauses.append(list(above))
        else:
            clauses.append([-d] + above)
    return clauses if clauses else True
