"""Data types of the front end: the syntax tree of a Sugar CSP file and the checked model.

This module holds only data, no behaviour of any stage. The parser
(`csp2sat.parser`) builds `Statement`s whose expressions are `Node`s; the
checker (`csp2sat.checker`) resolves names and produces a `Model`, which every
later stage (normaliser, evaluator, formatter of answers) reads.

Expression nodes use one tagged type, `Node`, with the operator folded to its
canonical name (`=` -> ``eq``, `&&` -> ``and``, `+` -> ``add``, ...). The
canonical operators and the shape of their arguments:

=================  ===============================================================
op                 meaning (args / value)
=================  ===============================================================
``const``          integer constant; ``value`` is the int
``true`` ``false`` Boolean constants
``sym``            an unresolved symbol (parser output only); ``value`` is the name
``ivar``           integer variable (checked); ``value`` is the name
``bvar``           Boolean variable (checked); ``value`` is the name
``param``          predicate parameter inside a predicate body; ``value`` is the name
``nil``            the ``nil`` placeholder of a cumulative task
``list``           a parenthesised list inside a global constraint; ``args`` the items
``not`` ``and`` ``or`` ``imp`` ``xor`` ``iff``     formulas over formulas
``eq`` ``ne`` ``le`` ``lt`` ``ge`` ``gt``          comparisons of two terms
``add`` ``sub`` ``neg`` ``mul`` ``div`` ``mod`` ``abs`` ``min`` ``max`` ``pow``
                   integer terms (``add``/``sub`` n-ary, ``neg``/``abs`` unary,
                   the others binary)
``if``             ``(if F T T)``: args = (formula, term, term)
``call``           a call of a predicate or relation (parser output); ``value`` name
``pcall``          a predicate call (checked); ``value`` name, args the arguments
``rcall``          a relation call (checked); ``value`` name, args the arguments
``alldifferent``   args = the terms (list form flattened by the checker)
``weightedsum``    value = comparison op; args = (list of (const, term) lists, rhs)
``count``          value = comparison op; args = (value term, list of terms, rhs)
``element``        value = comparison op (``eq`` for the 3-argument form);
                   args = (index, list of terms, rhs)
``cumulative``     args = (list of tasks, limit); a task is a list
                   (origin|nil, duration|nil, end|nil, height)
``disjunctive``    args = (list of tasks,); a task is a list (origin, duration)
``lex_less`` ``lex_lesseq``      args = (list, list)
``nvalue``         args = (count term, list of terms)
``global_cardinality``           args = (list of terms, list of (value, count) lists)
``global_cardinality_with_costs`` args = (terms, (value count) lists,
                   (i j w) lists, cost term)
=================  ===============================================================

Positions (`line`, `col`, 1-based) are carried by every node and statement but
do not take part in equality, so two trees that mean the same compare equal.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterator, Union

LOGIC_OPS = frozenset({"not", "and", "or", "imp", "xor", "iff"})
COMPARISON_OPS = frozenset({"eq", "ne", "le", "lt", "ge", "gt"})
TERM_OPS = frozenset({"add", "sub", "neg", "mul", "div", "mod", "abs", "min", "max", "pow", "if"})
GLOBAL_OPS = frozenset(
    {
        "alldifferent",
        "weightedsum",
        "count",
        "element",
        "cumulative",
        "disjunctive",
        "lex_less",
        "lex_lesseq",
        "nvalue",
        "global_cardinality",
        "global_cardinality_with_costs",
    }
)


@dataclass(frozen=True, slots=True)
class Node:
    """One expression node: canonical operator, arguments, payload and source position."""

    op: str
    args: tuple["Node", ...] = ()
    value: Union[int, str, None] = None
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)

    def walk(self) -> Iterator["Node"]:
        """This node and all nodes below it, parents first (iteratively: trees can be deep)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.args))


def _unfrozen_twin(cls: type) -> type | None:
    """A plain class with the slots of the frozen slotted dataclass `cls`, or None where that cannot work.

    A frozen dataclass's ``__init__`` stores each field through
    ``object.__setattr__``; the front end makes one `Node` per atom and operator
    and one declaration per line. Built as an instance of the twin (plain
    assignments) and then given `cls` as its class (ordinary Python between
    classes of one slot layout), the object is an ordinary, frozen `cls`, made
    about three times as fast.
    """
    names = tuple(f.name for f in fields(cls))
    if getattr(cls, "__slots__", None) != names:
        return None
    namespace: dict[str, Any] = {}
    exec(f"def __init__(self, {', '.join(names)}):\n    " + "; ".join(f"self.{n} = {n}" for n in names), namespace)
    twin = type(f"_Unfrozen{cls.__name__}", (), {"__slots__": names, "__init__": namespace["__init__"]})
    try:
        probe = twin(*range(len(names)))
        probe.__class__ = cls
    except TypeError:  # the layouts differ after all
        return None
    if [getattr(probe, n) for n in names] != list(range(len(names))):
        return None
    return twin


