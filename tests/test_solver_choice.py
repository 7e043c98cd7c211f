"""`csp2sat solve --solver auto` (the default): the SAT solver picked per problem (csp2sat.solver.choose_solver).

The choice changes only how the answer is searched for, so the answers must be
right whichever solver is picked; these tests check which solver each kind of
problem gets (the `c search` line of -v must name the solver that really ran)
and that an explicit --solver is obeyed.
"""

from __future__ import annotations

import re

import pytest

import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.solver import DECISION_SOLVER, DEFAULT_SOLVER, PLACEMENT_SOLVER, Search, choose_solver
from tests.cli_support import run_cli

PERMUTATION = "(int x 1 3)(int y 1 3)(int z 1 3)(alldifferent x y z)(< x y)(< y z)"  # 1 2 3 only
SPREAD = "(int x 1 5)(int y 1 5)(alldifferent x y)(> x 3)"  # 2 terms over 5 values: many answers
PLAIN = "(int x 0 9)(int y 0 9)(= (+ x y) 17)(> x y)"  # x=9, y=8 only
OBJECTIVE = "(int x 0 5)(int y 0 5)(>= (+ x y) 4)(<= y 3)(objective minimize x)"  # x=1, y=3 only


@pytest.mark.parametrize("text, expected", [(PERMUTATION, DECISION_SOLVER), (PLAIN, DECISION_SOLVER),
                                            (SPREAD, DEFAULT_SOLVER), (OBJECTIVE, DECISION_SOLVER)])
def test_auto_picks_by_problem(text: str, expected: str) -> None:
    model = csp2sat.parse(text)
    compiled = compile_model(model)
    assert choose_solver(model, compiled) == expected
    search = Search(model, compiled, solver="auto")
    try:
        search.run()
        assert search.stats["solver"] == expected
    finally:
        search.close()


@pytest.mark.parametrize("text, expected, answer", [
    (PERMUTATION, DECISION_SOLVER, ["a x\t1", "a y\t2", "a z\t3"]),
    (SPREAD, DEFAULT_SOLVER, ["s SATISFIABLE"]),  # any answer (each is checked by the evaluator)
    (PLAIN, DECISION_SOLVER, ["a x\t9", "a y\t8"]),
    (OBJECTIVE, DECISION_SOLVER, ["a x\t1", "a y\t3"]),
])
def test_command_line_names_the_solver_that_ran(tmp_path, capsys: pytest.CaptureFixture, text: str,
                                                expected: str, answer: list[str]) -> None:
    path = tmp_path / "p.csp"
    path.write_text(text)
    status, out, err = run_cli(capsys, "solve", "-v", str(path))
    assert status == 0 and set(answer) <= set(out.splitlines())
    assert re.search(rf"^c search     {expected}\b.*, [\d,]+ conflicts$", err, re.M)
    status, out, err = run_cli(capsys, "solve", "-v", "--solver", "minisat22", str(path))
    assert status == 0 and set(answer) <= set(out.splitlines())
    assert re.search(r"^c search     minisat22\b", err, re.M)


@pytest.mark.parametrize("extra, options, expected", [
    ("", {"alldifferent": "amo"}, PLACEMENT_SOLVER),  # a placement: value-wise, spread, met by nothing else
    ("", {}, DEFAULT_SOLVER),  # pairwise (small): only spread
    ("(objective minimize y)", {"alldifferent": "amo"}, DEFAULT_SOLVER),  # with an objective: spread only
    ("", {"alldifferent": "amo", "satmode": "focus"}, DEFAULT_SOLVER),  # asks for CaDiCaL's mode
])
def test_auto_gives_placement_alldifferents_minisat(extra: str, options: dict, expected: str) -> None:
    """n-queens 60-1000, one-hot: MiniSat 2.2 took 0.3-23 s, 1.5-10x less than CaDiCaL's focused mode."""
    model = csp2sat.parse(SPREAD + extra)
    compiled = compile_model(model, options=options)
    assert choose_solver(model, compiled) == expected
    search = Search(model, compiled, solver="auto")
    try:
        assert search.run().status in ("SATISFIABLE", "OPTIMUM FOUND")
        assert search.stats["solver"] == expected
    finally:
        search.close()


