"""Tests of the alternative encoders chosen for performance: value-wise alldifferent
(equality literals, product at-most-one, at-least-one on permutations), cardinality
(totalizer) and the log encoding of large domains.

Every test compares the set of solutions the CNF allows (projected on the user's
variables) with a brute-force enumeration, with the encoding forced on.
"""

from __future__ import annotations

import itertools
from typing import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.syntax import Domain
from csp2sat.encoders.alldifferent import at_most_one, encode_alldifferent
from csp2sat.encoders.cnf import ClauseBuffer, Pool
from csp2sat.encoders.order import OrderEncoding


def _solutions(text: str, options: dict[str, str], selectors: bool = False) -> set[tuple]:
    """Every assignment of the user's variables (definition order) that the CNF allows."""
    model = csp2sat.parse(text)
    compiled = compile_model(model, selectors=selectors, options=options)
    solver = Solver("cadical195")
    compiled.load(solver)
    assumptions = list(compiled.selectors or [])
    found: set[tuple] = set()
    names = list(model.int_vars) + [model.bool_key(b) for b in model.bool_vars]
    while solver.solve(assumptions=assumptions):
        values = compiled.decode(solver.get_model())
        key = tuple(values[n] for n in names)
        assert key not in found, "a blocked assignment came back"
        found.add(key)
        solver.add_clause(compiled.block_clause({n: values[n] for n in names}))
    solver.delete()
    return found


def _brute(domains: list[list[int]], pred: Callable[..., bool]) -> set[tuple]:
    return {vals for vals in itertools.product(*domains) if pred(*vals)}


# ---------------------------------------------------------------- alldifferent, value-wise


def test_product_amo_allows_exactly_none_or_one() -> None:
    for n in (7, 10, 17):
        pool = Pool(n)
        out = ClauseBuffer()
        at_most_one(list(range(1, n + 1)), [], pool, out)
        solver = Solver("cadical195")
        solver.append_formula(out)
        seen = set()
        while solver.solve():
            model = solver.get_model()[:n]
            chosen = tuple(lit for lit in model if lit > 0)
            assert len(chosen) <= 1 and chosen not in seen
            seen.add(chosen)
            solver.add_clause([-lit for lit in model])
        assert len(seen) == n + 1


def test_equal_literal_is_equivalent_to_the_value() -> None:
    pool = Pool()
    order = OrderEncoding([Domain.of([(0, 2), (5, 6)])], pool)
    out = ClauseBuffer()
    order.axioms(out)
    lits = {v: order.equal(0, v, pool, out) for v in (0, 1, 2, 5, 6)}
    assert order.equal(0, 3, pool, out) is False
    assert order.equal(0, 1, pool, out) == lits[1]  # cached: one variable per (var, value)
    solver = Solver("cadical195")
    solver.append_formula(out)
    for v, lit in lits.items():
        for w in (0, 1, 2, 5, 6):
            # x = w together with the literal of x = v (or its negation) is consistent exactly when it should be.
            assert solver.solve(assumptions=[-x for x in order.not_equal(0, w)] + [lit]) == (v == w)
            assert solver.solve(assumptions=[-x for x in order.not_equal(0, w)] + [-lit]) == (v != w)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_permutation_alldifferent_amo_matches_brute_force(n: int) -> None:
    # n terms over n values: the at-least-one clauses are added; offsets shift the values.
    names = [f"x{i}" for i in range(n)]
    text = "".join(f"(int {x} 1 {n})" for x in names)
    text += "(alldifferent " + " ".join(names) + ")"
    text += "(alldifferent " + " ".join(f"(+ {x} {i % 2})" for i, x in enumerate(names)) + ")"
    expected = _brute([list(range(1, n + 1))] * n,
                      lambda *v: len(set(v)) == n and len({x + i % 2 for i, x in enumerate(v)}) == n)
    assert _solutions(text, {"alldifferent": "amo"}) == expected
    assert _solutions(text, {"alldifferent": "amo"}, selectors=True) == expected
    assert _solutions(text, {"alldifferent": "relational"}) == expected
    assert _solutions(text, {"alldifferent": "relational"}, selectors=True) == expected
    assert _solutions(text, {"alldifferent": "relational", "int": "direct"}) == expected  # falls back to pairwise


def test_alldifferent_amo_with_holes_offsets_and_fixed_terms() -> None:
    doms = [Domain.of([(0, 2), (5, 5)]), Domain.range(-1, 2), Domain.range(1, 3), Domain.range(2, 2)]
    offsets = [0, 1, -1, 2]
    pool = Pool()
    order = OrderEncoding(doms, pool)
    out = ClauseBuffer()
    order.axioms(out)
    encode_alldifferent(order, [0, 1, 2, 3], offsets, [], pool, out, "amo")
    solver = Solver("cadical195")
    solver.append_formula(out)
    found = set()
    while solver.solve():
        true = {lit for lit in solver.get_model() if lit > 0}
        values = tuple(order.decode(i, true.__contains__) for i in range(4))
        found.add(values)
        solver.add_clause([lit for i, v in enumerate(values) for lit in order.not_equal(i, v)])
    expected = {vals for vals in itertools.product(*(list(d.values()) for d in doms))
                if len({v + o for v, o in zip(vals, offsets)}) == 4}
    assert found == expected