def fast_constructor(cls: type) -> Callable[..., Any]:
    """``cls(*values)`` (every field given, in order) for a frozen slotted dataclass, through `_unfrozen_twin`."""
    twin = _unfrozen_twin(cls)
    if twin is None:
        return cls

    def make(*values: Any) -> Any:
        obj = twin(*values)
        obj.__class__ = cls
        return obj

    return make


def _fast_node_constructor() -> Callable[[str, tuple, Any, int, int], Node]:
    """`fast_constructor(Node)` with its five arguments spelled out (no argument tuple: the hottest one)."""
    twin = _unfrozen_twin(Node)
    if twin is None:
        return Node

    def make(op: str, args: tuple, value: Any, line: int, col: int) -> Node:
        node = twin(op, args, value, line, col)
        node.__class__ = Node
        return node  # type: ignore[return-value]

    return make


# Equivalent to Node(op, args, value, line, col) with all five given; for hot paths (parser, checker).
make_node = _fast_node_constructor()


# ---------------------------------------------------------------- domains


@dataclass(frozen=True, slots=True)
class Domain:
    """A finite set of integers as sorted, disjoint, non-adjacent closed intervals."""

    intervals: tuple[tuple[int, int], ...]

    @staticmethod
    def of(pieces: "list[tuple[int, int]] | tuple[tuple[int, int], ...]") -> "Domain":
        """The union of the intervals `(lo, hi)` in any order, overlapping or not (empty ones dropped)."""
        merged: list[list[int]] = []
        for lo, hi in sorted(p for p in pieces if p[0] <= p[1]):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return Domain(tuple((lo, hi) for lo, hi in merged))

    @staticmethod
    def range(lo: int, hi: int) -> "Domain":
        """The interval lo..hi (empty when lo > hi)."""
        return Domain(((lo, hi),) if lo <= hi else ())

    @property
    def lb(self) -> int:
        """The smallest value (the domain must not be empty)."""
        return self.intervals[0][0]

    @property
    def ub(self) -> int:
        """The largest value (the domain must not be empty)."""
        return self.intervals[-1][1]

    @property
    def size(self) -> int:
        """The number of values."""
        return sum(hi - lo + 1 for lo, hi in self.intervals)

    def is_empty(self) -> bool:
        """True when the domain has no value."""
        return not self.intervals

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        intervals = self.intervals
        if len(intervals) <= 8:  # the usual case: bisect would not pay off
            return any(lo <= value <= hi for lo, hi in intervals)
        at = bisect_right(intervals, (value, math.inf)) - 1  # divisor sets and images have thousands of holes
        return at >= 0 and value <= intervals[at][1]

    def nth(self, k: int) -> int:
        """The k-th smallest value (from 0), without listing the values (IndexError past the last)."""
        for lo, hi in self.intervals:
            if 0 <= k <= hi - lo:
                return lo + k
            k -= hi - lo + 1
        raise IndexError(k)

    def count_below(self, value: int) -> int:
        """How many values are smaller than `value`."""
        return sum(min(hi, value - 1) - lo + 1 for lo, hi in self.intervals if lo < value)

    def within(self, lo: int, hi: int) -> "Domain":
        """The values from `lo` to `hi` (inclusive)."""
        if lo > hi:
            return Domain(())  # not an interval (hi, lo) of one of ours: that would be a domain of -1 values
        intervals = self.intervals
        if len(intervals) <= 8:
            return Domain(tuple((max(a, lo), min(b, hi)) for a, b in intervals if a <= hi and b >= lo))
        # bounds propagation narrows domains of thousands of single values one step at a time: slice, clip the ends
        first = max(bisect_right(intervals, (lo, math.inf)) - 1, 0)
        if intervals[first][1] < lo:
            first += 1
        last = bisect_right(intervals, (hi, math.inf))
        kept = list(intervals[first:last])
        if kept:
            kept[0] = (max(kept[0][0], lo), kept[0][1])
            kept[-1] = (kept[-1][0], min(kept[-1][1], hi))
            if kept[-1][0] > kept[-1][1]:
                kept.pop()
        return Domain(tuple(kept))

    def values(self) -> Iterator[int]:
        """All values in increasing order."""
        for lo, hi in self.intervals:
            yield from range(lo, hi + 1)


# ---------------------------------------------------------------- statements (parser output)


@dataclass(frozen=True, slots=True)
class DomainDecl:
    """``(domain NAME ...)``: `spec` is the written form (see `IntDecl.spec`)."""

    name: str
    spec: tuple
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class IntDecl:
    """``(int NAME ...)``.

    `spec` keeps the form the user wrote, so that the formatter can write it back:
    ``("bounds", lo, hi)``, ``("value", v)``, ``("ranges", ((lo, hi) | (v,), ...))`` or
    ``("domain", NAME)``.
    """

    name: str
    spec: tuple
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class BoolDecl:
    """``(bool NAME)``."""

    name: str
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class RelationDecl:
    """``(relation NAME ARITY (supports|conflicts TUPLE*))``."""

    name: str
    arity: int
    supports: bool
    tuples: tuple[tuple[int, ...], ...]
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    """``(predicate (NAME PARAM*) BODY)``; the body is a formula with ``sym`` leaves."""

    name: str
    params: tuple[str, ...]
    body: Node
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class ObjectiveDecl:
    """``(objective minimize|maximize NAME+)``."""

    sense: str
    names: tuple[str, ...]
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class ConstraintStmt:
    """A top-level formula; `text` is its source text on one line, comments removed (set by the parser)."""

    formula: Node
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)
    text: str = field(default="", compare=False)


