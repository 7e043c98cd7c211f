"""Objective search strategies (-O objective=, shrink=) and value symmetry breaking (-O symmetry=).

Every strategy must reach the optimum the default reaches and brute force
computes, print strictly improving ``o`` lines and end with ``s OPTIMUM FOUND``;
symmetry breaking must keep at least one optimal answer and apply only where the
values are interchangeable (tests/bruteforce.py is the reference).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import csp2sat
from bruteforce import brute_force
from csp_strategies import csp_texts
from csp2sat.diagnostics import CspError
from csp2sat import symmetry
from csp2sat.symmetry import break_value_symmetry, interchangeable_groups

EXAMPLES = Path(__file__).parent / "conformance" / "sugar-examples"
EXPECTED = json.loads((EXAMPLES / "expected.json").read_text(encoding="utf-8"))
STRATEGIES = [
    {"objective": "binary", "shrink": "off"},
    {"objective": "linear", "shrink": "off"},
    {"objective": "binary", "shrink": "on"},
    {"objective": "linear", "shrink": "on"},
    {"objective": "auto", "shrink": "auto", "symmetry": "off"},
]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _check(text: str, options: dict[str, str], solver: str = "auto") -> None:
    model = csp2sat.parse(text)
    expected = brute_force(model)
    answers: list[int] = []
    result = csp2sat.solve(model, solver=solver, options=options,
                           on_answer=lambda values, shown: answers.append(values[model.objective.var]))
    assert result.status == expected.status, (options, text)
    assert result.objective == expected.optimum, (options, text)
    if expected.status == "UNSATISFIABLE":
        return
    minimise = model.objective.sense == "minimize"
    assert all((b < a) if minimise else (b > a) for a, b in zip(answers, answers[1:])), (answers, text)
    assert answers[-1] == result.objective
    shown = tuple(result.values[k] for k in expected.printed)
    assert shown in expected.answers, (options, text)


@SETTINGS
@given(csp_texts(), st.sampled_from(STRATEGIES))
def test_every_strategy_finds_the_brute_force_optimum(text: str, options: dict[str, str]) -> None:
    assume("(objective" in text)
    try:
        csp2sat.parse(text)
    except CspError:
        assume(False)
    _check(text, options)


def _mycielskian_colouring(steps: int) -> str:
    """Colour the Mycielskian of K2 taken `steps` times (chromatic number steps + 2), fewest colours."""
    n, edges = 2, [(0, 1)]
    for _ in range(steps):
        # vertex i gets a shadow n + i (joined to i's neighbours) and all shadows a common neighbour 2n
        edges = edges + [(n + i, j) for i, j in edges] + [(n + j, i) for i, j in edges] + [(n + i, 2 * n) for i in range(n)]
        n = 2 * n + 1
    lines = ["(int colours 1 9)", "(objective minimize colours)"]
    lines += [f"(int c{v} 1 9) (<= c{v} colours)" for v in range(n)]
    lines += [f"(!= c{i} c{j})" for i, j in edges]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("solver", ["glucose4", "cadical195", "minisat22", "lingeling"])
@pytest.mark.parametrize("timeout", [None, 60.0])
def test_bisection_probes_out_of_budget_give_way_to_a_linear_step(solver: str, timeout: float | None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """objective=auto with a budget of one conflict: the bisection probes (is there a 3-colouring of
    the 23-vertex Mycielski graph?) run out, linear steps take over, and the optimum 5 is still proven;
    with a time limit CaDiCaL searches in slices (`_budgeted`) and the budget spans them. Lingeling
    takes no budget: its probes run to the end."""
    import csp2sat.solver

    monkeypatch.setattr(csp2sat.solver, "PROBE_CONFLICTS", 1)
    text = _mycielskian_colouring(3)
    answers: list[int] = []
    result = csp2sat.solve(text, solver=solver, timeout=timeout, options={"symmetry": "off"},
                           on_answer=lambda values, shown: answers.append(values["colours"]))
    assert (result.status, result.objective) == ("OPTIMUM FOUND", 5)
    assert answers == sorted(answers, reverse=True) and len(set(answers)) == len(answers)
    out_of_budget = result.stats.get("probes_out_of_budget", 0)
    assert out_of_budget == 0 if solver == "lingeling" else out_of_budget >= 1, result.stats
    # -v names the strategy; without budgets it is plain bisection
    assert result.stats["objective_strategy"] == ("binary" if solver == "lingeling" else "binary, budgeted")


@SETTINGS
@given(csp_texts(), st.sampled_from(["glucose4", "cadical195"]), st.randoms(use_true_random=False))
def test_probes_that_run_out_at_random_still_reach_the_brute_force_optimum(text: str, solver: str, rnd) -> None:
    """Fault injection: each budgeted probe gives up at once with probability 0.6, so the linear steps,
    the doubled budgets and the bisection after them meet every shape of random problem."""
    from unittest import mock

    import csp2sat.solver

    assume("(objective" in text)
    try:
        model = csp2sat.parse(text)
    except CspError:
        assume(False)
    search = csp2sat.solver.Search._solve

    def gives_up(self, assumptions, conflicts=None):
        if conflicts is not None and rnd.random() < 0.6:
            return None
        return search(self, assumptions, conflicts)

    with mock.patch.object(csp2sat.solver.Search, "_solve", gives_up):
        _check(text, {"objective": "auto"}, solver)


class _Board:
    """What `csp2sat.parallel.race` reports to, in one process: the bounds, the proofs offered and the ends."""

    def __init__(self, best: int = 1 << 62, proven: int = 0) -> None:
        self.best_rank, self.proven_rank, self.ends, self.proofs = best, proven, [], []

    def best(self) -> int:
        return self.best_rank

    def proven(self) -> int:
        return self.proven_rank

    def offer(self, rank: int, values: dict, shown: tuple) -> None:
        self.best_rank = min(self.best_rank, rank)

    def prove(self, rank: int) -> None:
        self.proofs.append(rank)
        self.proven_rank = max(self.proven_rank, rank)

    def end(self, kind: str, detail) -> None:
        self.ends.append((kind, detail))


@pytest.mark.parametrize("solver", ["minisat22", "cadical195"])
def test_a_portfolio_racer_takes_linear_steps_when_its_probes_run_out(solver: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The racers of `solve --jobs N` bisect with the same budget as `Search.run` (csp2sat.parallel.race).

    (Solvers whose budget is exact: Glucose checks it only now and then, and refutes 3 colours within its overshoot.)"""
    import csp2sat.solver
    from csp2sat.compiler import compile_model
    from csp2sat.parallel import objective_rank, race

    monkeypatch.setattr(csp2sat.solver, "PROBE_CONFLICTS", 1)
    ran_out = csp2sat.solver.ProbeBudget.ran_out
    runs: list[int] = []
    monkeypatch.setattr(csp2sat.solver.ProbeBudget, "ran_out", lambda self, stats: (runs.append(1), ran_out(self, stats)))

    model = csp2sat.parse(_mycielskian_colouring(3))
    compiled = compile_model(model, options={"symmetry": "off"}, single_answer=True)
    board = _Board()  # one racer alone: the bounds are its own
    race(model, compiled, solver, True, board)
    assert board.ends == [("optimum", objective_rank(model)(5))] and runs


