"""Shikaku (四角に切れ) genre: puzzle text -> Sugar CSP, and a solution log -> the divided board.

Rules: divide the grid into rectangles so that each rectangle holds exactly one
clue and the clue is its area (``?``: any area). The encoding follows seed 000:
every clue gets its candidate rectangles (those that contain no other clue), and
exactly one candidate per clue and exactly one covering clue per cell are
required. In Sugar both "exactly one" become int variables: ``k_R_C`` is the
candidate number chosen by the clue at (R, C), the printed answer, and ``_o_R_C``
the number of the clue that owns cell (R, C), a hidden helper determined by the
choices (see `generators.boardkit.exact_cover`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    PALETTE,
    Chooser,
    CspText,
    Pos,
    Svg,
    check_format,
    chosen_options,
    exact_cover,
    number_cell,
    number_rows,
    read_grid,
    region_drawing,
)

Rect = tuple[int, int, int, int]  # top, left, height, width


@dataclass(frozen=True)
class Clue:
    """A clue: its cell, its area (None for ``?``) and its position in the puzzle text."""

    row: int
    col: int
    area: int | None
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Shikaku:
    """A Shikaku puzzle with the candidate rectangles of every clue (clue i is ``choosers[i]``)."""

    rows: int
    cols: int
    clues: tuple[Clue, ...]
    rects: tuple[tuple[Rect, ...], ...]
    choosers: tuple[Chooser, ...]

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format, one string per row."""
        grid = [["-"] * self.cols for _ in range(self.rows)]
        for clue in self.clues:
            grid[clue.row][clue.col] = "?" if clue.area is None else str(clue.area)
        return [" ".join(row) for row in grid]


def _cells(rect: Rect) -> tuple[Pos, ...]:
    top, left, h, w = rect
    return tuple((r, c) for r in range(top, top + h) for c in range(left, left + w))


def _candidates(clue: Clue, rows: int, cols: int, clue_cells: set[Pos]) -> list[Rect]:
    """Rectangles inside the board that contain `clue`, have its area and hold no other clue.

    Ordered by shape, then top, then left, so that the candidates covering a
    cell form few runs of consecutive numbers (short CSP text).
    """
    shapes = [
        (h, w)
        for h in range(1, rows + 1)
        for w in range(1, cols + 1)
        if clue.area is None or h * w == clue.area
    ]
    out = []
    for h, w in shapes:
        for top in range(max(0, clue.row - h + 1), min(clue.row, rows - h) + 1):
            for left in range(max(0, clue.col - w + 1), min(clue.col, cols - w) + 1):
                rect = (top, left, h, w)
                if not any(
                    (r, c) in clue_cells and (r, c) != (clue.row, clue.col) for r, c in _cells(rect)
                ):
                    out.append(rect)
    return out


def read(text: str) -> Shikaku:
    """Read a Shikaku board: tokens ``-``/``.``/``0``/``-1`` (empty), a positive area, or ``?``.

    Raises `PuzzleError` at the offending place for unknown tokens, ragged rows,
    clues no rectangle can satisfy and cells no rectangle can cover.
    """
    grid = read_grid(text)
    rows, cols = len(grid), len(grid[0])
    clues = []
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 1, rows * cols)
            if value is not False:
                clues.append(Clue(r, c, value, token.line, token.col))
    if not clues:
        raise PuzzleError("the board has no clue", grid[0][0].line, grid[0][0].col)
    clue_cells = {(clue.row, clue.col) for clue in clues}
    rects, choosers, covered = [], [], set()
    for ident, clue in enumerate(clues, 1):
        found = _candidates(clue, rows, cols, clue_cells)
        if not found:
            raise NoSolution(
                f"no rectangle of area {clue.area} fits here without another clue", clue.line, clue.column
            )
        options = tuple(_cells(rect) for rect in found)
        for option in options:
            covered.update(option)
        rects.append(tuple(found))
        choosers.append(Chooser(f"k_{clue.row}_{clue.col}", ident, options))
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            if (r, c) not in covered:
                raise NoSolution("no clue's rectangle can cover this cell", token.line, token.col)
    return Shikaku(rows, cols, tuple(clues), tuple(rects), tuple(choosers))


def puzzle_variables(puzzle: Shikaku) -> list[str]:
    """The variables that determine a solution: the candidate number ``k_R_C`` of every clue."""
    return [ch.var for ch in puzzle.choosers]


