"""`-O satmode=...`: CaDiCaL's search mode (csp2sat.solver.SAT_MODES), chosen per problem by "auto".

The mode changes only how the solver searches, never the CNF, so every mode
must give the same verdicts and verified answers; these tests check that the
setting reaches the solver (a mode that silently did nothing would pass the
answer checks) and that every mode answers correctly through the command line.
"""

from __future__ import annotations

import re

import pytest

from csp2sat.compiler import OPTION_CHOICES, compile_model
from csp2sat.diagnostics import Exit
from csp2sat.solver import SAT_MODES, Search, new_solver, sat_mode
from tests.cli_support import run_cli

SAT = "(int x 1 3)\n(int y 1 3)\n(< x y)\n(>= y 3)\n(alldifferent x y)\n(> x 1)\n"  # x=2, y=3 only
UNSAT = "(int x 1 3)\n(int y 1 3)\n(> x y)\n(> y x)\n"
OBJECTIVE = "(int x 0 5)\n(int y 0 5)\n(>= (+ x y) 4)\n(<= y 3)\n(objective minimize x)\n"  # x=1, y=3 only


def test_every_mode_is_an_option_choice() -> None:
    assert set(OPTION_CHOICES["satmode"]) == {"auto"} | set(SAT_MODES)


def test_auto_is_the_solvers_own_alternation() -> None:
    assert sat_mode("auto", objective=False) == "default"
    assert sat_mode("auto", objective=True) == "default"
    assert sat_mode("auto", objective=False, stats={"alldifferent_placement": 0}) == "default"
    for mode in SAT_MODES:
        assert sat_mode(mode, objective=False) == mode == sat_mode(mode, objective=True)


