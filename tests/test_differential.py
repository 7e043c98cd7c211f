"""Differential tests: random small CSPs, solved by csp2sat and by exhaustive search.

For every file drawn by `csp_strategies.csp_texts`:

* the compiled CNF, enumerated with a PySAT solver (projected on the printed
  variables, optimal answers only under an objective, each answer checked by
  `csp2sat.evaluator` on the way), has exactly the brute-force answers, and
  the optimum found equals the brute-force optimum;
* `csp2sat.solve` (once it exists) answers the brute-force status and
  optimum, and its printed assignment is one of the brute-force answers;
* the evaluator and the brute-force interpreter agree on random assignments
  (two independent readings of the same semantics).

The first two checks also run on `csp_strategies.scheduling_texts`, small files
around one cumulative or disjunctive with terms of every sign, where faults of
those decompositions are not hidden by other constraints.

CI runs 300 examples; set CSP2SAT_DIFF_EXAMPLES=10000 for a thorough local run.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import csp2sat
from bruteforce import BruteResult, Checker, brute_force
from csp_strategies import constant_use_texts, csp_texts, scheduling_texts
from csp2sat.diagnostics import CspError
from csp2sat.evaluator import satisfies

EXAMPLES = int(os.environ.get("CSP2SAT_DIFF_EXAMPLES", "300"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _parse(text: str):
    try:
        return csp2sat.parse(text)
    except CspError as err:
        pytest.fail(f"the front end rejects a generated file: {err}\n{text}")


def _compiled_answers(model, options: dict[str, str] | None = None,
                      enumerating: bool = False) -> tuple[str, int | None, set[tuple]]:
    """Status, optimum and the set of printed answers, from `compile_model` and PySAT enumeration."""
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    compiled = compile_model(model, options=options, enumerating=enumerating)
    printed = [v.name for v in model.printed_int_vars()] + [model.bool_key(b.name) for b in model.printed_bool_vars()]
    answers: set[tuple] = set()
    # The enumeration checks every decoded answer with the evaluator (VERIFY error if it fails).
    with open_space(compiled, model) as space:
        for answer in space.solutions():
            key = tuple(answer[k] for k in printed)
            assert key not in answers, f"answer enumerated twice: {answer}"
            answers.add(key)
        optimum = space.optimum
    if not answers:
        return "UNSATISFIABLE", None, answers
    return ("OPTIMUM FOUND" if model.objective else "SATISFIABLE"), optimum, answers


def _describe(expected: BruteResult, got: set[tuple]) -> str:
    missing = sorted(expected.answers - got, key=repr)[:3]
    extra = sorted(got - expected.answers, key=repr)[:3]
    return f"variables {expected.printed}: missing {missing}, not solutions {extra}"


@SETTINGS
@given(csp_texts())
def test_compiled_cnf_has_exactly_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text)


@SETTINGS
@given(scheduling_texts())
def test_cumulative_and_disjunctive_compile_to_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text)


# Listing every answer log-encodes the file's variables with many values (ENUMERATION_LOG_THRESHOLD, 1,024),
# next to order-encoded ones linked to them or not: here from 3 values on, so that small files have both.
@SETTINGS
@given(st.one_of(csp_texts(), scheduling_texts()))
def test_enumeration_with_log_encoded_variables_has_exactly_the_brute_force_answers(text: str) -> None:
    from unittest import mock

    with mock.patch("csp2sat.compiler.ENUMERATION_LOG_THRESHOLD", 2):
        _compare_compiled(text, enumerating=True)


# `-O large=log`: every variable of more than two values log-encoded, auxiliary ones too, so that
# clauses hold several comparisons on log variables (x ≠ u as one clause on the bits, a comparison
# alone in its clause as clauses on its digits, the others through comparator gates).
@SETTINGS
@given(st.one_of(csp_texts(), constant_use_texts()))
def test_log_encoding_of_every_variable_has_exactly_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text, {"large": "log"})


# The direct (one-hot) encoding, forced on every variable of more than two values
# (in sums too, through its ladder of order literals).
@SETTINGS
@given(st.one_of(csp_texts(), constant_use_texts()))
def test_direct_encoding_has_exactly_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text, {"int": "direct"})


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scheduling_texts())
def test_direct_encoding_of_cumulative_and_disjunctive(text: str) -> None:
    _compare_compiled(text, {"int": "direct"})


# The per-variable choice (`-O int=mixed`, and whatever `auto` means): files where some integers are
# used only against constants, so that they are direct-encoded next to order-encoded ones.
@SETTINGS
@given(constant_use_texts(), st.sampled_from(["mixed", "auto"]))
def test_per_variable_direct_choice_has_exactly_the_brute_force_answers(text: str, choice: str) -> None:
    _compare_compiled(text, {"int": choice})


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csp_texts(), st.sampled_from(["auto", "direct", "mixed"]))
def test_direct_encoding_with_selectors(text: str, choice: str) -> None:
    # explain's mode: no domain tightening, every clause guarded by its constraint's selector.
    from pysat.solvers import Solver

    from csp2sat.compiler import compile_model

    model = _parse(text)
    expected = brute_force(model)
    compiled = compile_model(model, selectors=True, options={"int": choice})
    names = list(expected.printed)
    found: set[tuple] = set()
    with Solver("cadical195", bootstrap_with=list(compiled.clauses())) as sat:
        while sat.solve(assumptions=compiled.selectors):
            values = compiled.decode(sat.get_model())
            assert satisfies(model, values), text
            found.add(tuple(values[k] for k in names))
            if not names:
                break
            sat.add_clause(compiled.block_clause({k: values[k] for k in names}))
    if model.objective is None:
        assert found == expected.answers, _describe(expected, found) + "\n" + text
    else:  # every answer, not only the optimal ones
        assert (not found) == (expected.status == "UNSATISFIABLE"), text


def _compare_compiled(text: str, options: dict[str, str] | None = None, enumerating: bool = False) -> None:
    model = _parse(text)
    expected = brute_force(model)
    status, optimum, answers = _compiled_answers(model, options, enumerating)
    assert status == expected.status, text
    assert optimum == expected.optimum, text
    assert answers == expected.answers, _describe(expected, answers) + "\n" + text


@SETTINGS
@given(csp_texts())
def test_solve_answers_like_brute_force(text: str) -> None:
    _compare_solve(text)


@SETTINGS
@given(scheduling_texts())
def test_solve_answers_cumulative_and_disjunctive_like_brute_force(text: str) -> None:
    _compare_solve(text)


def _compare_solve(text: str) -> None:
    model = _parse(text)
    expected = brute_force(model)
    result = csp2sat.solve(model)
    assert result.status == expected.status, text
    assert result.objective == expected.optimum, text
    if expected.status == "UNSATISFIABLE":
        assert not result.values, text
        return
    shown = tuple(result.values[k] for k in expected.printed)
    assert set(result.values) == set(expected.printed), text
    assert shown in expected.answers, f"{dict(zip(expected.printed, shown))} is not a solution\n{text}"


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csp_texts(), st.randoms(use_true_random=False))
def test_evaluator_agrees_with_brute_force_interpreter(text: str, rnd) -> None:
    _compare_interpreters(text, rnd)


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scheduling_texts(), st.randoms(use_true_random=False))
def test_evaluator_reads_cumulative_and_disjunctive_like_brute_force(text: str, rnd) -> None:
    _compare_interpreters(text, rnd)


def _compare_interpreters(text: str, rnd) -> None:
    model = _parse(text)
    checker = Checker(model)
    for _ in range(100):
        assignment = {k: rnd.choice(d) for k, d in zip(checker.keys, checker.domains)}
        assert satisfies(model, assignment) == checker.holds(assignment), f"{assignment}\n{text}"


@st.composite
def extremum_comparison_texts(draw: st.DrawFn) -> str:
    """A min, max or abs compared with a term of one variable (or with another extremum), in every context:
    the normaliser writes these as comparisons of the extremum's arguments (`_extremum_by_bounds`)."""
    names = ["a", "b", "m"]
    lines = []
    for name in names:
        lo = draw(st.integers(-3, 2))
        lines.append(f"(int {name} {lo} {lo + draw(st.integers(0, 4))})")
    lines.append("(bool q)")

    def simple() -> str:
        v, w = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        return draw(st.sampled_from([v, f"(+ {v} {draw(st.integers(-2, 2))})", f"(- {v} {w})", f"(* -2 {v})",
                                     f"(* {v} {w})", "(div 16 7)"]))

    def extremum() -> str:
        op = draw(st.sampled_from(["min", "max", "abs"]))
        return f"(abs {simple()})" if op == "abs" else f"({op} {simple()} {simple()})"

    v = draw(st.sampled_from(names))
    other = draw(st.sampled_from([v, f"(+ {v} {draw(st.integers(-2, 2))})", f"(- 1 {v})", f"(* 3 {v})",
                                  str(draw(st.integers(-3, 3))), extremum(), f"(+ (* {v} {v}) 1)"]))
    sides = [extremum(), other]
    if draw(st.booleans()):
        sides.reverse()
    comparison = f"({draw(st.sampled_from(['=', '!=', '<', '<=', '>', '>=']))} {sides[0]} {sides[1]})"
    lines.append(draw(st.sampled_from([comparison, f"(not {comparison})", f"(or q {comparison})",
                                       f"(iff q {comparison})", f"(and (or (not q) {comparison}) (or q (= a m)))"])))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(extremum_comparison_texts())
