"""Pipeline stages "normalise" + "encode" behind one call: `compile_model(model) -> Compiled`.

`compile_model` normalises the checked model (`csp2sat.normalise`), gives
every Boolean and order-encoding variable a CNF number from one pool, and
encodes each normalised clause with the encoders of `encoders`.
`Compiled` is the contract of docs/compiler-api.md: the CNF, how to load it
into a PySAT solver, and how to read values back from a SAT model.

CNF numbering: user and auxiliary Booleans of the normalised problem are
variables 1..B (Boolean i of the `NormalCSP` is variable i+1), then the
selectors (if asked for), then the order-encoding variables, then whatever
encoders add.
"""

from __future__ import annotations

import time
from array import array
from bisect import bisect_right
from typing import Any, Iterator, Mapping, Sequence

from csp2sat import memory
from csp2sat.encoders.alldifferent import METHODS as ALLDIFF_METHODS
from csp2sat.encoders.alldifferent import PAIRWISE_LIMIT
from csp2sat.encoders.alldifferent import choose_method, encode_alldifferent
from csp2sat.encoders.cardinality import METHODS as CARDINALITY_METHODS
from csp2sat.encoders.cardinality import AMO_METHODS, Totalizers
from csp2sat.encoders.cnf import ClauseBuffer, Pool
from csp2sat.encoders.log import LogEncoding
from csp2sat.encoders.order import OrderEncoding
from csp2sat.diagnostics import CspError, Exit
from csp2sat.loading import load_clauses
from csp2sat.normalise import MAX_DOMAIN_SIZE, MAX_LOG_DOMAIN_SIZE, MAX_SUM_TERMS, Linear, NormalCSP, is_count, normalise
from csp2sat.syntax import Domain, Model, Objective

DEFAULT_OPTIONS: dict[str, str] = {
    "alldifferent": "auto", "cardinality": "auto", "int": "auto", "large": "auto", "split": "auto",
    "satmode": "auto", "objective": "auto", "shrink": "auto", "symmetry": "auto", "enumerate": "auto",
    "disjunction": "auto", "amo": "auto",
}
OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "alldifferent": ALLDIFF_METHODS, "cardinality": CARDINALITY_METHODS, "int": ("auto", "order", "direct", "mixed"),
    "large": ("auto", "log", "order"), "split": ("auto", "shared", "onesided"),
    # A clause with several sums: `auto` writes a sum of one clause into it and sums sharing a
    # variable value by value (`_single_clause`, `_encode_shared_pivot`); `named` names all but one.
    "disjunction": ("auto", "named"),
    # An at-most-one count: over the groups its inputs are already exclusive in, or by the product encoding.
    "amo": AMO_METHODS,
    # Not an encoding: how the SAT solver searches (csp2sat.solver.SAT_MODES); carried here so that
    # every -O choice travels in one place, with the CNF it belongs to.
    "satmode": ("auto", "default", "focus", "stable"),
    # Read by the search (csp2sat.solver.Search), not by the encoders: how to optimise an objective.
    "objective": ("auto", "binary", "linear", "gallop"), "shrink": ("auto", "on", "off"),
    # Value symmetry breaking (csp2sat.symmetry): only when one answer is wanted (`single_answer`).
    "symmetry": ("auto", "on", "off"),
    # Read by the enumeration (csp2sat.enumerate.ENUMERATE_METHODS): how --all/--count visit the answers.
    "enumerate": ("auto", "cubes", "blocking", "split", "propagate"),
}
# The order encoding writes long runs of clauses with numpy (the same clauses) when the CNF is
# estimated at least this big: numpy's import (~0.1 s) is then paid back (knightTour-6, 58 k
# clauses, compiled in 0.05 s, took 0.13 s with it).
VECTOR_MIN_CNF = 300_000
# "large=auto": integer variables with more values than this are log-encoded (encoders/log.py).
LOG_THRESHOLD = 1 << 16
# ... and, to list or count every answer, the file's own variables with more values than this: each answer
# then costs a SAT call, a model and a blocking clause, each in time proportional to the CNF's variables,
# which the order encoding makes one per value (x + y = 3000 over 0..2999: 3.4 s to count 2,999 answers,
# 0.4 s log-encoded; jss-random-6x6's 447 values count 2x faster in the order encoding; docs/performance.md).
ENUMERATION_LOG_THRESHOLD = 1024
# ... and so are variables with more values than this that share a linear literal with a log
# variable: as order-encoded inputs of a binary sum they would give one input per value.
LOG_LINK_THRESHOLD = 64
# ... and so are the variables (of more than LOG_LINK_THRESHOLD values) of a sum of two or three whose order
# encoding would take more clauses than this: it writes about the product of all sizes but the largest, so two
# partial sums of 40,000 values each (a product by bits whose factor another constraint narrowed) would be
# billions of clauses where the log encoding's adders take a few hundred.
ORDER_SUM_COST_LIMIT = 1 << 22


