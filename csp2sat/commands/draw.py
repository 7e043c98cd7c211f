"""Command ``csp2sat draw``: put a solution log (ours or real Sugar's) back on the puzzle board."""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import display_name, read_text, write_output
from csp2sat.commands._puzzles import (
    ANSWER_FORMAT, PUZZLE_FORMATS, add_format_arguments, add_genre_arguments, lookup, puzzle_error, read_puzzle,
)
from csp2sat.diagnostics import CspError, Exit
from csp2sat.generators.base import PuzzleError, read_answers

NAME = "draw"
READS = ("puzzle", "log")  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "draw the solution in a Sugar log on the puzzle board (text, answer format or SVG)"
DESCRIPTION = """\
Read a puzzle and a solution log in Sugar's output format (ours or real Sugar's: 's' and
'a NAME VALUE' lines, tabs or spaces), and draw the solution. Variables the genre does not
need are ignored, so logs of any of the genre's encodings work as long as the puzzle
variables are there (Hashiwokakero: bridge counts 0..2, or the seed's signed -2..2).

The answer is checked against the puzzle's rules first (clues, one loop, connectivity,
...; a check written from the rules, not the encoding). A log of another board or a
broken answer is not drawn: each broken rule is reported as 'LOG: error: WHERE: RULE' and
the exit status is 8. --force draws it anyway, marked NOT A SOLUTION (status still 8),
but not a value the drawing has no place for (an edge of 5): that log does not fit the board.

A log with several answers (solve --all, or --unique finding two) is drawn answer by
answer, each under a '# answer K of N' line; --answer K draws only the K-th (SVG needs
one answer). Of an optimisation log ('o' lines) the last, best answer is drawn.

formats:
  drawing   a terminal picture (loops with + - |, bridges with === --- # |, regions with borders)
  answer    the plain-text solution (see below)
  svg       a standalone SVG picture

examples:
  csp2sat gen hashi board.txt -o b.csp && csp2sat solve b.csp > b.log
  csp2sat draw hashi board.txt b.log
  csp2sat solve b.csp | csp2sat draw hashi board.txt -            the log from stdin
  csp2sat draw slitherlink board.txt b.log --format svg -o b.svg

Exit status: 0 drawn, 3 bad puzzle text or a log line that cannot be read (or an
UNSATISFIABLE log), 7 a file cannot be read or written, 8 the log's answer is not a
solution of this puzzle (a rule broken, or a puzzle variable missing or out of range).

""" + PUZZLE_FORMATS + "\n" + ANSWER_FORMAT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE LOG [--format F] [-o FILE] [--answer K] [--force]."""
    add_genre_arguments(parser)
    parser.add_argument("log", metavar="LOG", help="solution log in Sugar's format, - for stdin")
    add_format_arguments(parser)
    parser.add_argument("--answer", type=int, metavar="K",
                        help="draw only the K-th answer of a log with several (1 = the first)")
    parser.add_argument("--force", action="store_true",
                        help="draw an answer that breaks the puzzle's rules anyway, marked NOT A SOLUTION "
                             "(values out of the variables' ranges cannot be drawn)")


def run(args: argparse.Namespace) -> int:
    """Read, decode, check against the rules and render."""
    genre = lookup(args.genre)
    puzzle = read_puzzle(genre, args.puzzle)
    log = read_text(args.log)
    log_name = display_name(args.log)
    try:
        answers, optimising = read_answers(log)
    except PuzzleError as err:
        raise puzzle_error(err, log_name) from None
    if optimising:
        answers = answers[-1:]
    picked = range(1, len(answers) + 1)
    if args.answer is not None:
        if not 1 <= args.answer <= len(answers):
            raise CspError(f"--answer {args.answer}: the log holds {len(answers)} answer(s)", file="csp2sat",
                           exit=Exit.USAGE)
        picked = range(args.answer, args.answer + 1)
    if len(picked) > 1 and args.format == "svg":
        raise CspError(f"the log holds {len(picked)} answers and an SVG picture shows one: choose it with --answer K",
                       file="csp2sat", exit=Exit.USAGE)
    texts, any_broken = [], False
    for k in picked:
        where = log_name if len(answers) == 1 else f"{log_name}: answer {k}"
        try:
            solution = genre.decode(puzzle, answers[k - 1])
        except PuzzleError as err:  # a value the puzzle cannot have: nothing to draw
            raise CspError(f"the log does not fit this puzzle: {err.message}", file=where, exit=Exit.VERIFY) from None
        broken = genre.check(puzzle, solution)
        for violation in broken:
            print(f"{where}: error: {violation}", file=sys.stderr)
        if broken:
            any_broken = True
            print(f"{where}: error: the answer breaks {len(broken)} rule(s) of {genre.name}: not a solution of "
                  f"{display_name(args.puzzle)}" + ("" if args.force else " (--force draws it anyway)"), file=sys.stderr)
        text = genre.render(puzzle, solution, args.format)
        if broken:
            text = mark_not_a_solution(text, args.format, len(broken))
        texts.append(text if len(picked) == 1 else f"# answer {k} of {len(answers)}\n{text}")
    if any_broken and not args.force:
        return Exit.VERIFY
    write_output(args.output, lambda out: out.write("".join(texts)))
    return Exit.VERIFY if any_broken else Exit.OK


def mark_not_a_solution(text: str, fmt: str, count: int) -> str:
    """The drawing `text` with a visible NOT A SOLUTION mark (a first line; in SVG a red caption)."""
    mark = f"NOT A SOLUTION: {count} rule(s) broken"
    if fmt != "svg":
        return f"# {mark}\n{text}"
    head, _, rest = text.partition("\n")
    caption = (f'<text x="4" y="14" font-family="sans-serif" font-size="12" fill="red">{mark}</text>')
    body, _, tail = rest.rpartition("</svg>")
    return f"{head}\n<!-- {mark} -->\n{body}{caption}\n</svg>{tail}"
