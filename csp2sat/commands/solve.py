"""`csp2sat solve`: parse, compile, solve and print the answer in Sugar's format."""

from __future__ import annotations

import argparse
import sys
import time

from csp2sat.diagnostics import Exit

NAME = "solve"
READS = ("file",)  # file arguments read and written (cli: none may collide)
WRITES = ()
HELP = "solve a Sugar CSP file and print the answer as Sugar does"
DESCRIPTION = """\
Solve a constraint problem written in the Sugar CSP language.

The file is parsed and checked, compiled into CNF by the order encoding, and
solved with a PySAT solver (--solver auto: Glucose 4.1 or CaDiCaL 1.9.5, see below).
The answer is checked against the original constraints before it is printed.

output (the same as Sugar's):
  s SATISFIABLE          then one line per variable:  a NAME<TAB>VALUE
  a                      a lone "a" ends the answer
  s UNSATISFIABLE        no solution exists
  o 34                   (objectives) each improved value, followed by its answer
  s OPTIMUM FOUND        (objectives) the last answer is optimal
  s UNKNOWN              stopped by --timeout, Ctrl-C or SIGTERM before an answer (exit 0;
                         after answers: a 'c' line instead, e.g. c SOLUTIONS AT LEAST 12)

examples:
  csp2sat solve nqueens-8.csp
  csp2sat solve -v --timeout 60 jss-ft10.csp      stage timings and CNF size on stderr
  csp2sat solve --solver glucose4 golombRuler-8.csp
  csp2sat solve - < model.csp                     read the problem from standard input
  csp2sat solve --unique puzzle.csp               is the solution unique? (c UNIQUE / c MULTIPLE)
  csp2sat solve --facts puzzle.csp                which values hold in every solution
  csp2sat solve --count pentomino.csp            how many solutions

XCSP3 input (FILE.xml, .xml.gz, .xml.lzma) answers in the XCSP3 competition format:
  o 34                   (COP) each improved objective value
  s SATISFIABLE | UNSATISFIABLE | OPTIMUM FOUND | UNKNOWN
  v <instantiation> <list> x[] </list> <values> 1 3 0 2 </values> </instantiation>

see also: csp2sat explain (why a file is unsatisfiable), csp2sat encode/decode (DIMACS)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat solve`."""
    from csp2sat.commands._common import add_solver_argument, add_timeout_argument, positive_int

    parser.add_argument(
        "file", metavar="FILE.csp", help="the problem ('-' for standard input; FILE.xml[.gz|.lzma]: XCSP3, see below)"
    )
    add_solver_argument(parser, auto=True)
    add_timeout_argument(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="print stage times and CNF size on stderr")
    parser.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="skip the independent check of every answer (it is on by default and cheap)",
    )
    from csp2sat.commands import solve_modes

    from csp2sat.commands._common import add_encoding_argument

    add_encoding_argument(parser)
    solve_modes.add_arguments(parser)
    from csp2sat.commands import sugar_modes

    sugar_modes.add_arguments(parser)
    parallel = parser.add_argument_group("parallel search")
    parallel.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=1,
        metavar="N",
        help="N worker processes: --count/--all/-n split the answers into disjoint cubes; "
        "plain solving races N different SAT solvers (first proof wins, objective bounds shared)",
    )
    parallel.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="run the --jobs workers (cubes or racing solvers) on this Dask cluster instead of local processes "
        "(pip install 'csp2sat[dask]')",
    )