@pytest.mark.parametrize("shrink", ["off", "on"])
def test_a_portfolio_racer_skips_what_the_others_found_and_refuted(shrink: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A racer runs plain solving's search (re-encoding too, with ``shrink=on``) and probes only the values the
    board leaves open: with the optimum already found and proven by others, its first answer is its last SAT call;
    alone, it refutes every better value itself and tells the board."""
    import csp2sat.solver
    from csp2sat.compiler import compile_model
    from csp2sat.parallel import objective_rank, race

    calls: list[int] = []
    solve = csp2sat.solver.Search._solve
    monkeypatch.setattr(csp2sat.solver.Search, "_solve", lambda self, *args: (calls.append(1), solve(self, *args))[1])
    shrinks: list[int] = []
    recompile = csp2sat.solver.Search._recompile
    monkeypatch.setattr(csp2sat.solver.Search, "_recompile", lambda self, *args: (shrinks.append(1), recompile(self, *args))[1])

    model = csp2sat.parse(_mycielskian_colouring(3))
    compiled = compile_model(model, options={"symmetry": "off", "shrink": shrink}, single_answer=True)
    optimum = objective_rank(model)(5)
    settled = _Board(optimum, optimum)
    race(model, compiled, "cadical195", True, settled)
    assert settled.ends == [("optimum", optimum)] and len(calls) == 1 and not settled.proofs and not shrinks
    calls.clear()
    alone = _Board()
    race(model, compiled, "cadical195", True, alone)
    assert alone.ends == [("optimum", optimum)] and alone.proven_rank == optimum and len(calls) > 1
    assert bool(shrinks) == (shrink == "on")


@pytest.mark.parametrize("solver", ["glucose4", "cadical195", "minisat22"])
def test_a_conflict_budget_holds_for_one_search_only(solver: str) -> None:
    from pysat.examples.genhard import PHP

    from csp2sat.solver import new_solver, takes_budget

    assert takes_budget(solver)
    sat = new_solver(solver, bootstrap_with=PHP(7).clauses)
    try:
        assert sat.solve([], conflicts=10) is None
        assert sat.solve([]) is False  # MiniSat's budget would still hold here if it were not lifted
    finally:
        sat.delete()


@pytest.mark.parametrize("options", STRATEGIES)
def test_a_cut_objective_domain_keeps_cumulative_s_horizon(options: dict[str, str]) -> None:
    """Found by the test above: cumulative's horizon comes from the declared domains, so a window or shrink
    that cut the objective's domain changed what the constraint means. Here the declared x1 in 1..4 makes
    the horizon {0} (load 0 > limit -x1: no answer), where x1 in 2..4 would make it empty (every x1 an answer)."""
    _check("(int x1 1 4)\n(predicate (c0 s) (cumulative ((0 0 nil 0) (2 s nil 0)) s))\n(c0 (neg x1))\n"
           "(objective minimize x1)\n", options)


def test_explain_s_widened_domains_keep_cumulative_s_horizon() -> None:
    from csp2sat.explain import relax

    model = csp2sat.parse("(int x 1 4)\n(cumulative ((2 (neg x) nil 0)) (neg x))\n")
    relaxed, _ = relax(model)
    assert relaxed.int_vars["x"].domain.lb < 1 and relaxed.horizon_bounds == {"x": (1, 4)}


@st.composite
def colourings(draw: st.DrawFn) -> str:
    """Small colouring-like problems: ≠ edges and alldifferents over interchangeable colours, bounded by an
    objective variable, sometimes with a constraint that breaks the interchangeability."""
    n = draw(st.integers(2, 6))
    k = draw(st.integers(1, 4))
    lines = [f"(int c {draw(st.integers(0, 2))} {k + 1})"]
    lines.append(f"(objective {draw(st.sampled_from(['minimize', 'maximize']))} c)")
    lines += [f"(int x{i} 1 {k})" for i in range(n)]
    strict = draw(st.booleans())
    for i in range(n):
        if draw(st.integers(0, 5)):
            lines.append(f"(< x{i} c)" if strict else f"(>= c x{i})")
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for i, j in draw(st.lists(st.sampled_from(pairs), max_size=8, unique=True)):
        lines.append(f"(!= x{i} x{j})")
    if n >= 3 and draw(st.booleans()):
        trio = draw(st.lists(st.integers(0, n - 1), min_size=3, max_size=3, unique=True))
        lines.append("(alldifferent " + " ".join(f"x{i}" for i in trio) + ")")
    noise = draw(st.sampled_from(["", "(= x0 2)", "(>= x1 c)", "(<= x0 x1)", "(!= x0 3)", "(int y 1 2)(!= x0 y)"]))
    lines.append(noise)
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(colourings(), st.sampled_from(STRATEGIES + [{"symmetry": "on"}]))
def test_symmetry_breaking_keeps_an_optimal_answer(text: str, options: dict[str, str]) -> None:
    try:
        csp2sat.parse(text)
    except CspError:
        assume(False)  # e.g. a noise constraint naming x1 when n = ... (never: n >= 2), kept for safety
    _check(text, options)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(colourings(), st.integers(1, 3))
def test_precedence_keeps_one_answer_per_objective_value(text: str, block: int) -> None:
    """With short blocks (hidden variables for the largest value so far from the 2nd, 3rd or 4th variable
    on), the broken model's answers are answers of the original, and every value of the objective's
    variable that the original reaches is still reached (brute force over both, objective dropped)."""
    from dataclasses import replace

    model = csp2sat.parse(text)
    original = replace(model, objective=None)
    old_block = symmetry.PRECEDENCE_BLOCK
    symmetry.PRECEDENCE_BLOCK = block
    try:
        broken, _ = break_value_symmetry(original if not interchangeable_groups(model) else model)
    finally:
        symmetry.PRECEDENCE_BLOCK = old_block
    broken = replace(broken, objective=None)
    expected, got = brute_force(original), brute_force(broken)
    assert got.printed == expected.printed
    assert got.answers <= expected.answers, text
    where = expected.printed.index(model.objective.var)
    assert {a[where] for a in got.answers} == {a[where] for a in expected.answers}, text


def test_colouring_groups_are_found() -> None:
    model = csp2sat.parse((EXAMPLES / "gcp-myciel3.csp").read_text(encoding="utf-8"))
    groups = interchangeable_groups(model)
    assert len(groups) == 1 and sorted(groups[0]) == sorted(v for v in model.int_vars if v != "color")
    broken, added = break_value_symmetry(model)
    # x1 = lo, then xi ≤ max(x1..xi-1) + 1 (a disjunction) and xi ≤ lo + i while that is below hi,
    # and a hidden variable ≤ the max so far per block
    n, block = len(groups[0]), symmetry.PRECEDENCE_BLOCK
    dom = model.int_vars[groups[0][0]].domain
    bounds = sum(dom.lb + i < dom.ub for i in range(1, n))
    assert n > block + 1 and bounds > 0 and added == n + bounds + (n - 2) // block
    assert sum(name.startswith("_") for name in broken.int_vars) == (n - 2) // block
    assert all(name.startswith("_") for name in set(broken.int_vars) - set(model.int_vars))


@pytest.mark.parametrize(
    "extra",
    [
        "(>= x c)",  # a lower bound: renaming to small values could break it
        "(= x 2)",  # a constant pins a value
        "(<= x y)",  # an order between two colours
        "(int z 1 3)(!= x z)",  # a partner outside the group (z has no bound by c)
        "(int w 1 4)(!= w y)(<= w c)",  # another domain in the same ≠ graph
        "(<= x 2)",  # a bound the others lack
    ],
)
def test_groups_exclude_what_is_not_interchangeable(extra: str) -> None:
    base = "(int c 1 3)(objective minimize c)(int x 1 3)(int y 1 3)(<= x c)(<= y c)(!= x y)\n"
    groups = interchangeable_groups(csp2sat.parse(base + extra))
    assert not any("x" in g for g in groups), extra
    assert interchangeable_groups(csp2sat.parse(base)) == [["x", "y"]]


def test_objective_variable_is_never_renamed() -> None:
    text = "(int x 1 3)(int y 1 3)(!= x y)(objective maximize x)"
    assert interchangeable_groups(csp2sat.parse(text)) == []
    assert csp2sat.solve(text, options={"symmetry": "on"}).objective == 3


@pytest.mark.parametrize("options", STRATEGIES + [{"symmetry": "on"}], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("name", ["gcp-myciel3.csp", "golombRuler-8.csp", "oss-gp03-01.csp"])
def test_conformance_optima_with_every_strategy(name: str, options: dict[str, str]) -> None:
    result = csp2sat.solve((EXAMPLES / name).read_text(encoding="utf-8"), options=options)
    assert result.status == "OPTIMUM FOUND"
    assert result.objective == EXPECTED[name]["objective"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "csp2sat", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.parametrize("strategy", ["objective=binary", "objective=linear", "shrink=on", "symmetry=off"])
def test_cli_prints_improving_objectives_then_optimum(strategy: str, tmp_path: Path) -> None:
    proc = _cli("solve", "-O", strategy, str(EXAMPLES / "golombRuler-8.csp"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    values = [int(line.split()[1]) for line in lines if line.startswith("o ")]
    assert values and values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert values[-1] == 34 and lines[0] == "s SATISFIABLE" and lines[-1] == "s OPTIMUM FOUND"


def test_cli_refuses_symmetry_breaking_when_counting(tmp_path: Path) -> None:
    proc = _cli("solve", "--count", "-O", "symmetry=on", str(EXAMPLES / "gcp-myciel3.csp"), cwd=tmp_path)
    assert proc.returncode == 2 and "symmetry" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_refuses_an_unknown_strategy(tmp_path: Path) -> None:
    proc = _cli("solve", "-O", "objective=random", str(EXAMPLES / "gcp-myciel3.csp"), cwd=tmp_path)
    assert proc.returncode == 2 and "objective" in proc.stderr and "Traceback" not in proc.stderr


def test_counting_optimal_colourings_is_not_changed_by_default(tmp_path: Path) -> None:
    # --count under an objective counts every optimal answer: the default symmetry=auto must not apply there.
    text = "(int c 1 3)(objective minimize c)(int x 1 3)(int y 1 3)(int z 1 3)(<= x c)(<= y c)(<= z c)(!= x y)(!= y z)\n"
    (tmp_path / "col.csp").write_text(text, encoding="utf-8")
    proc = _cli("solve", "--count", "col.csp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "c SOLUTIONS 2" in proc.stdout  # x = z ≠ y with two colours: (1,2,1) and (2,1,2)


@pytest.mark.parametrize(
    "text",
    [
        # y has no bound by c: renaming y first to 1 would push x to 2 and c with it.
        "(int c 1 3)(objective minimize c)(int y 1 3)(int x 1 3)(<= x c)(!= x y)",
        # x1 bounds x0 from above: renaming x1 to 1 would leave no room for x0 ≥ 2.
        "(int c 1 3)(objective minimize c)(int x0 1 3)(int x1 1 3)(int x2 1 3)(<= x0 c)(<= x1 c)(<= x2 c)"
        "(>= x0 2)(<= x0 x1)(!= x1 x2)",
        # x ≥ c: a lower bound.
        "(int c 1 3)(objective maximize c)(int x 1 3)(int y 1 3)(<= y c)(>= x c)(!= x y)",
    ],
)
def test_symmetry_breaking_keeps_the_optimum_where_it_must_not_apply(text: str) -> None:
    _check(text, {"symmetry": "on"})
