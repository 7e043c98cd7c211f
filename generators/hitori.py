"""Hitori (ひとりにしてくれ) genre: puzzle text -> Sugar CSP, and a solution log -> the shaded cells.

Rules: shade cells so that no number appears twice unshaded in a row or a
column, no two shaded cells share an edge, and the unshaded cells are
connected. A cell without a number (``-``) or with an unknown one (``?``) is
never a repeat.

Encoding: ``s_R_C`` (0/1) says cell (R, C) is shaded, the printed answer. Of
two equal numbers in one line at least one is shaded; two neighbours are not
both shaded; the unshaded cells are connected by `boardkit.connected_rule`
(hidden parents ``_a`` and turn parities ``_k``).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, Values, Violation, cell_name, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    connected_rule,
    decode_marks,
    not_touching_rule,
    number_cell,
    read_grid,
    render_shading,
    split_violations,
    touching_violations,
)

SHADED, UNSHADED = "#", "."


@dataclass(frozen=True)
class Hitori:
    """A Hitori board: size and the number of each cell (None: no number or an unknown one)."""

    rows: int
    cols: int
    numbers: tuple[tuple[int | None, ...], ...]
    marks: tuple[tuple[str, ...], ...]  # each cell as written in the data/ format

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return [" ".join(row) for row in self.marks]

    def repeats(self) -> list[tuple[Pos, Pos]]:
        """Every pair of cells in one row or column holding the same number (at least one is shaded)."""
        pairs = []
        lines = [[(r, c) for c in range(self.cols)] for r in range(self.rows)]
        lines += [[(r, c) for r in range(self.rows)] for c in range(self.cols)]
        for line in lines:
            for i, a in enumerate(line):
                for b in line[i + 1:]:
                    value = self.numbers[a[0]][a[1]]
                    if value is not None and value == self.numbers[b[0]][b[1]]:
                        pairs.append((a, b))
        return pairs


def read(text: str) -> Hitori:
    """Read a Hitori board: whitespace-separated numbers (``-`` no number, ``?`` an unknown one), or
    one digit per cell.

    Raises `PuzzleError` at the place for anything else and for ragged rows.
    """
    grid = read_grid(text)
    numbers, marks = [], []
    for row in grid:
        line, mark = [], []
        for token in row:
            value = number_cell(token, 0, 10**6)
            line.append(value if isinstance(value, int) and value is not False else None)
            mark.append("-" if value is False else "?" if value is None else str(value))
        numbers.append(tuple(line))
        marks.append(tuple(mark))
    return Hitori(len(grid), len(grid[0]), tuple(numbers), tuple(marks))


def _s(cell: Pos) -> str:
    return f"s_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Hitori) -> list[str]:
    """The printed variables: ``s_R_C`` of every cell."""
    return [_s((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Hitori) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    out = CspText(
        f"Hitori puzzle, {rows} rows x {cols} columns",
        puzzle.text_lines(),
        ["s_R_C: 1 if cell (R, C) is shaded"],
    )
    out.block("Shading: one 0/1 variable per cell")
    out.extend(f"(int {_s(cell)} 0 1)" for cell in cells)
    out.block("Rule: a number appears at most once unshaded in a row or column")
    for a, b in puzzle.repeats():
        out.add(f"(or (= {_s(a)} 1) (= {_s(b)} 1))")
    not_touching_rule(out, rows, cols, lambda cell: f"(= {_s(cell)} 1)", "shaded cells")
    connected_rule(out, cells, lambda cell: f"(= {_s(cell)} 0)", rows, cols, "the unshaded cells")
    return out.text()


def decode(puzzle: Hitori, values: Values) -> list[str]:
    """The shading, one string per row (``#`` shaded, ``.`` unshaded)."""
    return decode_marks(values, _s, puzzle.rows, puzzle.cols, SHADED, UNSHADED)


def check(puzzle: Hitori, solution: list[str]) -> list[Violation]:
    """The rules the shading breaks: repeats left unshaded, touching shaded cells, a split unshaded area."""
    found = []
    for a, b in puzzle.repeats():
        if solution[a[0]][a[1]] != SHADED and solution[b[0]][b[1]] != SHADED:
            found.append(Violation(f"a number appears once unshaded in a line, and {puzzle.numbers[a[0]][a[1]]} "
                                   f"also stands unshaded at {cell_name(*b)}", cell_name(*a)))
    found += touching_violations(solution, SHADED, "shaded cells")
    found += split_violations(solution, lambda ch: ch != SHADED, "the unshaded cells")
    return found


def render(puzzle: Hitori, solution: list[str], fmt: str) -> str:
    """The shading as ``drawing`` (numbers, shaded cells ``#N#``), ``answer`` (``#``/``.``) or ``svg``."""
    marks = {(r, c): mark for r, row in enumerate(puzzle.marks) for c, mark in enumerate(row) if mark != "-"}
    return render_shading([[0] * puzzle.cols for _ in range(puzzle.rows)], solution, fmt, marks)


GENRE = register(
    Genre(
        name="hitori",
        aliases=(),
        summary="shade repeated numbers away; shaded cells never touch and the rest stays connected",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
