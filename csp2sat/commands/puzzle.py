"""Command ``csp2sat puzzle``: generate, solve and draw a puzzle in one go (optionally check uniqueness)."""

from __future__ import annotations

import argparse
import sys
import time

from csp2sat.commands._common import (
    add_solver_argument, add_timeout_argument, display_name, positive_int, stop_reason, write_output,
)
from csp2sat.commands._puzzles import (
    ANSWER_FORMAT, PUZZLE_FORMATS, add_format_arguments, add_genre_arguments, lookup, read_puzzle,
)
from csp2sat.generators.base import NoSolution

NAME = "puzzle"
READS = ("puzzle",)  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "solve a puzzle: generate its CSP, solve it and draw the solution"
DESCRIPTION = """\
The whole pipeline for a puzzle file: write its Sugar CSP (as 'csp2sat gen' does), solve
it by SAT, and draw the solution (as 'csp2sat draw' does). With --unique, solve again
with the answer excluded and say whether the solution is unique (on stderr, as a 'c' line).
With --facts, list the puzzle variables (named after their cells) whose value the clues
do NOT force, i.e. that differ between solutions (on stderr, as 'c' lines). With --count,
count the solutions; on a symmetric board a genre that knows its symmetries (pentomino
boxes) searches one solution per class of solutions that turns and reflections of the board
turn into one another, and adds up the classes' sizes ('c' line: N solutions, K classes).

examples:
  csp2sat puzzle hashi board.txt
  csp2sat puzzle slitherlink board.txt --format answer
  csp2sat puzzle masyu board.txt --unique
  csp2sat puzzle nurikabe board.txt --facts
  csp2sat puzzle pentomino box_5x12.txt --count -j 2
  csp2sat puzzle slitherlink board.txt --format svg -o board.svg

Exit status: 0 when solved, 1 when no solution is drawn: the puzzle has none (s UNSATISFIABLE)
or --timeout, Ctrl-C or SIGTERM stopped the run first (s UNKNOWN); 2 usage, 3 for bad puzzle
text, 7 when a file cannot be read or written. Stopped during --unique, --facts or --count, the
solution is still drawn (status 0) and a 'c' line says that the question stays open (with the
solutions counted so far).

""" + PUZZLE_FORMATS + "\n" + ANSWER_FORMAT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE [--format F] [-o FILE] [--unique] [--facts] [--count [-j N]] [--solver NAME]."""
    add_genre_arguments(parser)
    add_format_arguments(parser)
    parser.add_argument("--unique", action="store_true", help="also check that the solution is unique")
    parser.add_argument(
        "--facts", action="store_true", help="also say which cells the clues force (the same in every solution)"
    )
    parser.add_argument(
        "--count", action="store_true",
        help="also count the solutions (by classes of symmetric solutions where the genre knows the board's symmetries)",
    )
    parser.add_argument(
        "-j", "--jobs", type=positive_int, default=1, metavar="N",
        help="with --count: N worker processes share the search (disjoint parts of the solutions)",
    )
    add_solver_argument(parser, auto="puzzle")
    add_timeout_argument(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="print stage times and CNF size on stderr")


def run(args: argparse.Namespace) -> int:
    """Solve and draw; report uniqueness when asked. Stopped before a solution: s UNKNOWN, status 1."""
    from csp2sat.solver import Watchdog, interrupt_handled, is_interrupt, keep_until_exit

    genre = lookup(args.genre)
    with Watchdog(args.timeout, last_word=True) as watchdog:
        try:
            watchdog.check()
            return _run(args, genre, watchdog)
        except (KeyboardInterrupt, Exception) as err:
            if not is_interrupt(err):
                raise
            interrupt_handled()
            # the stopped frames hold what they were building (a half-made CNF: 2.7 s to free on a
            # 200x200 board): freed after the answer is out, or in the command's process never
            stopped = err  # noqa: F841
            keep_until_exit(err)
        print("s UNKNOWN", file=sys.stderr)
        print(f"c {display_name(args.puzzle)}: stopped by {stop_reason(watchdog)} before a solution was found", file=sys.stderr)
    return 1


def _run(args: argparse.Namespace, genre, watchdog) -> int:
    from csp2sat.generators.run import solve_puzzle

    puzzle = read_puzzle(genre, args.puzzle, unsolvable_ok=True)
    name = display_name(args.puzzle)
    if isinstance(puzzle, NoSolution):  # the reader saw it: a clue nothing can satisfy where it stands
        print("s UNSATISFIABLE", file=sys.stderr)
        print(f"c {puzzle.message}", file=sys.stderr)
        return 1
    progress = _CountProgress() if args.count and sys.stderr.isatty() else None
    try:
        result = solve_puzzle(genre, puzzle, unique=args.unique, solver=args.solver, file=name, facts=args.facts,
                              count=args.count, jobs=args.jobs, progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    if result.solution is None:
        if args.verbose:  # where the time of an unsolvable board went is as useful as a solved one's
            _report_stages(result)
        print("s UNSATISFIABLE", file=sys.stderr)
        print(f"c {name}: the puzzle has no solution", file=sys.stderr)
        return 1
    drawn = time.perf_counter()
    text = genre.render(puzzle, result.solution, args.format)
    write_output(args.output, lambda out: out.write(text))
    if args.verbose:
        result.times["draw"] = time.perf_counter() - drawn
        _report_stages(result)
    if result.interrupted:
        if args.unique and result.unique is None:
            asked = "uniqueness is unknown"
        elif args.facts and result.facts is None:
            asked = "which cells are forced is unknown"
        else:
            asked = f"the count is unknown (at least {_counted(result.count, 'solution')})"
        print(f"c {name}: stopped by {stop_reason(watchdog)}; {asked}", file=sys.stderr)
    if args.unique and result.unique is not None:
        verdict = "unique" if result.unique else "NOT unique (at least two solutions)"
        print(f"c {name}: the solution is {verdict}", file=sys.stderr)
    if result.facts is not None:
        open_cells = [var for var, value in result.facts.items() if value is None]
        print(
            f"c {name}: the clues force {len(result.facts) - len(open_cells)} of "
            f"{len(result.facts)} puzzle variables",
            file=sys.stderr,
        )
        for var in open_cells:
            print(f"c NOT FORCED {var}", file=sys.stderr)
    if result.count is not None and not result.interrupted:
        # a board without symmetries has a class per solution: nothing to add then
        classes = ("" if result.classes in (None, result.count) else
                   f" in {_counted(result.classes, 'class')} up to the board's symmetries")
        print(f"c {name}: {_counted(result.count, 'solution')}{classes}", file=sys.stderr)
    return 0


def _counted(number: int, noun: str) -> str:
    """``1 solution``, ``4,040 solutions``, ``1 class``, ``2 classes``."""
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{number:,} {noun if number == 1 else plural}"


class _CountProgress:
    """On a terminal, the solutions counted so far on one stderr line, redrawn at most once a second."""

    def __init__(self) -> None:
        self.shown_at = time.monotonic()
        self.shown = False

    def __call__(self, run) -> None:
        if time.monotonic() - self.shown_at >= 1.0:
            classes = "" if run.classes is None else f" in {_counted(run.classes, 'class')}"
            sys.stderr.write(f"\rc {_counted(run.count, 'solution')}{classes} so far ...")
            sys.stderr.flush()
            self.shown_at = time.monotonic()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")


# The stages `csp2sat puzzle -v` reports, with what each one covers.
_STAGES = (
    ("generate", "puzzle -> Sugar CSP text"),
    ("parse", "parse and check the text"),
    ("encode", "normalise and encode to CNF"),
    ("search", "load the CNF, SAT search"),
    ("verify", "independent check of the answer, the genre's rules"),
    ("unique", "a second solution, searched by SAT"),
    ("facts", "forced values"),
    ("count", "all solutions counted"),
    ("draw", "the drawing"),
)


def _report_stages(result) -> None:
    """Stage times and CNF size on stderr, as `solve -v` reports them."""
    times = dict(result.times)
    times["encode"] = times["compile"] - times["parse"]
    times["search"] = times["solve"]
    for stage, what in _STAGES:
        if stage == "unique" and result.unique_by_symmetry:
            what = "a second solution: the first one's image under a symmetry of the board, no search"
        if stage == "search" and "solver" in result.stats:
            what = f"{what}: {result.stats['solver']}"
        if stage in times:
            print(f"c {stage:<9s} {times[stage]:7.3f} s   ({what})", file=sys.stderr)
    print(f"c size      {result.stats['cnf_vars']:,} CNF vars, {result.stats['cnf_clauses']:,} CNF clauses, "
          f"{len(result.csp):,} characters of CSP text", file=sys.stderr)
