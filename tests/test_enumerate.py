"""Tests of csp2sat.enumerate and the solve modes: counts, uniqueness and facts against brute force."""

from __future__ import annotations

import io
import itertools
import json
from argparse import Namespace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csp2sat.enumerate import CnfSpace, SolutionSpace

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "tests" / "conformance"


# ---------------------------------------------------------------- SAT level, plain CNFs


def _brute_cnf(clauses: list[list[int]], n: int, shown: list[int]) -> set[tuple[bool, ...]]:
    found = set()
    for bits in itertools.product((False, True), repeat=n):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            found.add(tuple(bits[v - 1] for v in shown))
    return found


@st.composite
def _cnfs(draw: st.DrawFn) -> tuple[list[list[int]], int, list[int]]:
    n = draw(st.integers(1, 7))
    lit = st.builds(lambda v, s: v * s, st.integers(1, n), st.sampled_from((1, -1)))
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), max_size=14))
    shown = sorted(draw(st.sets(st.integers(1, n), min_size=1)))
    return clauses, n, shown


@settings(max_examples=150, deadline=None)
@given(_cnfs())
def test_queries_on_one_solver_agree_with_brute_force(case: tuple) -> None:
    clauses, n, shown = case
    expected = _brute_cnf(clauses, n, shown)
    with SolutionSpace(CnfSpace(clauses, shown)) as space:
        # Several queries in a row on the same solver: each must leave it as it found it.
        answers = {tuple(a.values()) for a in space.solutions()}
        unique = space.uniqueness()
        facts = space.facts()
        again = space.count()
    assert answers == expected
    assert again == len(expected)
    assert unique.status == ("none" if not expected else "unique" if len(expected) == 1 else "multiple")
    if unique.status == "multiple":
        assert unique.first != unique.second
    if not expected:
        assert facts is None
        return
    for i, v in enumerate(shown):
        seen = {answer[i] for answer in expected}
        assert facts[f"v{v}"] == (seen.pop() if len(seen) == 1 else None)


def test_limit_stops_early_and_the_solver_stays_usable() -> None:
    # 4 free variables: 16 answers.
    with SolutionSpace(CnfSpace([], [1, 2, 3, 4])) as space:
        assert space.count(limit=5) == 5
        assert space.count() == 16
        assert space.facts() == {"v1": None, "v2": None, "v3": None, "v4": None}


def test_objective_restricts_to_optimal_answers() -> None:
    # x1 + x2 >= 1 over shown x1,x2,x3; "objective" minimise the number of true among x1,x2 via an order-like
    # literal: le(0) is "neither", le(1) is "not both", le(2) always true.
    clauses = [[1, 2]]

    def le(c: int) -> int | bool:
        return {0: False, 1: 5}.get(c, True) if c >= 0 else False

    clauses += [[-5, -1, -2], [5, 1], [5, 2]]  # 5 <-> not (x1 and x2)

    def value_of(model: list[int]) -> int:
        return (model[0] > 0) + (model[1] > 0)

    with SolutionSpace(CnfSpace(clauses, [1, 2, 3]), objective=(le, value_of, "minimize")) as space:
        assert space.optimum == 1
        answers = {tuple(a.values()) for a in space.solutions()}
    assert answers == {(True, False, False), (True, False, True), (False, True, False), (False, True, True)}


# ---------------------------------------------------------------- CSP level (front end and compiler)


def _pipeline():  # type: ignore[no-untyped-def]
    from csp2sat import checker, compiler, parser

    return parser.parse_text, checker.check, compiler.compile_model


def _space(text: str) -> tuple:
    from csp2sat.enumerate import open_space

    parse_text, check, compile_model = _pipeline()
    model = check(parse_text(text))
    return model, open_space(compile_model(model), model)


