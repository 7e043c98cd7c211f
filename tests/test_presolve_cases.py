"""The presolve cases of benchmarks/presolve/ (issue 10): each file is decided, and benchmarks/presolve.py
reads the answer and the CNF size of a fresh `csp2sat solve -v` run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import csp2sat
from csp2sat.compiler import compile_model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import presolve  # noqa: E402

CASES = sorted(presolve.CASES.glob("*.csp"))


def test_the_cases_are_there() -> None:
    assert {p.stem for p in CASES} >= {"product_prime", "product_semiprime", "two_wide_equation", "comparison_split",
                                       "function_product", "quotient_pieces"}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_each_case_compiles(path: Path) -> None:
    assert compile_model(csp2sat.parse(path)).num_clauses > 0


def test_the_benchmark_reads_a_fresh_run() -> None:
    row = presolve.run_case(presolve.CASES / "product_prime.csp", [sys.executable, "-m", "csp2sat"], 30)
    assert row["status"] == "UNSATISFIABLE" and row["clauses"] == "1"
    row = presolve.run_case(presolve.CASES / "two_wide_equation.csp", [sys.executable, "-m", "csp2sat"], 30)
    assert row["status"] == "SATISFIABLE" and int(row["clauses"].replace(",", "")) < 1_000


@pytest.mark.parametrize("name", ["product_shared_factor", "extremum_product_offset"])
def test_products_with_a_common_factor_leave_no_multiplier(name: str) -> None:
    # x2·x0 > 100·x2 is decided by x2's sign; x1·x4 > x1·x2 - 47 with x1 ≥ 796,904 is x4 ≥ x2
    compiled = compile_model(csp2sat.parse(presolve.CASES / f"{name}.csp"), single_answer=True)
    assert compiled.stats["aux_int_vars"] == 0


def test_tables_wait_for_the_sums_fixpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    # x1 < x2 ∧ x2 = x1 narrows one value a round; the square's table (2,001 values) was read every round
    from csp2sat import normalise

    calls = []
    original = normalise._image
    monkeypatch.setattr(normalise, "_image", lambda values: calls.append(1) or original(values))
    assert csp2sat.solve(csp2sat.parse(presolve.CASES / "square_bounds_crawl.csp")).status == "UNSATISFIABLE"
    assert len(calls) < 50
