"""LITS genre: puzzle text -> Sugar CSP, and a solution log -> the shaded tetrominoes.

Rules: shade one tetromino (L, I, T or S; mirror images count as the same
shape) in every region so that two tetrominoes of the same shape never share
an edge, no 2x2 square is all shaded, and all shaded cells are connected.

Encoding: ``s_R_C`` (0/1) says cell (R, C) is shaded, the printed answer. Each
region has a hidden choice ``_p_K`` among the tetromino placements inside it
(``s`` of a cell is 1 exactly when the choice covers it) and a hidden shape
``_k_K`` (1 L, 2 I, 3 T, 4 S) that follows from the choice; shaded neighbours in
different regions have different shapes. Connectivity is that of the regions
(each tetromino is connected): regions whose tetrominoes touch (``_b_A_B``) are
joined, every region but the first picks a touching predecessor (``_a_K_J``),
and `boardkit.step_numbers` (``_z``, ``_n``) rules out circles of them.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    any_of,
    any_true,
    connected,
    decode_marks,
    int_decl,
    read_regions,
    region_cells,
    region_lines,
    render_shading,
    split_violations,
    predecessor_choice,
    step_numbers,
)

SHADED, UNSHADED = "#", "."
SHAPES = "LITS"
# One fixed orientation of each shape; the others are its rotations and reflections.
_BASE = {"L": ((0, 0), (1, 0), (2, 0), (2, 1)), "I": ((0, 0), (1, 0), (2, 0), (3, 0)),
         "T": ((0, 0), (0, 1), (0, 2), (1, 1)), "S": ((0, 1), (0, 2), (1, 0), (1, 1))}


def _normal(cells: tuple[Pos, ...]) -> tuple[Pos, ...]:
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    return tuple(sorted((r - top, c - left) for r, c in cells))


@functools.cache  # read() asks once per region: 2,500 regions of a 200x200 board recomputed them 10,000 times
def orientations(shape: str) -> tuple[tuple[Pos, ...], ...]:
    """Every placement-at-the-origin of a shape (rotations and reflections, without repeats)."""
    out: list[tuple[Pos, ...]] = []
    cells = _BASE[shape]
    for _ in range(2):
        for _ in range(4):
            cells = _normal(tuple((c, -r) for r, c in cells))
            if cells not in out:
                out.append(cells)
        cells = tuple((r, -c) for r, c in cells)
    return tuple(out)


def shape_of(cells: list[Pos]) -> str | None:
    """The LITS letter of four cells, or None when they are not an L, I, T or S tetromino."""
    normal = _normal(tuple(cells))
    return next((s for s in SHAPES if normal in orientations(s)), None)


@dataclass(frozen=True)
class Lits:
    """A LITS board: size, regions, and for each region its tetromino placements (shape, cells)."""

    rows: int
    cols: int
    regions: tuple[tuple[int, ...], ...]
    options: tuple[tuple[tuple[str, tuple[Pos, ...]], ...], ...]

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        return region_lines(self.regions)


def read(text: str) -> Lits:
    """Read a LITS board: a grid of region names (tokens or characters).

    Raises `PuzzleError` for ragged rows and for a region in which no L, I, T or S fits
    (at the region's first cell).
    """
    labels, grid = read_regions(text)
    rows, cols = len(labels), len(labels[0])
    options = []
    forms = [(shape, form) for shape in SHAPES for form in orientations(shape)]
    for k, cells in enumerate(region_cells(labels)):
        inside = set(cells)
        found = []
        for shape, form in forms:
            # only shifts that put the form's first cell on a cell of the region, in reading order
            (fr, fc) = form[0]
            rest = form[1:]
            for r0, c0 in sorted({(r - fr, c - fc) for r, c in cells}):
                if all((r0 + r, c0 + c) in inside for r, c in rest):
                    found.append((shape, tuple((r0 + r, c0 + c) for r, c in form)))
        if not found:
            token = grid[cells[0][0]][cells[0][1]]
            raise NoSolution(f"no L, I, T or S tetromino fits in region {k}", token.line, token.col)
        options.append(tuple(found))
    return Lits(rows, cols, tuple(tuple(row) for row in labels), tuple(options))


def _s(cell: Pos) -> str:
    return f"s_{cell[0]}_{cell[1]}"


def puzzle_variables(puzzle: Lits) -> list[str]:
    """The printed variables: ``s_R_C`` of every cell."""
    return [_s((r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Lits) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    out = CspText(f"LITS puzzle, {rows} rows x {cols} columns", puzzle.text_lines(),
                  ["s_R_C: 1 if cell (R, C) is shaded",
                   "_p_K: the tetromino placement of region K; _k_K its shape (1 L, 2 I, 3 T, 4 S)"])
    out.block("Shading: one 0/1 variable per cell")
    out.extend(f"(int {name} 0 1)" for name in puzzle_variables(puzzle))
    out.block("Placements: every region shades one tetromino; a cell is shaded iff its region's placement covers it")
    choice = {k: helper(f"p_{k}") for k in range(len(puzzle.options))}
    shape = {k: helper(f"k_{k}") for k in range(len(puzzle.options))}
    for k, options in enumerate(puzzle.options):
        out.add(f"(int {choice[k]} 1 {len(options)})")
        kinds = sorted({SHAPES.index(s) + 1 for s, _ in options})
        out.add(int_decl(shape[k], kinds))
    for k, (options, cells) in enumerate(zip(puzzle.options, region_cells(puzzle.regions))):
        covers: dict[Pos, list[int]] = {}
        for n, (_, placed) in enumerate(options, 1):
            for cell in placed:
                covers.setdefault(cell, []).append(n)
        for cell in cells:
            covering = covers.get(cell, [])
            out.add(f"(iff (= {_s(cell)} 1) {any_of(choice[k], covering)})" if covering else f"(= {_s(cell)} 0)")
        for letter in sorted({s for s, _ in options}):
            numbers = [n for n, (s, _) in enumerate(options, 1) if s == letter]
            out.add(f"(iff (= {shape[k]} {SHAPES.index(letter) + 1}) {any_of(choice[k], numbers)})")
    out.block("Rule: tetrominoes of the same shape never share an edge")
    for r in range(rows):
        for c in range(cols):
            for other in ((r, c + 1), (r + 1, c)):
                if other[0] >= rows or other[1] >= cols:
                    continue
                a, b = puzzle.regions[r][c], puzzle.regions[other[0]][other[1]]
                if a != b:
                    out.add(f"(=> (and (= {_s((r, c))} 1) (= {_s(other)} 1)) (!= {shape[a]} {shape[b]}))")
    out.block("Rule: no 2x2 square is all shaded")
    for r in range(rows - 1):
        for c in range(cols - 1):
            square = ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))
            out.add(f"(not (and {' '.join(f'(= {_s(cell)} 1)' for cell in square)}))")
    _connected_regions(out, puzzle)
    return out.text()


def _connected_regions(out: CspText, puzzle: Lits) -> None:
    """Write "the shaded cells are connected" as "the regions are": every region's tetromino is connected,
    so the shaded cells are iff the graph of regions joined where shaded cells touch across a border is.
    On this graph of a few dozen nodes instead of every cell the numbering is far smaller."""
    rows, cols, labels = puzzle.rows, puzzle.cols, puzzle.regions
    touching: dict[tuple[int, int], list[tuple[Pos, Pos]]] = {}
    for r in range(rows):
        for c in range(cols):
            for other in ((r, c + 1), (r + 1, c)):
                if other[0] < rows and other[1] < cols and labels[r][c] != labels[other[0]][other[1]]:
                    a, b = sorted((labels[r][c], labels[other[0]][other[1]]))
                    touching.setdefault((a, b), []).append(((r, c), other))
    firsts = [cells[0] for cells in region_cells(labels)]
    out.block(
        "Rule: the shaded cells are connected",
        "each region's tetromino is, so the regions must be, joined where shaded cells touch across a border",
        "(_b_A_B: the tetrominoes of regions A and B touch); region 0 is the root, any other region K has a",
        "touching region J before it (_a_K_J) and takes its outgoing number (numbers named after the",
        "region's first cell):",
    )
    z, outgoing = step_numbers(out, firsts, len(firsts), grid=False)
    joined = {}
    for (a, b), pairs in sorted(touching.items()):
        joined[a, b] = joined[b, a] = helper(f"b_{a}_{b}")
        out.add(f"(bool {joined[a, b]})")
        out.add(f"(iff {joined[a, b]} {any_true([f'(and (= {_s(u)} 1) (= {_s(v)} 1))' for u, v in pairs])})")
    for k in range(1, len(firsts)):
        choices = []
        for j in range(len(firsts)):
            if (k, j) in joined:
                choices.append(predecessor_choice(out, f"a_{k}_{j}", joined[k, j], "step",
                                                  z[firsts[k]], outgoing[firsts[j]]))
        out.add(any_true(choices))


def decode(puzzle: Lits, values: Values) -> list[str]:
    """The shading, one string per row (``#`` shaded, ``.`` unshaded)."""
    return decode_marks(values, _s, puzzle.rows, puzzle.cols, SHADED, UNSHADED)


def check(puzzle: Lits, solution: list[str]) -> list[Violation]:
    """The rules the shading breaks: one L/I/T/S per region, equal shapes apart, no 2x2, connected."""
    found = []
    shapes: dict[int, str | None] = {}
    for k, cells in enumerate(region_cells(puzzle.regions)):
        shaded = [cell for cell in cells if solution[cell[0]][cell[1]] == SHADED]
        shapes[k] = shape_of(shaded) if len(shaded) == 4 and len(connected(shaded)) == 1 else None
        if shapes[k] is None:
            found.append(Violation(f"a region shades one L, I, T or S tetromino, and this one shades "
                                   f"{len(shaded)} cells that are not one", f"region {k}"))
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            for rr, cc in ((r, c + 1), (r + 1, c)):
                if rr >= puzzle.rows or cc >= puzzle.cols or solution[r][c] != SHADED or solution[rr][cc] != SHADED:
                    continue
                a, b = puzzle.regions[r][c], puzzle.regions[rr][cc]
                if a != b and shapes[a] is not None and shapes[a] == shapes[b]:
                    found.append(Violation(f"tetrominoes of the same shape never share an edge, and regions {a} "
                                           f"and {b} both hold an {shapes[a]}", cell_name(r, c)))
    for r in range(puzzle.rows - 1):
        for c in range(puzzle.cols - 1):
            if all(solution[rr][cc] == SHADED for rr in (r, r + 1) for cc in (c, c + 1)):
                found.append(Violation("no 2x2 square is all shaded (this is its top-left cell)",
                                       cell_name(r, c)))
    found += split_violations(solution, lambda ch: ch == SHADED, "the shaded cells")
    return found


def render(puzzle: Lits, solution: list[str], fmt: str) -> str:
    """The shading as ``drawing`` (regions framed, ``###`` shaded), ``answer`` (``#``/``.``) or ``svg``."""
    return render_shading(puzzle.regions, solution, fmt, {})


GENRE = register(
    Genre(
        name="lits",
        aliases=(),
        summary="shade an L, I, T or S in every region: equal shapes apart, no 2x2, all connected",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