class Compiled:
    """A model compiled to CNF; see docs/compiler-api.md.

    Members beyond the contract: `normal` (the `NormalCSP`), `order` (the
    `OrderEncoding`), `options` (the encoding choices used).
    """

    def __init__(self, model: Model, normal: NormalCSP, order: OrderEncoding, pool: Pool,
                 buffer: ClauseBuffer, selectors: list[int] | None, options: dict[str, str],
                 stats: dict[str, Any], log: LogEncoding | None = None) -> None:
        self.model = model
        self.log = log
        self._sinks: list[Any] = []  # solvers loaded with the CNF: clauses made later go to them too
        self.normal = normal
        self.order = order
        self.options = options
        self.selectors = selectors
        self.stats = stats
        self._pool = pool
        self._buffer = buffer
        self._int_index = {name: i for i, name in enumerate(normal.int_names) if name is not None}
        self._bool_index = {name: i for i, name in enumerate(normal.bool_names) if name is not None}

    def __getstate__(self) -> dict[str, Any]:
        # The solvers loaded here stay in this process: a copy sent to a worker (-j N) loads its own.
        state = dict(self.__dict__)
        state["_sinks"] = []
        return state

    # ------------------------------------------------------------ the CNF

    @property
    def num_vars(self) -> int:
        """The largest CNF variable in use."""
        return self._pool.top

    @property
    def num_clauses(self) -> int:
        """The number of clauses."""
        return self._buffer.count

    @property
    def objective(self) -> Objective | None:
        """The model's objective (`.var`, `.sense`), or None."""
        return self.model.objective

    def clauses(self) -> Iterator[list[int]]:
        """Every clause as a list of DIMACS literals."""
        return iter(self._buffer)

    def literal_array(self) -> array:
        """Every clause's literals, each clause followed by 0 (DIMACS order), as one `array('i')`; do not modify."""
        return self._buffer.lits

    def load(self, solver: Any) -> None:
        """Add every clause to a PySAT solver (and, later, clauses that `le_literal` of a log variable adds)."""
        load_clauses(solver, self._buffer)
        if self.log is not None or self.order.direct:
            self._sinks.append(solver)

    def _new_le(self, var: int, c: int) -> int | bool:
        """``var ≤ c`` for a log or direct variable: clauses built now, sent to the solvers already loaded."""
        buf = self._buffer
        start, count = len(buf.lits), buf.count
        if self.log is not None and var in self.log.bits:
            lit = self.log.le_terms([(1, var)], c, {})
        else:
            lit = self.order.le(var, c)
        if self._sinks and buf.count > count:
            new = ClauseBuffer()
            new.lits = buf.lits[start:]
            for solver in self._sinks:
                load_clauses(solver, new)
        return lit

    def new_var(self) -> int:
        """A fresh CNF variable from the shared pool (activation literals, ...)."""
        return self._pool.new()

    # ------------------------------------------------------------ reading and writing values

    def _bool_var(self, name: str) -> int:
        idx = self._bool_index.get(name)
        if idx is None and name.startswith("bool "):
            idx = self._bool_index.get(name[5:])
        if idx is None:
            raise KeyError(f"no Boolean variable {name!r}")
        return idx + 1

    def decode(self, sat_model: list[int]) -> dict[str, int | bool]:
        """Values of every user variable (ints, then Booleans under `model.bool_key`)."""
        n = len(sat_model)
        if n and all(abs(sat_model[k]) == k + 1 for k in (0, n - 1)):
            def true(v: int) -> bool:
                return v <= n and sat_model[v - 1] > 0
        else:
            positive = {lit for lit in sat_model if lit > 0}

            def true(v: int) -> bool:
                return v in positive
        values: dict[str, int | bool] = {}
        bits = self.log.bits if self.log is not None else {}
        for name, i in self._int_index.items():
            values[name] = self.log.value(i, true) if i in bits else self.order.decode(i, true)
        for name, i in self._bool_index.items():
            values[self.model.bool_key(name)] = true(i + 1)
        return values

    def log_bits(self, name: str) -> tuple[int, list[int]] | None:
        """For a log-encoded int variable, ``(lb, bits)`` with value = lb + Σ 2^j·bits[j]; None otherwise."""
        i = self._int_index[name]
        if self.log is None or i not in self.log.bits:
            return None
        return self.log.lb[i], list(self.log.bits[i])

    def direct_literals(self, name: str) -> list[int] | None:
        """For a direct-encoded int variable, the literal ``name = v`` of each of its `domain_values`; None otherwise."""
        i = self._int_index[name]
        if not self.order.is_direct(i):
            return None
        base = self.order.base[i]
        return list(range(base, base + len(self.order.values[i])))

    def domain(self, name: str) -> Domain:
        """The values int variable `name` can take after tightening, as intervals (never listed: log-encoded
        domains reach 2^32 values)."""
        i = self._int_index[name]
        if self.log is not None and i in self.log.bits:
            return self.normal.int_domains[i]
        return Domain.of([(v, v) for v in self.order.values[i]])  # adjacent values merge into intervals

    def domain_values(self, name: str) -> list[int]:
        """The values int variable `name` can take after tightening, ascending (a new list)."""
        i = self._int_index[name]
        if self.log is not None and i in self.log.bits:
            return list(self.normal.int_domains[i].values())
        return list(self.order.values[i])

    def le_literal(self, name: str, c: int) -> int | bool:
        """The literal for int variable `name` ≤ c (True/False when the domain decides)."""
        i = self._int_index[name]
        if (self.log is not None and i in self.log.bits) or self.order.is_direct(i):
            return self._new_le(i, c)
        return self.order.le(i, c)

    def value_literals(self, name: str, value: int | bool) -> list[int]:
        """Literals whose conjunction says `name` == value ([] when always true).

        Raises ValueError when the value is impossible (outside the domain, as
        tightened by top-level constraints).
        """
        if isinstance(value, bool):
            v = self._bool_var(name)
            return [v if value else -v]
        i = self._int_index.get(name)
        if i is None:
            raise KeyError(f"no integer variable {name!r}")
        if self.log is not None and i in self.log.bits:
            if value not in self.normal.int_domains[i]:
                raise ValueError(f"{name} = {value} is impossible (outside its domain)")
            return self.log.value_literals(i, value)
        neq = self.order.not_equal(i, value)
        if neq is None:
            raise ValueError(f"{name} = {value} is impossible (outside its domain)")
        return [-lit for lit in neq]

    def block_clause(self, values: dict[str, int | bool]) -> list[int]:
        """A clause excluding exactly the assignment `values` of the variables named there."""
        clause: list[int] = []
        for name, value in values.items():
            try:
                lits = self.value_literals(name, value)
            except ValueError:
                # The assignment is impossible already; any tautology excludes nothing more.
                v = self.new_var()
                return [v, -v]
            clause.extend(-lit for lit in lits)
        return clause


