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


def _queens(n: int) -> str:
    """Sugar's n-queens model (tests/conformance/sugar-examples/nqueens-8.csp's shape)."""
    qs = [f"q_{i}" for i in range(1, n + 1)]
    return "".join(f"(int {q} 1 {n})\n" for q in qs) + (
        f"(alldifferent {' '.join(qs)})\n"
        f"(alldifferent {' '.join(f'(+ {q} {i})' for i, q in enumerate(qs, 1))})\n"
        f"(alldifferent {' '.join(f'(- {q} {i})' for i, q in enumerate(qs, 1))})\n")


@pytest.mark.parametrize("choice, direct", [("auto", 80), ("mixed", 80), ("order", 0), ("direct", 80)])
def test_placement_alldifferent_terms_are_one_hot(choice: str, direct: int) -> None:
    """80 queens: the diagonals spread 80 terms over 159 values and are value-wise (pairwise over its
    limit), over variables that meet nothing else, so `auto` makes the queens one-hot; 12 queens'
    diagonals stay pairwise and the queens in the order encoding."""
    compiled = compile_model(csp2sat.parse(_queens(80)), options={"int": choice})
    assert compiled.stats["direct_vars"] == direct
    assert compiled.stats["alldifferent_placement"] == 2
    small = compile_model(csp2sat.parse(_queens(12)), options={"int": choice})
    assert small.stats["alldifferent_placement"] == 0
    assert small.stats["direct_vars"] == (12 if choice == "direct" else 0)


def test_compared_or_objective_terms_are_not_placed() -> None:
    """A queen compared with another variable, or the objective, keeps the order encoding (and the
    alldifferents with a compared term are no placement)."""
    compiled = compile_model(csp2sat.parse(_queens(80) + "(int k 1 80)\n(< q_1 k)\n"))
    assert compiled.stats["direct_vars"] == 0
    compiled = compile_model(csp2sat.parse(_queens(80) + "(objective minimize q_3)\n"))
    assert compiled.stats["direct_vars"] == 79
    assert compiled.direct_literals("q_3") is None and compiled.direct_literals("q_4") is not None


def test_placement_sweep_counts_values_and_pairs_as_value_by_value() -> None:
    """`placement_variables` counts an alldifferent's values and pairwise clauses over the domains'
    intervals; the same rule counted value by value (as the encoder does) marks the same terms,
    on random alldifferents with holes in the domains and offsets, around the pairwise limit."""
    import random

    from csp2sat.encoders.alldifferent import choose_method
    from csp2sat.normalise import normalise

    rng = random.Random(5)
    placed = 0
    for trial in range(60):
        n = rng.randint(2, 9)
        lines = []
        for i in range(n):
            pieces = sorted(rng.sample(range(0, 30), 4))
            lines.append(f"(int x{i} (({pieces[0]} {pieces[1]}) ({pieces[2]} {pieces[3]})))")
        terms = " ".join(f"(+ x{i} {rng.randint(-5, 5)})" for i in range(n))
        model = csp2sat.parse("\n".join(lines) + f"\n(alldifferent {terms})\n")
        normal = normalise(model)
        compared = normal.compared_variables()
        limit = rng.choice([1, 5, 20, 60, 150_000])
        expected = [False] * len(normal.int_domains)
        for ad in normal.alldiffs:
            by_value: dict[int, int] = {}
            for x, o in zip(ad.vars, ad.offsets):
                for lo, hi in normal.int_domains[x].intervals:
                    for w in range(lo + o, hi + o + 1):
                        by_value[w] = by_value.get(w, 0) + 1
            pairwise = sum(t * (t - 1) // 2 for t in by_value.values())
            if (len(by_value) > len(ad.vars) and not any(compared[v] for v in ad.vars)
                    and choose_method("auto", len(ad.vars), len(by_value), pairwise, False, limit) == "amo"):
                for v in ad.vars:
                    expected[v] = True
        original = compiler.choose_method
        try:
            compiler.choose_method = lambda m, t, v, p, c: original(m, t, v, p, c, limit)
            got = compiler.placement_variables(normal, [False] * len(normal.int_domains), compared)
        finally:
            compiler.choose_method = original
        assert got == expected, (trial, model)
        placed += any(expected)
    assert 0 < placed < 60  # both outcomes were compared


@pytest.mark.parametrize("seed", range(6))
def test_one_hot_alldifferent_terms_keep_every_answer(seed: int) -> None:
    """Value-wise alldifferents over one-hot terms with offsets, over whole ranges (whose literals the
    encoder finds by addition) and ranges with holes (by lookup): every answer, against brute force."""
    import random

    rng = random.Random(seed)
    lines = []
    for i in range(4):
        lo = rng.randint(-2, 2)
        if rng.random() < 0.5:
            lines.append(f"(int x{i} {lo} {lo + rng.randint(2, 4)})")
        else:
            lines.append(f"(int x{i} (({lo} {lo + 1}) {lo + 3} ({lo + 5} {lo + 6})))")
    terms = " ".join(f"(+ x{i} {rng.randint(-2, 2)})" for i in range(4))
    text = "\n".join(lines) + f"\n(alldifferent {terms})\n(alldifferent x0 x1 x2)\n"
    expected = brute_force(csp2sat.parse(text)).answers
    assert expected
    for options in ({"int": "direct", "alldifferent": "amo"}, {"int": "direct", "alldifferent": "pairwise"}):
        found, direct = _answers(text, options)
        assert direct == {"x0", "x1", "x2", "x3"} and found == expected, options
