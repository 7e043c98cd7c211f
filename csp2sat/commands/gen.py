"""Command ``csp2sat gen``: write the Sugar CSP file of a puzzle (the generator stage of a genre)."""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import write_output
from csp2sat.commands._puzzles import PUZZLE_FORMATS, add_genre_arguments, lookup, read_puzzle
from csp2sat.generators.base import NoSolution

NAME = "gen"
READS = ("puzzle",)  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "write the Sugar CSP file of a puzzle (Slitherlink, Hashiwokakero, Shikaku, ...)"
DESCRIPTION = """\
Read a puzzle in plain text (formats below; whitespace-separated cells are accepted
too) and write a readable Sugar CSP file that encodes its rules: the puzzle
in a header comment, variables named after coordinates, one commented block per rule.
Real Sugar accepts the file too.

examples:
  csp2sat gen hashi board.txt                              print the CSP
  csp2sat gen slitherlink board.txt -o board.csp           write it to a file
  csp2sat gen slitherlink board.txt | csp2sat solve -      solve it at once
  csp2sat gen masyu board.txt -o m.csp && sugar m.csp > m.log && csp2sat draw masyu board.txt m.log

A bad puzzle is reported as PUZZLE:LINE:COL: error: ... with exit status 3. A board whose
clues admit no solution where they stand (a Hashiwokakero island that sees too few others, a
clue no piece can reach, a Sudoku given twice in a row) gets PUZZLE:LINE:COL: the puzzle has
no solution: ... and exit status 1, and no CSP file.

""" + PUZZLE_FORMATS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE [-o OUT.csp]."""
    add_genre_arguments(parser)
    parser.add_argument("-o", "--output", default="-", metavar="OUT.csp", help="write to OUT.csp instead of stdout")


def run(args: argparse.Namespace) -> int:
    """Generate and write the CSP text."""
    genre = lookup(args.genre)
    puzzle = read_puzzle(genre, args.puzzle, unsolvable_ok=True)
    if isinstance(puzzle, NoSolution):  # no CSP is written for a board the reader already knows unsolvable
        print(f"{puzzle.message} (no CSP file written)", file=sys.stderr)
        return 1
    text = genre.generate(puzzle)
    write_output(args.output, lambda out: out.write(text))
    return 0