def test_alldifferent_unknown_method_is_rejected() -> None:
    pool = Pool()
    order = OrderEncoding([Domain.range(1, 2)] * 2, pool)
    with pytest.raises(ValueError):
        encode_alldifferent(order, [0, 1], [0, 0], [], pool, ClauseBuffer(), "magic")


def test_nqueens_value_wise_is_much_smaller_than_pairwise() -> None:
    n = 30
    text = "".join(f"(int q{i} 1 {n})" for i in range(n))
    for k in (0, 1, -1):
        text += "(alldifferent " + " ".join(f"(+ q{i} {k * i})" for i in range(n)) + ")"
    model = csp2sat.parse(text)
    amo = compile_model(model, options={"alldifferent": "amo"})
    pairwise = compile_model(model, options={"alldifferent": "pairwise"})
    assert amo.num_clauses * 2 < pairwise.num_clauses
    solver = Solver("cadical195")
    amo.load(solver)
    assert solver.solve()
    values = amo.decode(solver.get_model())
    qs = [values[f"q{i}"] for i in range(n)]
    assert len(set(qs)) == n and len({q + i for i, q in enumerate(qs)}) == n and len({q - i for i, q in enumerate(qs)}) == n


# ---------------------------------------------------------------- cardinality (totalizer)


@settings(max_examples=40, deadline=None)
@given(signs=st.lists(st.sampled_from([1, -1]), min_size=4, max_size=7), k=st.integers(-3, 7),
       fixed=st.integers(0, 2), reified=st.booleans())
def test_count_literal_matches_brute_force(signs: list[int], k: int, fixed: int, reified: bool) -> None:
    # Σ ±xᵢ ≤ k over 0/1 variables, some fixed by their domain; reified: (or b (<= ...)) in a clause.
    n = len(signs)
    doms = [[0, 1]] * (n - fixed) + [[1]] * fixed
    text = "".join(f"(int x{i} {d[0]} {d[-1]})" for i, d in enumerate(doms)) + "(bool b)"
    total = "(+ " + " ".join(f"x{i}" if s > 0 else f"(- x{i})" for i, s in enumerate(signs)) + ")"
    body = f"(<= {total} {k})"
    text += f"(or b {body})" if reified else body
    expected = {vals + (b,) for vals in itertools.product(*doms) for b in (False, True)
                if (reified and b) or sum(s * v for s, v in zip(signs, vals)) <= k}
    assert _solutions(text, {"cardinality": "totalizer"}) == expected
    assert _solutions(text, {"cardinality": "totalizer"}, selectors=True) == expected


@pytest.mark.parametrize("k", [0, 1, 2, 5, 9])
def test_exactly_k_of_many_cells(k: int) -> None:
    # Both directions (≤ k and ≥ k) of a long count, the shape puzzle files produce.
    n = 10
    text = "".join(f"(int c{i} 0 1)" for i in range(n)) + f"(= (+ {' '.join(f'c{i}' for i in range(n))}) {k})"
    found = _solutions(text, {"cardinality": "totalizer"})
    assert found == {v for v in itertools.product([0, 1], repeat=n) if sum(v) == k}


def test_long_exactly_one_is_small() -> None:
    n = 64
    text = "".join(f"(int c{i} 0 1)" for i in range(n)) + f"(= (+ {' '.join(f'c{i}' for i in range(n))}) 1)"
    model = csp2sat.parse(text)
    card = compile_model(model, options={"cardinality": "totalizer"})
    split = compile_model(model, options={"cardinality": "order", "split": "onesided"})
    assert card.num_clauses <= 4 * n < split.num_clauses


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_at_most_one_over_exclusive_groups_matches_brute_force(data) -> None:
    # The social golfers' shape: 0/1 variables exclusive in groups ("one group a week"), and at most
    # one of many terms `x` or `(min x y)`; `-O amo=auto` writes the at-most-one over the groups
    # the clauses already make exclusive. Random groups, some overlapping terms, some not exclusive.
    n = data.draw(st.integers(6, 9))
    groups = data.draw(st.lists(st.lists(st.integers(0, n - 1), min_size=2, max_size=4, unique=True),
                                min_size=1, max_size=3))
    exact = data.draw(st.lists(st.booleans(), min_size=len(groups), max_size=len(groups)))
    terms = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=7, max_size=10))
    text = "".join(f"(int x{i} 0 1)" for i in range(n))
    for g, eq in zip(groups, exact):
        text += f"({'=' if eq else '<='} (+ {' '.join(f'x{i}' for i in g)}) 1)"
    spelled = [f"x{i}" if i == j else f"(min x{i} x{j})" for i, j in terms]
    text += f"(<= (+ {' '.join(spelled)}) 1)"

    def holds(*v: int) -> bool:
        return (all(sum(v[i] for i in g) == 1 if eq else sum(v[i] for i in g) <= 1 for g, eq in zip(groups, exact))
                and sum(min(v[i], v[j]) for i, j in terms) <= 1)

    expected = _brute([[0, 1]] * n, holds)
    assert _solutions(text, {"amo": "auto"}) == expected
    assert _solutions(text, {"amo": "product"}) == expected


