"""Nurikabe (ぬりかべ) genre: puzzle text -> Sugar CSP, and a solution log -> the shaded board.

Rules: shade cells so that the shaded cells (the wall) are connected and hold
no 2x2 square, each unshaded region (island) holds exactly one clue, and the
clue is the island's size (``?``: any size); every unshaded cell is in a
clue's island.

Encoding: ``g_R_C`` is the island of cell (R, C): 0 for a wall cell, else the
number of its clue (clues numbered in row-major order; a clue can only reach
cells within its size in steps). Unshaded neighbours share the island number,
so an island can hold only one clue. Islands stay connected to their clue by a
distance ``_d_R_C`` that decreases towards the clue, and the wall is connected
by `boardkit.connected_rule` (every wall cell but the first has a wall
neighbour as parent, ``_a``, and a turn parity ``_k`` rules out circuits of
parents). Sizes are sums of ``(if ...)`` terms.
The island numbers ``g`` follow from the shading and are the printed answer;
the distances and the wall numbering do not, and are hidden helpers (``_``).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    CspText,
    connected_rule,
    any_true,
    Pos,
    Svg,
    cell_width,
    check_format,
    connected,
    int_decl,
    need_in,
    neighbours,
    number_cell,
    read_grid,
    region_drawing,
)

WALL, ISLAND = "#", "."


@dataclass(frozen=True)
class Nurikabe:
    """A Nurikabe puzzle: size, clues (cell -> size, None for ``?``) and the cells each clue can reach."""

    rows: int
    cols: int
    clues: dict[Pos, int | None]
    reach: dict[Pos, tuple[int, ...]]  # cell -> ids (1-based, row-major) of the clues that can reach it

    @property
    def clue_cells(self) -> list[Pos]:
        """Clue cells in id order."""
        return list(self.clues)

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format."""
        def mark(cell: Pos) -> str:
            if cell not in self.clues:
                return "-"
            value = self.clues[cell]
            return "?" if value is None else str(value)

        return [" ".join(mark((r, c)) for c in range(self.cols)) for r in range(self.rows)]

    def max_walls(self) -> int:
        """An upper bound of the number of wall cells (each ``?`` island has at least one cell)."""
        return self.rows * self.cols - sum(v if v is not None else 1 for v in self.clues.values())


def read(text: str) -> Nurikabe:
    """Read a Nurikabe board: tokens ``-``/``.``/``0``/``-1`` (empty), a positive size, or ``?``.

    Raises `PuzzleError` at the place for unknown tokens, ragged rows, adjacent
    clues (one island would hold both) and clues that need more cells than the board has.
    """
    grid = read_grid(text)
    rows, cols = len(grid), len(grid[0])
    clues: dict[Pos, int | None] = {}
    total = 0
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 1, rows * cols)
            if value is False:
                continue
            for other in neighbours(r, c, rows, cols):
                if other in clues:
                    raise NoSolution("adjacent clues would share one island", token.line, token.col)
            total += 1 if value is None else value
            if total > rows * cols:
                raise NoSolution(
                    f"the clues so far need {total} island cells; the board has {rows * cols}", token.line, token.col
                )
            clues[r, c] = value
    if not clues:
        raise PuzzleError("the board has no clue", grid[0][0].line, grid[0][0].col)
    reach: dict[Pos, tuple[int, ...]] = {}
    for r in range(rows):
        for c in range(cols):
            if (r, c) in clues:
                reach[r, c] = (list(clues).index((r, c)) + 1,)
                continue
            reach[r, c] = tuple(
                ident
                for ident, ((cr, cc), value) in enumerate(clues.items(), 1)
                if value is None or abs(cr - r) + abs(cc - c) < value
            )
    return Nurikabe(rows, cols, clues, reach)


def _name(prefix: str, cell: Pos) -> str:
    # Only the island numbers g are printed; every other variable is a hidden helper.
    name = f"{prefix}_{cell[0]}_{cell[1]}"
    return name if prefix == "g" else helper(name)