def test_random_csps_uniqueness_and_facts_agree_with_brute_force() -> None:
    _pipeline()
    from bruteforce import brute_force
    from csp_strategies import csp_texts

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(csp_texts())
    def check(text: str) -> None:
        model, space = _space(text)
        expected = brute_force(model)
        with space:
            unique = space.uniqueness()
            facts = space.facts()
            count = space.count()
        assert count == len(expected.answers), text
        assert unique.status == ("none" if not expected.answers else "unique" if len(expected.answers) == 1 else "multiple"), text
        for answer in filter(None, (unique.first, unique.second)):
            assert tuple(answer.values()) in expected.answers, text
        if expected.optimum is not None:
            assert space.optimum == expected.optimum, text
        if not expected.answers:
            assert facts is None, text
            return
        for i, key in enumerate(expected.printed):
            seen = {a[i] for a in expected.answers}
            assert facts[key] == (seen.pop() if len(seen) == 1 else None), text

    check()


def _conformance_files(folder: str) -> list[tuple[str, dict]]:
    expected = json.loads((CONFORMANCE / folder / "expected.json").read_text())
    return sorted(expected.items())


@pytest.mark.parametrize("name,info", _conformance_files("features"), ids=lambda x: x if isinstance(x, str) else "")
def test_conformance_uniqueness(name: str, info: dict) -> None:
    model, space = _space((CONFORMANCE / "features" / name).read_text())
    with space:
        result = space.uniqueness()
    if info["status"] == "UNSATISFIABLE":
        assert result.status == "none"
    else:
        assert result.status == ("unique" if info["unique"] else "multiple")
    if info.get("unique"):
        assert list(result.first.values()) == list(info["solution"].values())


def _run_mode(text: str, **mode: object) -> str:
    from csp2sat.commands import solve_modes

    parse_text, check, compile_model = _pipeline()
    model = check(parse_text(text))
    args = Namespace(all=False, max_solutions=None, count=False, unique=False, facts=False)
    for key, value in mode.items():
        setattr(args, key, value)
    out = io.StringIO()
    assert solve_modes.run(args, model, compile_model(model), "cadical195", out) == 0
    return out.getvalue()


TWO = "(int x 1 3)\n(bool p)\n(< x 3)\n(int _h 0 1)\n(iff p (= x 1))\n"


def test_mode_outputs() -> None:
    out = _run_mode(TWO, all=True)
    assert out.startswith("s SATISFIABLE\n") and out.endswith("a\nc SOLUTIONS 2\n")
    blocks = out[len("s SATISFIABLE\n") : -len("a\nc SOLUTIONS 2\n")].split("a\na ")
    assert sorted(blocks) == ["a x\t1\na p\ttrue\n", "x\t2\na p\tfalse\n"] or sorted(blocks) == [
        "a x\t2\na p\tfalse\n",
        "x\t1\na p\ttrue\n",
    ]
    assert _run_mode(TWO, count=True) == "c SOLUTIONS 2\n"
    # -n that stops says so: "c SOLUTIONS 1" alone would read as "there is one".
    assert _run_mode(TWO, max_solutions=1).endswith("a\nc stopped at the limit -n 1\nc SOLUTIONS AT LEAST 1\n")
    assert _run_mode(TWO, max_solutions=3).endswith("a\nc SOLUTIONS 2\n")  # not reached: the exact count
    out = _run_mode(TWO, unique=True)
    assert out.count("\na\n") == 2 and "\na\nc MULTIPLE\na x" in out
    assert _run_mode(TWO + "(> x 1)\n", unique=True) == "s SATISFIABLE\na x\t2\na p\tfalse\na\nc UNIQUE\n"
    assert _run_mode(TWO + "(> x 5)\n", all=True) == "s UNSATISFIABLE\nc SOLUTIONS 0\n"
    facts = _run_mode("(int x 1 3)\n(int y 1 3)\n(bool q)\n(< x y)\n(>= x 2)\n", facts=True)
    assert facts == "s SATISFIABLE\nc FACT x\t2\nc FACT y\t3\nc FACT q\t?\n"
    assert _run_mode(TWO, facts=True) == "s SATISFIABLE\nc FACT x\t?\nc FACT p\t?\n"


