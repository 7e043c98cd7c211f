"""Command ``csp2sat draw``: put a solution log (ours or real Sugar's) back on the puzzle board."""

from __future__ import annotations

import argparse

from csp2sat.commands._common import display_name, read_text, write_output
from csp2sat.commands._puzzles import (
    ANSWER_FORMAT, PUZZLE_FORMATS, add_format_arguments, add_genre_arguments, lookup, puzzle_error, read_puzzle,
)
from csp2sat.generators.base import PuzzleError, read_log

NAME = "draw"
HELP = "draw the solution in a Sugar log on the puzzle board (text, answer format or SVG)"
DESCRIPTION = """\
Read a puzzle and a solution log in Sugar's output format (ours or real Sugar's: 's' and
'a NAME VALUE' lines, tabs or spaces), and draw the solution. Variables the genre does not
need are ignored, so logs of any of the genre's encodings work as long as the puzzle
variables are there.

formats:
  drawing   a terminal picture (loops with + - |, bridges with === --- # |, regions with borders)
  answer    the plain-text solution (see below)
  svg       a standalone SVG picture

examples:
  csp2sat gen hashi board.txt -o b.csp && csp2sat solve b.csp > b.log
  csp2sat draw hashi board.txt b.log
  csp2sat solve b.csp | csp2sat draw hashi board.txt -            the log from stdin
  csp2sat draw slitherlink board.txt b.log --format svg -o b.svg

""" + PUZZLE_FORMATS + "\n" + ANSWER_FORMAT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE LOG [--format F] [-o FILE]."""
    add_genre_arguments(parser)
    parser.add_argument("log", metavar="LOG", help="solution log in Sugar's format, - for stdin")
    add_format_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Read, decode and render."""
    genre = lookup(args.genre)
    puzzle = read_puzzle(genre, args.puzzle)
    log = read_text(args.log)
    try:
        solution = genre.decode(puzzle, read_log(log))
    except PuzzleError as err:
        raise puzzle_error(err, display_name(args.log)) from None
    text = genre.render(puzzle, solution, args.format)
    write_output(args.output, lambda out: out.write(text))
    return 0
