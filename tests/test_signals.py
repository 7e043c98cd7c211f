"""Time-outs, Ctrl-C and SIGTERM behave the same at every stage, through the real command in a child process.

Each stage gets a file where it dominates: parsing (many small constraints),
encoding (a linear sum over large domains), search (a pigeonhole problem).
Whatever stops the run, at whatever stage, the output is ``s UNKNOWN`` (or the
answers found so far and a ``c`` line) and the exit status is 0. Before: Ctrl-C
while parsing printed no ``s`` line (130), while encoding exit 130, SIGTERM
killed the run with nothing printed (143), and --timeout did not count parsing.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _command() -> list[str]:
    """The installed `csp2sat` next to this Python, as users run it (else ``python -m csp2sat``)."""
    exe = Path(sys.executable).parent / "csp2sat"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "csp2sat"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("signals")
    n = 11  # 12 pigeons, 11 holes as clauses: minutes of search, a fraction of a second to read
    php = [f"(bool b{p}_{h})" for p in range(n + 1) for h in range(n)]
    php += ["(or " + " ".join(f"b{p}_{h}" for h in range(n)) + ")" for p in range(n + 1)]
    php += [f"(or (not b{p}_{h}) (not b{q}_{h}))" for h in range(n) for p in range(n + 1) for q in range(p + 1, n + 1)]
    parse = [f"(int v{i} 0 9)" for i in range(3000)]
    parse += [f"(<= (+ v{(7 * i) % 3000} v{(13 * i + 1) % 3000}) 12)" for i in range(40000)]
    # 3.6 M clauses: encoded and loaded in 2-3 s. (Over 0..600 it was 0.9 M, done in 0.85 s once loading got
    # faster, so the signal at 0.6 s could come as the process was exiting, its answer printed.)
    encode = ["(int a 0 1200)", "(int b 0 1200)", "(int c 0 1200)", "(<= (+ a b c) 2000)", "(>= (+ a b c) 1800)",
              "(!= (+ a c) b)"]
    many = [f"(bool q{i})" for i in range(18)]  # 2^18 answers: counting them takes minutes
    paths = {}
    for name, lines in (("search", php), ("parse", parse), ("encode", encode), ("many", many)):
        paths[name] = folder / f"{name}.csp"
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


_started: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_orphans():
    """Kill any csp2sat a failed test left running (a pigeonhole search would go on for hours)."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _start(argv: list[str], cwd: Path) -> subprocess.Popen:
    """Start csp2sat in its own process group (as a shell job) and wait until its signal handling is set up."""
    proc = subprocess.Popen(_command() + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    _started.append(proc)
    deadline = time.monotonic() + 30
    while not _children(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the watchdog helper starts once the handlers are installed
    return proc


def _finish(proc: subprocess.Popen, within: float = 20.0) -> tuple[int, str, str, float]:
    start = time.monotonic()
    try:
        out, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"csp2sat did not stop within {within} s of the signal\n{out}\n{err}")
    return proc.returncode, out, err, time.monotonic() - start


@pytest.mark.parametrize("stage,delay", [("parse", 0.2), ("encode", 0.6), ("search", 2.0)])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_at_any_stage_prints_unknown(files, tmp_path: Path, stage: str, delay: float, sig: int) -> None:
    proc = _start(["solve", str(files[stage])], tmp_path)
    time.sleep(delay)
    os.killpg(proc.pid, sig)  # a terminal's Ctrl-C goes to the whole process group
    status, out, err, _ = _finish(proc)
    assert (status, out) == (0, "s UNKNOWN\n"), err
    assert f"c stopped by {'SIGTERM' if sig == signal.SIGTERM else 'Ctrl-C'}" in err
    assert "Traceback" not in err


def _catches(pid: int, sig: int) -> bool:
    """True once process `pid` has a handler of its own for `sig` (its SigCgt mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) >> (sig - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see when the handlers are set")
@pytest.mark.parametrize("command, status_wanted, out_wanted", [
    (["solve", "{search}"], 0, "s UNKNOWN\n"),
    (["puzzle", "slitherlink", str(ROOT / "data" / "slitherlink" / "puzzleloop_hard_3417429_30x25.txt")], 1, ""),
])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_process_starts_is_a_stop_too(files, tmp_path: Path, command, status_wanted, out_wanted,
                                                         sig: int) -> None:
    """A signal as soon as the command has its SIGTERM handler, before its imports and its watchdog: the same
    answer as a stop at any later stage (before: a traceback, death by SIGTERM, or 'c interrupted' and 130)."""
    proc = subprocess.Popen(_command() + [a.format(**files) for a in command], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    _started.append(proc)
    deadline = time.monotonic() + 30
    while not _catches(proc.pid, signal.SIGTERM) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    os.killpg(proc.pid, sig)
    status, out, err, _ = _finish(proc)
    assert (status, out) == (status_wanted, out_wanted), err
    assert "s UNKNOWN" in out + err and "Traceback" not in err
    assert f"stopped by {'SIGTERM' if sig == signal.SIGTERM else 'Ctrl-C'}" in err


def test_timeout_counts_parsing(files, tmp_path: Path) -> None:
    start = time.monotonic()
    done = subprocess.run(_command() + ["solve", "--timeout", "0.5", str(files["parse"])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert (done.returncode, done.stdout) == (0, "s UNKNOWN\n"), done.stderr
    assert "c stopped by the time limit" in done.stderr
    full = subprocess.run(_command() + ["check", str(files["parse"])], cwd=tmp_path, capture_output=True, timeout=120)
    assert full.returncode == 0
    # Parsing alone takes longer than the limit: stopping at the limit is what proves it counted.
    assert took < 0.5 + 2.0


def test_a_stopped_count_still_names_its_solver_with_v(files, tmp_path: Path) -> None:
    """-v's line for the mode (time, method, solver) comes after a stop too, as the help promises."""
    done = subprocess.run(_command() + ["solve", "-v", "--count", "--timeout", "1.5", str(files["many"])],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "c SOLUTIONS AT LEAST" in done.stdout, done.stderr
    assert re.search(r"^c count +[0-9.]+ s +\(-O enumerate=\w+, solver \w+\)$", done.stderr, re.M), done.stderr


@pytest.mark.parametrize("mode", ["--count", "--all"])
def test_an_interrupted_count_is_a_marked_lower_bound(files, tmp_path: Path, mode: str) -> None:
    proc = _start(["solve", mode, str(files["many"])], tmp_path)
    time.sleep(2.0)
    os.killpg(proc.pid, signal.SIGTERM)
    status, out, err, _ = _finish(proc)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[-1].startswith("c SOLUTIONS AT LEAST ")
    found = int(lines[-1].split()[-1])
    assert found > 0
    assert not any(line.startswith("c SOLUTIONS ") and "AT LEAST" not in line for line in lines)
    if mode == "--all":
        assert lines[0] == "s SATISFIABLE" and "c interrupted: the answers above are all that was found" in lines
        assert found <= lines.count("a") <= found + 1  # a signal between an answer and its count


def test_sigterm_keeps_the_best_answer_of_an_optimisation(tmp_path: Path) -> None:
    # jss-ft10 takes many seconds to prove its optimum: the signal comes right after its first answer,
    # whatever the machine's speed (a fixed delay let a fast machine finish golombRuler-8 first)
    jss = ROOT / "tests" / "conformance" / "sugar-examples" / "jss-ft10.csp"
    proc = _start(["solve", str(jss)], tmp_path)
    first = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        first.append(line)
        if not line or line == "a\n":  # the end of the first answer block
            break
    os.killpg(proc.pid, signal.SIGTERM)
    status, rest, err, _ = _finish(proc)
    out = "".join(first) + rest
    assert status == 0, err
    assert out.startswith("s SATISFIABLE\no ")
    assert out.splitlines()[-1].startswith("c stopped before the optimum was proven; best objective ")
    assert "c stopped by SIGTERM" in err


def test_puzzle_and_explain_take_a_timeout(files, tmp_path: Path) -> None:
    big = ROOT / "data" / "slitherlink" / "puzzleloop_hard_3417429_30x25.txt"
    done = subprocess.run(_command() + ["puzzle", "slitherlink", str(big), "--timeout", "0.05"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("s UNKNOWN\n") and "stopped by the time limit" in done.stderr
    done = subprocess.run(_command() + ["explain", "--timeout", "1", str(files["search"])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("s UNKNOWN\n"), done.stderr
    assert "stopped by the time limit" in done.stdout


@pytest.mark.parametrize("solver", ["glucose4", "minisat22", "lingeling", "kissat", "cadical103"])
def test_timeout_stops_every_solver_family(files, tmp_path: Path, solver: str) -> None:
    """The MiniSat family ignored SIGINT inside solve_limited: --timeout never fired with glucose4."""
    start = time.monotonic()
    done = subprocess.run(_command() + ["solve", "--solver", solver, "--timeout", "1", str(files["search"])],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "s UNKNOWN\n"), done.stderr
    assert time.monotonic() - start < 10


def test_no_helper_process_outlives_the_run(files, tmp_path: Path) -> None:
    if shutil.which("pgrep") is None:
        pytest.skip("pgrep not available")
    proc = _start(["solve", str(files["search"])], tmp_path)
    helpers = _children(proc.pid)
    assert helpers
    os.killpg(proc.pid, signal.SIGTERM)
    _finish(proc)
    time.sleep(0.5)
    for pid in helpers:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


@pytest.mark.parametrize("command", [["check"], ["encode", "-o", "x.cnf", "--map", "x.map"]])
def test_sigterm_stops_the_commands_that_do_not_solve_like_ctrl_c(tmp_path: Path, command: list[str]) -> None:
    big = tmp_path / "big.csp"  # seconds of parsing
    big.write_text("".join(f"(int v{i} 0 100)\n" for i in range(2000))
                   + "".join(f"(or (<= (+ v{i % 2000} v{(7 * i) % 2000}) 150) (>= (- v{(3 * i) % 2000} v{(5 * i) % 2000}) 7))\n"
                             for i in range(150000)), encoding="utf-8")
    proc = subprocess.Popen(_command() + command + [str(big)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    _started.append(proc)
    time.sleep(1.0)
    assert proc.poll() is None, "the command ended before the signal: make the file bigger"
    os.kill(proc.pid, signal.SIGTERM)
    status, _, err, _ = _finish(proc)
    assert status == 130 and "c interrupted" in err and "Traceback" not in err


@pytest.mark.parametrize("mode", ["--count", "--all"])
def test_an_interrupted_parallel_count_is_a_marked_lower_bound(tmp_path: Path, mode: str) -> None:
    many = tmp_path / "many.csp"  # 10^8 answers: never counted to the end
    many.write_text("".join(f"(int x{i} 0 9)\n" for i in range(8)), encoding="utf-8")
    done = subprocess.run(_command() + ["solve", mode, "-j", "2", "--timeout", "4", str(many)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    # Failed once in ~6 full runs under load (2026-11-29) with its message lost: say what was seen.
    seen = f"stdout ends {done.stdout.splitlines()[-3:]!r}; stderr {done.stderr[-2000:]!r}"
    assert done.returncode == 0, seen
    last = done.stdout.splitlines()[-1]
    assert last.startswith("c SOLUTIONS AT LEAST ") and int(last.split()[-1]) > 0, seen
    assert "c stopped by the time limit" in done.stderr, seen


_TWO_TIMEOUTS = """
import os, signal, sys, time
import csp2sat
# Python's own Ctrl-C handler, as in a terminal, even where the test run was started in the
# background (a shell's `&` leaves SIGINT ignored, and children inherit that)
signal.signal(signal.SIGINT, signal.default_int_handler)
path, solver = sys.argv[1], sys.argv[2]
for attempt in (1, 2):
    start = time.monotonic()
    result = csp2sat.solve(path, solver=solver, timeout=0.5)
    print(attempt, result.status, round(time.monotonic() - start), flush=True)
print("blocked", sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])), flush=True)
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(2)
    print("Ctrl-C ignored")
except KeyboardInterrupt:
    print("Ctrl-C heard")
"""


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "lingeling"])
def test_a_process_survives_interrupted_searches(files, tmp_path: Path, solver: str) -> None:
    """PySAT jumps out of an interrupted search with SIGINT still blocked and its own handler installed:
    after the first time-out in a process, the second search with a time limit ran for ever and
    Ctrl-C did nothing (a notebook calling `csp2sat.solve(..., timeout=)` twice)."""
    try:
        done = subprocess.run([sys.executable, "-c", _TWO_TIMEOUTS, str(files["search"]), solver],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as stuck:
        pytest.fail(f"the second time-limited search did not stop: {stuck.stdout!r}")
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["1", "UNKNOWN"], ["2", "UNKNOWN"]], done.stderr
    assert all(int(line.split()[2]) < 10 for line in lines[:2])
    assert lines[2:] == ["blocked []", "Ctrl-C heard"], done.stderr


_BLOCKED_SIGINT = """
import signal, sys, time
import csp2sat
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
start = time.monotonic()
try:
    result = csp2sat.solve(sys.argv[1], solver=sys.argv[2], timeout=1.0)
    print(result.status, round(time.monotonic() - start), flush=True)
except KeyboardInterrupt:
    print("UNKNOWN", round(time.monotonic() - start), "(as KeyboardInterrupt)", flush=True)
"""


@pytest.mark.parametrize("solver", ["glucose4", "minisat22", "maplechrono"])
def test_minisat_family_searches_stop_without_a_signal(files, tmp_path: Path, solver: str) -> None:
    """Solvers with interrupt() are stopped from the watchdog's thread, not by PySAT's jump out of the search
    on SIGINT (unsafe inside malloc): so they stop even where SIGINT cannot reach the process."""
    try:
        done = subprocess.run([sys.executable, "-c", _BLOCKED_SIGINT, str(files["search"]), solver],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the search did not stop without SIGINT")
    status, seconds = done.stdout.split()[:2]
    assert status == "UNKNOWN" and int(seconds) < 10, done.stderr


_STUCK = """
import ctypes, signal, sys
from csp2sat.solver import Watchdog
watchdog = Watchdog(0.5, last_word=sys.argv[1] == "yes")
watchdog.check()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
print("waiting", flush=True)
# What a jump out of malloc leaves: the allocator's lock taken, waited for in free() by the main thread,
# which holds the GIL meanwhile (a PyDLL call keeps it), so the watchdog's thread keeps waking for it.
libc = ctypes.PyDLL(None)
mutex = ctypes.create_string_buffer(64)  # zeroed: a default pthread mutex, unlocked
libc.pthread_mutex_lock(mutex)
libc.pthread_mutex_lock(mutex)
"""


def test_a_command_stuck_after_a_stop_is_ended_by_its_watchdog(tmp_path: Path) -> None:
    """CaDiCaL and Lingeling are stopped by PySAT's jump, which can leave the allocator's lock taken: the
    process then waits for ever. The command line's watchdog ends such a process with a word on stderr;
    a library caller (no last word) is never killed."""
    ended = subprocess.Popen([sys.executable, "-c", _STUCK, "yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=tmp_path)
    kept = subprocess.Popen([sys.executable, "-c", _STUCK, "no"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    _started.extend([ended, kept])
    try:
        out, err = ended.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        pytest.fail("the stuck process was not ended")
    assert ended.returncode == -signal.SIGKILL and out == "waiting\n"
    assert "hung after the SAT solver was stopped" in err and "glucose4" in err
    assert kept.poll() is None  # still waiting


_IN_A_THREAD = """
import sys, threading, time
import csp2sat
found = {}
def work():
    start = time.monotonic()
    options = dict(kv.split("=") for kv in sys.argv[3:])
    found["status"] = csp2sat.solve(sys.argv[1], solver=sys.argv[2], timeout=1.0, options=options).status
    found["seconds"] = time.monotonic() - start
worker = threading.Thread(target=work)
worker.start()
worker.join()
print(found["status"], round(found["seconds"]))
"""


@pytest.mark.parametrize("solver", ["glucose4", "cadical195"])
def test_the_time_limit_holds_outside_the_main_thread(files, tmp_path: Path, solver: str) -> None:
    """A library call in a worker thread (a web app, a notebook's background job): the helper could not signal
    such a thread and was started reading /dev/null, so it quit at once and the search ran to its end. No
    signal reaches a thread at all: Glucose is stopped by `interrupt()`, CaDiCaL between budgeted slices."""
    try:
        done = subprocess.run([sys.executable, "-c", _IN_A_THREAD, str(files["search"]), solver],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the time limit did not stop a search in a worker thread")
    status, seconds = done.stdout.split()
    assert status == "UNKNOWN" and int(seconds) < 10, done.stderr


_NO_JUMP = """
import sys, time
import pysat.solvers
import csp2sat
from csp2sat import solver
from csp2sat.cli import main
def jumping(*args, **kwargs):
    raise SystemExit("the one-call search, stopped by PySAT's jump, ran")
pysat.solvers.Cadical195.solve = jumping
start = time.monotonic()
try:
    if sys.argv[2] == "library":
        print("s", csp2sat.solve(sys.argv[1], solver="cadical195", timeout=1.0).status, flush=True)
    else:
        main(["solve", "--solver", "cadical195", "--timeout", "1", sys.argv[1]])
finally:
    # a solver left by PySAT's jump is abandoned (`guarded`); one stopped between slices is not
    print("c", len(solver._ABANDONED), "abandoned in", round(time.monotonic() - start), "s", file=sys.stderr)
"""


@pytest.mark.parametrize("caller", ["library", "command"])
def test_a_time_limit_stops_cadical_without_the_jump(files, tmp_path: Path, caller: str) -> None:
    """CI hung for an hour in `solve(golombRuler-8, timeout=1.0)`, and `csp2sat solve --timeout` was seen stuck:
    PySAT's jump out of CaDiCaL on SIGINT can land inside malloc. With a time limit a CaDiCaL search runs in
    conflict-budgeted slices sized to end at the deadline, and the time limit stops it between two of them
    (the command's helper holds its SIGINT while a slice runs); the one-call search is never used."""
    try:
        done = subprocess.run([sys.executable, "-c", _NO_JUMP, str(files["search"]), caller],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the time limit did not stop the search")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["s", "UNKNOWN"]
    abandoned, seconds = re.search(r"c (\d+) abandoned in (\d+) s", done.stderr).groups()
    assert (abandoned, int(seconds) < 10) == ("0", True), done.stderr


_SIGINT_INSIDE_NUMPY_IMPORT = """
import importlib.abc, os, signal, sys


class SigintHalfWay(importlib.abc.MetaPathFinder):
    fired = False

    def find_spec(self, name, path, target=None):
        if name == "numpy.linalg" and not SigintHalfWay.fired:  # half-way through numpy's first import
            SigintHalfWay.fired = True
            os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, SigintHalfWay())
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (see _TWO_TIMEOUTS)
from csp2sat.encoders.cnf import numpy_module
try:
    numpy_module()
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", "numpy.linalg" in sys.modules)
"""


def test_a_stop_during_numpys_first_import_waits_for_its_end() -> None:
    """numpy is imported only for large formulas (a third of a small run's time otherwise); a Ctrl-C or
    time limit during that first import must not leave it half-initialised: the signal is held back
    and arrives once the import is complete (fails where numpy is imported without holding it)."""
    done = subprocess.run([sys.executable, "-c", _SIGINT_INSIDE_NUMPY_IMPORT], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split() == ["interrupted", "True"], done.stderr


def test_a_small_run_does_not_import_numpy(tmp_path: Path) -> None:
    """Start-up: `csp2sat solve` of a small file, with and without a time limit, never loads numpy."""
    small = tmp_path / "small.csp"
    small.write_text("(int x 1 9) (int y 1 9) (alldifferent x y) (= (+ x y) 10) (objective minimize x)\n")
    script = ("import sys\nfrom csp2sat.cli import main\nfor extra in ([], ['--timeout', '30']):\n"
              "    try:\n        main(['solve', *extra, sys.argv[1]])\n    except SystemExit:\n        pass\n"
              "print('numpy' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, str(small)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.splitlines()[-1] == "False", done.stderr


def _queens(folder: Path, n: int) -> Path:
    """Sugar's n-queens model (benchmarks/families.py), where Glucose's restarts are blocked for a long time."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import families

    path = folder / f"nqueens-{n}.csp"
    path.write_text(families.nqueens(n))
    return path


# Queens on which each Glucose searches for 25 s and more without a restart (measured with PySAT on the
# CNF: `interrupt()` 3 s into the search was not heard within 25 s). Glucose 3 restarts on most smaller
# boards (200 queens: 7 restarts in 2 s), Glucose 4 solves 200 queens in 2 s. That is the order-encoded
# CNF (`-O int=order`): since the queens are one-hot by default Glucose answers 120 queens in a moment.
_LATE_QUEENS = {"glucose3": 350, "gluecard3": 350, "glucose4": 120, "glucose42": 120, "gluecard4": 120}
_ORDER = ["-O", "int=order"]


@pytest.mark.parametrize("solver", sorted(_LATE_QUEENS))
def test_glucose_stops_on_time_between_its_restarts(tmp_path: Path, solver: str) -> None:
    """Glucose hears `interrupt()` only where a restart is due, and on these queens its restarts are blocked
    for 25 s and more: `--timeout` printed its `s UNKNOWN` that late (glucose4 on 120 queens: minutes).
    Its searches now run in a thread of their own, abandoned a moment after the stop."""
    queens = _queens(tmp_path, _LATE_QUEENS[solver])
    start = time.monotonic()
    done = subprocess.run(_command() + ["solve", "-v", "--solver", solver, *_ORDER, "--timeout", "6", str(queens)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "s UNKNOWN\n"), done.stderr
    assert float(re.search(r"^c solve +([\d.]+) s", done.stderr, re.M).group(1)) >= 1.0  # stopped while searching
    assert time.monotonic() - start < 12


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_glucose_between_its_restarts(tmp_path: Path, sig: int) -> None:
    proc = _start(["solve", "--solver", "glucose4", *_ORDER, str(_queens(tmp_path, 120))], tmp_path)
    time.sleep(2.0)  # searching by then (compiling and loading take half a second)
    os.killpg(proc.pid, sig)
    status, out, err, seconds = _finish(proc, within=60)
    assert (status, out) == (0, "s UNKNOWN\n"), err
    assert f"c stopped by {'SIGTERM' if sig == signal.SIGTERM else 'Ctrl-C'}" in err
    assert seconds < 5, err


def test_glucose_stops_on_time_outside_the_main_thread(tmp_path: Path) -> None:
    """In a worker thread only the watchdog's `interrupt()` can stop a search: Glucose's is waited for
    `LATE_GRACE_S`, then abandoned to its daemon thread."""
    done = subprocess.run([sys.executable, "-c", _IN_A_THREAD, str(_queens(tmp_path, 120)), "glucose4", "int=order"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    status, seconds = done.stdout.split()
    assert status == "UNKNOWN" and int(seconds) < 6, done.stderr


def test_a_big_formulas_first_slice_fits_the_time_left() -> None:
    """CaDiCaL's first budgeted slice had 2000 conflicts whatever the formula: at 2.6 ms a conflict
    (nqueens-500, 2.7 M clauses) `--timeout 6` ended at 8.2 s. It is now sized from the clause count."""
    from csp2sat.solver import FIRST_SLICE_CONFLICTS, first_slice_conflicts

    assert first_slice_conflicts(1.6, 2_733_290) < 1.6 / 2.6e-3  # fits, at nqueens-500's measured cost
    assert first_slice_conflicts(1.0, 50_000) == FIRST_SLICE_CONFLICTS  # small formulas as before
    assert first_slice_conflicts(0.01, 10_000_000) == 100  # never less than a useful slice


def _spawned_racers(pid: int) -> list[int]:
    """The multiprocessing children (portfolio racers) of process `pid`, started or still starting."""
    found = []
    for child in _children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():  # not the resource tracker
                found.append(child)
        except OSError:
            pass
    return found


def test_ctrl_c_while_the_portfolio_starts_its_racers(files, tmp_path: Path) -> None:
    """A signal while `solve -j 2` was writing a racer's start-up data (the pickled problem, tens of MB here)
    left that racer printing a traceback (truncated pickle data, or its queue's semaphore already gone)."""
    proc = _start(["solve", "-j", "2", str(files["encode"])], tmp_path)
    deadline = time.monotonic() + 30
    while not _spawned_racers(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert proc.poll() is None, "the run ended before its racers started"
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: to the coordinator and the racer being started
    status, out, err, _ = _finish(proc)
    assert (status, out) == (0, "s UNKNOWN\n"), err
    assert "Traceback" not in err and "Error" not in err, err


_TWO_THREADS_FIRST_NUMPY = """
import sys, threading, traceback
import csp2sat
errors = []
def work(solver):
    try:
        assert csp2sat.solve(sys.argv[1], solver=solver).status == "SATISFIABLE"
    except BaseException:
        errors.append(traceback.format_exc())
threads = [threading.Thread(target=work, args=(s,)) for s in ("auto", "minisat22")]
[t.start() for t in threads]
[t.join(120) for t in threads]
print(len(errors), errors[0][-300:] if errors else "")
"""


def test_two_threads_solving_at_once_in_a_fresh_process() -> None:
    """Both threads' first big CNF imports numpy: the second took numpy from `sys.modules` while the first was
    still importing it (AttributeError of a partially initialised module: about one run in two on 200 queens).
    Fresh processes, since numpy is imported once per process."""
    queens = ROOT / "tests" / "conformance" / "sugar-examples" / "nqueens-200.csp"
    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", _TWO_THREADS_FIRST_NUMPY, str(queens)], capture_output=True,
                              text=True, timeout=240)
        assert done.stdout.startswith("0 "), done.stdout + done.stderr


def test_the_watchdogs_repeated_sigint_does_not_raise_again_while_the_first_propagates() -> None:
    """Leaving the stages of a 64 MB puzzle file took longer than the helper's one-second repeat: the second
    KeyboardInterrupt landed in the command's handler of the first (exit 130, 'c interrupted', no s UNKNOWN)."""
    from csp2sat.solver import Watchdog, interrupt_handled

    with Watchdog(None) as watchdog:
        watchdog.check()
        with pytest.raises(KeyboardInterrupt):
            watchdog._on_sigint(signal.SIGINT, None)
        watchdog._on_sigint(signal.SIGINT, None)  # the repeat, one second later: ignored
        interrupt_handled()


def test_objects_built_with_the_collector_paused_leave_in_the_oldest_generation() -> None:
    """Else the first allocation after the pause scans them all (a 64 MB file: check 31 -> 23 s, and a stop
    that lands in the parse is heard seconds late)."""
    import gc

    from csp2sat._gc import gc_paused

    with gc_paused():
        marker = [[i] for i in range(50_000)]
    assert any(o is marker for o in gc.get_objects(generation=2))


def test_cyclic_garbage_from_before_a_pause_is_not_kept_for_a_full_collection() -> None:
    """Moving every object to the oldest generation after a pause also moved the young garbage of earlier
    work there, to wait for a rare full collection: a test worker grew past 1 GB (CI's memory tests failed)."""
    code = """
import gc
from csp2sat.parser import parse_text
def rss(): return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
start = rss()
for i in range(100):
    held = {"buffer": bytearray(2_000_000)}
    held["self"] = held  # cyclic garbage of 2 MB, as a traceback holding a frame would be
    del held
    parse_text("(int x 0 3) (> x 1)")
print(round(rss() - start))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 100, f"{done.stdout.strip()} MB kept"  # 200 MB kept before


def test_budgeted_slices_are_sized_on_the_slowest_rate_seen() -> None:
    """fillmat 100x100 `--timeout 20` ended 2.7 s late (and once hung in the jump that stopped its last slice):
    each slice was sized on the rate of the slice before, 6,400 conflicts a second after a 0.2 s first slice,
    where CaDiCaL's stable phases make 1,200. Slices are sized on the slowest rate seen, grow at most twofold
    and take a share of the time left, so one several times slower than planned still ends in time."""
    from csp2sat.solver import SLICE_S, SLICE_SHARE, ConflictRate, slice_seconds

    pace = ConflictRate()
    pace.record(1482, 0.23)
    assert pace.rate == pytest.approx(1482 / 0.23)
    pace.record(4317, 3.75)  # a stable phase
    assert pace.rate == pytest.approx(4317 / 3.75)
    pace.record(745, 0.01)  # too short to say anything: not 74,500 a second
    assert pace.rate == pytest.approx(4317 / 3.75)
    pace.record(6000, 1.0)  # a focused phase again: the slow rate is kept
    assert pace.rate == pytest.approx(4317 / 3.75)
    pace.record(None, 0.5)  # a solver that cannot count its conflicts
    assert pace.rate is None

    assert slice_seconds(100.0, 0.23, command=True) == SLICE_S  # grows from the last slice, at most twofold
    assert slice_seconds(100.0, 8.0, command=True) == 16.0
    assert slice_seconds(5.0, 8.0, command=True) == SLICE_SHARE * 5.0  # a share of the time left
    assert slice_seconds(100.0, 8.0, command=False) == SLICE_S  # a library call hears Ctrl-C within SLICE_S
    assert slice_seconds(1.0, 0.0, command=False) == SLICE_SHARE * 1.0


_SOLVER_LEFT_AT_EXIT = """
import atexit, sys
from pysat import solvers
from csp2sat.solver import new_solver

native_delete = solvers.Cadical195.delete
exiting = False


def delete(self):
    if exiting and self.cadical is not None:
        print("freed at exit", file=sys.stderr)
    native_delete(self)


def leaving():
    global exiting
    exiting = True


solvers.Cadical195.delete = delete
sat = new_solver("cadical195")
sat.add_clause([1, 2])
sat.conf_budget(100)
print(sat.solve_limited())
atexit.register(leaving)  # registered last, so it runs first
"""


def test_solvers_alive_at_exit_are_not_freed(tmp_path: Path) -> None:
    """The interpreter's last garbage collection freed a CaDiCaL 3.0 solver left in a reference cycle after a
    time-out, and its destructor aborted the process (exit 134 after `s UNKNOWN`, one run in three). Solvers
    still alive at exit are left to the operating system instead."""
    done = subprocess.run([sys.executable, "-c", _SOLVER_LEFT_AT_EXIT], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
    assert "freed at exit" not in done.stderr


def test_cadical30_skips_its_first_preprocessing_under_a_time_limit(monkeypatch) -> None:
    """CaDiCaL 3.0 begins its first search with congruence closure and a fast elimination that no conflict
    budget bounds: an 11-mark Golomb ruler with `--timeout 6` ended 2.2 s late (its first slice never
    returned before the helper's grace ran out). Under a time limit both are off; without one, as configured."""
    from pysat import solvers

    from csp2sat.solver import Watchdog, new_solver, usable_solvers

    if "cadical300" not in usable_solvers():
        pytest.skip("CaDiCaL 3.0 is not in this PySAT")
    seen = []
    native = solvers.Cadical300.configure
    monkeypatch.setattr(solvers.Cadical300, "configure", lambda self, options: seen.append(options) or native(self, options))
    new_solver("cadical300").delete()
    with Watchdog(30.0):
        new_solver("cadical300").delete()
    assert seen[-1] == {"fastelim": 0, "congruence": 0}
    assert all("fastelim" not in options for options in seen[:-1])


def test_cadical_never_searches_where_a_sigint_would_jump(monkeypatch) -> None:
    """Ctrl-C of an objective search without a time limit hung about one run in 18: PySAT's jump out of
    CaDiCaL landed inside malloc, the main thread then waited for ever in `free`, and the helper, which
    never saw that Ctrl-C (PySAT's own handler took it), did not end the process. Every CaDiCaL search now
    runs in budgeted slices during which PySAT installs no handler, with or without a time limit."""
    from pysat import solvers

    from csp2sat.solver import new_solver

    jumpable = []
    native = solvers.Cadical195.solve_limited
    monkeypatch.setattr(solvers.Cadical195, "solve_limited",
                        lambda self, *a, **k: jumpable.append(solvers.MainThread.check()) or native(self, *a, **k))
    monkeypatch.setattr(solvers.Cadical195, "solve", lambda self, *a, **k: jumpable.append("one call"))
    sat = new_solver("cadical195", bootstrap_with=[[1, 2], [-1, 2], [1, -2]])
    assert sat.solve() is True and sat.solve(assumptions=[-2]) is False
    assert sat.solve(assumptions=[1], conflicts=10) is True
    assert jumpable and not any(jumpable), jumpable
    sat.delete()