Statement = Union[DomainDecl, IntDecl, BoolDecl, RelationDecl, PredicateDecl, ObjectiveDecl, ConstraintStmt]


@dataclass(frozen=True, slots=True)
class Comment:
    """A ``;`` comment, kept for the formatter; `text` includes the semicolons."""

    text: str
    line: int
    col: int


@dataclass(frozen=True)
class SyntaxTree:
    """A parsed file: its statements in order, and its comments.

    `warnings` are the parser's warnings (odd tokens read as Sugar reads them);
    `ends` gives, for each statement, the (line, col) of its last character, so
    that the formatter can tell comments inside a statement from those after it.
    Neither takes part in equality.
    """

    statements: tuple[Statement, ...]
    comments: tuple[Comment, ...] = ()
    file: str = "<string>"
    warnings: tuple = field(default=(), compare=False)  # tuple[Diagnostic, ...]
    ends: tuple[tuple[int, int], ...] = field(default=(), compare=False)


# ---------------------------------------------------------------- the checked model


@dataclass(frozen=True, slots=True)
class IntVar:
    """A declared integer variable and its domain."""

    name: str
    domain: Domain
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class BoolVar:
    """A declared Boolean variable."""

    name: str
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation: the allowed (`supports`) or forbidden tuples, each of length `arity`."""

    name: str
    arity: int
    supports: bool
    tuples: tuple[tuple[int, ...], ...]
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Predicate:
    """A predicate: its body uses ``param`` nodes for the parameters (resolved, not inlined)."""

    name: str
    params: tuple[str, ...]
    body: Node
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Constraint:
    """A checked top-level constraint and the source text it came from."""

    formula: Node
    line: int = 0
    col: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class Objective:
    """What to optimise: `var` is the variable optimised, `shown` all names listed (Sugar prints them on `o` lines)."""

    sense: str  # "minimize" | "maximize"
    var: str
    shown: tuple[str, ...]
    line: int = 0
    col: int = 0


@dataclass
class Model:
    """A checked CSP: every name resolved, every arity and type right.

    Dictionaries keep definition order, which is Sugar's output order.
    Predicate and relation calls stay as ``pcall``/``rcall`` nodes; stages that
    need them inlined do it themselves.
    """

    file: str = "<string>"
    int_vars: dict[str, IntVar] = field(default_factory=dict)
    bool_vars: dict[str, BoolVar] = field(default_factory=dict)
    relations: dict[str, Relation] = field(default_factory=dict)
    predicates: dict[str, Predicate] = field(default_factory=dict)
    constraints: list[Constraint] = field(default_factory=list)
    objective: Objective | None = None
    warnings: list = field(default_factory=list)  # list[Diagnostic]
    # The bounds cumulative's horizon is computed from (name -> (lb, ub)) when a stage has cut domains after
    # declaration (the objective search's windows): Sugar's horizon comes from the declared domains, and a cut
    # one would change what the constraint means. None: the domains above are the declared ones.
    horizon_bounds: dict[str, tuple[int, int]] | None = None

    def declared_bounds(self) -> dict[str, tuple[int, int]]:
        """(lb, ub) of every int variable as declared: `horizon_bounds` once a stage has changed domains."""
        return self.horizon_bounds or {name: (v.domain.lb, v.domain.ub) for name, v in self.int_vars.items()}

    def __repr__(self) -> str:
        # A summary: the full dictionaries of a generated puzzle would flood a notebook.
        objective = f", {self.objective.sense} {self.objective.var}" if self.objective else ""
        return (
            f"Model({self.file!r}: {len(self.int_vars)} int, {len(self.bool_vars)} bool, "
            f"{len(self.constraints)} constraints{objective})"
        )

    def bool_key(self, name: str) -> str:
        """The key of Boolean variable `name` in a flat name -> value mapping.

        Sugar lets an int and a bool share a name (separate name spaces). Flat
        value mappings (decoded answers, evaluator input, `Result.values`) then
        store the bool under ``"bool " + name``; a space never occurs in a symbol.
        """
        return "bool " + name if name in self.int_vars else name

    def printed_int_vars(self) -> list[IntVar]:
        """Integer variables Sugar prints: all but names starting with ``_``, in definition order."""
        return [v for v in self.int_vars.values() if not v.name.startswith("_")]

    def printed_bool_vars(self) -> list[BoolVar]:
        """Boolean variables Sugar prints: all but names starting with ``_``, in definition order."""
        return [v for v in self.bool_vars.values() if not v.name.startswith("_")]