def test_at_most_one_is_written_over_the_groups_only_where_they_are_exclusive() -> None:
    from csp2sat.encoders.cardinality import BinaryClauses, grouped_at_most_one

    # a_i → x_(i mod 3) and the x's exclusive pairwise: a_i and a_j are exclusive when i ≢ j (mod 3),
    # so the greedy groups are {a0, a1, a2}, {a3, a4, a5}, {a6, a7, a8}.
    pool = Pool(12)
    out = ClauseBuffer()
    a, x = list(range(1, 10)), [10, 11, 12]
    for i, lit in enumerate(a):
        out.add([-lit, x[i % 3]])
    for i in range(3):
        for j in range(i + 1, 3):
            out.add([-x[i], -x[j]])
    binaries = BinaryClauses(out)
    assert binaries.update() and binaries.exclusive_groups(a) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    before = out.count
    grouped_at_most_one(a, pool, out, binaries)
    assert out.count - before == 9 + 3 + 3  # a → c; c → a ∨ a' ∨ a'' per group; AMO of 3 commanders pairwise
    solver = Solver("cadical195")
    solver.append_formula(out)
    assert solver.solve(assumptions=[1, 2]) is False  # other x: excluded by the existing clauses
    assert solver.solve(assumptions=[1, 4]) is False  # same x, other groups: excluded by the new clauses
    assert solver.solve(assumptions=[5]) is True
    # Without the exclusions nothing is grouped (the product encoding is written).
    plain = ClauseBuffer()
    for i, lit in enumerate(a):
        plain.add([-lit, x[i % 3]])
    assert BinaryClauses(plain).exclusive_groups(a) == [[v] for v in a]


def _golfers(groups: int, size: int, weeks: int) -> str:
    """Sugar's social golfers (x_p_k: player p in slot k, week-major; a pair meets at most once)."""
    players, slots = groups * size, groups * weeks
    x = [[f"x_{p}_{k}" for k in range(slots)] for p in range(players)]
    out = [f"(int {v} 0 1)" for row in x for v in row]
    out += [f"(= (+ {' '.join(x[p][w * groups:(w + 1) * groups])}) 1)" for p in range(players) for w in range(weeks)]
    out += [f"(= (+ {' '.join(x[p][k] for p in range(players))}) {size})" for k in range(slots)]
    out += [f"(<= (+ {' '.join(f'(min {x[p][k]} {x[q][k]})' for k in range(slots))}) 1)"
            for p in range(players) for q in range(p + 1, players)]
    return "\n".join(out)


def test_golfers_who_cannot_meet_often_enough_are_unsatisfiable() -> None:
    # 6 golfers in 2 groups of 3 meet 2 others a week: 4 weeks would need 8 of the 5 others.
    model = csp2sat.parse(_golfers(2, 3, 4))
    auto, product = compile_model(model), compile_model(model, options={"amo": "product"})
    assert auto.num_clauses < product.num_clauses  # the meetings were grouped by week
    for compiled in (auto, product):
        solver = Solver("glucose4")
        compiled.load(solver)
        assert solver.solve() is False
        solver.delete()
    # 6 golfers in 3 groups of 2 for 3 weeks can: an answer of the grouped CNF, checked by the evaluator.
    assert csp2sat.solve(_golfers(3, 2, 3)).status == "SATISFIABLE"


@pytest.mark.slow
def test_golfers_count_is_that_of_disjoint_matchings(tmp_path, capsys) -> None:
    from cli_support import run_cli

    # 6 golfers, 3 groups of 2, 3 weeks: an ordered triple of edge-disjoint perfect matchings of K6
    # (15 · 8 · 4 = 480), each matching's 3 pairs placed in the 3 labelled groups (3!³ = 216).
    path = tmp_path / "golfers.csp"
    path.write_text(_golfers(3, 2, 3), encoding="utf-8")
    status, out, _ = run_cli(capsys, "solve", "--count", str(path))
    assert status == 0 and out.strip().splitlines()[-1] == f"c SOLUTIONS {480 * 216}"