def _count_inputs(lit: Linear, order: OrderEncoding) -> tuple[list[int], int]:
    """``Σ ±xᵢ ≤ c`` over 0/1 variables (kept whole by the normaliser) as "at most k of these literals"."""
    inputs: list[int] = []
    c = lit.c
    for a, x in zip(lit.coefs, lit.vars):
        if a < 0:
            c += 1  # -x = (1 - x) - 1: count "x = 0" instead
        zero = order.le(x, 0)  # "x = 0" (True/False when x is fixed)
        one_counts = (zero if a < 0 else (not zero if isinstance(zero, bool) else -zero))
        if one_counts is True:
            c -= 1
        elif one_counts is not False:
            inputs.append(one_counts)
    return inputs, c


def _log_sum(lit: Linear, order: OrderEncoding, log: LogEncoding) -> tuple:
    """`lit` (which involves a log variable) as the arguments of `LogEncoding.le_terms`/`le_clauses`:
    its (coefficient, variable) terms, its bound, and the order literals of its order-encoded variables."""
    others = {v: (order.values[v], order.le_literals(v)) for v in lit.vars if v not in log.bits}
    return list(zip(lit.coefs, lit.vars)), lit.c, others


def _encode_clause(lits: list, prefix: list[int], order: OrderEncoding, pool: Pool, out: ClauseBuffer,
                   cards: Totalizers, log: LogEncoding | None, seen: "_Seen") -> None:
    """Encode one normalised clause: simple literals inline, one linear literal expanded, others named."""
    if len(lits) == 1 and isinstance(lits[0], Linear) and len(lits[0].vars) > MAX_SUM_TERMS and (
            log is None or not any(v in log.bits for v in lits[0].vars)):
        cards.add_at_most(*_count_inputs(lits[0], order), prefix)  # a count alone: no output literal needed
        return
    if order.direct:
        lits, prefix = _direct_part(lits, prefix, order, out)
        if lits is None:
            return
    simple = list(prefix)
    complex_: list[Linear] = []
    in_log: list[Linear] = []
    for lit in lits:
        if lit.__class__ is not Linear:  # a Boolean literal
            simple.append(lit)
            continue
        if log is not None and any(v in log.bits for v in lit.vars):
            in_log.append(lit)
            continue
        if len(lit.vars) == 1:  # the commonest: one variable against a constant
            cnf = _unary_le(order, lit.coefs[0], lit.vars[0], lit.c)
            if cnf is True:
                return
            if cnf is not False:
                simple.append(cnf)
        elif len(lit.vars) > MAX_SUM_TERMS:  # only counts stay this long (see normalise)
            cnf = cards.at_most(*_count_inputs(lit, order))
            if cnf is True:
                return
            if cnf is not False:
                simple.append(cnf)
        else:
            complex_.append(lit)
    if len(in_log) > 1:
        in_log = _log_exclusions(in_log, log, simple)
        if in_log is None:
            return
    if in_log:
        if len(in_log) == 1 and not complex_:
            # The one sum of the clause: its comparison's clauses, each with the clause's other literals
            cnf = log.le_clauses(*_log_sum(in_log[0], order, log))
            if cnf is True:
                return
            if cnf is not False:
                for part in cnf:
                    out.add(simple + part)
                return
        else:
            for lit in in_log:
                cnf = log.le_terms(*_log_sum(lit, order, log))
                if cnf is True:
                    return
                if cnf is not False:
                    simple.append(cnf)
    if len(complex_) > 1 and not seen.name_all:
        # A sum whose order encoding is one clause (0/1 terms: min/max of Booleans, `a ≤ b`) is
        # that clause: put its literals into this clause instead of naming it, which would keep
        # unit propagation from reaching through (Sugar's "simple" literals).
        rest = []
        for lit in complex_:
            # A sum the domains decide is no sum: one that cannot hold is dropped (Sugar's
            # simplification; naming it cost a literal, a unit clause and a third literal in
            # every clause of the other side), one that always holds satisfies the clause.
            low, high = _sum_bounds(lit, order)
            if low > lit.c:
                continue
            if high <= lit.c:
                return
            one = _single_clause(lit, order)
            if one is None:
                rest.append(lit)
            elif one is True:
                return
            else:
                simple.extend(one)
        complex_ = rest
        simple = list(dict.fromkeys(simple))
        if any(-x in simple for x in simple if isinstance(x, int)):
            return
    if not complex_:
        out.add(simple)
        return
    if len(complex_) > 1 and not seen.name_all and _encode_shared_pivot(complex_, simple, order, out):
        return
    # A clause with sums costs tens to thousands of clauses: an exact repeat is encoded once.
    key = (tuple(simple), tuple((lit.coefs, lit.vars, lit.c) for lit in complex_))
    if key in seen.clauses:
        return
    seen.clauses.add(key)
    # Expanding two sums into one clause set would multiply their sizes; name all but one
    # (a literal named once is reused by every clause that has it).
    for lit in complex_[1:]:
        lkey = (lit.coefs, lit.vars, lit.c)
        b = seen.named.get(lkey)
        if b is None:
            b = pool.new()
            order.encode_le(lit.coefs, lit.vars, lit.c, [-b], out)
            seen.named[lkey] = b
        simple.append(b)
    first = complex_[0]
    order.encode_le(first.coefs, first.vars, first.c, simple, out)


