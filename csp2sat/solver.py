"""Solving stage: one incremental PySAT solver per problem, optimisation, decoding and verification.

Takes the `Compiled` CNF of a model, loads it into a PySAT solver, searches,
and turns SAT models back into values of the user's variables. Every answer
is checked by the independent `csp2sat.evaluator` before anyone sees it; a
failed check is an internal error (`Exit.VERIFY`) naming the violated
constraint, so a wrong answer is never printed.

Objectives are optimised in the SAME solver by bisection under assumptions:
each call assumes "objective at least as good as the middle value" between
the proven bound and the best answer; SAT gives a better answer, UNSAT a new
proven bound (added as a unit clause). The CNF is never re-encoded and the
solver never restarted, and maximisation ends like minimisation (Sugar's
driver can loop forever there). jss-ft10: 334 calls of linear descent -> 10.

Time limits: CaDiCaL in PySAT holds the GIL while it searches and does not
support `interrupt()`, but it stops cleanly on SIGINT. A time-out therefore
starts a tiny watchdog process that sends SIGINT to us when time is up; the
same path serves Ctrl-C. An interrupted solver is only deleted, never asked
anything again (CaDiCaL aborts the process on any other call).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import Model

DEFAULT_SOLVER = "cadical195"

SATISFIABLE = "SATISFIABLE"
UNSATISFIABLE = "UNSATISFIABLE"
OPTIMUM = "OPTIMUM FOUND"
UNKNOWN = "UNKNOWN"

Values = dict[str, Union[int, bool]]


def solver_names() -> list[str]:
    """Every solver name PySAT accepts (aliases included)."""
    from pysat.solvers import SolverNames

    names: list[str] = []
    for attr, aliases in vars(SolverNames).items():
        if not attr.startswith("_") and isinstance(aliases, tuple):
            names.extend(aliases)
    return sorted(set(names))


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


def is_interrupt(error: BaseException) -> bool:
    """Whether `error` is how PySAT or Python reports a SIGINT (time-out watchdog or Ctrl-C)."""
    return isinstance(error, (KeyboardInterrupt, Interrupted)) or "interrupt" in str(error).lower()


class Watchdog:
    """Sends SIGINT to this process after `seconds`, from a separate tiny process (see the module doc).

    Use as a context manager; `seconds=None` means no limit.
    """

    def __init__(self, seconds: float | None) -> None:
        self.process: subprocess.Popen | None = None
        if seconds is not None:
            self.process = subprocess.Popen(
                ["sh", "-c", f"sleep {max(seconds, 0.0):.3f} && kill -INT {os.getpid()}"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> "Watchdog":
        return self

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
        if solver not in solver_names():
            raise CspError(
                f"unknown SAT solver {solver!r}; choose one of: {', '.join(solver_names())}",
                exit=Exit.USAGE,
                file="csp2sat",
            )
        self.model = model
        self.compiled = compiled
        self.verify = verify
        self.stats: dict = {}
        from pysat.solvers import Solver

        start = time.perf_counter()
        self.sat = Solver(name=solver)
        compiled.load(self.sat)
        self.stats["load_s"] = time.perf_counter() - start
        self.stats["solve_s"] = 0.0
        self.stats["sat_calls"] = 0

    def close(self) -> None:
        """Free the SAT solver."""
        self.sat.delete()

    def _solve(self, assumptions: list[int]) -> bool:
        start = time.perf_counter()
        self.stats["sat_calls"] += 1
        try:
            return bool(self.sat.solve_limited(assumptions=assumptions, expect_interrupt=True))
        except (KeyboardInterrupt, Exception) as err:  # PySAT reports a caught SIGINT as its own error type
            if is_interrupt(err):
                raise Interrupted() from None
            raise
        finally:
            self.stats["solve_s"] += time.perf_counter() - start

    def _answer(self) -> Values:
        values = self.compiled.decode(self.sat.get_model())
        if self.verify:
            verify_answer(self.model, values)
        return values

    def run(self, on_answer: Callable[[Values, tuple[int, ...]], None] | None = None) -> Result:
        """Search; with an objective, improve until optimal. Raises `Interrupted` when stopped (see `solve`)."""
        model = self.model
        result = Result(UNKNOWN, model=model, stats=self.stats)
        if not self._solve([]):
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
        # Domain values of the objective, best first; no answer lies before index `lo` (proven).
        ranked = self.compiled.domain_values(objective.var)
        if not minimise:
            ranked.reverse()
        position = {v: k for k, v in enumerate(ranked)}
        lo = 0
        while lo < position[best]:
            # Bisection between the proven bound and the best answer, under an assumption:
            # an UNSAT half is a proven bound (kept as a unit clause), a SAT half a better answer.
            target = ranked[lo + (position[best] - lo) // 2]
            bound = self._at_least_as_good(objective.var, target, minimise)
            if bound is True or bound is False:  # decided by the domain: nothing to search there
                lo = position[target] + 1 if bound is False else lo
                if bound is True:
                    break
                continue
            if not self._solve([bound]):
                self.sat.add_clause([-bound])
                lo = position[target] + 1
                continue
            values = self._answer()
            best = values[objective.var]
            result.all_values = values
            result.values = printed_values(model, values)
            result.objective = best
            if on_answer:
                on_answer(values, tuple(values[name] for name in objective.shown))
        result.status = OPTIMUM
        return result

    def _at_least_as_good(self, var: str, target: int, minimise: bool) -> Union[int, bool]:
        """The literal saying "objective ≤ target" (maximising: "≥ target"); True/False when the domain decides."""
        if minimise:
            return self.compiled.le_literal(var, target)
        below = self.compiled.le_literal(var, target - 1)
        if isinstance(below, bool):
            return not below
        return -below


def _as_model(model_or_text) -> Model:
    if isinstance(model_or_text, Model):
        return model_or_text
    from csp2sat import parse

    return parse(model_or_text)


def solve(
    model_or_text,
    solver: str = DEFAULT_SOLVER,
    timeout: float | None = None,
    verify: bool = True,
    options: Mapping[str, str] | None = None,
    on_answer: Callable[[Values, tuple[int, ...]], None] | None = None,
) -> Result:
    """Solve a CSP and return a `Result` (`.status`, `.values`, `.objective`).

    `model_or_text` is a checked `Model`, CSP text or a path to a ``.csp`` file.
    `solver` is any PySAT solver name (default CaDiCaL 1.9.5); `timeout` in
    seconds ends the search with status UNKNOWN (with an objective, the best
    answer so far is kept and `proven` is False). Ctrl-C does the same.
    `on_answer` sees every verified answer as it is found.

    >>> solve("(int x 1 3) (> x 2)").values
    {'x': 3}
    """
    from csp2sat.compiler import compile_model

    start = time.perf_counter()
    model = _as_model(model_or_text)
    stats: dict = {"parse_s": time.perf_counter() - start}
    watchdog = Watchdog(timeout)
    search = None
    best: Result | None = None
    try:
        compiled = compile_model(model, options=dict(options or {}))
        stats.update(compiled.stats)
        stats["cnf_vars"] = compiled.num_vars
        stats["cnf_clauses"] = compiled.num_clauses
        if watchdog.expired():
            raise Interrupted()
        search = Search(model, compiled, solver=solver, verify=verify)
        search.stats.update(stats)
        result = search.run(on_answer)
        return result
    except (Interrupted, KeyboardInterrupt):
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
