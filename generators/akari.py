"""Akari (Light Up, 美術館) genre: puzzle text -> Sugar CSP, and a solution log -> the placed lights.

Rules: place lights in white cells so that every white cell is lit (a light
lights its own cell and every cell it sees along its row and column up to a
black cell), no light sees another, and a numbered black cell has exactly that
many lights among its four neighbours.

Encoding: ``l_R_C`` (0/1) says a light stands on white cell (R, C); it is the
printed answer. A line of sight is a run of white cells between black cells or
the edge; its light count is a hidden 0/1 helper ``_s_K`` (so at most one
light), and each white cell needs the count 1 in its row run or its column run
(two-term rules instead of a disjunction over every cell it sees).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    any_true,
    need_in,
    neighbours,
    read_grid,
    render_marks,
    runs,
    total,
)

BLACK, WHITE, LIGHT = "#", ".", "*"


@dataclass(frozen=True)
class Akari:
    """An Akari board: size and black cells (cell -> its number, or None for a black cell without one)."""

    rows: int
    cols: int
    black: dict[Pos, int | None]

    def white(self, r: int, c: int) -> bool:
        """True for a white cell (a cell a light may stand on)."""
        return (r, c) not in self.black

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        def mark(cell: Pos) -> str:
            if cell not in self.black:
                return WHITE
            value = self.black[cell]
            return BLACK if value is None else str(value)

        return ["".join(mark((r, c)) for c in range(self.cols)) for r in range(self.rows)]


def read(text: str) -> Akari:
    """Read an Akari board: ``.`` white, ``#`` (or ``?``, a number not given) black, ``0``-``4`` a numbered
    black cell, one character per cell or whitespace-separated.

    Raises `PuzzleError` at the place for an unknown character, ragged rows and
    a number larger than the count of white neighbours of its cell.
    """
    grid = read_grid(text, hash_comments=False)
    rows, cols = len(grid), len(grid[0])
    black: dict[Pos, int | None] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            if token.text in (".", "-"):
                continue
            if token.text in (BLACK, "?"):  # '?': a black cell whose number is not given, as pzprjs shows it
                black[r, c] = None
            elif token.text in ("0", "1", "2", "3", "4"):
                black[r, c] = int(token.text)
            else:
                raise PuzzleError(f"unknown cell {token.text!r} (expected '.' or '-' white, '#', '?' or 0-4 black)",
                                 token.line, token.col)
    for (r, c), value in black.items():
        free = [n for n in neighbours(r, c, rows, cols) if n not in black]
        if value is not None and value > len(free):
            token = grid[r][c]
            raise NoSolution(f"clue {value} has only {len(free)} white neighbours", token.line, token.col)
    return Akari(rows, cols, black)


def _l(cell: Pos) -> str:
    return f"l_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Akari) -> list[str]:
    """The printed variables: ``l_R_C`` of every white cell."""
    return [_l((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols) if puzzle.white(r, c)]


def _sight_lines(puzzle: Akari) -> dict[Pos, list[Pos]]:
    """For each white cell, the white cells it sees (its row run and column run, itself included once)."""
    seen: dict[Pos, list[Pos]] = {}
    for run in runs(puzzle.white, puzzle.rows, puzzle.cols):
        for cell in run:
            seen.setdefault(cell, [])
            seen[cell] += [other for other in run if other not in seen[cell]]
    return seen


def generate(puzzle: Akari) -> str:
    """The Sugar CSP text of `puzzle`."""
    out = CspText(
        f"Akari (Light Up) puzzle, {puzzle.rows} rows x {puzzle.cols} columns",
        puzzle.text_lines(),
        ["l_R_C: 1 if a light stands on white cell (R, C)"],
    )
    names = puzzle_variables(puzzle)
    out.block("Lights: one 0/1 variable per white cell")
    out.extend(f"(int {name} 0 1)" for name in names)
    out.block("Rule: a number counts the lights next to it")
    for (r, c), value in puzzle.black.items():
        if value is None:
            continue
        near = [_l(n) for n in neighbours(r, c, puzzle.rows, puzzle.cols) if puzzle.white(*n)]
        out.add(f"(= {total(near)} {value})")
    out.block(
        "Rule: no light sees another",
        "_s_K (0/1) is the number of lights in line of sight K (a run of white cells between black cells)",
    )
    sight = runs(puzzle.white, puzzle.rows, puzzle.cols)
    line_of: dict[Pos, list[str]] = {}
    for number, run in enumerate(sight):
        name = helper(f"s_{number}")
        out.add(f"(int {name} 0 1)")
        out.add(f"(= {total([_l(cell) for cell in run])} {name})")
        for cell in run:
            line_of.setdefault(cell, []).append(name)
    out.block("Rule: every white cell is lit (its row or its column line of sight holds a light)")
    for cell, names in line_of.items():
        out.add(any_true([f"(= {name} 1)" for name in names]))
    return out.text()


def decode(puzzle: Akari, values: Values) -> list[str]:
    """The board with the lights, one string per row (``*`` light, ``.`` white, black cells as given)."""
    rows = []
    for r, line in enumerate(puzzle.text_lines()):
        rows.append("".join(
            LIGHT if ch == WHITE and need_in(values, _l((r, c)), 0, 1, "0 or 1") == 1 else ch
            for c, ch in enumerate(line)
        ))
    return rows


def check(puzzle: Akari, solution: list[str]) -> list[Violation]:
    """The rules the lights break: every white cell lit, no light seeing another, numbers counting lights."""
    found = []
    lights = {(r, c) for r, row in enumerate(solution) for c, ch in enumerate(row) if ch == LIGHT}
    for cell in sorted(lights):
        if cell in puzzle.black:
            found.append(Violation("a light stands on a white cell", cell_name(*cell)))
    for cell, seen in sorted(_sight_lines(puzzle).items()):
        lit = [other for other in seen if other in lights]
        if not lit:
            found.append(Violation("every white cell is lit, and this one is dark", cell_name(*cell)))
        elif cell in lights and len(lit) > 1:
            other = next(o for o in lit if o != cell)
            found.append(Violation(f"no light sees another, and this one sees the light at {cell_name(*other)}",
                                   cell_name(*cell)))
    for (r, c), value in sorted(puzzle.black.items()):
        count = sum(n in lights for n in neighbours(r, c, puzzle.rows, puzzle.cols))
        if value is not None and count != value:
            found.append(Violation(f"the number {value} counts the lights next to it, and there are {count}",
                                   cell_name(r, c)))
    return found


def render(puzzle: Akari, solution: list[str], fmt: str) -> str:
    """The lights as ``drawing`` (``*`` lights, ``###``/``#N#`` black cells), ``answer`` (characters) or ``svg``."""
    def inside(r: int, c: int) -> str:
        ch = solution[r][c]
        if (r, c) in puzzle.black:
            return "###" if ch == BLACK else f"#{ch}#"
        return " * " if ch == LIGHT else "   "

    def paint(svg: Svg, r: int, c: int) -> None:
        if (r, c) in puzzle.black:
            svg.cell(r, c, "#333333")
            if puzzle.black[r, c] is not None:
                svg.text(r, c, str(puzzle.black[r, c]), color="white")
        elif solution[r][c] == LIGHT:
            svg.text(r, c, "\u25cf", color="#e6a800")

    labels = [["black" if (r, c) in puzzle.black else "white" for c in range(puzzle.cols)] for r in range(puzzle.rows)]
    return render_marks(labels, solution, fmt, inside, paint, colours=False)


GENRE = register(
    Genre(
        name="akari",
        aliases=("lightup", "light-up"),
        summary="place lights that light every white cell, never see each other, and match the numbers",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
