"""Command ``csp2sat puzzle``: generate, solve and draw a puzzle in one go (optionally check uniqueness)."""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import write_output
from csp2sat.commands._puzzles import add_format_arguments, add_genre_arguments, display_name, lookup, read_puzzle
from csp2sat.generators.run import DEFAULT_SOLVER, solve_puzzle

NAME = "puzzle"
HELP = "solve a puzzle: generate its CSP, solve it and draw the solution"
DESCRIPTION = """\
The whole pipeline for a puzzle file: write its Sugar CSP (as 'csp2sat gen' does), solve
it by SAT, and draw the solution (as 'csp2sat draw' does). With --unique, solve again
with the answer excluded and say whether the solution is unique (on stderr, as a 'c' line).
With --facts, list the puzzle variables (named after their cells) whose value the clues
do NOT force, i.e. that differ between solutions (on stderr, as 'c' lines).

examples:
  csp2sat puzzle hashi data/hashi/sugar_hashiwokakero-0_7x7.txt
  csp2sat puzzle slitherlink board.txt --format answer
  csp2sat puzzle masyu board.txt --unique
  csp2sat puzzle nurikabe data/nurikabe/cspuz_6x6_multi.txt --facts
  csp2sat puzzle slitherlink board.txt --format svg -o board.svg

Exit status: 0 when solved, 1 when the puzzle has no solution, 3 for bad puzzle text,
7 when a file cannot be read or written.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE [--format F] [-o FILE] [--unique] [--solver NAME]."""
    add_genre_arguments(parser)
    add_format_arguments(parser)
    parser.add_argument("--unique", action="store_true", help="also check that the solution is unique")
    parser.add_argument(
        "--facts", action="store_true", help="also say which cells the clues force (the same in every solution)"
    )
    parser.add_argument("--solver", default=DEFAULT_SOLVER, help=f"PySAT solver name (default {DEFAULT_SOLVER})")


def run(args: argparse.Namespace) -> int:
    """Solve and draw; report uniqueness when asked."""
    genre = lookup(args.genre)
    puzzle = read_puzzle(genre, args.puzzle)
    name = display_name(args.puzzle)
    result = solve_puzzle(genre, puzzle, unique=args.unique, solver=args.solver, file=name, facts=args.facts)
    if result.solution is None:
        print("s UNSATISFIABLE", file=sys.stderr)
        print(f"c {name}: the puzzle has no solution", file=sys.stderr)
        return 1
    text = genre.render(puzzle, result.solution, args.format)
    write_output(args.output, lambda out: out.write(text))
    if args.unique:
        verdict = "unique" if result.unique else "NOT unique (at least two solutions)"
        print(f"c {name}: the solution is {verdict}", file=sys.stderr)
    if result.facts is not None:
        open_cells = [name for name, value in result.facts.items() if value is None]
        print(
            f"c {name}: the clues force {len(result.facts) - len(open_cells)} of "
            f"{len(result.facts)} puzzle variables",
            file=sys.stderr,
        )
        for name in open_cells:
            print(f"c NOT FORCED {name}", file=sys.stderr)
    return 0
