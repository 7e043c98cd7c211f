"""Verification stage: the independent evaluator of a `Model` under a full assignment.

The solver runner calls it on every answer before printing it, and the tests
use it as the oracle of the conformance corpus. It reads the checked `Model`
(syntax tree with resolved names) directly and shares no code with the
normaliser or the encoders, so that a bug there cannot hide itself here.

Semantics are Sugar's: integer arithmetic, ``div``/``mod`` with floor
semantics (remainder has the divisor's sign, so ``(div x -1)`` is ``-x``), an
integer used as a formula is true when it is positive, and the global
constraints as documented in `csp2sat.syntax`. Evaluation is iterative (an
explicit stack), so arbitrarily deep expression trees cannot overflow Python's
stack; a predicate calling itself without end is stopped with a `CspError`
(`Exit.LIMIT`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Callable, Mapping, Union

from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import BoolVar, Constraint, IntVar, Model, Node

Value = Union[int, bool, None, tuple]
Env = Mapping[str, Value]

# How many predicate calls may be active at once; only an unbounded recursion
# (which the checker should already reject) comes anywhere near it.
MAX_CALL_DEPTH = 10_000


@dataclass(frozen=True)
class Violation:
    """One failure of an assignment: a constraint that is false, or a variable without a valid value.

    `subject` is the `Constraint`, or the `IntVar`/`BoolVar` declaration for a
    missing or out-of-domain value; `text` is the constraint's source text or a
    description of the bad value.
    """

    subject: Union[Constraint, IntVar, BoolVar]
    file: str
    line: int
    text: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if isinstance(self.subject, Constraint):
            return f"{where}: constraint {self.text} is violated"
        return f"{where}: {self.text}"


# ---------------------------------------------------------------- value helpers


def _truth(value: Value) -> bool:
    """A formula's value: Booleans as they are, integers true when positive (Sugar's reading)."""
    if type(value) is bool:
        return value
    return value > 0  # type: ignore[operator]


def _floor_div(node: Node, a: int, b: int) -> int:
    if b == 0:
        raise CspError("division by zero", node.line, node.col, exit=Exit.UNSUPPORTED)
    return a // b


def _floor_mod(node: Node, a: int, b: int) -> int:
    if b == 0:
        raise CspError("modulo by zero", node.line, node.col, exit=Exit.UNSUPPORTED)
    return a % b


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "le": operator.le,
    "lt": operator.lt,
    "ge": operator.ge,
    "gt": operator.gt,
}


def _compare(node: Node, op: object, a: int, b: int) -> bool:
    fn = _COMPARE.get(op)  # type: ignore[arg-type]
    if fn is None:
        raise CspError(f"unknown comparison operator {op!r}", node.line, node.col, exit=Exit.INTERNAL)
    return fn(a, b)


# ---------------------------------------------------------------- global constraints


def _cumulative(tasks: tuple, limit: int, horizon: tuple[int, int]) -> bool:
    """Sugar's cumulative: every task has origin + duration = end (when all three are given), and
    at every time point t of `horizon` (first, last) the heights of the tasks with
    start <= t < end add up to at most `limit`.

    A task given as (origin nil end) only has a start and an end. The horizon
    comes from the bounds of the terms, not from their values (see `_horizon`),
    so a time point that no task covers has load 0, which must not exceed
    `limit` either; heights, durations and the limit may be negative.
    """
    spans = []
    for origin, duration, end, height in tasks:
        if origin is None:
            origin = end - duration
        elif end is None:
            end = origin + duration
        elif duration is not None and origin + duration != end:
            return False
        spans.append((origin, end, height))
    first, last = horizon
    if first > last:
        return True
    # The load can only change where a task starts or ends: the time points to
    # check are the first one and every start and end within the horizon.
    points = {first}
    for start, stop, _ in spans:
        points.update(p for p in (start, stop) if first <= p <= last)
    for t in points:
        if sum(h for start, stop, h in spans if start <= t < stop) > limit:
            return False
    return True


def _disjunctive(tasks: tuple) -> bool:
    """Sugar's disjunctive: for every two tasks (origin, duration), one of the durations is 0 or
    one task ends (origin + duration) no later than the other starts.

    Only a duration of exactly 0 exempts a task (Sugar: features/disjunctive_basic.csp
    has one strictly inside another task); a negative duration does not.
    """
    for i, (o1, d1) in enumerate(tasks):
        for o2, d2 in tasks[i + 1 :]:
            if d1 != 0 and d2 != 0 and o1 + d1 > o2 and o2 + d2 > o1:
                return False
    return True


# ---------------------------------------------------------------- bounds of terms (cumulative's horizon)


def _linear_parts(node: Node, bounds_of: Mapping[str, tuple[int, int]]) -> tuple[dict, int]:
    """`node` (a term without parameters) as (coefficient per atom, constant).

    Atoms are variables and non-linear sub-terms (equal sub-terms are one atom,
    so ``(- (abs x) (abs x))`` is 0), as Sugar's linear sums collect them.
    """
    op = node.op
    if op == "const":
        return {}, node.value  # type: ignore[return-value]
    if op in ("add", "sub", "neg"):
        parts = [_linear_parts(a, bounds_of) for a in node.args]
        if op == "neg" and len(parts) == 1 or op == "sub" and len(parts) == 1:
            signs = [-1]
        elif op == "add":
            signs = [1] * len(parts)
        else:
            signs = [1] + [-1] * (len(parts) - 1)
        coefs: dict = {}
        const = 0
        for sign, (cs, k) in zip(signs, parts):
            const += sign * k
            for atom, c in cs.items():
                coefs[atom] = coefs.get(atom, 0) + sign * c
        return {a: c for a, c in coefs.items() if c}, const
    if op == "mul":
        (ca, ka), (cb, kb) = (_linear_parts(a, bounds_of) for a in node.args)
        if not ca or not cb:
            scale, (cs, k) = (ka, (cb, kb)) if not ca else (kb, (ca, ka))
            return ({a: c * scale for a, c in cs.items()} if scale else {}), k * scale
    return {node: 1}, 0


def _sum_bounds(coefs: dict, const: int, bounds_of: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    lo = hi = const
    for atom, c in coefs.items():
        a, b = _atom_bounds(atom, bounds_of)
        lo += c * a if c > 0 else c * b
        hi += c * b if c > 0 else c * a
    return lo, hi


def term_bounds(node: Node, bounds_of: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """Smallest and largest value of a term (without parameters) by interval arithmetic over the
    declared domains `bounds_of` (name -> (lb, ub)): exact for linear terms, and for a
    non-linear one the interval its operator makes of its arguments' intervals (``if``:
    both branches, whatever the condition)."""
    return _sum_bounds(*_linear_parts(node, bounds_of), bounds_of)


def _floor_div_bounds(lo: int, hi: int, d: int) -> tuple[int, int]:
    a, b = lo // d, hi // d
    return (a, b) if a <= b else (b, a)


def _atom_bounds(node: Node, bounds_of: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    op = node.op
    if op == "ivar":
        return bounds_of[node.value]  # type: ignore[index]
    args = [term_bounds(a, bounds_of) for a in node.args] if op != "if" else []
    if op == "mul":
        (a, b), (c, d) = args
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    if op in ("div", "mod"):
        (lo, hi), (d, d2) = args
        if d != d2 or d == 0:
            raise CspError(f"'{op}' needs a non-zero constant divisor", node.line, node.col, exit=Exit.UNSUPPORTED)
        if op == "div":
            return _floor_div_bounds(lo, hi, d)
        if lo // d == hi // d:  # one quotient: the remainder grows with the argument
            return lo % d, hi % d
        return (0, d - 1) if d > 0 else (d + 1, 0)
    if op == "abs":
        ((lo, hi),) = args
        if lo >= 0:
            return lo, hi
        if hi <= 0:
            return -hi, -lo
        return 0, max(-lo, hi)
    if op in ("min", "max"):
        (a, b), (c, d) = args
        return (min(a, c), min(b, d)) if op == "min" else (max(a, c), max(b, d))
    if op == "if":
        (a, b), (c, d) = (term_bounds(x, bounds_of) for x in node.args[1:])
        return min(a, c), max(b, d)
    raise CspError(f"cannot bound the term {op!r}", node.line, node.col, exit=Exit.UNSUPPORTED)


def cumulative_horizon(tasks: Node, bounds_of: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """The time points Sugar checks for the tasks of a cumulative (a list node of
    (origin|nil duration|nil end|nil height) lists, without parameters): from the
    least lower bound of a start to the greatest upper bound of an end, minus 1.

    A start is the origin, or end - duration when the origin is nil; an end is the
    end, or origin + duration when the end is nil. Empty (first > last) without tasks.
    """
    first, last = None, None
    for task in tasks.args:
        origin, duration, end, _ = task.args
        start = Node("sub", (end, duration)) if origin.op == "nil" else origin
        stop = Node("add", (origin, duration)) if end.op == "nil" else end
        lo = term_bounds(start, bounds_of)[0]
        hi = term_bounds(stop, bounds_of)[1] - 1
        first = lo if first is None else min(first, lo)
        last = hi if last is None else max(last, hi)
    if first is None:
        return 0, -1
    return first, last


def _lex_less(a: tuple, b: tuple, strict: bool) -> bool:
    """Lexicographic comparison of two equally long integer vectors."""
    for x, y in zip(a, b):
        if x != y:
            return x < y
    return not strict


def _cardinality(terms: tuple, pairs: tuple) -> bool:
    """For each listed (value, count): exactly `count` terms take `value`; other values are free."""
    return all(sum(1 for t in terms if t == v) == c for v, c in pairs)


def _cardinality_cost(terms: tuple, pairs: tuple, table: tuple, cost: int) -> bool:
    """`_cardinality` plus: `cost` = Σ w over table entries (i j w) where term i takes the j-th listed value."""
    if not _cardinality(terms, pairs):
        return False
    total = 0
    for i, j, w in table:
        if 1 <= i <= len(terms) and 1 <= j <= len(pairs) and terms[i - 1] == pairs[j - 1][0]:
            total += w
    return total == cost


def _element(node: Node, index: int, items: tuple, rhs: int) -> bool:
    return 1 <= index <= len(items) and _compare(node, node.value, items[index - 1], rhs)


def _sub(args: tuple) -> int:
    if not args:
        return 0
    if len(args) == 1:
        return -args[0]
    return args[0] - sum(args[1:])


def _neg(args: tuple) -> int:
    # Sugar reads (neg a b ...) like (- a b ...); one argument is plain negation.
    return -args[0] if len(args) == 1 else _sub(args)


def _xor(args: tuple) -> bool:
    parity = False
    for a in args:
        parity ^= _truth(a)
    return parity


def _iff(args: tuple) -> bool:
    truths = {_truth(a) for a in args}
    return len(truths) <= 1


def _product(args: tuple) -> int:
    result = 1
    for a in args:
        result *= a
    return result


# Each combiner receives the node and the values of its arguments, in order.
_Combiner = Callable[[Node, tuple], Value]

_COMBINERS: dict[str, _Combiner] = {
    "true": lambda n, a: True,
    "false": lambda n, a: False,
    "nil": lambda n, a: None,
    "list": lambda n, a: a,
    "not": lambda n, a: not _truth(a[0]),
    "and": lambda n, a: all(_truth(x) for x in a),
    "or": lambda n, a: any(_truth(x) for x in a),
    "imp": lambda n, a: (not _truth(a[0])) or _truth(a[1]),
    "xor": lambda n, a: _xor(a),
    "iff": lambda n, a: _iff(a),
    "add": lambda n, a: sum(a),
    "sub": lambda n, a: _sub(a),
    "neg": lambda n, a: _neg(a),
    "mul": lambda n, a: _product(a),
    "div": lambda n, a: _floor_div(n, a[0], a[1]),
    "mod": lambda n, a: _floor_mod(n, a[0], a[1]),
    "abs": lambda n, a: abs(a[0]),
    "min": lambda n, a: min(a),
    "max": lambda n, a: max(a),
    "pow": lambda n, a: a[0] ** a[1],
    "if": lambda n, a: a[1] if _truth(a[0]) else a[2],
    "alldifferent": lambda n, a: len(set(a)) == len(a),
    "weightedsum": lambda n, a: _compare(n, n.value, sum(c * t for c, t in a[0]), a[1]),
    "count": lambda n, a: _compare(n, n.value, sum(1 for t in a[1] if t == a[0]), a[2]),
    "element": lambda n, a: _element(n, a[0], a[1], a[2]),
    "disjunctive": lambda n, a: _disjunctive(a[0]),
    "lex_less": lambda n, a: _lex_less(a[0], a[1], True),
    "lex_lesseq": lambda n, a: _lex_less(a[0], a[1], False),
    "nvalue": lambda n, a: a[0] == len(set(a[1])),
    "global_cardinality": lambda n, a: _cardinality(a[0], a[1]),
    "global_cardinality_with_costs": lambda n, a: _cardinality_cost(a[0], a[1], a[2], a[3]),
}
# Comparison nodes: (op T T) compares the two argument values.
_COMBINERS.update(
    {op: (lambda fn: lambda n, a: fn(a[0], a[1]))(fn) for op, fn in _COMPARE.items()}
)


# ---------------------------------------------------------------- the interpreter


class _Evaluator:
    """Evaluates nodes of one model under one assignment, without recursion."""

    def __init__(self, model: Model, values: Mapping[str, Value]) -> None:
        self.model = model
        self.values = values
        # Tuples longer than the arity are cut (Sugar ignores the extra elements).
        self.tables = {
            name: (rel.supports, frozenset(t[: rel.arity] for t in rel.tuples))
            for name, rel in model.relations.items()
        }
        # A predicate's value depends only on its argument values (and on model
        # variables, fixed during one evaluation), and generated puzzle files
        # call a few predicates many thousands of times with few distinct
        # arguments. Types are part of the key because True == 1 in Python.
        self.calls: dict[tuple, Value] = {}
        self.bool_keys = {name: model.bool_key(name) for name in model.bool_vars}
        # Cumulative's horizon depends on the bounds of its terms, so a predicate whose
        # body has one depends on its argument terms, not only on their values: not cached.
        self.uncached = _predicates_with_cumulative(model)
        self.int_bounds = model.declared_bounds()  # cumulative's horizon: the declared domains
        self.horizons: dict[int, tuple[int, int]] = {}
        # Predicate bodies as Python closures (see `_body_function`), None where the interpreter evaluates them.
        self.bodies: dict[str, Callable[[Env], Value] | None] = {}

    def _leaf(self, node: Node, env: Env) -> Value:
        op = node.op
        if op == "const":
            return node.value  # type: ignore[return-value]
        if op == "ivar":
            return self.values[node.value]  # type: ignore[index]
        if op == "bvar":
            key = self.bool_keys.get(node.value)  # type: ignore[arg-type]
            return self.values[key if key is not None else self.model.bool_key(node.value)]  # type: ignore[arg-type]
        if op == "param":
            return env[node.value]  # type: ignore[index]
        raise CspError(
            f"cannot evaluate {op!r} (unchecked syntax tree?)", node.line, node.col, exit=Exit.INTERNAL
        )

    def evaluate_top(self, node: Node, depth: int = 0) -> Value:
        """`evaluate(node)` for a constraint, by direct recursion where that is plain (most of generated files).

        Connectives, comparisons and arithmetic over variables and constants are evaluated
        here, children left to right and ``and``/``or`` stopped at the deciding argument,
        with the interpreter's own leaves and combiners; predicate calls with plain
        arguments use the same call cache and body closures as `_combine`. Anything else
        (and anything nested deeper than `_TOP_DEPTH`) is left to `evaluate`, so both give
        the same value and raise the same errors in the same order.
        """
        op = node.op
        if op in _LEAVES:
            return self._leaf(node, _NO_ENV)
        if depth >= _TOP_DEPTH:
            return self.evaluate(node)
        if op == "and" or op == "or":
            decides = op == "or"
            for arg in node.args:
                if _truth(self.evaluate_top(arg, depth + 1)) is decides:
                    return decides
            return not decides
        if op == "pcall":
            if all(arg.op in _LEAVES for arg in node.args):
                results: list[Value] = []
                stack: list[tuple[Node, Env, bool]] = []
                self._combine(node, tuple(self._leaf(arg, _NO_ENV) for arg in node.args), stack, results, [], {})
                if not stack:  # answered from the cache or by the body's closure
                    return results[-1]
            return self.evaluate(node)
        combiner = _TOP_COMBINERS.get(op)
        if combiner is None:
            return self.evaluate(node)
        return combiner(node, tuple([self.evaluate_top(arg, depth + 1) for arg in node.args]))

    def evaluate(self, root: Node, env: Env | None = None) -> Value:
        """The value of `root`: an int for a term, a bool for a formula, a tuple for a list."""
        results: list[Value] = []
        # Frames: (node, env, expanded). An expanded frame finds its arguments'
        # values on top of `results`; a predicate call's frame is replaced by
        # its body in the callee's environment, whose value becomes the call's.
        stack: list[tuple[Node, Env, bool]] = [(root, env or {}, False)]
        depth_marks: list[tuple] = []  # the cache key of every predicate call under way
        while stack:
            node, frame_env, expanded = stack.pop()
            if node.op == "_ret":
                key = depth_marks.pop()
                if key is not None:
                    self.calls[key] = results[-1]
                continue
            if expanded is not True and expanded is not False:
                # An and/or part-way (`expanded` = how many arguments are done): stop at the first
                # argument that decides it, so the rest (often large predicate bodies) is skipped.
                done = expanded
                if done and _truth(results[-1]) == (node.op == "or"):
                    results[-1] = node.op == "or"  # that argument decides: (or ... true ...), (and ... false ...)
                    continue
                if done:
                    results.pop()
                if done == len(node.args):
                    results.append(node.op == "and")
                    continue
                stack.append((node, frame_env, done + 1))
                stack.append((node.args[done], frame_env, False))
                continue
            if not expanded:
                if node.op in _JUNCTIONS and not all(arg.op in _LEAVES for arg in node.args):
                    stack.append((node, frame_env, 0))
                    continue
                if node.args and all(arg.op in _LEAVES for arg in node.args):
                    # Most nodes of generated files apply an operator to variables and
                    # constants: evaluate those leaves in place, without stack frames.
                    leaf = self._leaf
                    self._combine(node, tuple(leaf(arg, frame_env) for arg in node.args), stack, results, depth_marks, frame_env)
                elif node.args:
                    stack.append((node, frame_env, True))
                    for arg in reversed(node.args):
                        stack.append((arg, frame_env, False))
                elif node.op in _COMBINERS or node.op in ("pcall", "rcall"):
                    self._combine(node, (), stack, results, depth_marks, frame_env)
                else:
                    results.append(self._leaf(node, frame_env))
                continue
            count = len(node.args)
            args = tuple(results[len(results) - count :])
            del results[len(results) - count :]
            self._combine(node, args, stack, results, depth_marks, frame_env)
        return results[-1]

    def _combine(
        self,
        node: Node,
        args: tuple,
        stack: list[tuple[Node, Env, bool]],
        results: list[Value],
        depth_marks: list[tuple],
        env: Env,
    ) -> None:
        op = node.op
        if op == "pcall":
            key = (node.value, args, tuple(map(type, args)))
            if node.value in self.uncached:
                key = None  # type: ignore[assignment]
            elif key in self.calls:
                results.append(self.calls[key])
                return
            pred = self.model.predicates.get(node.value)  # type: ignore[arg-type]
            if pred is None:
                raise CspError(f"undefined predicate {node.value}", node.line, node.col, exit=Exit.INTERNAL)
            if len(depth_marks) >= MAX_CALL_DEPTH:
                raise CspError(
                    f"predicate calls nested more than {MAX_CALL_DEPTH} deep (recursive predicate {pred.name}?)",
                    node.line,
                    node.col,
                    exit=Exit.LIMIT,
                )
            body = self.bodies[pred.name] if pred.name in self.bodies else self._body_function(pred.name)
            if body is not None:  # a body without calls: run as one closure, no frames
                value = body(dict(zip(pred.params, args)))
                if key is not None:
                    self.calls[key] = value
                results.append(value)
                return
            depth_marks.append(key)
            # The marker frame runs after the body: it records the value and closes this call's depth.
            stack.append((_RETURN, {}, False))
            callee_env: dict = dict(zip(pred.params, args))
            callee_env[_CALL] = (pred, node, env)  # to find the argument terms (cumulative's horizon)
            stack.append((pred.body, callee_env, False))
            return
        if op == "rcall":
            supports, table = self.tables[node.value]  # type: ignore[index]
            results.append((tuple(args) in table) == supports)
            return
        if op == "cumulative":
            results.append(_cumulative(args[0], args[1], self._horizon(node, env)))
            return
        combiner = _COMBINERS.get(op)
        if combiner is None:
            raise CspError(f"unknown operator {op!r}", node.line, node.col, exit=Exit.INTERNAL)
        results.append(combiner(node, args))

    def _body_function(self, name: str) -> Callable[[Env], Value] | None:
        """Predicate `name`'s body compiled to nested closures, or None when it calls a predicate,
        has a cumulative, a relation or another construct the closures leave to the interpreter.

        Generated puzzle files call a few small predicates thousands of times with
        distinct arguments; a closure per node costs a third of an interpreter frame.
        The closures combine values with the interpreter's own combiners, and stop an
        ``and``/``or`` at the first argument that decides it as the interpreter does,
        so both give the same value and raise the same errors.
        """
        body = _closure(self.model.predicates[name].body, self.values, self.bool_keys, self.model, 0)
        self.bodies[name] = body
        return body

    def _horizon(self, node: Node, env: Env) -> tuple[int, int]:
        """The time points of a cumulative, its parameters read as the terms of the calls under way."""
        if _CALL not in env:
            horizon = self.horizons.get(id(node))
            if horizon is None:
                horizon = self.horizons[id(node)] = cumulative_horizon(node.args[0], self.int_bounds)
            return horizon
        return cumulative_horizon(self._resolved(node.args[0], env), self.int_bounds)

    def _resolved(self, node: Node, env: Env) -> Node:
        """`node` with each parameter replaced by the argument term of its call (itself resolved)."""
        if node.op == "param":
            pred, call, caller_env = env[_CALL]  # type: ignore[index, misc]
            return self._resolved(call.args[pred.params.index(node.value)], caller_env)
        if not node.args:
            return node
        return Node(node.op, tuple(self._resolved(a, env) for a in node.args), node.value, node.line, node.col)


# Deeper predicate bodies are left to the interpreter: a closure per level costs Python stack.
_CLOSURE_DEPTH = 60


def _closure(node: Node, values: Mapping[str, Value], bool_keys: Mapping[str, str], model: Model,
             depth: int) -> Callable[[Env], Value] | None:
    """A function of a parameter environment computing `node` as `_Evaluator.evaluate` does, or None."""
    op = node.op
    if op == "const":
        constant = node.value
        return lambda env: constant
    if op == "param":
        param = node.value
        return lambda env: env[param]
    if op == "ivar":
        name = node.value
        return lambda env: values[name]
    if op == "bvar":
        key = bool_keys.get(node.value)  # type: ignore[arg-type]
        if key is None:
            key = model.bool_key(node.value)  # type: ignore[arg-type]
        return lambda env: values[key]
    if depth >= _CLOSURE_DEPTH or op in ("pcall", "rcall", "cumulative") or op not in _COMBINERS:
        return None
    parts = []
    for arg in node.args:
        part = _closure(arg, values, bool_keys, model, depth + 1)
        if part is None:
            return None
        parts.append(part)
    if op == "and" or op == "or":
        return _junction_closure(op == "or", node.args, parts)
    if op == "not":
        inner = parts[0]
        if node.args[0].op == "param":
            param = node.args[0].value
            return lambda env: not _truth(env[param])
        return lambda env: not _truth(inner(env))
    if op in _COMPARE and len(parts) == 2:
        compare, (left, right) = _COMPARE[op], parts
        a, b = node.args
        if a.op == "param" and b.op == "const":  # (= E 0): the commonest comparison of generated bodies
            param, constant = a.value, b.value
            return lambda env: compare(env[param], constant)
        return lambda env: compare(left(env), right(env))
    combiner = _COMBINERS[op]
    return lambda env: combiner(node, tuple(part(env) for part in parts))


def _junction_closure(is_or: bool, args: tuple[Node, ...], parts: list[Callable[[Env], Value]]) -> Callable[[Env], Value]:
    """``(or ...)`` or ``(and ...)`` of `parts`, stopping at the first part that decides it (as `any`/`all` do).

    The clauses of generated predicate bodies, ``(or (! A) Z N)``, are parameters and their
    negations: those are read from the environment in one loop, without a call per part.
    """
    literals = []
    for arg in args:
        if arg.op == "param":
            literals.append((arg.value, False))
        elif arg.op == "not" and arg.args[0].op == "param":
            literals.append((arg.args[0].value, True))
        else:
            break
    else:
        pairs = tuple(literals)

        def literal_junction(env: Env) -> bool:
            for param, negated in pairs:
                value = env[param]
                if (value if value.__class__ is bool else value > 0) is not negated:  # this literal is true
                    if is_or:
                        return True
                elif not is_or:
                    return False
            return not is_or

        return literal_junction
    fixed = tuple(parts)

    def junction(env: Env) -> bool:
        for part in fixed:
            value = part(env)
            if (value if value.__class__ is bool else value > 0) is is_or:  # this part decides
                return is_or
        return not is_or

    return junction


def _predicates_with_cumulative(model: Model) -> set[str]:
    """The predicates whose body has a cumulative, or calls a predicate that has one."""
    calls = {name: {n.value for n in p.body.walk() if n.op == "pcall"} for name, p in model.predicates.items()}
    found = {name for name, p in model.predicates.items() if any(n.op == "cumulative" for n in p.body.walk())}
    grew = True
    while grew:
        more = {name for name, callees in calls.items() if name not in found and callees & found}
        found |= more
        grew = bool(more)
    return found


_CALL = object()  # the key of a callee environment that holds (predicate, call node, caller environment)
_NO_ENV: Env = {}
# `_Evaluator.evaluate_top` recurses this deep at most (constraints are nested at most MAX_NESTING deep).
_TOP_DEPTH = 100
# The operators `evaluate_top` combines itself: their arguments are all evaluated, then combined.
_TOP_COMBINERS = {op: _COMBINERS[op] for op in (
    "true", "false", "not", "imp", "xor", "iff", "eq", "ne", "le", "lt", "ge", "gt", "add", "sub", "neg", "mul", "div", "mod",
    "abs", "min", "max", "if")}
_RETURN = Node("_ret")
_LEAVES = frozenset({"const", "ivar", "bvar", "param"})
_JUNCTIONS = frozenset({"and", "or"})


# ---------------------------------------------------------------- public API


def _value_problem(
    decl: Union[IntVar, BoolVar], key: str, values: Mapping[str, Value], is_int: bool
) -> tuple[str, bool] | None:
    """Why `values[key]` is no acceptable value for `decl` and whether that stops evaluation, or None."""
    if key not in values:
        if decl.name.startswith("_"):  # a hidden variable: not in printed answers, nor in a Result's `values`
            return (f"variable {decl.name} has no value (a hidden '_' variable: answers do not print it; a "
                    "Result's `all_values` holds it)"), True
        return f"variable {decl.name} has no value", True
    value = values[key]
    if is_int:
        if type(value) is not int:
            return f"variable {decl.name} has the non-integer value {value!r}", True
        if value not in decl.domain:  # type: ignore[union-attr]
            return f"value {value} of {decl.name} is outside its domain", False
    elif type(value) is not bool:
        return f"variable {decl.name} has the non-Boolean value {value!r}", True
    return None


def violations(model: Model, values: Mapping[str, Value]) -> list[Violation]:
    """Every constraint of `model` that `values` makes false, and every missing or out-of-domain value.

    `values` maps each int variable name and each bool variable's
    `model.bool_key(name)` (its name unless an int shares it) to its value. When values
    are missing or of the wrong type the constraints are not evaluated (they
    would be meaningless); only the variable problems are reported.
    """
    found: list[Violation] = []
    can_evaluate = True
    for decls, is_int in ((model.int_vars.values(), True), (model.bool_vars.values(), False)):
        for decl in decls:
            key = decl.name if is_int else model.bool_key(decl.name)
            problem = _value_problem(decl, key, values, is_int)
            if problem is not None:
                found.append(Violation(decl, model.file, decl.line, problem[0]))
                can_evaluate = can_evaluate and not problem[1]
    if not can_evaluate:
        return found
    evaluator = _Evaluator(model, values)
    for constraint in model.constraints:
        try:
            holds = _truth(evaluator.evaluate_top(constraint.formula))
        except CspError as err:
            raise err.with_file(model.file)
        if not holds:
            text = constraint.text or f"({constraint.formula.op} ...)"
            found.append(Violation(constraint, model.file, constraint.line, text))
    return found


def satisfies(model: Model, values: Mapping[str, Value]) -> bool:
    """True when `values` gives every variable a value in its domain and makes every constraint true."""
    return not violations(model, values)


def evaluate(model: Model, node: Node, values: Mapping[str, Value]) -> Value:
    """The value of one expression of `model` under `values` (an int for a term, a bool for a formula)."""
    return _Evaluator(model, values).evaluate(node)