def test_extrema_compared_with_variables_have_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text)


@st.composite
def product_sign_texts(draw: st.DrawFn) -> str:
    """Products compared with 0, or with a term that shares a factor (x·y > 3·x, x·y + x·m ≤ 0, (x - 1)·(y + 2) ≥ 0),
    in every context: the normaliser writes these as formulas on the factors' signs (`_product_by_signs`)."""
    names = ["x", "y", "m"]
    lines = []
    for name in names:
        lo = draw(st.sampled_from([-9, -7, -4, -2, -1, 0, 1, 3]))  # some factors away from 0: one bound per side
        lines.append(f"(int {name} {lo} {lo + draw(st.integers(0, 6))})")
    lines.append("(bool q)")

    def factor() -> str:
        v = draw(st.sampled_from(names))
        return draw(st.sampled_from([v, v, f"(+ {v} {draw(st.integers(-2, 2))})", f"(- {v} {draw(st.sampled_from(names))})",
                                     f"(* {draw(st.sampled_from([-2, 3]))} {v})"]))

    v = draw(st.sampled_from(names))
    product = f"(* {factor()} {factor()})"
    if draw(st.booleans()):
        product = f"(* {product} {factor()})"
    c = draw(st.integers(-12, 12))
    other = draw(st.sampled_from(["0", "0", f"(* {draw(st.integers(-3, 3))} {v})", f"(* {v} {factor()})",
                                  f"(+ (* {v} {factor()}) {v})", "1", f"(+ (* {v} {factor()}) {c})",
                                  f"(- {c} (* {factor()} {v}))", f"(+ (* {v} {factor()}) (div {c} 5))"]))
    if draw(st.booleans()):
        w = draw(st.sampled_from(names))
        product = draw(st.sampled_from([f"(* {v} {factor()})", f"(* {v} (* {w} {w}))", f"(* (* {w} {v}) {w})"]))
    sides = [product, other]
    if draw(st.booleans()):
        sides.reverse()
    comparison = f"({draw(st.sampled_from(['=', '!=', '<', '<=', '>', '>=']))} {sides[0]} {sides[1]})"
    lines.append(draw(st.sampled_from([comparison, f"(not {comparison})", f"(or q {comparison})",
                                       f"(iff q {comparison})"])))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(product_sign_texts())