def _distance_bounds(puzzle: Nurikabe, cell: Pos, values: dict[int, int | None]) -> tuple[int, int]:
    """The range of the distance of `cell` from its clue: at least the steps to the nearest reaching
    clue, at most the largest island size minus one (a ``?`` island takes what the others leave)."""
    free = puzzle.max_walls() + 1
    clue_cells = puzzle.clue_cells
    lo = min(abs(cell[0] - clue_cells[n - 1][0]) + abs(cell[1] - clue_cells[n - 1][1]) for n in puzzle.reach[cell])
    hi = max((free if values[n] is None else values[n]) - 1 for n in puzzle.reach[cell])
    return lo, max(lo, hi)


def puzzle_variables(puzzle: Nurikabe) -> list[str]:
    """The variables that determine a solution: the island number ``g_R_C`` of every cell.

    (The hidden distances ``_d`` and the wall's parents and turn parities are not determined
    by the shading; the printed variables are exactly these.)
    """
    return [_name("g", (r, c)) for r in range(puzzle.rows) for c in range(puzzle.cols)]


def generate(puzzle: Nurikabe) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    ids = {cell: n for n, cell in enumerate(puzzle.clue_cells, 1)}
    values = {n: puzzle.clues[cell] for cell, n in ids.items()}
    walls_max = puzzle.max_walls()
    g = {cell: _name("g", cell) for cell in cells}
    # Cells that may be a wall, and cells that may be an island cell without being a clue.
    wallable = [cell for cell in cells if cell not in ids] if walls_max > 0 else []
    islandable = [cell for cell in cells if cell not in ids and puzzle.reach[cell]]
    wall_set, island_set = set(wallable), set(islandable)
    out = CspText(
        f"Nurikabe puzzle, {rows} rows x {cols} columns",
        puzzle.text_lines(),
        [
            "g_R_C: 0 if cell (R, C) is shaded (wall), else the number of the clue whose island holds it",
            "clues: " + ", ".join(f"{n}=({r},{c})" for (r, c), n in ids.items()),
            "_d_R_C: distance of an island cell from its clue; _a, _k, _s: the wall's connection to its root",
        ],
    )
    out.block("Island numbers: a clue's island only reaches cells closer than its size")
    for cell in cells:
        domain = [0] if cell in wall_set else []
        domain += list(puzzle.reach[cell]) if cell in island_set or cell in ids else []
        out.add(int_decl(g[cell], domain) if domain else f"(int {g[cell]} 0 0)")
    out.block("Rule: unshaded neighbours belong to the same island (so an island holds one clue)")
    unshaded_ok = island_set | set(ids)
    for r, c in cells:
        for other in ((r, c + 1), (r + 1, c)):
            if (r, c) not in unshaded_ok or other not in unshaded_ok:
                continue
            if set(puzzle.reach[r, c]) & set(puzzle.reach[other]):
                out.add(f"(=> (and (!= {g[r, c]} 0) (!= {g[other]} 0)) (= {g[r, c]} {g[other]}))")
            else:
                out.add(f"(or (= {g[r, c]} 0) (= {g[other]} 0))")
    out.block(
        "Rule: every island cell is connected to its clue",
        "an unshaded cell that is not a clue has an unshaded neighbour nearer to the clue (clues are at 0)",
    )
    for cell in islandable:
        lo, hi = _distance_bounds(puzzle, cell, values)
        out.add(f"(int {_name('d', cell)} {lo} {hi})")
    for cell in islandable:
        nearer = []
        for other in neighbours(*cell, rows, cols):
            if other in ids:
                nearer = []
                break
            if other in island_set:
                nearer.append(f"(and (!= {g[other]} 0) (< {_name('d', other)} {_name('d', cell)}))")
        else:
            out.add(f"(=> (!= {g[cell]} 0) {any_true(nearer)})")
    out.block("Rule: a clue is the size of its island")
    for cell, n in ids.items():
        if values[n] is None:
            continue
        members = [g[cell] for cell in cells if n in puzzle.reach[cell] and cell in unshaded_ok]
        terms = " ".join(f"(if (= {name} {n}) 1 0)" for name in members)
        out.add(f"(= (+ {terms}) {values[n]})")
    out.block("Rule: no 2x2 square of wall cells")
    for r in range(rows - 1):
        for c in range(cols - 1):
            square = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
            if all(cell in wall_set for cell in square):
                out.add(any_true([f"(!= {g[cell]} 0)" for cell in square]))
    if wallable:
        connected_rule(out, wallable, lambda cell: f"(= {g[cell]} 0)", rows, cols, "the wall cells")
    else:
        out.block("No cell can be a wall: the clues fill the board")
    return out.text()


