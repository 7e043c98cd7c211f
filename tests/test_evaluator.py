"""Tests of the verification stage (`csp2sat.evaluator`).

Hand-built models check each operator and global constraint on satisfying
and violating assignments; the conformance corpus checks that every unique
expected solution satisfies its file and that changing one printed value of
it to any other value of its domain is caught (the solution is unique, so
every such change must break some constraint).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import csp2sat
from corpus import cases, complete, solution_values
from csp2sat.diagnostics import CspError, Exit
from csp2sat.evaluator import Violation, evaluate, satisfies, violations
from csp2sat.syntax import BoolVar, Constraint, Domain, IntVar, Model, Node, Predicate, Relation


# ---------------------------------------------------------------- building models by hand


def term(x: object) -> Node:
    """A node from a shorthand: int -> const, 'name' -> ivar, '?name' -> bvar, '$name' -> param, Node as is."""
    if isinstance(x, Node):
        return x
    if isinstance(x, bool):
        return Node("true" if x else "false")
    if isinstance(x, int):
        return Node("const", value=x)
    if isinstance(x, str):
        if x.startswith("?"):
            return Node("bvar", value=x[1:])
        if x.startswith("$"):
            return Node("param", value=x[1:])
        if x == "nil":
            return Node("nil")
        return Node("ivar", value=x)
    if isinstance(x, (list, tuple)):
        return Node("list", tuple(term(i) for i in x))
    raise TypeError(x)


def N(op: str, *args: object, value: object = None) -> Node:  # noqa: N802 - reads like the syntax
    return Node(op, tuple(term(a) for a in args), value)


def model(ints: dict[str, tuple[int, int]], bools: tuple[str, ...] = (), *formulas: Node, **extra) -> Model:
    m = Model(file="t.csp")
    for i, (name, (lo, hi)) in enumerate(ints.items()):
        m.int_vars[name] = IntVar(name, Domain.range(lo, hi), line=i + 1)
    for name in bools:
        m.bool_vars[name] = BoolVar(name, line=50)
    for i, f in enumerate(formulas):
        m.constraints.append(Constraint(f, line=100 + i, text=f"(c{i})"))
    m.relations.update(extra.get("relations", {}))
    m.predicates.update(extra.get("predicates", {}))
    return m


def val(node: Node, **values: object) -> object:
    """The value of one expression under `values` (variables need not be declared for `evaluate`)."""
    return evaluate(Model(), node, values)


# ---------------------------------------------------------------- operators


@pytest.mark.parametrize(
    "node, expected",
    [
        (N("add"), 0),
        (N("add", 1, 2, 3), 6),
        (N("sub", 9, 2, 3), 4),
        (N("sub", 5), -5),
        (N("neg", 4), -4),
        (N("neg", 7, 5), 2),
        (N("mul", -3, 4), -12),
        (N("div", -7, 2), -4),
        (N("mod", -7, 2), 1),
        (N("div", 7, 2), 3),
        (N("mod", 7, 3), 1),
        (N("div", 5, -1), -5),
        (N("abs", -3), 3),
        (N("min", 3, -1), -1),
        (N("max", 3, -1), 3),
        (N("if", True, 1, 2), 1),
        (N("if", N("lt", 3, 2), 1, 2), 2),
        (N("not", True), False),
        (N("and"), True),
        (N("or"), False),
        (N("and", True, False), False),
        (N("or", False, True), True),
        (N("imp", True, False), False),
        (N("imp", False, False), True),
        (N("xor", True, True), False),
        (N("xor", True, False), True),
        (N("iff", False, False), True),
        (N("iff", True, False), False),
        (N("or", 0, 1), True),  # an integer as a formula: true when positive
        (N("and", 0), False),
        (N("eq", 2, 2), True),
        (N("ne", 2, 2), False),
        (N("le", 2, 2), True),
        (N("lt", 2, 2), False),
        (N("ge", 1, 2), False),
        (N("gt", 3, 2), True),
    ],
)
def test_operator(node: Node, expected: object) -> None:
    assert val(node) == expected


def test_variables_and_bools() -> None:
    assert val(N("add", "x", N("if", "?p", 10, 0)), x=2, p=True) == 12
    assert val(N("if", "?p", 10, 0), p=False) == 0


def test_division_by_zero_is_an_error_not_a_crash() -> None:
    with pytest.raises(CspError) as err:
        val(N("div", 3, 0))
    assert err.value.exit == Exit.UNSUPPORTED


def test_deep_tree_does_not_overflow() -> None:
    node = term("x")
    for _ in range(50_000):
        node = N("add", node, 1)
    assert val(node, x=1) == 50_001
    formula = N("eq", "x", 1)
    for _ in range(50_000):
        formula = N("not", N("not", formula))
    assert val(formula, x=1) is True


# ---------------------------------------------------------------- globals


@pytest.mark.parametrize(
    "node, expected",
    [
        (N("alldifferent", 1, 2, 3), True),
        (N("alldifferent", 1, 2, 1), False),
        (N("alldifferent", 4), True),
        (N("alldifferent"), True),
        (N("weightedsum", [[2, 3], [-1, 4]], 2, value="eq"), True),
        (N("weightedsum", [[2, 3], [-1, 4]], 2, value="lt"), False),
        (N("weightedsum", [[2, 3], [-1, 4]], 3, value="lt"), True),
        (N("count", 1, [1, 2, 1], 2, value="eq"), True),
        (N("count", 1, [1, 2, 1], 2, value="gt"), False),
        (N("count", 1, [1, 2, 1], 1, value="ge"), True),
        (N("element", 2, [7, 8, 9], 8, value="eq"), True),
        (N("element", 2, [7, 8, 9], 9, value="eq"), False),
        (N("element", 0, [7, 8, 9], 7, value="eq"), False),
        (N("element", 4, [7, 8, 9], 9, value="eq"), False),
        (N("element", 2, [7, 4, 9], 5, value="lt"), True),
        (N("element", 1, [7, 4, 9], 5, value="lt"), False),
        (N("lex_less", [1, 2], [1, 3]), True),
        (N("lex_less", [1, 2], [1, 2]), False),
        (N("lex_lesseq", [1, 2], [1, 2]), True),
        (N("lex_lesseq", [2, 0], [1, 9]), False),
        (N("nvalue", 2, [1, 3, 1]), True),
        (N("nvalue", 3, [1, 3, 1]), False),
        (N("global_cardinality", [1, 1, 2], [[1, 2], [2, 1]]), True),
        (N("global_cardinality", [1, 1, 2], [[1, 1]]), False),
        (N("global_cardinality", [3, 3], [[1, 0]]), True),
        # term 1 takes listed value 2 (w=3), term 2 takes listed value 1 (w=1)
        (N("global_cardinality_with_costs", [2, 1], [[1, 1], [2, 1]], [[1, 1, 2], [1, 2, 3], [2, 1, 1], [2, 2, 4]], 4), True),
        (N("global_cardinality_with_costs", [2, 1], [[1, 1], [2, 1]], [[1, 1, 2], [1, 2, 3], [2, 1, 1], [2, 2, 4]], 5), False),
        (N("global_cardinality_with_costs", [2, 2], [[1, 1], [2, 1]], [[1, 2, 3]], 3), False),
        (N("disjunctive", [[0, 2], [2, 3]]), True),
        (N("disjunctive", [[0, 2], [1, 3]]), False),
        (N("disjunctive", [[1, 0], [1, 3]]), True),  # zero duration at the other's start
        (N("disjunctive", [[2, 0], [1, 3]]), True),  # zero duration strictly inside: occupies no time
        (N("disjunctive", [[0, 2], [4, 1], [1, 1]]), False),
        (N("cumulative", [[0, 2, "nil", 1], [0, 2, "nil", 1], [2, 2, "nil", 2]], 2), True),
        (N("cumulative", [[0, 2, "nil", 1], [1, 2, "nil", 2]], 2), False),
        (N("cumulative", [[0, 2, 2, 1], [1, 2, 3, 1]], 2), True),
        (N("cumulative", [[0, 2, 3, 1]], 2), False),  # origin + duration != end
        (N("cumulative", [["nil", 3, 3, 2], [2, "nil", 4, 2]], 3), False),
        (N("cumulative", [["nil", 3, 3, 2], [3, "nil", 5, 2]], 3), True),
        (N("cumulative", [[1, 0, "nil", 9]], 2), True),  # zero duration uses nothing
    ],
)
def test_global(node: Node, expected: bool) -> None:
    assert val(node) is expected


# ---------------------------------------------------------------- predicates and relations


def test_predicates_bind_parameters_and_call_each_other() -> None:
    lt2 = Predicate("lt2", ("a", "b"), N("lt", "$a", "$b"))
    chain = Predicate("chain", ("a", "b", "c"), N("and", N("pcall", "$a", "$b", value="lt2"), N("pcall", "$b", "$c", value="lt2")))
    onlyfirst = Predicate("onlyfirst", ("p", "q"), N("and", "$p", N("not", "$q")))
    m = model(
        {"x": (1, 3), "y": (1, 3), "z": (1, 3)},
        ("p", "q"),
        N("pcall", "x", N("add", "y", 0), "z", value="chain"),
        N("pcall", "?p", "?q", value="onlyfirst"),
        predicates={"lt2": lt2, "chain": chain, "onlyfirst": onlyfirst},
    )
    assert satisfies(m, {"x": 1, "y": 2, "z": 3, "p": True, "q": False})
    bad = violations(m, {"x": 1, "y": 3, "z": 3, "p": True, "q": True})
    assert [v.line for v in bad] == [100, 101]


@pytest.mark.parametrize("node, expected", test_operator.pytestmark[0].args[1])
def test_compiled_predicate_bodies_agree_with_the_interpreter(node: Node, expected: object) -> None:
    # Bodies without calls run as closures (`_closure`); every operator must give the interpreter's value.
    from csp2sat import evaluator

    body = N("eq", N("if", N("and", "?p", node), 1, 0) if isinstance(expected, bool) else N("add", node, "$a"), "$r")
    pred = Predicate("same", ("a", "r"), body)
    assert evaluator._closure(body, {}, {}, Model(), 0) is not None
    result = int(expected) if isinstance(expected, bool) else expected + 2
    m = model({"x": (-10, 10)}, ("p",), N("pcall", 2, N("add", "x", result - 3), value="same"),
              predicates={"same": pred})
    assert satisfies(m, {"x": 3, "p": True})
    assert not satisfies(m, {"x": 4, "p": True})


def test_compiled_bodies_stop_and_or_where_the_interpreter_does() -> None:
    # (or (= $a 1) (= (div 1 $a) 0)): the division is never reached when a = 1; a = 0 is an error, as before.
    body = N("or", N("eq", "$a", 1), N("eq", N("div", 1, "$a"), 0))
    m = model({"x": (0, 1)}, (), N("pcall", "x", value="safe"), predicates={"safe": Predicate("safe", ("a",), body)})
    assert satisfies(m, {"x": 1})
    with pytest.raises(CspError) as err:
        satisfies(m, {"x": 0})
    assert err.value.exit == Exit.UNSUPPORTED


def test_recursive_predicate_is_stopped_with_limit() -> None:
    loop = Predicate("loop", ("a",), N("pcall", "$a", value="loop"))
    m = model({"x": (1, 1)}, (), N("pcall", "x", value="loop"), predicates={"loop": loop})
    with pytest.raises(CspError) as err:
        satisfies(m, {"x": 1})
    assert err.value.exit == Exit.LIMIT
    assert err.value.file == "t.csp"


def test_relations_supports_and_conflicts() -> None:
    rels = {
        "s": Relation("s", 2, True, ((1, 2), (2, 3, 99))),
        "c": Relation("c", 2, False, ((1, 2),)),
    }
    m = model({"x": (1, 3), "y": (1, 3)}, (), N("rcall", "x", "y", value="s"), relations=rels)
    assert satisfies(m, {"x": 1, "y": 2})
    assert satisfies(m, {"x": 2, "y": 3})  # extra tuple elements are ignored
    assert not satisfies(m, {"x": 2, "y": 2})
    m = model({"x": (1, 3), "y": (1, 3)}, (), N("rcall", "x", "y", value="c"), relations=rels)
    assert not satisfies(m, {"x": 1, "y": 2})
    assert satisfies(m, {"x": 2, "y": 2})


# ---------------------------------------------------------------- values and reports


def test_domain_missing_and_wrong_type_values_are_reported() -> None:
    m = model({"x": (1, 3)}, ("p",), N("gt", "x", 1))
    m.int_vars["h"] = IntVar("h", Domain.of([(1, 1), (3, 3)]), line=7)
    out = violations(m, {"x": 2, "p": True, "h": 2})
    assert len(out) == 1 and out[0].subject is m.int_vars["h"]
    assert str(out[0]) == "t.csp:7: value 2 of h is outside its domain"
    out = violations(m, {"x": 2, "h": 1})
    assert [str(v) for v in out] == ["t.csp:50: variable p has no value"]
    assert not satisfies(m, {"x": 2, "h": 1, "p": 1})
    assert not satisfies(m, {"x": True, "h": 1, "p": True})


def test_violation_prints_file_line_and_text() -> None:
    m = model({"x": (1, 3)}, (), N("gt", "x", 1))
    (v,) = violations(m, {"x": 1})
    assert isinstance(v, Violation) and v.subject is m.constraints[0]
    assert str(v) == "t.csp:100: constraint (c0) is violated"


# ---------------------------------------------------------------- the conformance corpus


def _unique_cases() -> list:
    return [
        pytest.param(path, rec, id=f"{folder}/{path.name}")
        for folder in ("features", "quirks")
        for path, rec in cases(folder, lambda r: bool(r.get("unique")) and r.get("solution") is not None)
    ]


def _parse(path: Path) -> Model:
    try:
        return csp2sat.parse(str(path))
    except CspError as err:  # quirks we chose to reject are not evaluator cases
        pytest.skip(f"rejected by the front end: {err}")


@pytest.mark.parametrize("path, rec", _unique_cases())
def test_expected_solution_satisfies_and_changes_are_caught(path: Path, rec: dict) -> None:
    m = _parse(path)
    shown = solution_values(m, rec["solution"])
    values = complete(m, shown)
    assert values is not None, "no completion of the expected solution satisfies the file"
    assert violations(m, values) == []
    if len(values) != len(shown) or m.objective is not None:
        # Hidden variables could be re-chosen after a change, and under an
        # objective only the optimum is unique: nothing to conclude then.
        return
    # The solution is unique, so changing one variable to any other value of
    # its domain must break some constraint.
    for name, value in values.items():
        if type(value) is bool:
            others: list = [not value]
        else:
            others = [v for v in _sample(m.int_vars[name].domain) if v != value]
        for other in others:
            changed = dict(values, **{name: other})
            assert violations(m, changed), f"{name}={other} should violate {path.name}"


def _sample(domain: Domain, limit: int = 200) -> list[int]:
    """Up to about `limit` values of a domain, including its bounds (wide domains are sampled)."""
    if domain.size <= limit:
        return list(domain.values())
    picked = {domain.lb, domain.ub}
    for lo, hi in domain.intervals:
        picked.update(range(lo, min(hi, lo + limit // (2 * len(domain.intervals))) + 1))
    return sorted(picked)


@pytest.mark.parametrize("node, expected", test_operator.pytestmark[0].args[1])
def test_constraints_evaluated_directly_agree_with_the_interpreter(node: Node, expected: object) -> None:
    # Constraints go through `_Evaluator.evaluate_top` (direct recursion) and fall back to the interpreter.
    from csp2sat.evaluator import _Evaluator

    wrapped = N("and", N("or", "?p", N("not", "?p")), N("eq", N("if", node, 1, 0) if isinstance(expected, bool)
                                                          else node, int(expected) if isinstance(expected, bool) else expected))
    ev = _Evaluator(Model(), {"p": True})
    assert ev.evaluate_top(wrapped) == ev.evaluate(wrapped) is True
    assert ev.evaluate_top(node) == ev.evaluate(node) == expected


def test_constraints_evaluated_directly_stop_and_or_where_the_interpreter_does() -> None:
    safe = N("or", N("eq", "x", 1), N("eq", N("div", 1, "x"), 0))
    m = model({"x": (0, 1)}, (), safe, N("not", N("and", N("eq", "x", 0), N("eq", N("mod", 1, "x"), 0))))
    assert satisfies(m, {"x": 1})
    with pytest.raises(CspError) as err:
        satisfies(m, {"x": 0})
    assert err.value.exit == Exit.UNSUPPORTED
