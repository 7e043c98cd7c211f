"""Fillmat (フィルマット) genre: puzzle text -> Sugar CSP, and a solution log -> the block sizes.

Rules: split the grid into straight 1x1..1x4 blocks; blocks of the same size
never share an edge; no inner grid point has four block borders meeting; a
clue is the size of its block and a block holds at most one clue.

Encoding of seed 004: ``a_R_C`` (1..4) is the size of the block holding cell
(R, C) and ``b_R_C`` (1..6) its role: 1 and 2 as the size, 3/4 an end of a
block of 3/4, 5/6 an inner cell of a block of 3/4. Each role says what the
neighbours must be. Because equal sizes never touch unless in one block,
"two adjacent cells have equal size" means "they are in the same block", which
gives the crossing rule and the one-clue-per-block rule as plain (in)equalities.
The sizes determine the blocks and are the printed answer; the roles are hidden
helpers (``_b_R_C``).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    PALETTE,
    CspText,
    all_true,
    any_true,
    Pos,
    Svg,
    check_format,
    int_decl,
    need,
    neighbours,
    number_cell,
    read_grid,
    region_drawing,
)

MAX_BLOCK = 4


@dataclass(frozen=True)
class Fillmat:
    """A Fillmat puzzle: size and clues (cell -> size, None for ``?``)."""

    rows: int
    cols: int
    clues: dict[Pos, int | None]

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        def mark(r: int, c: int) -> str:
            if (r, c) not in self.clues:
                return "."
            value = self.clues[r, c]
            return "?" if value is None else str(value)

        return ["".join(mark(r, c) for c in range(self.cols)) for r in range(self.rows)]


def read(text: str) -> Fillmat:
    """Read a Fillmat board: one character per cell (``1``-``4``, ``?``, ``.``), or the seed's tokens.

    Raises `PuzzleError` at the place for unknown characters, ragged rows and
    clues whose block cannot fit in the grid.
    """
    grid = read_grid(text)
    rows, cols = len(grid), len(grid[0])
    clues: dict[Pos, int | None] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 1, MAX_BLOCK)
            if value is False:
                continue
            if value is not None and value > max(rows, cols):
                raise NoSolution(f"a block of {value} cells does not fit in a {rows}x{cols} grid", token.line, token.col)
            clues[r, c] = value
    return Fillmat(rows, cols, clues)


def _a(cell: Pos) -> str:
    return f"a_{cell[0]}_{cell[1]}"


def _b(cell: Pos) -> str:
    return helper(f"b_{cell[0]}_{cell[1]}")


def _axes(cell: Pos, rows: int, cols: int) -> list[tuple[Pos, Pos]]:
    """The opposite neighbour pairs (vertical, horizontal) of a cell that lie fully inside the grid."""
    r, c = cell
    pairs = []
    if 0 < r < rows - 1:
        pairs.append(((r - 1, c), (r + 1, c)))
    if 0 < c < cols - 1:
        pairs.append(((r, c - 1), (r, c + 1)))
    return pairs


def _role_rules(cell: Pos, rows: int, cols: int) -> list[str]:
    """The neighbour conditions of each role of `cell` (seed 004), one ``=>`` per role."""
    near = neighbours(*cell, rows, cols)
    b = _b(cell)

    def others_not(size: int, *skip: Pos) -> list[str]:
        return [f"(!= {_a(n)} {size})" for n in near if n not in skip]

    rules = [f"(=> (= {b} 1) {all_true(others_not(1))})"]
    rules.append(
        f"(=> (= {b} 2) {any_true([all_true([f'(= {_a(n)} 2)', *others_not(2, n)]) for n in near])})"
    )
    for end, inner, size in ((3, 5, 3), (4, 6, 4)):
        rules.append(
            f"(=> (= {b} {end}) {any_true([all_true([f'(= {_b(n)} {inner})', *others_not(size, n)]) for n in near])})"
        )
    axes = _axes(cell, rows, cols)
    if axes:
        # A middle of three has ends on both sides; a middle of four has an end on one side and the
        # other middle on the other side.
        rules.append(
            f"(=> (= {b} 5) "
            + any_true([all_true([f"(= {_b(p)} 3)", f"(= {_b(q)} 3)", *others_not(3, p, q)]) for p, q in axes])
            + ")"
        )
        rules.append(
            f"(=> (= {b} 6) "
            + any_true(
                [
                    all_true([f"(= {_b(x)} 4)", f"(= {_b(y)} 6)", *others_not(4, p, q)])
                    for p, q in axes
                    for x, y in ((p, q), (q, p))
                ]
            )
            + ")"
        )
    return rules


def _clue_pairs(puzzle: Fillmat) -> list[tuple[Pos, Pos, list[Pos]]]:
    """Clue pairs that one block could hold: same row or column, less than 4 apart, sizes compatible."""
    pairs = []
    for (r, c), value in puzzle.clues.items():
        for dr, dc in ((0, 1), (1, 0)):
            for d in range(1, MAX_BLOCK):
                other = (r + dr * d, c + dc * d)
                if other not in puzzle.clues:
                    continue
                sizes = {v for v in (value, puzzle.clues[other]) if v is not None}
                if len(sizes) <= 1 and all(size > d for size in sizes):
                    line = [(r + dr * k, c + dc * k) for k in range(d + 1)]
                    pairs.append(((r, c), other, line))
    return pairs


def puzzle_variables(puzzle: Fillmat) -> list[str]:
    """The variables that determine a solution: the block size ``a_R_C`` of every cell."""
    return [_a((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Fillmat) -> str:
    """The Sugar CSP text of `puzzle` (cell sizes and roles, the seed 004 encoding)."""
    rows, cols = puzzle.rows, puzzle.cols
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    out = CspText(
        f"Fillmat puzzle, {rows} rows x {cols} columns",
        puzzle.text_lines(),
        [
            "a_R_C: the size (1..4) of the block holding cell (R, C)",
            "_b_R_C: its role (a hidden helper): 1, 2 = that size; 3, 4 = an end of a block of 3, 4; 5, 6 = inside a block of 3, 4",
        ],
    )
    out.block("Block sizes and roles (a middle role needs two opposite neighbours in the grid)")
    for cell in cells:
        out.add(f"(int {_a(cell)} 1 {MAX_BLOCK})")
        roles = [1, 2, 3, 4] + ([5, 6] if _axes(cell, rows, cols) else [])
        out.add(int_decl(_b(cell), roles))
    out.block("The role gives the size: roles 5 and 6 are cells of blocks of 3 and 4")
    out.add("(relation role_size 2 (supports (1 1) (2 2) (3 3) (4 4) (5 3) (6 4)))")
    out.extend(f"(role_size {_b(cell)} {_a(cell)})" for cell in cells)
    out.block(
        "Rule: straight blocks of 1..4 cells, equal sizes never side by side",
        "1: no neighbour of size 1; 2: exactly one neighbour of size 2;",
        "3/4 (end): one neighbour is the inner cell (5/6), no other neighbour of that size;",
        "5 (inner of 3): ends on two opposite sides; 6 (inner of 4): an end and the other inner cell.",
    )
    for cell in cells:
        out.extend(_role_rules(cell, rows, cols))
    out.block(
        "Rule: no four block borders meet at a point (adjacent equal sizes = same block)",
    )
    for r in range(rows - 1):
        for c in range(cols - 1):
            tl, tr, bl, br = _a((r, c)), _a((r, c + 1)), _a((r + 1, c)), _a((r + 1, c + 1))
            out.add(f"(or (= {tl} {bl}) (= {tr} {br}) (= {tl} {tr}) (= {bl} {br}))")
    out.block("Rule: a clue is the size of its block ('?' clues only count as clues)")
    for cell, value in puzzle.clues.items():
        if value is not None:
            out.add(f"(= {_a(cell)} {value})")
    pairs = _clue_pairs(puzzle)
    if pairs:
        out.block("Rule: a block holds at most one clue (a chain of equal sizes would join two clues)")
        for first, second, line in pairs:
            out.comment(f"clues at {first} and {second}")
            out.add(any_true([f"(!= {_a(x)} {_a(y)})" for x, y in zip(line, line[1:])]))
    return out.text()


def decode(puzzle: Fillmat, values: Values) -> list[list[int]]:
    """The block size of every cell. Raises `PuzzleError` for a missing or out-of-range value."""
    grid = []
    for r in range(puzzle.rows):
        row = []
        for c in range(puzzle.cols):
            value = need(values, _a((r, c)))
            if not 1 <= value <= MAX_BLOCK:
                raise PuzzleError(f"{_a((r, c))} = {value} is not a block size (1..{MAX_BLOCK})")
            row.append(value)
        grid.append(row)
    return grid


def blocks(sizes: list[list[int]]) -> list[list[int]]:
    """Number the blocks of a size grid: adjacent cells of equal size share a block (1, 2, ... row-major)."""
    rows, cols = len(sizes), len(sizes[0])
    labels = [[0] * cols for _ in range(rows)]
    count = 0
    for r in range(rows):
        for c in range(cols):
            if labels[r][c]:
                continue
            count += 1
            stack = [(r, c)]
            labels[r][c] = count
            while stack:
                cr, cc = stack.pop()
                for nr, nc in neighbours(cr, cc, rows, cols):
                    if not labels[nr][nc] and sizes[nr][nc] == sizes[cr][cc]:
                        labels[nr][nc] = count
                        stack.append((nr, nc))
    return labels


def check(puzzle: Fillmat, sizes: list[list[int]]) -> list[Violation]:
    """The rules the size grid breaks, from the rules: straight blocks of 1..4 cells whose size is their
    number (adjacent cells of equal size are one block, so equal blocks never touch), no point where
    four block borders meet, a clue is its block's size, and a block holds at most one clue."""
    found = []
    labels = blocks(sizes)
    members: dict[int, list[Pos]] = {}
    for r, row in enumerate(labels):
        for c, label in enumerate(row):
            members.setdefault(label, []).append((r, c))
    for cells in members.values():
        size = sizes[cells[0][0]][cells[0][1]]
        straight = len({r for r, _ in cells}) == 1 or len({c for _, c in cells}) == 1
        if len(cells) != size or not straight:
            found.append(Violation(
                "blocks are straight lines of as many cells as their size and blocks of equal size never touch, "
                f"and here {len(cells)} cell(s) of size {size} form one block" + ("" if straight else " (not in a line)"),
                f"the block at {cell_name(*cells[0])}"))
        clues = [cell for cell in cells if cell in puzzle.clues]
        if len(clues) > 1:
            found.append(Violation(f"a block holds at most one clue, and this one holds {len(clues)}",
                                   f"the block at {cell_name(*cells[0])}"))
    for r in range(puzzle.rows - 1):
        for c in range(puzzle.cols - 1):
            tl, tr, bl, br = labels[r][c], labels[r][c + 1], labels[r + 1][c], labels[r + 1][c + 1]
            if tl != tr and bl != br and tl != bl and tr != br:
                found.append(Violation("four block borders never meet at a point, and they meet at the "
                                       "bottom-right corner of this cell", cell_name(r, c)))
    for (r, c), value in sorted(puzzle.clues.items()):
        if value is not None and sizes[r][c] != value:
            found.append(Violation(f"the clue {value} is the size of its block, and the block has size {sizes[r][c]}",
                                   cell_name(r, c)))
    return found


def render(puzzle: Fillmat, solution: list[list[int]], fmt: str) -> str:
    """The blocks as ``drawing`` (borders and sizes), ``answer`` (one digit per cell) or ``svg``."""
    check_format(fmt)
    if fmt == "answer":
        return "".join("".join(map(str, row)) + "\n" for row in solution)
    labels = blocks(solution)
    if fmt == "drawing":
        return region_drawing(labels, lambda r, c: f" {solution[r][c]} ")
    svg = Svg(puzzle.rows, puzzle.cols)
    size_colour = {n: PALETTE[n - 1] for n in range(1, MAX_BLOCK + 1)}
    svg.regions(labels, {labels[r][c]: size_colour[solution[r][c]] for r in range(puzzle.rows) for c in range(puzzle.cols)})
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            if (r, c) in puzzle.clues:
                value = puzzle.clues[r, c]
                svg.text(r, c, "?" if value is None else str(value))
    return svg.document()


GENRE = register(
    Genre(
        name="fillmat",
        aliases=("firumatto",),
        summary="split the grid into straight blocks of 1 to 4 cells, equal sizes never side by side",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
