"""Solving stage: one incremental PySAT solver per problem, optimisation, decoding and verification.

Takes the `Compiled` CNF of a model, loads it into a PySAT solver, searches,
and turns SAT models back into values of the user's variables. Every answer
is checked by the independent `csp2sat.evaluator` before anyone sees it; a
failed check is an internal error (`Exit.VERIFY`) naming the violated
constraint, so a wrong answer is never printed.

Objectives are optimised in one solver under assumptions (`Search.run`): by
default each call assumes "objective at least as good as the middle value"
between the proven bound and the best answer, within a conflict budget, and a
probe that runs out is followed by one asking for any better answer
(``-O objective=auto``; also ``binary`` without budgets, ``linear``, Sugar's
descent, and ``gallop``); SAT gives a better answer, UNSAT a new proven bound,
and both become unit clauses. Maximisation ends like
minimisation (Sugar's driver can loop forever there). jss-ft10: 334 calls of
linear descent -> 10. The one exception to "one solver": ``-O shrink`` compiles
the problem again with the objective's domain cut to the values still open when
the estimate says the CNF gets much smaller (`compile_for_search`, `_shrink`).

Solvers: PySAT's back ends differ (`CAPABILITIES`, checked against the
installed PySAT by tests/test_solver_matrix.py). `new_solver` gives every
stage the same interface: a solver without assumptions or without clauses
added after a search (Kissat) is emulated by a fresh solver per call, loaded
with every clause so far and the assumptions as unit clauses; one without
preferred phases ignores them (they are only a hint). A name PySAT knows but
cannot run here (CryptoMiniSat without pycryptosat) is a usage error listing
the usable ones (`check_solver`).

Stopping: `Watchdog` turns the time limit, Ctrl-C and SIGTERM into one event.
A tiny helper process watches the clock and the signals (a Python handler
cannot run while C code searches holding the GIL) and sends SIGINT; outside a
search that is a KeyboardInterrupt, so parsing and encoding stop the same way.
A search of a solver with `interrupt()` (the MiniSat family, Glucose included)
runs in `solve_limited` and is stopped by a thread of ours (Glucose, which hears
it only between restarts, searches in a thread of its own that is abandoned when
late: `_search_aside`); the others (CaDiCaL,
Lingeling) stop only by PySAT's jump out of the search on SIGINT, whose traces
`guarded` cleans up. An interrupted solver is only deleted, never asked
anything again (CaDiCaL aborts the process on any other call).
"""

from __future__ import annotations

import atexit
import math
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Protocol, Sequence, Union

from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import Domain, Model

DEFAULT_SOLVER = "cadical195"
# `--solver auto` (the default of `csp2sat solve`): picked per problem by `choose_solver`.
AUTO_SOLVER = "auto"
# ... Glucose 4.1 (with or without an objective) unless an alldifferent spreads its terms over
# more values than terms (where CaDiCaL is measured faster), CaDiCaL 1.9.5 then.
DECISION_SOLVER = "glucose4"
# ... and MiniSat 2.2 for a problem without an objective that has a placement alldifferent (n-queens'
# diagonals, one-hot: see `compiler.placement_variables`), stopped cleanly from a watchdog thread.
PLACEMENT_SOLVER = "minisat22"

# Objective search (`Search.run`, option ``shrink``): re-encode with a narrowed objective domain
# only when the CNF has at least this many clauses (below, compiling again costs more than it saves) ...
SHRINK_MIN_CLAUSES = 100_000
# ... and stop re-encoding once one re-encoding did not make the CNF at least this much smaller.
SHRINK_MIN_GAIN = 0.3
# Before the first answer (`compile_for_search`): a CNF estimated at this many clauses or more is first
# built for the best quarter of the objective's values, if the objective has at least this many values.
PROBE_MIN_CLAUSES = 1_000_000
# CPU seconds to normalise, encode and load one clause (golombRuler-9: 1.8 M clauses in 2.6 s), to weigh
# a re-encoding against the search time it may save.
COMPILE_CPU_PER_CLAUSE = 1.5e-6
PROBE_MIN_VALUES = 16
# ``objective=auto``: the conflicts a bisection probe may use before a linear step is taken instead
# (doubled each time a probe runs out; at least the conflicts the first answer took).
PROBE_CONFLICTS = 10_000

SATISFIABLE = "SATISFIABLE"
UNSATISFIABLE = "UNSATISFIABLE"
OPTIMUM = "OPTIMUM FOUND"
UNKNOWN = "UNKNOWN"

Values = dict[str, Union[int, bool]]


@dataclass(frozen=True)
class Capabilities:
    """What one PySAT solver can do, as probed against python-sat 1.9 (tests/test_solver_matrix.py checks it).

    `assumptions`: solve under assumed literals (Kissat warns and IGNORES them:
    a wrong verdict); `incremental`: add clauses after a search (Kissat aborts
    the process); `core`: `get_core()` after an UNSAT answer under assumptions;
    `phases`: `set_phases()`; `propagate`: `propagate()`, unit propagation under assumptions, which
    only ``-O enumerate=propagate`` uses (it falls back to blocking clauses without it);
    `interrupt`: `interrupt()` stops a `solve_limited(expect_interrupt=True)` from another
    thread (the MiniSat family; not CaDiCaL, Lingeling, Kissat, CryptoMiniSat). Glucose hears it
    only where a restart is due (`_LATE_INTERRUPT`).
    Every solver stops on SIGINT during `solve()`, by a jump out of the search that
    is unsafe when it lands inside the memory allocator (see `Watchdog`); searches of
    solvers with `interrupt` are stopped by `interrupt()` instead.
    """

    assumptions: bool = True
    incremental: bool = True
    core: bool = True
    phases: bool = True
    propagate: bool = True
    interrupt: bool = True

    def missing(self) -> list[str]:
        """The names of what this solver lacks (emulated by `new_solver`, but `propagate`: see above; not `interrupt`)."""
        return [name for name in ("assumptions", "incremental", "core", "phases", "propagate") if not getattr(self, name)]


# One row per PySAT solver, keyed by its main name (the attribute of pysat.solvers.SolverNames).
CAPABILITIES: dict[str, Capabilities] = {
    "cadical103": Capabilities(phases=False, propagate=False, interrupt=False),
    "cadical153": Capabilities(interrupt=False),
    "cadical195": Capabilities(interrupt=False),
    "cadical300": Capabilities(interrupt=False),
    "cryptosat": Capabilities(phases=False, propagate=False, interrupt=False),  # needs the pycryptosat package
    "ergo": Capabilities(),
    "gluecard3": Capabilities(),
    "gluecard4": Capabilities(),
    "glucose3": Capabilities(),
    "glucose4": Capabilities(),
    "glucose42": Capabilities(),
    "kissat404": Capabilities(assumptions=False, incremental=False, core=False, phases=False, propagate=False, interrupt=False),
    "lingeling": Capabilities(propagate=False, interrupt=False),
    "maplechrono": Capabilities(),
    "maplecm": Capabilities(),
    "maplesat": Capabilities(),
    "mergesat3": Capabilities(),
    "minicard": Capabilities(),
    "minisat22": Capabilities(),
    "minisatgh": Capabilities(),
    "minisatep": Capabilities(),
}


def _aliases() -> dict[str, tuple[str, ...]]:
    """PySAT's main solver names and their aliases."""
    from pysat.solvers import SolverNames

    return {k: v for k, v in vars(SolverNames).items() if not k.startswith("_") and isinstance(v, tuple)}


def solver_names() -> list[str]:
    """Every solver name PySAT accepts (aliases included), usable here or not."""
    return sorted({alias for aliases in _aliases().values() for alias in aliases})


_USABLE: list[str] | None = None


def usable_solvers() -> list[str]:
    """The main names of the solvers installed and usable here, in `CAPABILITIES` order (probed once: < 1 ms)."""
    global _USABLE
    if _USABLE is None:
        import importlib.util
        import warnings

        from pysat.solvers import Solver

        aliases = _aliases()
        found = []
        for main in CAPABILITIES:
            if main not in aliases:
                continue
            if main == "cryptosat" and importlib.util.find_spec("pycryptosat") is None:
                continue  # constructing it anyway would print an error from its destructor
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    Solver(name=aliases[main][0]).delete()
            except Exception:  # NoSuchSolverError, or AssertionError when pycryptosat is missing
                continue
            found.append(main)
        _USABLE = found
    return _USABLE


def choose_solver(model: Model, compiled) -> str:
    """The solver `--solver auto` means for `model`: see docs/performance.md, "Which SAT solver".

    Measured on every family of benchmarks/families.py (CPU s, one answer): without an
    objective, Glucose 4.1 needs fewer and cheaper conflicts than CaDiCaL 1.9.5 on the
    permutation problems (knight's tours, magic squares), the social golfers and random linear
    systems, where CaDiCaL is up to 10x slower or times out; CaDiCaL is faster when an
    alldifferent spreads few terms over many values (Golomb rulers at the optimum, 7x, and
    golombRuler-10 as optimisation), so it keeps those. Optimisation otherwise goes to Glucose
    too: open/job shops and colourings, at every size measured, took as much or less CPU
    (oss-random-6x6 2.4 → 1.7 s, jss-random-10x5 1.6 → 0.9 s), not least because Glucose takes
    in a big CNF in two thirds of CaDiCaL's time. A placement alldifferent (one-hot, see
    `compiler.placement_variables`) without an objective goes to MiniSat 2.2: n-queens 60 to
    1000 in 0.3-23 s, 1.5-10x less than CaDiCaL's focused mode, which had no answer for 900
    queens in 60 s (docs/performance.md, "n-queens one-hot").
    """
    if getattr(compiled, "options", {}).get("satmode", "auto") != "auto":
        return DEFAULT_SOLVER  # -O satmode= asks for one of CaDiCaL's search modes
    if (compiled.stats.get("alldifferent_placement", 0) and model.objective is None
            and PLACEMENT_SOLVER in usable_solvers()):
        return PLACEMENT_SOLVER
    if compiled.stats.get("alldifferent_spread", 0):
        return DEFAULT_SOLVER
    return DECISION_SOLVER if DECISION_SOLVER in usable_solvers() else DEFAULT_SOLVER


