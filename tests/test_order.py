"""Tests of the order encoding (`encoders.order`) and the alldifferent encoder, without the front end.

Each test builds domains directly, encodes one constraint, enumerates every
model projected on the order variables and compares with a Python count over
the domains.
"""

from __future__ import annotations

import itertools
import pickle

from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from csp2sat.encoders.alldifferent import at_most_one, encode_alldifferent
from csp2sat.encoders.cnf import ClauseBuffer, Pool
from csp2sat.encoders.order import OrderEncoding
from csp2sat.syntax import Domain


def _assignments(order: OrderEncoding, out: ClauseBuffer, nvars: int) -> set[tuple[int, ...]]:
    """Every assignment of the integer variables that the clauses allow."""
    solver = Solver("cadical195")
    solver.append_formula(out)
    found = set()
    while solver.solve():
        model = solver.get_model()
        true = set(lit for lit in model if lit > 0)
        values = tuple(order.decode(i, true.__contains__) for i in range(nvars))
        assert values not in found
        found.add(values)
        block = []
        for i, v in enumerate(values):
            neq = order.not_equal(i, v)
            block.extend(neq)
        solver.add_clause(block)
    return found


def _setup(domains: list[Domain]) -> tuple[OrderEncoding, Pool, ClauseBuffer]:
    pool = Pool()
    order = OrderEncoding(domains, pool)
    out = ClauseBuffer()
    order.axioms(out)
    return order, pool, out


domain_st = st.lists(st.integers(-6, 6), min_size=1, max_size=5).map(lambda vs: Domain.of([(v, v) for v in vs]))


@settings(max_examples=60, deadline=None)
@given(
    doms=st.lists(domain_st, min_size=1, max_size=3),
    coefs=st.lists(st.integers(-3, 3).filter(bool), min_size=3, max_size=3),
    c=st.integers(-15, 15),
)
def test_linear_le_has_exactly_the_solutions(doms: list[Domain], coefs: list[int], c: int) -> None:
    order, _, out = _setup(doms)
    n = len(doms)
    order.encode_le(coefs[:n], list(range(n)), c, [], out)
    expected = {vals for vals in itertools.product(*(list(d.values()) for d in doms))
                if sum(a * v for a, v in zip(coefs, vals)) <= c}
    assert _assignments(order, out, n) == expected


def test_sparse_order_variables_and_axioms() -> None:
    order, pool, out = _setup([Domain.of([(1, 1), (5, 6), (9, 9)]), Domain.range(0, 1), Domain.range(4, 4)])
    assert pool.top == 3 + 1 + 0
    assert order.le(0, 0) is False and order.le(0, 9) is True
    assert order.le(0, 4) == order.le(0, 1) == 1
    assert order.le(0, 8) == order.le(0, 6) == 3
    assert order.le(2, 4) is True and order.le(2, 3) is False
    assert out.count == 2  # p(x≤1) → p(x≤5) → p(x≤6)
    assert order.not_equal(0, 3) is None and order.not_equal(2, 4) == []
    assert _assignments(order, out, 3) == set(itertools.product([1, 5, 6, 9], [0, 1], [4]))


def test_prefix_literal_guards_every_clause() -> None:
    order, pool, out = _setup([Domain.range(0, 3), Domain.range(0, 3)])
    guard = pool.new()
    before = out.count
    order.encode_le([1, 1], [0, 1], 2, [-guard], out)
    clauses = list(out)[before:]
    assert clauses and all(-guard in cl for cl in clauses)


def test_at_most_one_ladder() -> None:
    pool = Pool(7)
    out = ClauseBuffer()
    at_most_one(list(range(1, 8)), [], pool, out)
    solver = Solver("cadical195")
    solver.append_formula(out)
    seen = set()
    while solver.solve():
        chosen = tuple(lit for lit in solver.get_model()[:7] if lit > 0)
        assert len(chosen) <= 1 and chosen not in seen
        seen.add(chosen)
        solver.add_clause([-lit for lit in solver.get_model()[:7]])
    assert len(seen) == 8  # none or exactly one of the 7


def test_alldifferent_every_method_with_offsets_and_holes() -> None:
    doms = [Domain.of([(0, 2), (5, 5)]), Domain.range(-1, 2), Domain.range(1, 3)]
    offsets = [0, 1, -1]
    expected = {vals for vals in itertools.product(*(list(d.values()) for d in doms))
                if len({v + o for v, o in zip(vals, offsets)}) == 3}
    for method in ("amo", "pairwise", "relational"):
        order, pool, out = _setup(doms)
        encode_alldifferent(order, [0, 1, 2], offsets, [], pool, out, method)
        assert _assignments(order, out, 3) == expected, method


big_domain_st = st.lists(st.integers(-40, 40), min_size=1, max_size=30).map(lambda vs: Domain.of([(v, v) for v in vs]))


@settings(max_examples=150, deadline=None)
@given(
    doms=st.lists(big_domain_st, min_size=1, max_size=3),
    coefs=st.lists(st.integers(-3, 3).filter(bool), min_size=3, max_size=3),
    c=st.integers(-120, 120),
    prefix=st.lists(st.integers(1, 5), max_size=2),
)
def test_vectorised_last_two_terms_write_the_same_clauses(doms, coefs, c, prefix) -> None:
    """numpy's rows for the last two terms of a sum (big CNFs only) are exactly the clauses of the plain loop."""
    import csp2sat.encoders.order as order_module

    saved = order_module.VECTOR_MIN_VALUES
    written = []
    try:
        order_module.VECTOR_MIN_VALUES = 1
        for vector in (False, True):
            order, _, out = _setup(doms)
            order.vectorise = vector
            order.encode_le(coefs[:len(doms)], list(range(len(doms))), c, [-p for p in prefix], out)
            written.append((out.count, list(out)))
            pickle.dumps(order)  # the encoder travels with the compiled problem to -j workers: no numpy module left
    finally:
        order_module.VECTOR_MIN_VALUES = saved
    assert written[0] == written[1]


def test_an_inverted_range_leaves_no_value() -> None:
    # bounds propagation can ask for lo > hi (a product's quotient bounds on an infeasible file); it once got
    # the interval (hi, lo) back, a non-empty domain of -1 values (found by the test below, by chance)
    for dom in (Domain.range(-10, 10), Domain.of([(2 * k, 2 * k) for k in range(20)])):
        inverted = dom.within(5, 3)
        assert inverted.is_empty() and inverted.size == 0


@settings(max_examples=400)
@given(st.lists(st.tuples(st.integers(-30, 30).map(lambda k: 2 * k), st.sampled_from([0, 0, 0, 1, 4])), max_size=40),
       st.integers(-70, 70), st.integers(-70, 70))
def test_domain_within_and_membership_agree_with_the_values(pieces: list[tuple[int, int]], lo: int, hi: int) -> None:
    # domains of more than 8 intervals (divisor sets, narrowed equations) bisect instead of scanning; even
    # starts leave holes, so that most domains drawn have that many
    dom = Domain.of([(a, a + w) for a, w in pieces])
    values = set(dom.values())
    assert sorted(dom.within(lo, hi).values()) == sorted(v for v in values if lo <= v <= hi)
    assert dom.within(lo, hi) == Domain.of([(max(a, lo), min(b, hi)) for a, b in dom.intervals])
    assert all((v in dom) == (v in values) for v in range(-72, 72))
