"""The per-variable choice of the direct encoding (`-O int=mixed`, `compiler._choose_direct`).

Which integers qualify (used only against constants, 3 to `DIRECT_MAX_VALUES` values, never in a
sum, an alldifferent or as the objective), and that a qualifying variable is encoded right: every
answer of files built from the shapes the puzzle generators write (memberships, exclusions,
equivalences with Booleans) against brute force, with a check that this comparison does catch
a direct literal off by one value.
"""

from __future__ import annotations

import pytest

import csp2sat
from bruteforce import brute_force
from csp2sat import compiler
from csp2sat.compiler import DIRECT_MAX_VALUES, compile_model
from csp2sat.diagnostics import CspError
from csp2sat.enumerate import open_space

RULES = f"""
(int cell 1 12)
(int place 1 {DIRECT_MAX_VALUES + 1})
(int s 0 5) (int t 0 5)
(int a 0 3) (int b 0 3)
(int obj 0 4)
(int flag 0 1)
(int idle 0 9)
(bool p)
(or (= cell 1) (= cell 4) (and (<= 6 cell) (<= cell 8)))
(iff p (!= cell 5))
(iff (= cell 2) (or (= place 1) (= place 7)))
(<= (+ s t) 7)
(!= s 3)
(alldifferent a b)
(!= a 2)
(!= obj 2)
(iff p (= flag 1))
(objective minimize obj)
"""


def _direct_names(text: str, choice: str) -> set[str]:
    compiled = compile_model(csp2sat.parse(text), options={"int": choice})
    return {name for name in compiled.model.int_vars if compiled.direct_literals(name) is not None}


def test_mixed_chooses_the_variables_used_only_against_constants() -> None:
    # cell: memberships, an exclusion, equalities -> direct. place: too many values. s, t: in a sum.
    # a, b: alldifferent. obj: the objective. flag: two values (one Boolean already). idle: unused.
    assert _direct_names(RULES, "mixed") == {"cell"}
    assert _direct_names(RULES, "order") == set()
    assert _direct_names(RULES, "direct") >= {"cell", "place", "s", "t", "a", "b", "obj", "idle"}


def test_auto_is_order_or_mixed() -> None:
    expected = set() if compiler.AUTO_INT == "order" else {"cell"}
    assert _direct_names(RULES, "auto") == expected


# Shapes of the generated puzzle files: "cell (R, C) is piece K's iff the piece's placement is one of
# these" (memberships of one value, of intervals, of several), "cells differ", bounds and exclusions
# inside clauses with Booleans.
PUZZLE_LIKE = """
(int c1 1 4) (int c2 1 4) (int c3 (1 2 4 5))
(int p1 1 9) (int p2 1 7)
(bool q)
(iff (= c1 1) (or (= p1 1) (and (<= 3 p1) (<= p1 5))))
(iff (= c2 1) (or (and (<= 2 p1) (<= p1 3)) (= p1 8)))
(iff (= c1 2) (and (<= 1 p2) (<= p2 2)))
(iff (= c2 2) (or (= p2 2) (and (<= 4 p2) (<= p2 6))))
(iff (= c3 2) (or (= p2 3) (= p2 7)))
(or (!= c1 3) (= c2 4) q)
(imp q (and (<= 2 c3) (<= c3 4)))
(or (< p1 3) (> p1 6) (= c3 5))
(!= c3 4)
(or (= c1 3) (= c2 3) (= c3 1))
"""


def _answers(text: str, options: dict[str, str]) -> tuple[set[tuple], set[str]]:
    model = csp2sat.parse(text)
    compiled = compile_model(model, options=options)
    printed = [v.name for v in model.printed_int_vars()] + [model.bool_key(b.name) for b in model.printed_bool_vars()]
    found: set[tuple] = set()
    with open_space(compiled, model) as space:
        for answer in space.solutions():
            found.add(tuple(answer[k] for k in printed))
    direct = {name for name in model.int_vars if compiled.direct_literals(name) is not None}
    return found, direct


def test_qualifying_variables_are_direct_and_keep_every_answer() -> None:
    expected = brute_force(csp2sat.parse(PUZZLE_LIKE)).answers
    assert expected  # a file with answers, else the comparison says little
    found, direct = _answers(PUZZLE_LIKE, {"int": "mixed"})
    assert direct == {"c1", "c2", "c3", "p1", "p2"}
    assert found == expected
    assert _answers(PUZZLE_LIKE, {"int": "order"})[0] == expected


def test_the_comparison_catches_a_direct_literal_off_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # A mis-encoded qualifying variable (its value indices shifted by one in the clauses that name
    # it) must be caught: by the answers differing or by the evaluator refusing one on the way.
    original = compiler.OrderEncoding.index_range

    def shifted(self, var: int, coef: int, c: int) -> tuple[int, int]:
        lo, hi = original(self, var, coef, c)
        if not self.is_direct(var):
            return lo, hi
        n = len(self.values[var])
        return min(lo + 1, n), min(hi + 1, n)

    monkeypatch.setattr(compiler.OrderEncoding, "index_range", shifted)
    expected = brute_force(csp2sat.parse(PUZZLE_LIKE)).answers
    with pytest.raises((CspError, AssertionError)):
        assert _answers(PUZZLE_LIKE, {"int": "mixed"})[0] == expected


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_counts_with_mixed(tmp_path, capsys, jobs: str) -> None:
    # As users run it: -O int=mixed on the command line, counting (blocking clauses over direct
    # literals), and with -j 2 (a copy of the compiled problem sent to the workers).
    from tests.cli_support import run_cli

    path = tmp_path / "member.csp"
    path.write_text("(int x 1 9)\n(bool b)\n(iff b (or (= x 2) (and (<= 5 x) (<= x 7))))\n(!= x 6)\n")
    status, out, _ = run_cli(capsys, "solve", "--count", "-j", jobs, "-O", "int=mixed", str(path))
    assert status == 0 and out.strip().splitlines()[-1] == "c SOLUTIONS 8"