def without_auto(name: str) -> str:
    """`name`, with "auto" read as `DEFAULT_SOLVER`: where no single problem is there to choose by
    (enumeration, the portfolio's first racer, a solver made without a problem), or the choice
    was measured with CaDiCaL only."""
    return DEFAULT_SOLVER if name == AUTO_SOLVER else name


def check_solver(name: str) -> str:
    """The main name of the solver `name` (any PySAT alias); a usage error naming the usable ones otherwise.

    "auto" stays "auto" (`choose_solver` resolves it once the problem is compiled; `new_solver`
    reads it as `DEFAULT_SOLVER`).
    """
    wanted = name.strip().lower()
    if wanted == AUTO_SOLVER:
        return AUTO_SOLVER
    for main, aliases in _aliases().items():
        if wanted == main or wanted in aliases:
            if main in usable_solvers() and main in CAPABILITIES:
                return main
            raise CspError(
                f"SAT solver {name!r} is not usable here (PySAT was built or installed without it); "
                f"choose one of: {', '.join(usable_solvers())}",
                exit=Exit.USAGE,
                file="csp2sat",
            )
    raise CspError(
        f"unknown SAT solver {name!r}; choose one of: {', '.join(usable_solvers())}",
        exit=Exit.USAGE,
        file="csp2sat",
    )


class FreshSolver:
    """A solver without assumptions or incremental clauses, used incrementally: a new one for every search.

    Keeps every clause it is given; each `solve(assumptions)` loads them into a
    fresh PySAT solver together with the assumptions as unit clauses. The core
    of an UNSAT answer is all the assumptions (true, if not minimal).
    """

    def __init__(self, name: str, bootstrap_with=None) -> None:
        self.name = name
        self.clauses: list[list[int]] = []
        self.model: list[int] | None = None
        self.core: list[int] | None = None
        if bootstrap_with is not None:
            self.append_formula(bootstrap_with)

    def add_clause(self, clause, no_return: bool = True) -> None:
        self.clauses.append(list(clause))

    def append_formula(self, formula, no_return: bool = True) -> None:
        self.clauses.extend(list(clause) for clause in formula)

    def solve(self, assumptions=()) -> bool:
        from pysat.solvers import Solver

        with guarded(Solver(name=self.name, bootstrap_with=self.clauses)) as sat:
            for lit in assumptions:
                sat.add_clause([lit])
            found = sat.solve()
            if found is None:  # no budget was given: only a stop leaves a search undecided
                raise Interrupted("search interrupted")
            self.model = sat.get_model() if found else None
        self.core = None if found else list(assumptions)
        return found

    def get_model(self) -> list[int] | None:
        return self.model

    def get_core(self) -> list[int] | None:
        return self.core

    def set_phases(self, literals=(), hard: bool = False) -> None:
        """Ignored: phases are only a hint."""

    def delete(self) -> None:
        self.clauses = []

    def __enter__(self) -> "FreshSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()


# The native solvers of searches stopped by SIGINT: never freed (see `guarded`).
_ABANDONED: list = []
# Every solver `new_solver` made that is still alive: abandoned when the interpreter exits (`_leave_solvers`).
_LIVE: "weakref.WeakSet" = weakref.WeakSet()


# True in the `csp2sat` command's own process, which ends after its one run (`leave_solvers_at_exit`).
_LEAVE_TO_EXIT = False


def leave_solvers_at_exit(leave: bool = True) -> None:
    """Whether `release` leaves a finished run's solver to the operating system instead of freeing it.

    The `csp2sat` command sets it: its process ends right after the run, and freeing a large solver
    is pure waste there, paid before the answer is printed (CaDiCaL's 8.8 M clauses of a 1000-queens
    file: 1.1 s, 6 % of the run). A library user's process goes on, so by default solvers are freed;
    so does `csp2sat batch`, which runs many files in one process.
    """
    global _LEAVE_TO_EXIT
    _LEAVE_TO_EXIT = leave


# What a stopped run was building, kept unfreed to the end of the command's process (`keep_until_exit`).
_KEPT: list = []


def keep_until_exit(*objects: object) -> None:
    """In the `csp2sat` command's own process (`leave_solvers_at_exit`), keep `objects` unfreed to its end.

    A run stopped by a time limit or Ctrl-C holds what it was building (an exception's frames: a
    half-made CNF of a 200x200 board, 2.7 s to free after `s UNKNOWN`); the command then ends without
    freeing it (`cli.entry`). A library caller's process goes on: nothing is kept there.
    """
    if _LEAVE_TO_EXIT:
        _KEPT.extend(objects)


def kept_until_exit() -> bool:
    """Whether a stopped run left something to the end of the process (`keep_until_exit`)."""
    return bool(_KEPT)


def release(sat) -> None:
    """Free solver `sat` at the end of a run, or leave it to the operating system (`leave_solvers_at_exit`)."""
    if _LEAVE_TO_EXIT:
        _abandon(sat)
    else:
        sat.delete()


@contextmanager
def released(sat) -> Iterator:
    """``with released(new_solver(...)) as sat:`` — `sat`, released (`release`) when the block ends."""
    try:
        yield sat
    finally:
        release(sat)


@atexit.register
def _leave_solvers() -> None:
    """Let the process exit without freeing the solvers still alive: the operating system frees their memory.

    A solver the program no longer refers to but that sits in a reference cycle (our wrappers refer
    to their solver) is freed by the interpreter's last garbage collection, after everything else:
    CaDiCaL 3.0 then aborted the process in its destructor ("solver neither in valid nor solving
    state", exit 134 after `s UNKNOWN` of a time-out, in about one run in three) and CaDiCaL 1.9.5
    once crashed there (exit -11). Exit handlers run before that collection.
    """
    for sat in list(_LIVE):
        _abandon(sat)


def guarded(sat):
    """`sat` (a PySAT `Solver`), made safe to stop: a search interrupted by SIGINT abandons its native solver.

    PySAT stops a search on SIGINT by jumping out of the C++ solver half-way through
    (setjmp/longjmp), so that solver's state is torn; freeing it afterwards can abort the
    whole process (seen with CaDiCaL: "Fatal Python error: Aborted" in `delete`). So after
    an interruption the native handles are moved out of the wrapper and kept here, never
    freed: `delete`, `with` and garbage collection then have nothing to free. The cost is
    one solver's memory per interruption, and an interrupted solver is not used again.

    `propagate` cannot be stopped (see `_unjumpable`). PySAT's jump also leaves two things
    behind (`_restore_sigint` undoes both): its own SIGINT handler, which would jump back into
    the search's stack frame, long gone; and SIGINT blocked, as inside a handler (it jumps with `longjmp`, which keeps the signal mask). With
    SIGINT blocked, Ctrl-C did nothing for the rest of the process, and a second search with a
    time limit in the same process (two `csp2sat.solve(..., timeout=)` calls in a notebook) never
    heard the watchdog and ran for ever.
    """
    sat.solve = _stoppable(sat, sat.solve)
    if hasattr(sat, "propagate"):
        sat.propagate = _unjumpable(sat.propagate)
    return sat


def _unjumpable(call):
    """`call` (PySAT's `propagate`) without PySAT's jumping SIGINT handler.

    Unit propagation ends on its own within moments, so it need not be stoppable: PySAT is
    told it runs outside the main thread (its `MainThread.check`, read by every call that
    installs the handler), so a SIGINT meanwhile reaches Python's own handler and becomes a
    KeyboardInterrupt once the call returns, instead of a jump that could land inside malloc
    (seen: `-O enumerate=propagate` hung after a time-out). The GIL is held throughout, so no
    other thread sees the changed check. Costs ~0.3 µs a call (blocking SIGINT instead: 7 µs).
    """
    from pysat import solvers

    probe = getattr(solvers, "MainThread", None)
    if probe is None or not hasattr(probe, "check"):
        return call
    in_main_thread = probe.check

    def elsewhere() -> bool:
        return False

    def unjumpable(*args, **kwargs):
        probe.check = elsewhere
        try:
            return call(*args, **kwargs)
        finally:
            probe.check = in_main_thread

    return unjumpable


