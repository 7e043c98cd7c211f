"""Beyond Sugar, output stage of `csp2sat solve`: the --all, -n, --count, --unique and --facts modes.

`csp2sat.commands.solve` (the lead's) calls `add_arguments` when it builds its
parser and `run` after compiling; `run` returns None when none of these modes
was asked for, so plain solving goes on as before. All modes share one
incremental solver (`csp2sat.enumerate.SolutionSpace`). With an objective they
range over the OPTIMAL solutions: the optimum is printed once (``o VALUE``)
and the answers are the optimal ones.

Output (answers in Sugar's ``a NAME<TAB>VALUE`` ... ``a`` blocks):

* ``--all`` / ``-n N``: ``s SATISFIABLE``, [``o OPT``], every answer (or the
  first N), [``s OPTIMUM FOUND``], then ``c SOLUTIONS <count>``;
  ``s UNSATISFIABLE`` and ``c SOLUTIONS 0`` when there is none. When -n
  stops the enumeration: ``c stopped at the limit -n N`` and
  ``c SOLUTIONS AT LEAST N`` (there may be more).
* ``--count``: only ``c SOLUTIONS <count>``.
* ``--unique``: ``s SATISFIABLE``, [``o OPT``], an answer, then ``c UNIQUE``,
  or ``c MULTIPLE`` followed by a second answer, [``s OPTIMUM FOUND``].
* ``--facts``: ``s SATISFIABLE``, [``o OPT``], then ``c FACT NAME<TAB>VALUE``
  for every printed variable, ``?`` as value when answers disagree,
  [``s OPTIMUM FOUND``].

Interrupted (--timeout, Ctrl-C, SIGTERM): `Progress.report` ends the output,
with ``c SOLUTIONS AT LEAST <found so far>`` for --all, -n and --count.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from csp2sat import output
from csp2sat.commands import sugar_modes
from csp2sat.commands._common import positive_int
from csp2sat.diagnostics import Exit

if TYPE_CHECKING:  # the enumerator pulls in the compiler; import it only when a mode runs
    from csp2sat.enumerate import Answer, SolutionSpace


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the mode options (mutually exclusive) to the `solve` parser."""
    group = parser.add_argument_group(
        "beyond Sugar", "with an objective, these modes consider the optimal solutions only"
    )
    modes = group.add_mutually_exclusive_group()
    modes.add_argument("--all", action="store_true", help="print every answer, then 'c SOLUTIONS <count>'")
    modes.add_argument("-n", type=positive_int, metavar="N", dest="max_solutions", help="print the first N answers")
    modes.add_argument("--count", action="store_true", help="print only 'c SOLUTIONS <count>'")
    modes.add_argument(
        "--unique", action="store_true", help="print an answer, then 'c UNIQUE' or 'c MULTIPLE' and a second answer"
    )
    modes.add_argument(
        "--facts", action="store_true", help="print 'c FACT NAME<TAB>VALUE' for values forced in every answer ('?' if not)"
    )


def requested(args: argparse.Namespace) -> bool:
    """Whether one of these modes was asked for."""
    return bool(
        getattr(args, "all", False)
        or getattr(args, "max_solutions", None)
        or getattr(args, "count", False)
        or getattr(args, "unique", False)
        or getattr(args, "facts", False)
    )


class Progress:
    """How far a mode got, so that an interrupted run can say what it found (`report`)."""

    def __init__(self) -> None:
        self.mode: str | None = None  # "all", "count", "unique" or "facts" once a mode runs
        self.found = 0  # answers found so far (--all, -n, --count)
        self.searching: tuple[float, str, str] | None = None  # (start, "-O enumerate=...", solver) once it searches

    def stage_line(self) -> str | None:
        """-v's line for the mode's search (its time so far, method and solver), once it has begun."""
        if self.searching is None:
            return None
        started, how, solver = self.searching
        return f"c {self.mode:<10} {time.perf_counter() - started:8.3f} s   ({how}solver {solver})"

    def report(self, out: Any) -> None:
        """The lines that end an interrupted run: ``s UNKNOWN`` if nothing was printed, then what is known."""
        if not getattr(out, "used", False):
            out.write("s UNKNOWN\n")
        if self.mode == "all" and self.found:
            out.write("c interrupted: the answers above are all that was found\n")
        if self.mode in ("all", "count"):
            out.write(f"c SOLUTIONS AT LEAST {self.found}\n")  # a lower bound, never read as the count
        elif self.mode == "unique" and getattr(out, "used", False):
            out.write("c interrupted before uniqueness was decided\n")


