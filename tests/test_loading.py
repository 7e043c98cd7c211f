"""Tests of the "load" stage: `ClauseBuffer` iteration (chunk- and run-wise) and `csp2sat.loading.load_clauses`.

* a buffer bigger than one chunk, of runs of every length (short and long runs,
  empty clauses, clauses longer than a chunk), iterates to exactly the clauses added;
* `load_clauses` gives every solver csp2sat offers the same formula as PySAT's
  own `append_formula` (same answers on a satisfiable and an unsatisfiable CNF);
  the solvers csp2sat picks by default take the native path, so a PySAT that
  renames its calls fails here instead of silently loading slowly.
"""

from __future__ import annotations

import random

import pytest
from pysat.solvers import Solver

from csp2sat.encoders import cnf
from csp2sat.encoders.cnf import ClauseBuffer
from csp2sat.loading import NATIVE_ADD, load_clauses, native_adder
from csp2sat.solver import _aliases, usable_solvers


def _random_clauses(seed: int, count: int) -> list[list[int]]:
    rng = random.Random(seed)
    clauses = []
    while len(clauses) < count:
        length = rng.choice([0, 1, 2, 2, 3, 3, 3, 4, 7, 40])
        run = rng.choice([1, 2, 5, cnf.MIN_RUN - 1, cnf.MIN_RUN, 300])
        for _ in range(run):
            clauses.append([rng.choice([-1, 1]) * rng.randint(1, 5000) for _ in range(length)])
    return clauses


@pytest.mark.parametrize("seed", [1, 2])
def test_a_buffer_of_several_chunks_iterates_to_its_clauses(monkeypatch, seed: int) -> None:
    monkeypatch.setattr(cnf, "CHUNK", 4096)  # many chunks, so clauses and runs straddle their edges
    monkeypatch.setattr(cnf, "ROWS", 7)  # and a long run is turned into lists in several blocks
    clauses = _random_clauses(seed, 20_000)
    clauses.insert(7_000, list(range(1, 10_000)))  # longer than a chunk: a chunk of its own
    buf = ClauseBuffer()
    for clause in clauses:
        buf.add(clause)
    assert len(buf.lits) > 10 * cnf.CHUNK
    assert list(buf) == clauses
    buf.add([5, -6])  # the iteration left no view of the buffer behind: it still grows
    assert list(buf)[-1] == [5, -6]


def test_the_default_solvers_load_natively() -> None:
    for name in ("glucose4", "cadical195", "minisat22"):
        sat = Solver(name=_aliases()[name][0])
        try:
            assert native_adder(sat) is not None, name
        finally:
            sat.delete()


@pytest.mark.parametrize("name", usable_solvers())
def test_every_solver_gets_the_same_formula_as_append_formula(name: str) -> None:
    rng = random.Random(3)
    satisfiable = [[rng.choice([-1, 1]) * rng.randint(1, 30) for _ in range(3)] for _ in range(60)]
    unsatisfiable = [[1, 2], [1, -2], [-1, 2], [-1, -2]] + satisfiable
    for clauses in (satisfiable, unsatisfiable):
        answers = []
        for load in (load_clauses, lambda sat, cls: sat.append_formula(cls)):
            sat = Solver(name=_aliases()[name][0])
            try:
                if type(getattr(sat, "solver", None)).__name__ in NATIVE_ADD:
                    assert native_adder(sat) is not None, name  # the table names its handle right
                load(sat, iter(clauses))
                found = sat.solve()
                model = sat.get_model() if found else None
            finally:
                sat.delete()
            if model is not None:
                true = set(model)
                assert all(any(lit in true for lit in clause) for clause in clauses)
            answers.append(found)
        assert answers[0] == answers[1] == (clauses is satisfiable), name


def test_an_inconsistent_formula_is_marked_as_append_formula_marks_it() -> None:
    sat = Solver(name="glucose4")
    try:
        load_clauses(sat, [[1], [-1], [2, 3]])
        assert sat.solver.status is False
    finally:
        sat.delete()


def test_the_native_calls_named_exist_in_this_pysat() -> None:
    import pysolvers
    from pysat import solvers

    for cls, (_, call) in NATIVE_ADD.items():
        compiled_in = hasattr(pysolvers, call.rsplit("_", 2)[0] + "_new")
        if hasattr(solvers, cls) and compiled_in:
            assert hasattr(pysolvers, call), (cls, call)
