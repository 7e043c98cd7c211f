"""Heyawake (へやわけ) genre: puzzle text -> Sugar CSP, and a solution log -> the shaded cells.

Rules: shade cells so that no two shaded cells share an edge, the unshaded
cells are connected, a room with a number holds that many shaded cells, and no
straight row or column of unshaded cells crosses two room borders (it may run
through at most two rooms).

Encoding: ``s_R_C`` (0/1) says cell (R, C) is shaded, the printed answer.
Room numbers are sums; for two room borders that follow each other along a
row or column, the cells from just before the first to just after the second
are not all unshaded; connectivity by `boardkit.connected_rule` (hidden
parents ``_a`` and turn parities ``_k``).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, PuzzleError, Values, Violation, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    any_true,
    connected_rule,
    decode_marks,
    not_touching_rule,
    number_cell,
    read_grid,
    read_regions,
    region_cells,
    region_lines,
    render_shading,
    sections,
    split_violations,
    total,
    touching_violations,
)

SHADED, UNSHADED = "#", "."


@dataclass(frozen=True)
class Heyawake:
    """A Heyawake board: size, rooms (cell -> room number, reading order) and room numbers (None: ``?``)."""

    rows: int
    cols: int
    rooms: tuple[tuple[int, ...], ...]
    numbers: dict[int, int | None]  # room -> its number; rooms without one are absent

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format: the rooms, a blank line, the numbers at each room's first cell."""
        firsts = {cells[0]: k for k, cells in enumerate(region_cells(self.rooms))}

        def mark(cell: Pos) -> str:
            k = firsts.get(cell)
            if k is None or k not in self.numbers:
                return "-"
            value = self.numbers[k]
            return "?" if value is None else str(value)

        return [*region_lines(self.rooms), "",
                *(" ".join(mark((r, c)) for c in range(self.cols)) for r in range(self.rows))]

    def crossings(self) -> list[list[Pos]]:
        """The straight runs that would cross two room borders: from the cell before a border to the cell after
        the next border along the same row or column (not all of them may be unshaded)."""
        out = []
        lines = [[(r, c) for c in range(self.cols)] for r in range(self.rows)]
        lines += [[(r, c) for r in range(self.rows)] for c in range(self.cols)]
        for line in lines:
            borders = [i for i in range(len(line) - 1)
                       if self.rooms[line[i][0]][line[i][1]] != self.rooms[line[i + 1][0]][line[i + 1][1]]]
            out += [line[a:b + 2] for a, b in zip(borders, borders[1:])]
        return out


def read(text: str) -> Heyawake:
    """Read a Heyawake board: the room grid (region names), a blank line, then a grid of numbers
    (``-`` none, ``?`` unknown) of the same size, at most one number per room.

    Raises `PuzzleError` at the place for a missing or ragged grid, grids of different sizes, an
    unknown token, a number larger than its room and two numbers in one room.
    """
    room_text, number_text = sections(text, 2)
    rooms, _ = read_regions(room_text)
    grid = read_grid(number_text, tokens=True)
    rows, cols = len(rooms), len(rooms[0])
    if (len(grid), len(grid[0])) != (rows, cols):
        raise PuzzleError(f"the number grid is {len(grid)}x{len(grid[0])} but the room grid is {rows}x{cols}",
                          grid[0][0].line, grid[0][0].col)
    sizes: dict[int, int] = {}
    for row in rooms:
        for k in row:
            sizes[k] = sizes.get(k, 0) + 1
    numbers: dict[int, int | None] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 0, rows * cols)
            if value is False and token.text != "0":
                continue
            value = 0 if value is False else value
            k = rooms[r][c]
            if k in numbers:
                raise PuzzleError(f"room {k} has two numbers", token.line, token.col)
            if value is not None and value > sizes[k]:
                raise PuzzleError(f"the number {value} is larger than its room of {sizes[k]} cells",
                                  token.line, token.col)
            numbers[k] = value
    return Heyawake(rows, cols, tuple(tuple(row) for row in rooms), numbers)


def _s(cell: Pos) -> str:
    return f"s_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Heyawake) -> list[str]:
    """The printed variables: ``s_R_C`` of every cell."""
    return [_s((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Heyawake) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    out = CspText(f"Heyawake puzzle, {rows} rows x {cols} columns", puzzle.text_lines(),
                  ["s_R_C: 1 if cell (R, C) is shaded"])
    out.block("Shading: one 0/1 variable per cell")
    out.extend(f"(int {name} 0 1)" for name in puzzle_variables(puzzle))
    out.block("Rule: a room's number is the count of its shaded cells")
    room_cells = region_cells(puzzle.rooms)
    for k, value in sorted(puzzle.numbers.items()):
        if value is not None:
            out.add(f"(= {total([_s(cell) for cell in room_cells[k]])} {value})")
    not_touching_rule(out, rows, cols, lambda cell: f"(= {_s(cell)} 1)", "shaded cells")
    out.block("Rule: no straight line of unshaded cells crosses two room borders")
    for run in puzzle.crossings():
        out.add(any_true([f"(= {_s(cell)} 1)" for cell in run]))
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    connected_rule(out, cells, lambda cell: f"(= {_s(cell)} 0)", rows, cols, "the unshaded cells")
    return out.text()


def decode(puzzle: Heyawake, values: Values) -> list[str]:
    """The shading, one string per row (``#`` shaded, ``.`` unshaded)."""
    return decode_marks(values, _s, puzzle.rows, puzzle.cols, SHADED, UNSHADED)


def check(puzzle: Heyawake, solution: list[str]) -> list[Violation]:
    """The rules the shading breaks: room numbers, touching shaded cells, lines through three rooms and a
    split unshaded area."""
    found = []
    room_cells = region_cells(puzzle.rooms)
    for k, value in sorted(puzzle.numbers.items()):
        count = sum(solution[r][c] == SHADED for r, c in room_cells[k])
        if value is not None and count != value:
            found.append(Violation(f"the number {value} counts the room's shaded cells, and there are {count}",
                                   f"room {k}"))
    found += touching_violations(solution, SHADED, "shaded cells")
    for run in puzzle.crossings():
        if all(solution[r][c] != SHADED for r, c in run):
            (r1, c1), (r2, c2) = run[0], run[-1]
            found.append(Violation("no line of unshaded cells crosses two room borders",
                                   f"cells row {r1}, column {c1} to row {r2}, column {c2}"))
    found += split_violations(solution, lambda ch: ch != SHADED, "the unshaded cells")
    return found


def render(puzzle: Heyawake, solution: list[str], fmt: str) -> str:
    """The shading as ``drawing`` (rooms framed, ``###`` shaded), ``answer`` (``#``/``.``) or ``svg``."""
    marks = {cells[0]: ("?" if puzzle.numbers[k] is None else str(puzzle.numbers[k]))
             for k, cells in enumerate(region_cells(puzzle.rooms)) if k in puzzle.numbers}
    return render_shading(puzzle.rooms, solution, fmt, marks)


GENRE = register(
    Genre(
        name="heyawake",
        aliases=(),
        summary="shade room counts; shaded cells never touch, the rest is connected, no line crosses two borders",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