def _log_exclusions(lits: list[Linear], log: LogEncoding, simple: list[int]) -> list[Linear] | None:
    """Pairs ``x ≤ u - 1 ∨ x ≥ u + 1`` of one log variable in a clause, i.e. x ≠ u, as the bits of x that
    differ from u's (appended to `simple`); the other literals are returned (None: the clause holds).

    The normaliser writes x ≠ u (a table entry "x = u → z = w", an alldifferent with a constant) as
    those two comparisons, each a chain of comparator gates; x ≠ u itself is one clause on x's bits.
    """
    below: dict[tuple[int, int], Linear] = {}  # (x, u) -> x ≤ u - 1
    above: dict[tuple[int, int], Linear] = {}  # (x, u) -> -x ≤ -u - 1
    for lit in lits:
        if len(lit.vars) == 1 and lit.coefs[0] in (1, -1):  # its one variable is log (the caller's choice)
            if lit.coefs[0] == 1:
                below[(lit.vars[0], lit.c + 1)] = lit
            else:
                above[(lit.vars[0], -lit.c - 1)] = lit
    pairs = below.keys() & above.keys()
    if not pairs:
        return lits
    paired = set()
    for x, u in pairs:
        paired.add(id(below[(x, u)]))
        paired.add(id(above[(x, u)]))
        try:
            simple.extend(-b for b in log.value_literals(x, u))
        except ValueError:
            return None  # u is beyond what the bits express: x ≠ u always
    return [lit for lit in lits if id(lit) not in paired]