def test_groups_are_no_longer_looked_for_after_many_at_most_ones_without_one() -> None:
    from csp2sat.encoders.cardinality import MAX_FRUITLESS, BinaryClauses, grouped_at_most_one

    pool = Pool(0)
    out = ClauseBuffer()
    binaries = BinaryClauses(out)
    for _ in range(MAX_FRUITLESS):
        lits = [pool.new() for _ in range(8)]
        grouped_at_most_one(lits, pool, out, binaries)  # nothing exclusive: the product encoding
    assert binaries.implied  # the product's clauses a → row, a → column were read
    assert binaries.update() is False and not binaries.implied  # given up, and the index freed


# ---------------------------------------------------------------- predicates read in place


def test_nested_predicates_with_nonlinear_terms_and_globals() -> None:
    # Parameters pass through two levels; if/abs terms, iff (named literals) and a global use them.
    text = (
        "(predicate (inner A B P) (iff P (= (abs (- A B)) 1)))"
        "(predicate (outer X Y Z Q) (and (inner X Y Q) (or (inner Y Z Q) (= (+ (if Q 1 0) X) Z))"
        " (alldifferent X Z)))"
        "(int x 0 2)(int y 0 2)(int z 0 2)(bool q)"
        "(outer x y z q)(or (outer z y x q) (= x 0))"
    )

    def inner(a: int, b: int, p: bool) -> bool:
        return p == (abs(a - b) == 1)

    def outer(x: int, y: int, z: int, q: bool) -> bool:
        return inner(x, y, q) and (inner(y, z, q) or int(q) + x == z) and x != z

    expected = {(x, y, z, q) for x, y, z in itertools.product(range(3), repeat=3) for q in (False, True)
                if outer(x, y, z, q) and (outer(z, y, x, q) or x == 0)}
    assert _solutions(text, {}) == expected
    assert _solutions(text, {}, selectors=True) == expected


# ---------------------------------------------------------------- log encoding of large domains


def _dom_text(name: str, values: list[int]) -> str:
    return f"(int {name} (" + " ".join(str(v) for v in values) + "))"


@settings(max_examples=40, deadline=None)
@given(
    doms=st.lists(st.sets(st.integers(-5, 6), min_size=1, max_size=6).map(sorted), min_size=2, max_size=3),
    coefs=st.lists(st.integers(-4, 4).filter(bool), min_size=3, max_size=3),
    c=st.integers(-20, 20),
    op=st.sampled_from(["<=", "=", "!="]),
    reified=st.booleans(),
)
def test_log_linear_matches_brute_force(doms: list[list[int]], coefs: list[int], c: int, op: str,
                                        reified: bool) -> None:
    # Domains with holes; variables of ≤ 2 values stay order-encoded, so sums mix both encodings.
    names = [f"x{i}" for i in range(len(doms))]
    text = "".join(_dom_text(n, d) for n, d in zip(names, doms)) + "(bool b)"
    total = "(+ " + " ".join(f"(* {a} {n})" for a, n in zip(coefs, names)) + ")"
    body = f"({op} {total} {c})"
    text += f"(or b {body})" if reified else body
    ops = {"<=": lambda s: s <= c, "=": lambda s: s == c, "!=": lambda s: s != c}
    expected = {vals + (b,) for vals in itertools.product(*doms) for b in (False, True)
                if (reified and b) or ops[op](sum(a * v for a, v in zip(coefs, vals)))}
    assert _solutions(text, {"large": "log"}) == expected


@settings(max_examples=60, deadline=None)
@given(
    dx=st.sets(st.integers(-9, 9), min_size=1, max_size=7).map(sorted),
    dy=st.sets(st.integers(-9, 9), min_size=1, max_size=7).map(sorted),
    u=st.integers(-11, 11), w=st.integers(-11, 11),
    shape=st.sampled_from(["(or b (!= x U))", "(or (!= x U) (<= y W))", "(or (!= x U) (!= y W))",
                           "(or (!= x U) (>= (+ x y) W))", "(or b (<= x U))", "(or b (>= (- y) W))",
                           "(= y (abs x))", "(or (= x U) (= y W))"]),
)
def test_log_comparisons_of_one_variable_in_a_clause_match_brute_force(dx: list[int], dy: list[int], u: int, w: int,
                                                                       shape: str) -> None:
    # x ≠ u is one clause on x's bits; a clause's only comparison is distributed into clauses on the
    # bits (no comparator gates); a comparison with a sum next to it still goes through gates.
    text = _dom_text("x", dx) + _dom_text("y", dy) + "(bool b)" + shape.replace("U", str(u)).replace("W", str(w))
    rules = {
        "(or b (!= x U))": lambda x, y, b: b or x != u,
        "(or (!= x U) (<= y W))": lambda x, y, b: x != u or y <= w,
        "(or (!= x U) (!= y W))": lambda x, y, b: x != u or y != w,
        "(or (!= x U) (>= (+ x y) W))": lambda x, y, b: x != u or x + y >= w,
        "(or b (<= x U))": lambda x, y, b: b or x <= u,
        "(or b (>= (- y) W))": lambda x, y, b: b or -y >= w,
        "(= y (abs x))": lambda x, y, b: y == abs(x),
        "(or (= x U) (= y W))": lambda x, y, b: x == u or y == w,
    }
    expected = {(x, y, b) for x in dx for y in dy for b in (False, True) if rules[shape](x, y, b)}
    assert _solutions(text, {"large": "log"}) == expected


