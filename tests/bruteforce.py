"""Test oracle: exhaustive search over every assignment of a small checked `Model`.

Independent of both the compiler and `csp2sat.evaluator`: each constraint is
compiled here into a Python closure (the evaluator interprets trees with an
explicit stack instead), and the global constraints are written from their
definitions a second time (cumulative as a sweep over every time point of its
horizon, the horizon's bounds by interval arithmetic of their own, lexicographic
order as tuple comparison, cardinalities with `Counter`). Only for small
problems: the number of assignments is the product of the domain sizes.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from csp2sat.syntax import Model, Node

Fn = Callable[[dict, tuple], Any]  # (assignment, current predicate arguments) -> value

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "le": operator.le,
    "lt": operator.lt, "ge": operator.ge, "gt": operator.gt,
}


@dataclass
class BruteResult:
    """What exhaustive search found: Sugar's status, the optimum, and the distinct printed answers."""

    status: str  # "SATISFIABLE" | "UNSATISFIABLE" | "OPTIMUM FOUND"
    optimum: int | None
    answers: set[tuple]  # projections on the printed variables (optimal ones under an objective)
    printed: tuple[str, ...]  # the keys of those projections, in output order

    @property
    def count(self) -> int:
        """The number of distinct answers."""
        return len(self.answers)

    def as_dicts(self) -> list[dict]:
        """The answers as name -> value mappings."""
        return [dict(zip(self.printed, a)) for a in sorted(self.answers, key=repr)]


def _holds(v: Any) -> bool:
    # Sugar reads an integer used as a formula as "is positive".
    return v if isinstance(v, bool) else v > 0


