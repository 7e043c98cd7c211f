"""Yajilin (ヤジリン) genre: puzzle text -> Sugar CSP, and a solution log -> the loop and shaded cells.

Rules: shade some cells and draw one closed loop through all the other cells
that hold no clue; shaded cells never share an edge; a clue ``N`` with an
arrow counts the shaded cells in that direction (clue cells are never shaded
nor on the loop; a clue without an arrow, or with ``?``, counts nothing).

Encoding: the loop's segments ``h_R_C`` / ``v_R_C`` (0/1) are the printed
answer; `loopkit.single_loop` makes them one loop (hidden ``_p_R_C`` = 1 when
it passes through a cell). A cell off the loop is shaded, so the shading
follows from the loop: no two neighbours are both off it, and a clue counts
``(if (= _p 0) 1 0)`` terms.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators import loopkit
from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, is_number, register
from csp2sat.generators.boardkit import (
    CspText, Pos, Svg, check_format, need_in, read_grid, Segment, segment_name, segment_picture, total,
)

ARROWS = {"^": (-1, 0), "v": (1, 0), "<": (0, -1), ">": (0, 1)}
SHADED, ON_LOOP = "#", "+"


@dataclass(frozen=True)
class Yajilin:
    """A Yajilin board: size and clue cells (cell -> (number or None, arrow or "")."""

    rows: int
    cols: int
    clues: dict[Pos, tuple[int | None, str]]

    def free(self, cell: Pos) -> bool:
        """True for a cell that is shaded or on the loop (not a clue)."""
        return cell not in self.clues

    def seen(self, cell: Pos) -> list[Pos]:
        """The non-clue cells in the direction of a clue's arrow."""
        dr, dc = ARROWS[self.clues[cell][1]]
        r, c, out = cell[0] + dr, cell[1] + dc, []
        while 0 <= r < self.rows and 0 <= c < self.cols:
            if self.free((r, c)):
                out.append((r, c))
            r, c = r + dr, c + dc
        return out

    def segments(self) -> list[Segment]:
        """The possible loop segments between neighbouring non-clue cells, in reading order."""
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                out += [((r, c), o) for o in ((r, c + 1), (r + 1, c))
                        if o[0] < self.rows and o[1] < self.cols and self.free((r, c)) and self.free(o)]
        return out

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        def mark(cell: Pos) -> str:
            if cell not in self.clues:
                return "."
            number, arrow = self.clues[cell]
            return ("?" if number is None else str(number)) + arrow

        return [" ".join(mark((r, c)) for c in range(self.cols)) for r in range(self.rows)]


def read(text: str) -> Yajilin:
    """Read a Yajilin board: tokens ``.`` (empty) or a clue ``N`` / ``?`` with an arrow ``^ v < >`` (or none).

    Raises `PuzzleError` at the place for anything else, ragged rows and a count larger than the
    cells it sees could hold (shaded cells never touch).
    """
    grid = read_grid(text, tokens=True)
    clues: dict[Pos, tuple[int | None, str]] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            word = token.text
            if word in (".", "-"):
                continue
            arrow = word[-1] if word[-1] in ARROWS else ""
            number = word[:-1] if arrow else word
            if number != "?" and not is_number(number):
                raise PuzzleError(f"unknown cell {word!r} (expected '.' or a clue like 2> or ?^)", token.line, token.col)
            clues[r, c] = (None if number == "?" else int(number), arrow)
    puzzle = Yajilin(len(grid), len(grid[0]), clues)
    for (r, c), (number, arrow) in clues.items():
        if arrow and number is not None and number > _room_for_shading(puzzle, (r, c)):
            token = grid[r][c]
            raise NoSolution(f"{number} shaded cells that never touch do not fit in the direction of the arrow",
                              token.line, token.col)
    return puzzle


def _room_for_shading(puzzle: Yajilin, cell: Pos) -> int:
    """How many shaded cells fit in the direction of a clue's arrow: every other cell of each run of
    non-clue cells (a clue cell in between separates two runs, so shaded cells on both sides of it never touch)."""
    dr, dc = ARROWS[puzzle.clues[cell][1]]
    r, c, room, run = cell[0] + dr, cell[1] + dc, 0, 0
    while 0 <= r < puzzle.rows and 0 <= c < puzzle.cols:
        if puzzle.free((r, c)):
            run += 1
        else:
            room, run = room + (run + 1) // 2, 0
        r, c = r + dr, c + dc
    return room + (run + 1) // 2


def puzzle_variables(puzzle: Yajilin) -> list[str]:
    """The printed variables: the loop segments."""
    return [segment_name(s) for s in puzzle.segments()]


def generate(puzzle: Yajilin) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    nodes = [(r, c) for r in range(rows) for c in range(cols) if puzzle.free((r, c))]
    segments = puzzle.segments()
    out = CspText(f"Yajilin puzzle, {rows} rows x {cols} columns", puzzle.text_lines(),
                  ["h_R_C / v_R_C: 1 if the loop joins cell (R, C) to its right / lower neighbour",
                   "_p_R_C: 1 if the loop passes through cell (R, C); a cell it misses is shaded"])
    out.block("Segments: one 0/1 variable between neighbouring cells without clues")
    out.extend(f"(int {segment_name(s)} 0 1)" for s in segments)
    loopkit.single_loop(out, nodes, [(segment_name(s), s[0], s[1]) for s in segments])
    out.block("Rule: shaded cells (off the loop) never share an edge")
    for a, b in segments:
        out.add(f"(or (= {loopkit.on_var(a)} 1) (= {loopkit.on_var(b)} 1))")
    out.block("Rule: a clue counts the shaded cells in the direction of its arrow")
    for cell, (number, arrow) in sorted(puzzle.clues.items()):
        if arrow and number is not None:
            out.add(f"(= {total([f'(if (= {loopkit.on_var(o)} 0) 1 0)' for o in puzzle.seen(cell)])} {number})")
    return out.text()


def decode(puzzle: Yajilin, values: Values) -> set[Segment]:
    """The loop's segments; `PuzzleError` for a missing value or one other than 0 and 1."""
    return {s for s in puzzle.segments() if need_in(values, segment_name(s), 0, 1, "0 or 1")}


def _shaded(puzzle: Yajilin, loop: set[Segment]) -> set[Pos]:
    on = {cell for s in loop for cell in s}
    return {(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols) if puzzle.free((r, c)) and (r, c) not in on}


def check(puzzle: Yajilin, loop: set[Segment]) -> list[Violation]:
    """The rules broken: one simple loop, shaded cells (those off it) apart, clue counts."""
    found = loopkit.loop_violations(sorted(loop), lambda n: cell_name(*n))
    shaded = _shaded(puzzle, loop)
    for r, c in sorted(shaded):
        for other in ((r, c + 1), (r + 1, c)):
            if other in shaded:
                found.append(Violation(f"shaded cells never share an edge, and this one touches {cell_name(*other)}",
                                       cell_name(r, c)))
    for cell, (number, arrow) in sorted(puzzle.clues.items()):
        if arrow and number is not None:
            count = sum(o in shaded for o in puzzle.seen(cell))
            if count != number:
                found.append(Violation(f"the clue counts {number} shaded cells in its direction, and there are {count}",
                                       cell_name(*cell)))
    return found


def _picture(puzzle: Yajilin, loop: set[Segment], width: int) -> str:
    shaded = _shaded(puzzle, loop)
    words = [line.split() for line in puzzle.text_lines()]

    def mark(r: int, c: int) -> str:
        if (r, c) in puzzle.clues:  # the clue written out, or in the one-character answer its arrow
            return words[r][c] if width > 1 else puzzle.clues[r, c][1] or "*"
        return SHADED if (r, c) in shaded else ON_LOOP

    return segment_picture(puzzle.rows, puzzle.cols, mark, loop, width)


def render(puzzle: Yajilin, loop: set[Segment], fmt: str) -> str:
    """``drawing`` (clues written out), ``answer`` (clue cells as their arrow, ``*`` without one) or ``svg``."""
    check_format(fmt)
    if fmt != "svg":
        return _picture(puzzle, loop, 3 if fmt == "drawing" else 1)
    svg = Svg(puzzle.rows, puzzle.cols)
    svg.regions([[0] * puzzle.cols for _ in range(puzzle.rows)], {})
    for r, c in _shaded(puzzle, loop):
        svg.cell(r, c, "#333333")
    for (r, c), (r2, c2) in sorted(loop):
        svg.line(r + 0.5, c + 0.5, r2 + 0.5, c2 + 0.5, 4, "#1f77b4")
    for (r, c), (number, arrow) in puzzle.clues.items():
        svg.text(r, c, ("?" if number is None else str(number)) + arrow)
    return svg.document()


GENRE = register(
    Genre(
        name="yajilin",
        aliases=("yajirin",),
        summary="one loop through every unshaded cell; shaded cells apart; arrows count shaded cells",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