def test_mode_outputs_under_an_objective_use_optimal_answers_only() -> None:
    text = "(int x 0 3)\n(int y 0 3)\n(>= (+ x y) 2)\n(objective minimize x)\n"
    out = _run_mode(text, all=True)
    assert out.startswith("s SATISFIABLE\no 0\n")
    assert out.endswith("s OPTIMUM FOUND\nc SOLUTIONS 2\n")
    # --unique and --facts end like --all: the optimum is proven.
    out = _run_mode(text, unique=True)
    assert out.startswith("s SATISFIABLE\no 0\n") and "c MULTIPLE\n" in out and out.endswith("a\ns OPTIMUM FOUND\n")
    out = _run_mode(text, facts=True)
    assert out == "s SATISFIABLE\no 0\nc FACT x\t0\nc FACT y\t?\ns OPTIMUM FOUND\n"


@pytest.mark.parametrize("argv, log_encoded", [(["--count"], True), (["-n", "3"], True), (["--all"], True),
                                                (["-n", "1"], False), ([], False)])
def test_listing_log_encodes_wide_variables(capsys: pytest.CaptureFixture, tmp_path: Path, argv: list[str],
                                            log_encoded: bool) -> None:
    from cli_support import run_cli

    path = tmp_path / "wide.csp"
    path.write_text("(int x 0 9999)\n(int y 0 9999)\n(= (+ x y) 10000)\n")
    status, out, err = run_cli(capsys, "solve", "-v", *argv, str(path))
    cnf_vars = int(next(line for line in err.splitlines() if line.startswith("c size")).split(" CNF vars")[0]
                   .split(", ")[-1].replace(",", ""))
    assert status in (0, 10) and (cnf_vars < 1000) == log_encoded, (cnf_vars, out[-200:])


def test_mode_outputs_show_every_name_of_the_objective_as_plain_solving_does() -> None:
    # (objective minimize x y): x optimised, both shown on the o line (docs/quirks.md)
    text = "(int x -3 3)\n(int y -3 3)\n(>= (+ x y) 1)\n(objective minimize x y)\n"
    for mode in ({"all": True}, {"max_solutions": 2}, {"unique": True}):
        assert _run_mode(text, **mode).startswith("s SATISFIABLE\no -2 3\na x\t-2\na y\t3\n"), mode
    # --facts prints no answer, and an answer holds no hidden variable: the optimum alone
    assert _run_mode(text, facts=True).startswith("s SATISFIABLE\no -2\nc FACT")
    hidden = text.replace(" y", " _y").replace("(int y", "(int _y")
    assert _run_mode(hidden, all=True).startswith("s SATISFIABLE\no -2\na x\t-2\n")


def test_no_mode_requested_returns_none() -> None:
    from csp2sat.commands import solve_modes

    args = Namespace(all=False, max_solutions=None, count=False, unique=False, facts=False)
    assert solve_modes.run(args, None, None, "cadical195", io.StringIO()) is None


# ---------------------------------------------------------------- pentomino counts


