"""Command-line helpers of the puzzle commands (gen, draw, puzzle): genre lookup and puzzle reading.

Puzzle text errors become ``PUZZLE.txt:LINE:COL: error: ...`` with
`Exit.SYNTAX`; an unknown genre is a usage error; unreadable files `Exit.IO`.
"""

from __future__ import annotations

import argparse
from typing import Any

from csp2sat.commands._common import read_text
from csp2sat.diagnostics import CspError, Exit
from csp2sat.generators.base import FORMATS, GENRE_MODULES, Genre, PuzzleError, genre
from csp2sat.generators.puzzlink import looks_like_url, url_to_text


# Listed from the module names, so that building the parser imports no genre module.
GENRE_NAMES = tuple(module.rsplit(".", 1)[1] for module in GENRE_MODULES)


def lookup(name: str) -> Genre:
    """The genre called `name` (or an alias); a usage error listing the known genres otherwise."""
    try:
        return genre(name)
    except KeyError as err:
        raise CspError(str(err.args[0]), exit=Exit.USAGE, file="csp2sat") from None


def puzzle_error(err: PuzzleError, path: str) -> CspError:
    """A `PuzzleError` as a positioned `CspError` of the file `path`."""
    return CspError(err.message, err.line, err.col, file=path, exit=Exit.SYNTAX)


def read_puzzle(g: Genre, path: str) -> Any:
    """The puzzle in the file `path` (``-`` is stdin) or the puzz.link URL `path`, read by genre `g`."""
    text = puzzle_text(g, path)
    try:
        return g.read(text)
    except PuzzleError as err:
        raise puzzle_error(err, "<url>" if looks_like_url(path) else display_name(path)) from None


def puzzle_text(g: Genre, path: str) -> str:
    """The board text of PUZZLE: a file, ``-`` for stdin, or a puzz.link URL decoded to the genre's text."""
    if looks_like_url(path):
        try:
            return url_to_text(path, g.name)
        except PuzzleError as err:
            raise CspError(str(err), file="<url>", exit=Exit.SYNTAX) from None
    return read_stdin() if path == "-" else read_text(path)


def display_name(path: str) -> str:
    """How messages name a file argument: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == "-" else path


def read_stdin() -> str:
    """All of standard input."""
    import sys

    return sys.stdin.read()


def add_genre_arguments(parser: argparse.ArgumentParser) -> None:
    """The GENRE and PUZZLE positional arguments every puzzle command takes."""
    parser.add_argument("genre", metavar="GENRE", help="puzzle genre: " + ", ".join(GENRE_NAMES))
    parser.add_argument("puzzle", metavar="PUZZLE",
                        help="puzzle text file, - for stdin, or a puzz.link URL (https://puzz.link/p?slither/...)")


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """The --format and -o options of the commands that draw a solution."""
    parser.add_argument("--format", "-f", choices=FORMATS, default="drawing",
                        help="drawing (terminal picture, default), answer (data/README.md solution text) or svg")
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="write to FILE instead of stdout")