def test_products_decided_by_signs_have_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text)


@pytest.mark.parametrize("v_domain", ["3 9", "-9 -3", "1 1", "2 40"])
def test_one_factor_bounds_against_every_constant(v_domain: str) -> None:
    """v·b op k with v away from 0 and k small is a bound on b alone (`_one_factor_bound`): every operator
    and every k in -12..12, counted against brute force."""
    for op in ("=", "!=", "<", "<=", ">", ">="):
        for k in range(-12, 13):
            _compare_compiled(f"(int v {v_domain})\n(int b -5 5)\n({op} (* v b) {k})\n")
            _compare_compiled(f"(int v {v_domain})\n(int b -5 5)\n({op} (+ (* b v) {k}) (* 2 v))\n")


@pytest.mark.parametrize("v_domain", ["3 9", "-9 -3", "5 5"])
def test_products_with_a_small_remainder(v_domain: str) -> None:
    """v·b + r op 0 with |r| < |v| everywhere takes b's sign, or r's where b = 0 (`_small_remainder`); r of
    other variables, of b itself, or too wide for the rule (4·w), counted against brute force."""
    for op in ("=", "!=", "<", "<=", ">", ">="):
        for r in ("(abs w)", "(mod b 3)", "(- w 1)", "(* 4 w)", "(+ w (mod b 2))"):
            _compare_compiled(f"(int v {v_domain})\n(int b -4 4)\n(int w -2 2)\n({op} (+ (* v b) {r}) 0)\n")
            _compare_compiled(f"(int v {v_domain})\n(int b -4 4)\n(int w -2 2)\n({op} (* b v) (- (* v w) {r}))\n")