def read_model(path: str):
    """Parse and check the file `path` ('-' = stdin); return (model, seconds)."""
    from csp2sat.commands._common import read_model as read

    start = time.perf_counter()
    model, _ = read(path)
    return model, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    """Solve `args.file` and print Sugar's answer format on stdout.

    --timeout, Ctrl-C and SIGTERM stop every stage alike (parsing, encoding,
    search): ``s UNKNOWN``, or the answers found so far and a ``c`` line; exit 0.
    """
    from csp2sat.commands._common import ChunkedStdout, stop_reason
    from csp2sat.commands.solve_modes import Progress
    from csp2sat.solver import Watchdog, interrupt_handled, is_interrupt, keep_until_exit

    out = _Tracked(ChunkedStdout())
    progress = Progress()
    with Watchdog(args.timeout, last_word=True) as watchdog:
        try:
            watchdog.check()
            return _run(args, out, progress, watchdog)
        except (KeyboardInterrupt, Exception) as err:
            if not is_interrupt(err):
                raise
            interrupt_handled()
            # the stopped frames hold what they were building (a half-made CNF: 2.7 s to free on a
            # 200x200 board): freed after the answer is out, or in the command's process never
            stopped = err  # noqa: F841
            keep_until_exit(err)
        print(f"c stopped by {stop_reason(watchdog)}", file=sys.stderr)
        progress.report(out)
        out.flush()
        stage = progress.stage_line() if getattr(args, "verbose", False) else None
        if stage:  # which solver ran, stopped or not
            print(stage, file=sys.stderr)
    return Exit.OK


def _run(args: argparse.Namespace, out: "_Tracked", progress, watchdog) -> int:
    from csp2sat import output
    from csp2sat.commands._common import encoding_options, stop_reason
    from csp2sat.solver import solve

    options = encoding_options(args.encoding)
    from csp2sat.xcsp3_read import is_xcsp3_path

    if is_xcsp3_path(args.file):  # XCSP3 input answers in the XCSP3 competition format
        from csp2sat.commands import solve_xcsp3

        return solve_xcsp3.run(args, options)
    model, parse_s = read_model(args.file)
    for warning in model.warnings:
        print(str(warning), file=sys.stderr)
    from csp2sat.commands import sugar_modes

    model = sugar_modes.prepare(args, model)
    from csp2sat.commands import solve_modes

    if solve_modes.requested(args):
        return _run_mode(args, model, options, out, progress, parse_s)
    if getattr(args, "jobs", 1) > 1 or getattr(args, "scheduler", None):  # --scheduler alone: one racer there
        return _run_portfolio(args, model, options, out, parse_s, watchdog)
    answers = _SugarAnswers(args, model, out)
    result = solve(  # inside `run`'s watchdog: an interruption returns the best answer so far, or UNKNOWN
        model,
        solver=args.solver,
        verify=args.verify,
        options=options,
        on_answer=answers,
    )
    if not result.proven:
        print(f"c stopped by {stop_reason(watchdog)}", file=sys.stderr)
    answers.finish(result)
    if args.verbose:
        stats = dict(result.stats)
        stats["parse_s"] = parse_s
        for line in output.stats_lines(stats):
            print(line, file=sys.stderr)
    return Exit.OK


def _run_portfolio(args: argparse.Namespace, model, options: dict[str, str], out: "_Tracked",
                   parse_s: float, watchdog) -> int:
    """`solve --jobs N`: N solvers race on one CNF, on local processes (csp2sat.parallel.portfolio_solve) or
    a Dask cluster with --scheduler (csp2sat.dask_portfolio); output as plain solving."""
    from csp2sat.commands._common import stop_reason
    from csp2sat.parallel import portfolio_solve
    from csp2sat.solver import compile_for_search

    start = time.perf_counter()
    compiled = compile_for_search(model, options)  # as plain solving: maybe for the objective's best values first
    compile_s = time.perf_counter() - start
    answers = _SugarAnswers(args, model, out)
    timeout = None if args.timeout is None else max(0.0, args.timeout - compile_s)
    try:
        if getattr(args, "scheduler", None):
            from csp2sat.dask_portfolio import portfolio_solve_on_dask

            result = portfolio_solve_on_dask(
                model, compiled, args.jobs, args.scheduler,
                first=args.solver, timeout=timeout, verify=args.verify, on_answer=answers,
            )
        else:
            result = portfolio_solve(
                model, compiled, args.jobs, first=args.solver, timeout=timeout, verify=args.verify, on_answer=answers
            )
    except KeyboardInterrupt:  # run's watchdog (time limit, Ctrl-C, SIGTERM): the workers are gone already
        from csp2sat.solver import interrupt_handled

        interrupt_handled()
        print(f"c stopped by {stop_reason(watchdog)}", file=sys.stderr)  # the cause, as plain solving says it
        answers.stopped()
        if args.verbose:
            _portfolio_stats(args, compiled, parse_s, compile_s, None)
        return Exit.OK
    if not result.proven and watchdog.expired():  # the racers' own deadline (--timeout) came first
        print(f"c stopped by {stop_reason(watchdog)}", file=sys.stderr)
    answers.finish(result)
    for error in result.errors:
        print(f"csp2sat: portfolio worker failed: {error}", file=sys.stderr)
    if args.verbose:
        _portfolio_stats(args, compiled, parse_s, compile_s, result.winner)
    return Exit.OK