@pytest.mark.parametrize("mode", sorted(SAT_MODES))
def test_mode_reaches_cadical_before_any_clause(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    from pysat.solvers import Solver

    seen: list[tuple[dict, int]] = []
    original = Solver.configure

    def spy(self, parameters):
        seen.append((dict(parameters), self.nof_clauses()))
        return original(self, parameters)

    monkeypatch.setattr(Solver, "configure", spy)
    with new_solver("cadical195", bootstrap_with=[[1, 2], [-1]], mode=mode) as sat:
        assert sat.solve() and sat.get_model()[:2] == [-1, 2]
    assert seen == ([(SAT_MODES[mode], 0)] if SAT_MODES[mode] else [])


def test_solvers_without_modes_ignore_them() -> None:
    for name in ("glucose4", "minisat22", "kissat404"):
        with new_solver(name, bootstrap_with=[[1, 2], [-1]], mode="focus") as sat:
            assert sat.solve()


@pytest.mark.parametrize("text, option, expected", [(SAT, "auto", "default"), (OBJECTIVE, "auto", "default"),
                                                    (SAT, "focus", "focus"), (OBJECTIVE, "stable", "stable")])
def test_search_records_the_mode_it_used(text: str, option: str, expected: str) -> None:
    import csp2sat

    model = csp2sat.parse(text)
    search = Search(model, compile_model(model, options={"satmode": option}))
    try:
        search.run()
        assert search.stats["sat_mode"] == expected
    finally:
        search.close()


PLACEMENT = "(int x 1 5)\n(int y 1 5)\n(alldifferent x y)\n(> x 3)\n"  # 2 terms over 5 values, nothing else


@pytest.mark.parametrize("alldifferent, objective, expected", [("amo", False, "focus"), ("pairwise", False, "default"),
                                                               ("amo", True, "default")])
def test_auto_focuses_on_placement_alldifferents(alldifferent: str, objective: bool, expected: str) -> None:
    """n-queens' diagonals (more values than terms, value-wise, variables met by nothing else): focused mode
    took 1.3-22 s on 80-600 queens where the alternation took 3.9-119 s; nothing else gets it.
    (`--solver auto` gives such a problem MiniSat now, tests/test_solver_choice.py; the mode is
    CaDiCaL's, for a user who asks for it.)"""
    import csp2sat

    text = PLACEMENT + ("(objective minimize y)\n" if objective else "")
    model = csp2sat.parse(text)
    compiled = compile_model(model, options={"alldifferent": alldifferent})
    assert compiled.stats["alldifferent_placement"] == (alldifferent == "amo")
    search = Search(model, compiled, solver="cadical195")
    try:
        assert search.run().status in ("SATISFIABLE", "OPTIMUM FOUND")
        assert (search.stats["solver"], search.stats["sat_mode"]) == ("cadical195", expected)
    finally:
        search.close()


@pytest.mark.parametrize("mode", OPTION_CHOICES["satmode"])
def test_every_mode_answers_through_the_command_line(tmp_path, capsys: pytest.CaptureFixture, mode: str) -> None:
    files = {}
    for name, text in (("sat", SAT), ("unsat", UNSAT), ("objective", OBJECTIVE)):
        files[name] = tmp_path / f"{name}.csp"
        files[name].write_text(text)
    status, out, _ = run_cli(capsys, "solve", "-O", f"satmode={mode}", str(files["sat"]))
    assert status == 0 and out.splitlines()[:3] == ["s SATISFIABLE", "a x\t2", "a y\t3"]
    status, out, _ = run_cli(capsys, "solve", "-O", f"satmode={mode}", str(files["unsat"]))
    assert status == 0 and out.splitlines() == ["s UNSATISFIABLE"]
    status, out, _ = run_cli(capsys, "solve", "-O", f"satmode={mode}", str(files["objective"]))
    assert status == 0 and out.splitlines()[-4:] == ["a x\t1", "a y\t3", "a", "s OPTIMUM FOUND"]


def test_unknown_mode_is_a_usage_error(tmp_path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "sat.csp"
    path.write_text(SAT)
    status, _, err = run_cli(capsys, "solve", "-O", "satmode=fast", str(path))
    assert status == Exit.USAGE and "satmode" in err and "focus" in err


def test_each_mode_changes_the_search() -> None:
    # CaDiCaL ignores a misspelt option silently, so check that each mode really searches differently:
    # on the pigeonhole formula PHP(7) the (deterministic) restart and conflict counts differ per mode.
    from pysat.examples.genhard import PHP

    clauses = PHP(7).clauses
    seen = {}
    for mode in SAT_MODES:
        with new_solver("cadical195", bootstrap_with=clauses, mode=mode) as sat:
            assert sat.solve() is False
            stats = sat.accum_stats()
            seen[mode] = (stats["restarts"], stats["conflicts"])
    assert len(set(seen.values())) == len(SAT_MODES), seen


def test_a_re_encoded_search_keeps_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """`-O shrink=on` builds fresh solvers for the narrowed objective; each one gets the chosen mode."""
    import csp2sat
    import csp2sat.solver as solver_module
    from csp2sat.solver import compile_for_search

    modes: list[str] = []
    original = solver_module.new_solver

    def recording(name: str = "cadical195", bootstrap_with=None, mode: str = "default"):
        modes.append(mode)
        return original(name, bootstrap_with, mode=mode)

    monkeypatch.setattr(solver_module, "new_solver", recording)
    text = "(int x 0 40)\n(int y 0 40)\n(>= (+ x y) 30)\n(<= y 12)\n(objective minimize x)\n"  # optimum x=18
    model = csp2sat.parse(text)
    search = Search(model, compile_for_search(model, {"satmode": "focus", "shrink": "on"}))
    try:
        result = search.run()
        assert result.objective == 18
        assert search.stats.get("shrinks", 0) >= 1
        assert modes and set(modes) == {"focus"}
    finally:
        search.close()


def test_verbose_output_says_how_the_search_ran(tmp_path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "objective.csp"
    path.write_text(OBJECTIVE)
    status, _, err = run_cli(capsys, "solve", "-v", "-O", "satmode=focus", "-O", "objective=linear", str(path))
    assert status == 0 and re.search(r"^c search     cadical195, satmode focus, objective linear, [\d,]+ conflicts$", err, re.M)
    # glucose has no search modes: the line does not claim one
    status, _, err = run_cli(capsys, "solve", "-v", "--solver", "glucose4", "-O", "satmode=focus", str(path))
    assert status == 0 and re.search(r"^c search     glucose4, objective binary, budgeted, [\d,]+ conflicts$", err, re.M)
    path.write_text(SAT)
    status, _, err = run_cli(capsys, "solve", "-v", str(path))
    # no objective, and bounds leave the alldifferent two values for two terms: --solver auto picks Glucose
    # (csp2sat.solver.choose_solver), which has no modes
    assert status == 0 and re.search(r"^c search     glucose4, [\d,]+ conflicts$", err, re.M)
    status, _, err = run_cli(capsys, "solve", "-v", "--solver", "cadical195", str(path))
    assert status == 0 and re.search(r"^c search     cadical195, satmode default, [\d,]+ conflicts$", err, re.M)


@pytest.mark.parametrize("argv, stable", [(["-n", "1"], False), (["-n", "2"], True), (["--count"], True)])
def test_one_answer_of_n_is_searched_as_plain_solving_searches(tmp_path, capsys: pytest.CaptureFixture,
                                                               monkeypatch: pytest.MonkeyPatch, argv, stable) -> None:
    """-n 1 asks for one answer: not CaDiCaL's stable mode of listing (nqueens-200: 8.3 s against 1.9 s)."""
    from pysat.solvers import Solver

    seen: list[dict] = []
    original = Solver.configure

    def spy(self, parameters):
        seen.append(dict(parameters))
        return original(self, parameters)

    monkeypatch.setattr(Solver, "configure", spy)
    path = tmp_path / "queens.csp"
    n = 8
    path.write_text(f"(int q0 1 {n})\n" + "".join(f"(int q{i} 1 {n})\n" for i in range(1, n))
                    + "(alldifferent " + " ".join(f"q{i}" for i in range(n)) + ")\n"
                    + "(alldifferent " + " ".join(f"(+ q{i} {i})" for i in range(n)) + ")\n"
                    + "(alldifferent " + " ".join(f"(- q{i} {i})" for i in range(n)) + ")\n")
    status, out, _ = run_cli(capsys, "solve", *argv, str(path))
    assert status == 0 and "c SOLUTIONS" in out
    assert (SAT_MODES["stable"] in seen) == stable, seen