class _Printer:
    """Writes the status line, the optimum and answers (keyed like every value mapping, by `bool_key`)."""

    def __init__(self, model: Any, space: SolutionSpace, out: TextIO, args: argparse.Namespace):
        self.model, self.args = model, args
        self.names = [v.name for v in model.printed_int_vars()] + [v.name for v in model.printed_bool_vars()]
        self.space = space
        self.out = out

    def header(self, first: Answer | None = None) -> None:
        """``s SATISFIABLE`` and, under an objective, its ``o`` line: every name the objective shows, from the
        `first` answer printed (as plain solving prints them), or the optimum alone when no answer follows."""
        self.out.write(output.status_line("SATISFIABLE") + "\n")
        if self.space.optimum is not None:
            self.out.write(_objective_line(self.model, self.space.optimum, first))

    def answer(self, answer: Answer) -> None:
        sugar_modes.write_answer(self.args, self.out, self.model, answer)  # `a` lines, or one `v` line with -c


def _objective_line(model: Any, optimum: int, first: Answer | None) -> str:
    """The ``o`` line of the enumeration modes, as `_Printer.header` says."""
    shown = model.objective.shown
    if first is None or any(name not in first for name in shown):  # answers hold no hidden (_) variable
        return f"o {optimum}\n"
    return output.objective_line(tuple(first[name] for name in shown)) + "\n"


def _run_all(printer: _Printer, space: SolutionSpace, out: TextIO, limit: int | None, progress: Progress) -> None:
    count = 0
    for answer in space.solutions(limit):
        if count == 0:
            printer.header(answer)
        printer.answer(answer)
        out.flush()  # long enumerations show progress as they go
        count += 1
        progress.found = count
    if count == 0:
        out.write("s UNSATISFIABLE\n")
    elif space.optimum is not None:
        out.write("s OPTIMUM FOUND\n")
    _write_count(out, count, limit)


def _write_count(out: TextIO, count: int, limit: int | None) -> None:
    """The last line of --all/-n/--count: the count, or that -n stopped the enumeration (there may be more)."""
    if limit is not None and count >= limit:
        out.write(f"c stopped at the limit -n {limit}\n")
        out.write(f"c SOLUTIONS AT LEAST {count}\n")
    else:
        out.write(f"c SOLUTIONS {count}\n")


def _run_unique(printer: _Printer, space: SolutionSpace, out: TextIO) -> None:
    result = space.uniqueness()
    if result.first is None:
        out.write("s UNSATISFIABLE\n")
        return
    printer.header(result.first)
    printer.answer(result.first)
    if result.second is None:
        out.write("c UNIQUE\n")
    else:
        out.write("c MULTIPLE\n")
        printer.answer(result.second)
    if space.optimum is not None:  # ends like --all: the optimum is proven
        out.write("s OPTIMUM FOUND\n")


def _run_facts(printer: _Printer, space: SolutionSpace, out: TextIO) -> None:
    facts = space.facts()
    if facts is None:
        out.write("s UNSATISFIABLE\n")
        return
    printer.header()
    for name, value in zip(printer.names, facts.values()):
        out.write(f"c FACT {name}\t{'?' if value is None else output.format_value(value)}\n")
    if space.optimum is not None:  # ends like --all: the optimum is proven
        out.write("s OPTIMUM FOUND\n")


