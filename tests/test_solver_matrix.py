"""Every solver name offered works in every mode, and the capability table says the truth about PySAT.

The matrix runs each (usable solver, mode) pair through the command line on
tiny files: solve, objective, UNSAT, --all/-n/--count/--unique/--facts,
explain, puzzle --unique/--facts. Before the table existed, Kissat printed
``o 4`` forever on an objective, aborted in C (exit 134) on the modes and said
that an UNSAT file was satisfiable in explain; lingeling failed with an
internal error everywhere.

The capability probes run in child processes, since a solver used beyond its
abilities may abort the whole process.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from csp2sat.diagnostics import Exit
from csp2sat.solver import CAPABILITIES, check_solver, solver_names, usable_solvers
from tests.cli_support import run_cli

ROOT = Path(__file__).resolve().parent.parent

SAT = "(int x 1 3)\n(int y 1 3)\n(< x y)\n(bool p)\n(iff p (= x 1))\n(>= y 3)\n"  # x=1,p / x=2,-p ; y=3
UNSAT = "(int x 1 3)\n(int y 1 3)\n(> x y)\n(> y x)\n"
OBJECTIVE = "(int x 0 5)\n(int y 0 5)\n(>= (+ x y) 4)\n(<= y 3)\n(objective minimize x)\n"  # x=1,y=3 only
# Every constraint becomes a domain bound and two Booleans are free: a CNF with no clause, whose variables only
# assumptions mention (CaDiCaL's propagate() called it contradictory: 0 answers; Lingeling aborted on the
# second assumption of a melted variable)
BOUNDS = "(int x 0 5)\n(bool p)\n(bool q)\n(> x 3)\n(< x 5)\n"  # x=4, any p, q: 4 answers


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("matrix")
    paths = {}
    for name, text in (("sat", SAT), ("unsat", UNSAT), ("objective", OBJECTIVE), ("bounds", BOUNDS)):
        path = folder / f"{name}.csp"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def _blocks(out: str) -> list[str]:
    """The answer blocks (``a NAME<TAB>VALUE`` lines up to the lone ``a``) of an output."""
    blocks, current = [], []
    for line in out.splitlines():
        if line == "a":
            blocks.append("\n".join(current))
            current = []
        elif line.startswith("a "):
            current.append(line)
    return blocks


# Each mode: the command line after `csp2sat` ({sat}, ... are the files) and a check of (status, stdout).
MODES = {
    "solve": (["solve", "{sat}"], lambda s, o: s == 0 and o.startswith("s SATISFIABLE\n") and len(_blocks(o)) == 1),
    "unsat": (["solve", "{unsat}"], lambda s, o: s == 0 and o == "s UNSATISFIABLE\n"),
    "objective": (
        ["solve", "{objective}"],
        lambda s, o: s == 0 and o.endswith("o 1\na x\t1\na y\t3\na\ns OPTIMUM FOUND\n") and o.count("\n") < 30,
    ),
    "all": (["solve", "--all", "{sat}"], lambda s, o: s == 0 and len(_blocks(o)) == 2 and o.endswith("c SOLUTIONS 2\n")),
    "n": (["solve", "-n", "1", "{sat}"], lambda s, o: s == 0 and o.endswith("c SOLUTIONS AT LEAST 1\n")),
    "count": (["solve", "--count", "{sat}"], lambda s, o: s == 0 and o == "c SOLUTIONS 2\n"),
    "count-cubes": (["solve", "--count", "-O", "enumerate=cubes", "{sat}"], lambda s, o: s == 0 and o == "c SOLUTIONS 2\n"),
    "count-propagate": (  # falls back to blocking where PySAT offers no propagate()
        ["solve", "--count", "-O", "enumerate=propagate", "{sat}"],
        lambda s, o: s == 0 and o == "c SOLUTIONS 2\n",
    ),
    "count-propagate-jobs": (
        ["solve", "--count", "-j", "2", "-O", "enumerate=propagate", "{sat}"],
        lambda s, o: s == 0 and o == "c SOLUTIONS 2\n",
    ),
    **{
        f"count-bounds-{method}": (["solve", "--count", "-O", f"enumerate={method}", "{bounds}"],
                                   lambda s, o: s == 0 and o == "c SOLUTIONS 4\n")
        for method in ("blocking", "split", "cubes", "propagate")
    },
    "count-unsat": (["solve", "--count", "{unsat}"], lambda s, o: s == 0 and o == "c SOLUTIONS 0\n"),
    "unique": (["solve", "--unique", "{sat}"], lambda s, o: s == 0 and "c MULTIPLE\n" in o and len(_blocks(o)) == 2),
    "unique-objective": (
        ["solve", "--unique", "{objective}"],
        lambda s, o: s == 0 and o == "s SATISFIABLE\no 1\na x\t1\na y\t3\na\nc UNIQUE\ns OPTIMUM FOUND\n",
    ),
    "facts": (
        ["solve", "--facts", "{sat}"],
        lambda s, o: s == 0 and o == "s SATISFIABLE\nc FACT x\t?\nc FACT y\t3\nc FACT p\t?\n",
    ),
    "explain": (
        ["explain", "{unsat}"],
        lambda s, o: s == 0 and "these 2 cannot all hold" in o and o.count(".csp:3: (> x y)\n") == 1,
    ),
    "explain-sat": (["explain", "{sat}"], lambda s, o: s == 0 and "satisfiable, nothing to explain" in o),
    "puzzle-unique": (
        ["puzzle", "slitherlink", str(ROOT / "data" / "slitherlink" / "cspuz_4x4.txt"), "-f", "answer", "--unique"],
        lambda s, o: s == 0 and o.strip() != "",
    ),
    "puzzle-unique-exclude": (  # Hashiwokakero's uniqueness check builds a second problem
        ["puzzle", "hashi", str(ROOT / "data" / "hashi" / "pzprjs_5x5.txt"), "-f", "answer", "--unique", "--facts"],
        lambda s, o: s == 0 and o.strip() != "",
    ),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("solver", usable_solvers())
def test_every_offered_solver_in_every_mode(capsys, files: dict[str, str], solver: str, mode: str) -> None:
    argv, ok = MODES[mode]
    argv = [arg.format(**files) for arg in argv] + ["--solver", solver]
    status, out, err = run_cli(capsys, *argv)
    assert ok(status, out), f"csp2sat {' '.join(argv)} -> {status}\n{out}\n{err}"
    if mode.startswith("puzzle-unique"):
        assert "the solution is unique" in err


@pytest.mark.parametrize("command", ["solve", "explain", "puzzle"])
@pytest.mark.parametrize("name", ["nosuchsat", "cryptominisat5"])
def test_unknown_or_missing_solver_is_a_usage_error_everywhere(capsys, files: dict[str, str], command: str, name: str) -> None:
    if name in ("cryptominisat5",) and "cryptosat" in usable_solvers():
        pytest.skip("pycryptosat is installed here")
    argv = {"solve": ["solve", files["sat"]], "explain": ["explain", files["unsat"]],
            "puzzle": ["puzzle", "slitherlink", str(ROOT / "data" / "slitherlink" / "cspuz_4x4.txt")]}[command]
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, *argv, "--solver", name)
    assert stop.value.code == Exit.USAGE
    err = capsys.readouterr().err
    assert "--solver" in err and "choose one of: " + ", ".join(usable_solvers()) in err


def test_help_lists_only_usable_solvers(capsys) -> None:
    for command in ("solve", "explain", "puzzle"):
        with pytest.raises(SystemExit):
            run_cli(capsys, command, "--help")
        text = " ".join(capsys.readouterr().out.split())
        assert ", ".join(usable_solvers()) in text
        assert "cryptosat" not in text or "cryptosat" in usable_solvers()


def test_aliases_resolve_to_the_table() -> None:
    assert set(usable_solvers()) <= set(CAPABILITIES)
    assert check_solver("ks") == "kissat404" and check_solver("Glucose4") == "glucose4"
    assert all(name in solver_names() for name in ("cd19", "lgl", "mgh"))


# ---------------------------------------------------------------- the table against the installed PySAT

# argv: solver, "raw" (PySAT's own Solver) or "ours" (csp2sat.solver.new_solver, which callers get), abilities
PROBE = r"""
import sys, warnings
from pysat.solvers import Solver, SolverNames
from csp2sat.solver import new_solver
warnings.simplefilter("ignore")
name = getattr(SolverNames, sys.argv[1])[0]
for what in sys.argv[3:]:
    s = Solver(name=name) if sys.argv[2] == "raw" else new_solver(name)
    s.add_clause([1, 2]); s.add_clause([-1, 2])
    if what == "assumptions":
        ok = s.solve(assumptions=[-2]) is False and s.solve(assumptions=[1]) is True
    elif what == "incremental":
        ok = s.solve() is True
        s.add_clause([-2])
        ok = ok and s.solve() is False
    elif what == "core":
        ok = s.solve(assumptions=[-2, 3]) is False and s.get_core() == [-2]
    elif what == "phases":
        s.set_phases([-1, 2]); ok = s.solve() is True
    elif what == "propagate":
        ok = s.propagate(assumptions=[-2])[0] is False and s.propagate(assumptions=[1])[1] == [1, 2]
    elif what == "interrupt":  # stops a search from another thread (PySAT's own solver: ours stops it so)
        import threading
        from pysat.examples.genhard import PHP
        s.delete()
        s = Solver(name=name, bootstrap_with=PHP(9).clauses)
        try:
            s.interrupt(); s.clear_interrupt()
        except NotImplementedError:
            ok = False
        else:
            threading.Timer(0.2, s.interrupt).start()
            ok = s.solve_limited(expect_interrupt=True) is None
    print(what, "ok" if ok else "WRONG", flush=True)
    s.delete()
