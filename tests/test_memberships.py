"""The normaliser's memberships: an `or` of intervals of one variable as one clause of equality Booleans
(`Normaliser._memberships`), and ``x < a ∨ x > b`` of such a variable as ``x ≠ v`` (`_exclusions`).

Checked against brute force on random small problems, and for the shape of the clauses.
"""

from __future__ import annotations

import itertools
import random

import pytest
from pysat.solvers import Solver

import csp2sat
import csp2sat.normalise as normalise_module
from csp2sat.compiler import compile_model
from csp2sat.normalise import normalise

MEMBERSHIP = "(int p 1 30)(int c 1 3)(iff (= c 2) (or (and (<= 3 p) (<= p 5)) (and (<= 9 p) (<= p 11)) (= p 20)))"


def _widest_boolean_clause(text: str) -> int:
    return max(sum(1 for lit in clause if isinstance(lit, int)) for clause in normalise(csp2sat.parse(text)).clauses)


def test_intervals_of_one_variable_become_one_clause_of_values(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3 + 3 + 1 values: one clause "c ≠ 2 or p is one of them" with a Boolean per value.
    assert _widest_boolean_clause(MEMBERSHIP) >= 7
    monkeypatch.setattr(normalise_module, "MEMBER_MAX_VALUES", 0)
    assert _widest_boolean_clause(MEMBERSHIP) < 7


def test_too_many_values_stay_intervals() -> None:
    text = "(int p 1 300)(int c 1 3)(iff (= c 2) (or (and (<= 3 p) (<= p 50)) (and (<= 90 p) (<= p 140))))"
    assert _widest_boolean_clause(text) < 4


def _count(text: str) -> int:
    model = csp2sat.parse(text)
    compiled = compile_model(model)
    names = [v for v in model.int_vars] + [model.bool_key(b) for b in model.bool_vars]
    count = 0
    with Solver("cadical195") as solver:
        compiled.load(solver)
        while solver.solve():
            values = compiled.decode(solver.get_model())
            solver.add_clause(compiled.block_clause({n: values[n] for n in names}))
            count += 1
    return count


def _interval(rnd: random.Random, var: str) -> tuple[str, set[int]]:
    lo = rnd.randint(1, 9)
    hi = rnd.randint(lo, min(lo + 3, 9))
    if rnd.random() < 0.2:
        return f"(= {var} {lo})", {lo}
    return f"(and (<= {lo} {var}) (<= {var} {hi}))", set(range(lo, hi + 1))


@pytest.mark.parametrize("seed", range(25))
def test_solution_count_equals_brute_force(seed: int) -> None:
    rnd = random.Random(seed)
    text = "(int p 1 9)(int q 1 9)(int c 1 3)(bool b)"
    rules = []  # (text, test of (p, q, c, b))
    for _ in range(rnd.randint(2, 4)):
        var = rnd.choice("pq")
        parts = [_interval(rnd, var) for _ in range(rnd.randint(2, 4))]
        member = set().union(*(s for _, s in parts))
        formula = f"(or {' '.join(t for t, _ in parts)})"
        kind = rnd.choice(["iff", "imp", "not", "or"])
        k = rnd.randint(1, 3)
        if kind == "iff":
            rules.append((f"(iff (= c {k}) {formula})",
                          lambda e, var=var, member=member, k=k: (e["c"] == k) == (e[var] in member)))
        elif kind == "imp":
            rules.append((f"(or (! b) {formula})", lambda e, var=var, member=member: not e["b"] or e[var] in member))
        elif kind == "not":
            rules.append((f"(or b (not {formula}))", lambda e, var=var, member=member: e["b"] or e[var] not in member))
        else:  # an exclusion written as bounds, after the memberships of the same variable
            lo, hi = sorted(rnd.sample(range(2, 9), 2))
            rules.append((f"(or (= c {k}) (< {var} {lo}) (> {var} {hi}))",
                          lambda e, var=var, lo=lo, hi=hi, k=k: e["c"] == k or not lo <= e[var] <= hi))
    text += "".join(r for r, _ in rules)
    brute = 0
    for p, q, c, b in itertools.product(range(1, 10), range(1, 10), range(1, 4), (False, True)):
        env = {"p": p, "q": q, "c": c, "b": b}
        brute += all(test(env) for _, test in rules)
    assert _count(text) == brute, text