def _unary_le(order: OrderEncoding, a: int, x: int, c: int) -> int | bool:
    """The literal ``a·x ≤ c`` of one order-encoded variable (True/False when the domain decides)."""
    if a > 0:
        return order.le(x, c // a)
    lit = order.le(x, -(c // -a) - 1)
    return (not lit) if lit.__class__ is bool else -lit


def _encode_shared_pivot(lits: list[Linear], prefix: list[int], order: OrderEncoding, out: ClauseBuffer) -> bool:
    """``prefix ∨ lit₁ ∨ … ∨ litₖ`` where every litᵢ is ``a·z + bᵢ·yᵢ ≤ cᵢ`` with the same z and a (False if not).

    Then one clause per value v of z: "z beyond v" ∨ (b₁·y₁ ≤ c₁ − a·v) ∨ …, one order literal per
    sum (``m ≤ max(p, x)``, ``z ≥ a ∨ z ≥ b`` of min): about |z| clauses and no named literal,
    where naming all but one sum costs twice that and hides the disjunction from propagation.
    """
    if any(len(lit.vars) != 2 or any(order.is_direct(v) for v in lit.vars) for lit in lits):
        return False
    first = lits[0]
    for a, z in zip(first.coefs, first.vars):
        if all(z in lit.vars and lit.coefs[lit.vars.index(z)] == a for lit in lits):
            break
    else:
        return False
    others = []
    for lit in lits:
        j = 1 - lit.vars.index(z)
        if lit.vars[j] == z:
            return False
        others.append((lit.coefs[j], lit.vars[j], lit.c))
    # a > 0: a larger z only makes every sum harder, so "z ≥ v → some sum holds at v" covers z = v' ≥ v;
    # a < 0: the other way round, "z ≤ v → ...". The literals are worked out inline (this loop writes
    # most of a big file of such disjunctions): "z beyond its i-th value" is an order literal of z by
    # index, and each sum's literal ``b·y ≤ c - a·v`` is ``y ≤ t`` (b > 0) or ``¬(y ≤ t)`` (b < 0), found
    # by arithmetic on a domain without holes and by bisection otherwise, as `_unary_le` would.
    values, bases = order.values, order.base
    zvals, zbase = values[z], bases[z]
    last = len(zvals) - 1
    terms = []
    for b, y, c in others:
        yvals = values[y]
        terms.append((b, c, yvals, bases[y] - 1, len(yvals), yvals[0], yvals[-1] - yvals[0] + 1 == len(yvals)))
    lits_out = out.lits
    written = 0
    for i, v in enumerate(zvals):
        found = []  # the sums' literals at z = v; none is written where some sum always holds
        for b, c, yvals, before, size, low, dense in terms:
            rest = c - a * v
            t = rest // b if b > 0 else -(rest // -b) - 1
            if dense:
                k = t - low + 1
                k = 0 if k < 0 else size if k > size else k
            else:
                k = bisect_right(yvals, t)  # k values of y are ≤ t
            if b > 0:
                if k == size:
                    break  # y ≤ t always: the clause holds
                if k:
                    found.append(before + k)
            else:
                if k == 0:
                    break  # y > t always
                if k < size:
                    found.append(-(before + k))
        else:
            lits_out.extend(prefix)
            if a > 0:
                if i:
                    lits_out.append(zbase + i - 1)  # z < v
            elif i < last:
                lits_out.append(-(zbase + i))  # z > v
            lits_out.extend(found)
            lits_out.append(0)
            written += 1
    out.count += written
    return True


def _sum_bounds(lit: Linear, order: OrderEncoding) -> tuple[int, int]:
    """The least and the greatest value of `lit`'s sum over its variables' domains."""
    low = high = 0
    values = order.values
    for a, v in zip(lit.coefs, lit.vars):
        vals = values[v]
        if a > 0:
            low += a * vals[0]
            high += a * vals[-1]
        else:
            low += a * vals[-1]
            high += a * vals[0]
    return low, high


def _single_clause(lit: Linear, order: OrderEncoding) -> list[int] | bool | None:
    """The literals of the one clause that encodes sum literal `lit`, True if it needs none, else None.

    Only tried where it is cheap to know: every term but the one with the most values has at most
    two values (a sum of 0/1 variables with anything), so the expansion has at most 2^(k-1) clauses.
    """
    sizes = sorted(len(order.values[v]) for v in lit.vars)
    if any(n > 2 for n in sizes[:-1]) or len(sizes) > 3:
        return None
    buf = ClauseBuffer()
    order.encode_le(lit.coefs, lit.vars, lit.c, [], buf)
    if buf.count == 0:
        return True
    if buf.count > 1:
        return None
    return list(buf.lits[:-1])


class DirectRange:
    """The literal "direct variable `var` takes one of its values ``lo..hi-1`` (by index)": two clauses merged."""

    __slots__ = ("var", "lo", "hi")

    def __init__(self, var: int, lo: int, hi: int) -> None:
        self.var, self.lo, self.hi = var, lo, hi


def _direct_part(lits: list, prefix: list[int], order: OrderEncoding, out: ClauseBuffer) -> "tuple[list | None, list[int]]":
    """Encode the literals of `lits` that bound one direct variable: (the other literals, prefix + their CNF).

    The literals on one direct variable x in a clause together say x ∈ S (a union of
    index ranges): the clause gets ``¬(x = v)`` when S misses one value v, else
    ``x = v`` for each v in S. None for the literals when the clause is done: S is
    every value (the clause holds), or the clause went to `out` as one clause
    ``B ∨ ¬(x = v)`` per value v outside S. That split is made when the other literals
    B are Booleans and x, the one direct variable, misses fewer values than S holds
    (e.g. ``B ∨ x < a ∨ x > b``, the negation of ``a ≤ x ≤ b``): with x's at-least-one
    clause the clauses mean the same, and unit propagation gets more from them
    (x = v alone implies B, where the single clause needs every value of S false first).
    """
    ranges: dict[int, list[tuple[int, int]]] = {}
    rest = []
    booleans = True
    direct = order.direct
    for lit in lits:
        cls = lit.__class__
        if cls is DirectRange:
            ranges.setdefault(lit.var, []).append((lit.lo, lit.hi))
        elif cls is Linear and len(lit.vars) == 1 and direct[lit.vars[0]]:
            v = lit.vars[0]
            ranges.setdefault(v, []).append(order.index_range(v, lit.coefs[0], lit.c))
        else:
            rest.append(lit)
            if cls is not int:
                booleans = False
    if not ranges:
        return lits, prefix
    extra = list(prefix)
    for var, spans in ranges.items():
        n = len(order.values[var])
        if len(spans) == 1:
            lo, hi = spans[0]
            allowed: "range | list[int]" = range(lo, max(lo, hi))
        else:
            allowed = sorted({k for lo, hi in spans for k in range(lo, hi)})
        base = order.base[var]
        held = len(allowed)
        if held == n:
            return None, prefix
        if held == n - 1:
            missing = next(k for k, a in enumerate(list(allowed) + [n]) if a != k)
            extra.append(-(base + missing))
        elif booleans and len(ranges) == 1 and 2 * (n - held) < n:
            inside = set(allowed)
            for k in range(n):
                if k not in inside:
                    out.add(extra + rest + [-(base + k)])
            return None, prefix
        else:
            extra.extend(base + k for k in allowed)
    return rest, extra


def _direct_interval(lit: object, order: OrderEncoding) -> "tuple[int, int, int] | None":
    """(var, lo, hi) when `lit` bounds one direct variable, else None."""
    if isinstance(lit, Linear) and len(lit.vars) == 1 and order.is_direct(lit.vars[0]):
        return (lit.vars[0], *order.index_range(lit.vars[0], lit.coefs[0], lit.c))
    return None


def _same_literal(a: object, b: object) -> bool:
    if isinstance(a, Linear):
        return isinstance(b, Linear) and a.coefs == b.coefs and a.vars == b.vars and a.c == b.c
    return a == b and type(a) is type(b)


def _merged_pair(first: list, second: list, order: OrderEncoding) -> list | None:
    """``P ∨ A`` and ``P ∨ B`` as one clause ``P ∨ (A ∧ B)`` when A and B bound the same direct variable.

    The normaliser distributes ``P ∨ x = c`` into ``P ∨ x ≤ c`` and ``P ∨ x ≥ c``
    (last literal of two consecutive clauses); for a direct variable that
    conjunction is the single literal ``x = c``.
    """
    if len(first) != len(second) or not first:
        return None
    last = first[-1]
    if last.__class__ is not Linear or len(last.vars) != 1 or not order.direct[last.vars[0]]:
        return None
    a = _direct_interval(last, order)
    if a is None:
        return None
    b = _direct_interval(second[-1], order)
    if b is None or b[0] != a[0]:
        return None
    # The normaliser's pairs share their literal objects: compare those first, by identity.
    if first[:-1] != second[:-1] and not all(_same_literal(x, y) for x, y in zip(first[:-1], second[:-1])):
        return None
    return first[:-1] + [DirectRange(a[0], max(a[1], b[1]), min(a[2], b[2]))]


def _direct_clauses(normal: NormalCSP, order: OrderEncoding) -> Iterator[tuple[list, int]]:
    """(clause, origin) of the normalised problem, with pairs for direct variables merged (`_merged_pair`)."""
    clauses, origins = normal.clauses, normal.origins
    i, n = 0, len(clauses)
    while i < n:
        lits, origin = clauses[i], origins[i]
        if i + 1 < n and origins[i + 1] == origin:
            merged = _merged_pair(lits, clauses[i + 1], order)
            if merged is not None:
                yield merged, origin
                i += 2
                continue
        yield lits, origin
        i += 1


# "int=mixed": a variable is direct-encoded only with at most this many values: the pentomino
# boxes' cell owners (12 values) count faster one-hot, their placements (18-220 values) slower
# (docs/performance.md, "Direct encoding chosen per variable").
DIRECT_MAX_VALUES = 16
# What "int=auto" means: "mixed" (the per-variable choice of `_choose_direct`) or "order".
AUTO_INT = "order"


def placement_variables(normal: NormalCSP, is_log: list[bool], compared: list[bool]) -> list[bool]:
    """For each integer variable: is it a term of a *placement* alldifferent?

    That is an alldifferent whose terms spread over more values than there are terms, written
    value-wise by ``alldifferent=auto`` (`choose_method` gives "amo": its pairwise encoding is over
    the limit) over variables that meet nothing but alldifferents and constants (`compared`: see
    `NormalCSP.compared_variables`): n-queens' diagonals from about 70 queens on. The rule of
    ``auto`` whatever ``-O alldifferent=`` says, which chooses the alldifferent's encoding only.
    The values and the pairwise size are counted over the domains' intervals (`memory.alldiff_sweep`).
    """
    doms = normal.int_domains
    marked = [False] * len(doms)
    for ad in normal.alldiffs:
        if any(is_log[v] or compared[v] for v in ad.vars):
            continue
        pairwise, _, values = memory.alldiff_sweep([doms[v] for v in ad.vars], ad.offsets)
        if values > len(ad.vars) and choose_method("auto", len(ad.vars), values, pairwise, False) == "amo":
            for v in ad.vars:
                marked[v] = True
    return marked


def _choose_direct(normal: NormalCSP, is_log: list[bool], choice: str, objective: str | None = None,
                   placement: "list[bool] | None" = None) -> list[bool]:
    """Which integer variables get the direct (one-hot) encoding (option ``int``; see docs/encodings.md).

    ``direct``: every variable of more than 2 values that is not log-encoded. ``order``: none.
    ``auto``: the terms of placement alldifferents (`placement`, see `placement_variables`):
    one-hot n-queens search with fewer and cheaper conflicts (docs/performance.md, "n-queens
    one-hot"). ``mixed``: those, and the variables of 3 to `DIRECT_MAX_VALUES` values whose every
    use is what the direct literals say: they appear in clauses, and only in literals of their
    own against constants (``x = c``, ``x ≠ c``, memberships, bounds: cell numbers of puzzles),
    never in a sum of several variables (comparisons of variables), another alldifferent or as
    the objective, where the order encoding was measured faster. `objective` is the name of the
    objective's variable, which stays in the order encoding.
    """
    doms = normal.int_domains
    if choice == "direct":
        return [d.size > 2 and not lg for d, lg in zip(doms, is_log)]
    if choice == "order":
        return [False] * len(doms)
    # (auxiliary variables have no name)
    kept = normal.int_names.index(objective) if objective is not None and objective in normal.int_names else None
    placed = [False] * len(doms) if placement is None else [
        p and d.size > 2 and not lg for p, d, lg in zip(placement, doms, is_log)]
    if kept is not None:
        placed[kept] = False
    if choice == "auto" and AUTO_INT == "order":
        return placed
    cand = [2 < d.size <= DIRECT_MAX_VALUES and not lg for d, lg in zip(doms, is_log)]
    for ad in normal.alldiffs:
        for v in ad.vars:
            cand[v] = False
    if kept is not None:
        cand[kept] = False
    if not any(cand):
        return placed
    used = [False] * len(doms)  # named by a clause: a variable only declared keeps its cheaper order axioms
    for lits in normal.clauses:
        for lit in lits:
            if lit.__class__ is Linear and len(lit.vars) == 1:
                used[lit.vars[0]] = True
    return [p or (c and u and not k) for p, c, u, k in zip(placed, cand, used, normal.compared_variables())]


class _Seen:
    """What `_encode_clause` has encoded already: clauses with sums, and sums named by a literal."""

    __slots__ = ("clauses", "named", "name_all")

    def __init__(self, name_all: bool = False) -> None:
        self.clauses: set[tuple] = set()
        self.named: dict[tuple, int] = {}
        self.name_all = name_all  # option disjunction=named: every sum but one named, as before


def _choose_log(normal: NormalCSP, large: str, enumerating: bool = False) -> list[bool]:
    """Which integer variables are log-encoded (option ``large``; see docs/encodings.md).

    ``auto``: more than `LOG_THRESHOLD` values (`enumerating`: a variable of the file with more than
    `ENUMERATION_LOG_THRESHOLD`), then, to a fixpoint, more than
    `LOG_LINK_THRESHOLD` values and in a linear literal with a log variable.
    Variables of an alldifferent stay in the order encoding (value-wise
    alldifferent) unless their domain is beyond `LOG_THRESHOLD`.
    """
    doms = normal.int_domains
    if large == "order":
        return [False] * len(doms)
    in_alldiff = {v for ad in normal.alldiffs for v in ad.vars}
    if large == "log":
        long_sums = [lit for clause in normal.clauses for lit in clause
                     if lit.__class__ is Linear and len(lit.vars) > MAX_SUM_TERMS]
        return _long_sums_in_log(long_sums, doms, [d.size > 2 and (i not in in_alldiff or d.size > LOG_THRESHOLD)
                                                   for i, d in enumerate(doms)])
    is_log = [d.size > LOG_THRESHOLD for d in doms]
    if enumerating:
        names = normal.int_names
        is_log = [lg or (d.size > ENUMERATION_LOG_THRESHOLD and names[i] is not None and i not in in_alldiff)
                  for i, (d, lg) in enumerate(zip(doms, is_log))]
    # Variables linked by a linear literal; only those large enough to matter.
    links: dict[int, set[int]] = {}
    long_sums: list[Linear] = []
    for clause in normal.clauses:
        for lit in clause:
            if isinstance(lit, Linear) and len(lit.vars) > 1:
                if len(lit.vars) > MAX_SUM_TERMS:
                    long_sums.append(lit)
                big = [v for v in lit.vars if doms[v].size > LOG_LINK_THRESHOLD]
                if len(big) > 1:
                    for v in big:
                        links.setdefault(v, set()).update(big)
                    if len(lit.vars) <= MAX_SUM_TERMS and memory.order_sum_cost(
                            [doms[v].size for v in lit.vars]) > ORDER_SUM_COST_LIMIT:
                        for v in big:
                            is_log[v] = True
    # An alldifferent with a log variable is written pair by pair, by adders: an order-encoded term there
    # would be one adder input per value. Linked whether or not a term is log yet, since the fixpoint below
    # may make one log (|x1| linked x1 to a log variable; a pair of x1 and a 30,001-value x3 took 840 k clauses).
    for ad in normal.alldiffs:
        for v in ad.vars:
            if doms[v].size > LOG_LINK_THRESHOLD:
                links.setdefault(v, set()).update(ad.vars)
    todo = [v for v, lg in enumerate(is_log) if lg]
    while todo:
        v = todo.pop()
        for w in links.get(v, ()):
            if not is_log[w] and doms[w].size > LOG_LINK_THRESHOLD:
                is_log[w] = True
                todo.append(w)
    return _long_sums_in_log(long_sums, doms, is_log)


def _long_sums_in_log(long_sums: list[Linear], doms: Sequence[Domain], is_log: list[bool]) -> list[bool]:
    """`is_log` with the variables of each long sum that is not a count log-encoded if none of them is yet.

    Such a sum kept its terms whole for the log adders (`Normaliser._log_term`); should propagation have
    narrowed all of them since, it is still no count for the cardinality encoder.
    """
    for lit in long_sums:
        if not any(is_log[v] for v in lit.vars) and not is_count(zip(lit.coefs, lit.vars), doms):
            for v in lit.vars:
                is_log[v] = is_log[v] or doms[v].size > 1
    return is_log


def estimated_clauses(model: Model, options: dict[str, str] | None = None) -> int:
    """About how many clauses `compile_model(model, options=options)` would write (normalising only: cheap)."""
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    max_domain = MAX_DOMAIN_SIZE if opts["large"] == "order" else MAX_LOG_DOMAIN_SIZE
    normal = normalise(model, cardinality=opts["cardinality"] != "order", max_domain=max_domain,
                       shared_split=opts["split"] != "onesided")
    clauses, _, _ = memory.estimate(normal, _choose_log(normal, opts["large"]), opts["alldifferent"], PAIRWISE_LIMIT)
    return clauses


def compile_model(model: Model, selectors: bool = False, options: dict[str, str] | None = None,
                  single_answer: bool = False, enumerating: bool = False) -> Compiled:
    """Compile a checked model to CNF by the order encoding.

    `selectors`: give each ``model.constraints[i]`` a literal ``selectors[i]``
    that every clause of that constraint contains negated (domain tightening is
    then off, so that each constraint stays switchable). `options` chooses
    encodings: ``{"alldifferent": "auto" | "amo" | "pairwise" | "relational", "cardinality": "auto" | "totalizer" | "order"}``
    (cardinality: sums of ±1·(0/1 variable) by a totalizer, or split like any sum by "order"),
    ``"large": "auto" | "log" | "order"`` (variables with huge domains); see docs/encodings.md.
    `enumerating`: the caller lists or counts every answer (``large=auto`` then log-encodes the file's variables
    of more than `ENUMERATION_LOG_THRESHOLD` values, whose order literals would make every answer slow).
    `single_answer`: the caller wants one answer (or one optimal answer), not all of them;
    then ``"symmetry": "auto"`` adds value-symmetry-breaking constraints where they are
    provably safe (`csp2sat.symmetry`), which removes answers: ``"symmetry": "on"`` without
    `single_answer` is a usage error. ``objective``/``shrink`` are read by `csp2sat.solver.Search`.
    Raises `CspError` for constructs that cannot be compiled, and (`Exit.USAGE`) for unknown options.
    """
    if not isinstance(model, Model):
        raise TypeError(f"compile_model takes a checked Model (csp2sat.parse(TEXT_OR_PATH)), not {type(model).__name__}")
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"compile_model's options are a dict such as {{'alldifferent': 'pairwise'}}, not "
                        f"{type(options).__name__}")
    opts = dict(DEFAULT_OPTIONS)
    for key, value in (options or {}).items():
        if key not in OPTION_CHOICES:
            raise CspError(
                f"unknown encoding option {key!r}; known: {', '.join(OPTION_CHOICES)}", file="csp2sat", exit=Exit.USAGE
            )
        if value not in OPTION_CHOICES[key]:
            raise CspError(
                f"encoding option {key!r} must be one of {', '.join(OPTION_CHOICES[key])}, not {value!r}",
                file="csp2sat",
                exit=Exit.USAGE,
            )
        opts[key] = value
    t0 = time.perf_counter()
    if opts["symmetry"] == "on" and not (single_answer and not selectors):
        raise CspError(
            "-O symmetry=on removes answers: it applies only to solving for one (optimal) answer, "
            "not to --all/--count/--unique/--facts or explanations", file="csp2sat", exit=Exit.USAGE,
        )
    declared, symmetric_constraints = model, 0
    if opts["symmetry"] != "off" and single_answer and not selectors:
        from csp2sat.symmetry import break_value_symmetry

        model, symmetric_constraints = break_value_symmetry(model)
    max_domain = MAX_DOMAIN_SIZE if opts["large"] == "order" else MAX_LOG_DOMAIN_SIZE
    normal = normalise(model, tighten=not selectors, cardinality=opts["cardinality"] != "order", max_domain=max_domain,
                       shared_split=opts["split"] != "onesided")
    t1 = time.perf_counter()
    pool = Pool(normal.num_bools)
    sels = [pool.new() for _ in model.constraints] if selectors else None
    is_log = _choose_log(normal, opts["large"], enumerating)
    # Value-precedence constraints compare the variables they order; the choice of encoding goes by the user's own.
    compared_vars = normal.compared_variables(len(declared.constraints)) if normal.alldiffs else []
    estimate = memory.check_cnf(model, normal, is_log, opts, PAIRWISE_LIMIT, compared_vars)
    placed = placement_variables(normal, is_log, compared_vars) if normal.alldiffs else None
    is_direct = _choose_direct(normal, is_log, opts["int"], model.objective.var if model.objective else None, placed)
    out = ClauseBuffer()
    # A log variable gets no order literals: its place in the order encoding is a one-value stand-in.
    order = OrderEncoding([Domain.range(0, 0) if lg else d for d, lg in zip(normal.int_domains, is_log)], pool,
                          is_direct if any(is_direct) else None, out)
    order.vectorise = estimate >= VECTOR_MIN_CNF
    order.axioms(out)
    log = LogEncoding(normal.int_domains, is_log, pool, out, normal.defined) if any(is_log) else None
    guards = [[-s] for s in sels] if sels else None
    cards = Totalizers(pool, out, opts["amo"])
    seen = _Seen(name_all=opts["disjunction"] == "named")
    clauses = _direct_clauses(normal, order) if order.direct else zip(normal.clauses, normal.origins)
    for lits, origin in clauses:
        prefix = guards[origin] if guards and origin >= 0 else []
        _encode_clause(lits, prefix, order, pool, out, cards, log, seen)
    spread = 0  # alldifferents over more values than terms (not permutations): read by `solver.choose_solver`
    placement = 0  # ... of them, value-wise over variables compared with nothing: read by `solver.sat_mode`
    for ad in normal.alldiffs:
        prefix = guards[ad.origin] if guards else []
        huge = any(is_log[v] for v in ad.vars)
        spreads = huge or memory.alldiff_sweep([normal.int_domains[x] for x in ad.vars], ad.offsets)[2] > len(ad.vars)
        if spreads:
            spread += 1
        if huge:
            # Huge domains: no value-wise encoding; x + o ≠ y + p for each pair, by binary comparators.
            for i in range(len(ad.vars)):
                for j in range(i + 1, len(ad.vars)):
                    x, y, k = ad.vars[i], ad.vars[j], ad.offsets[j] - ad.offsets[i]
                    if x == y:
                        if k == 0:
                            out.add(prefix)
                        continue
                    ne = [Linear((1, -1), (x, y), k - 1), Linear((-1, 1), (x, y), -k - 1)]
                    _encode_clause(ne, prefix, order, pool, out, cards, log, seen)
            continue
        compared = any(compared_vars[v] for v in ad.vars)
        method = encode_alldifferent(order, ad.vars, ad.offsets, prefix, pool, out, opts["alldifferent"], compared)
        if spreads and method == "amo" and not compared:
            placement += 1
    t2 = time.perf_counter()
    stats = {
        "normalise_s": t1 - t0,
        "normalise_passes": normal.passes,
        "encode_s": t2 - t1,
        "int_vars": len(declared.int_vars),
        "bool_vars": len(model.bool_vars),
        "aux_int_vars": normal.num_ints - len(declared.int_vars),
        "symmetry_constraints": symmetric_constraints,
        "aux_bool_vars": normal.num_bools - len(model.bool_vars),
        "aux_vars": pool.top - normal.num_bools - order.num_order_vars - (len(sels) if sels else 0),
        "order_vars": order.num_order_vars,
        "normal_clauses": len(normal.clauses),
        "num_vars": pool.top,
        "num_clauses": out.count,
    }
    stats["log_vars"] = len(log.bits) if log else 0
    stats["direct_vars"] = sum(order.direct)
    stats["alldifferent_spread"] = spread
    stats["alldifferent_placement"] = placement
    return Compiled(model, normal, order, pool, out, sels, opts, stats, log)
