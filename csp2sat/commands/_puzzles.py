"""Command-line helpers of the puzzle commands (gen, draw, puzzle): genre lookup and puzzle reading.

Puzzle text errors become ``PUZZLE.txt:LINE:COL: error: ...`` with
`Exit.SYNTAX`; an unknown genre is a usage error; unreadable files `Exit.IO`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from csp2sat.commands._common import display_name, read_text
from csp2sat.diagnostics import CspError, Exit
from csp2sat.generators.base import FORMATS, GENRE_MODULES, Genre, NoSolution, PuzzleError, genre
from csp2sat.generators.puzzlink import looks_like_url, url_to_text


# Listed from the module names, so that building the parser imports no genre module.
GENRE_NAMES = tuple(module.rsplit(".", 1)[1] for module in GENRE_MODULES)


def lookup(name: str) -> Genre:
    """The genre called `name` (or an alias); a usage error listing the known genres otherwise."""
    try:
        return genre(name)
    except KeyError as err:
        raise CspError(str(err.args[0]), exit=Exit.USAGE, file="csp2sat") from None


def puzzle_error(err: PuzzleError, path: str, decoded: str | None = None) -> CspError:
    """A `PuzzleError` as a positioned `CspError` of the file `path`. For a board `decoded` from a URL, whose
    text the user never saw, the message quotes the line of that text instead of giving a position in `path`."""
    if decoded is None or not err.line:
        return CspError(err.message, err.line, err.col, file=path, exit=Exit.SYNTAX)
    lines = decoded.splitlines()
    line = lines[err.line - 1].rstrip() if err.line <= len(lines) else ""
    where = f"line {err.line}" + (f", column {err.col}" if err.col else "")
    return CspError(f"{err.message} ({where} of the board the URL decodes to: {line!r})", file=path, exit=Exit.SYNTAX)


def placed(err: PuzzleError, path: str, decoded: str | None = None) -> tuple[str, str]:
    """(``PATH:LINE:COL``, the message) of `err`, as `puzzle_error` places it: a board `decoded` from a URL gets
    its line quoted in the message instead of a position."""
    error = puzzle_error(err, path, decoded)
    return ":".join(str(part) for part in (error.file, error.line, error.col) if part), error.message


def no_solution_line(err: NoSolution, path: str, decoded: str | None = None) -> str:
    """``PATH:LINE:COL: the puzzle has no solution: REASON``, placed as `placed` places it."""
    place, message = placed(err, path, decoded)
    return f"{place}: the puzzle has no solution: {message}"


def read_puzzle(g: Genre, path: str, unsolvable_ok: bool = False) -> Any:
    """The puzzle in the file `path` (``-`` is stdin) or the puzz.link URL `path`, read by genre `g`.

    A board the reader finds unsolvable (`NoSolution`) is a bad puzzle (exit status 3), or with
    `unsolvable_ok` comes back as a `NoSolution` whose message says so at its place in `path`, for the
    caller to answer as a board without solution.
    """
    text = puzzle_text(g, path)
    where = "<url>" if looks_like_url(path) else display_name(path)
    decoded = text if looks_like_url(path) else None
    try:
        return g.read(text)
    except PuzzleError as err:
        if unsolvable_ok and isinstance(err, NoSolution):
            return NoSolution(no_solution_line(err, where, decoded))
        raise puzzle_error(err, where, decoded) from None


def puzzle_text(g: Genre, path: str) -> str:
    """The board text of PUZZLE: a file, ``-`` for stdin, or a puzz.link URL decoded to the genre's text."""
    if looks_like_url(path):
        notes: list[str] = []
        try:
            text = url_to_text(path, g.name, notes)
        except PuzzleError as err:
            raise CspError(str(err), file="<url>", exit=Exit.SYNTAX) from None
        for note in notes:  # a body cut short or run on: read as pzprjs reads it, but the user should know
            print(f"<url>: warning: {note}", file=sys.stderr)
        return text
    return read_text(path)


# What `gen`, `draw` and `puzzle` read, in their --help (an installed copy has no data/README.md).
PUZZLE_FORMATS = """\
puzzle text (one puzzle per file, rows top to bottom; '?' is a clue of unknown value):
  slitherlink    one character per cell: 0-4 clue, . empty
  hashiwokakero  (or hashi) one character per cell: 1-8 island with its bridge count, . water
  masyu          one character per cell: W white circle, B black circle, . empty
  fillmat        one character per cell: 1-4 clue, . empty
  shikaku        space-separated tokens per row: a number is the area of its rectangle, - empty
  nurikabe       space-separated tokens per row: a number is the size of its island, - empty
  pentomino      the box: . a cell to cover, # a blocked cell (60 cells to cover)
  sudoku         N rows of N space-separated tokens: 1..N given, - empty (N = 4, 6, 9, 16, ...)
  akari          one character per cell: . white, # (or ?) black, 0-4 black with its number of lights
  hitori         space-separated numbers per row (- a cell without a number)
  starbattle     a line 'stars K' (1 when missing), then the grid of region names, space-separated
  norinori       the grid of region names, space-separated
  lits           the grid of region names, space-separated
  heyawake       the grid of room names, a blank line, then the room numbers at a cell of
                 each room (- none)
  numberlink     space-separated tokens per row: a number in exactly two cells, - empty;
                 optional lines 'every-cell' (Arukone), 'no-2x2', 'no-detour' (answers
                 counted up to detours through empty cells) before the grid
  kakuro         space-separated tokens with a frame of sums as first row and column:
                 . white, # black, DOWN\\ACROSS a black cell with its sums (- none)
  yajilin        space-separated tokens: . empty, N^ Nv N< N> a clue with its arrow
"""
ANSWER_FORMAT = """\
--format answer prints the solution as plain text: slitherlink a (2R+1)x(2C+1) drawing
(+ points, - and | loop edges); masyu a (2R-1)x(2C-1) drawing through the cell centres;
hashiwokakero one line 'r1 c1 r2 c2 k' per bridge (k = 1 or 2, rows and columns from 0);
fillmat one digit per cell (its block's size); shikaku one number per cell (its
rectangle, numbered in reading order of their top-left cells); nurikabe # wall, . island;
pentomino the piece letter per cell (# blocked); sudoku the filled grid; akari the board
with * on every light; hitori, norinori, heyawake, lits # shaded, . unshaded; starbattle
* a star; kakuro the board with every white cell's digit; numberlink and yajilin a
(2R-1)x(2C-1) drawing through the cell centres (- and | the line's segments).
"""


def add_genre_arguments(parser: argparse.ArgumentParser) -> None:
    """The GENRE and PUZZLE positional arguments every puzzle command takes."""
    parser.add_argument("genre", metavar="GENRE", help="puzzle genre: " + ", ".join(GENRE_NAMES))
    parser.add_argument("puzzle", metavar="PUZZLE",
                        help="puzzle text file (its format is described above), - for stdin, "
                             "or a puzz.link URL (https://puzz.link/p?slither/...)")


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """The --format and -o options of the commands that draw a solution."""
    parser.add_argument("--format", "-f", choices=FORMATS, default="drawing",
                        help="drawing (terminal picture, default), answer (plain solution text, described above) or svg")
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="write to FILE instead of stdout")