def test_log_at_most_clauses_match_the_number_they_compare() -> None:
    from csp2sat.encoders.log import at_most_clauses

    for n in range(5):
        for k in range(-2, (1 << n) + 2):
            for consts in itertools.product([None, True, False], repeat=n):
                digits = [c if c is not None else j + 1 for j, c in enumerate(consts)]
                cnf = at_most_clauses(digits, k)
                free = [j + 1 for j, c in enumerate(consts) if c is None]
                for word in range(1 << len(free)):
                    true = {v for i, v in enumerate(free) if (word >> i) & 1}
                    number = sum(1 << j for j, d in enumerate(digits) if d is True or (d is not False and d in true))
                    holds = cnf if isinstance(cnf, bool) else all(
                        any((lit > 0) == (abs(lit) in true) for lit in clause) for clause in cnf)
                    assert holds == (number <= k), (digits, k, true)


def test_a_table_into_a_log_variable_needs_no_comparator_gates() -> None:
    # x ≠ u for each of x's 2,001 values is one clause on x's bits, and z ≤ u² (z ≥ u²) a few clauses
    # on z's bits: 293 CNF variables and 82 k clauses; comparator chains took 59 k variables and 211 k clauses
    text = "(int x 10000 12000)(int z 0 200000000)(= z (* x x))(int y 0 100000)(>= (+ z y) 100100000)"
    compiled = compile_model(csp2sat.parse(text), options={"large": "log"})
    assert compiled.num_vars < 1_000
    with Solver("cadical195") as solver:
        compiled.load(solver)
        assert solver.solve()
        values = compiled.decode(solver.get_model())
    assert values["z"] == values["x"] ** 2 and values["z"] + values["y"] >= 100_100_000


def test_log_nonlinear_terms_and_selectors() -> None:
    text = "(int x 0 9)(int y -3 7)(int z 0 20)(= z (+ (abs (- x y)) (mod x 3)))(< y x)"
    expected = _brute([list(range(10)), list(range(-3, 8)), list(range(21))],
                      lambda x, y, z: z == abs(x - y) + x % 3 and y < x)
    assert _solutions(text, {"large": "log"}) == expected
    assert _solutions(text, {"large": "log"}, selectors=True) == expected


def test_huge_domains_solve_with_the_log_encoding() -> None:
    from csp2sat.solver import OPTIMUM, solve

    text = "(int x 0 1000000) (int y 0 1000000) (= (+ (* 3 x) (* 5 y)) 2999999) (objective maximize y)"
    model = csp2sat.parse(text)
    compiled = compile_model(model)
    assert compiled.stats["log_vars"] == 2 and compiled.num_clauses < 10_000
    result = solve(model)
    assert result.status == OPTIMUM and result.values == {"x": 3, "y": 599998}


@settings(max_examples=30, deadline=None)
@given(
    lo=st.integers(-12, 3), width=st.integers(0, 14), d=st.integers(1, 5),
    op=st.sampled_from(["div", "mod", "abs", "divmod", "moddiv"]), c=st.integers(-4, 4),
    large=st.sampled_from(["auto", "log", "order"]), reified=st.booleans(),
)
def test_linear_div_mod_abs_match_brute_force(lo: int, width: int, d: int, op: str, c: int,
                                                large: str, reified: bool) -> None:
    # TABLE_LIMIT 0: the definitions used for large domains (x = d·q + r, max(x, -x)) on small ones.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("csp2sat.normalise.TABLE_LIMIT", 0)
        _check_div_mod_abs(lo, width, d, op, c, large, reified)