def _stoppable(sat, call):
    def stoppable(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except BaseException as err:
            if is_interrupt(err) and not isinstance(err, StoppedBetweenSlices):
                _abandon(sat)  # first: unblocking SIGINT in `_restore_sigint` may raise KeyboardInterrupt
                _restore_sigint()
            raise

    return stoppable


def _restore_sigint() -> None:
    """Undo what PySAT's jump out of a search leaves: its SIGINT handler installed, SIGINT blocked.

    Unblocking delivers a SIGINT that came meanwhile (the watchdog's repeat, a second
    Ctrl-C) to Python's handler, which may raise KeyboardInterrupt here: the caller is
    handling an interruption already, and both mean the same.
    """
    if threading.current_thread() is not threading.main_thread():
        return  # PySAT installs its handler in the main thread only
    handler = signal.getsignal(signal.SIGINT)
    if handler is not None:
        signal.signal(signal.SIGINT, handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _interruptible(sat, late: bool = False):
    """`sat`'s `solve`, stopped by `interrupt()` from the watchdog's thread instead of PySAT's jump (see `Watchdog`).

    ``solve(assumptions, conflicts=N)`` gives up after about N conflicts and returns None.
    `late`: the solver hears `interrupt()` only between its restarts (`_LATE_INTERRUPT`), so its
    searches run aside (`_search_aside`).
    """
    jumping = sat.solve

    def solve(assumptions=(), *args, conflicts: int | None = None, **kwargs):
        if conflicts is not None:
            sat.conf_budget(conflicts)
        try:
            return search(assumptions, conflicts is not None, *args, **kwargs)
        finally:
            if conflicts is not None:
                sat.conf_budget(-1)  # the MiniSat family keeps a budget for later searches: none after this one

    def search(assumptions, budgeted: bool, *args, **kwargs):
        watchdog = getattr(_searches, "watchdog", None)
        if watchdog is None or watchdog._watcher is None or args or kwargs:
            if budgeted:
                return sat.solve_limited(assumptions)
            return jumping(assumptions, *args, **kwargs)
        watchdog._searching = sat
        try:
            if watchdog._stopping:
                raise Interrupted("stopped before the search began")
            if late:
                found = _search_aside(sat, assumptions, watchdog)
            else:
                found = sat.solve_limited(assumptions, expect_interrupt=True)
        finally:
            watchdog._searching = None
        if found is None:  # the conflict budget ran out, or `interrupt()` (the watchdog) ended the search
            if budgeted and not watchdog._stopping:
                return None
            raise Interrupted("search interrupted")
        return found

    sat.solve = solve
    return sat


# Solvers that hear `interrupt()` (and a conflict budget) only between restarts: Glucose 3 and 4 check
# both where a restart is due, and their restarts are blocked while the trail is long (n-queens 350:
# 33 k conflicts and 35 s without a restart, so a Ctrl-C or a time limit was heard 35 s late; 120 queens
# with glucose4, minutes). MapleCM and MergeSat 3 also hear it seconds late on big formulas (an 11-mark Golomb
# ruler, 3.9 M clauses, `--timeout 6`: 7.7 and 3.6 s late). Their searches run in a thread of their own
# (`_search_aside`).
_LATE_INTERRUPT = ("glucose3", "glucose4", "glucose42", "gluecard3", "gluecard4", "maplecm", "mergesat3")
# Seconds a stopped search of such a solver gets to hear `interrupt()` before it is abandoned.
LATE_GRACE_S = 1.0


def _search_aside(sat, assumptions, watchdog) -> bool | None:
    """`sat.solve_limited(assumptions)` in a thread of its own, stopped on time although the solver hears late.

    The calling thread waits, where Python's signal handlers and the watchdog's stop reach it.
    Once the run is stopped, the search gets `LATE_GRACE_S` seconds to hear `interrupt()`; a
    search still running then is left to end on its own, in its daemon thread, and the stop is
    raised at once (the caller abandons the solver: it is never used again, see `guarded`).
    A thread per call costs about 0.13 ms, which only many short calls notice (`--count` of
    16,384 answers with glucose4: 1.8-2.8 s before, 4.0-4.8 s now; enumeration's default is CaDiCaL).
    """
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["found"] = sat.solve_limited(assumptions, expect_interrupt=True)
        except BaseException as error:  # handed to the caller below, unless the search was abandoned
            outcome["error"] = error

    worker = threading.Thread(target=run, name="csp2sat-search", daemon=True)
    worker.start()
    stopped_at = None
    try:
        while worker.is_alive():
            worker.join(0.1)  # a signal's handler runs here (it raises KeyboardInterrupt); outside the main thread, polling
            if watchdog._stopping:
                stopped_at = stopped_at or time.monotonic()
                if time.monotonic() - stopped_at > LATE_GRACE_S:
                    raise Interrupted("the search did not hear the stop in time: abandoned")
    except KeyboardInterrupt:
        sat.interrupt()
        worker.join(LATE_GRACE_S)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("found")


# Solvers without `interrupt()` whose searches take a conflict budget (`solve_limited` after
# `conf_budget`): CaDiCaL. `_budgeted` stops them between slices of the search.
_BUDGETED = ("cadical103", "cadical153", "cadical195", "cadical300")
SLICE_S = 1.0  # longest slice of a budgeted search: how late it hears a Ctrl-C or SIGTERM
SLICE_SHARE = 0.3  # of the time left to the deadline, the most a slice is sized to take (`slice_seconds`)
MIN_SLICE_S = 0.05  # a slice shorter than this is not started: the search waits for the deadline
FIRST_SLICE_CONFLICTS = 2000
# The first slice's rate is unknown: it is sized as if a conflict cost this many seconds per clause of the
# formula (measured with CaDiCaL 1.9.5: 0.5-1.6 ns; nqueens-500, 2.7 M clauses, 2.6 ms a conflict), so a big
# formula's first slice ends near the deadline (nqueens-500 with `--timeout 6`: 8.2 s before, 2000 conflicts).
CONFLICT_S_PER_CLAUSE = 2e-9


def slice_seconds(left: float, last_spent: float, command: bool) -> float:
    """How long the next slice of a budgeted search (`_budgeted`) should last, `left` seconds before the deadline.

    A share of the time left (`SLICE_SHARE`), so that a slice whose conflicts turn out several times
    slower than expected still ends before the deadline: the rate is not steady (fillmat 100x100:
    6,400 conflicts a second in a first slice of 0.2 s, 1,200 in a later one; sized on the rate of
    the slice before, the last slice overran the deadline by 2 s and was stopped by PySAT's jump,
    which once hung the process in the allocator). Under the command line's time limit (`command`)
    the slices grow at most twofold, so the rate is re-measured as they lengthen; otherwise (no time
    limit, or a library call) each lasts at most `SLICE_S`, how late a Ctrl-C is heard (`left` is
    infinite without a limit). The slices shrink towards the deadline; none starts less than
    `MIN_SLICE_S` before it.
    """
    cap = max(SLICE_S, 2.0 * last_spent) if command else SLICE_S
    return min(SLICE_SHARE * left, cap)


class ConflictRate:
    """The conflicts a second a budgeted search's next slice is sized with (`_budgeted`).

    The lowest rate seen, over every slice so far or in one slice that lasted long enough to say
    anything: CaDiCaL's conflicts are several times slower in its stable phases than in its focused
    ones (fillmat 100x100: 4,500 a second, then 1,150), and a slice of a few milliseconds once
    showed 75,000 a second where the slices round it made 1,200.
    """

    LONG_ENOUGH_S = 0.2

    def __init__(self) -> None:
        self.rate: float | None = None
        self.last_spent = 0.0  # seconds of the last slice
        self._conflicts, self._spent = 0, 0.0  # over every slice
        self._slowest: float | None = None  # of the slices long enough

    def record(self, conflicts: int | None, spent: float) -> None:
        """Take in a slice that made `conflicts` (None: the solver cannot say) in `spent` seconds."""
        self.last_spent = spent
        if conflicts is None:
            self.rate = None
            return
        self._conflicts += conflicts
        self._spent += spent
        if spent >= self.LONG_ENOUGH_S:
            self._slowest = min(self._slowest or math.inf, conflicts / spent)
        overall = self._conflicts / self._spent if self._spent >= 0.05 else None
        self.rate = min((r for r in (overall, self._slowest) if r is not None), default=None)


def first_slice_conflicts(seconds: float, clauses: int) -> int:
    """The conflict budget of a budgeted search's first slice, meant to last at most `seconds` (`_budgeted`)."""
    return max(100, min(FIRST_SLICE_CONFLICTS, int(seconds / (CONFLICT_S_PER_CLAUSE * max(clauses, 1)))))


def takes_budget(name: str) -> bool:
    """True when `new_solver(name)`'s ``solve`` takes ``conflicts=N`` (give up after about N conflicts)."""
    main = without_auto(check_solver(name))
    caps = CAPABILITIES[main]
    return caps.assumptions and caps.incremental and (caps.interrupt or main in _BUDGETED)


def _budgeted(sat):
    """`sat`'s `solve` (CaDiCaL), run in slices of a conflict budget, so that no stop needs PySAT's jump.

    PySAT stops a CaDiCaL search only by jumping out of it on SIGINT, which can land inside
    malloc and leave the process waiting for ever on the allocator's lock (seen in 1 of 25
    time-outs under load, and in 1 of 18 Ctrl-C's of an objective search without a time limit:
    the main thread in `free`, the helper unaware of the stop, so the process hung until a second
    Ctrl-C; see `Watchdog`). So every search is a series of `solve_limited` calls, each budgeted
    from the conflict rates measured so far, during which PySAT is told it is not in the main thread
    (as `_unjumpable` does): a SIGINT only sets Python's flag and the stop is taken between slices.

    - Without a time limit, or in a library call, a slice lasts at most `SLICE_S`, how late a Ctrl-C
      is heard (CaDiCaL's inprocessing steps can add a few seconds on millions of clauses). In a
      worker thread, where no signal arrives, slices are what makes a time limit hold at all.
    - The command line's time limit sizes the slices to end before the deadline: they grow at most
      twofold and shrink near it (`slice_seconds`; a one-minute limit takes some 10-30 slices), the
      search checks the deadline between slices, and the helper holds the deadline's SIGINT while a
      budgeted search runs (`SLICE_START`/`SLICE_END` on its stdin).

    Every restart perturbs CaDiCaL's search (one restart took golombRuler-10 at its optimum from
    0.5 s to 16 s, other files went the other way; golombRuler-11-decision needed 41 k to 337 k
    conflicts over six slicing schedules, 336 k in one call): noise, not a cost.
    ``solve(assumptions, conflicts=N)`` gives up after about N conflicts (over all slices) and
    returns None.
    """
    from pysat import solvers

    whole = sat.solve
    probe = getattr(solvers, "MainThread", None)
    if probe is None or not hasattr(probe, "check"):
        return sat
    in_main_thread = probe.check

    def elsewhere() -> bool:
        return False

    def solve(assumptions=(), *args, conflicts: int | None = None, **kwargs):
        if args or kwargs:
            return whole(assumptions, *args, **kwargs)
        watchdog = getattr(_searches, "watchdog", None)
        deadline = watchdog.deadline if watchdog is not None else None
        # The command line's time limit sizes its slices to the deadline (`slice_seconds`); everywhere else
        # a slice lasts at most `SLICE_S`, how late a Ctrl-C is heard.
        command = deadline is not None and watchdog._last_word and watchdog._pipe is not None
        try:
            return sliced(watchdog, deadline, assumptions, command, conflicts)
        except KeyboardInterrupt as stop:  # Python's handler, run as a slice returned: no jump, the solver is whole
            if deadline is None:
                raise  # a Ctrl-C stays one where no time limit is in charge (a notebook's count catches it)
            raise StoppedBetweenSlices("stopped between slices") from stop

    pace = ConflictRate()  # of this solver's slices: later searches need no short first slice

    def conflicts_until(deadline: float | None, command: bool) -> int:
        """The next slice's budget: the conflicts expected in `slice_seconds` at the measured rate."""
        left = math.inf if deadline is None else max(deadline - time.monotonic(), 0.01)
        seconds = slice_seconds(left, pace.last_spent, command)
        if pace.rate is None:
            return first_slice_conflicts(seconds, sat.nof_clauses())
        return max(100, int(pace.rate * seconds))

    def sliced(watchdog, deadline: float | None, assumptions, command: bool, conflicts: int | None):
        if not command:
            return slices(watchdog, deadline, assumptions, False, conflicts)
        # The helper holds the deadline's SIGINT from here to the end, not only while a slice runs: the
        # search checks the deadline itself before each slice.
        watchdog._tell(SLICE_START)
        try:
            return slices(watchdog, deadline, assumptions, True, conflicts)
        finally:
            watchdog._tell(SLICE_END)

    def slices(watchdog, deadline: float | None, assumptions, command: bool, conflicts: int | None):
        budget = conflicts_until(deadline, command)
        left = conflicts  # of the caller's budget (None: no budget)
        while True:
            if watchdog is not None and watchdog._stopping:
                raise StoppedBetweenSlices("the run was stopped")
            if deadline is not None and deadline - time.monotonic() < MIN_SLICE_S:  # no slice worth its restart fits
                time.sleep(max(0.0, deadline - time.monotonic()))  # so that the run has expired
                raise StoppedBetweenSlices("the time limit was reached")
            if left is not None:
                if left <= 0:
                    return None
                budget = min(budget, left)
            sat.conf_budget(budget)
            before, start = _conflicts(sat), time.monotonic()
            probe.check = elsewhere  # no jump: a SIGINT is Python's, heard when the slice returns
            try:
                found = sat.solve_limited(assumptions)
            finally:
                probe.check = in_main_thread
            if found is not None:
                return found
            spent, after = time.monotonic() - start, _conflicts(sat)
            made = after - before if before is not None and after is not None else None
            pace.record(made, spent)
            if left is not None:
                left -= budget if made is None else made
            budget = conflicts_until(deadline, command) if pace.rate else 2 * budget

    sat.solve = solve
    return sat


def abandon(sat) -> None:
    """Drop solver `sat` without deleting it (kept alive until the process ends): after a search
    stopped by a SIGINT jump, CaDiCaL aborts the process on any further call, its destructor included."""
    _abandon(sat)


def _abandon(sat) -> None:
    native = getattr(sat, "solver", None)  # the solver-specific wrapper inside pysat.solvers.Solver
    if native is None:
        return
    for key, value in list(vars(native).items()):
        if type(value).__name__ == "PyCapsule":  # the C++ solver's handle
            _ABANDONED.append(value)
            setattr(native, key, None)
    _ABANDONED.append(native)
    sat.solver = None


# `-O satmode=...`: CaDiCaL's search modes (options of CaDiCaL 1.5+, set through PySAT's `configure`).
# CaDiCaL alternates a "focused" mode (frequent restarts, VMTF queue) with a "stable" one (rare
# restarts, target phases). Focused-only is faster on the big permutation problems of the
# families benchmark (CPU s: nqueens-200 8.6 → 2.2, nqueens-500 > 30 → 15, magicSquare-8x8
# 16 → 10) and much slower on others (golombRuler-10 at the optimum 0.6 → 9.0; a random linear
# system 2.1 → 15), so "auto" keeps the solver's own alternation; see docs/performance.md.
SAT_MODES: dict[str, dict[str, int]] = {
    "default": {},  # the solver's own alternation
    "focus": {"stabilize": 0},  # focused mode only (what CaDiCaL's --unsat configuration does)
    "stable": {"stabilizeonly": 1},  # stable mode only (CaDiCaL's --sat configuration)
}
_CONFIGURABLE = ("cadical153", "cadical195", "cadical300")
# CaDiCaL 3.0 begins its first search with congruence closure and a fast variable elimination that no
# conflict budget bounds (4.4 s before the first conflict on fillmat 100x100's 1.4 M clauses, 0.7 s without
# the elimination; an 11-mark Golomb ruler's first slice outlived a 6 s limit), so under a time limit a first
# slice overran the deadline by seconds: `new_solver` turns both off there. (Measured with `--solver cadical300
# --timeout 60`, the searches were no slower without them: golombRuler-9 6.2 → 3.2 s, magicSquare-7x7
# 2.5 → 1.4 s, knightTour-6 2.5 → 1.6 s, oss-random-6x6 3.2 → 3.1 s.)
_ELIMINATING_FIRST = ("cadical300",)


def sat_mode(mode: str, objective: bool, stats: Mapping | None = None) -> str:
    """The `SAT_MODES` entry that `-O satmode=MODE` means (`stats`: the compiled problem's).

    "auto" is "focus" for a problem without an objective that has a placement alldifferent
    (`stats["alldifferent_placement"]`: more values than terms, value-wise, over variables
    that meet nothing but alldifferents and constants: n-queens' diagonals from about 70
    queens on), else "default". On n-queens 80 to 600 (13 of the 15 sizes measured never
    in a benchmark) focus took 1.3-22 s where the default alternation took 3.9-119 s
    (200: 2.96 against 7.2 s, 500: 15.2 against 40.4, 600: 21.8 against 119); the same
    kind of constraint encoded pairwise (colourings of queen graphs) showed no such gain,
    and focus is 7-14x slower on Golomb rulers and random linear systems, so no other
    problem gets it (docs/performance.md, "SAT search mode").
    """
    if mode == "auto":
        if not objective and stats and stats.get("alldifferent_placement", 0):
            return "focus"
        return "default"
    return mode


def new_solver(name: str = "cadical195", bootstrap_with=None, mode: str = "default"):
    """A PySAT solver (or its emulation, see `FreshSolver`) offering assumptions, incremental clauses, cores and phases.

    Search with `solve()` only (see `Capabilities`). `name` is any alias; an
    unknown or unusable one is a usage error. `mode` is a key of `SAT_MODES`
    (no "auto" here: see `sat_mode`); solvers other than CaDiCaL 1.5+ ignore it.
    """
    from pysat.solvers import Solver

    main = without_auto(check_solver(name))
    caps = CAPABILITIES[main]
    if not (caps.assumptions and caps.incremental):
        return FreshSolver(main, bootstrap_with)
    settings = dict(SAT_MODES[mode]) if main in _CONFIGURABLE else {}
    if main in _ELIMINATING_FIRST and getattr(getattr(_searches, "watchdog", None), "deadline", None) is not None:
        settings.update(fastelim=0, congruence=0)
    if settings:
        # Options must be set before any clause is added: configure the empty solver, then load.
        sat = Solver(name=_aliases()[main][0])
        sat.configure(settings)
        if bootstrap_with is not None:
            sat.append_formula(bootstrap_with)
    else:
        sat = Solver(name=_aliases()[main][0], bootstrap_with=bootstrap_with)
    if caps.interrupt:
        sat = _interruptible(sat, late=main in _LATE_INTERRUPT)
    elif main in _BUDGETED:
        sat = _budgeted(sat)
        _propagate_with_no_variables(sat)
    sat = guarded(sat)
    _LIVE.add(sat)
    if not caps.core:
        sat.get_core = lambda: None  # callers then fall back to all assumptions
    if not caps.phases:
        sat.set_phases = lambda literals=(), hard=False: None  # a hint only
    if main == "lingeling":
        _freeze_assumed_variables(sat)
    if main == "maplesat":
        _never_empty(sat)
    if main == "cryptosat":
        _declare_assumed_variables(sat)
        _undecided_is_a_stop(sat)
    return sat


def _propagate_with_no_variables(sat) -> None:
    """Make `sat` (CaDiCaL)'s `propagate()` of no assumptions succeed while it has no variable.

    PySAT's CaDiCaL answers ``(False, [])`` there, as if the empty formula were contradictory; the
    enumeration by propagation then counted 0 answers of a file whose constraints all became domain
    bounds (``(bool b)`` alone: 0 instead of 2).
    """
    propagate = sat.propagate

    def checked(assumptions=(), phase_saving=0):
        if not assumptions and sat.nof_vars() <= 0:
            return True, []
        return propagate(assumptions=assumptions, phase_saving=phase_saving)

    sat.propagate = checked


def _undecided_is_a_stop(sat) -> None:
    """Make `sat` (CryptoMiniSat) raise `Interrupted` where a SIGINT ended its search.

    pycryptosat handles SIGINT itself: it prints "c" on stdout and "*** INTERRUPTED ***" on stderr (with
    no newline), and the search returns None, which callers took for "no solution" (a time-out on
    golombRuler-11 printed `s OPTIMUM FOUND` at 85, the optimum being 72). Python never hears the signal.
    It is given no budget (`takes_budget`), so None means exactly that.
    """
    search = sat.solve

    def solve(assumptions=(), *args, **kwargs):
        found = search(assumptions, *args, **kwargs)
        if found is None:
            try:
                print(file=sys.stderr, flush=True)  # ends pycryptosat's line
            except OSError:
                pass
            raise Interrupted("search interrupted")
        return found

    sat.solve = solve


def _declare_assumed_variables(sat) -> None:
    """Let `sat` (CryptoMiniSat) take assumptions on variables no clause mentions yet.

    pycryptosat refuses them ("Variable N not used in clauses"), but the enumeration and
    `--unique` assume fresh activation literals before any clause uses them; a tautology
    `v ∨ ¬v` on the largest such variable declares it (and every smaller one) without
    constraining anything.
    """
    def declare(assumptions) -> None:
        highest = max((abs(literal) for literal in assumptions), default=0)
        if highest > sat.nof_vars():
            sat.add_clause([highest, -highest])

    _before_search(sat, declare)


def _before_search(sat, prepare: Callable[[Sequence[int]], None], methods: tuple[str, ...] = ("solve",)) -> None:
    """Make `sat`'s `methods` call `prepare(assumptions)` first (it adds the clauses a solver needs before
    it can search under them: `_declare_assumed_variables`, `_freeze_assumed_variables`, `_never_empty`)."""
    for method in methods:
        search = getattr(sat, method)

        def prepared(assumptions=(), *args, _search=search, **kwargs):
            prepare(assumptions)
            return _search(assumptions, *args, **kwargs)

        setattr(sat, method, prepared)


def _freeze_assumed_variables(sat) -> None:
    """Let `sat` (Lingeling) take assumptions on variables no clause mentions, again and again.

    PySAT freezes a variable for Lingeling when a clause mentions it; one that only assumptions
    mention is melted after the search, and assuming it once more aborts the whole process ("API
    usage error ... assuming melted literal", exit 134: `--count -O enumerate=cubes` of two
    unconstrained Booleans). A tautology `v ∨ ¬v` freezes each such variable the first time it is assumed.
    """
    frozen: set[int] = set()

    def freeze(assumptions) -> None:
        for literal in assumptions:
            if abs(literal) not in frozen:
                frozen.add(abs(literal))
                sat.add_clause([literal, -literal])

    _before_search(sat, freeze)


def _never_empty(sat) -> None:
    """Keep `sat` (MapleSAT) from searching a formula with no variable: its search crashes the process there
    (segmentation fault, exit 139: `--count -O enumerate=cubes` of a file whose constraints all became bounds).
    A tautology on variable 1 gives it one, constraining nothing."""
    def give_a_variable(assumptions) -> None:
        if sat.nof_vars() <= 0:
            sat.add_clause([1, -1])

    _before_search(sat, give_a_variable, ("solve", "solve_limited"))


def _conflicts(sat) -> int | None:
    """The conflicts `sat` has counted so far (PySAT's accum_stats), or None where the solver does not say."""
    try:
        stats = sat.accum_stats()
    except Exception:  # FreshSolver (Kissat), a deleted or interrupted solver
        return None
    return stats.get("conflicts") if isinstance(stats, dict) else None


@dataclass
class Result:
    """The outcome of solving one model.

    `status` is Sugar's word after ``s `` (or UNKNOWN); `values` maps the printed
    variables (definition order, ints then bools) to their values; `objective`
    is the best objective value found (None without an objective).
    """

    status: str
    values: Values | None = None
    objective: int | None = None
    all_values: Values | None = None
    stats: dict = field(default_factory=dict)
    model: Model | None = None
    proven: bool = True  # False when a time-out or Ctrl-C cut the search short

    def __repr__(self) -> str:
        extra = f", objective={self.objective}" if self.objective is not None else ""
        return f"Result(status={self.status!r}{extra}, values={self.values!r})"

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython/notebook display
        printer.text(repr(self))


class Interrupted(Exception):
    """The search was stopped by the time limit or by Ctrl-C."""


class StoppedBetweenSlices(Interrupted):
    """A budgeted search (`_budgeted`) stopped between two slices: the solver is intact, not abandoned."""


def is_interrupt(error: BaseException) -> bool:
    """Whether `error` is how PySAT or Python reports a SIGINT (time-out watchdog or Ctrl-C)."""
    return isinstance(error, (KeyboardInterrupt, Interrupted)) or "interrupt" in str(error).lower()


# The helper process of `Watchdog`: argv = parent pid (0: send no signal, only the word; for a watchdog
# outside the main thread), seconds (negative: no limit), the parent's stderr
# descriptor for a last word (negative: never end the parent); stdin = the parent's signal wakeup pipe (one
# byte per signal received, and `ACK` once the parent has handled a stop). When time is up or SIGTERM arrives
# it writes why to stdout (D: deadline, T: SIGTERM; C when a SIGINT it did not send arrives, a Ctrl-C), which
# the parent's watcher thread reads, and sends SIGINT to the parent, again every second until the parent
# acknowledges or closes the pipe: a KeyboardInterrupt raised inside a destructor is swallowed by Python,
# so one SIGINT could be lost. Last resort: a parent that, during a stop (acknowledged or not), spends
# `STUCK_AFTER` seconds without CPU and waits on a lock is stuck for good (PySAT's jump out of a search landed
# inside malloc and left the allocator's lock taken); with a descriptor given, the helper says so there and
# ends it with SIGKILL.
_WATCHDOG_CODE = """
import os, select, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
parent, seconds, last_word_fd = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
deadline = time.monotonic() + seconds if seconds >= 0 else None
stopping = acked = in_slice = False
why = b""
cpu, still_since = None, 0.0

def parent_cpu_and_wait():
    # The main thread's own figures: the process's CPU kept creeping while the main thread was stuck
    # inside free() holding the GIL, because another thread waiting for the GIL wakes every 5 ms.
    try:
        with open(f"/proc/{parent}/task/{parent}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{parent}/task/{parent}/wchan") as f:
            wchan = f.read()
        return (fields[0], int(fields[11]) + int(fields[12])), wchan
    except (OSError, IndexError, ValueError):
        return None, ""

while True:
    if stopping:
        wait = 1.0
    else:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
    ready = select.select([0], [], [], wait)[0]
    data = os.read(0, 256) if ready else b""
    if ready and not data:
        break
    if ACK in data:
        acked = True
    for byte in data:  # the parent's budgeted search begins and ends (the last word counts)
        if byte == SLICE_START:
            in_slice = True
        elif byte == SLICE_END:
            in_slice = False
    if not stopping:
        if signal.SIGINT in data:  # a SIGINT we did not send: Ctrl-C, which reached the parent itself
            stopping = True
            os.write(1, b"C")
            continue
        if ready and signal.SIGTERM not in data:
            continue
        stopping = True
        why = b"T" if ready else b"D"
        os.write(1, why)
        ready, data = False, b""  # send the first SIGINT now, as on a repeat
    # At the deadline a budgeted search stops by itself between slices (sized to end before it); a late one hears
    # the SIGINT sent after the grace only when its slice returns (PySAT installs no handler during a slice).
    waiting_for_slice = why == b"D" and in_slice and time.monotonic() < deadline + SLICE_GRACE
    if parent and not acked and not waiting_for_slice and (not ready or signal.SIGTERM in data):
        try:
            os.kill(parent, signal.SIGINT)
        except OSError:
            break
    if ready or not parent:
        continue
    now_cpu, wchan = parent_cpu_and_wait()  # once a second while stopping, acknowledged or not: stuck?
    if now_cpu != cpu:
        cpu, still_since = now_cpu, time.monotonic()
    elif last_word_fd >= 0 and time.monotonic() - still_since >= STUCK_AFTER and "futex" in wchan:
        os.write(last_word_fd, LAST_WORD)
        os.kill(parent, signal.SIGKILL)
        break
"""
# A KeyboardInterrupt already raised for a stop is raised again by a later SIGINT only this much later
# (for code that swallowed the first one); the helper's repeats within it are ignored.
REPEAT_RAISE_AFTER_S = 10.0
# The byte `interrupt_handled` writes to the helper's stdin (no signal has this number).
ACK = 0xAC
# The bytes a budgeted search (`_budgeted`, command line) writes around each slice.
SLICE_START, SLICE_END = 0xA1, 0xA2
# Seconds past the deadline the helper waits for a budgeted search to stop by itself before it sends SIGINT.
SLICE_GRACE = 2.0
# Seconds without CPU, waiting on a lock during a stop, after which the helper ends a stuck parent.
STUCK_AFTER = 10.0
_LAST_WORD = (
    b"c csp2sat: the process hung after the SAT solver was stopped (a PySAT search interrupted inside the"
    b" memory allocator); its watchdog ended it. Solver names that stop without that jump: glucose4,"
    b" minisat22 and the rest of the MiniSat family.\n"
)
_WATCHDOG_CODE = (
    _WATCHDOG_CODE.replace("SLICE_START", str(SLICE_START)).replace("SLICE_END", str(SLICE_END))
    .replace("SLICE_GRACE", str(SLICE_GRACE)).replace("ACK", str(ACK)).replace("STUCK_AFTER", str(STUCK_AFTER))
    .replace("LAST_WORD", repr(_LAST_WORD))
)

_active: "Watchdog | None" = None  # the watchdog in charge of the signals (main thread)
# Per thread, the watchdog whose watcher stops that thread's searches (`_interruptible`).
_searches = threading.local()


def interrupt_handled() -> None:
    """Say that the stop was handled: later SIGINTs (the watchdog's repeats) are ignored."""
    if _active is not None:
        _active._armed = False
        _active._acknowledge()


def _import_pipeline() -> None:
    """Import every module a run loads on first use, before a stop can come.

    A KeyboardInterrupt inside a first import leaves that module half-initialised for the
    rest of the process: seen, numpy without `matrix` (a submodule kept a reference to the
    interrupted `numpy`) after `solve(..., timeout=0.3)` in a fresh process, so every later
    call failed with AttributeError. Imported here, a stop can no longer land inside them.
    numpy, which only large formulas need, is left to `encoders.cnf.numpy_module`, which
    holds the signals back while it imports.
    """
    import pysat.solvers  # noqa: F401

    import csp2sat.checker  # noqa: F401
    import csp2sat.compiler  # noqa: F401
    import csp2sat.encoders.alldifferent  # noqa: F401
    import csp2sat.encoders.cardinality  # noqa: F401
    import csp2sat.encoders.cnf  # noqa: F401
    import csp2sat.encoders.log  # noqa: F401
    import csp2sat.encoders.order  # noqa: F401
    import csp2sat.evaluator  # noqa: F401
    import csp2sat.parser  # noqa: F401


class Watchdog:
    """The time limit, Ctrl-C and SIGTERM as one event: a KeyboardInterrupt, or a PySAT search stopped by SIGINT.

    Use as a context manager around a whole run (parsing, encoding, search);
    `seconds=None` means no limit. Nested watchdogs (the library's `solve()`
    inside a command) leave the outer one in charge. Outside the main thread
    signals cannot be handled: there only the time limit applies, and it stops
    a search only of a solver with `interrupt()` (CaDiCaL's runs to its end).

    How a search stops: PySAT's `solve()` stops on SIGINT by jumping out of the C++ search
    (longjmp). That is unsafe where the signal lands inside malloc: the allocator's lock stays
    taken and the next free() waits for ever (seen under load, once in 25 time-outs). So a
    thread of ours (`_watch`) reads the helper's word and calls `interrupt()` on the running
    search of every solver that has it (`Capabilities.interrupt`, the MiniSat family, which
    `--solver auto` picks for most files; those search in `solve_limited(expect_interrupt=True)`,
    which ignores SIGINT). The others (CaDiCaL, Lingeling) keep the jump; a process that hangs
    after it is ended by the helper when `last_word` is set (the command line sets it, a
    library caller is never killed).
    """

    def __init__(self, seconds: float | None, last_word: bool = False) -> None:
        if _active is None:
            _import_pipeline()  # before the clock starts: the limit is for the run, not for loading Python modules
        self.process: subprocess.Popen | None = None
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.signal: int | None = None  # the signal that stopped the run (SIGTERM, or SIGINT for Ctrl-C and time-outs)
        self._saved: list = []
        self._pipe: tuple[int, int] | None = None
        self._armed = False
        self._told = b""
        self._heard = threading.Event()  # set by `_watch` once the helper's word is in `_told`, or it is gone
        self._last_word = last_word
        self._watcher = None  # the thread reading the helper's word (`_watch`)
        self._searching = None  # the solver searching in `solve_limited`, which the watcher interrupts
        self._stopping = False
        self._raised_at: float | None = None  # when `_on_sigint` last raised KeyboardInterrupt
        self.nested = _active is not None
        if self.nested:
            return
        try:
            self._install()
        except ValueError:  # not the main thread: no handlers, no wakeup pipe, no SIGINT (it would hit the main thread)
            self._restore()
            if self._pipe is not None:
                for fd in self._pipe:
                    os.close(fd)
                self._pipe = None
            if seconds is not None:
                # Only the time limit applies, through the watcher: it stops searches that have `interrupt()`;
                # the stages between searches check `expired()`. A CaDiCaL search here runs to its end.
                read_end, write_end = os.pipe()  # held open until `stop`: the helper waits on it
                self._pipe = (read_end, write_end)
                self._start(seconds, stdin=read_end, signal_parent=False)
                os.close(read_end)
        _searches.watchdog = self

    def _install(self) -> None:
        global _active
        read_end, write_end = os.pipe()
        self._pipe = (read_end, write_end)
        os.set_blocking(write_end, False)
        self._saved.append(("wakeup", signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)))
        self._saved.append((signal.SIGINT, signal.signal(signal.SIGINT, self._on_sigint)))
        # SIGTERM's handler does nothing itself: its byte on the wakeup pipe makes the helper send SIGINT,
        # which also stops a search running in C (where no Python handler can run).
        self._saved.append((signal.SIGTERM, signal.signal(signal.SIGTERM, self._on_sigterm)))
        self._start(-1.0 if self.deadline is None else max(0.0, self.deadline - time.monotonic()), stdin=read_end)
        os.close(read_end)
        _active = self

    def _start(self, seconds: float, stdin, signal_parent: bool = True) -> None:
        # Until it runs its own code, the helper is in our process group with default signal actions: a
        # Ctrl-C or a SIGTERM to the group then would kill it and leave us deaf. Blocked here, those signals
        # stay pending: ours are handled once Popen returns, the helper's never reach it (it ignores SIGINT).
        signals = {signal.SIGINT, signal.SIGTERM}
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, signals) if self._saved else None
        # The helper's own stderr is /dev/null: it gets a copy of ours under another number for its last word.
        last_word_fd = -1
        if self._last_word:
            try:
                last_word_fd = os.dup(sys.__stderr__.fileno())
            except (AttributeError, OSError, ValueError):  # no standard error to speak on
                pass
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE, str(os.getpid() if signal_parent else 0),
                 f"{seconds:.3f}", str(last_word_fd)],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(last_word_fd,) if last_word_fd >= 0 else (),
                start_new_session=True,  # a Ctrl-C at the terminal is for us, not for the helper
            )
            # The watcher starts with the signals blocked, and keeps them so: a SIGINT delivered to it while
            # PySAT's handler is installed would jump onto the main thread's stack from this thread.
            if mask is None:
                mask = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
            self._watcher = threading.Thread(target=self._watch, name="csp2sat-watchdog", daemon=True)
            self._watcher.start()
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if last_word_fd >= 0:
                os.close(last_word_fd)

    def _watch(self) -> None:
        """Read the helper's word (why the run stops) and interrupt the running search, until the helper ends."""
        import select

        fd = self.process.stdout.fileno()
        while True:
            wait = 0.25 if self._stopping else None  # after a stop, also catch a search that was just starting
            try:
                if select.select([fd], [], [], wait)[0]:
                    told = os.read(fd, 1)
                    if not told:
                        self._heard.set()
                        return
                    self._told = self._told or told
                    self._stopping = True
                    self._heard.set()
            except (OSError, ValueError):
                self._heard.set()
                return
            sat = self._searching
            if sat is not None and self._stopping:
                try:
                    sat.interrupt()
                except Exception:  # abandoned meanwhile (`_abandon`): that search is over
                    pass

    def _acknowledge(self) -> None:
        self._tell(ACK)

    def _tell(self, byte: int) -> None:
        """Write one byte to the helper's stdin (`ACK`, `SLICE_START`, `SLICE_END`)."""
        if self._pipe is not None:
            try:
                os.write(self._pipe[1], bytes([byte]))
            except OSError:
                pass

    def _on_sigint(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signal.SIGINT
        if not self._armed:  # still setting up: `check()`, inside the caller's try, raises it
            return
        now = time.monotonic()
        if self._raised_at is not None and now - self._raised_at < REPEAT_RAISE_AFTER_S:
            # The helper repeats its SIGINT each second until the stop is acknowledged, but leaving the
            # stages of a big run can take longer than that (a 64 MB file's parse): a second raise then
            # landed in the command's own handler of the first (exit 130, "c interrupted").
            return
        self._raised_at = now
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if the run was stopped while the watchdog was being set up."""
        self._armed = True
        if self.signal is not None or self.expired():
            raise KeyboardInterrupt

    def _on_sigterm(self, signum: int, frame: object) -> None:
        self.signal = signal.SIGTERM

    def reason(self) -> str:
        """What stopped the run: "SIGTERM", "the time limit" or "Ctrl-C" (the helper's word, read by `_watch`)."""
        told = self._told
        if not told and self._watcher is not None and self.signal is not None:
            self._heard.wait(0.5)  # the helper writes its word as soon as it sees the signal
            told = self._told
        if told == b"T" or self.signal == signal.SIGTERM:
            return "SIGTERM"
        if told == b"D" or self.expired():
            return "the time limit"
        return "Ctrl-C"

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _restore(self) -> None:
        for what, old in reversed(self._saved):
            if what == "wakeup":
                signal.set_wakeup_fd(old)
            else:
                signal.signal(what, old)
        self._saved = []

    def stop(self) -> None:
        """End the helper process and the watcher thread, then restore the signal handlers.

        The helper is killed rather than awaited (it may still be starting, which takes
        a tenth of a second on a busy machine); a SIGINT it sent just before is absorbed
        by our handler, disarmed first, instead of surfacing after the run.
        """
        global _active
        if self.nested:
            return
        self._armed = False
        # The wakeup pipe goes first: a signal between the helper's end and `_restore` made Python write to a
        # pipe nobody reads ("Exception ignored when trying to write to the signal wakeup fd: BrokenPipeError"
        # on stderr when SIGTERM came just as a search ended), or to the closed write end.
        for what, old in self._saved:
            if what == "wakeup":
                signal.set_wakeup_fd(old)
        self._saved = [entry for entry in self._saved if entry[0] != "wakeup"]
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self._watcher is not None and self._watcher is not threading.current_thread():
                self._watcher.join(timeout=2.0)  # it sees the end of the helper's output at once
                self._watcher = None
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None
        if self._pipe is not None:
            os.close(self._pipe[1])
            self._pipe = None
        self._restore()
        if _active is self:
            _active = None
        if getattr(_searches, "watchdog", None) is self:
            _searches.watchdog = None

    def __enter__(self) -> "Watchdog":
        return self  # call `check()` first thing inside the try that handles the interruption

    def __exit__(self, *exc: object) -> None:
        self.stop()


def printed_values(model: Model, values: Mapping[str, Union[int, bool]]) -> Values:
    """The values of the printed variables (Sugar's order: ints by definition, then bools)."""
    shown: Values = {}
    for var in model.printed_int_vars():
        shown[var.name] = values[var.name]
    for var in model.printed_bool_vars():
        key = model.bool_key(var.name)
        shown[key] = values[key]
    return shown


def verify_answer(model: Model, values: Mapping[str, Union[int, bool]]) -> None:
    """Raise an internal error (`Exit.VERIFY`) when `values` violate the model: a wrong answer is never printed."""
    from csp2sat.evaluator import violations

    bad = violations(model, values)
    if bad:
        first = bad[0]
        raise CspError(
            f"internal error: the solver's answer violates {first.text} "
            f"({len(bad)} violation{'s' if len(bad) > 1 else ''}); this is a bug in csp2sat, the answer is withheld",
            first.line,
            0,
            model.file,
            exit=Exit.VERIFY,
        )


class ProbeBudget:
    """``objective=auto``'s conflict budget for bisection probes (`Search.run`, the portfolio's racers).

    A probe may use `conflicts` (at first `PROBE_CONFLICTS`, or what the first answer took if
    more); one that runs out doubles it and makes the next probe a linear step, which has no
    budget: its answer, or its refutation of every open value, is needed anyway.
    """

    def __init__(self, first_answer_conflicts: int) -> None:
        self.conflicts = max(PROBE_CONFLICTS, first_answer_conflicts)
        self.linear_next = False

    def for_probe(self, linear: bool) -> int | None:
        """The budget of the next probe (None for a linear one), which clears `linear_next`."""
        self.linear_next = False
        return None if linear else self.conflicts

    @staticmethod
    def of(search: "Search") -> "ProbeBudget | None":
        """The budget `search`'s probes get: one under ``objective=auto`` with a solver that takes budgets
        (Lingeling and Kissat do not: "auto" is plain bisection there), else None."""
        if search.compiled.options.get("objective", "auto") == "auto" and takes_budget(search.solver_name):
            return ProbeBudget(search.stats.get("conflicts", 0))
        return None

    def ran_out(self, stats: dict) -> None:
        """The last probe used up its budget: double it, step linearly next, count it in `stats`."""
        stats["probes_out_of_budget"] = stats.get("probes_out_of_budget", 0) + 1
        self.conflicts *= 2
        self.linear_next = True


class OpenValues:
    """Values of the objective, best first (the smallest when minimising), kept as a `Domain` of
    intervals: a log-encoded objective can have 2^32 values, which as a list of ints is over 100 GB.

    Indexing counts from the best value (negative indices from the worst); `better_than`,
    `worse_than` and `within` give the values left after an answer, a refutation or a re-encoding.
    """

    __slots__ = ("domain", "minimise")

    def __init__(self, domain: Domain, minimise: bool) -> None:
        self.domain, self.minimise = domain, minimise

    def __len__(self) -> int:
        return self.domain.size

    def __bool__(self) -> bool:
        return not self.domain.is_empty()

    def __getitem__(self, k: int) -> int:
        size = self.domain.size
        if k < 0:
            k += size
        if not 0 <= k < size:
            raise IndexError(k)
        return self.domain.nth(k if self.minimise else size - 1 - k)

    def __iter__(self) -> "Iterator[int]":
        if self.minimise:
            return self.domain.values()
        return (v for lo, hi in reversed(self.domain.intervals) for v in range(hi, lo - 1, -1))

    def __repr__(self) -> str:
        return f"OpenValues({self.domain.intervals!r}, minimise={self.minimise})"

    @property
    def lb(self) -> int:
        """The smallest value."""
        return self.domain.lb

    @property
    def ub(self) -> int:
        """The largest value."""
        return self.domain.ub

    def within(self, lo: int, hi: int) -> "OpenValues":
        """The values from `lo` to `hi` (inclusive)."""
        return OpenValues(self.domain.within(lo, hi), self.minimise)

    def better_than(self, value: int) -> "OpenValues":
        """The values better than `value`."""
        if not self:
            return self
        return self.within(self.lb, value - 1) if self.minimise else self.within(value + 1, self.ub)

    def worse_than(self, value: int) -> "OpenValues":
        """The values worse than `value`."""
        if not self:
            return self
        return self.within(value + 1, self.ub) if self.minimise else self.within(self.lb, value - 1)


class SharedBounds(Protocol):
    """What other searches of the same problem have found out (a portfolio's racers: `csp2sat.parallel.race`).

    `Search.run` asks before each probe and tells after each refutation; its answers go out
    through its `on_answer`.
    """

    def narrow(self, open_values: OpenValues) -> OpenValues:
        """The values of `open_values` that no other search has ruled out: better than every answer
        found so far, and not refuted."""

    def refuted(self, target: int) -> None:
        """No answer is at least as good as `target`."""


class Search:
    """One incremental search over a compiled model: satisfiability, then optimisation if asked.

    `on_answer(values, objective_values)` is called for every answer found (after
    verification), in order; the objective values are the values of every
    variable named in the objective (Sugar prints all of them on ``o`` lines).
    """

    def __init__(
        self,
        model: Model,
        compiled,
        solver: str = DEFAULT_SOLVER,
        verify: bool = True,
    ) -> None:
        self.model = model
        self.compiled = compiled
        self.verify = verify
        if check_solver(solver) == AUTO_SOLVER:
            solver = choose_solver(model, compiled)
        self.solver_name = solver
        self.stats: dict = {}
        self._search_cpu = 0.0  # CPU seconds in SAT calls since the last (re-)encoding
        self._shrink_checked = 0  # open values when re-encoding was last judged not worth it (0: never)
        self._estimate: int | None = None  # estimated clauses of the current CNF (`_shrink`)
        start = time.perf_counter()
        self.sat_mode = sat_mode(getattr(compiled, "options", {}).get("satmode", "auto"), model.objective is not None,
                                 getattr(compiled, "stats", None))
        self.sat = new_solver(solver, mode=self.sat_mode)
        self.stats["solver"] = check_solver(solver)
        if self.stats["solver"] in _CONFIGURABLE:  # other solvers have no modes (`new_solver` ignores it)
            self.stats["sat_mode"] = self.sat_mode
        compiled.load(self.sat)
        self.stats["load_s"] = time.perf_counter() - start
        self.stats["solve_s"] = 0.0
        self.stats["sat_calls"] = 0

    def close(self) -> None:
        """Free the SAT solver (`release`)."""
        release(self.sat)

    def _solve(self, assumptions: list[int], conflicts: int | None = None) -> bool | None:
        """Search under `assumptions`; None when `conflicts` is given and the search used them up undecided.

        `conflicts` only for a solver that `takes_budget` (callers make a `ProbeBudget` only then).
        """
        start = time.perf_counter()
        cpu = time.process_time()
        self.stats["sat_calls"] += 1
        before = _conflicts(self.sat)
        try:
            if conflicts is not None:
                found = self.sat.solve(assumptions=assumptions, conflicts=conflicts)
                return None if found is None else bool(found)
            return bool(self.sat.solve(assumptions=assumptions))
        except (KeyboardInterrupt, Exception) as err:  # PySAT reports a caught SIGINT as its own error type
            if is_interrupt(err):
                raise Interrupted() from None
            raise
        finally:
            self.stats["solve_s"] += time.perf_counter() - start
            self._search_cpu += time.process_time() - cpu
            after = _conflicts(self.sat)
            if before is not None and after is not None:  # load-independent measure of the search (-v)
                self.stats["conflicts"] = self.stats.get("conflicts", 0) + after - before

    def _answer(self) -> Values:
        values = self.compiled.decode(self.sat.get_model())
        if self.verify:
            verify_answer(self.model, values)
        return values

    def run(self, on_answer: Callable[[Values, tuple[int, ...]], None] | None = None,
            shared: SharedBounds | None = None) -> Result:
        """Search; with an objective, improve until optimal. Raises `Interrupted` when stopped (see `solve`).

        The objective strategy is the compiled option ``objective``: "binary" bisects between the
        proven bound and the best answer, "linear" asks each time only for an answer better than
        the best one (Sugar's descent), "gallop" skips 1, 2, 4, ... values past the best answer.
        "auto" (the default) bisects with a conflict budget per probe (`PROBE_CONFLICTS`, doubled
        each time one runs out): a probe that runs out is followed by a linear step, so a
        refutation far below the optimum (no 4-colouring of myciel6) does not hold up the easy
        answers near the best one. Either way every proven bound becomes a unit clause, and
        ``shrink`` may re-encode the problem with the objective's domain cut to the values still
        open (`_shrink`).

        `shared` (a portfolio's racer): the values other searches have ruled out are dropped from the
        open values before each probe, and each refutation is passed on. The search then ends when
        nothing is open, and its own best answer need not be the optimum (another search holds it).
        """
        model = self.model
        result = Result(UNKNOWN, model=model, stats=self.stats)
        while not self._solve([]):
            if not self._widen():
                result.status = UNSATISFIABLE
                return result
        values = self._answer()
        objective = model.objective
        shown_objective: tuple[int, ...] = ()
        if objective is not None:
            shown_objective = tuple(values[name] for name in objective.shown)
        result.status = SATISFIABLE
        result.all_values = values
        result.values = printed_values(model, values)
        if on_answer:
            on_answer(values, shown_objective)
        if objective is None:
            return result
        best = values[objective.var]
        result.objective = best
        self._best = result
        minimise = objective.sense == "minimize"
        strategy = self.compiled.options.get("objective", "auto")
        step = 1  # "gallop": how many open values the next target skips (doubles after SAT, halves after UNSAT)
        budget = ProbeBudget.of(self)
        self.stats["objective_strategy"] = "binary, budgeted" if budget else "binary" if strategy == "auto" else strategy
        # `open_values`: the objective's values better than the best answer that no proof has excluded,
        # best first; the search ends when none is left.
        open_values = self._ranked(minimise).better_than(best)
        self._tighten(objective.var, best, minimise)
        while open_values:
            if shared is not None:
                open_values = shared.narrow(open_values)
                if not open_values:
                    break
            if self._shrink(open_values, minimise):
                open_values = self._ranked(minimise).within(open_values.lb, open_values.ub)
                if not open_values:
                    break
            # Bisection: the middle of the open values; linear: the worst open value (anything better than best);
            # gallop: `step` values better than the best answer.
            if strategy == "linear" or (budget and budget.linear_next):
                target = open_values[-1]
            elif strategy == "gallop":
                target = open_values[max(0, len(open_values) - step)]
            else:
                target = open_values[(len(open_values) - 1) // 2]
            conflicts = budget.for_probe(target == open_values[-1]) if budget else None
            bound = self._at_least_as_good(objective.var, target, minimise)
            found = bound is not False and self._solve([] if bound is True else [bound], conflicts)
            if found is None:
                budget.ran_out(self.stats)
                continue
            if found:
                values = self._answer()
                best = values[objective.var]
                result.all_values = values
                result.values = printed_values(model, values)
                result.objective = best
                if on_answer:
                    on_answer(values, tuple(values[name] for name in objective.shown))
                open_values = open_values.better_than(best)
                self._tighten(objective.var, best, minimise)
                step *= 2
                continue
            # No answer at least as good as target (by the domain, or proven): a bound, kept as a unit clause.
            if bound is not False and bound is not True:
                self.sat.add_clause([-bound])
            if shared is not None:
                shared.refuted(target)
            open_values = open_values.worse_than(target)
            step = max(1, step // 2)
        result.status = OPTIMUM
        return result

    def _shrink(self, open_values: "OpenValues", minimise: bool) -> bool:
        """Re-encode with the objective's domain cut to the open values, when that pays; True if it did.

        The order encoding's size follows the domains, and bounds propagation
        carries an objective bound into every variable the objective bounds
        (Golomb rulers: the marks and their differences; shop scheduling: every
        start time), so a CNF built for the whole declared range is mostly about
        values no better answer can use. With ``shrink=auto`` the problem is compiled
        again, in a fresh solver, once at most half the objective's values (of the
        last CNF, or of the last check) are still open, the CNF has at least
        `SHRINK_MIN_CLAUSES` clauses, the SAT calls since the last encoding took about
        as much CPU as encoding the smaller CNF would (`COMPILE_CPU_PER_CLAUSE`), and the estimate (`estimated_clauses`, which only
        normalises) says the new CNF is at least `SHRINK_MIN_GAIN` smaller.
        The learnt clauses are lost; the proven bounds are kept in the new domain.
        """
        mode = self.compiled.options.get("shrink", "auto")
        if mode == "off":
            return False
        var = self.model.objective.var
        checked = self._shrink_checked or self.compiled.domain(var).size
        if 2 * len(open_values) > checked:
            return False
        if mode == "auto":
            if self.compiled.num_clauses < SHRINK_MIN_CLAUSES:
                return False
            # Only once the search has cost about what compiling the smaller CNF would: easy searches end first.
            if self._search_cpu < (1 - SHRINK_MIN_GAIN) * self.compiled.num_clauses * COMPILE_CPU_PER_CLAUSE:
                return False
            from csp2sat.compiler import estimated_clauses

            self._shrink_checked = len(open_values)
            options = dict(self.compiled.options)
            if self._estimate is None:
                self._estimate = estimated_clauses(self.compiled.model, options)
            narrowed = estimated_clauses(_with_objective_range(self.model, open_values.lb, open_values.ub), options)
            if narrowed > (1 - SHRINK_MIN_GAIN) * self._estimate:
                return False
            self._estimate = narrowed
        self._recompile(open_values.lb, open_values.ub)
        self._shrink_checked = 0
        return True

    def _widen(self) -> bool:
        """After UNSAT in a CNF built for the best values of the objective only (`compile_for_search`),
        re-encode for the other values; False when the CNF held every value (the problem is unsatisfiable)."""
        window = getattr(self.compiled, "objective_window", None)
        if window is None:
            return False
        declared = self.model.int_vars[self.model.objective.var].domain
        if self.model.objective.sense == "minimize":
            self._recompile(window[1] + 1, declared.ub)
        else:
            self._recompile(declared.lb, window[0] - 1)
        return True

    def _recompile(self, lo: int, hi: int) -> None:
        """Compile the model again, in a fresh solver, with the objective's values limited to lo..hi."""
        from csp2sat.compiler import compile_model

        start = time.perf_counter()
        self.sat.delete()  # first: the old solver's memory is not needed any more
        compiled = compile_model(_with_objective_range(self.model, lo, hi), options=dict(self.compiled.options),
                                 single_answer=True)
        self.sat = new_solver(self.solver_name, mode=self.sat_mode)
        compiled.load(self.sat)
        self.compiled = compiled
        self._search_cpu = 0.0
        self.stats["shrinks"] = self.stats.get("shrinks", 0) + 1
        self.stats["shrink_s"] = self.stats.get("shrink_s", 0.0) + time.perf_counter() - start
        self.stats["cnf_clauses_last"] = compiled.num_clauses

    def _ranked(self, minimise: bool) -> "OpenValues":
        """The objective's domain values in the current CNF, best first."""
        return OpenValues(self.compiled.domain(self.model.objective.var), minimise)

    def _tighten(self, var: str, best: int, minimise: bool) -> None:
        """Only answers better than `best` are wanted from now on: a unit clause says so."""
        lit = self._at_least_as_good(var, best - 1 if minimise else best + 1, minimise)
        if lit is not True and lit is not False:  # False: the best value of the domain, nothing left to ask
            self.sat.add_clause([lit])

    def _at_least_as_good(self, var: str, target: int, minimise: bool) -> Union[int, bool]:
        """The literal saying "objective ≤ target" (maximising: "≥ target"); True/False when the domain decides."""
        if minimise:
            return self.compiled.le_literal(var, target)
        below = self.compiled.le_literal(var, target - 1)
        if isinstance(below, bool):
            return not below
        return -below


def _with_objective_range(model: Model, lo: int, hi: int) -> Model:
    """`model` with the objective variable's domain cut to lo..hi (constraints shared, not copied); cumulative's
    horizon stays the one of the declared domains (`Model.horizon_bounds`), so the constraints mean what they did."""
    from dataclasses import replace

    from csp2sat.syntax import Domain

    var = model.int_vars[model.objective.var]
    domain = Domain.of([(max(a, lo), min(b, hi)) for a, b in var.domain.intervals])
    return replace(model, int_vars={**model.int_vars, var.name: replace(var, domain=domain)},
                   horizon_bounds=model.declared_bounds())


def compile_for_search(model: Model, options: Mapping[str, str] | None = None):
    """`compile_model` for one (optimal) answer; a big CNF with an objective is first built for its best values.

    With ``shrink=auto`` and an objective of at least `PROBE_MIN_VALUES` values whose whole
    CNF would have `PROBE_MIN_CLAUSES` clauses or more (estimated), and if the estimate for the
    best quarter of the objective's values is `SHRINK_MIN_GAIN` smaller, the CNF is built for that
    quarter only (bounds propagation carries the cut into
    every variable the objective bounds); `Search` re-encodes for the rest if that part has
    no answer. ``shrink=on`` does so whatever the size (for tests and comparisons).
    """
    from csp2sat.compiler import compile_model, estimated_clauses

    opts = dict(options or {})
    objective = model.objective
    mode = opts.get("shrink", "auto")
    size = model.int_vars[objective.var].domain.size if objective is not None else 0
    if mode != "off" and (size >= PROBE_MIN_VALUES or (mode == "on" and size >= 4)):
        domain = model.int_vars[objective.var].domain
        keep = size // 4
        if objective.sense == "minimize":
            window = (domain.lb, domain.nth(keep - 1))
        else:
            window = (domain.nth(size - keep), domain.ub)
        probe = mode == "on"
        if not probe:
            full = estimated_clauses(model, opts)
            probe = full >= PROBE_MIN_CLAUSES and (
                estimated_clauses(_with_objective_range(model, *window), opts) <= (1 - SHRINK_MIN_GAIN) * full)
        if probe:
            compiled = compile_model(_with_objective_range(model, *window), options=opts, single_answer=True)
            compiled.objective_window = window
            return compiled
    return compile_model(model, options=opts, single_answer=True)


def _as_model(model_or_text) -> Model:
    if isinstance(model_or_text, Model):
        return model_or_text
    import warnings

    from csp2sat import parse
    from csp2sat.diagnostics import CspWarning

    model = parse(model_or_text)
    for warning in model.warnings:  # the caller never sees this model: its warnings are said here, as the CLI says them
        warnings.warn(str(warning), CspWarning, stacklevel=4)  # at the caller of csp2sat.solve
    return model


def solve(
    model_or_text,
    solver: str = AUTO_SOLVER,
    timeout: float | None = None,
    verify: bool = True,
    options: Mapping[str, str] | None = None,
    on_answer: Callable[[Values, tuple[int, ...]], None] | None = None,
) -> Result:
    """Solve a CSP and return a `Result` (`.status`, `.values`, `.objective`).

    `model_or_text` is a checked `Model`, CSP text or a path to a ``.csp`` file.
    `solver` is any PySAT solver name or "auto" (the default: `choose_solver`); `timeout` in
    seconds ends the search with status UNKNOWN (with an objective, the best
    answer so far is kept and `proven` is False). Ctrl-C does the same.
    `on_answer` sees every verified answer as it is found.

    >>> solve("(int x 1 3) (> x 2)").values
    {'x': 3}
    """
    from csp2sat.compiler import compile_model

    if on_answer is not None and not callable(on_answer):
        raise TypeError(f"on_answer is a function of (values, objective values), not {on_answer!r}")
    start = time.perf_counter()
    watchdog = Watchdog(timeout)  # the time limit covers parsing and encoding too
    search = None
    best: Result | None = None
    model = model_or_text if isinstance(model_or_text, Model) else None
    stats: dict = {}
    try:
        watchdog.check()
        model = _as_model(model_or_text)
        stats["parse_s"] = time.perf_counter() - start
        compiled = compile_for_search(model, options)
        stats.update(compiled.stats)
        stats["cnf_vars"] = compiled.num_vars
        stats["cnf_clauses"] = compiled.num_clauses
        if watchdog.expired():
            raise Interrupted()
        search = Search(model, compiled, solver=solver, verify=verify)
        search.stats.update(stats)
        result = search.run(on_answer)
        return result
    except (Interrupted, KeyboardInterrupt) as err:
        interrupt_handled()
        keep_until_exit(err)  # its frames (this one's too) hold the compiled model: not freed before the answer
        best = getattr(search, "_best", None) if search else None
        if best is not None:
            best.status = SATISFIABLE
            best.proven = False
            return best
        return Result(UNKNOWN, model=model, stats=search.stats if search else stats, proven=False)
    finally:
        watchdog.stop()
        if search is not None:
            search.close()
