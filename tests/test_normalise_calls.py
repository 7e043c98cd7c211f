"""Normalise stage: top-level predicate calls reuse the clauses of an earlier call of the same shape.

The reused clauses must be exactly those that inlining the body gives, for
every argument shape: variables of equal or different domains, one variable
passed twice, negated Boolean arguments, constants.
"""

from __future__ import annotations

import itertools

import csp2sat
from csp2sat.normalise import Normaliser, normalise

DECLS = "(int x 0 1)(int y 0 1)(int z 0 2)(int w 0 2)(bool a)(bool b)(bool c)"
# The body with {X} {Y} {B} {C} for the parameters, so that a call can also be written inlined.
BODY = "(and (or (= {X} 0) {B} (< {X} {Y})) (or (= {Y} 1) (! {C}) (and {B} (!= {X} {Y}))))"
PREDICATE = "(predicate (p X Y B C) " + BODY.format(X="X", Y="Y", B="B", C="C") + ")"
CALLS = [
    ("x", "y", "a", "b"),
    ("y", "x", "b", "c"),  # same shape as the first: from the template
    ("x", "x", "a", "b"),  # one variable twice
    ("y", "y", "c", "a"),
    ("x", "y", "(! a)", "b"),  # a negated argument
    ("y", "x", "(! c)", "a"),
    ("z", "w", "a", "a"),  # other domains, one Boolean twice
    ("w", "z", "b", "b"),
    ("z", "x", "(! b)", "b"),  # a variable and its negation
    ("0", "z", "true", "c"),  # constants
    ("1", "w", "false", "b"),
]


def _clauses(text: str) -> list[list[str]]:
    return [[repr(lit) for lit in clause] for clause in normalise(csp2sat.parse(text)).clauses]


def test_calls_give_the_clauses_of_the_inlined_bodies() -> None:
    called = DECLS + PREDICATE + "".join(f"(p {' '.join(args)})" for args in CALLS)
    inlined = DECLS + "".join(BODY.format(X=x, Y=y, B=b, C=c) for x, y, b, c in CALLS)
    assert _clauses(called) == _clauses(inlined)


def test_templates_are_used_for_repeated_shapes() -> None:
    called = DECLS + PREDICATE + "".join(f"(p {' '.join(args)})" for args in CALLS)
    normaliser = Normaliser(csp2sat.parse(called))
    normaliser.run()
    templates = normaliser._call_templates
    # The first two calls share a shape; so do the 3rd/4th, 5th/6th and 7th/8th.
    assert len(templates) == len(CALLS) - 4
    # With z, w of 0..2, (= w 1) is a conjunction and the body needs a Tseitin variable: no template then.
    assert [t is not False for t in templates.values()] == [True, True, True, False, True, True, True]


def test_predicate_reading_a_global_variable_is_not_templated() -> None:
    # The body's 'c' is the model's variable, not a parameter: a template would bind it to an argument.
    text = DECLS + "(predicate (q X B) (or (= X 0) B c))(q x a)(q y c)(q x b)"
    normaliser = Normaliser(csp2sat.parse(text))
    csp = normaliser.run()
    assert all(t is False for t in normaliser._call_templates.values())
    assert _clauses(text) == _clauses(DECLS + "(or (= x 0) a c)(or (= y 0) c c)(or (= x 0) b c)")
    assert len(csp.clauses) == 3


def test_solution_count_of_templated_calls() -> None:
    text = DECLS + PREDICATE + "".join(f"(p {' '.join(args)})" for args in CALLS[:8])
    model = csp2sat.parse(text)
    from pysat.solvers import Solver

    from csp2sat.compiler import compile_model

    compiled = compile_model(model)
    count = 0
    with Solver("cadical195") as solver:
        compiled.load(solver)
        while solver.solve():
            values = compiled.decode(solver.get_model())
            solver.add_clause(compiled.block_clause(values))
            count += 1

    def body(x: int, y: int, b: bool, c: bool) -> bool:
        return (x == 0 or b or x < y) and (y == 1 or not c or (b and x != y))

    brute = 0
    for x, y, z, w, a, b, c in itertools.product((0, 1), (0, 1), (0, 1, 2), (0, 1, 2), *[(False, True)] * 3):
        env = {"x": x, "y": y, "z": z, "w": w, "a": a, "b": b, "c": c}

        def val(arg: str) -> "int | bool":
            return not env[arg[3:-1]] if arg.startswith("(! ") else env[arg]

        brute += all(body(*(val(s) for s in args)) for args in CALLS[:8])
    assert count == brute
