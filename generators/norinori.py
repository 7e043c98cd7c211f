"""Norinori (のりのり) genre: puzzle text -> Sugar CSP, and a solution log -> the shaded dominoes.

Rules: shade exactly two cells in every region so that every shaded cell has
exactly one shaded orthogonal neighbour (the shaded cells form dominoes, which
may cross region borders).

Encoding: ``s_R_C`` (0/1) says cell (R, C) is shaded, the printed answer; no
helpers. Region sums are 2; a shaded cell's neighbour sum is 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, Values, Violation, cell_name, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    decode_marks,
    neighbours,
    read_regions,
    region_cells,
    region_lines,
    render_marks,
    total,
)

SHADED, UNSHADED = "#", "."


@dataclass(frozen=True)
class Norinori:
    """A Norinori board: size and regions (cell -> region number, reading order)."""

    rows: int
    cols: int
    regions: tuple[tuple[int, ...], ...]

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return region_lines(self.regions)


def read(text: str) -> Norinori:
    """Read a Norinori board: a grid of region names (tokens or characters). Raises `PuzzleError` for ragged rows."""
    labels, _ = read_regions(text)
    return Norinori(len(labels), len(labels[0]), tuple(tuple(row) for row in labels))


def _s(cell: Pos) -> str:
    return f"s_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Norinori) -> list[str]:
    """The printed variables: ``s_R_C`` of every cell."""
    return [_s((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Norinori) -> str:
    """The Sugar CSP text of `puzzle`."""
    out = CspText(
        f"Norinori puzzle, {puzzle.rows} rows x {puzzle.cols} columns",
        puzzle.text_lines(),
        ["s_R_C: 1 if cell (R, C) is shaded"],
    )
    out.block("Shading: one 0/1 variable per cell")
    out.extend(f"(int {name} 0 1)" for name in puzzle_variables(puzzle))
    out.block("Rule: every region holds exactly two shaded cells")
    for cells in region_cells(puzzle.regions):
        out.add(f"(= {total([_s(cell) for cell in cells])} 2)")
    out.block("Rule: a shaded cell has exactly one shaded neighbour (shaded cells form dominoes)")
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            near = [_s(n) for n in neighbours(r, c, puzzle.rows, puzzle.cols)]
            out.add(f"(=> (= {_s((r, c))} 1) (= {total(near)} 1))")
    return out.text()


def decode(puzzle: Norinori, values: Values) -> list[str]:
    """The shading, one string per row (``#`` shaded, ``.`` unshaded)."""
    return decode_marks(values, _s, puzzle.rows, puzzle.cols, SHADED, UNSHADED)


def check(puzzle: Norinori, solution: list[str]) -> list[Violation]:
    """The rules the shading breaks: two shaded cells per region, one shaded neighbour per shaded cell."""
    found = []
    for k, cells in enumerate(region_cells(puzzle.regions)):
        count = sum(solution[r][c] == SHADED for r, c in cells)
        if count != 2:
            found.append(Violation(f"a region holds two shaded cells, and this one holds {count}", f"region {k}"))
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            if solution[r][c] != SHADED:
                continue
            count = sum(solution[n[0]][n[1]] == SHADED for n in neighbours(r, c, puzzle.rows, puzzle.cols))
            if count != 1:
                found.append(Violation(f"a shaded cell has one shaded neighbour, and this one has {count}",
                                       cell_name(r, c)))
    return found


def render(puzzle: Norinori, solution: list[str], fmt: str) -> str:
    """The shading as ``drawing`` (regions framed, ``###`` shaded), ``answer`` (``#``/``.``) or ``svg``."""
    def paint(svg: Svg, r: int, c: int) -> None:
        if solution[r][c] == SHADED:
            svg.cell(r, c, "#333333")

    return render_marks(puzzle.regions, solution, fmt,
                        lambda r, c: "###" if solution[r][c] == SHADED else "   ", paint)


GENRE = register(
    Genre(
        name="norinori",
        aliases=(),
        summary="shade two cells in every region so that the shaded cells form dominoes",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
