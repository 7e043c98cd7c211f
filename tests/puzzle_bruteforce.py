"""Brute-force solution counts of small puzzle boards, independent of the SAT models.

Each function enumerates candidate answers by plain backtracking over the board (pruning only
with the genre's own rules, never with anything from the generators' CSP) and keeps those that
the genre's rule checker (`Genre.check`, written from the rules) accepts. Used to cross-check
`csp2sat --count` on the boards in data/ with several solutions. Exponential: small boards only.
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable

Pos = tuple[int, int]


def _grid_neighbours(cell: Pos, rows: int, cols: int) -> list[Pos]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)) if 0 <= r + dr < rows and 0 <= c + dc < cols]


def sudoku(puzzle) -> list[list[list[int]]]:
    """Every filled grid: the empty cell with the fewest numbers that fit first (its row, column and block
    hold each number once), until every cell is filled."""
    n = puzzle.size
    houses: dict[Pos, list[list[Pos]]] = {}
    for _where, cells in puzzle.houses():
        for cell in cells:
            houses.setdefault(cell, []).append(cells)
    grid = [[0] * n for _ in range(n)]
    for (r, c), v in puzzle.givens.items():
        grid[r][c] = v
    found = []

    def fits(cell: Pos, v: int) -> bool:
        return all(grid[a][b] != v for house in houses[cell] for a, b in house)

    def place(empty: set[Pos]) -> None:
        if not empty:
            found.append([row[:] for row in grid])
            return
        options = {cell: [v for v in range(1, n + 1) if fits(cell, v)] for cell in empty}
        (r, c) = min(empty, key=lambda cell: (len(options[cell]), cell))
        for v in options[r, c]:
            grid[r][c] = v
            place(empty - {(r, c)})
            grid[r][c] = 0

    place({(r, c) for r in range(n) for c in range(n) if (r, c) not in puzzle.givens})
    return found


def akari(puzzle) -> list[list[str]]:
    """Every set of lights: white cells in reading order, a light only where no placed light sees it
    and no number next to it has all its lights already; a number must have them all once its last
    neighbour is decided."""
    rows, cols = puzzle.rows, puzzle.cols
    whites = [(r, c) for r in range(rows) for c in range(cols) if puzzle.white(r, c)]

    def sight(cell: Pos) -> set[Pos]:
        seen = set()
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            r, c = cell[0] + dr, cell[1] + dc
            while 0 <= r < rows and 0 <= c < cols and puzzle.white(r, c):
                seen.add((r, c))
                r, c = r + dr, c + dc
        return seen

    sees = {cell: sight(cell) for cell in whites}
    numbered = {cell: [b for b in _grid_neighbours(cell, rows, cols) if puzzle.black.get(b) is not None]
                for cell in whites}
    room = {b: v for b, v in puzzle.black.items() if v is not None}  # lights a number still takes
    # the numbers whose last white neighbour (in reading order) is whites[i]: settled after it
    settled: dict[int, list[Pos]] = {}
    for b in room:
        near = [i for i, cell in enumerate(whites) if b in numbered[cell]]
        settled.setdefault(max(near, default=-1), []).append(b)
    lights: set[Pos] = set()
    found = []

    def place(i: int) -> None:
        if any(room[b] for b in settled.get(i - 1, [])):
            return
        if i == len(whites):
            found.append(["".join("*" if (r, c) in lights else _akari_mark(puzzle, (r, c)) for c in range(cols))
                          for r in range(rows)])
            return
        place(i + 1)
        cell = whites[i]
        if not (sees[cell] & lights) and all(room[b] > 0 for b in numbered[cell]):
            lights.add(cell)
            for b in numbered[cell]:
                room[b] -= 1
            place(i + 1)
            for b in numbered[cell]:
                room[b] += 1
            lights.discard(cell)

    place(0)
    return found


def _akari_mark(puzzle, cell: Pos) -> str:
    if cell not in puzzle.black:
        return "."
    value = puzzle.black[cell]
    return "#" if value is None else str(value)


def apart_shadings(rows: int, cols: int) -> list[list[str]]:
    """Every shading of a grid whose shaded cells never share an edge (cells in reading order)."""
    found = []

    def shade(i: int, shaded: set[Pos]) -> None:
        if i == rows * cols:
            found.append(["".join("#" if (r, c) in shaded else "." for c in range(cols)) for r in range(rows)])
            return
        shade(i + 1, shaded)
        cell = divmod(i, cols)
        if not any(n in shaded for n in _grid_neighbours(cell, rows, cols)):
            shade(i + 1, shaded | {cell})

    shade(0, set())
    return found


def stars(puzzle) -> list[list[str]]:
    """Every placement of K stars per row with at most K per column (rows in order)."""
    n, k = len(puzzle.regions), puzzle.stars
    found = []
    per_row = list(combinations(range(n), k))

    def place(r: int, chosen: list[tuple[int, ...]], used: list[int]) -> None:
        if r == n:
            found.append(["".join("*" if c in cols else "." for c in range(n)) for cols in chosen])
            return
        for cols in per_row:
            if all(used[c] < k for c in cols):
                for c in cols:
                    used[c] += 1
                place(r + 1, chosen + [cols], used)
                for c in cols:
                    used[c] -= 1

    place(0, [], [0] * n)
    return found


def norinori(puzzle) -> list[list[str]]:
    """Every shading with two cells per region: the pairs of each region's cells, region by region,
    skipping a pair that would give a shaded cell two shaded neighbours."""
    rows, cols = puzzle.rows, puzzle.cols
    regions: dict[object, list[Pos]] = {}
    for r in range(rows):
        for c in range(cols):
            regions.setdefault(puzzle.regions[r][c], []).append((r, c))
    groups = list(regions.values())
    shaded: set[Pos] = set()
    found = []

    def crowded() -> bool:
        return any(sum(n in shaded for n in _grid_neighbours(cell, rows, cols)) > 1 for cell in shaded)

    def place(i: int) -> None:
        if i == len(groups):
            found.append(["".join("#" if (r, c) in shaded else "." for c in range(cols)) for r in range(rows)])
            return
        for pair in combinations(groups[i], 2):
            shaded.update(pair)
            if not crowded():
                place(i + 1)
            shaded.difference_update(pair)

    place(0)
    return found


def numberlink(puzzle) -> list[set[tuple[Pos, Pos]]]:
    """Every set of lines: for each pair in turn, every simple path between its two cells through
    cells no other line or number uses."""
    rows, cols = puzzle.rows, puzzle.cols
    ends: dict[int, list[Pos]] = {}
    for cell, value in sorted(puzzle.numbers.items()):
        ends.setdefault(value, []).append(cell)
    pairs = list(ends.values())
    used = set(puzzle.numbers)
    found = []

    def paths(start: Pos, goal: Pos) -> list[list[Pos]]:
        out, path = [], [start]

        def walk(cell: Pos) -> None:
            for n in _grid_neighbours(cell, rows, cols):
                if n == goal:
                    out.append(path + [n])
                elif n not in used:
                    used.add(n)
                    path.append(n)
                    walk(n)
                    path.pop()
                    used.discard(n)

        walk(start)
        return out

    def place(i: int, segments: list[tuple[Pos, Pos]]) -> None:
        if i == len(pairs):
            found.append(set(segments))
            return
        for path in paths(*pairs[i]):
            inner = path[1:-1]
            used.update(inner)
            place(i + 1, segments + [tuple(sorted(p)) for p in zip(path, path[1:])])
            used.difference_update(inner)

    place(0, [])
    return found


def kakuro(puzzle) -> list[list[list[int | None]]]:
    """Every filling: the most constrained empty cell first, digits 1-9, different within each run, and a run's
    sum still reachable by the digits left to place."""
    rows, cols = puzzle.rows, puzzle.cols
    runs_of: dict[Pos, list[tuple[list[Pos], int]]] = {}
    for run, total in puzzle.runs_with_sums():
        for cell in run:
            runs_of.setdefault(cell, []).append((run, total))
    cells = [(r, c) for r in range(rows) for c in range(cols) if puzzle.white(r, c)]
    digits: list[list[int | None]] = [[None] * cols for _ in range(rows)]
    found = []

    def fits(cell: Pos, d: int) -> bool:
        for run, total in runs_of.get(cell, []):
            got = [digits[r][c] for r, c in run if digits[r][c] is not None]
            if d in got:
                return False
            if total:  # the cells still empty can add at least 1+2+... and at most 9+8+...
                left = len(run) - len(got) - 1
                low, high = sum(range(1, left + 1)), sum(range(10 - left, 10))
                if not low <= total - sum(got) - d <= high:
                    return False
        return True

    def place(empty: set[Pos]) -> None:
        if not empty:
            found.append([row[:] for row in digits])
            return
        # the empty cell with the fewest digits that fit next (the count is the same in any order)
        options = {cell: [d for d in range(1, 10) if fits(cell, d)] for cell in empty}
        (r, c) = min(empty, key=lambda cell: (len(options[cell]), cell))
        for d in options[r, c]:
            digits[r][c] = d
            place(empty - {(r, c)})
            digits[r][c] = None

    place(set(cells))
    return found


def yajilin(puzzle) -> list[set[tuple[Pos, Pos]]]:
    """Every loop: for each set of shaded free cells that never touch, every cycle through all the
    other free cells (a Hamiltonian cycle, by depth-first search from the first of them)."""
    rows, cols = puzzle.rows, puzzle.cols
    free = [(r, c) for r in range(rows) for c in range(cols) if puzzle.free((r, c))]
    found = []

    def cycles(cells: set[Pos]) -> list[set[tuple[Pos, Pos]]]:
        if len(cells) < 4 or any(sum(n in cells for n in _grid_neighbours(x, rows, cols)) < 2 for x in cells):
            return []
        start = min(cells)
        out, path, seen = [], [start], {start}

        def walk(cell: Pos) -> None:
            for n in _grid_neighbours(cell, rows, cols):
                if n == start and len(path) == len(cells):
                    loop = {tuple(sorted(p)) for p in zip(path, path[1:] + [start])}
                    if loop not in out:  # each cycle is found in both directions
                        out.append(loop)
                elif n in cells and n not in seen:
                    seen.add(n)
                    path.append(n)
                    walk(n)
                    path.pop()
                    seen.discard(n)

        walk(start)
        return out

    def shade(i: int, shaded: set[Pos]) -> None:
        if i == len(free):
            found.extend(cycles(set(free) - shaded))
            return
        shade(i + 1, shaded)
        cell = free[i]
        if not any(n in shaded for n in _grid_neighbours(cell, rows, cols)):
            shade(i + 1, shaded | {cell})

    shade(0, set())
    return found


def accepted(check: Callable, puzzle, candidates: list) -> list:
    """The candidates the genre's rule checker accepts."""
    return [answer for answer in candidates if check(puzzle, answer) == []]
