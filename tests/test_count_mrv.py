"""The two study enumerators of benchmarks/count_mrv.py (first-fail on hidden variables through IPASIR-UP
decisions, adaptive cube-and-conquer) count exactly: the same answers as brute force, each once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import count_mrv  # noqa: E402


@pytest.mark.parametrize("method", ["mrv-decide", "cube-conquer"])
def test_study_enumerators_equal_brute_force_on_random_csps(method: str) -> None:
    from bruteforce import brute_force
    from csp_strategies import csp_texts

    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.parser import parse_text

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(csp_texts())
    def run(text: str) -> None:
        model = check(parse_text(text))
        assume(getattr(model, "objective", None) is None)  # the study enumerates satisfying answers only
        expected = brute_force(model)
        compiled = compile_model(model)
        if method == "mrv-decide":
            row = count_mrv.mrv_decide(compiled, model, 64, None)
        else:  # a budget of 1 conflict forces splits on hidden variables too
            row = count_mrv.cube_conquer(compiled, model, 64, 1, "glucose4", None)
        assert row["answers"] == row["distinct"] == len(expected.answers), text
        assert set(row["found"]) == set(expected.answers), text

    run()


def test_expand_intervals_keeps_the_meaning() -> None:
    text = "(int p 1 9)\n(bool b)\n(iff b (or (= p 1) (and (<= 3 p) (<= p 5))))\n"
    assert count_mrv.expand_intervals(text) == (
        "(int p 1 9)\n(bool b)\n(iff b (or (= p 1) (or (= p 3) (= p 4) (= p 5))))\n"
    )