def _check_div_mod_abs(lo: int, width: int, d: int, op: str, c: int, large: str, reified: bool) -> None:
    # divmod: the quotient (two sums of x and q) shared by the remainder's x - d·q - r = 0; moddiv: the
    # other way round, the quotient of the remainder's equation shared by the div
    term = {"abs": "(abs (- x 1))", "divmod": f"(+ (div (+ x 1) {d}) (* 2 (mod (+ x 1) {d})))",
            "moddiv": f"(+ (* 2 (mod (+ x 1) {d})) (div (+ x 1) {d}))"}.get(op, f"({op} (+ x 1) {d})")
    body = f"(= {term} (+ y {c}))"
    text = f"(int x {lo} {lo + width})(int y -6 6)(bool b)" + (f"(or b {body})" if reified else body)
    f = {"abs": lambda v: abs(v - 1), "div": lambda v: (v + 1) // d, "mod": lambda v: (v + 1) % d,
         "divmod": lambda v: (v + 1) // d + 2 * ((v + 1) % d), "moddiv": lambda v: (v + 1) // d + 2 * ((v + 1) % d)}[op]
    expected = {(x, y, b) for x in range(lo, lo + width + 1) for y in range(-6, 7) for b in (False, True)
                if (reified and b) or f(x) == y + c}
    assert _solutions(text, {"large": large}) == expected


def test_big_domains_stay_compact() -> None:
    # Issue 10: these used to enumerate every value (10.9 M clauses; 14.5 GB).
    from csp2sat.evaluator import violations
    from csp2sat.solver import solve

    for text, most in (("(int x 0 1000000) (= (mod x 7) 3)", 5_000),
                       ("(int x 0 70000) (= (mod x 7) 3) (= (div x 1000) 65)", 5_000),
                       ("(int x 0 4194303) (int y 0 4194303) (alldifferent x y)", 5_000),
                       ("(int x 0 4194303) (int y 0 4194303) (int z 0 4194303) (alldifferent x (+ y 1) z) (= x y)", 10_000),
                       ("(int x -2147483648 2147483647) (int y -2147483648 2147483647)"
                        "(= (+ x y) 1000) (< x -2147480000) (>= (abs (- x 5)) 2147480000)", 25_000)):  # tightened to 2647 values each: order-encoded
        model = csp2sat.parse(text)
        assert compile_model(model).num_clauses < most, text
        result = solve(model)
        assert result.status == "SATISFIABLE" and not violations(model, result.values), text


@settings(max_examples=25, deadline=None)
@given(
    doms=st.lists(st.sets(st.integers(-2, 3), min_size=1, max_size=3).map(sorted), min_size=4, max_size=6),
    coefs=st.lists(st.integers(-3, 3).filter(bool), min_size=6, max_size=6),
    c=st.integers(-6, 6), op=st.sampled_from(["=", "!="]), reified=st.booleans(),
    split=st.sampled_from(["shared", "onesided"]),
)
def test_long_equalities_split_either_way_match_brute_force(doms: list[list[int]], coefs: list[int], c: int, op: str,
                                                            reified: bool, split: str) -> None:
    names = [f"x{i}" for i in range(len(doms))]
    text = "".join(_dom_text(n, d) for n, d in zip(names, doms)) + "(bool b)"
    body = f"({op} (+ " + " ".join(f"(* {a} {n})" for a, n in zip(coefs, names)) + f") {c})"
    text += f"(or b {body})" if reified else body
    holds = (lambda s: s == c) if op == "=" else (lambda s: s != c)
    expected = {vals + (b,) for vals in itertools.product(*doms) for b in (False, True)
                if (reified and b) or holds(sum(a * v for a, v in zip(coefs, vals)))}
    assert _solutions(text, {"split": split}) == expected


@pytest.mark.parametrize("option", ["large=log", "int=direct"])
def test_parallel_count_with_log_and_direct_variables(tmp_path, capsys, option: str) -> None:
    # Such variables make literals after loading, so Compiled remembers its solvers;
    # a copy sent to the workers of -j 2 must not try to take them along (it failed to pickle).
    from tests.cli_support import run_cli

    path = tmp_path / "lt.csp"
    path.write_text("(int x 0 9)(int y 0 9)(< (+ x 3) y)\n")
    status, out, _ = run_cli(capsys, "solve", "--count", "-j", "2", "-O", option, str(path))
    assert status == 0 and out.strip().splitlines()[-1] == "c SOLUTIONS 21"


def test_auto_alldifferent_is_relational_for_long_permutations_only_when_compared() -> None:
    # relational (a Boolean per pair, both sides order-encoded) costs more clauses than pairwise;
    # `extra` compares two of the terms, so the order between terms is worth learning
    def clauses(n: int, values: int, method: str, extra: str = "(< x0 (+ x1 5))") -> int:
        names = [f"x{i}" for i in range(n)]
        text = "".join(f"(int {x} 1 {values})" for x in names) + "(alldifferent " + " ".join(names) + ")" + extra
        return compile_model(csp2sat.parse(text), options={"alldifferent": method}).num_clauses

    assert clauses(20, 20, "auto") == clauses(20, 20, "relational") > clauses(20, 20, "pairwise")
    assert clauses(16, 16, "auto") == clauses(16, 16, "pairwise") < clauses(16, 16, "relational")
    assert clauses(20, 21, "auto") == clauses(20, 21, "pairwise")  # not a permutation


def test_auto_alldifferent_stays_relational_for_long_compared_permutations_up_to_its_own_limit() -> None:
    """magicSquare-9x9 .. 11x11 and knight's tours of 9 .. 11 (81-121 terms, 262 k-878 k pairwise clauses) are
    relational though their pairwise encoding is above `PAIRWISE_LIMIT`; beyond `RELATIONAL_PAIRWISE_LIMIT`,
    and for anything but a compared permutation, the size rule stays value-wise."""
    from csp2sat.encoders.alldifferent import PAIRWISE_LIMIT, RELATIONAL_PAIRWISE_LIMIT, choose_method

    def pairwise(terms: int) -> int:  # a permutation: every value is open to every term
        return terms * terms * (terms - 1) // 2

    for terms in (81, 100, 121):
        assert PAIRWISE_LIMIT < pairwise(terms) <= RELATIONAL_PAIRWISE_LIMIT
        assert choose_method("auto", terms, terms, pairwise(terms), compared=True) == "relational"
        assert choose_method("auto", terms, terms, pairwise(terms), compared=False) == "amo"
        assert choose_method("auto", terms, terms + 1, pairwise(terms), compared=True) == "amo"
    assert pairwise(144) > RELATIONAL_PAIRWISE_LIMIT
    assert choose_method("auto", 144, 144, pairwise(144), compared=True) == "amo"
    assert choose_method("auto", 64, 64, pairwise(64), compared=True) == "relational"  # as before


@pytest.mark.parametrize("n", [9, 20, 25])
def test_auto_alldifferent_is_value_wise_for_permutations_compared_with_nothing(n: int) -> None:
    # sudoku cells: only alldifferents and constants constrain them; the at-least-one per value decides
    def clauses(method: str, extra: str) -> int:
        rows = [[f"x{r}_{c}" for c in range(n)] for r in range(2)]
        text = "".join(f"(int {x} 1 {n})" for row in rows for x in row)
        text += "".join("(alldifferent " + " ".join(row) + ")" for row in rows)
        text += "".join(f"(alldifferent {a} {b})" for a, b in zip(*rows)) + extra
        return compile_model(csp2sat.parse(text), options={"alldifferent": method}).num_clauses

    assert clauses("auto", "(= x0_0 1)") == clauses("amo", "(= x0_0 1)") != clauses("pairwise", "(= x0_0 1)")
    # the same rows with one sum over two cells: not value-wise by this rule any more
    assert clauses("auto", "(= (+ x0_0 x1_1) 5)") != clauses("amo", "(= (+ x0_0 x1_1) 5)")


def test_direct_variable_outside_a_short_range_is_one_short_clause_per_value_of_the_range() -> None:
    """``b ∨ p < 4 ∨ p > 6`` on a direct p: ``b ∨ ¬(p = v)`` for v = 4, 5, 6 (so p = 5 alone implies b),
    not one clause listing the six other values; the answers stay the same."""
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import count_solutions
    from csp2sat.parser import parse_text

    model = check(parse_text("(int p 1 9)\n(bool b)\n(or b (< p 4) (> p 6))\n"))
    compiled = compile_model(model, options={"int": "direct"})
    eq = dict(zip(compiled.domain_values("p"), compiled.direct_literals("p")))
    (b,) = compiled.value_literals("b", True)
    clauses = {tuple(sorted(c)) for c in compiled.clauses()}
    for v in (4, 5, 6):
        assert tuple(sorted([b, -eq[v]])) in clauses
    assert not any(len(c) > 2 and b in c for c in clauses)
    assert count_solutions(compiled, model) == 9 + 6  # b true: any p; b false: p outside 4..6


def test_value_symmetry_breaking_does_not_turn_a_latin_square_relational() -> None:
    # Value precedence (added for one answer) compares the cells; the encoding goes by the file's own constraints.
    n = 20
    cells = [[f"x{r}_{c}" for c in range(n)] for r in range(n)]
    text = "".join(f"(int {x} 1 {n})" for row in cells for x in row)
    text += "".join("(alldifferent " + " ".join(row) + ")" for row in cells)
    text += "".join("(alldifferent " + " ".join(col) + ")" for col in zip(*cells))

    def clauses(method: str) -> int:
        compiled = compile_model(csp2sat.parse(text), options={"alldifferent": method}, single_answer=True)
        assert compiled.stats["symmetry_constraints"] > 0
        return compiled.num_clauses

    assert clauses("auto") == clauses("amo") < clauses("relational")


_HUGE_OBJECTIVE = ("(int x -2147483648 2147483647)\n(int y -2147483648 2147483647)\n"
                   "(= (+ (* 3 x) (* 5 y)) 2147483641)\n(< x y)\n(objective {sense} x)\n")
_HUGE_ANSWERS = "(int x -2147483648 2147483647)\n(int y 0 1)\n(>= x 5)\n"


def _cli_in_3_gb(*argv: str, timeout: float = 60) -> str:
    """The installed command's output under a 3 GB address-space limit: listing a 2^32-value domain fails it
    at once (a MemoryError, exit 9) instead of taking the machine's memory (it was OOM-killed at 24 GB)."""
    import resource
    import subprocess
    import sys
    from pathlib import Path

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    exe = Path(sys.executable).with_name("csp2sat")
    proc = subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("sense, optimum", [("maximize", 268435452), ("minimize", -2147483648)])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_objective_over_32_bits_is_optimised_without_listing_its_values(tmp_path, sense: str, optimum: int,
                                                                             jobs: str) -> None:
    path = tmp_path / "o.csp"
    path.write_text(_HUGE_OBJECTIVE.format(sense=sense))
    out = _cli_in_3_gb("solve", "-j", jobs, str(path))
    assert out.endswith("s OPTIMUM FOUND\n") and f"o {optimum}\n" in out


@pytest.mark.parametrize("argv, last", [
    (["-n", "3"], "c SOLUTIONS AT LEAST 3"), (["-n", "3", "-j", "2"], "c SOLUTIONS AT LEAST 3"),
    (["-n", "3", "-O", "enumerate=split"], "c SOLUTIONS AT LEAST 3"),
    (["-n", "3", "-O", "enumerate=propagate"], "c SOLUTIONS AT LEAST 3"),
    (["--count", "--timeout", "1"], "c SOLUTIONS AT LEAST"), (["--count", "-j", "2", "--timeout", "2"], "c SOLUTIONS AT LEAST"),
    (["--unique"], "c MULTIPLE"),
])
def test_answers_over_32_bits_are_enumerated_without_listing_the_values(tmp_path, argv: list[str], last: str) -> None:
    path = tmp_path / "n.csp"
    path.write_text(_HUGE_ANSWERS)
    out = _cli_in_3_gb("solve", *argv, str(path))
    assert [line for line in out.splitlines() if line.startswith("c ")][-1].startswith(last), out[-300:]


def test_open_values_index_and_cut_intervals_best_first() -> None:
    from csp2sat.solver import OpenValues

    intervals = ((-5, -5), (-2, 1), (4, 4), (9, 12))
    listed = [-5, -2, -1, 0, 1, 4, 9, 10, 11, 12]
    for minimise, ordered in ((True, listed), (False, listed[::-1])):
        values = OpenValues(Domain(intervals), minimise)
        assert len(values) == len(ordered) and list(values) == ordered
        assert [values[k] for k in range(-len(ordered), len(ordered))] == ordered + ordered
        assert (values.lb, values.ub) == (-5, 12)
        for v in range(-7, 15):
            better = [w for w in ordered if (w < v if minimise else w > v)]
            assert list(values.better_than(v)) == better
            assert list(values.worse_than(v)) == [w for w in ordered if (w > v if minimise else w < v)]
            assert list(values.within(v, v + 3)) == [w for w in ordered if v <= w <= v + 3]
    with pytest.raises(IndexError):
        OpenValues(Domain(intervals), True)[10]


@settings(max_examples=300, deadline=None)
@given(values=st.one_of(
    st.sets(st.integers(-8, 23), min_size=1, max_size=20),
    st.builds(lambda start, stride, count: {start + stride * i for i in range(count)},
              st.integers(-8, 8), st.sampled_from([1, 2, 3, 4, 6, 8]), st.integers(1, 6))))
def test_log_bits_admit_exactly_the_domain(values: set[int]) -> None:
    """Holes and the values above ub are cut by aligned blocks (and shared low bits fixed): every assignment of
    the bits is checked (the comparators before cost ~120 clauses per hole, 10^6 holes ran for minutes)."""
    from csp2sat.encoders.cnf import ClauseBuffer
    from csp2sat.encoders.log import _exclude_outside
    from csp2sat.syntax import Domain

    dom = Domain.of([(v, v) for v in values])
    width = max((dom.ub - dom.lb).bit_length(), 1)
    out = ClauseBuffer()
    _exclude_outside(list(range(1, width + 1)), dom.intervals, dom.lb, out)
    clauses = list(out)
    admitted = set()
    for word in range(1 << width):
        true = {j + 1 for j in range(width) if (word >> j) & 1}
        if all(any((lit > 0) == (abs(lit) in true) for lit in clause) for clause in clauses):
            admitted.add(dom.lb + word)
    assert admitted == values
    assert len(clauses) <= 2 * width * len(dom.intervals) + width
