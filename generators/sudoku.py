"""Sudoku (数独) genre: puzzle text -> Sugar CSP, and a solution log -> the filled grid.

Rules: fill an N x N grid with 1..N so that every row, every column and every
block holds each number once; the given numbers stay. Blocks are the usual
ones: 2x2 for N = 4, 2x3 for 6, 3x3 for 9, 4x4 for 16 (in general the block
has as many rows as the largest divisor of N not above its square root).

Encoding: ``x_R_C`` (1..N) is the number in cell (R, C), a given cell's domain
is its number; each row, column and block is one ``alldifferent``. The numbers
are the printed answer; there are no helpers.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    check_format,
    need_in,
    number_cell,
    number_rows,
    read_grid,
    region_drawing,
)


@dataclass(frozen=True)
class Sudoku:
    """A Sudoku: its size N, block shape (rows x cols) and the given numbers."""

    size: int
    block_rows: int
    block_cols: int
    givens: dict[Pos, int]

    @property
    def rows(self) -> int:
        """Rows of the grid (N)."""
        return self.size

    @property
    def cols(self) -> int:
        """Columns of the grid (N)."""
        return self.size

    def block(self, cell: Pos) -> int:
        """The block number (row-major, 0-based) of a cell."""
        per_row = self.size // self.block_cols
        return (cell[0] // self.block_rows) * per_row + cell[1] // self.block_cols

    def houses(self) -> list[tuple[str, list[Pos]]]:
        """Every row, column and block with its cells, named as a violation names it."""
        n = self.size
        cells = [(r, c) for r in range(n) for c in range(n)]
        out = [(f"row {r}", [(r, c) for c in range(n)]) for r in range(n)]
        out += [(f"column {c}", [(r, c) for r in range(n)]) for c in range(n)]
        out += [(f"block {b}", [cell for cell in cells if self.block(cell) == b]) for b in range(n)]
        return out

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return [" ".join(str(self.givens.get((r, c), "-")) for c in range(self.size)) for r in range(self.size)]


def block_shape(n: int) -> tuple[int, int]:
    """Rows and columns of a block of an N x N Sudoku (the most square split, fewer rows)."""
    rows = max(d for d in range(1, n + 1) if n % d == 0 and d * d <= n)
    return rows, n // rows


def read(text: str) -> Sudoku:
    """Read a Sudoku: N rows of N tokens (``-``/``.``/``0`` empty, ``1``..``N`` given), or N characters.

    Raises `PuzzleError` at the place for a grid that is not square, a number
    outside 1..N, a block shape that is a single row (a prime N) and a number
    given twice in one row, column or block.
    """
    grid = read_grid(text)
    n = len(grid)
    if len(grid[0]) != n:
        raise PuzzleError(f"a Sudoku is square; this grid is {n}x{len(grid[0])}", grid[0][0].line, grid[0][0].col)
    block_rows, block_cols = block_shape(n)
    if block_rows == 1 and n > 1:
        raise PuzzleError(f"a {n}x{n} Sudoku has no blocks ({n} is prime)", grid[0][0].line, grid[0][0].col)
    givens: dict[Pos, int] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 1, n)
            if value is None:
                raise PuzzleError("a Sudoku has no unknown ('?') givens", token.line, token.col)
            if value is not False:
                givens[r, c] = value
    puzzle = Sudoku(n, block_rows, block_cols, givens)
    for where, cells in puzzle.houses():
        seen: dict[int, Pos] = {}
        for cell in cells:
            value = givens.get(cell)
            if value is None:
                continue
            if value in seen:
                token = grid[cell[0]][cell[1]]
                raise NoSolution(f"{value} is given twice in {where}", token.line, token.col)
            seen[value] = cell
    return puzzle


def _x(cell: Pos) -> str:
    return f"x_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Sudoku) -> list[str]:
    """The printed variables: the number ``x_R_C`` of every cell."""
    return [_x((r, c)) for r in range(puzzle.size) for c in range(puzzle.size)]


def generate(puzzle: Sudoku) -> str:
    """The Sugar CSP text of `puzzle`."""
    n = puzzle.size
    out = CspText(
        f"Sudoku puzzle, {n}x{n}, blocks of {puzzle.block_rows}x{puzzle.block_cols}",
        puzzle.text_lines(),
        ["x_R_C: the number in cell (R, C)"],
    )
    out.block("Numbers: a given cell holds its number, every other cell 1..N")
    for r in range(n):
        for c in range(n):
            value = puzzle.givens.get((r, c))
            out.add(f"(int {_x((r, c))} {value} {value})" if value else f"(int {_x((r, c))} 1 {n})")
    for kind in ("row", "column", "block"):
        out.block(f"Rule: every {kind} holds each number once")
        for where, cells in puzzle.houses():
            if where.startswith(kind):
                out.add(f"(alldifferent {' '.join(_x(cell) for cell in cells)})")
    return out.text()


def decode(puzzle: Sudoku, values: Values) -> list[list[int]]:
    """The filled grid; `PuzzleError` for a missing value or one outside 1..N."""
    n = puzzle.size
    return [[need_in(values, _x((r, c)), 1, n, "a number of the grid") for c in range(n)] for r in range(n)]


def check(puzzle: Sudoku, grid: list[list[int]]) -> list[Violation]:
    """The rules the grid breaks: givens kept, each number once per row, column and block."""
    found = [Violation(f"the given {value} stays", cell_name(*cell))
             for cell, value in puzzle.givens.items() if grid[cell[0]][cell[1]] != value]
    for where, cells in puzzle.houses():
        numbers = [grid[r][c] for r, c in cells]
        missing = sorted(set(range(1, puzzle.size + 1)) - set(numbers))
        if missing:
            found.append(Violation(f"each number once, and {missing[0]} is missing", where))
    return found


def render(puzzle: Sudoku, grid: list[list[int]], fmt: str) -> str:
    """The grid as ``drawing`` (blocks framed, givens in brackets), ``answer`` (numbers) or ``svg``."""
    check_format(fmt)
    if fmt == "answer":
        return number_rows(grid)
    labels = [[puzzle.block((r, c)) for c in range(puzzle.size)] for r in range(puzzle.size)]
    if fmt == "drawing":
        digits = len(str(puzzle.size))  # every cell as wide as "[16]" on a 16x16 board, numbers right-aligned

        def inside(r: int, c: int) -> str:
            mark = f"{grid[r][c]:>{digits}}"
            return f"[{mark}]" if (r, c) in puzzle.givens else f" {mark} "

        return region_drawing(labels, inside)
    svg = Svg(puzzle.size, puzzle.size)
    svg.regions(labels, {})
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            svg.text(r, c, str(value), bold=(r, c) in puzzle.givens)
    return svg.document()


GENRE = register(
    Genre(
        name="sudoku",
        aliases=("number-place",),
        summary="fill the grid so that every row, column and block holds each number once",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