def decode(puzzle: Nurikabe, values: Values) -> list[str]:
    """The shading, one string per row (``#`` wall, ``.`` island).

    Raises `PuzzleError` for a missing value or one that names no clue.
    """
    count = len(puzzle.clues)
    return [
        "".join(WALL if need_in(values, _name("g", (r, c)), 0, count, "0 (wall) or a clue number") == 0 else ISLAND
                for c in range(puzzle.cols))
        for r in range(puzzle.rows)
    ]


def check(puzzle: Nurikabe, solution: list[str]) -> list[Violation]:
    """The rules the shading breaks: a connected wall without 2x2 squares, and islands of one clue
    each whose size is the clue (every unshaded cell in such an island)."""
    found = []
    walls = [(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols) if solution[r][c] == WALL]
    islands = [(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols) if solution[r][c] != WALL]
    for cell in sorted(set(walls) & set(puzzle.clues)):
        found.append(Violation("a clue cell is never shaded", cell_name(*cell)))
    wall_set = set(walls)
    for r in range(puzzle.rows - 1):
        for c in range(puzzle.cols - 1):
            if {(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)} <= wall_set:
                found.append(Violation("no 2x2 square of shaded cells (this is its top-left cell)", cell_name(r, c)))
    parts = connected(walls)
    if len(parts) > 1:
        first = min(parts[1])
        found.append(Violation(f"the shaded cells are connected, and they fall into {len(parts)} parts",
                               f"the part at {cell_name(*first)}"))
    for island in connected(islands):
        clues = sorted(cell for cell in island if cell in puzzle.clues)
        first = min(island)
        if not clues:
            found.append(Violation(f"every island holds a clue, and this one of {len(island)} cells holds none",
                                   f"the island at {cell_name(*first)}"))
        elif len(clues) > 1:
            found.append(Violation(f"an island holds one clue, and this one holds {len(clues)}",
                                   f"the island at {cell_name(*first)}"))
        elif puzzle.clues[clues[0]] is not None and puzzle.clues[clues[0]] != len(island):
            found.append(Violation(f"the clue {puzzle.clues[clues[0]]} is the size of its island, "
                                   f"and the island has {len(island)} cells", cell_name(*clues[0])))
    return found


def render(puzzle: Nurikabe, solution: list[str], fmt: str) -> str:
    """The shading as ``drawing`` (walls ``###``, island borders), ``answer`` (``#``/``.``) or ``svg``."""
    check_format(fmt)
    if fmt == "answer":
        return "".join(row + "\n" for row in solution)
    marks = {cell: "?" if v is None else str(v) for cell, v in puzzle.clues.items()}
    if fmt == "drawing":
        labels = [[WALL if ch == WALL else "island" for ch in row] for row in solution]
        width = cell_width(marks.values())
        return region_drawing(
            labels, lambda r, c: WALL * width if solution[r][c] == WALL else f"{marks.get((r, c), ''):^{width}}"
        )
    svg = Svg(puzzle.rows, puzzle.cols)
    svg.regions(solution, {WALL: "#333333"})
    for (r, c), mark in marks.items():
        svg.text(r, c, mark)
    return svg.document()


GENRE = register(
    Genre(
        name="nurikabe",
        aliases=("nurikabe-puzzle",),
        summary="shade a connected wall around islands whose sizes are the clues",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