class _Compiler:
    """Turns `Node`s of one model into closures."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.bodies: dict[str, Fn] = {}
        self.bounds = {name: (min(v.domain.values()), max(v.domain.values())) for name, v in model.int_vars.items()}
        self.inlined = _with_cumulative(model)
        for name, pred in model.predicates.items():
            if name not in self.inlined:
                index = {p: i for i, p in enumerate(pred.params)}
                self.bodies[name] = self.compile(pred.body, index)

    def compile(self, node: Node, params: dict[str, int]) -> Fn:  # noqa: C901 - one case per operator
        """A closure computing `node`; `params` gives the position of each predicate parameter."""
        op = node.op
        if op == "pcall" and node.value in self.inlined:
            # Cumulative's horizon depends on the argument terms: compile this call's own body.
            pred = self.model.predicates[node.value]
            return self.compile(_substitute(pred.body, dict(zip(pred.params, node.args))), params)
        subs = [self.compile(a, params) for a in node.args]
        if op == "const":
            c = node.value
            return lambda a, p: c
        if op == "true":
            return lambda a, p: True
        if op == "false":
            return lambda a, p: False
        if op == "nil":
            return lambda a, p: None
        if op == "ivar":
            name = node.value
            return lambda a, p: a[name]
        if op == "bvar":
            key = self.model.bool_key(node.value)
            return lambda a, p: a[key]
        if op == "param":
            i = params[node.value]
            return lambda a, p: p[i]
        if op == "list":
            return lambda a, p: [f(a, p) for f in subs]
        if op == "pcall":
            # Looked up at call time: a body may call a predicate compiled after it.
            name = node.value
            return lambda a, p: self.bodies[name](a, tuple(f(a, p) for f in subs))
        if op == "rcall":
            rel = self.model.relations[node.value]
            table = {tuple(t[: rel.arity]) for t in rel.tuples}
            if rel.supports:
                return lambda a, p: tuple(f(a, p) for f in subs) in table
            return lambda a, p: tuple(f(a, p) for f in subs) not in table
        if op in _CMP:
            cmp = _CMP[op]
            x, y = subs
            return lambda a, p: cmp(x(a, p), y(a, p))
        simple = _SIMPLE.get(op)
        if simple is not None:
            return lambda a, p: simple([f(a, p) for f in subs])
        if op == "cumulative":
            if any(n.op == "param" for n in node.walk()):
                raise ValueError("bruteforce: cumulative with parameters must be inlined")
            horizon = _horizon(node.args[0], self.bounds)
            tasks, limit = subs
            return lambda a, p: _cumulative(tasks(a, p), limit(a, p), horizon)
        special = _SPECIAL.get(op)
        if special is not None:
            cmp = _CMP.get(node.value) if isinstance(node.value, str) else None
            return lambda a, p: special([f(a, p) for f in subs], cmp)
        raise ValueError(f"bruteforce: no meaning for operator {op!r}")


def _sub(v: list) -> int:
    if len(v) == 1:
        return -v[0]
    return v[0] - sum(v[1:]) if v else 0


def _xor(v: list) -> bool:
    return sum(1 for x in v if _holds(x)) % 2 == 1


_SIMPLE: dict[str, Callable[[list], Any]] = {
    "not": lambda v: not _holds(v[0]),
    "and": lambda v: all(map(_holds, v)),
    "or": lambda v: any(map(_holds, v)),
    "imp": lambda v: _holds(v[1]) or not _holds(v[0]),
    "xor": _xor,
    "iff": lambda v: len({_holds(x) for x in v}) < 2,
    "add": lambda v: sum(v),
    "sub": _sub,
    "neg": _sub,
    "mul": lambda v: v[0] * v[1],
    "div": lambda v: (v[0] - v[0] % v[1]) // v[1],
    "mod": lambda v: v[0] - v[1] * (v[0] // v[1]),
    "abs": lambda v: -v[0] if v[0] < 0 else v[0],
    "min": lambda v: v[0] if v[0] <= v[1] else v[1],
    "max": lambda v: v[0] if v[0] >= v[1] else v[1],
    "if": lambda v: v[1] if _holds(v[0]) else v[2],
    "alldifferent": lambda v: all(x != y for x, y in itertools.combinations(v, 2)),
    "lex_less": lambda v: tuple(v[0]) < tuple(v[1]),
    "lex_lesseq": lambda v: tuple(v[0]) <= tuple(v[1]),
    "nvalue": lambda v: v[0] == len(Counter(v[1])),
}


def _cumulative(tasks: list, limit: int, horizon: range) -> bool:
    spans = []
    for o, d, e, h in tasks:
        if o is not None and d is not None and e is not None and o + d != e:
            return False
        start = e - d if o is None else o
        stop = o + d if e is None else e
        spans.append((start, stop, h))
    # Sugar's definition, literally: every time point of the horizon.
    return all(sum(h for s, e, h in spans if s <= t < e) <= limit for t in horizon)


def _horizon(tasks: Node, bounds: dict) -> range:
    """From the least lower bound of a start to the greatest upper bound of an end, minus 1."""
    if not tasks.args:
        return range(0)
    starts, stops = [], []
    for task in tasks.args:
        o, d, e, _h = task.args
        starts.append(Node("sub", (e, d)) if o.op == "nil" else o)
        stops.append(Node("add", (o, d)) if e.op == "nil" else e)
    return range(min(_bounds(s, bounds)[0] for s in starts), max(_bounds(e, bounds)[1] for e in stops))


def _linear(node: Node) -> tuple[Counter, int]:
    """(coefficients of the variables and non-linear sub-terms, constant) of a term."""
    op = node.op
    if op == "const":
        return Counter(), node.value
    if op in ("add", "sub", "neg"):
        parts = [_linear(a) for a in node.args]
        if op != "add":
            first = parts[0] if len(parts) > 1 else (Counter(), 0)
            rest = parts[1:] if len(parts) > 1 else parts
            parts = [first] + [(Counter({k: -c for k, c in cs.items()}), -k) for cs, k in rest]
        total: Counter = Counter()
        for cs, _ in parts:
            for k, c in cs.items():
                total[k] += c
        return Counter({k: c for k, c in total.items() if c}), sum(k for _, k in parts)
    if op == "mul":
        (ca, ka), (cb, kb) = _linear(node.args[0]), _linear(node.args[1])
        if not ca or not cb:
            cs, k, factor = (cb, kb, ka) if not ca else (ca, ka, kb)
            return Counter({v: c * factor for v, c in cs.items() if c * factor}), k * factor
    return Counter({node: 1}), 0


def _bounds(node: Node, bounds: dict) -> tuple[int, int]:
    """Interval arithmetic over the declared domains, linear parts collected (Sugar's linear sums)."""
    coefs, lo = _linear(node)
    hi = lo
    for atom, c in coefs.items():
        pair = (c * x for x in _atom(atom, bounds))
        a, b = sorted(pair)
        lo, hi = lo + a, hi + b
    return lo, hi


def _atom(node: Node, bounds: dict) -> tuple[int, int]:
    op = node.op
    if op == "ivar":
        return bounds[node.value]
    if op == "if":
        (a, b), (c, d) = _bounds(node.args[1], bounds), _bounds(node.args[2], bounds)
        return min(a, c), max(b, d)
    args = [_bounds(a, bounds) for a in node.args]
    if op == "mul":
        products = [x * y for x in args[0] for y in args[1]]
        return min(products), max(products)
    if op == "abs":
        lo, hi = args[0]
        return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if op in ("min", "max"):
        f = min if op == "min" else max
        return f(args[0][0], args[1][0]), f(args[0][1], args[1][1])
    (lo, hi), (d, _) = args
    if op == "div":
        return tuple(sorted((lo // d, hi // d)))  # type: ignore[return-value]
    if lo // d == hi // d:
        return lo % d, hi % d
    return (0, d - 1) if d > 0 else (d + 1, 0)


def _substitute(node: Node, args: dict) -> Node:
    if node.op == "param":
        return args[node.value]
    if not node.args:
        return node
    return Node(node.op, tuple(_substitute(a, args) for a in node.args), node.value)


def _with_cumulative(model: Model) -> set:
    """Predicates whose body has a cumulative, directly or through a call."""
    found: set = set()
    while True:
        more = {
            name for name, p in model.predicates.items()
            if name not in found and any(n.op == "cumulative" or (n.op == "pcall" and n.value in found) for n in p.body.walk())
        }
        if not more:
            return found
        found |= more


def _gcc(terms: list, pairs: list) -> bool:
    seen = Counter(terms)
    return all(seen[value] == count for value, count in pairs)


def _gcc_costs(v: list, _cmp: Any) -> bool:
    terms, pairs, table, cost = v
    if not _gcc(terms, pairs):
        return False
    weight = {(i, j): w for i, j, w in table}
    total = 0
    for i, t in enumerate(terms, start=1):
        for j, (value, _count) in enumerate(pairs, start=1):
            if t == value:
                total += weight.get((i, j), 0)
    return total == cost


def _element(v: list, cmp: Callable) -> bool:
    index, items, rhs = v
    if index < 1 or index > len(items):
        return False
    return cmp(items[index - 1], rhs)


_SPECIAL: dict[str, Callable[[list, Any], bool]] = {
    "weightedsum": lambda v, cmp: cmp(sum(c * t for c, t in v[0]), v[1]),
    "count": lambda v, cmp: cmp(v[1].count(v[0]), v[2]),
    "element": _element,
    # Sugar's definition: every two tasks of non-zero duration are ordered (negative durations too).
    "disjunctive": lambda v, _c: all(
        d1 == 0 or d2 == 0 or o1 + d1 <= o2 or o2 + d2 <= o1 for (o1, d1), (o2, d2) in itertools.combinations(v[0], 2)
    ),
    "global_cardinality": lambda v, _c: _gcc(v[0], v[1]),
    "global_cardinality_with_costs": _gcc_costs,
}


class Checker:
    """The constraints of one model as closures: `holds(assignment)` says whether all are true."""

    def __init__(self, model: Model) -> None:
        compiler = _Compiler(model)
        self.checks = [compiler.compile(c.formula, {}) for c in model.constraints]
        self.keys = list(model.int_vars) + [model.bool_key(b) for b in model.bool_vars]
        self.domains = [list(v.domain.values()) for v in model.int_vars.values()]
        self.domains += [[False, True]] * len(model.bool_vars)

    def holds(self, assignment: dict) -> bool:
        """True when every constraint is true under `assignment` (int names and bool keys -> values)."""
        return all(_holds(check(assignment, ())) for check in self.checks)

    def assignments(self) -> Iterator[dict]:
        """Every assignment of every variable, each as a fresh dict."""
        for combo in itertools.product(*self.domains):
            yield dict(zip(self.keys, combo))


def brute_force(model: Model) -> BruteResult:
    """Enumerate every assignment of `model` and summarise the solutions as Sugar would answer."""
    checker = Checker(model)
    printed = tuple(
        [v.name for v in model.printed_int_vars()] + [model.bool_key(b.name) for b in model.printed_bool_vars()]
    )
    objective = model.objective
    best: int | None = None
    answers: set[tuple] = set()
    for a in checker.assignments():
        if not checker.holds(a):
            continue
        answer = tuple(a[k] for k in printed)
        if objective is None:
            answers.add(answer)
            continue
        score = a[objective.var]
        better = best is None or (score < best if objective.sense == "minimize" else score > best)
        if better:
            best, answers = score, {answer}
        elif score == best:
            answers.add(answer)
    if not answers:
        return BruteResult("UNSATISFIABLE", None, set(), printed)
    if objective is not None:
        return BruteResult("OPTIMUM FOUND", best, answers, printed)
    return BruteResult("SATISFIABLE", None, answers, printed)
