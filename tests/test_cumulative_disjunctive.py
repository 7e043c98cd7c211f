"""cumulative and disjunctive as Sugar 2.3.3 defines them (issue 14), through every path a user takes.

Sugar's cumulative checks the load at every time point from the least lower
bound of a task's start to the greatest upper bound of its end, minus 1 (the
bounds of the terms, not their values), so heights, durations and the limit
may be negative and a time point no task covers has load 0; disjunctive
exempts only a duration of exactly 0. Each reproducer of the issue is solved,
counted, enumerated and explained through the command line, and checked by
the evaluator; the expected answers are also recomputed by brute force.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import csp2sat
from bruteforce import brute_force
from cli_support import run_cli
from csp2sat.evaluator import satisfies

# (file text, expected status, number of solutions): the four rows of issue 14, then siblings.
ROWS = [
    # At time 1 only the first task runs: load 3 > 2 (the second task's -1 has ended).
    ("(cumulative ((0 2 2 3) (0 1 1 -1)) 2)\n", "UNSATISFIABLE", 0),
    # No time point to check (start 0, end 0): nothing can exceed the limit.
    ("(cumulative ((0 0 0 1)) -1)\n", "SATISFIABLE", 1),
    # Time points 0..2; whatever s is, some of them is covered by no task: load 0 > -1.
    ("(int s 0 2) (cumulative ((s 1 nil -5)) -1)\n", "UNSATISFIABLE", 0),
    # Only a duration of exactly 0 is exempt: 2 + -1 > -2 and -2 + 5 > 2.
    ("(disjunctive ((2 -1) (-2 5)))\n", "UNSATISFIABLE", 0),
]
SIBLINGS = [
    # A negative height lowers the load only while its task runs.
    ("(int s 0 3) (int h -2 2) (cumulative ((s 2 nil h) (1 2 nil 2)) 1)\n", None, None),
    # A variable limit that may be negative; a task given by start and end only.
    ("(int a 0 2) (int b 0 3) (int c -1 1) (cumulative ((a nil b 1) (nil 1 b -1)) c)\n", None, None),
    # Negative and zero durations in disjunctive.
    ("(int o 0 3) (int d -1 1) (disjunctive ((o d) (1 2) (2 0)))\n", None, None),
    # A cumulative in a predicate: its time points come from the bounds of the call's arguments.
    ("(int x 0 1) (int y 0 3) (predicate (p s) (cumulative ((s 1 nil -1)) -1)) (p x) (or (p y) (= y 0))\n", None, None),
    # Two calls whose arguments have the same domain after tightening but not the same declared one.
    ("(int x 0 5) (int y 0 0) (<= x 0) (predicate (p s) (cumulative ((s 1 nil -1)) -1)) (p y) (p x)\n",
     "UNSATISFIABLE", 0),
    # An empty list of tasks holds whatever the limit.
    ("(int x -1 1) (cumulative () x)\n", "SATISFIABLE", 3),
]


def _write(tmp_path: Path, text: str, name: str = "t.csp") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _expected(text: str, status: str | None, count: int | None) -> tuple[str, int, set]:
    found = brute_force(csp2sat.parse(text))
    if status is not None:
        assert (found.status, found.count) == (status, count), "the reference disagrees with the issue"
    return found.status, found.count, {tuple(sorted(d.items())) for d in found.as_dicts()}


@pytest.mark.parametrize("text,status,count", ROWS + SIBLINGS)
def test_solve_count_all_and_evaluator_agree_with_sugar(
    tmp_path: Path, capsys: pytest.CaptureFixture, text: str, status: str | None, count: int | None
) -> None:
    status, count, answers = _expected(text, status, count)
    path = _write(tmp_path, text)
    code, out, err = run_cli(capsys, "solve", str(path))
    assert code == 0, err
    assert out.splitlines()[0] == f"s {status}"

    code, out, _ = run_cli(capsys, "solve", "--count", str(path))
    assert code == 0 and out.splitlines()[-1] == f"c SOLUTIONS {count}"

    code, out, _ = run_cli(capsys, "solve", "--all", str(path))
    assert code == 0
    enumerated, current = set(), []
    for line in out.splitlines():
        if line.startswith("a ") and "\t" in line:
            name, value = line[2:].split("\t")
            current.append((name, int(value)))
        elif line == "a":
            enumerated.add(tuple(sorted(current)))
            current = []
    assert enumerated == answers

    # The evaluator on its own: exactly the brute-force answers satisfy the model.
    model = csp2sat.parse(text)
    for answer in answers:
        assert satisfies(model, dict(answer))


def test_evaluator_rejects_what_the_old_reading_accepted() -> None:
    assert not satisfies(csp2sat.parse(ROWS[0][0]), {})
    assert satisfies(csp2sat.parse(ROWS[1][0]), {})
    row3 = csp2sat.parse(ROWS[2][0])
    assert not any(satisfies(row3, {"s": s}) for s in range(3))
    assert not satisfies(csp2sat.parse(ROWS[3][0]), {})
    # The time points come from the declared bounds: with s fixed, the only point is covered.
    assert satisfies(csp2sat.parse("(int s 1 1) (cumulative ((s 1 nil -5)) -1)"), {"s": 1})


@pytest.mark.parametrize("text,status,count", ROWS)
def test_explain_names_the_line_only_when_unsatisfiable(
    tmp_path: Path, capsys: pytest.CaptureFixture, text: str, status: str, count: int
) -> None:
    path = _write(tmp_path, "(int z 0 1)\n" + text)
    code, out, err = run_cli(capsys, "explain", str(path))
    assert code == 0, err
    if status == "SATISFIABLE":
        assert "satisfiable, nothing to explain" in out
    else:
        constraint = text[text.index("(cumulative" if "(cumulative" in text else "(disjunctive"):].strip()
        assert out.splitlines()[1:] == [f"{path}:2: {constraint}"]


def test_long_horizon_with_negative_heights_checks_starts_and_ends(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # 0..99 is too long to check point by point: the load is checked where tasks start and end.
    text = "(int a 0 90) (int b 0 90) (cumulative ((a 10 nil 3) (b 5 nil -1)) 2)\n(= a 40)\n"
    model = csp2sat.parse(text)
    code, out, _ = run_cli(capsys, "solve", "--count", str(_write(tmp_path, text)))
    # b must cover 40..49 all the time: b + 5 > 49 and b <= 40, so b = 40 is impossible (45..49 uncovered).
    assert out.splitlines()[-1] == "c SOLUTIONS 0"
    assert not any(satisfies(model, {"a": 40, "b": b}) for b in range(91))
    text2 = "(int a 0 90) (int b 0 90) (cumulative ((a 10 nil 3) (b 10 nil -1)) 2)\n(= a 40)\n"
    code, out, _ = run_cli(capsys, "solve", "--all", str(_write(tmp_path, text2)))
    assert "a b\t40" in out.splitlines() and out.splitlines()[-1] == "c SOLUTIONS 1"