PENTOMINO_COUNTS = [
    ("box_3x20", 8),
    pytest.param("box_4x15", 1472, marks=pytest.mark.slow),
    pytest.param("box_5x12", 4040, marks=pytest.mark.slow),
    pytest.param("box_6x10", 9356, marks=pytest.mark.slow),
    pytest.param("box_8x8_centre2x2", 520, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("box,count", PENTOMINO_COUNTS)
def test_pentomino_counts(box: str, count: int) -> None:
    from csp2sat.generators import pentomino

    parse_text, check, compile_model = _pipeline()
    text = pentomino.generate(pentomino.read((ROOT / "data" / "pentomino" / f"{box}.txt").read_text()))
    from csp2sat.enumerate import count_solutions

    model = check(parse_text(text))
    assert count_solutions(compile_model(model), model) == count


# ---------------------------------------------------------------- puzzles in data/: uniqueness as sources.txt says


def _puzzle_cases() -> list:
    import importlib

    from csp2sat.generators.base import genre

    cases = []
    for index in sorted((ROOT / "data").glob("*/index.tsv")):
        # Genres that list their puzzle variables; the loop genres check uniqueness in their own
        # tests, through generators.run (blocking what their decoders read, bridge directions aside).
        if not hasattr(importlib.import_module(genre(index.parent.name).read.__module__), "puzzle_variables"):
            continue
        rows = [line.split("\t") for line in index.read_text().splitlines()[1:] if line.strip()]
        for name, _height, _width, status, *_ in rows:
            cases.append(pytest.param(index.parent.name, name, status, id=f"{index.parent.name}/{name}"))
    return cases


@pytest.mark.parametrize("folder,name,status", _puzzle_cases())
def test_puzzle_uniqueness_matches_sources(folder: str, name: str, status: str) -> None:
    import importlib

    from csp2sat.enumerate import uniqueness
    from csp2sat.generators.base import genre

    parse_text, check, compile_model = _pipeline()
    kind = genre(folder)
    # Uniqueness is about the puzzle's own variables; the files also print auxiliary ones (e.g. connectivity).
    projection = importlib.import_module(kind.read.__module__).puzzle_variables
    puzzle = kind.read((ROOT / "data" / folder / f"{name}.txt").read_text())
    model = check(parse_text(kind.generate(puzzle)))
    expected = {"unique": "unique", "MULTIPLE": "multiple", "UNSOLVABLE": "none"}[status]
    assert uniqueness(compile_model(model), model, names=projection(puzzle)).status == expected


@pytest.mark.parametrize("method,examples", [("blocking", 40), ("split", 40), ("propagate", 60)])
def test_random_csps_enumerated_by_each_method_equal_brute_force(method: str, examples: int) -> None:
    """-O enumerate=blocking|split|propagate: the same answers as brute force, each once, on random small CSPs
    (objectives too)."""
    from bruteforce import brute_force
    from csp_strategies import csp_texts

    from csp2sat.enumerate import open_space

    parse_text, check_model, compile_model = _pipeline()

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(csp_texts())
    def check(text: str) -> None:
        model = check_model(parse_text(text))
        expected = brute_force(model)
        with open_space(compile_model(model, options={"enumerate": method}), model) as space:
            assert space.method == method
            found = [tuple(a.values()) for a in space.solutions()]
        assert len(found) == len(set(found)) == len(expected.answers), text
        assert set(found) == set(expected.answers), text

    check()


def _hidden_space() -> tuple:
    """A space with a hidden variable (x <= y + _h needs one) and its answers (x, y, p), written out."""
    from csp2sat.enumerate import CompiledSpace

    text = "(int x 1 4)\n(int y 1 4)\n(int _h 0 1)\n(<= x (+ y _h))\n(bool p)\n(iff p (< x y))\n"
    parse_text, check_model, compile_model = _pipeline()
    model = check_model(parse_text(text))
    expected = {(x, y, x < y) for x in range(1, 5) for y in range(1, 5) if x <= y + 1}
    return CompiledSpace(compile_model(model), model), expected


def test_propagation_enumeration_hands_over_its_stack_and_falls_back_on_huge_domains() -> None:
    """A propagation search stopped at an answer leaves disjoint cubes that another solver finishes, each answer
    once; hidden variables are confirmed by a SAT call at the leaves (x <= y + _h needs one); a printed domain
    over PROPAGATE_MAX_VALUES values makes the space use the default method instead."""
    from csp2sat.enumerate import DEFAULT_ENUMERATE, PROPAGATE_MAX_VALUES, PropagationEnumerator, open_space
    from csp2sat.solver import new_solver

    space, expected = _hidden_space()
    first = new_solver("glucose4")
    space.load(first)
    search = PropagationEnumerator(first, space, [[]])
    found = []
    for answer in search:
        found.append(tuple(answer.values()))
        if len(found) == 3:
            break
    assert search.stack and search.calls >= 3
    second = new_solver("glucose4")
    space.load(second)
    found += [tuple(a.values()) for a in PropagationEnumerator(second, space, search.stack[::-1])]
    assert len(found) == len(set(found)) and set(found) == expected

    parse_text, check_model, compile_model = _pipeline()
    big = check_model(parse_text(f"(int x 0 {PROPAGATE_MAX_VALUES})\n(int y 0 3)\n(<= x (* 1000 y))\n"))
    with open_space(compile_model(big, options={"enumerate": "propagate"}), big, enumerating=True) as space:
        assert space.method == DEFAULT_ENUMERATE and space.count(limit=5) == 5


def test_blocking_enumeration_resumes_from_its_leftover_on_another_solver() -> None:
    """A blocking search stopped mid-cube hands over (cube, blocked) items: the rest, each answer once."""
    from csp2sat.enumerate import BlockingEnumerator, split_by_values
    from csp2sat.solver import new_solver

    space, expected = _hidden_space()
    cubes, depth = split_by_values(space, 3)
    assert len(cubes) == 8 and depth == 2  # fewest values first: p (2 values), then x (4): 8 >= 3 parts
    first = new_solver()
    space.load(first)
    search = BlockingEnumerator(first, space, [(c, [], "tag") for c in cubes])
    found = []
    for answer in search:
        found.append(tuple(answer.values()))
        if len(found) == 3:
            break
    leftover = search.leftover()
    assert all(item[2] == "tag" for item in leftover) and leftover[0][1]  # the current item, with its answers
    second = new_solver()
    space.load(second)
    found += [tuple(a.values()) for a in BlockingEnumerator(second, space, leftover)]
    assert len(found) == len(set(found)) and set(found) == expected


def test_blocking_enumeration_resumes_on_the_same_solver_under_its_live_literal() -> None:
    """`live`: an item stopped mid-cube and given back to the same solver keeps its activation literal; an item
    whose answers grew elsewhere gets a fresh one. Either way each answer comes once."""
    from csp2sat.enumerate import BlockingEnumerator, CompiledSpace
    from csp2sat.solver import new_solver

    text = "(int x 1 4)\n(int y 1 4)\n(int z 1 3)\n(<= x (+ y 1))\n"
    parse_text, check_model, compile_model = _pipeline()
    model = check_model(parse_text(text))
    compiled = compile_model(model)
    expected = {(x, y, z) for x in range(1, 5) for y in range(1, 5) for z in range(1, 4) if x <= y + 1}
    space = CompiledSpace(compiled, model)
    solver, other = new_solver(), new_solver()
    space.load(solver)
    space.load(other)
    live: dict = {}
    items, found, moved = [([], [])], [], False
    while items:
        search = BlockingEnumerator(solver, space, items, live)
        for answer in search:
            found.append(tuple(answer.values()))
            break
        items = search.leftover()
        if items and live:
            act = next(iter(live.values()))[0]
            assert tuple(items[0][0]) in live  # kept, not retired
        if items and not moved and len(found) == 5:  # one round on another solver: the answers grow there
            moved = True
            elsewhere = BlockingEnumerator(other, space, items)
            for answer in elsewhere:
                found.append(tuple(answer.values()))
                break
            items = elsewhere.leftover()
    assert moved and len(found) == len(set(found)) and set(found) == expected
    assert act > 0 and not live


def test_split_by_values_leaves_a_variable_too_wide_for_now_to_the_next_split() -> None:
    """A variable whose values would exceed 16 x parts after the earlier splits is not used up: splitting a part again takes it."""
    from csp2sat.enumerate import CompiledSpace, split_by_values

    text = "(int a 1 3)\n(int b 1 40)\n(int c 1 50)\n"
    parse_text, check_model, compile_model = _pipeline()
    model = check_model(parse_text(text))
    space = CompiledSpace(compile_model(model), model)
    cubes, depth = split_by_values(space, 4)  # a: 3 parts; b would make 120 > 64
    assert len(cubes) == 3 and depth == 1
    again, depth = split_by_values(space, 4, cubes[0], depth)
    assert len(again) == 40 and depth == 2


@pytest.mark.parametrize(
    "options, enumerating, expected",
    [({}, True, ("blocking", "stable")), ({}, False, ("blocking", "default")),
     ({"enumerate": "cubes", "satmode": "default"}, True, ("cubes", "default")),
     ({"satmode": "focus"}, True, ("blocking", "focus"))],
)
def test_enumeration_settings_reach_the_solver(monkeypatch: pytest.MonkeyPatch, options: dict, enumerating: bool,
                                               expected: tuple) -> None:
    """-O enumerate/satmode: auto is blocking in stable mode for --all/--count, the solver's default otherwise."""
    from pysat.solvers import Solver

    from csp2sat.enumerate import open_space
    from csp2sat.solver import SAT_MODES

    parse_text, check_model, compile_model = _pipeline()
    model = check_model(parse_text("(int x 1 4)\n(int y 1 4)\n(< x y)\n"))
    seen: list[dict] = []
    original = Solver.configure

    def spy(self, parameters):  # type: ignore[no-untyped-def]
        seen.append(dict(parameters))
        return original(self, parameters)

    monkeypatch.setattr(Solver, "configure", spy)
    with open_space(compile_model(model, options=options), model, "cadical195", enumerating=enumerating) as space:
        assert space.method == expected[0]
        assert space.count() == 6
    assert seen == ([SAT_MODES[expected[1]]] if SAT_MODES[expected[1]] else [])


def test_a_closed_space_refuses_queries_instead_of_answering_none() -> None:
    import csp2sat
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    model = csp2sat.parse("(int x 0 3) (int y 0 3) (< x y)")
    with open_space(compile_model(model), model) as space:
        assert space.count() == 6
    for query in (space.count, space.uniqueness, space.facts, lambda: list(space.solutions())):
        with pytest.raises(RuntimeError, match="closed"):
            query()


_INTERRUPTED_THEN_ASKED = """
import os, signal, sys, threading
import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.enumerate import open_space
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal: a runner started in the background ignores it
model = csp2sat.parse("".join(f"(int x{i} 0 9)" for i in range(7)) + "(alldifferent x0 x1 x2 x3 x4 x5 x6)")
with open_space(compile_model(model), model, solver=sys.argv[1]) as space:  # 604,800 answers: a long count
    threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        space.count()
        print("not interrupted")
    except KeyboardInterrupt:
        print(space.uniqueness().status, space.count(3), space.facts() is not None)
"""


@pytest.mark.parametrize("solver", ["cadical195", "glucose4"])
def test_a_query_stopped_by_ctrl_c_leaves_the_space_usable(solver: str) -> None:
    """A notebook stops a long count and asks something quicker: the space answered 'no solution' from then on
    (the solver a SIGINT stopped is replaced by a fresh one)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _INTERRUPTED_THEN_ASKED, solver],
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["multiple", "3", "True"], done.stdout + done.stderr[-500:]


def test_two_threads_on_one_space_get_an_error_not_an_abort() -> None:
    import threading

    import csp2sat
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    model = csp2sat.parse("".join(f"(int q{i} 1 9)" for i in range(9)) + "(alldifferent q0 q1 q2 q3 q4 q5 q6 q7 q8)"
                          "(alldifferent " + " ".join(f"(+ q{i} {i})" for i in range(9)) + ")"
                          "(alldifferent " + " ".join(f"(- q{i} {i})" for i in range(9)) + ")")  # 9 queens: 352
    with open_space(compile_model(model), model) as space:
        errors: list[str] = []
        counts: list[int] = []
        started = threading.Barrier(2)

        def work() -> None:
            started.wait()
            try:
                counts.append(space.count())
            except RuntimeError as err:
                errors.append(str(err))

        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert counts[0] == 352 and (len(counts), len(errors)) in ((2, 0), (1, 1)), (counts, errors)
        assert space.count() == 352
