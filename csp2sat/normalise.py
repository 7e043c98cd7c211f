"""Pipeline stage "normalise": a checked `Model` becomes a `NormalCSP`.

A `NormalCSP` is a list of clauses whose literals are Boolean variables or
linear comparisons ``Σ aᵢ·xᵢ ≤ c`` (`Linear`) over integer variables with
finite domains, plus `AllDifferent` records that an encoder may translate
value-wise. Everything above that level is removed here:

* nested formulas are flattened by Tseitin's transformation with polarity
  (only the direction that the context needs is defined);
* non-linear terms (``abs min max if mul div mod``) become auxiliary integer
  variables with their defining clauses and a domain that is the exact image
  of their arguments' domains (or a sound superset when that is too large);
* global constraints are decomposed the way Sugar 2.3.3 does, predicates are
  inlined and relations become tables of clauses;
* constants are folded, single-variable top-level constraints tighten domains
  (only without selectors; ``|E| ≤ c`` too), a wide variable tied to a narrower
  one by a top-level equation keeps the values with a partner, literals
  decided by the bounds disappear (a comparison with non-linear terms is bounded
  before it is translated, so that a decided one leaves no auxiliary behind), and an
  empty clause ends the translation
  (every constraint being hard, the rest need not be encoded);
* sums with more than three terms are split with auxiliary variables so that
  no literal costs the order encoding more than O(d²) clauses, except (with
  ``cardinality=True``) counts: ±1 coefficients over 0/1 variables stay whole
  for the cardinality encoder (`encoders.cardinality`).

This stage knows nothing of CNF: the encoders (`encoders`) translate
the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Union

from csp2sat._gc import gc_paused
from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import Domain, Model, Node

# A domain image is computed exactly (with its holes) when it needs at most this many steps.
EXACT_IMAGE_LIMIT = 1 << 16
# Largest domain the order encoding accepts (one CNF variable per value).
MAX_DOMAIN_SIZE = 1 << 22
# Largest domain at all (log-encoded variables, `large` not "order"): every value of -2³¹..2³¹.
MAX_LOG_DOMAIN_SIZE = (1 << 32) + 1
# Largest domain of an intermediate value (log-encoded): the product of two such variables.
MAX_AUX_LOG_DOMAIN_SIZE = (1 << 64) + 1
# ``div``/``mod``/``abs`` of an argument with more values than this are defined by linear
# constraints (x = d·q + r, ...) instead of a table with one entry per value: about as many
# clauses in the order encoding, and few in the log encoding (which such domains may get).
TABLE_LIMIT = 1 << 10
# min/max of two single-variable terms with at most this many values: three clauses per value.
PER_VALUE_MINMAX_LIMIT = 64
# A product whose narrower factor has at most this many values is one case per value (z = u·y when x = u),
# even where y or z is log-encoded: a few comparison circuits against constants are searched far better
# than a multiplier circuit (x of 45 values times y of 30,001: 22 s → 0.3 s; price·quantity costs minimised,
# 50 prices: 5.9 → 2.5 s; 150 random files with products: 224 → 213 s, one time-out fewer).
PRODUCT_CASES_LIMIT = 64
# A comparison of two variables x, y with a product of them over more values than this is split on the values
# of the narrower (at most `TABLE_LIMIT`): each case a bound on the other (`Normaliser._product_split_variable`).
PRODUCT_SPLIT_RANGE = 1 << 16
# ... or of at most this many, for a constraint of the file by itself against an order-encoded other variable.
PRODUCT_SPLIT_LIMIT = 1 << 12
# The domain sizes at which the translation of a product, quotient or remainder changes (`narrowed_domains`).
_METHOD_LIMITS = (PRODUCT_CASES_LIMIT, TABLE_LIMIT, PRODUCT_SPLIT_LIMIT)
# Values of narrow variables `_narrow_wide_by_equations` may try in all (a file of many such equations
# over 65,536-value partners would otherwise spend minutes there).
NARROWING_BUDGET = 4_000_000
# Longest sum a literal may keep; longer sums are split (Sugar also uses 3).
MAX_SUM_TERMS = 3
# An `or` of intervals of one variable with at most this many values in all: one literal per value
# (`_Normaliser._memberships`).
MEMBER_MAX_VALUES = 64
# Predicate calls nested deeper than this are taken as a runaway recursion.
MAX_INLINE_DEPTH = 200
# A call whose expansion (its body with every call in it expanded in turn) has more nodes than this
# is refused before it is expanded: bodies that call the previous predicate twice double at each level.
MAX_INLINE_NODES = 5_000_000


class Linear:
    """The literal ``Σ coefs[i]·vars[i] ≤ c`` over integer variable indices (coefficients non-zero)."""

    __slots__ = ("coefs", "vars", "c")

    def __init__(self, coefs: tuple[int, ...], vars: tuple[int, ...], c: int) -> None:
        self.coefs = coefs
        self.vars = vars
        self.c = c

    def negated(self) -> "Linear":
        """The complement ``Σ -coefs[i]·vars[i] ≤ -c-1``."""
        return Linear(tuple(-a for a in self.coefs), self.vars, -self.c - 1)

    def __repr__(self) -> str:
        terms = " + ".join(f"{a}*x{v}" for a, v in zip(self.coefs, self.vars))
        return f"Linear({terms} <= {self.c})"


# A literal: a Boolean literal (±(index+1)) or a Linear comparison.
Lit = Union[int, Linear]
# A literal of a predicate-call template: ±(argument position+1) for a Boolean
# argument, or (coefs, argument positions, c) for a Linear comparison.
CallLit = Union[int, tuple]
# The clauses of a predicate call: its distinct literals, and each clause as indices into them.
CallTemplate = tuple[list[CallLit], list[tuple[int, ...]]]
# Formulas in negation normal form: True/False, a literal, ("and", [...]) or ("or", [...]).
NNF = Union[bool, int, Linear, tuple]


@dataclass
class AllDifferent:
    """``alldifferent(vars[i] + offsets[i])`` asserted at top level (constants already removed)."""

    vars: tuple[int, ...]
    offsets: tuple[int, ...]
    origin: int


@dataclass
class NormalCSP:
    """The normalised problem.

    Integer variables and Boolean variables are numbered from 0; user variables
    come first in model order (`int_names`/`bool_names` give their names, None for
    auxiliaries). `clauses[k]` is a list of literals derived from
    ``model.constraints[origins[k]]`` (origin -1: definitions of auxiliaries,
    which are satisfiable whatever the other variables are).
    """

    int_names: list[str | None] = field(default_factory=list)
    int_domains: list[Domain] = field(default_factory=list)
    bool_names: list[str | None] = field(default_factory=list)
    clauses: list[list[Lit]] = field(default_factory=list)
    origins: list[int] = field(default_factory=list)
    alldiffs: list[AllDifferent] = field(default_factory=list)
    # Auxiliaries defined by an equation with a sum (`Normaliser._define_eq`): each value they take is the sum's,
    # so their domain's holes need no clauses of their own (a log encoding would pay one or more per hole).
    defined: set[int] = field(default_factory=set)
    # 2 when the model was translated again over the domains that bounds propagation found (`Normaliser.narrowed_domains`)
    passes: int = 1

    @property
    def num_ints(self) -> int:
        """Number of integer variables (user and auxiliary)."""
        return len(self.int_domains)

    @property
    def num_bools(self) -> int:
        """Number of Boolean variables (user and auxiliary)."""
        return len(self.bool_names)

    def compared_variables(self, origins_below: int | None = None) -> list[bool]:
        """For each integer variable: does it meet another variable in a clause (a sum, a difference, a comparison)?

        Alldifferents are not clauses here, so a variable that only alldifferents and
        constants constrain (a sudoku cell) is not compared (what ``alldifferent=auto`` asks).
        With `origins_below`, only the clauses of constraints numbered below it (and of
        auxiliary definitions) count: the compiler's own additions (value symmetry breaking)
        do not make the user's variables compared.
        """
        compared = [False] * len(self.int_domains)
        for lits, origin in zip(self.clauses, self.origins):
            if origins_below is not None and origin >= origins_below:
                continue
            for lit in lits:
                if lit.__class__ is Linear and len(lit.vars) > 1:
                    for v in lit.vars:
                        compared[v] = True
        return compared


# Parameters of an inlined predicate: name -> (argument node, binding of the caller).
Binding = dict[str, tuple[Node, "Binding | None"]]
# A linear expression: ({var index: coefficient}, constant).
Expr = tuple[dict[int, int], int]


def _image(values: Iterable[int]) -> Domain:
    """The domain holding exactly `values`."""
    return Domain.of([(v, v) for v in set(values)])


def _floor_div(a: int, b: int) -> int:
    return a // b


def _junction(op: str, unit: bool, items: Iterable[NNF]) -> NNF:
    """``(op items...)`` simplified: `unit` items dropped, the absorbing constant short-cuts, nested `op` merged."""
    out: list[NNF] = []
    for item in items:
        if item is unit:
            continue
        if item is (not unit):
            return not unit
        if isinstance(item, tuple) and item[0] == op:
            out.extend(item[1])
        else:
            out.append(item)
    if not out:
        return unit
    return out[0] if len(out) == 1 else (op, out)


def _mk_and(items: Iterable[NNF]) -> NNF:
    return _junction("and", True, items)


def _mk_or(items: Iterable[NNF]) -> NNF:
    return _junction("or", False, items)


def _negate_lit(lit: NNF) -> NNF:
    if lit is True or lit is False:
        return not lit
    if isinstance(lit, Linear):
        return lit.negated()
    return -lit


def _possible(lit: NNF) -> tuple[bool, ...]:
    """The truth values a literal can take: one for a constant, both otherwise."""
    return (lit,) if isinstance(lit, bool) else (False, True)


def _is_lit(x: NNF) -> bool:
    return not isinstance(x, tuple)


def _node(op: str, *args: Node, value: object = None, at: Node | None = None) -> Node:
    """A synthetic node (decompositions of globals) carrying the position of `at`."""
    return Node(op, tuple(args), value, at.line if at else 0, at.col if at else 0)


def _const(v: int) -> Node:
    return Node("const", (), v)


def check_domain_sizes(model: Model, max_domain: int = MAX_LOG_DOMAIN_SIZE) -> None:
    """Raise `CspError` (`Exit.LIMIT`, at the declaration) for the first integer variable of `model` with more
    than `max_domain` values (by default the most any encoding takes)."""
    for var in model.int_vars.values():
        if var.domain.size > max_domain:
            raise CspError(
                f"domain of '{var.name}' has {var.domain.size} values; at most {max_domain} are supported"
                + (" (with -O large=order; the default log-encodes large domains)" if max_domain < MAX_LOG_DOMAIN_SIZE else ""),
                var.line, var.col, model.file, Exit.LIMIT,
            )


class Normaliser:
    """Translates one `Model`; use `normalise()` rather than this class directly."""

    def __init__(self, model: Model, tighten: bool = True, cardinality: bool = False,
                 max_domain: int = MAX_DOMAIN_SIZE, shared_split: bool = False,
                 domains: "dict[str, Domain] | None" = None) -> None:
        self.model = model
        # A product, quotient or remainder was translated: how depends on its arguments' domain sizes.
        self._sized_by_domains = False
        self.shared_split = shared_split
        self.max_domain = max_domain
        self.tighten = tighten
        self.cardinality = cardinality
        self.csp = NormalCSP()
        self.int_index: dict[str, int] = {}
        self.bool_index: dict[str, int] = {}
        self.origin = -1
        self.where: Node | None = None
        self._term_cache: dict[Node, Expr] = {}
        self._var_cache: dict[tuple, int] = {}
        self._named: dict[int, tuple[Node, NNF]] = {}
        self._split_cache: dict[tuple, int] = {}
        self._equal_cache: dict[tuple[int, int], int] = {}  # (int var, value) -> Boolean ⇔ var = value
        # Clauses of top-level predicate calls, per (predicate, argument shape); False: not reusable.
        self._call_templates: dict[tuple, "CallTemplate | bool"] = {}
        self._closed: dict[str, bool] = {}
        self._expanded_nodes: dict[str, int] = {}
        # Inside an inlined predicate: parameter -> (argument node, the binding the argument is read in).
        self._binding: Binding | None = None
        self._depth = 0
        self._contradiction = False  # an empty clause was written
        self._equations: list[tuple[int, int, int, int, int]] = []  # (x, a, y, b, k): top-level a·x + b·y + k = 0
        self._products: list[tuple[int, int, int]] = []  # (x, y, z): z = x·y, for `_propagate_bounds`
        self._functions: list[tuple[int, int, dict[int, int]]] = []  # (x, z, table): z = table[x], likewise
        self._table_clauses: list[tuple[int, int]] = []  # clause ranges of `_table`: bounds propagation reads the table
        # Auxiliary variables that are functions of one variable (tables, quotients, remainders): z -> (x, f), z = f(x)
        self._function_of: dict[int, tuple[int, Callable[[int], int]]] = {}
        # Cumulative's horizon comes from the declared domains (never from tightened ones).
        self.declared_bounds = model.declared_bounds()
        check_domain_sizes(model, max_domain)
        for var in model.int_vars.values():
            self.int_index[var.name] = len(self.csp.int_domains)
            self.csp.int_domains.append(var.domain if domains is None else domains[var.name])
            self.csp.int_names.append(var.name)
        for bvar in model.bool_vars.values():
            self.bool_index[bvar.name] = len(self.csp.bool_names)
            self.csp.bool_names.append(bvar.name)

    # ------------------------------------------------------------ errors and variables

    def error(self, message: str, node: Node | None, exit: Exit = Exit.UNSUPPORTED) -> CspError:
        """A positioned error at `node` (or at the constraint being translated)."""
        at = node if node is not None and node.line else self.where
        return CspError(message, at.line if at else 0, at.col if at else 0, self.model.file, exit)

    @property
    def _log_allowed(self) -> bool:
        """True unless `-O large=order` keeps every variable in the order encoding."""
        return self.max_domain >= MAX_LOG_DOMAIN_SIZE

    def new_int(self, domain: Domain) -> int:
        """A fresh auxiliary integer variable."""
        limit = MAX_AUX_LOG_DOMAIN_SIZE if self._log_allowed else self.max_domain
        if domain.size > limit:
            raise self.error(
                f"an intermediate value ranges over {domain.size} values; at most {limit} are supported",
                None, Exit.LIMIT,
            )
        self.csp.int_domains.append(domain)
        self.csp.int_names.append(None)
        return len(self.csp.int_domains) - 1

    def new_bool(self) -> int:
        """A fresh auxiliary Boolean variable, as a positive literal."""
        self.csp.bool_names.append(None)
        return len(self.csp.bool_names)

    # ------------------------------------------------------------ clauses

    def emit(self, nnf: NNF, origin: int) -> None:
        """Add clauses that make `nnf` true (Tseitin variables for nested conjunctions)."""
        self._emit(nnf, [], origin)

    def _emit(self, nnf: NNF, prefix: list[Lit], origin: int) -> None:
        if nnf is True:
            return
        if nnf is False:
            self._add_clause(list(prefix), origin)
            return
        if _is_lit(nnf):
            self._add_clause(prefix + [nnf], origin)
            return
        kind, items = nnf
        if kind == "and":
            for item in items:
                self._emit(item, prefix, origin)
            return
        if len(items) > 2:
            items = self._memberships(items)
        if self._equal_cache:
            items = self._exclusions(items)
        lits = [x for x in items if _is_lit(x)]
        conj = [x for x in items if not _is_lit(x)]
        # One conjunction can be distributed over the rest of the clause without a new variable.
        for sub in conj[1:]:
            t = self.new_bool()
            lits.append(t)
            self._emit(sub, [-t], -1)
        if conj:
            self._emit(conj[0], prefix + lits, origin)
        else:
            self._add_clause(prefix + lits, origin)

    def _memberships(self, items: list) -> list:
        """The items of an `or`, those saying "x in one of several intervals" (at least two bounded
        on both sides, at most `MEMBER_MAX_VALUES` values in all) replaced by one literal ``x = v``
        per value (`_equal`).

        Why: written as intervals, the clause is distributed and all but one interval named by a
        one-way auxiliary, which propagates as much but learns far worse: the pentomino boxes'
        "cell (R, C) is piece K's" → "p_K is one of these placements" needs half the conflicts
        with the values as one clause (docs/performance.md, "Pentomino one answer").
        """
        found: dict[int, list[tuple[int, int, int, bool]]] = {}
        for k, item in enumerate(items):
            span = self._interval(item)
            if span is not None:
                found.setdefault(span[0], []).append((k, span[1], span[2], not _is_lit(item)))
        replaced: set[int] = set()
        extra: list[Lit] = []
        for x, spans in found.items():
            if sum(1 for *_, both in spans if both) < 2:
                continue
            dom = self.csp.int_domains[x]
            spans = [(k, max(lo, dom.lb), min(hi, dom.ub), both) for k, lo, hi, both in spans]
            if sum(hi - lo + 1 for _, lo, hi, _ in spans if hi >= lo) > MEMBER_MAX_VALUES:
                continue
            values = sorted({v for _, lo, hi, _ in spans for v in range(lo, hi + 1) if v in dom})
            replaced.update(k for k, *_ in spans)
            extra.extend(self._equal(x, v) for v in values)
        if not replaced:
            return items
        return [item for k, item in enumerate(items) if k not in replaced] + extra

    def _exclusions(self, items: list) -> list:
        """The items of an `or`, a pair ``x < a``, ``x > b`` of a variable whose values have literals
        (`_memberships`) replaced by the conjunction of ``x ≠ v`` for v in [a, b] (put first, so that it
        is the one distributed over the clause): "placement v is impossible" then says so in the same
        literals the memberships use."""
        upper: dict[int, int] = {}
        for k, item in enumerate(items):
            if item.__class__ is Linear and len(item.vars) == 1 and item.coefs[0] > 0:
                upper[item.vars[0]] = k
        if not upper:
            return items
        for k, item in enumerate(items):
            if item.__class__ is not Linear or len(item.vars) != 1 or item.coefs[0] > 0 or item.vars[0] not in upper:
                continue
            x = item.vars[0]
            j = upper[x]
            below = items[j].c // items[j].coefs[0]
            above = -(item.c // -item.coefs[0])
            gap = [v for v in range(below + 1, above) if v in self.csp.int_domains[x]] \
                if above - below <= MEMBER_MAX_VALUES else []
            if not gap or any((x, v) not in self._equal_cache for v in gap):
                continue
            excluded = [-self._equal_cache[(x, v)] for v in gap]
            rest = [other for i, other in enumerate(items) if i != j and i != k]
            return [("and", excluded) if len(excluded) > 1 else excluded[0]] + rest
        return items

    @staticmethod
    def _interval(item: NNF) -> "tuple[int, int, int] | None":
        """(x, lo, hi) when `item` says lo ≤ x ≤ hi of one integer variable (one bound may be open)."""
        if _is_lit(item):
            parts = [item]
        elif item[0] == "and" and len(item[1]) == 2:
            parts = item[1]
        else:
            return None
        lo, hi, var = -(1 << 62), 1 << 62, None
        for lit in parts:
            if lit.__class__ is not Linear or len(lit.vars) != 1 or (var is not None and lit.vars[0] != var):
                return None
            var, a = lit.vars[0], lit.coefs[0]
            if a > 0:
                hi = min(hi, lit.c // a)
            else:
                lo = max(lo, -(lit.c // -a))
        return var, lo, hi

    def _equal(self, x: int, v: int) -> int:
        """A Boolean defined (both ways) as ``x = v``, one per (x, v) and shared."""
        lit = self._equal_cache.get((x, v))
        if lit is None:
            lit = self.new_bool()
            self._equal_cache[(x, v)] = lit
            at_most, at_least = Linear((1,), (x,), v), Linear((-1,), (x,), -v)
            below, above = Linear((1,), (x,), v - 1), Linear((-1,), (x,), -v - 1)
            self._add_clause([-lit, at_most], -1)
            self._add_clause([-lit, at_least], -1)
            self._add_clause([lit, below, above], -1)
        return lit

    def _add_clause(self, lits: list[Lit], origin: int) -> None:
        out: list[Lit] = []
        for lit in lits:
            if isinstance(lit, Linear) and len(lit.vars) > MAX_SUM_TERMS and not self._is_count(lit):
                lit = self._split(lit)
            out.append(lit)
        if not out:
            self._contradiction = True
        self.csp.clauses.append(out)
        self.csp.origins.append(origin)

    def _is_count(self, lit: Linear) -> bool:
        """True when the cardinality encoder takes the literal: ±1 coefficients over 0/1 variables."""
        return self.cardinality and is_count(zip(lit.coefs, lit.vars), self.csp.int_domains)

    def _split(self, lit: Linear) -> Linear:
        """An equivalent-for-satisfiability literal of at most 3 terms.

        Pairs of terms are replaced by an auxiliary ``a ≥ Σ pair``; the literal is
        ``≤``, so the one direction suffices: a solution of the original extends
        with ``a = Σ pair``, and every solution of the new clauses satisfies the
        original (the sum only grew).
        """
        doms = self.csp.int_domains
        terms = sorted(zip(lit.coefs, lit.vars), key=lambda t: doms[t[1]].size)
        whole = [t for t in terms if self._log_term(t[1])]
        terms = [t for t in terms if not self._log_term(t[1])]
        while len(terms) + len(whole) > MAX_SUM_TERMS and len(terms) > 1:
            nxt: list[tuple[int, int]] = []
            for k in range(0, len(terms) - 1, 2):
                pair = (terms[k], terms[k + 1])
                key = tuple(sorted(pair))
                aux = self._split_cache.get(key)
                if aux is None:
                    expr = ({pair[0][1]: pair[0][0]}, 0)
                    expr[0][pair[1][1]] = expr[0].get(pair[1][1], 0) + pair[1][0]
                    aux = self.new_int(self.domain_of(expr))
                    coefs, vars_ = zip(*pair)
                    self.csp.clauses.append([Linear(tuple(coefs) + (-1,), tuple(vars_) + (aux,), 0)])
                    self.csp.origins.append(-1)
                    self._split_cache[key] = aux
                nxt.append((1, aux))
            if len(terms) % 2:
                nxt.append(terms[-1])
            terms = sorted(nxt, key=lambda t: doms[t[1]].size)
        coefs, vars_ = zip(*(terms + whole))
        return Linear(tuple(coefs), tuple(vars_), lit.c)

    def _log_term(self, v: int) -> bool:
        """True for a variable the compiler log-encodes whatever else happens (more than 2¹⁶ values): a sum keeps
        such terms whole, since a log adder takes any number of terms. Named in pairs by auxiliaries equal to
        their sums, they made circuits whose output bits the SAT solver decides apart from their inputs:
        ``-544546·x0 - 721961·x5 + 9721·x3 + 775602·x2 ≠ 960224`` over ±2³⁰ and ±10⁶ took Glucose 117 k
        conflicts (Lingeling 224 s) to satisfy, a sum of three such terms 158."""
        return self._log_allowed and self.csp.int_domains[v].size > EXACT_IMAGE_LIMIT

    # ------------------------------------------------------------ linear expressions

    def bounds(self, expr: Expr) -> tuple[int, int]:
        """Smallest and largest value of a linear expression over the domains."""
        lo = hi = expr[1]
        doms = self.csp.int_domains
        for v, a in expr[0].items():
            d = doms[v]
            if a > 0:
                lo += a * d.lb
                hi += a * d.ub
            else:
                lo += a * d.ub
                hi += a * d.lb
        return lo, hi

    def domain_of(self, expr: Expr) -> Domain:
        """The values a linear expression takes: exact when cheap, else its interval hull."""
        coefs, k = expr
        doms = self.csp.int_domains
        if not coefs:
            return Domain.range(k, k)
        if len(coefs) == 1:
            (v, a), = coefs.items()
            d = doms[v]
            if a == 1 or a == -1:
                return Domain.of([(a * lo + k, a * hi + k) if a == 1 else (a * hi + k, a * lo + k) for lo, hi in d.intervals])
            if d.size <= EXACT_IMAGE_LIMIT:
                return _image(a * x + k for x in d.values())
            lo, hi = self.bounds(expr)
            return Domain.range(lo, hi)
        if all(a == 1 or a == -1 for a in coefs.values()) and all(len(doms[v].intervals) == 1 for v in coefs):
            # ±1 sums of intervals fill the interval between their bounds: exact, without listing the values
            # (a magic square's pairs of 1..100 made 10,000 sums each, a fifth of its compile time).
            lo, hi = self.bounds(expr)
            return Domain.range(lo, hi)
        steps = 1
        for v in coefs:
            steps *= doms[v].size
        if steps <= EXACT_IMAGE_LIMIT:
            acc = {k}
            for v, a in coefs.items():
                acc = {s + a * x for s in acc for x in doms[v].values()}
            return _image(acc)
        lo, hi = self.bounds(expr)
        return Domain.range(lo, hi)

    def le(self, expr: Expr, c: int = 0) -> NNF:
        """The literal ``expr ≤ c``, folded to True/False when the bounds decide it."""
        coefs, k = expr
        c -= k
        if len(coefs) == 1:  # one variable, the commonest case in generated files: no dict or gcd
            ((v, a),) = coefs.items()
            if a:
                return self._le_one(v, a, c)
        items = [(a, v) for v, a in coefs.items() if a]
        if not items:
            return 0 <= c
        lo, hi = self.bounds(({v: a for a, v in items}, 0))
        if hi <= c:
            return True
        if lo > c:
            return False
        g = 0
        for a, _ in items:
            g = math.gcd(g, a)
        if g > 1:
            items = [(a // g, v) for a, v in items]
            c = _floor_div(c, g)
        coefs_t, vars_t = zip(*items)
        return Linear(tuple(coefs_t), tuple(vars_t), c)

    def _compare_one(self, op: str, v: int, a: int, k: int) -> NNF:
        """``compare(op, ...)`` of the difference ``a·x_v + k`` with 0 (a = ±1), without building its dicts."""
        if op == "le":
            return self._le_one(v, a, -k)
        if op == "lt":
            return self._le_one(v, a, -1 - k)
        if op == "ge":
            return self._le_one(v, -a, k)
        if op == "gt":
            return self._le_one(v, -a, k - 1)
        if op == "eq":
            return _mk_and([self._le_one(v, a, -k), self._le_one(v, -a, k)])
        return _mk_or([self._le_one(v, a, -1 - k), self._le_one(v, -a, k - 1)])  # ne

    def _extremum_by_bounds(self, op: str, x: Node, y: Node) -> "NNF | None":
        """``f op E`` (or ``E op f``) for f an ``abs``, ``min`` or ``max`` and E a constant or a term with one
        variable, as comparisons of f's arguments with E; None when neither side fits.

        ``max(A, B) ≤ E`` is ``A ≤ E ∧ B ≤ E``, ``max(A, B) ≥ E`` is ``A ≥ E ∨ B ≥ E`` (``min`` the
        other way round), ``=`` both, ``≠`` ``≥ E+1 ∨ ≤ E-1``; ``|A|`` is ``max(A, -A)``. No variable for f,
        nor for a sum inside it: n-queens written ``(!= (abs (- q_i q_j)) (- j i))`` per pair needed two
        auxiliary variables per pair, ~n² clauses each (50 queens: 6.7 M clauses); now each pair is
        two ≠ of a difference, ~2n clauses. Against a variable m, ``(<= m (max p x))`` over 1..5 was 16
        clauses with a variable for the max and is 4 now (one per value of m: the encoder merges the
        disjunction of two comparisons that share m). Against a variable, only arguments of one variable
        each are compared: E with more variables, or an argument that is a sum, would be copied into
        several comparisons, so f keeps its variable.
        """
        if x.op not in _EXTREMA:
            x, y, op = y, x, _MIRRORED[op]
        if x.op not in _EXTREMA:
            return None
        atoms = _variable_atoms(y)
        if atoms > 1:
            return None
        if atoms == 1:
            # Written as comparisons of nodes, so that each is read by every rule for comparisons (bounds,
            # products by signs); nothing is named before it is known to fit.
            if x.op == "abs":
                if _variable_atoms(x.args[0]) <= 1:
                    return None  # |a·v + b| is a table over v's values, fewer clauses than two comparisons with E
                args = [x.args[0], Node("neg", (x.args[0],))]
            else:
                args = list(x.args)
                if any(_variable_atoms(a) > 1 for a in args):
                    return None  # sums would meet E in up to four comparisons each (eq in an iff: 7.8 k -> 11.2 k clauses)
            return self.formula(_extremum_formula(op, args, x.op != "min", y), True)
        bound = self.term(y)
        if x.op == "abs":
            e = self.term(x.args[0])
            if op in ("eq", "ne"):  # |E| = c is E = c ∨ E = -c: two values of E, not bounds on E and -E
                c = bound[1]
                if c <= 0:
                    return (op == "ne") if c < 0 else self.compare(op, e, ({}, 0))
                pair = [self.compare(op, e, ({}, c)), self.compare(op, e, ({}, -c))]
                return _mk_or(pair) if op == "eq" else _mk_and(pair)
            args, biggest = [e, _scale(e, -1)], True
        else:
            args, biggest = [self.term(a) for a in x.args], x.op == "max"

        def beyond(side: str, shift: int) -> NNF:  # f ≤ c + shift (side "le") or f ≥ c + shift (side "ge")
            k = (bound[0], bound[1] + shift)
            parts = [self.compare(side, a, k) for a in args]
            return _mk_and(parts) if biggest == (side == "le") else _mk_or(parts)

        if op == "le":
            return beyond("le", 0)
        if op == "lt":
            return beyond("le", -1)
        if op == "ge":
            return beyond("ge", 0)
        if op == "gt":
            return beyond("ge", 1)
        if op == "eq":
            return _mk_and([beyond("le", 0), beyond("ge", 0)])
        return _mk_or([beyond("ge", 1), beyond("le", -1)])  # ne

    def _le_one(self, v: int, a: int, c: int) -> NNF:
        """``le(({v: a}, 0), c)`` for a ≠ 0: ``a·x_v ≤ c``, folded to True/False when the bounds decide it."""
        d = self.csp.int_domains[v]
        lo, hi = (a * d.lb, a * d.ub) if a > 0 else (a * d.ub, a * d.lb)
        if hi <= c:
            return True
        if lo > c:
            return False
        if a == 1 or a == -1:
            return Linear((a,), (v,), c)
        return Linear((1 if a > 0 else -1,), (v,), _floor_div(c, abs(a)))

    def compare(self, op: str, a: Expr, b: Expr) -> NNF:
        """The comparison ``a OP b`` (op canonical: eq ne le lt ge gt) in NNF."""
        diff = _sub(a, b)
        if op == "le":
            return self.le(diff, 0)
        if op == "lt":
            return self.le(diff, -1)
        neg = _scale(diff, -1)
        if op == "ge":
            return self.le(neg, 0)
        if op == "gt":
            return self.le(neg, -1)
        if op in ("eq", "ne") and self.shared_split and len(diff[0]) > MAX_SUM_TERMS:
            diff = self._split_equal(diff)
            neg = _scale(diff, -1)
        if op == "eq":
            return _mk_and([self.le(diff, 0), self.le(neg, 0)])
        if op == "ne":
            return _mk_or([self.le(diff, -1), self.le(neg, -1)])
        raise self.error(f"unknown comparison '{op}'", None, Exit.INTERNAL)

    def _split_equal(self, expr: Expr) -> Expr:
        """A long sum of an (in)equality with pairs of terms replaced by variables *equal* to them (Sugar's way).

        Both halves of ``=`` then share the auxiliary variables (``_split`` gives
        each ``≤`` its own one-sided ones). Counts are left to the cardinality encoder.
        """
        coefs, k = expr
        doms = self.csp.int_domains
        if self.cardinality and is_count(((a, v) for v, a in coefs.items()), doms):
            return expr
        terms = sorted(coefs.items(), key=lambda t: doms[t[0]].size)
        whole = [t for t in terms if self._log_term(t[0])]
        terms = [t for t in terms if not self._log_term(t[0])]
        while len(terms) + len(whole) > MAX_SUM_TERMS and len(terms) > 1:
            nxt: list[tuple[int, int]] = []
            for i in range(0, len(terms) - 1, 2):
                (v1, a1), (v2, a2) = terms[i], terms[i + 1]
                g = math.gcd(a1, a2)
                if a1 < 0:
                    g = -g  # the pair as g·(b1·v1 + b2·v2) with b1 > 0, so that x+y and -x-y share a variable
                nxt.append((self.as_var(({v1: a1 // g, v2: a2 // g}, 0)), g))
            if len(terms) % 2:
                nxt.append(terms[-1])
            merged: dict[int, int] = {}
            for v, a in nxt:
                merged[v] = merged.get(v, 0) + a
            terms = sorted(((v, a) for v, a in merged.items() if a), key=lambda t: doms[t[0]].size)
        return dict(terms + whole), k

    def as_var(self, expr: Expr) -> int:
        """An integer variable equal to `expr` (the variable itself when `expr` is one)."""
        coefs, k = expr
        if k == 0 and len(coefs) == 1:
            (v, a), = coefs.items()
            if a == 1:
                return v
        key = ("lin", tuple(sorted(coefs.items())), k)
        aux = self._var_cache.get(key)
        if aux is None:
            aux = self.new_int(self.domain_of(expr))
            self._define_eq(aux, expr)
            self._var_cache[key] = aux
        return aux

    def _define_eq(self, aux: int, expr: Expr) -> None:
        self.csp.defined.add(aux)
        d = _sub(expr, ({aux: 1}, 0))
        self.emit(_mk_and([self.le(d, 0), self.le(_scale(d, -1), 0)]), -1)

    # ------------------------------------------------------------ terms

    def term(self, node: Node) -> Expr:
        """The linear expression of a term; non-linear parts become auxiliary variables."""
        op = node.op
        if op == "const":
            return {}, int(node.value)
        if op == "ivar":
            return {self.int_index[node.value]: 1}, 0
        if op == "add":
            acc: Expr = ({}, 0)
            for arg in node.args:
                acc = _add(acc, self.term(arg))
            return acc
        if op == "sub" or (op == "neg" and len(node.args) > 1):
            if len(node.args) == 1:
                return _scale(self.term(node.args[0]), -1)
            acc = self.term(node.args[0])
            for arg in node.args[1:]:
                acc = _sub(acc, self.term(arg))
            return acc
        if op == "neg":
            return _scale(self.term(node.args[0]), -1)
        if op == "mul":
            a, b = self.term(node.args[0]), self.term(node.args[1])
            if not a[0]:
                return _scale(b, a[1])
            if not b[0]:
                return _scale(a, b[1])
        if op == "param":
            arg, env = self._binding[node.value]
            while arg.op == "param":
                arg, env = env[arg.value]
            if arg.op == "ivar":  # the common case, without switching bindings
                return {self.int_index[arg.value]: 1}, 0
            return self._with_binding(env, self.term, arg)
        if self._binding is not None:
            # Auxiliary variables are shared by equal terms: compare them with parameters replaced.
            return self._with_binding(None, self.term, _resolve(node, self._binding))
        cached = self._term_cache.get(node)
        if cached is not None:
            return cached
        expr = self._nonlinear(node)
        self._term_cache[node] = expr
        return expr

    def _nonlinear(self, node: Node) -> Expr:
        op = node.op
        if op == "mul":
            self._sized_by_domains = True
            return self._product(self.term(node.args[0]), self.term(node.args[1]))
        if op in ("div", "mod"):
            x = self.term(node.args[0])
            d = self.term(node.args[1])
            dv = d[1]
            # A divisor with variables will do where it has one value only (a variable declared (int y 2)), as in Sugar.
            if d[0]:
                values = self.domain_of(d)
                if values.size != 1:
                    raise self.error(f"'{op}' by a variable is not supported (the divisor must be a constant)",
                                     node.args[1])
                dv = values.intervals[0][0]
            if dv == 0:
                raise self.error(f"'{op}' by zero", node.args[1])
            self._sized_by_domains = self._sized_by_domains or bool(x[0])
            if x[0] and self.domain_of(x).size > TABLE_LIMIT:
                return self._divmod(op, x, dv)
            if op == "div":
                return self._unary(x, lambda v: v // dv)
            return self._unary(x, lambda v: v % dv)
        if op == "abs":
            return self._abs(self.term(node.args[0]))
        if op in ("min", "max"):
            return self._minmax(op, self.term(node.args[0]), self.term(node.args[1]))
        if op == "if":
            a, b = self.term(node.args[1]), self.term(node.args[2])
            if a == b:
                return a  # the condition need not be named either
            cond = self.named(node.args[0])
            if cond is True:
                return a
            if cond is False:
                return b
            z = self.new_int(Domain.of(list(self.domain_of(a).intervals) + list(self.domain_of(b).intervals)))
            za, zb = _sub(({z: 1}, 0), a), _sub(({z: 1}, 0), b)
            for sel, d in ((_negate_lit(cond), za), (cond, zb)):
                self.emit(_mk_or([sel, _mk_and([self.le(d, 0), self.le(_scale(d, -1), 0)])]), -1)
            return {z: 1}, 0
        if op == "pow":
            raise self.error("'pow' is not supported (Sugar does not support it either)", node)
        if op == "bvar":
            raise self.error(f"Boolean variable '{node.value}' used as an integer", node, Exit.SEMANTIC)
        raise self.error(f"'{op}' is not an integer term", node, Exit.SEMANTIC)

    def _abs(self, x: Expr) -> Expr:
        """``|x|``: a table over x's values, or ``max(x, -x)`` for a large domain."""
        if x[0] and self.domain_of(x).size > TABLE_LIMIT:
            lo, hi = self.bounds(x)
            z = self.new_int(Domain.range(0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi))))
            return self._minmax("max", x, _scale(x, -1), z)
        return self._unary(x, abs)

    def _unary(self, x: Expr, f: Callable[[int], int]) -> Expr:
        """``z = f(x)`` as a table over the values of `x`: exact image, holes kept."""
        if not x[0]:
            return {}, f(x[1])
        coefs, k = x
        if len(coefs) == 1:
            (v, a), = coefs.items()
            g = (lambda u, a=a, k=k: f(a * u + k))
        else:
            v, g = self.as_var(x), f
        key = ("fun", v, tuple(g(u) for u in self.csp.int_domains[v].values()))
        z = self._var_cache.get(key)
        if z is None:
            dom = self.csp.int_domains[v]
            table = [(u, g(u)) for u in dom.values()]
            z = self.new_int(_image(w for _, w in table))
            self._table(v, table, z)
            values = dict(table)
            self._functions.append((v, z, values))
            self._function_of[z] = (v, values.__getitem__)
            self._var_cache[key] = z
        return {z: 1}, 0

    def _divmod(self, op: str, x: Expr, d: int) -> Expr:
        """``x div d`` or ``x mod d`` (floor semantics) of a large domain, by linear constraints.

        The quotient q is pinned by ``0 ≤ x - d·q ≤ d - 1`` (``d + 1 ≤ … ≤ 0`` for d < 0): two sums of x and
        q alone, exact in both directions. The remainder, for ``mod``, is the variable r of
        ``x - d·q - r = 0``: a sum of three, whose order encoding costs about |q|·|r| clauses. A quotient
        by 12,345 of a 61 k-value variable once went through that sum too: 1.9 M clauses for a ``div``.
        """
        linear = tuple(sorted(x[0].items())), x[1], d
        low, high = (0, d - 1) if d > 0 else (d + 1, 0)  # the remainder's range
        q = self._var_cache.get(("div", *linear))
        if op == "mod":
            r = self._var_cache.get(("mod", *linear))
            if r is None:
                # q without bounds of its own when the file has no div of x: the equation pins it
                q = q if q is not None else self._new_quotient(x, d)
                r = self.new_int(self._remainders(x, d, low, high))
                self._define_eq(r, _sub(x, ({q: d}, 0)))
                self._var_cache[("div", *linear)], self._var_cache[("mod", *linear)] = q, r
                self._note_function(r, x, lambda u: u % d)
            return {r: 1}, 0
        if q is None:
            q = self._new_quotient(x, d)
            rest = _sub(x, ({q: d}, 0))  # x - d·q: the remainder
            self.emit(_mk_and([self.le(rest, high), self.le(_scale(rest, -1), -low)]), -1)
            self._var_cache[("div", *linear)] = q
        return {q: 1}, 0

    def _new_quotient(self, x: Expr, d: int) -> int:
        """A variable for ``x div d`` over its values (`_quotients`), known as a function of x; its caller pins it."""
        q = self.new_int(self._quotients(x, d))
        self._note_function(q, x, lambda u: u // d)
        return q

    def _note_function(self, z: int, x: Expr, f: Callable[[int], int]) -> None:
        """Remember that z = f(x) when x is a function of one variable (`_function_of_one`)."""
        inner = self._function_of_one(x)
        if inner is not None:
            v, g = inner
            self._function_of[z] = (v, lambda u: f(g(u)))

    def _function_of_one(self, expr: Expr) -> "tuple[int, Callable[[int], int]] | None":
        """(v, f) with expr = f(v) for one variable v, through the tables, quotients and remainders written
        so far (``3·(x div 4) + 1`` is a function of x); None for a constant or a sum of several."""
        coefs, k = expr
        if len(coefs) != 1:
            return None
        (w, a), = coefs.items()
        v, g = self._function_of.get(w, (w, None))
        if g is None:
            return v, lambda u: a * u + k
        return v, lambda u: a * g(u) + k

    def _quotients(self, x: Expr, d: int) -> Domain:
        """The values of ``x div d``: floor division maps each interval of x's values onto an interval.

        Not only the range: a quotient by 1,024 of x with a few wide pieces over ±600,000 takes about 60 of
        the 1,190 values between its bounds, which decides how a product of it is written (cases, not bits).
        """
        return Domain.of([(lo // d, hi // d) if d > 0 else (hi // d, lo // d) for lo, hi in self.domain_of(x).intervals])

    def _remainders(self, x: Expr, d: int, low: int, high: int) -> Domain:
        """The values of ``x mod d`` (floor semantics, within `low`..`high`): each interval of x's values narrower
        than |d| maps onto one interval of remainders, or two where it wraps round."""
        pieces = []
        for lo, hi in self.domain_of(x).intervals:
            if hi - lo + 1 >= abs(d) or len(pieces) > TABLE_LIMIT:
                return Domain.range(low, high)
            a, b = lo % d, hi % d
            pieces += [(a, b)] if a <= b else [(a, high), (low, b)]
        return Domain.of(pieces)

    def _table(self, x: int, table: list[tuple[int, int]], z: int) -> None:
        """``x = u → z = w`` for each (u, w): two clauses per value, exact."""
        start = len(self.csp.clauses)
        for u, w in table:
            not_u = _mk_or([self.le(({x: 1}, 0), u - 1), self.le(({x: -1}, 0), -u - 1)])
            self.emit(_mk_or([not_u, self.le(({z: 1}, 0), w)]), -1)
            self.emit(_mk_or([not_u, self.le(({z: -1}, 0), -w)]), -1)
        self._table_clauses.append((start, len(self.csp.clauses)))

    def _minmax(self, op: str, a: Expr, b: Expr, z: int | None = None) -> Expr:
        """``min``/``max`` of two expressions (into variable `z` when given, whose domain must cover the result)."""
        if z is None:
            da, db = self.domain_of(a), self.domain_of(b)
            # Decided by the bounds, or the same expression twice: that expression, with no variable of its own
            # ((max x1 x1) in a random file made a three-term sum of x1 and a copy of it: 3.4 M clauses)
            if a == b or (da.ub <= db.lb if op == "min" else da.lb >= db.ub):
                return a
            if da.lb >= db.ub if op == "min" else da.ub <= db.lb:
                return b
            if op == "min":
                vals = [(lo, min(hi, db.ub)) for lo, hi in da.intervals] + [(lo, min(hi, da.ub)) for lo, hi in db.intervals]
            else:
                vals = [(max(lo, db.lb), hi) for lo, hi in da.intervals] + [(max(lo, da.lb), hi) for lo, hi in db.intervals]
            z = self.new_int(Domain.of(vals))
        if len(a[0]) <= 1 and len(b[0]) <= 1 and self.csp.int_domains[z].size <= PER_VALUE_MINMAX_LIMIT:
            self._minmax_per_value(op, a, b, z, list(self.csp.int_domains[z].values()))
            return {z: 1}, 0
        za, zb = _sub(({z: 1}, 0), a), _sub(({z: 1}, 0), b)
        if op == "min":  # z ≤ a, z ≤ b, z ≥ a ∨ z ≥ b
            self.emit(_mk_and([self.le(za), self.le(zb), _mk_or([self.le(_scale(za, -1)), self.le(_scale(zb, -1))])]), -1)
        else:
            self.emit(_mk_and([self.le(_scale(za, -1)), self.le(_scale(zb, -1)), _mk_or([self.le(za), self.le(zb)])]), -1)
        return {z: 1}, 0

    def _minmax_per_value(self, op: str, a: Expr, b: Expr, z: int, values: list[int]) -> None:
        """``z = min(a, b)`` as ``z ≤ v ⟺ a ≤ v ∨ b ≤ v`` for each value v of z but its last (``max``:
        ``z ≥ v ⟺ a ≥ v ∨ b ≥ v`` but its first), `a` and `b` on one variable each.

        Exact because min(a, b) is one of z's values, and z agrees with it at every one of them. Three
        clauses of single-variable bounds per value: the pairwise differences z - a, z - b and their
        disjunction cost more clauses and a linear constraint each (a social golfer file's 9,000
        ``min`` of 0/1 variables were a third of its compile time).
        """
        zx = ({z: 1}, 0)
        sign = 1 if op == "min" else -1  # max(a, b) = -min(-a, -b): bounds from below as -x ≤ -v
        za, a, b = _scale(zx, sign), _scale(a, sign), _scale(b, sign)
        thresholds = values[:-1] if op == "min" else values[1:]
        for v in thresholds:
            c = sign * v
            z_le, a_le, b_le = self.le(za, c), self.le(a, c), self.le(b, c)
            self.emit(_mk_or([_negate_lit(z_le), a_le, b_le]), -1)
            self.emit(_mk_or([_negate_lit(a_le), z_le]), -1)
            self.emit(_mk_or([_negate_lit(b_le), z_le]), -1)

    def _product(self, a: Expr, b: Expr) -> Expr:
        """``a·b`` of two non-constant expressions, by case split on the smaller domain (by its bits when it
        has more than `TABLE_LIMIT` values, or more than `PRODUCT_CASES_LIMIT` next to a log-encoded factor or
        product: `_product_by_bits`)."""
        doms = self.csp.int_domains
        fa, fb = self._function_of_one(a), self._function_of_one(b)
        if fa is not None and fb is not None and fa[0] == fb[0] and doms[fa[0]].size <= EXACT_IMAGE_LIMIT:
            # both factors are functions of one variable v (a square, (* (mod x 7) x), (* (+ x 1) (- x 1))): so is
            # the product, a table of two clauses per value of v into an exact image; by the bits of two factors,
            # z = x·x was a long sum over a wide range whose circuit a SAT solver searches hard even for
            # (!= (* x x) 5), and (!= (* (mod x3 743114) x3) x3) over 341 values 1 M clauses and no answer in 20 s
            (f, g), (v, _) = (fa[1], fb[1]), fa
            return self._unary(({v: 1}, 0), lambda u: f(u) * g(u))
        x, y = self.as_var(a), self.as_var(b)
        if x == y and doms[x].size <= EXACT_IMAGE_LIMIT:  # the square of a sum, named by one variable
            return self._unary(({x: 1}, 0), lambda u: u * u)
        if doms[x].size > doms[y].size:
            x, y = y, x
        key = ("mul", x, y)
        z = self._var_cache.get(key)
        if z is not None:
            return {z: 1}, 0
        dx, dy = doms[x], doms[y]
        if dx.size * dy.size <= EXACT_IMAGE_LIMIT:
            dom = _image(u * w for u in dx.values() for w in dy.values())
        else:
            corners = [u * w for u in (dx.lb, dx.ub) for w in (dy.lb, dy.ub)]
            dom = Domain.range(min(corners), max(corners))
        z = self.new_int(dom)
        self._var_cache[key] = z
        self._products.append((x, y, z))
        if dx.size > PRODUCT_CASES_LIMIT and (
                dx.size > TABLE_LIMIT or (self._log_allowed and max(dy.size, doms[z].size) > EXACT_IMAGE_LIMIT)):
            # beyond 2¹⁶ values (compiler.LOG_THRESHOLD) y or z is log-encoded, and a case per value of x would
            # be a comparison circuit each (x -300..300 times y 0..2²⁰: 601 of them, no answer in 60 s; by the
            # bits of x, 0.6 s)
            self._product_by_bits(x, y, z)
            return {z: 1}, 0
        for u in dx.values():
            not_u = _mk_or([self.le(({x: 1}, 0), u - 1), self.le(({x: -1}, 0), -u - 1)])
            d = ({z: 1, y: -u} if u else {z: 1}, 0)
            self.emit(_mk_or([not_u, self.le(d, 0)]), -1)
            self.emit(_mk_or([not_u, self.le(_scale(d, -1), 0)]), -1)
        return {z: 1}, 0

    def _product_by_bits(self, x: int, y: int, z: int) -> None:
        """``z = x·y`` when both factors are large, by sign and magnitude: ``z = ±(|x|·|y|)``, the
        magnitudes multiplied by `_unsigned_product_by_bits`.

        With a negative lower bound, ``x = lo + Σ cᵢ·bᵢ`` makes ``lo·y`` and the partial products cancel
        each other: a SAT solver did not find x·y = 6 over -100,000..100,000 in 60 s (over 0..100,000:
        0.2 s). Magnitudes have no such cancellation, and the sign is one XOR.
        """
        doms = self.csp.int_domains
        mx, sx = self._sign_and_magnitude(x)
        my, sy = self._sign_and_magnitude(y)
        if sx is False and sy is False:
            self._unsigned_product_by_bits(x, y, z)
            return
        dx, dy = doms[mx], doms[my]
        p = self.new_int(Domain.range(dx.lb * dy.lb, dx.ub * dy.ub))
        self._unsigned_product_by_bits(mx, my, p)
        for x_negative in _possible(sx):
            for y_negative in _possible(sy):
                d = ({z: 1, p: 1} if x_negative != y_negative else {z: 1, p: -1}, 0)  # z + p or z - p
                otherwise = [_negate_lit(sx) if x_negative else sx, _negate_lit(sy) if y_negative else sy]
                self.emit(_mk_or(otherwise + [_mk_and([self.le(d, 0), self.le(_scale(d, -1), 0)])]), -1)

    def _sign_and_magnitude(self, x: int) -> tuple[int, NNF]:
        """The variable ``|x|`` and the literal ``x < 0`` (False for a variable that is never negative,
        True for one that is never positive)."""
        dom = self.csp.int_domains[x]
        if dom.lb >= 0:
            return x, False
        if dom.ub <= 0:
            return self.as_var(({x: -1}, 0)), True
        m = self._abs(({x: 1}, 0))
        return self.as_var(m), self.le(({x: 1}, 0), -1)

    def _unsigned_product_by_bits(self, x: int, y: int, z: int) -> None:
        """``z = x·y`` for x without negative values: by the bits of x, ``x = lo + Σ cᵢ·bᵢ`` and
        ``z = lo·y + Σ cᵢ·wᵢ`` with ``wᵢ = y`` where bᵢ = 1 and ``wᵢ = 0`` where it is 0.

        The case split by values (two clauses per value of x) made 35,001 conditional equations, 2.3 GB
        and minutes for ``(* x (div x 2))`` over 0..70,000; this is one conditional pair per bit.
        """
        doms = self.csp.int_domains
        dx, dy = doms[x], doms[y]
        lo = dx.lb
        # weights 1, 2, 4, ... and a last one that makes them add up to the span exactly: every offset
        # 0..span has bits, none has more (the partial sums' ranges stay those of the product)
        span = dx.ub - lo
        weights = [1 << i for i in range(span.bit_length() - 1)]
        weights.append(span - sum(weights))
        bits = [self.new_int(Domain.range(0, 1)) for _ in weights]
        # x - lo - Σ cᵢ·bᵢ = 0
        self._define_eq(x, ({b: c for b, c in zip(bits, weights)}, lo))
        total: dict[int, int] = {y: lo} if lo else {}
        with_zero = Domain.of(list(dy.intervals) + [(0, 0)])
        for b, weight in zip(bits, weights):
            w = self.new_int(with_zero)
            wy = ({w: 1, y: -1}, 0)
            is_zero, is_one = self.le(({b: 1}, 0), 0), self.le(({b: -1}, 0), -1)
            self.emit(_mk_or([is_zero, _mk_and([self.le(wy, 0), self.le(_scale(wy, -1), 0)])]), -1)
            self.emit(_mk_or([is_one, _mk_and([self.le(({w: 1}, 0), 0), self.le(({w: -1}, 0), 0)])]), -1)
            total[w] = weight
        self._define_eq(z, (total, 0))

    # ------------------------------------------------------------ formulas

    def named(self, node: Node) -> NNF:
        """A literal equivalent to the formula `node` (a Tseitin variable when it is compound)."""
        if self._binding is not None:
            return self._with_binding(None, self.named, _resolve(node, self._binding))
        hit = self._named.get(id(node))
        if hit is not None:
            return hit[1]
        pos = self.formula(node, True)
        if not _is_lit(pos):
            t = self.new_bool()
            self.emit(_mk_or([-t, pos]), -1)
            self.emit(_mk_or([t, self.formula(node, False)]), -1)
            pos = t
        self._named[id(node)] = (node, pos)
        return pos

    def formula(self, node: Node, pos: bool) -> NNF:
        """The formula `node` (or its negation when `pos` is False) in negation normal form."""
        op = node.op
        if op == "true" or op == "false":
            return (op == "true") == pos
        if op == "const":
            return (int(node.value) > 0) == pos
        if op == "bvar":
            lit = self.bool_index[node.value] + 1
            return lit if pos else -lit
        if op == "param":
            arg, env = self._binding[node.value]
            while arg.op == "param":
                arg, env = env[arg.value]
            if arg.op == "bvar":  # the common case, without switching bindings
                lit = self.bool_index[arg.value] + 1
                return lit if pos else -lit
            return self._with_binding(env, self.formula, arg, pos)
        if op == "ivar":
            return self.compare("gt" if pos else "le", self.term(node), ({}, 0))
        if op == "not":
            return self.formula(node.args[0], not pos)
        if op in ("and", "or"):
            parts = [self.formula(a, pos) for a in node.args]
            return _mk_and(parts) if (op == "and") == pos else _mk_or(parts)
        if op == "imp":
            a, b = node.args
            if pos:
                return _mk_or([self.formula(a, False), self.formula(b, True)])
            return _mk_and([self.formula(a, True), self.formula(b, False)])
        if op in ("iff", "xor"):
            lits = [self.named(a) for a in node.args]
            acc = lits[0]
            for nxt in lits[1:]:
                acc = self._iff(acc, nxt) if op == "iff" else _negate_lit(self._iff(acc, nxt))
            return acc if pos else _negate_lit(acc)
        if op in ("eq", "ne", "le", "lt", "ge", "gt"):
            x, y = node.args
            if x.op == "ivar" and y.op == "const":  # a variable against a constant: the commonest atom
                return self._compare_one(op if pos else _NEGATED[op], self.int_index[x.value], 1, -int(y.value))
            if x.op == "const" and y.op == "ivar":
                return self._compare_one(op if pos else _NEGATED[op], self.int_index[y.value], -1, int(x.value))
            if _has_nonlinear_term(x) or _has_nonlinear_term(y):
                decided = self._decided_by_bounds(op if pos else _NEGATED[op], x, y)
                if decided is not None:
                    return decided
            if x.op in _EXTREMA or y.op in _EXTREMA:
                bounded = self._extremum_by_bounds(op if pos else _NEGATED[op], x, y)
                if bounded is not None:
                    return bounded
            if (x.op in _ARITHMETIC and _multiplies_variables(x)) or (y.op in _ARITHMETIC and _multiplies_variables(y)):
                by_signs = _product_by_signs(op if pos else _NEGATED[op], x, y, self._node_bounds, self.term)
                if by_signs is not None:
                    return self.formula(by_signs, True)
                # a constraint of the file by itself (or its negation): each case is a clause of its own
                alone = self.where is node or (self.where is not None and self.where.op == "not" and self.where.args[0] is node)
                narrow = self._product_split_variable(node, alone)
                if narrow is not None:
                    return self._split_on_values(node, pos, narrow)
            a, b = self.term(x), self.term(y)
            return self.compare(op if pos else _NEGATED[op], a, b)
        if op == "pcall":
            return self._inline(node, pos)
        if op == "rcall":
            return self._relation(node, pos)
        decompose = _GLOBALS.get(op)
        if decompose is not None:
            return self.formula(decompose(self, node), pos)
        raise self.error(f"'{op}' is not a formula", node, Exit.SEMANTIC)

    def _decided_by_bounds(self, op: str, x: Node, y: Node) -> "bool | None":
        """True or False when the interval bounds of the terms `x` and `y` decide ``x op y``, before either is
        translated: a decided comparison then leaves no auxiliary variable behind. Translated first, its
        products, quotients and extrema kept their definitions, which the solver must still satisfy: a random
        file's ``min(x1, x0) ≤ (16·x2 + x3)·x2`` (at most 98,418 against at least 602,370) left a multiplier
        circuit that took Glucose 126 k conflicts. None when the bounds do not decide it (or a term is not
        read here: a predicate's parameter).
        """
        bx, by = self._node_bounds(x), self._node_bounds(y)
        if bx is None or by is None:
            return None
        (lo_x, hi_x), (lo_y, hi_y) = bx, by
        if op == "le":
            return True if hi_x <= lo_y else False if lo_x > hi_y else None
        if op == "lt":
            return True if hi_x < lo_y else False if lo_x >= hi_y else None
        if op == "ge" or op == "gt":
            return self._decided_by_bounds(_MIRRORED[op], y, x)
        disjoint = hi_x < lo_y or hi_y < lo_x
        fixed_equal = lo_x == hi_x == lo_y == hi_y
        if disjoint or fixed_equal:
            return fixed_equal if op == "eq" else disjoint
        return None

    def _node_bounds(self, node: Node) -> "tuple[int, int] | None":
        """The interval of the term `node` by interval arithmetic over the current domains (None for a term not
        read here): no value of the term, nor of an auxiliary variable its translation would make, lies outside.
        The non-linear operators are `_atom_interval`'s, as for `_hull` (which reads declared bounds, and takes
        three frames a nesting level: files at the nesting limit ran out of stack through it)."""
        op = node.op
        if op == "const":
            v = int(node.value)
            return v, v
        if op == "ivar":
            d = self.csp.int_domains[self.int_index[node.value]]
            return d.lb, d.ub
        if op == "if":  # the condition is a formula: either branch may be taken
            a, b = self._node_bounds(node.args[1]), self._node_bounds(node.args[2])
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        args = [self._node_bounds(a) for a in node.args]
        if any(a is None for a in args):
            return None
        if op == "add":
            return sum(a[0] for a in args), sum(a[1] for a in args)
        if op == "sub" or op == "neg":
            if len(args) == 1:
                return -args[0][1], -args[0][0]
            return args[0][0] - sum(a[1] for a in args[1:]), args[0][1] - sum(a[0] for a in args[1:])
        return _atom_interval(op, args)

    def _iff(self, a: NNF, b: NNF) -> NNF:
        """A literal for ``a ↔ b`` of two literals."""
        if a is True or a is False:
            return b if a else _negate_lit(b)
        if b is True or b is False:
            return a if b else _negate_lit(a)
        t = self.new_bool()
        na, nb = _negate_lit(a), _negate_lit(b)
        self.emit(_mk_and([_mk_or([-t, na, b]), _mk_or([-t, a, nb]), _mk_or([t, a, b]), _mk_or([t, na, nb])]), -1)
        return t

    def _inline(self, node: Node, pos: bool) -> NNF:
        pred = self.model.predicates[node.value]
        if self._depth == 0 and self._expansion_size(node.value) > MAX_INLINE_NODES:
            raise self.error(f"this call of '{node.value}' expands to about {self._expansion_size(node.value):.2g} "
                             f"nodes of predicate bodies (csp2sat expands at most {MAX_INLINE_NODES:,} per call)",
                             node, Exit.LIMIT)
        if self._depth >= MAX_INLINE_DEPTH:
            raise self.error(f"predicate calls nested too deeply: this call of '{node.value}' is at depth "
                             f"{self._depth + 1}, and csp2sat expands predicate calls at most {MAX_INLINE_DEPTH} deep",
                             node, Exit.LIMIT)
        self._depth += 1
        try:
            # The body is read in place (no copy per call): its parameters are looked up in the binding.
            env = {p: (a, self._binding) for p, a in zip(pred.params, node.args)}
            return self._with_binding(env, self.formula, pred.body, pos)
        finally:
            self._depth -= 1

    def _with_binding(self, env: "Binding | None", fn: Callable, *args):
        saved = self._binding
        self._binding = env
        try:
            return fn(*args)
        finally:
            self._binding = saved

    def _relation(self, node: Node, pos: bool) -> NNF:
        rel = self.model.relations[node.value]
        exprs = [self.term(a) for a in node.args]
        doms = [self.domain_of(e) for e in exprs]
        # A tuple of another length than the call never matches (Sugar 2.3.3 behaves so).
        tuples = [t[: rel.arity] for t in rel.tuples]
        tuples = [t for t in tuples if len(t) == len(exprs) and all(v in d for v, d in zip(t, doms))]
        tuples = list(dict.fromkeys(tuples))

        def match(t: tuple[int, ...]) -> NNF:
            return _mk_and(self.compare("eq", e, ({}, v)) for e, v in zip(exprs, t))

        def differ(t: tuple[int, ...]) -> NNF:
            return _mk_or(self.compare("ne", e, ({}, v)) for e, v in zip(exprs, t))

        if rel.supports == pos:
            return _mk_or(match(t) for t in tuples)
        return _mk_and(differ(t) for t in tuples)

    # ------------------------------------------------------------ top level

    def run(self) -> NormalCSP:
        """Translate every constraint of the model."""
        constraints = self.model.constraints
        done = [False] * len(constraints)
        if self.tighten:
            for i, con in enumerate(constraints):
                done[i] = self._try_tighten(i, con.formula)
            self._narrow_wide_by_equations([con.formula for con, d in zip(constraints, done) if not d])
            self._narrow_by_products([(i, con.formula) for i, (con, d) in enumerate(zip(constraints, done)) if not d])
        for i, con in enumerate(constraints):
            if self._contradiction and self.tighten:
                break  # every constraint is hard: the empty clause decides, and the rest need not be encoded
            if done[i]:
                continue
            self.origin, self.where = i, con.formula
            f = con.formula
            if f.op == "alldifferent":
                self._alldifferent(f, i)
                continue
            if f.op == "pcall":
                self._emit_call(f, i)
            else:
                self.emit(self.formula(f, True), i)
        if self.tighten:
            self._propagate_bounds()
            # Bounds found on the way (a quotient fixed by the file: x0 from 97 k values to 4,096) may bring a
            # narrow side under the limit of the equations read before the translation: once more.
            if self._equations and self._narrow_by_equations(self._equations):
                self._propagate_bounds()
            if self._contradiction:
                # the empty clause decides: each variable keeps one value, so that no order chain or log
                # bits are written for a file with no answer (a random file's 30,001-value domains: 65 k clauses)
                self.csp.int_domains = [Domain.range(d.lb, d.lb) if d.intervals else d for d in self.csp.int_domains]
        return self.csp

    def narrowed_domains(self) -> "dict[str, Domain] | None":
        """The user variables' domains after `run`, if translating again over them would choose differently.

        How a product, quotient or remainder is translated (a case per value, a table, a comparison split, a
        multiplier circuit by bits) is chosen by its arguments' domains when it is read; bounds propagation
        narrows them only after the whole file is read. ``x·y ≥ 1,224,000,000`` with ``x + y ≤ 70,000`` over
        0..100,000 became a multiplier circuit of 17-bit factors (33 k clauses, 7 s) for variables that
        propagation then narrowed to 2,001 values each, few enough to split the comparison on (8 k binary and
        ternary clauses, decided without search). None when no product, quotient or remainder of a variable
        was read, when no user variable fell under one of the limits that choose a method (`_METHOD_LIMITS`:
        merely narrower, a variable may move from the log encoding to the order encoding, and a random file's
        3.5 k clauses became 340 k), or when the file has no answer.
        """
        if not (self.tighten and self._sized_by_domains) or self._contradiction:
            return None
        doms = self.csp.int_domains
        crossed = False
        domains = {}
        for var in self.model.int_vars.values():
            d = doms[self.int_index[var.name]]
            domains[var.name] = d
            crossed = crossed or any(d.size <= limit < var.domain.size for limit in _METHOD_LIMITS)
        return domains if crossed else None

    def _product_split_variable(self, node: Node, alone: bool = False) -> "str | None":
        """The variable to split a comparison of two variables on, when it multiplies them into a wide product.

        A comparison over x and y alone whose terms are sums, constant multiples and products (``-y < y·x``,
        ``a·x + b·y < x·y``, ``x·y ≤ c``), with x of at most `TABLE_LIMIT` values (`PRODUCT_SPLIT_LIMIT` for a
        constraint `alone` against an order-encoded y) and a product of more than `PRODUCT_SPLIT_RANGE` values:
        for each value u of x the comparison is linear in y alone, a bound on y. As a product variable z = x·y
        it would be a multiplier circuit, or a case per value of x into a log z.
        """
        names: set[str] = set()
        factors: list[tuple[set[str], set[str]]] = []  # the variables of each product's two factors
        wide = False
        doms = self.csp.int_domains
        for sub in node.walk():
            op = sub.op
            if op == "ivar":
                names.add(sub.value)
            elif op == "mul":
                if _is_variable_product(sub):
                    a, b = sub.args
                    factors.append((_int_names(a), _int_names(b)))
                    lo_a, hi_a = self.bounds(self.term(a)) if _is_linear(a) else (0, 0)
                    lo_b, hi_b = self.bounds(self.term(b)) if _is_linear(b) else (0, 0)
                    corners = [p * q for p in (lo_a, hi_a) for q in (lo_b, hi_b)]
                    wide = wide or max(corners) - min(corners) >= PRODUCT_SPLIT_RANGE
            elif op not in _SPLIT_OPS:
                return None
        if not wide or len(names) != 2:
            return None
        for x in sorted(names, key=lambda n: doms[self.int_index[n]].size):
            # each product must have a factor of x alone, so that every case is linear ((x + y)·(x + y) is not)
            if not all({x} in pair for pair in factors):
                continue
            size = doms[self.int_index[x]].size
            # beyond `TABLE_LIMIT` cases only for a comparison `alone` (nested in an iff, the cases' negation is a
            # disjunction of thousands of conjunctions: 83 k -> 1.8 M clauses) and against an order-encoded y, where
            # each case is one literal of y's (a log-encoded y made each a comparison circuit: 38 k -> 3.5 M clauses)
            other = doms[self.int_index[next(n for n in names if n != x)]].size
            if size <= TABLE_LIMIT or (alone and size <= PRODUCT_SPLIT_LIMIT and other <= EXACT_IMAGE_LIMIT):
                return x
        return None

    def _split_on_values(self, node: Node, pos: bool, name: str) -> NNF:
        """`formula(node, pos)` as ``⋀_u (x ≠ u ∨ node[x := u])`` over the values u of the variable `name`."""
        v = self.int_index[name]
        cases = []
        for u in self.csp.int_domains[v].values():
            case = self.formula(_substitute(node, name, u), pos)
            if case is True:
                continue
            cases.append(_mk_or([self._compare_one("ne", v, 1, -u), case]))
        return _mk_and(cases)

    def _emit_call(self, node: Node, origin: int) -> None:
        """A top-level predicate call, from a clause template when the same call shape was seen before.

        Generated files call a few predicates thousands of times with different
        variables of the same domains (Slitherlink: ~6000 calls of 9 predicates);
        normalising each body anew was most of this stage's time. The clauses of
        a call depend only on the predicate, on which arguments are constants and
        on the domains and coincidences of the variable arguments, so the clauses
        of the first call, with variables replaced by argument positions, serve
        every later call of that shape.
        """
        shape, vals = self._call_shape(node)
        key = (node.value, shape)
        template = self._call_templates.get(key) if shape is not None else False
        if template is None:
            start, ints, bools = len(self.csp.clauses), self.csp.num_ints, self.csp.num_bools
            self.emit(self.formula(node, True), origin)
            fresh = self.csp.num_ints != ints or self.csp.num_bools != bools
            self._call_templates[key] = False if fresh else self._make_template(start, shape, vals, origin)
            return
        if template is False:
            self.emit(self.formula(node, True), origin)
            return
        # Each distinct literal is built once per call; the clauses pick theirs by index (Linear is never mutated).
        slots, picks = template
        lits = [(vals[t - 1] if t > 0 else -vals[-t - 1]) if t.__class__ is int
                else Linear(t[0], tuple([vals[p] for p in t[1]]), t[2]) for t in slots]
        pick = lits.__getitem__
        self.csp.clauses.extend([list(map(pick, idx)) for idx in picks])
        self.csp.origins.extend([origin] * len(picks))

    def _call_shape(self, node: Node) -> "tuple[tuple | None, list[int]]":
        """The shape of a call's arguments (None when no template applies) and their values.

        The value of a Boolean argument is its literal (``(! b)`` included), that of an
        integer variable its index, that of a constant -1 (constants are in the shape).
        """
        if not self._is_closed(node.value):
            return None, []
        shape: list[tuple] = []
        vals: list[int] = []
        # Two parameters bound to one variable normalise differently: the coincidence is part of the shape.
        first_bool: dict[int, int] = {}
        first_int: dict[int, int] = {}
        bool_index, int_index, doms = self.bool_index, self.int_index, self.csp.int_domains
        for p, arg in enumerate(node.args):
            op = arg.op
            if op == "bvar":
                v = bool_index[arg.value]
                shape.append(("bvar", first_bool.setdefault(v, p), 1))
                vals.append(v + 1)
            elif op == "ivar":
                v = int_index[arg.value]
                shape.append(("ivar", first_int.setdefault(v, p), doms[v]))
                vals.append(v)
            elif op == "not" and arg.args[0].op == "bvar":
                v = bool_index[arg.args[0].value]
                shape.append(("bvar", first_bool.setdefault(v, p), -1))
                vals.append(-(v + 1))
            elif op in ("const", "true", "false"):
                shape.append((op, arg.value))
                vals.append(-1)
            else:
                return None, []
        return tuple(shape), vals

    def _make_template(self, start: int, shape: tuple, vals: list[int], origin: int) -> "CallTemplate | bool":
        """The clauses emitted since `start` with argument variables replaced by their positions (False if impossible)."""
        bool_pos: dict[int, tuple[int, int]] = {}  # Boolean variable -> (position, sign of the argument)
        int_pos: dict[int, int] = {}
        for p, (kind, v) in enumerate(zip(shape, vals)):
            if kind[0] == "bvar":
                bool_pos.setdefault(abs(v) - 1, (p, 1 if v > 0 else -1))
            elif kind[0] == "ivar":
                int_pos.setdefault(v, p)
        slots: list[CallLit] = []
        slot_of: dict[CallLit, int] = {}
        picks: list[tuple[int, ...]] = []
        for clause, o in zip(self.csp.clauses[start:], self.csp.origins[start:]):
            if o != origin:
                return False
            idx: list[int] = []
            for lit in clause:
                t: CallLit
                if isinstance(lit, Linear):
                    pos = [int_pos.get(v) for v in lit.vars]
                    if None in pos:  # a variable of an earlier auxiliary (a shared split, say)
                        return False
                    t = (lit.coefs, tuple(pos), lit.c)
                else:
                    at = bool_pos.get(abs(lit) - 1)
                    if at is None:
                        return False
                    p, sign = at
                    t = (p + 1) * sign * (1 if lit > 0 else -1)
                if t not in slot_of:
                    slot_of[t] = len(slots)
                    slots.append(t)
                idx.append(slot_of[t])
            picks.append(tuple(idx))
        return slots, picks

    def _expansion_size(self, name: str, depth: int = 0) -> int:
        """The number of nodes a call of predicate `name` expands to (its calls expanded in turn)."""
        size = self._expanded_nodes.get(name)
        if size is None:
            if depth >= MAX_INLINE_DEPTH:
                return 1  # inlining reports this chain by its depth
            self._expanded_nodes[name] = 1  # a recursive call: bounded by MAX_INLINE_DEPTH when inlined
            size = 0
            for n in self.model.predicates[name].body.walk():
                size += 1 if n.op != "pcall" else 1 + self._expansion_size(n.value, depth + 1)
            self._expanded_nodes[name] = size
        return size

    def _is_closed(self, name: str, depth: int = 0) -> bool:
        """True when predicate `name` (and every predicate it calls) uses no variable except its parameters.

        A cumulative makes a body not closed either: its time points come from the
        declared bounds of the arguments, which a call's shape (current domains) omits.
        A chain of calls deeper than inlining goes is not closed: inlining it reports the call.
        """
        closed = self._closed.get(name)
        if closed is None:
            if depth >= MAX_INLINE_DEPTH:
                return False
            self._closed[name] = False  # a recursive call is not closed until proven so
            closed = all(n.op not in ("ivar", "bvar", "cumulative")
                         and (n.op != "pcall" or self._is_closed(n.value, depth + 1))
                         for n in self.model.predicates[name].body.walk())
            self._closed[name] = closed
        return closed

    def _propagate_bounds(self) -> None:
        """Shrink domains by bounds reasoning on the linear clauses and the products, to a fixpoint.

        ``Σ aᵢ·xᵢ ≤ c`` gives ``aⱼ·xⱼ ≤ c - Σ_{i≠j} min(aᵢ·xᵢ)``. A clause of several sums
        counts when the bounds leave only one of them possible (a job-shop disjunction
        ``s + d ≤ t ∨ t + e ≤ s`` once one order is ruled out), as Sugar's propagation does.
        A product ``z = x·y`` bounds z by the corners of x and y, and x by those of z / y when y
        cannot be 0 (`_product_bounds`). Every clause is a hard constraint here (tightening is off
        with selectors), so the values removed are in no solution; an emptied domain means the
        problem is unsatisfiable.
        """
        doms = self.csp.int_domains
        # Clauses of sums only (a Boolean literal could always satisfy the clause); a one-variable
        # sum in a longer clause takes part in deciding which sum is left, and is propagated too.
        clauses = []
        tables_own = {k for start, stop in self._table_clauses for k in range(start, stop)}
        for k, clause in enumerate(self.csp.clauses):
            if k in tables_own:
                continue
            for lit in clause:
                if lit.__class__ is not Linear:
                    break
            else:
                if clause:  # a unit bound on an auxiliary variable (a quotient fixed by the file) too
                    clauses.append(clause)
        uses: dict[int, list[int]] = {}
        for k, clause in enumerate(clauses):
            for v in {v for lit in clause for v in lit.vars}:
                uses.setdefault(v, []).append(k)
        products, functions = self._products, self._functions
        first_function = len(clauses) + len(products)
        for k, product in enumerate(products, start=len(clauses)):
            for v in set(product):
                uses.setdefault(v, []).append(k)
        for k, (x, z, _) in enumerate(functions, start=first_function):
            for v in {x, z}:
                uses.setdefault(v, []).append(k)
        lb = {v: doms[v].lb for v in uses}
        ub = {v: doms[v].ub for v in uses}
        # Tables cost a pass over their argument's values, so they wait until the sums and products are at a
        # fixpoint: x1 < x2 ∧ x2 = x1 over ±1000 narrows by one value a round, and a square of x1 read again
        # every round made that 2 s. Their own clauses are left to them: read as sums, they narrow the
        # argument one value at a time, which would stall the sums' fixpoint.
        queue = list(range(first_function))
        tables = list(range(first_function, first_function + len(functions)))
        queued = [True] * (first_function + len(functions))

        def restrict(v: int, dom: Domain) -> bool:
            """v within `dom` (a subset of its domain); False when that leaves it no value."""
            if dom.is_empty():
                self._add_clause([], -1)
                return False
            if dom.size == doms[v].size:
                return True
            doms[v] = dom
            lb[v], ub[v] = dom.lb, dom.ub
            for j in uses[v]:
                if not queued[j]:
                    queued[j] = True
                    (tables if j >= first_function else queue).append(j)
            return True

        def narrow(v: int, lo: int, hi: int) -> bool:
            """v within lo..hi; False when that leaves it no value."""
            if lo <= lb[v] and hi >= ub[v]:
                return True
            return restrict(v, doms[v].within(lo, hi))

        budget = 100 * len(queued) + 10000  # bounds propagation can crawl; stop early, it is only an optimisation
        while (queue or tables) and budget > 0:
            budget -= 1
            k = queue.pop() if queue else tables.pop()
            queued[k] = False
            if k >= first_function:
                # z = f(x) by a table (div, mod, abs of a narrow x, squares): exact in both directions, as the
                # table's clauses would be at the bounds only (a quotient fixed by the file left x 86 values)
                x, z, table = functions[k - first_function]
                z_dom, known = doms[z], [u for u in doms[x].values() if u in table]
                budget -= len(known) >> 6
                if len(known) < doms[x].size:
                    continue  # (not built over x's domain: nothing safe to conclude)
                kept = [u for u in known if table[u] in z_dom]
                if not restrict(x, _image(kept)) or not restrict(z, _image(table[u] for u in kept)):
                    return
                continue
            if k >= len(clauses):
                x, y, z = products[k - len(clauses)]
                for v, lo, hi in _product_bounds(x, y, z, lb, ub):
                    if not narrow(v, lo, hi):
                        return
                continue
            lit = None
            for cand in clauses[k]:
                if len(cand.vars) == 1:  # the commonest literal of a longer clause
                    a, v = cand.coefs[0], cand.vars[0]
                    slack = cand.c - (a * lb[v] if a > 0 else a * ub[v])
                else:
                    slack = cand.c - sum(a * lb[v] if a > 0 else a * ub[v] for a, v in zip(cand.coefs, cand.vars))
                if slack >= 0:
                    if lit is not None:
                        break  # two sums still possible: nothing follows
                    lit, lit_slack = cand, slack
            else:
                if lit is None:
                    self._add_clause([], -1)
                    return
                slack = lit_slack
                for a, v in zip(lit.coefs, lit.vars):
                    bound = slack + (a * lb[v] if a > 0 else a * ub[v])
                    if a > 0:
                        if not narrow(v, lb[v], bound // a):
                            return
                    elif not narrow(v, -(bound // -a), ub[v]):
                        return

    def _narrow_wide_by_equations(self, formulas: list[Node]) -> None:
        """Top-level equations ``a·x + b·y = c`` of a wide variable y (more than `TABLE_LIMIT` values) and a
        narrower x (at most `EXACT_IMAGE_LIMIT`): both keep only the values with a partner, to a fixpoint.

        A wide y bound to a narrow x is a function of it: y = (c - a·x) / b takes at most as many
        values as x, often far fewer (divisibility). Log-encoded (beyond 65,536 values, or beyond 1,024
        when counting), y would be found by an adder circuit for each answer (126 answers of such a
        file took 10.8 s to count; CP-SAT 0.01 s); narrowed, it is order-encoded over its few values,
        and its order chain is that much shorter. Equations between two variables of at most
        `TABLE_LIMIT` values are left alone: their order encoding propagates as well.
        """
        doms = self.csp.int_domains
        if self._contradiction or all(d.size <= TABLE_LIMIT for d in doms):
            return  # decided already, or the common case (puzzle files): nothing to narrow, no equation to read
        for f in formulas:
            if f.op == "weightedsum" and f.value == "eq":
                f = _g_weightedsum(self, f)
            if f.op != "eq" or len(f.args) != 2:
                continue
            if not _is_linear(f):
                continue
            coefs, k = _sub(self.term(f.args[0]), self.term(f.args[1]))
            if len(coefs) == 2:
                (x, a), (y, b) = coefs.items()
                self._equations.append((x, a, y, b, k))
        self._narrow_by_equations(self._equations)

    def _narrow_by_products(self, formulas: list[tuple[int, Node]]) -> None:
        """Top-level ``(= (* F G) c)`` with c a non-zero constant and F, G terms ``a·x + b`` of one variable each:
        both variables keep only the values whose factor divides c with a partner, as a presolve does.

        Without it, x·y = 999,983 over 2..100,000 (a prime: no answer) took Glucose 40 s on the product's
        circuit, and a semiprime 18 s (CP-SAT: 0.02 s); with it the domains are the divisors, at most a few
        thousand values for any c below 2⁶³, and the product is a case split on them. The values tried are
        the narrower factor's, or the divisors of c when both are wide, within `NARROWING_BUDGET` per file.
        """
        doms = self.csp.int_domains
        budget = NARROWING_BUDGET
        for origin, f in formulas:
            if self._contradiction:
                return  # the empty clause decides: nothing else is encoded
            if f.op != "eq" or len(f.args) != 2:
                continue
            product, other = f.args if f.args[0].op == "mul" else (f.args[1], f.args[0])
            if product.op != "mul" or len(product.args) != 2 or not _is_linear(other):
                continue
            coefs, c = self.term(other)
            factors = [self.term(a) if _is_linear(a) else ({}, 0) for a in product.args]
            if coefs or c == 0 or any(len(fc[0]) != 1 for fc in factors):
                continue
            (x, ax), bx = next(iter(factors[0][0].items())), factors[0][1]
            (y, ay), by = next(iter(factors[1][0].items())), factors[1][1]
            if x == y:
                if doms[x].size > EXACT_IMAGE_LIMIT:
                    continue
                budget -= doms[x].size
                kept = [u for u in doms[x].values() if (ax * u + bx) * (ay * u + by) == c]
                xs = ys = kept
            else:
                if doms[x].size > doms[y].size:
                    x, ax, bx, y, ay, by = y, ay, by, x, ax, bx
                if doms[x].size <= EXACT_IMAGE_LIMIT:
                    candidates = [ax * u + bx for u in doms[x].values()]
                elif math.isqrt(abs(c)) <= EXACT_IMAGE_LIMIT:
                    small = [d for d in range(1, math.isqrt(abs(c)) + 1) if c % d == 0]
                    positive = small + [abs(c) // d for d in small]
                    candidates = positive + [-d for d in positive]
                else:
                    continue
                budget -= len(candidates)
                xs, ys = [], []
                for fx in candidates:
                    if fx == 0 or c % fx:
                        continue
                    u, ru = divmod(fx - bx, ax)
                    w, rw = divmod(c // fx - by, ay)
                    if not ru and not rw and u in doms[x] and w in doms[y]:
                        xs.append(u)
                        ys.append(w)
            if budget < 0:
                return
            if not xs:
                self._add_clause([], origin)  # (= (* x y) 999983) over 2..100,000: no divisor at all
                return
            doms[x], doms[y] = Domain.of([(u, u) for u in xs]), Domain.of([(w, w) for w in ys])

    def _narrow_by_equations(self, pairs: list[tuple[int, int, int, int, int]]) -> bool:
        """`_narrow_wide_by_equations`'s fixpoint over its (x, a, y, b, k) equations ``a·x + b·y + k = 0``; True if
        a domain changed. Within `NARROWING_BUDGET` values tried per call."""
        doms = self.csp.int_domains
        changed = bool(pairs)
        narrowed = False
        budget = NARROWING_BUDGET
        while changed:
            changed = False
            for x, a, y, b, k in pairs:
                if doms[x].size > doms[y].size:
                    x, a, y, b = y, b, x, a
                if doms[y].size <= TABLE_LIMIT:
                    continue
                tried: Iterable[int] = doms[x].values()
                count = doms[x].size
                if count > EXACT_IMAGE_LIMIT:
                    # both wide: a·x ≡ -k (mod |b|) leaves x one residue class, and b·y ≡ -k (mod |a|) y one;
                    # the sparser one is tried when it has at most `TABLE_LIMIT` values (-3708·x + 7345·y =
                    # -142455: 36 values of x's 260 k; log-encoded, no solver found the answer in 60 s). A
                    # larger class is left alone: its thousands of holes would cost a log encoding (beyond
                    # 1,024 values when counting) a clause or more each
                    x_class, y_class = _residue_class(a, b, k), _residue_class(b, a, k)
                    if x_class is None or y_class is None:
                        continue  # no solution at all: the equation itself says so when it is encoded
                    x_count, y_count = _class_size(doms[x], *x_class), _class_size(doms[y], *y_class)
                    if y_count < x_count:
                        x, a, y, b, x_class, x_count = y, b, x, a, y_class, y_count
                    if x_count > TABLE_LIMIT:
                        continue
                    tried, count = _class_values(doms[x], *x_class), x_count
                budget -= count
                if budget < 0:
                    return narrowed
                ys_domain = doms[y]
                xs, ys = [], []
                for u in tried:
                    r = -(k + a * u)  # b·y = r
                    if r % b == 0 and r // b in ys_domain:
                        xs.append(u)
                        ys.append(r // b)
                if not xs:
                    continue  # no solution at all: the equation itself says so when it is encoded
                narrowed_x, narrowed_y = Domain.of([(u, u) for u in xs]), Domain.of([(w, w) for w in ys])
                if narrowed_x != doms[x] or narrowed_y != doms[y]:
                    doms[x], doms[y] = narrowed_x, narrowed_y
                    changed = narrowed = True
        return narrowed

    def _try_tighten(self, i: int, f: Node) -> bool:
        """Intersect a domain with a top-level single-variable comparison; True when absorbed."""
        if f.op not in ("eq", "ne", "le", "lt", "ge", "gt"):
            return False
        # |E| against a constant is a comparison of E (no variable for |E|): (<= (abs (- x 214932)) 3)
        terms = [a.args[0] if a.op == "abs" and len(f.args) == 2 and any(b.op == "const" for b in f.args) else a
                 for a in f.args]
        if not all(_is_linear(t) for t in terms):
            return False
        self.where = f
        nnf = self.formula(f, True)
        lits = nnf[1] if isinstance(nnf, tuple) else [nnf]
        if nnf is True:
            return True
        if nnf is False:
            self._add_clause([], i)  # false whatever the values: nothing else need be encoded
            return True
        if not all(isinstance(x, Linear) and len(x.vars) == 1 for x in lits):
            return False
        var = lits[0].vars[0]
        if any(x.vars[0] != var for x in lits):
            return False
        pieces = [_allowed(x) for x in lits]
        dom = self.csp.int_domains[var]
        if nnf[0] == "and" if isinstance(nnf, tuple) else True:
            for lo, hi in pieces:
                dom = Domain.of([(max(a, lo), min(b, hi)) for a, b in dom.intervals])
        else:
            dom = Domain.of([(max(a, lo), min(b, hi)) for a, b in dom.intervals for lo, hi in pieces])
        if dom.is_empty():
            self._add_clause([], i)  # (= (* 16 x) -429514): no value at all
            return True
        self.csp.int_domains[var] = dom
        return True

    def _alldifferent(self, node: Node, origin: int) -> None:
        """A top-level alldifferent: an `AllDifferent` record and Sugar's pigeonhole hints."""
        exprs = [self.term(a) for a in node.args]
        consts = [e[1] for e in exprs if not e[0]]
        if len(set(consts)) < len(consts):
            self.emit(False, origin)
            return
        vars_: list[int] = []
        offsets: list[int] = []
        for e in exprs:
            if not e[0]:
                continue
            coefs, k = e
            if len(coefs) == 1 and next(iter(coefs.values())) == 1:
                vars_.append(next(iter(coefs)))
                offsets.append(k)
            else:
                vars_.append(self.as_var(e))
                offsets.append(0)
            for c in consts:
                self.emit(self.compare("ne", e, ({}, c)), origin)
        if len(vars_) >= 2:
            self.csp.alldiffs.append(AllDifferent(tuple(vars_), tuple(offsets), origin))
        n = len(exprs)
        if n >= 2:
            bounds = [self.bounds(e) for e in exprs]
            lb = min(b[0] for b in bounds)
            ub = max(b[1] for b in bounds)
            # Pigeonhole: n distinct values cannot all lie below lb+n-1 (or above ub-n+1).
            self.emit(_mk_or(self.le(_scale(e, -1), -(lb + n - 1)) for e in exprs), origin)
            self.emit(_mk_or(self.le(e, ub - n + 1) for e in exprs), origin)


# ---------------------------------------------------------------- helpers


_NEGATED = {"eq": "ne", "ne": "eq", "le": "gt", "lt": "ge", "ge": "lt", "gt": "le"}
# Terms compared with a constant or a one-variable term through their arguments (`Normaliser._extremum_by_bounds`).
_EXTREMA = ("abs", "min", "max")
# a OP b is b MIRRORED[OP] a.
_MIRRORED = {"eq": "eq", "ne": "ne", "le": "ge", "lt": "gt", "ge": "le", "gt": "lt"}
# Operators of a comparison that `_product_split_variable` may split on the values of one of its variables.
_SPLIT_OPS = frozenset({"eq", "ne", "le", "lt", "ge", "gt", "const", "add", "sub", "neg", "mul"})
_ARITHMETIC = frozenset({"mul", "add", "sub", "neg"})
# Terms that the translation names by auxiliary variables with definitions of their own.
_NONLINEAR_TERMS = frozenset({"mul", "div", "mod", "abs", "min", "max", "if"})


def _multiplies_variables(term: Node) -> bool:
    """True when `term` is a product of two non-constant terms, or a sum with one among its own terms
    (a cheap look before `Normaliser._product_split_variable` walks a comparison: most have no such product)."""
    op = term.op
    if op == "mul":
        return _is_variable_product(term)
    if op == "add" or op == "sub" or op == "neg":
        for arg in term.args:
            if arg.op == "mul" and _is_variable_product(arg):
                return True
    return False


def is_count(terms: Iterable[tuple[int, int]], doms: "list[Domain]") -> bool:
    """True for a sum of (coefficient, variable) terms that the cardinality encoder takes: ±1 coefficients
    over 0/1 variables."""
    return all((a == 1 or a == -1) and doms[v].lb >= 0 and doms[v].ub <= 1 for a, v in terms)


def _has_nonlinear_term(term: Node) -> bool:
    """True when `term` is a `_NONLINEAR_TERMS` term or a sum or difference with one among its own terms (a
    cheap look: most comparisons of a large file are sums of variables)."""
    op = term.op
    if op in _NONLINEAR_TERMS:
        return True
    if op == "add" or op == "sub" or op == "neg":
        for arg in term.args:
            if arg.op in _NONLINEAR_TERMS:
                return True
    return False


_MONOMIAL_LIMIT = 16  # monomials in the expansion of one comparison; beyond, products stay as they are


def _extremum_formula(op: str, args: list[Node], biggest: bool, e: Node) -> Node:
    """``f op e`` for f the largest (`biggest`) or smallest of `args`, as comparisons of each argument with e."""
    def beyond(side: str) -> Node:
        conjunction = biggest == (side in ("le", "lt"))  # max ≤ e: all of them; max ≥ e: one of them
        return Node("and" if conjunction else "or", tuple(Node(side, (a, e)) for a in args))

    if op == "eq":
        return Node("and", (beyond("le"), beyond("ge")))
    if op == "ne":
        return Node("or", (beyond("gt"), beyond("lt")))
    return beyond(op)


def _variable_atoms(node: Node) -> int:
    """How many variables the linear expression of `node` would have, read from the syntax (0, 1, or 2 for
    more): a variable counts once, and so does each term the translation names (a product of variables,
    div, mod, abs, min, max, if) or a predicate's parameter."""
    seen: set = set()
    stack = [node]
    while stack:
        n = stack.pop()
        op = n.op
        if op == "const":
            continue
        if op in ("add", "sub", "neg") or (op == "mul" and not _is_variable_product(n)):
            stack.extend(n.args)
            continue
        if op != "ivar" and not _has_variables(n):
            continue  # (div 16 7): a constant
        seen.add(n.value if op == "ivar" else n)
        if len(seen) > 1:
            return 2
    return len(seen)


def _product_by_signs(op: str, x: Node, y: Node, bounds: Callable[[Node], "tuple[int, int] | None"],
                      term: Callable[[Node], Expr]) -> Node | None:
    """``x op y`` as a formula on signs, or on one factor, when ``x - y`` is a product ``A·B``, plus a constant
    or a small remainder; None otherwise.

    The product is either written so against 0 (``(> (* (- x 1) (+ y 2)) 0)``), or ``x - y`` expands to
    monomials of which those holding a variable v of a product make ``v·B``. Without other terms,
    ``A·B > 0`` (A = v) is ``(A > 0 ∧ B > 0) ∨ (A < 0 ∧ B < 0)``, ``A·B = 0`` is ``A = 0 ∨ B = 0``, and
    ``≥``, ``≤``, ``≠`` are their negations; A and B are compared again by the same rule. With a constant
    c ≠ 0, v's bounds (`bounds`) must keep it away from 0 and give ``v·B ≥ k`` one bound on B for every v
    (``B ≥ ⌈k/v⌉`` the same at both ends, `_one_factor_bound`); with other terms R, |R| < |v| must hold
    everywhere (`_small_remainder`). `term` gives the value of a term without variables (``(div 16 7)``).
    No multiplier circuit is built: ``(> (* x2 x0) (* 100 x2))`` over 42,581..55,166 and -20,347..63,246
    (x2·(x0 - 100) > 0) was 500 k clauses that Glucose did not satisfy in 30 s, and ``x1·x4 > x1·x2 - 47``
    with x1 in 796,904..826,099 is x4 ≥ x2.
    """
    if x.op == "const":
        x, y, op = y, x, _MIRRORED[op]
    if y.op == "const" and y.value == 0 and x.op == "mul" and _is_variable_product(x):
        return _sign_formula(op, x.args[0], x.args[1])
    monomials: dict[frozenset, int] = {}
    if not (_add_monomials(x, 1, monomials, term) and _add_monomials(y, -1, monomials, term)):
        return None
    constant = monomials.pop(frozenset(), 0)
    terms = [(atoms, c) for atoms, c in monomials.items() if c]
    factors = sorted({a for atoms, _ in terms if sum(k for _, k in atoms) >= 2 for a, _ in atoms if a.op == "ivar"},
                     key=lambda a: a.value)
    for v in factors:  # each variable of a product, until one fits
        with_v = [(atoms, c) for atoms, c in terms if any(a == v for a, _ in atoms)]
        without_v = [(atoms, c) for atoms, c in terms if not any(a == v for a, _ in atoms)]
        b = _polynomial(with_v, v)
        if not without_v:
            if not constant:
                return _sign_formula(op, v, b)
            bounded = _one_factor_bound(op, v, b, -constant, bounds(v))
        else:
            r = Node("add", (_polynomial(without_v, None), Node("const", (), constant)))
            bounded = _small_remainder(op, v, b, r, bounds(v), bounds(r))
        if bounded is not None:
            return bounded
    return None


def _polynomial(terms: list[tuple[frozenset, int]], divided_by: Node | None) -> Node:
    """The sum of monomials `terms` as a node, each divided once by the atom `divided_by` (which it holds)."""
    out = None
    for atoms, c in terms:
        parts = [Node("const", (), c)] if c != 1 else []
        for atom, k in sorted(atoms, key=lambda ak: repr(ak[0])):
            parts += [atom] * (k - 1 if atom == divided_by else k)
        piece = parts[0] if parts else Node("const", (), 1)
        for part in parts[1:]:
            piece = Node("mul", (piece, part))
        out = piece if out is None else Node("add", (out, piece))
    return out


def _small_remainder(op: str, v: Node, b: Node, r: Node, v_bounds: "tuple[int, int] | None",
                     r_bounds: "tuple[int, int] | None") -> Node | None:
    """``v·b + r op 0`` when |r| < |v| for all values: the sign is b's, or r's where b = 0; None otherwise."""
    positive = _positive_factor(v_bounds, b)
    if positive is None or r_bounds is None:
        return None
    least, _, b = positive
    if not -least < r_bounds[0] <= r_bounds[1] < least:
        return None
    zero = Node("const", (), 0)
    if op == "eq":
        return Node("and", (Node("eq", (b, zero)), Node("eq", (r, zero))))
    if op == "ne":
        return Node("or", (Node("ne", (b, zero)), Node("ne", (r, zero))))
    beyond = Node("ge", (b, Node("const", (), 1))) if op in ("gt", "ge") else Node("le", (b, Node("const", (), -1)))
    return Node("or", (beyond, Node("and", (Node("eq", (b, zero)), Node(op, (r, zero))))))


def _one_factor_bound(op: str, v: Node, b: Node, k: int, v_bounds: "tuple[int, int] | None") -> Node | None:
    """``v·b op k`` (k ≠ 0) as a comparison of b with a constant when v's sign is fixed and the bound on b
    is the same for every value of v; None otherwise."""
    positive = _positive_factor(v_bounds, b)
    if positive is None:
        return None
    lo, hi, b = positive
    if op in ("eq", "ne"):
        if abs(k) >= lo:
            return None
        return Node("false" if op == "eq" else "true")  # 0 < |k| < |v|: v·b is 0 or at least |v| away from 0
    if op == "gt":
        op, k = "ge", k + 1
    elif op == "lt":
        op, k = "le", k - 1
    if op == "ge":
        at_lo, at_hi = -(-k // lo), -(-k // hi)  # b ≥ ⌈k/v⌉
    else:
        at_lo, at_hi = k // lo, k // hi  # b ≤ ⌊k/v⌋
    if at_lo != at_hi:
        return None
    return Node(op, (b, Node("const", (), at_lo)))


def _positive_factor(v_bounds: "tuple[int, int] | None", b: Node) -> "tuple[int, int, Node] | None":
    """|v|'s bounds and b with v·b = |v|·b' when v's sign is fixed (b' = -b for a negative v); None when v
    can be 0 or has no bounds."""
    if v_bounds is None or v_bounds[0] <= 0 <= v_bounds[1]:
        return None
    lo, hi = v_bounds
    return (lo, hi, b) if lo > 0 else (-hi, -lo, Node("neg", (b,)))


def _sign_formula(op: str, a: Node, b: Node) -> Node:
    """``a·b op 0`` as a formula on the signs of a and b."""
    zero = Node("const", (), 0)
    base = {"ne": "eq", "le": "gt", "ge": "lt"}.get(op, op)
    if base == "eq":
        formula = Node("or", (Node("eq", (a, zero)), Node("eq", (b, zero))))
    else:
        same = base == "gt"  # positive: the same signs; negative: opposite ones
        formula = Node("or", (Node("and", (Node("gt", (a, zero)), Node("gt" if same else "lt", (b, zero)))),
                              Node("and", (Node("lt", (a, zero)), Node("lt" if same else "gt", (b, zero))))))
    return Node("not", (formula,)) if base != op else formula


def _add_monomials(node: Node, coef: int, into: dict[frozenset, int], term: Callable[[Node], Expr]) -> bool:
    """Add ``coef·node`` expanded into monomials to `into` (atoms with multiplicities -> coefficient);
    False when `node` is not a polynomial of sums, negations and products or expands to too many terms."""
    expanded = _monomials(node, term)
    if expanded is None:
        return False
    for atoms, c in expanded:
        into[atoms] = into.get(atoms, 0) + coef * c
    return len(into) <= _MONOMIAL_LIMIT


def _monomials(node: Node, term: Callable[[Node], Expr]) -> list[tuple[frozenset, int]] | None:
    """`node` as a list of (atoms with multiplicities, coefficient); variables are atoms, and so are terms
    other than sums, negations and products (compared by equality); `term` evaluates those without variables."""
    op = node.op
    if op == "const":
        return [(frozenset(), int(node.value))]
    if op in ("add", "sub", "neg"):
        out: list[tuple[frozenset, int]] = []
        for k, arg in enumerate(node.args):
            part = _monomials(arg, term)
            if part is None:
                return None
            # as `term` reads them: sub and neg negate every argument after the first, or a single one
            sign = 1 if op == "add" or (k == 0 and len(node.args) > 1) else -1
            out += [(atoms, sign * c) for atoms, c in part]
            if len(out) > _MONOMIAL_LIMIT:
                return None
        return out
    if op == "mul":
        product: list[tuple[frozenset, int]] = [(frozenset(), 1)]
        for arg in node.args:
            part = _monomials(arg, term)
            if part is None or len(product) * len(part) > _MONOMIAL_LIMIT:
                return None
            product = [(_times(a, b), c * d) for a, c in product for b, d in part]
        return product
    if op in ("eq", "ne", "le", "lt", "ge", "gt", "and", "or", "not", "imp", "iff", "xor", "bvar", "true", "false"):
        return None  # not an integer term
    if not _has_variables(node):
        return [(frozenset(), term(node)[1])]
    return [(frozenset({(node, 1)}), 1)]


def _has_variables(node: Node) -> bool:
    """True when `node` names a variable or a predicate's parameter."""
    return any(n.op in ("ivar", "param", "bvar") for n in node.walk())


def _times(a: frozenset, b: frozenset) -> frozenset:
    """The product of two monomials' atoms (multiplicities added)."""
    counts = dict(a)
    for atom, k in b:
        counts[atom] = counts.get(atom, 0) + k
    return frozenset(counts.items())


def _is_variable_product(mul: Node) -> bool:
    """True when the ``mul`` node multiplies two non-constant terms."""
    return mul.args[0].op != "const" and mul.args[1].op != "const"


def _int_names(node: Node) -> set[str]:
    """The integer variables named in `node`."""
    return {n.value for n in node.walk() if n.op == "ivar"}


def _substitute(node: Node, name: str, value: int) -> Node:
    """`node` with the integer variable `name` replaced by the constant `value`."""
    if node.op == "ivar":
        return Node("const", (), value, node.line, node.col) if node.value == name else node
    if not node.args:
        return node
    return Node(node.op, tuple(_substitute(a, name, value) for a in node.args), node.value, node.line, node.col)


_LINEAR_OPS = frozenset({"eq", "ne", "le", "lt", "ge", "gt", "const", "ivar", "add", "sub", "neg", "mul"})


def _residue_class(a: int, b: int, k: int) -> tuple[int, int] | None:
    """x's values in the integer solutions of ``a·x + b·y + k = 0`` (a, b non-zero) as (residue, step): x ≡
    residue (mod step); None when there is no solution (gcd(a, b) does not divide k)."""
    g = math.gcd(a, b)
    if k % g:
        return None
    step = abs(b) // g
    if step == 1:
        return 0, 1
    return (-k // g) * pow(a // g, -1, step) % step, step


def _class_size(dom: Domain, residue: int, step: int) -> int:
    """How many values of `dom` are ≡ residue (mod step)."""
    return sum(len(range(lo + (residue - lo) % step, hi + 1, step)) for lo, hi in dom.intervals)


def _class_values(dom: Domain, residue: int, step: int) -> Iterable[int]:
    """The values of `dom` that are ≡ residue (mod step), in increasing order."""
    for lo, hi in dom.intervals:
        yield from range(lo + (residue - lo) % step, hi + 1, step)


def _product_bounds(x: int, y: int, z: int, lb: dict[int, int], ub: dict[int, int]) -> list[tuple[int, int, int]]:
    """Bounds that ``z = x·y`` implies, as (variable, low, high): z within the products of the factors'
    bounds, and each factor within the quotients of z's bounds by the other's, when that one cannot be 0
    (x·y ≥ 1.2·10⁹ with y ≤ 100,000 leaves x ≥ 12,000)."""
    out = [(z, min(a * b for a in (lb[x], ub[x]) for b in (lb[y], ub[y])),
            max(a * b for a in (lb[x], ub[x]) for b in (lb[y], ub[y])))]
    nonzero = lb[z] > 0 or ub[z] < 0  # then neither factor is 0: one bounded by 0 is bounded by ±1
    bounds = {v: (1 if nonzero and lb[v] == 0 else lb[v], -1 if nonzero and ub[v] == 0 else ub[v]) for v in (x, y)}
    for f, g in ((x, y), (y, x)):
        low, high = bounds[g]
        if low > 0 or high < 0:  # z / g is monotone in each of z and g: its extremes are at the corners
            corners = [(p, q) for p in (lb[z], ub[z]) for q in (low, high)]
            out.append((f, min(-(-p // q) for p, q in corners), max(p // q for p, q in corners)))
        elif bounds[f] != (lb[f], ub[f]):
            out.append((f, *bounds[f]))
    return out


def _has_const(node: Node) -> bool:
    return any(a.op == "const" for a in node.args)


def _is_linear(node: Node) -> bool:
    """True when `node` is a comparison or term of constants, variables, sums and constant multiples only."""
    return all(n.op in _LINEAR_OPS and (n.op != "mul" or _has_const(n)) for n in node.walk())


def _allowed(lit: Linear) -> tuple[int, int]:
    """The interval of x allowed by ``a·x ≤ c``."""
    a, c = lit.coefs[0], lit.c
    big = 1 << 62
    if a > 0:
        return -big, c // a
    return -(c // -a), big


def _add(a: Expr, b: Expr) -> Expr:
    coefs = dict(a[0])
    for v, k in b[0].items():
        s = coefs.get(v, 0) + k
        if s:
            coefs[v] = s
        else:
            coefs.pop(v, None)
    return coefs, a[1] + b[1]


def _scale(a: Expr, k: int) -> Expr:
    if k == 0:
        return {}, 0
    return {v: c * k for v, c in a[0].items()}, a[1] * k


def _sub(a: Expr, b: Expr) -> Expr:
    return _add(a, _scale(b, -1))


def _resolve(node: Node, env: "Binding | None") -> Node:
    """`node` with every ``param`` replaced by its argument, itself resolved in its own binding."""
    if node.op == "param":
        arg, outer = env[node.value]
        return _resolve(arg, outer) if outer else arg
    if not node.args:
        return node
    return Node(node.op, tuple(_resolve(a, env) for a in node.args), node.value, node.line, node.col)


# ---------------------------------------------------------------- global constraints (Sugar's decompositions)


def _pairs(items: list) -> Iterable[tuple]:
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            yield items[i], items[j]


def _g_alldifferent(n: Normaliser, node: Node) -> Node:
    return _node("and", *(_node("ne", a, b, at=node) for a, b in _pairs(list(node.args))), at=node)


def _g_weightedsum(n: Normaliser, node: Node) -> Node:
    terms, rhs = node.args
    total = _node("add", *(_node("mul", wt.args[0], wt.args[1]) for wt in terms.args), at=node)
    return _node(node.value, total, rhs, at=node)


def _indicator(term: Node, value: Node) -> Node:
    return _node("if", _node("eq", term, value), _const(1), _const(0))


def _g_count(n: Normaliser, node: Node) -> Node:
    value, terms, rhs = node.args
    return _node(node.value, _node("add", *(_indicator(t, value) for t in terms.args)), rhs, at=node)


def _g_element(n: Normaliser, node: Node) -> Node:
    index, terms, rhs = node.args
    items = [_node("ge", index, _const(1)), _node("le", index, _const(len(terms.args)))]
    for k, t in enumerate(terms.args, 1):
        items.append(_node("imp", _node("eq", index, _const(k)), _node(node.value, t, rhs)))
    return _node("and", *items, at=node)


def _hull(node: Node, declared: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """Bounds of a term without parameters over the declared domains, as Sugar computes a linear
    sum's domain: linear parts collected (equal non-linear sub-terms are one atom), each
    non-linear atom bounded by interval arithmetic on its arguments (``if``: both branches)."""
    coefs, const = _linear_form(node)
    lo = hi = const
    for atom, k in coefs.items():
        a, b = _atom_hull(atom, declared)
        lo, hi = (lo + k * a, hi + k * b) if k > 0 else (lo + k * b, hi + k * a)
    return lo, hi


def _linear_form(node: Node) -> tuple[dict[Node, int], int]:
    """A term as (coefficient of each variable or non-linear sub-term, constant); zero coefficients dropped."""
    op = node.op
    if op == "const":
        return {}, int(node.value)
    if op == "mul":
        (ca, ka), (cb, kb) = _linear_form(node.args[0]), _linear_form(node.args[1])
        if ca and cb:
            return {node: 1}, 0
        coefs, k, scale = (cb, kb, ka) if not ca else (ca, ka, kb)
        return ({v: c * scale for v, c in coefs.items()} if scale else {}), k * scale
    if op not in ("add", "sub", "neg"):
        return {node: 1}, 0
    signs = [1] * len(node.args) if op == "add" else [-1] if len(node.args) == 1 else [1] + [-1] * (len(node.args) - 1)
    total: dict[Node, int] = {}
    const = 0
    for sign, arg in zip(signs, node.args):
        coefs, k = _linear_form(arg)
        const += sign * k
        for v, c in coefs.items():
            total[v] = total.get(v, 0) + sign * c
    return {v: c for v, c in total.items() if c}, const


def _atom_hull(t: Node, declared: dict[str, tuple[int, int]]) -> tuple[int, int]:
    op = t.op
    if op == "ivar":
        return declared[t.value]
    if op == "if":
        (a, b), (c, d) = _hull(t.args[1], declared), _hull(t.args[2], declared)
        return min(a, c), max(b, d)
    interval = _atom_interval(op, [_hull(a, declared) for a in t.args])
    if interval is None:
        raise CspError(f"'{op}' cannot be bounded here", t.line, t.col, exit=Exit.UNSUPPORTED)
    return interval


def _atom_interval(op: str, bounds: list[tuple[int, int]]) -> "tuple[int, int] | None":
    """The interval of ``mul abs min max div mod`` over their arguments' intervals (None for another operator,
    or a divisor that is not one non-zero constant)."""
    if op == "mul":
        (a, b), (c, d) = bounds
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    if op == "abs":
        lo, hi = bounds[0]
        return (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0, max(-lo, hi))
    if op == "min":
        return min(b[0] for b in bounds), min(b[1] for b in bounds)
    if op == "max":
        return max(b[0] for b in bounds), max(b[1] for b in bounds)
    if op in ("div", "mod") and bounds[1][0] == bounds[1][1] and bounds[1][0] != 0:
        (lo, hi), d = bounds[0], bounds[1][0]
        if op == "div":
            return min(lo // d, hi // d), max(lo // d, hi // d)
        if lo // d == hi // d:  # no multiple of d crossed: the remainder grows with the argument
            return lo % d, hi % d
        return (0, d - 1) if d > 0 else (d + 1, 0)
    return None


# Above this many constant time points per event point, cumulative checks the load at the
# starts and ends of the tasks instead (fewer sums, each comparing terms with terms).
_POINTS_PER_EVENT = 4


def _g_cumulative(n: Normaliser, node: Node) -> Node:
    """Sugar's decomposition: at every time point t from the least lower bound of a start to the
    greatest upper bound of an end, minus 1, the heights of the tasks with start <= t < end
    add up to at most the limit (heights, durations and the limit may be negative)."""
    if n._binding is not None:
        node = _resolve(node, n._binding)  # the horizon depends on the argument terms
    tasks, limit = node.args
    items: list[Node] = []
    spans: list[tuple[Node, Node, Node]] = []
    for task in tasks.args:
        o, d, e, h = task.args
        start = _node("sub", e, d) if o.op == "nil" else o
        stop = _node("add", o, d) if e.op == "nil" else e
        if "nil" not in (o.op, d.op, e.op):
            items.append(_node("eq", _node("add", o, d), e, at=task))
        spans.append((start, stop, h))
    if not spans:
        return _node("and", *items, at=node)
    declared = n.declared_bounds
    first = min(_hull(start, declared)[0] for start, _, _ in spans)
    last = max(_hull(stop, declared)[1] for _, stop, _ in spans) - 1
    if first > last:
        return _node("and", *items, at=node)

    def load_at(t: Node) -> Node:
        return _node("add", *(_node("if", _node("and", _node("le", o, t), _node("lt", t, e)), h, _const(0))
                              for o, e, h in spans))

    def check(t: Node) -> Node:
        return _node("le", load_at(t), limit, at=node)

    if all(_hull(h, declared)[0] >= 0 for _, _, h in spans):
        # With no negative height the load at any covered time point is at most the load at
        # the latest start at or before it, and an uncovered time point has load 0.
        items.append(_node("le", _const(0), limit, at=node))
        items.extend(check(start) for start, _, _ in spans)
    elif last - first + 1 <= _POINTS_PER_EVENT * (2 * len(spans) + 1):
        items.extend(check(_const(t)) for t in range(first, last + 1))
    else:
        # The load only changes where a task starts or ends: check the first time point and
        # every start and end that falls within [first, last].
        items.append(check(_const(first)))
        for start, stop, _ in spans:
            items.append(_node("imp", _node("le", start, _const(last)), check(start)))
            within = _node("and", _node("le", _const(first), stop), _node("le", stop, _const(last)))
            items.append(_node("imp", within, check(stop)))
    return _node("and", *items, at=node)


def _g_disjunctive(n: Normaliser, node: Node) -> Node:
    """Sugar's decomposition: for every two tasks, a duration is exactly 0 or one ends before the other starts."""
    (tasks,) = node.args
    items = []
    for (o1, d1), (o2, d2) in _pairs([t.args for t in tasks.args]):
        items.append(_node("or", _node("eq", d1, _const(0)), _node("eq", d2, _const(0)),
                           _node("le", _node("add", o1, d1), o2), _node("le", _node("add", o2, d2), o1)))
    return _node("and", *items, at=node)


def _g_lex(n: Normaliser, node: Node) -> Node:
    xs, ys = (list(a.args) for a in node.args)
    strict = node.op == "lex_less"
    # Built from the last position back: lex(i) = x_i < y_i ∨ (x_i = y_i ∧ lex(i+1)).
    acc = _node("true") if not strict else _node("false")
    if len(xs) < len(ys):
        acc = _node("true")
    elif len(xs) > len(ys):
        acc = _node("false")
    for x, y in reversed(list(zip(xs, ys))):
        acc = _node("and", _node("le", x, y), _node("or", _node("lt", x, y), acc))
    return acc


# nvalue is counted value by value (Sugar's decomposition) while the terms take at most this many values
# in all, or at most twice as many as there are pairs of terms; above, by first occurrences.
_NVALUE_VALUES = 256


def _g_nvalue(n: Normaliser, node: Node) -> Node:
    """Sugar's decomposition: the number of values v some term equals. Over large domains (a term of
    70,000 values: 70,000 aux variables, 13.5 M clauses), the terms that differ from every term before them."""
    count, terms = node.args
    domains = [n.domain_of(n.term(t)) for t in terms.args]
    k = len(domains)
    if sum(d.size for d in domains) > max(_NVALUE_VALUES, k * (k - 1)):
        firsts = [_const(1)] * bool(k) + [
            _node("if", _node("and", *(_node("ne", t, u) for u in terms.args[:i])), _const(1), _const(0))
            for i, t in enumerate(terms.args) if i
        ]
        return _node("eq", count, _node("add", *firsts), at=node)
    values: set[int] = set()
    for d in domains:
        values.update(d.values())
    used = [_node("if", _node("or", *(_node("eq", t, _const(v)) for t in terms.args)), _const(1), _const(0))
            for v in sorted(values)]
    return _node("eq", count, _node("add", *used), at=node)


def _gcc_items(terms: Node, pairs: Node, node: Node) -> list[Node]:
    return [_node("eq", _node("add", *(_indicator(t, p.args[0]) for t in terms.args)), p.args[1], at=node)
            for p in pairs.args]


def _g_gcc(n: Normaliser, node: Node) -> Node:
    terms, pairs = node.args
    return _node("and", *_gcc_items(terms, pairs, node), at=node)


def _g_gcc_costs(n: Normaliser, node: Node) -> Node:
    terms, pairs, table, cost = node.args
    items = _gcc_items(terms, pairs, node)
    costs = []
    for entry in table.args:
        i, j, w = int(entry.args[0].value), int(entry.args[1].value), entry.args[2]  # w: any term
        if 1 <= i <= len(terms.args) and 1 <= j <= len(pairs.args):
            cond = _node("eq", terms.args[i - 1], pairs.args[j - 1].args[0])
            costs.append(_node("if", cond, w, _const(0)))
    items.append(_node("eq", cost, _node("add", *costs), at=node))
    return _node("and", *items, at=node)


_GLOBALS: dict[str, Callable[[Normaliser, Node], Node]] = {
    "alldifferent": _g_alldifferent,
    "weightedsum": _g_weightedsum,
    "count": _g_count,
    "element": _g_element,
    "cumulative": _g_cumulative,
    "disjunctive": _g_disjunctive,
    "lex_less": _g_lex,
    "lex_lesseq": _g_lex,
    "nvalue": _g_nvalue,
    "global_cardinality": _g_gcc,
    "global_cardinality_with_costs": _g_gcc_costs,
}


def normalise(model: Model, tighten: bool = True, cardinality: bool = False,
              max_domain: int = MAX_DOMAIN_SIZE, shared_split: bool = False) -> NormalCSP:
    """Normalise a checked model.

    `tighten`: absorb top-level single-variable comparisons into the domains
    (turn off when every constraint must stay separately switchable).
    `cardinality`: keep sums of ±1·(0/1 variable) whole, however long (for a
    cardinality encoder) instead of splitting them into sums of three terms.
    `max_domain`: the most values a variable may have (larger domains need the log encoding).
    `shared_split`: split the long sums of ``=``/``≠`` by auxiliary variables equal to
    pairs of terms, shared by both halves (Sugar's way), instead of one-sided ones per half.
    The model is translated a second time, over the user variables' propagated domains, when
    one of them fell under a size that chooses how a product, quotient or remainder is written
    (`Normaliser.narrowed_domains`; the result's `passes` is then 2).
    Raises `CspError` for constructs that cannot be translated.
    """
    # The clauses are 100,000s of small acyclic lists and literals that all live on:
    # automatic cycle collections would only rescan the growing heap.
    with gc_paused():
        first = Normaliser(model, tighten, cardinality, max_domain, shared_split)
        csp = first.run()
        narrowed = first.narrowed_domains()
        if narrowed is None:
            return csp
        csp = Normaliser(model, tighten, cardinality, max_domain, shared_split, narrowed).run()
        csp.passes = 2
        return csp
