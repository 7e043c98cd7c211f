"""benchmarks/fuzz_cpsat.py: its random files are reproducible from their seeds and valid Sugar, and (with
OR-tools installed) csp2sat and CP-SAT agree on a few of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import csp2sat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import fuzz_cpsat  # noqa: E402
import presolve  # noqa: E402


def test_every_seed_gives_one_valid_file() -> None:
    for seed in range(60):
        text = fuzz_cpsat.sugar_text(*fuzz_cpsat.draw(seed))
        assert text == fuzz_cpsat.sugar_text(*fuzz_cpsat.draw(seed))
        csp2sat.parse(text)  # raises CspError on anything the front end rejects


@pytest.mark.parametrize("seed, case", [(292, "product_shared_factor"), (1099, "extremum_product_offset"),
                                        (1197, "square_bounds_crawl")])
def test_the_presolve_cases_come_from_their_seeds(seed: int, case: str) -> None:
    stored = (presolve.CASES / f"{case}.csp").read_text(encoding="utf-8")
    lines = [line for line in stored.splitlines() if not line.startswith(";")]
    assert fuzz_cpsat.sugar_text(*fuzz_cpsat.draw(seed, tight_every=0)).splitlines() == lines


def test_csp2sat_and_cpsat_agree_on_a_few_seeds(tmp_path: Path) -> None:
    pytest.importorskip("ortools")
    command = [sys.executable, "-m", "csp2sat"]
    for seed in (1, 2, 7, 292):
        record = fuzz_cpsat.run_seed(seed, command, 30, tmp_path)
        assert record["verdict"] == "ok", record