def generate(puzzle: Shikaku) -> str:
    """The Sugar CSP text of `puzzle` (candidate rectangles, exactly one per clue and per cell)."""
    out = CspText(
        f"Shikaku puzzle, {puzzle.rows} rows x {puzzle.cols} columns",
        puzzle.text_lines(),
        [
            "k_R_C: the candidate rectangle chosen by the clue at row R, column C",
            "_o_R_C: the number of the clue whose rectangle covers cell (R, C) (a hidden helper)",
        ],
    )
    out.block("Clues (numbered in row-major order) and their candidate rectangles")
    for clue, rects in zip(puzzle.clues, puzzle.rects):
        area = "?" if clue.area is None else clue.area
        listed = " ".join(f"{n}:r{t}c{l}:{h}x{w}" for n, (t, l, h, w) in enumerate(rects, 1))
        out.comment(f"k_{clue.row}_{clue.col} (area {area}): {listed}")
    cells = [(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols)]
    exact_cover(
        out,
        puzzle.choosers,
        cells,
        lambda cell: helper(f"o_{cell[0]}_{cell[1]}"),
        (
            "Rule: each clue lies in exactly one rectangle of its area (one candidate number per clue)",
            "Rule: the rectangles divide the grid (one owning clue per cell)",
            "A clue owns a cell exactly when its chosen rectangle covers the cell",
        ),
    )
    return out.text()


def decode(puzzle: Shikaku, values: Values) -> list[list[int]]:
    """The rectangle number of each cell (numbered by the row-major order of top-left cells).

    A cell no rectangle covers is 0 and one that several cover is -1 (`check` reports them).
    Raises `PuzzleError` when a variable is missing or out of range.
    """
    picked = chosen_options(puzzle.choosers, values)
    rects = sorted(puzzle.rects[ident - 1][index] for ident, index in picked.items())
    labels = [[0] * puzzle.cols for _ in range(puzzle.rows)]
    for number, rect in enumerate(rects, 1):
        for r, c in _cells(rect):
            labels[r][c] = -1 if labels[r][c] else number
    return labels


def check(puzzle: Shikaku, labels: list[list[int]]) -> list[Violation]:
    """The rules the division breaks: every cell in exactly one rectangle; each rectangle holds exactly
    one clue, and the clue is its area."""
    found = []
    regions: dict[int, list[Pos]] = {}
    for r, row in enumerate(labels):
        for c, label in enumerate(row):
            if label == 0:
                found.append(Violation("every cell is in a rectangle, and this one is in none", cell_name(r, c)))
            elif label < 0:
                found.append(Violation("rectangles do not overlap, and two cover this cell", cell_name(r, c)))
            else:
                regions.setdefault(label, []).append((r, c))
    if found:  # rectangles cut by overlaps are no longer what was placed: the overlaps say it all
        return found
    areas = {(clue.row, clue.col): clue.area for clue in puzzle.clues}
    for cells in regions.values():
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        height, width = max(r for r, _ in cells) - top + 1, max(c for _, c in cells) - left + 1
        if len(cells) != height * width:
            found.append(Violation("regions are rectangles, and this one is not", cell_name(top, left)))
        clues = [cell for cell in cells if cell in areas]
        if len(clues) != 1:
            found.append(Violation(f"a rectangle holds exactly one clue, and this one holds {len(clues)}",
                                   f"the rectangle at {cell_name(top, left)}"))
        elif areas[clues[0]] is not None and areas[clues[0]] != len(cells):
            found.append(Violation(f"the clue {areas[clues[0]]} is the area of its rectangle, "
                                   f"and the rectangle has {len(cells)} cells", cell_name(*clues[0])))
    return found


def render(puzzle: Shikaku, solution: list[list[int]], fmt: str) -> str:
    """The divided board as ``drawing`` (borders), ``answer`` (rectangle numbers) or ``svg``."""
    check_format(fmt)
    if fmt == "answer":
        return number_rows(solution)
    marks = {(cl.row, cl.col): "?" if cl.area is None else str(cl.area) for cl in puzzle.clues}
    if fmt == "drawing":
        return region_drawing(solution, lambda r, c: f"{marks.get((r, c), ''):^3}")
    svg = Svg(puzzle.rows, puzzle.cols)
    count = max(max(row) for row in solution)
    svg.regions(solution, {n: PALETTE[(n - 1) % len(PALETTE)] for n in range(1, count + 1)})
    for (r, c), mark in marks.items():
        svg.text(r, c, mark)
    return svg.document()


GENRE = register(
    Genre(
        name="shikaku",
        aliases=("shikaku-ni-kire", "rectangles"),
        summary="divide the grid into rectangles, one clue each, the clue being the area",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
