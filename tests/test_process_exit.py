"""The `csp2sat` command leaves its solvers to the operating system; a library call and `batch` free them.

Freeing CaDiCaL's 8.8 M clauses of a 1000-queens file took 1.1 s of a 19 s run, after the answer was
found and before it was printed (`csp2sat.solver.leave_solvers_at_exit`).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import csp2sat
from csp2sat import solver as solver_module
from csp2sat.solver import leave_solvers_at_exit, new_solver, release

ROOT = Path(__file__).resolve().parent.parent
NQUEENS = ROOT / "tests" / "conformance" / "sugar-examples" / "nqueens-8.csp"

# Count the native solvers freed in a child process, then run the command line as `argv` says.
_PROBE = textwrap.dedent("""
    import sys
    import pysat.solvers as ps
    freed = []
    original = ps.Solver.delete
    def delete(self):
        if getattr(self, "solver", None) is not None and self.nof_clauses():  # not the probes of solver names
            freed.append(1)
        original(self)
    ps.Solver.delete = delete
    import atexit
    atexit.register(lambda: print(f"freed {len(freed)}", file=sys.stderr))
    sys.argv = ["csp2sat"] + sys.argv[1:]
    from csp2sat import cli
    if sys.argv[1] == "--main":  # as a library user would call it
        del sys.argv[1]
        sys.exit(cli.main())
    cli.entry()
""")


def _freed(*argv: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120,
                          cwd=cwd)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def restore_flag():
    before = solver_module._LEAVE_TO_EXIT
    yield
    leave_solvers_at_exit(before)


def test_release_frees_by_default_and_leaves_when_told(restore_flag) -> None:
    for leave in (False, True):
        leave_solvers_at_exit(leave)
        sat = new_solver("cadical195")
        sat.add_clause([1, 2])
        before = len(solver_module._ABANDONED)
        release(sat)
        assert sat.solver is None
        kept = solver_module._ABANDONED[before:]
        assert any(type(obj).__name__ == "PyCapsule" for obj in kept) == leave, kept


SUDOKU = sorted(p for p in (ROOT / "data" / "sudoku").glob("*.txt") if "." not in p.stem)[0]


@pytest.mark.parametrize("argv", [["solve", str(NQUEENS)], ["puzzle", "sudoku", str(SUDOKU)]])
def test_the_command_does_not_free_its_solver_but_main_does(tmp_path: Path, argv: list[str]) -> None:
    status, out, err = _freed(*argv, cwd=tmp_path)
    assert status == 0 and ("s SATISFIABLE" in out or "+" in out), err
    assert "freed 0" in err, err
    status, out, err = _freed("--main", *argv, cwd=tmp_path)
    assert status == 0 and "freed 0" not in err and "freed " in err, err


def test_batch_frees_each_runs_solver(tmp_path: Path, restore_flag) -> None:
    # batch runs many files in its processes: it turns the command's setting off before anything else
    leave_solvers_at_exit(True)
    from csp2sat.cli import main

    main(["batch", str(tmp_path / "no such folder"), "-o", str(tmp_path / "out.jsonl"), "-q"])
    assert solver_module._LEAVE_TO_EXIT is False


def test_the_library_answer_is_unchanged(restore_flag) -> None:
    leave_solvers_at_exit(True)
    assert csp2sat.solve("(int x 1 3) (> x 2)").values == {"x": 3}


def test_keep_until_exit_keeps_only_in_the_commands_process(restore_flag) -> None:
    before = len(solver_module._KEPT)
    leave_solvers_at_exit(False)
    solver_module.keep_until_exit(object())
    assert len(solver_module._KEPT) == before
    leave_solvers_at_exit(True)
    kept = object()
    solver_module.keep_until_exit(kept)
    assert solver_module._KEPT[-1] is kept
    solver_module._KEPT.remove(kept)


# A pigeonhole problem: minutes of search, a fraction of a second to read
_PIGEONS = "".join(f"(bool b{p}_{h})" for p in range(12) for h in range(11)) + "".join(
    "(or " + " ".join(f"b{p}_{h}" for h in range(11)) + ")" for p in range(12)) + "".join(
    f"(or (not b{p}_{h}) (not b{q}_{h}))" for h in range(11) for p in range(12) for q in range(p + 1, 12))


def test_a_stopped_command_ends_with_its_output_and_exit_handlers(tmp_path: Path) -> None:
    # it leaves by os._exit, so that nothing it built is freed; what it printed and its exit handlers must not be lost
    path = tmp_path / "php.csp"
    path.write_text(_PIGEONS, encoding="utf-8")
    status, out, err = _freed("solve", "--timeout", "1", str(path), cwd=tmp_path)
    assert (status, out) == (0, "s UNKNOWN\n"), err
    assert "c stopped by the time limit" in err and "freed " in err, err  # the probe's exit handler ran