def test_auto_outside_plain_solving_is_the_default_solver(tmp_path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "p.csp"
    path.write_text(PERMUTATION.replace("(< y z)", ""))
    status, out, _ = run_cli(capsys, "solve", "--solver", "auto", "--count", str(path))
    assert status == 0 and out.splitlines()[-1] == "c SOLUTIONS 3"


@pytest.mark.parametrize("argv, line", [
    (["--count"], r"c count +[\d.]+ s   \(-O enumerate=blocking, solver cadical195\)"),
    (["--count", "-O", "enumerate=propagate"], r"c count +[\d.]+ s   \(-O enumerate=propagate, solver glucose4\)"),
    # no propagate() in PySAT's Lingeling: blocking clauses instead, on the solver asked for
    (["--count", "-O", "enumerate=propagate", "--solver", "lingeling"],
     r"c count +[\d.]+ s   \(-O enumerate=blocking, solver lingeling\)"),
    (["--unique"], r"c unique +[\d.]+ s   \(solver cadical195\)"),
])
def test_verbose_modes_say_their_stages_method_and_solver(tmp_path, capsys: pytest.CaptureFixture, argv: list[str],
                                                         line: str) -> None:
    path = tmp_path / "p.csp"
    path.write_text(PERMUTATION.replace("(< y z)", ""))
    status, _, err = run_cli(capsys, "solve", "-v", *argv, str(path))
    assert status == 0 and re.search(r"^c parse +[\d.]+ s$", err, re.M) and re.search(r"^c size .* CNF clauses", err, re.M)
    assert re.search(rf"^{line}$", err, re.M), err


def test_auto_first_in_a_portfolio_is_the_default_solver_once() -> None:
    from csp2sat.parallel import portfolio_solvers

    names = portfolio_solvers(3, "auto")
    assert names[0] == DEFAULT_SOLVER and len(set(names)) == 3 and "auto" not in names


def test_the_portfolio_starts_with_what_auto_would_pick() -> None:
    """`solve -j N` races the solver plain solving would use first (MiniSat for a placement
    alldifferent, which comes late in `PORTFOLIO`), then the usual ones; a named solver stays first."""
    from csp2sat.parallel import first_racer, portfolio_solvers

    model = csp2sat.parse(SPREAD)
    placed = compile_model(model, options={"alldifferent": "amo"})
    assert portfolio_solvers(2, first_racer("auto", model, placed)) == [PLACEMENT_SOLVER, DEFAULT_SOLVER]
    assert portfolio_solvers(2, first_racer("lingeling", model, placed)) == ["lingeling", DEFAULT_SOLVER]
    plain = csp2sat.parse(PLAIN)
    assert set(portfolio_solvers(2, first_racer("auto", plain, compile_model(plain)))) == {DEFAULT_SOLVER, DECISION_SOLVER}


def test_glucose_races_minisat_without_an_objective() -> None:
    """Where `auto` gives a decision problem to Glucose, CaDiCaL is the slow racer: MiniSat comes second,
    CaDiCaL third; with an objective (or another first solver) the order stays `PORTFOLIO`'s."""
    from csp2sat.parallel import DECISION_PARTNER, PORTFOLIO, portfolio_solvers

    assert portfolio_solvers(3, DECISION_SOLVER, decision=True) == [DECISION_SOLVER, DECISION_PARTNER, DEFAULT_SOLVER]
    assert portfolio_solvers(2, DECISION_SOLVER) == [DECISION_SOLVER, DEFAULT_SOLVER]
    assert portfolio_solvers(2, DEFAULT_SOLVER, decision=True) == [DEFAULT_SOLVER, DECISION_SOLVER]
    names = portfolio_solvers(len(PORTFOLIO), DECISION_SOLVER, decision=True)
    assert sorted(names) == sorted(PORTFOLIO)  # every solver once, none twice


def test_the_cli_portfolio_of_a_decision_problem_races_glucose_and_minisat(tmp_path, capsys, monkeypatch) -> None:
    import csp2sat.parallel as parallel

    raced = []
    original = parallel.portfolio_solvers
    monkeypatch.setattr(parallel, "portfolio_solvers", lambda *a, **k: raced.append(original(*a, **k)) or raced[-1])
    path = tmp_path / "perm.csp"
    for text, racers in ((PERMUTATION, [DECISION_SOLVER, "minisat22"]), (PERMUTATION + "(objective minimize x)",
                                                                          [DECISION_SOLVER, DEFAULT_SOLVER])):
        path.write_text(text)
        status, out, err = run_cli(capsys, "solve", "-j", "2", "-v", str(path))
        assert status == 0 and out.startswith("s "), err
        assert raced[-1] == racers
        assert re.search(rf"winner ({'|'.join(racers)})$", err, re.M), err
