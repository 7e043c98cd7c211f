"""Star Battle genre: puzzle text -> Sugar CSP, and a solution log -> the placed stars.

Rules: place stars so that every row, every column and every region holds
exactly K of them (K is given: ``stars K``), and no two stars touch, not even
diagonally.

Encoding: ``t_R_C`` (0/1) says a star stands on cell (R, C), the printed
answer; no helpers. Row, column and region sums are K; every 2x2 square holds
at most one star (which forbids exactly the touching pairs).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    decode_marks,
    header_value,
    read_regions,
    region_cells,
    region_lines,
    render_marks,
    total,
)

STAR, EMPTY = "*", "."


@dataclass(frozen=True)
class StarBattle:
    """A Star Battle: size, regions (cell -> region number, reading order) and stars per line and region."""

    rows: int
    cols: int
    regions: tuple[tuple[int, ...], ...]
    stars: int

    def lines(self) -> list[tuple[str, list[Pos]]]:
        """Every row, column and region with its cells, named as a violation names it."""
        out = [(f"row {r}", [(r, c) for c in range(self.cols)]) for r in range(self.rows)]
        out += [(f"column {c}", [(r, c) for r in range(self.rows)]) for c in range(self.cols)]
        out += [(f"region {k}", cells) for k, cells in enumerate(region_cells(self.regions))]
        return out

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return [f"stars {self.stars}", *region_lines(self.regions)]


def read(text: str) -> StarBattle:
    """Read a Star Battle: a ``stars K`` line (default 1) and a grid of region names (tokens or characters).

    Raises `PuzzleError` at the place for a bad stars line, ragged rows, a
    board that is not square and a star count that cannot fit (2K-1 stars
    in a line of fewer than 2K-1 cells would touch).
    """
    stars, rest = header_value(text, "stars", 1, 10**6)
    labels, grid = read_regions(rest)
    rows, cols = len(labels), len(labels[0])
    if rows != cols:
        raise PuzzleError(f"a Star Battle board is square; this one is {rows}x{cols}", grid[0][0].line, grid[0][0].col)
    stars = stars or 1
    if 2 * stars - 1 > cols:
        raise NoSolution(f"{stars} stars that never touch do not fit in a line of {cols} cells",
                          grid[0][0].line, grid[0][0].col)
    return StarBattle(rows, cols, tuple(tuple(row) for row in labels), stars)


def _t(cell: Pos) -> str:
    return f"t_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: StarBattle) -> list[str]:
    """The printed variables: ``t_R_C`` of every cell."""
    return [_t((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: StarBattle) -> str:
    """The Sugar CSP text of `puzzle`."""
    out = CspText(
        f"Star Battle puzzle, {puzzle.rows}x{puzzle.cols}, {puzzle.stars} star(s) per row, column and region",
        puzzle.text_lines(),
        ["t_R_C: 1 if a star stands on cell (R, C)"],
    )
    out.block("Stars: one 0/1 variable per cell")
    out.extend(f"(int {name} 0 1)" for name in puzzle_variables(puzzle))
    out.block(f"Rule: every row, column and region holds {puzzle.stars} star(s)")
    for _, cells in puzzle.lines():
        out.add(f"(= {total([_t(cell) for cell in cells])} {puzzle.stars})")
    out.block("Rule: stars never touch, not even diagonally (a 2x2 square holds at most one)")
    for r in range(puzzle.rows - 1):
        for c in range(puzzle.cols - 1):
            out.add(f"(<= {total([_t(cell) for cell in ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))])} 1)")
    return out.text()


def decode(puzzle: StarBattle, values: Values) -> list[str]:
    """The stars, one string per row (``*`` star, ``.`` empty)."""
    return decode_marks(values, _t, puzzle.rows, puzzle.cols, STAR, EMPTY)


def check(puzzle: StarBattle, solution: list[str]) -> list[Violation]:
    """The rules the stars break: K per row, column and region, and no two touching."""
    found = []
    for where, cells in puzzle.lines():
        count = sum(solution[r][c] == STAR for r, c in cells)
        if count != puzzle.stars:
            found.append(Violation(f"holds {puzzle.stars} star(s), and has {count}", where))
    stars = sorted((r, c) for r, row in enumerate(solution) for c, ch in enumerate(row) if ch == STAR)
    for i, (r, c) in enumerate(stars):
        for rr, cc in stars[i + 1:]:
            if max(abs(rr - r), abs(cc - c)) == 1:
                found.append(Violation(f"stars never touch, and this one touches the star at {cell_name(rr, cc)}",
                                       cell_name(r, c)))
    return found


def render(puzzle: StarBattle, solution: list[str], fmt: str) -> str:
    """The stars as ``drawing`` (regions framed, `` * `` stars), ``answer`` (``*``/``.``) or ``svg``."""
    def paint(svg: Svg, r: int, c: int) -> None:
        if solution[r][c] == STAR:
            svg.text(r, c, "\u2605")

    return render_marks(puzzle.regions, solution, fmt, lambda r, c: " * " if solution[r][c] == STAR else "   ", paint)


GENRE = register(
    Genre(
        name="starbattle",
        aliases=("star-battle",),
        summary="place K stars in every row, column and region, no two touching",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