"""


ABILITIES = ("assumptions", "incremental", "core", "phases", "propagate")


def _probe(solver: str, way: str, abilities: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PROBE, solver, way, *abilities], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("solver", usable_solvers())
def test_what_the_table_grants_works(solver: str) -> None:
    granted = [k for k in ABILITIES if k not in CAPABILITIES[solver].missing()]
    done = _probe(solver, "ours", granted)
    assert done.returncode == 0 and done.stdout.split() == [w for k in granted for w in (k, "ok")], done.stderr


@pytest.mark.parametrize("solver", usable_solvers())
def test_the_table_says_which_searches_interrupt_stops(solver: str) -> None:
    """`Capabilities.interrupt` decides how the watchdog stops a search (`Watchdog`): it must be true."""
    done = _probe(solver, "raw", ["interrupt"])
    stopped = done.returncode == 0 and done.stdout.split() == ["interrupt", "ok"]
    assert stopped == CAPABILITIES[solver].interrupt, (done.stdout, done.stderr[-300:])


@pytest.mark.parametrize(
    "solver,ability",
    [(s, k) for s in usable_solvers() for k in CAPABILITIES[s].missing()],
)
def test_what_the_table_denies_is_really_missing(solver: str, ability: str) -> None:
    done = _probe(solver, "raw", [ability])  # a wrong answer, an exception or an abort (Kissat: exit 134)
    assert done.returncode != 0 or "WRONG" in done.stdout


def _golomb(marks: int, longest: int) -> str:
    """A Golomb ruler of `marks` marks no longer than `longest`, shortest wanted: easy to satisfy, long to prove."""
    lines = [f"(int length {marks * (marks - 1) // 2} {longest})", "(objective minimize length)", "(int m_0 0 0)"]
    lines += [f"(int m_{i} 0 {longest})" for i in range(1, marks)]
    lines += [f"(< m_{i} m_{i + 1})" for i in range(marks - 1)] + [f"(<= m_{marks - 1} length)"]
    differences = []
    for j in range(marks - 1):
        for i in range(j + 1, marks):
            differences.append(f"d_{i}_{j}")
            lines += [f"(int d_{i}_{j} 0 {longest})", f"(= d_{i}_{j} (- m_{i} m_{j}))"]
    return "\n".join(lines + ["(alldifferent " + " ".join(differences) + ")"]) + "\n"


@pytest.mark.parametrize("solver", usable_solvers())
def test_every_offered_solver_stops_on_time_without_a_false_verdict(tmp_path: Path, solver: str) -> None:
    """A time limit during an objective search, for every solver name offered. CryptoMiniSat handles SIGINT
    itself and its search returned None, read as "no better solution": `s OPTIMUM FOUND` at 85 on a 11-mark
    Golomb ruler (the optimum is 72); MapleCM and MergeSat heard the stop seconds late. The 10-mark ruler's
    optimum (55) takes far longer than the limit to prove."""
    path = tmp_path / "golomb10.csp"
    path.write_text(_golomb(10, 80))
    limit = 1.5
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "csp2sat", "solve", "--solver", solver, "--timeout", str(limit), str(path)],
                          capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    objectives = re.findall(r"^o (\d+)$", done.stdout, re.M)
    if done.stdout.endswith("s OPTIMUM FOUND\n"):
        assert objectives[-1] == "55", done.stdout
    else:
        assert "c stopped before the optimum was proven" in done.stdout or done.stdout.startswith("s UNKNOWN"), done.stdout
    assert seconds < limit + 3.5, f"stopped {seconds - limit:.1f} s late"