def _portfolio_stats(args: argparse.Namespace, compiled, parse_s: float, compile_s: float, winner: str | None) -> None:
    """-v: the stages and sizes of the CNF the racers share, as plain solving prints them, then the race's line."""
    from csp2sat import output

    stats = dict(compiled.stats, parse_s=parse_s, cnf_vars=compiled.num_vars, cnf_clauses=compiled.num_clauses)
    for line in output.stats_lines(stats):
        print(line, file=sys.stderr)
    print(f"c portfolio of {args.jobs}: compile {compile_s:.3f} s, winner {winner or 'none (stopped)'}", file=sys.stderr)


class _SugarAnswers:
    """Prints each improved answer as it comes (``s SATISFIABLE`` once, ``o`` lines, the answer block),
    then the ending Sugar prints; shared by plain solving and the portfolio."""

    def __init__(self, args: argparse.Namespace, model, out) -> None:
        self.args, self.model, self.out = args, model, out
        self.printed_status = False
        self.best: int | None = None  # the objective's value in the last answer printed

    def __call__(self, values, objective_values) -> None:
        from csp2sat import output
        from csp2sat.commands import sugar_modes
        from csp2sat.solver import SATISFIABLE

        if not self.printed_status:
            self.out.write(output.status_line(SATISFIABLE) + "\n")
            self.printed_status = True
        if self.model.objective is not None:
            self.out.write(output.objective_line(objective_values) + "\n")
            self.best = values[self.model.objective.var]
        sugar_modes.write_answer(self.args, self.out, self.model, values)
        self.out.flush()

    def finish(self, result) -> None:
        """The last line: OPTIMUM FOUND, the status when no answer was printed, or that the optimum is unproven."""
        from csp2sat import output
        from csp2sat.solver import OPTIMUM

        if result.status == OPTIMUM:
            self.out.write(output.status_line(OPTIMUM) + "\n")
        elif not self.printed_status:
            self.out.write(output.status_line(result.status) + "\n")
        elif not result.proven:
            self.out.write(f"c stopped before the optimum was proven; best objective {result.objective}\n")
        self.out.flush()

    def stopped(self) -> None:
        """The last line when the time limit, Ctrl-C or SIGTERM stops the search: as `finish` says it."""
        if not self.printed_status:
            self.out.write("s UNKNOWN\n")
        elif self.best is not None:
            self.out.write(f"c stopped before the optimum was proven; best objective {self.best}\n")
        self.out.flush()


class _Tracked:
    """An output stream that remembers whether anything was written to it."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.used = False

    def write(self, text: str) -> int:
        self.used = self.used or bool(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def _run_mode(args: argparse.Namespace, model, options: dict[str, str], out: "_Tracked", progress,
              parse_s: float) -> int:
    """The beyond-Sugar modes (--all, --count, --unique, --facts); `run` reports an interruption from `progress`."""
    from csp2sat.commands import solve_modes
    from csp2sat.compiler import compile_model
    from csp2sat.solver import without_auto

    # listed or counted answers, or more than one of the first N: each costs time in proportion to the CNF's
    # variables, so wide variables are log-encoded as for --all (compile_model's `enumerating`)
    every = bool(getattr(args, "all", False) or getattr(args, "count", False)
                 or (getattr(args, "max_solutions", None) or 0) > 1)
    compiled = compile_model(model, options=options, enumerating=every)
    if args.verbose:  # the lines of plain solving up to the CNF; the mode adds its own line at the end
        from csp2sat import output

        stats = dict(compiled.stats, parse_s=parse_s, cnf_vars=compiled.num_vars, cnf_clauses=compiled.num_clauses)
        for line in output.stats_lines(stats):
            print(line, file=sys.stderr)
    return solve_modes.run(args, model, compiled, without_auto(args.solver), out, progress)
