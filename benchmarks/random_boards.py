"""Random boards with a planted solution, for the genres whose family has sizes no data/ board has.

Why: data/ holds published boards, mostly 9x9 and 16x16 sudokus and slitherlinks of up to 30x25;
a user's board can be larger or emptier. A speed figure measured only on the published boards is a
figure tuned to them (25x25 sudokus took 10-40 s before the alldifferent rule of
docs/performance.md, where every 16x16 in data/ took under 0.5 s). Each board here is made from a
solution drawn at random, and a random share of its clues is kept, so every board has an answer but
most have several: they measure finding one answer, not `--unique`. The same seed writes the same
boards.

* ``sudoku``: an N x N grid (N = B², ``--size B``, default 3 4 5: 9x9, 16x16, 25x25), a shuffled
  pattern solution (bands, stacks, rows, columns and digits permuted), 28-50 % of the cells given.
* ``slitherlink``: an R x C grid (``--size N``: N x N, default 20 30 40), the loop round a random
  region grown cell by cell as a thin tree with a few thicker places (so the clues are mostly 1-3,
  as in published boards), 45-65 % of the clues kept.

usage: .venv/bin/python benchmarks/random_boards.py GENRE DIR [--size N ...] [--count K] [--seed S]
then:  .venv/bin/python benchmarks/puzzles_cpsat.py GENRE --from DIR
"""

from __future__ import annotations

import argparse
import random
from collections import deque
from pathlib import Path

Cell = tuple[int, int]
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def random_sudoku(box: int, rng: random.Random) -> str:
    """A sudoku of side box² whose solution is a shuffled pattern, 28-50 % of the cells given."""
    n = box * box

    def shuffled(k: int) -> list[int]:
        return rng.sample(range(k), k)

    rows = [band * box + r for band in shuffled(box) for r in shuffled(box)]
    cols = [stack * box + c for stack in shuffled(box) for c in shuffled(box)]
    digits = [d + 1 for d in shuffled(n)]
    # (box·(r mod box) + r div box + c) mod n is a valid grid; the permutations keep it valid
    solution = [[digits[(box * (r % box) + r // box + c) % n] for c in cols] for r in rows]
    if rng.random() < 0.5:
        solution = [list(col) for col in zip(*solution)]
    givens = rng.uniform(0.28, 0.50)
    return "".join(" ".join(str(v) if rng.random() < givens else "-" for v in row) + "\n" for row in solution)


def _checkerboard(inside: set[Cell], cell: Cell) -> bool:
    """Would adding `cell` make a 2x2 square with only diagonal neighbours inside (a loop touching itself)?"""
    def filled(p: Cell) -> bool:
        return p == cell or p in inside

    r, c = cell
    for a in (r - 1, r):
        for b in (c - 1, c):
            nw, ne, sw, se = filled((a, b)), filled((a, b + 1)), filled((a + 1, b)), filled((a + 1, b + 1))
            if nw == se and ne == sw and nw != ne:
                return True
    return False


def _no_hole(inside: set[Cell], cell: Cell, rows: int, cols: int) -> bool:
    """Is every cell outside the region, `cell` added, still connected to the board's edge?"""
    region = inside | {cell}
    seen = {(r, c) for r in range(rows) for c in range(cols)
            if (r in (0, rows - 1) or c in (0, cols - 1)) and (r, c) not in region}
    queue = deque(seen)
    while queue:
        r, c = queue.popleft()
        for dr, dc in STEPS:
            step = (r + dr, c + dc)
            if 0 <= step[0] < rows and 0 <= step[1] < cols and step not in region and step not in seen:
                seen.add(step)
                queue.append(step)
    return len(seen) == rows * cols - len(region)


def random_slitherlink(rows: int, cols: int, rng: random.Random) -> str:
    """A slitherlink whose loop goes round a random tree-like region, 45-65 % of the clues kept."""
    inside: set[Cell] = set()
    frontier: list[Cell] = []  # the cells outside next to the region, in the order they became so
    where: dict[Cell, int] = {}

    def add(cell: Cell) -> None:
        inside.add(cell)
        if cell in where:  # swap-remove from the frontier
            k, last = where.pop(cell), frontier.pop()
            if last != cell:
                frontier[k], where[last] = last, k
        for dr, dc in STEPS:
            step = (cell[0] + dr, cell[1] + dc)
            if 0 <= step[0] < rows and 0 <= step[1] < cols and step not in inside and step not in where:
                where[step] = len(frontier)
                frontier.append(step)

    add((rows // 2, cols // 2))
    target = rows * cols // 2
    for _ in range(40 * rows * cols):
        if len(inside) >= target or not frontier:
            break
        cell = rng.choice(frontier)
        r, c = cell
        touching = [(r + dr, c + dc) for dr, dc in STEPS if (r + dr, c + dc) in inside]
        if len(touching) > 1 and rng.random() > 0.08:
            continue  # mostly a thin tree: its outline turns often, so clues are mostly 1-3
        if _checkerboard(inside, cell):
            continue
        if len(touching) == 1:
            # a tip: only the cell it grows from, or cells beside that one, touch it, so it closes no ring
            p = touching[0]
            near = {(p[0] + dr, p[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
            corners = [(r + dr, c + dc) for dr in (-1, 1) for dc in (-1, 1) if (r + dr, c + dc) in inside]
            if all(x in near for x in corners):
                add(cell)
                continue
        if _no_hole(inside, cell, rows, cols):
            add(cell)
    keep = rng.uniform(0.45, 0.65)
    lines = []
    for r in range(rows):
        line = ""
        for c in range(cols):
            edges = sum(((r + dr, c + dc) in inside) != ((r, c) in inside) for dr, dc in STEPS)
            line += str(edges) if rng.random() < keep else "."
        lines.append(line + "\n")
    return "".join(lines)


DEFAULT_SIZES = {"sudoku": [3, 4, 5], "slitherlink": [20, 30, 40]}


def random_boards(genre: str, sizes: list[int], count: int, seed: int) -> list[tuple[str, str]]:
    """`count` (name, board text) pairs per size; `seed` fixes them."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for size in sizes:
        for k in range(1, count + 1):
            if genre == "sudoku":
                side = size * size
                out.append((f"sudoku_{side}x{side}_s{seed}_{k:02d}", random_sudoku(size, rng)))
            else:
                out.append((f"slitherlink_{size}x{size}_s{seed}_{k:02d}", random_slitherlink(size, size, rng)))
    return out


def main() -> int:
    """Write the boards to DIR, one NAME.txt per board."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genre", choices=sorted(DEFAULT_SIZES), help="the genre of the boards")
    parser.add_argument("dir", type=Path, help="the folder to write the boards to (created)")
    parser.add_argument("--size", type=int, nargs="+", metavar="N",
                        help="sudoku: the block side B (N = B² cells a side); slitherlink: the side "
                             "(defaults: sudoku 3 4 5, slitherlink 20 30 40)")
    parser.add_argument("--count", type=int, default=5, help="boards per size (default 5)")
    parser.add_argument("--seed", type=int, default=7, help="the random seed (default 7)")
    args = parser.parse_args()
    sizes = args.size or DEFAULT_SIZES[args.genre]
    if any(s < 2 for s in sizes):
        parser.error("--size: every size must be at least 2")
    args.dir.mkdir(parents=True, exist_ok=True)
    boards = random_boards(args.genre, sizes, args.count, args.seed)
    for name, text in boards:
        (args.dir / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"{len(boards)} boards in {args.dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
