"""benchmarks/fuzz_sugar.py: its files are reproducible and valid, and its verdicts tell who is wrong (Sugar itself
is not needed: csp2sat and small scripts stand in for the two sides)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import csp2sat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import fuzz_sugar  # noqa: E402

CSP2SAT = [sys.executable, "-m", "csp2sat", "solve"]
SATISFIABLE = "(int x 1 3)\n(int y 1 3)\n(< x y)\n"


def _script(folder: Path, name: str, body: str) -> list[str]:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return [str(path)]


def test_the_same_seed_draws_the_same_valid_files() -> None:
    texts = fuzz_sugar.draw_texts(8, seed=3)
    assert texts == fuzz_sugar.draw_texts(8, seed=3) and len(texts) == 8
    for text in texts:
        csp2sat.parse(text)


def test_sugars_log_is_read_as_status_objective_and_last_answer() -> None:
    log = "s SATISFIABLE\no 5\na x\t1\na p\ttrue\na\no 3\na x\t2\na p\tfalse\na\ns OPTIMUM FOUND\n"
    assert fuzz_sugar.read_log(log) == {"status": "OPTIMUM FOUND", "objective": 3, "answer": {"x": "2", "p": "false"}}


@pytest.mark.parametrize("text", fuzz_sugar.draw_texts(4, seed=11) + [SATISFIABLE])
def test_two_right_answers_are_ok(tmp_path: Path, text: str) -> None:
    assert fuzz_sugar.judge(text, CSP2SAT, CSP2SAT, 60, tmp_path)["verdict"] == "ok"


def test_each_wrong_side_is_named(tmp_path: Path) -> None:
    unsat = _script(tmp_path, "unsat", 'echo "s UNSATISFIABLE"')
    not_a_solution = _script(tmp_path, "bad", 'printf "s SATISFIABLE\\na x\\t3\\na y\\t1\\na\\n"')
    refuses = _script(tmp_path, "refuses", 'echo "$1:1:1: error: no" >&2; exit 4')
    assert fuzz_sugar.judge(SATISFIABLE, CSP2SAT, unsat, 60, tmp_path)["verdict"] == "SUGAR"
    assert fuzz_sugar.judge(SATISFIABLE, unsat, CSP2SAT, 60, tmp_path)["verdict"] == "WRONG"
    assert fuzz_sugar.judge(SATISFIABLE, not_a_solution, CSP2SAT, 60, tmp_path)["verdict"] == "WRONG"
    assert fuzz_sugar.judge(SATISFIABLE, refuses, CSP2SAT, 60, tmp_path)["verdict"] == "REFUSED"
    assert fuzz_sugar.judge(SATISFIABLE, CSP2SAT, refuses, 60, tmp_path)["verdict"] == "skip"
    sleeps = _script(tmp_path, "sleeps", "sleep 30")
    assert fuzz_sugar.judge(SATISFIABLE, sleeps, CSP2SAT, 1, tmp_path)["verdict"] == "SLOW"
