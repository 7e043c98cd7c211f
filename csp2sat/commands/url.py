"""Command ``csp2sat url``: print a puzzle board as its canonical puzz.link URL (the URL writer of the puzzle front end)."""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import write_output
from csp2sat.commands._puzzles import add_genre_arguments, lookup, placed, puzzle_error, puzzle_text
from csp2sat.diagnostics import CspError, Exit, display_name
from csp2sat.generators.base import NoSolution, PuzzleError
from csp2sat.generators.puzzlink import FORMATS, NoUrlForm, looks_like_url, to_url

NAME = "url"
READS = ("puzzle",)  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "print a puzzle board as a puzz.link URL (the form puzz.link, pzv.jp and pzprjs read)"
DESCRIPTION = f"""\
Read a puzzle board (a text file, - for stdin, or another puzz.link/pzv.jp URL) and print
its canonical URL, https://puzz.link/p?TYPE/COLS/ROWS/BODY, encoded as pzprjs encodes it.
Every command that reads a puzzle (gen, puzzle, draw) also takes such a URL in place of
the file.

genres with URLs: {", ".join(f"{name} ({fmt.pids[0]})" for name, fmt in FORMATS.items())}

examples:
  csp2sat url slitherlink board.txt
  csp2sat url hashi 'http://pzv.jp/p.html?bridges/5/5/4g2i3h23k3g1g3g4g3'    normalise a URL
  csp2sat puzzle slitherlink 'https://puzz.link/p?slither/4/4/dgdh2c7b'       solve a URL

A board whose clues admit no solution still gets its URL, with a warning. Exit status: 0
written, 2 usage (also a genre without a URL form), 3 bad puzzle text or URL, 5 a board the
genre's URL cannot hold (e.g. a Numberlink rule line), 7 a file cannot be read or written.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """GENRE PUZZLE [-o FILE]."""
    add_genre_arguments(parser)
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="write to FILE instead of stdout")


def run(args: argparse.Namespace) -> int:
    """Read the board (checked by the genre's own reader) and print its URL."""
    genre = lookup(args.genre)
    text = puzzle_text(genre, args.puzzle)
    from_url = looks_like_url(args.puzzle)
    where = "<url>" if from_url else display_name(args.puzzle)  # '-': <stdin>, as gen and puzzle say
    try:
        try:
            genre.read(text)  # the board must be a valid puzzle of the genre, not just a grid
        except NoSolution as err:  # well-formed all the same: its URL is written, with a warning
            place, message = placed(err, where, decoded=text if from_url else None)
            print(f"{place}: warning: the puzzle has no solution: {message}", file=sys.stderr)
        url = to_url(text, genre.name)
    except PuzzleError as err:
        # A genre without a URL form is a usage error; a board whose content its URL cannot hold (a place in
        # the file) is unsupported; neither is a malformed board (gen and puzzle take both).
        exit = (Exit.UNSUPPORTED if err.line else Exit.USAGE) if isinstance(err, NoUrlForm) else Exit.SYNTAX
        if err.line:
            error = puzzle_error(err, where, decoded=text if from_url else None)
            error.exit = exit
            raise error from None
        raise CspError(str(err), file=where, exit=exit) from None
    write_output(args.output, lambda out: out.write(url + "\n"))
    return 0