def _count_with_progress(space: "SolutionSpace", progress: Progress, every: float = 1.0) -> int:
    """Count the answers; on a terminal, show the count so far on stderr (long counts take minutes)."""
    show = sys.stderr.isatty()
    count = 0
    shown_at = time.monotonic()
    for _ in space.solutions():
        count += 1
        progress.found = count
        if show and time.monotonic() - shown_at >= every:
            sys.stderr.write(f"\rc {count} solutions so far ...")
            sys.stderr.flush()
            shown_at = time.monotonic()
    if show and count:
        sys.stderr.write("\r\033[K")  # clear the progress line
    return count


def _run_parallel(args: argparse.Namespace, model: Any, compiled: Any, solver_name: str, out: TextIO, verify: bool,
                  progress: Progress) -> int:
    """--count/--all/-n on several workers (csp2sat.parallel): disjoint cubes, answers printed as they arrive."""
    from csp2sat.parallel import ParallelStats, parallel_enumerate

    stats = ParallelStats()
    jobs = max(args.jobs, 1)
    batches = parallel_enumerate(
        compiled,
        model,
        jobs,
        scheduler=getattr(args, "scheduler", None),
        limit=args.max_solutions,
        keep_answers=not args.count,
        solver=solver_name,
        verify="sample" if args.count and verify else verify,
        stats=stats,
    )
    count = 0
    for batch in batches:
        if args.count:
            count += batch
            progress.found = count  # an interruption reports it as a lower bound
            continue
        for answer in batch:
            if count == 0:
                out.write(output.status_line("SATISFIABLE") + "\n")
                if stats.optimum is not None:  # found by parallel_enumerate before any answer
                    out.write(_objective_line(model, stats.optimum, answer))
            sugar_modes.write_answer(args, out, model, answer)
            count += 1
            progress.found = count
        out.flush()
    if not args.count:
        if count == 0:
            out.write("s UNSATISFIABLE\n")
        elif stats.optimum is not None:
            out.write("s OPTIMUM FOUND\n")
    _write_count(out, count, args.max_solutions)  # as one process ends it (-n stopping it included)
    if getattr(args, "verbose", False):
        sys.stderr.write(
            f"c parallel: {jobs} workers, {stats.tasks} tasks, {stats.sat_calls} SAT calls, "
            f"worker CPU {stats.worker_cpu_s:.2f} s, {stats.checked} answers checked\n"
        )
    return Exit.OK


def run(
    args: argparse.Namespace, model: Any, compiled: Any, solver_name: str, out: TextIO, progress: Progress | None = None
) -> int | None:
    """Run the requested mode on a compiled model and return the exit status; None when no mode was requested.

    `progress` records how far the mode got, for the caller to report when it is interrupted.
    """
    if not requested(args):
        return None
    from csp2sat.enumerate import open_space

    progress = progress or Progress()
    progress.mode = "count" if args.count else "unique" if args.unique else "facts" if args.facts else "all"
    verify = getattr(args, "verify", True)
    if getattr(args, "jobs", 1) > 1 or getattr(args, "scheduler", None):
        if not (args.unique or args.facts):
            return _run_parallel(args, model, compiled, solver_name, out, verify, progress)
        print("c --unique and --facts run in this process: --jobs and --scheduler are ignored", file=sys.stderr)
    # Counts are not printed answers: a sample is checked (enumerate.CompiledSpace), printed answers all are.
    # (-n 1 asks for one answer: the search mode of plain solving finds it, where the stable mode chosen for
    # listing can take seconds more: nqueens-200 1.9 against 8.3 s)
    enumerating = not (args.unique or args.facts or getattr(args, "max_solutions", None) == 1)
    started = time.perf_counter()
    with open_space(compiled, model, solver_name, verify="sample" if args.count and verify else verify,
                    enumerating=enumerating) as space:
        progress.searching = (started, f"-O enumerate={space.method}, " if enumerating else "", space.solver_name)
        printer = _Printer(model, space, out, args)
        if args.count:
            out.write(f"c SOLUTIONS {_count_with_progress(space, progress)}\n")
        elif args.unique:
            _run_unique(printer, space, out)
        elif args.facts:
            _run_facts(printer, space, out)
        else:
            _run_all(printer, space, out, args.max_solutions, progress)
        if getattr(args, "verbose", False):
            sys.stderr.write(f"{progress.stage_line()}\n")
    return Exit.OK
