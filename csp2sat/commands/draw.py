"""Command ``csp2sat draw``: put a solution log (ours or real Sugar's) back on the puzzle board."""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import read_text, write_output
from csp2sat.commands._puzzles import (
    add_format_arguments, add_genre_arguments, lookup, puzzle_error, read_puzzle, read_stdin,
)
from csp2sat.diagnostics import CspError, Exit
from csp2sat.generators.base import PuzzleError, read_log

NAME = "draw"
HELP = "draw the solution in a Sugar log on the puzzle board (text, answer format or SVG)"
DESCRIPTION = """\
Read a puzzle and a solution log in Sugar's output format (ours or real Sugar's: 's' and
'a NAME VALUE' lines, tabs or spaces), and draw the solution. Variables the genre does not
need are ignored, so logs of any of the genre's encodings work as long as the puzzle
variables are there (Hashiwokakero: bridge counts 0..2, or the seed's signed -2..2).

The answer is checked against the puzzle's rules first (clues, one loop, connectivity,
...; a check written from the rules, not the encoding). A log of another board or a
broken answer is not drawn: each broken rule is reported as 'LOG: error: WHERE: RULE' and
the exit status is 8. --force draws it anyway, marked NOT A SOLUTION (status still 8).

formats:
  drawing   a terminal picture (loops with + - |, bridges with === --- # |, regions with borders)
  answer    the plain-text solution format of data/README.md (NAME.solution.txt)
  svg       a standalone SVG picture

examples:
  csp2sat gen hashi board.txt -o b.csp && csp2sat solve b.csp > b.log
  csp2sat draw hashi board.txt b.log
  csp2sat solve b.csp | csp2sat draw hashi board.txt -            the log from stdin
  csp2sat draw slitherlink board.txt b.log --format svg -o b.svg

Exit status: 0 drawn, 3 bad puzzle text or a log line that cannot be read (or an
UNSATISFIABLE log), 7 a file cannot be read or written, 8 the log's answer is not a
solution of this puzzle (a rule broken, or a puzzle variable missing or out of range).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE LOG [--format F] [-o FILE] [--force]."""
    add_genre_arguments(parser)
    parser.add_argument("log", metavar="LOG", help="solution log in Sugar's format, - for stdin")
    add_format_arguments(parser)
    parser.add_argument("--force", action="store_true",
                        help="draw an answer that breaks the puzzle's rules anyway, marked NOT A SOLUTION")


def run(args: argparse.Namespace) -> int:
    """Read, decode, check against the rules and render."""
    genre = lookup(args.genre)
    puzzle = read_puzzle(genre, args.puzzle)
    log = read_stdin() if args.log == "-" else read_text(args.log)
    log_name = "<stdin>" if args.log == "-" else args.log
    try:
        values = read_log(log)
    except PuzzleError as err:
        raise puzzle_error(err, log_name) from None
    try:
        solution = genre.decode(puzzle, values)
    except PuzzleError as err:  # a value the puzzle cannot have: nothing to draw
        raise CspError(f"the log does not fit this puzzle: {err.message}", file=log_name, exit=Exit.VERIFY) from None
    broken = genre.check(puzzle, solution)
    for violation in broken:
        print(f"{log_name}: error: {violation}", file=sys.stderr)
    if broken:
        print(f"{log_name}: error: the answer breaks {len(broken)} rule(s) of {genre.name}: not a solution of "
              f"{args.puzzle}" + ("" if args.force else " (--force draws it anyway)"), file=sys.stderr)
        if not args.force:
            return Exit.VERIFY
    text = genre.render(puzzle, solution, args.format)
    if broken:
        text = mark_not_a_solution(text, args.format, len(broken))
    write_output(args.output, lambda out: out.write(text))
    return Exit.VERIFY if broken else Exit.OK


def mark_not_a_solution(text: str, fmt: str, count: int) -> str:
    """The drawing `text` with a visible NOT A SOLUTION mark (a first line; in SVG a red caption)."""
    mark = f"NOT A SOLUTION: {count} rule(s) broken"
    if fmt != "svg":
        return f"# {mark}\n{text}"
    head, _, rest = text.partition("\n")
    caption = (f'<text x="4" y="14" font-family="sans-serif" font-size="12" fill="red">{mark}</text>')
    body, _, tail = rest.rpartition("</svg>")
    return f"{head}\n<!-- {mark} -->\n{body}{caption}\n</svg>{tail}"
