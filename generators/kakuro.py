"""Kakuro (カックロ) genre: puzzle text -> Sugar CSP, and a solution log -> the filled grid.

Rules: write 1..9 in every white cell so that each run of white cells (between
black cells, across or down) holds different digits, and a run whose black cell
before it carries a sum (``DOWN\\ACROSS``) adds up to that sum.

Encoding: ``x_R_C`` (1..9) is the digit of white cell (R, C), the printed
answer; every run is one ``alldifferent`` and, with a sum, one ``=`` of a sum.
No helpers.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, is_number, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    check_format,
    need_in,
    read_grid,
    runs,
    total,
)

WHITE, BLACK = ".", "#"
MAX_SUM = 45


@dataclass(frozen=True)
class Kakuro:
    """A Kakuro board: size and its black cells (cell -> (down sum, across sum), 0 meaning none)."""

    rows: int
    cols: int
    black: dict[Pos, tuple[int, int]]

    def white(self, r: int, c: int) -> bool:
        """True for a cell that takes a digit."""
        return (r, c) not in self.black

    def runs_with_sums(self) -> list[tuple[list[Pos], int]]:
        """Every run of white cells with its sum (0: none), across runs first."""
        out = []
        for axis, (dr, dc), index in (("across", (0, -1), 1), ("down", (-1, 0), 0)):
            for run in runs(self.white, self.rows, self.cols, axis):
                head = (run[0][0] + dr, run[0][1] + dc)
                out.append((run, self.black.get(head, (0, 0))[index]))
        return out

    def mark(self, cell: Pos) -> str:
        """A cell as the data/ format writes it."""
        if cell not in self.black:
            return WHITE
        down, across = self.black[cell]
        return BLACK if down == across == 0 else f"{down or '-'}\\{across or '-'}"

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return [" ".join(self.mark((r, c)) for c in range(self.cols)) for r in range(self.rows)]


def _sum(text: str, token: object) -> int:
    if text == "-":
        return 0
    if not is_number(text) or not 1 <= int(text) <= MAX_SUM:
        raise PuzzleError(f"a sum must be 1..{MAX_SUM} or '-', not {text!r}", token.line, token.col)  # type: ignore[attr-defined]
    return int(text)


def read(text: str) -> Kakuro:
    """Read a Kakuro board: tokens ``.`` (white), ``#`` (black) or ``DOWN\\ACROSS`` (black with sums, ``-``
    for none), the sums' frame included as the first row and column.

    Raises `PuzzleError` at the place for unknown tokens, bad sums, ragged rows, a white cell in the
    frame, a sum with no white cell to add up (below a down sum, right of an across sum) and a run too
    long or too short for its sum.
    """
    grid = read_grid(text, hash_comments=False, tokens=True)
    black: dict[Pos, tuple[int, int]] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            if token.text in (WHITE, "0"):
                if r == 0 or c == 0:
                    raise PuzzleError("a white cell in the frame (the first row and column hold only '#' and "
                                      "sums)", token.line, token.col)
                continue
            if token.text == BLACK:
                black[r, c] = (0, 0)
            elif "\\" in token.text:
                down, _, across = token.text.partition("\\")
                black[r, c] = (_sum(down, token), _sum(across, token))
            else:
                raise PuzzleError(f"unknown cell {token.text!r} (expected '.', '#' or DOWN\\ACROSS)",
                                  token.line, token.col)
    if len(grid) < 2 or len(grid[0]) < 2:
        raise PuzzleError("no cells inside the frame (the first row and column are the sums' frame)",
                          grid[0][0].line, grid[0][0].col)
    puzzle = Kakuro(len(grid), len(grid[0]), black)
    for (r, c), (down, across) in sorted(black.items()):
        for value, (nr, nc), where in ((down, (r + 1, c), "below"), (across, (r, c + 1), "to the right of")):
            if value and not (nr < puzzle.rows and nc < puzzle.cols and puzzle.white(nr, nc)):
                token = grid[r][c]
                raise PuzzleError(f"the sum {value} has no white cell {where} it to add up", token.line, token.col)
    for run, value in puzzle.runs_with_sums():
        lo, hi = sum(range(1, len(run) + 1)), sum(range(10 - len(run), 10))
        if len(run) > 9 or (value and not lo <= value <= hi):
            token = grid[run[0][0]][run[0][1]]
            raise NoSolution(f"a run of {len(run)} cells cannot add up to {value}" if value else
                              f"a run of {len(run)} cells cannot hold different digits", token.line, token.col)
    return puzzle


def _x(cell: Pos) -> str:
    return f"x_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Kakuro) -> list[str]:
    """The printed variables: the digit ``x_R_C`` of every white cell."""
    return [_x((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols) if puzzle.white(r, c)]


def generate(puzzle: Kakuro) -> str:
    """The Sugar CSP text of `puzzle`."""
    out = CspText(f"Kakuro puzzle, {puzzle.rows} rows x {puzzle.cols} columns", puzzle.text_lines(),
                  ["x_R_C: the digit in white cell (R, C)"])
    out.block("Digits: 1..9 in every white cell")
    out.extend(f"(int {name} 1 9)" for name in puzzle_variables(puzzle))
    out.block("Rule: a run holds different digits, adding up to its sum")
    for run, value in puzzle.runs_with_sums():
        names = [_x(cell) for cell in run]
        if len(run) > 1:
            out.add(f"(alldifferent {' '.join(names)})")
        if value:
            out.add(f"(= {total(names)} {value})")
    return out.text()


def decode(puzzle: Kakuro, values: Values) -> list[list[int | None]]:
    """The digits, None for black cells."""
    return [[need_in(values, _x((r, c)), 1, 9, "a digit") if puzzle.white(r, c) else None
             for c in range(puzzle.cols)] for r in range(puzzle.rows)]


def check(puzzle: Kakuro, digits: list[list[int | None]]) -> list[Violation]:
    """The rules the digits break: different digits in a run, and the run's sum."""
    found = []
    for run, value in puzzle.runs_with_sums():
        got = [digits[r][c] for r, c in run]
        where = f"the run from cell row {run[0][0]}, column {run[0][1]}"
        if len(set(got)) != len(got):
            found.append(Violation("a run holds different digits", where))
        if value and sum(d or 0 for d in got) != value:
            found.append(Violation(f"the run adds up to {value}, and its digits add up to {sum(d or 0 for d in got)}",
                                   where))
    return found