@st.composite
def shared_pivot_texts(draw: st.DrawFn) -> str:
    """A clause of two or three sums ``a·z + b·y ≤ c`` over one z with one coefficient a (every sign, holed and
    negative domains), sometimes with a Boolean or an equality beside them: what `_encode_shared_pivot` writes
    value by value of z, and its literals found by arithmetic (domains without holes) or by bisection."""
    lines = []
    domains = {}
    for name in ("z", "y1", "y2", "y3"):
        lo = draw(st.integers(-6, 3))
        values = list(range(lo, lo + draw(st.integers(2, 5)) + 1))
        if draw(st.booleans()):
            values.remove(draw(st.sampled_from(values[1:-1])))
        domains[name] = values
        lines.append(f"(int {name} ({' '.join(f'({v} {v})' for v in values)}))")
    lines.append("(bool q)")
    a = draw(st.sampled_from([1, -1, 2, -3]))
    op = draw(st.sampled_from(["<=", "<", ">=", ">"]))
    sums = []
    for y in draw(st.lists(st.sampled_from(["y1", "y2", "y3"]), min_size=2, max_size=3)):
        b = draw(st.sampled_from([1, -1, 2, -2, 3]))
        ends = [a * z + b * v for z in domains["z"][::len(domains["z"]) - 1] for v in domains[y][::len(domains[y]) - 1]]
        c = draw(st.integers(min(ends) + 1, max(ends) - 1))  # neither always true nor always false
        sums.append(f"({op} (+ (* {a} z) (* {b} {y})) {c})")
    extra = draw(st.sampled_from(["", "q", "(= y1 1)", "(not q)"]))
    lines.append(f"(or {' '.join(sums)} {extra})")
    lines.append(draw(st.sampled_from(["", "(iff q (< z y2))", "(!= z y3)"])))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(shared_pivot_texts())
def test_clauses_of_sums_sharing_a_variable_have_the_brute_force_answers(text: str) -> None:
    _compare_compiled(text)


def test_clauses_of_sums_sharing_a_variable_take_the_value_by_value_path(monkeypatch) -> None:
    """The strategy above reaches `_encode_shared_pivot` (a dense and a holed y, both signs of b)."""
    import csp2sat.compiler as compiler

    written = []
    original = compiler._encode_shared_pivot

    def counting(*args):
        done = original(*args)
        written.append(done)
        return done

    monkeypatch.setattr(compiler, "_encode_shared_pivot", counting)
    text = ("(int z -3 4)\n(int y1 ((-2 -2) (0 3)))\n(int y2 -4 2)\n"
            "(or (<= (+ (* 2 z) (* -1 y1)) 3) (<= (+ (* 2 z) (* 3 y2)) -1))\n")
    _compare_compiled(text)
    assert written and all(written)