def render(puzzle: Kakuro, digits: list[list[int | None]], fmt: str) -> str:
    """The digits as ``answer``/``drawing`` (the board with digits for white cells, columns aligned in the
    drawing) or ``svg``."""
    check_format(fmt)
    cells = [[str(d) if d is not None else puzzle.mark((r, c)) for c, d in enumerate(row)]
             for r, row in enumerate(digits)]
    if fmt == "answer":
        return "".join(" ".join(row) + "\n" for row in cells)
    if fmt == "drawing":
        width = max(len(t) for row in cells for t in row)
        return "".join(" ".join(f"{t:>{width}}" for t in row).rstrip() + "\n" for row in cells)
    svg = Svg(puzzle.rows, puzzle.cols)
    svg.regions([[0] * puzzle.cols for _ in range(puzzle.rows)], {})
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            if (r, c) not in puzzle.black:
                svg.text(r, c, text)
                continue
            svg.cell(r, c, "#333333")
            down, across = puzzle.black[r, c]
            if down or across:
                # the usual clue cell: a diagonal, the down sum below it and the across sum above it, so that
                # two 2-digit sums fit in one cell
                svg.line(r, c, r + 1, c + 1, 1, "white")
                for value, at in ((down, (0.72, 0.3)), (across, (0.3, 0.72))):
                    if value:
                        svg.text(r, c, str(value), color="white", at=at, scale=0.65)
    return svg.document()


GENRE = register(
    Genre(
        name="kakuro",
        aliases=("cross-sums",),
        summary="fill runs of white cells with different digits adding up to their sums",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
