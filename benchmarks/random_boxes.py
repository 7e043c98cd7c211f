"""Random pentomino boxes: rectangles with holes, 60 connected cells each, as board files.

Why: the published boxes (3x20 ... 6x10, 8x8 with a centre hole) are a handful of famous
shapes; a speed figure measured on them alone is a figure tuned to them. This script writes
boxes of the same family that nobody chose: a rectangle of 63-72 cells from the shapes below with
as many random cells blocked as make 60, kept when the 60 cells are connected (so that the box is
not refused or trivially empty), whether or not the 12 pieces fit (some boxes have no packing,
which the solvers must prove). The same seed writes the same boxes.

usage: .venv/bin/python benchmarks/random_boxes.py DIR [--count N] [--seed S]
then:  .venv/bin/python benchmarks/puzzles_cpsat.py pentomino --from DIR
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

CELLS = 60  # the 12 pentominoes
SHAPES = ((3, 21), (4, 16), (5, 13), (6, 11), (7, 9), (8, 8), (7, 10), (6, 12), (9, 7))


def _connected(cells: set[tuple[int, int]]) -> bool:
    start = next(iter(cells))
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for step in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if step in cells and step not in seen:
                seen.add(step)
                stack.append(step)
    return len(seen) == len(cells)


def random_boxes(count: int, seed: int) -> list[tuple[str, str]]:
    """`count` (name, board text) pairs of random boxes of 60 connected cells; `seed` fixes them."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < count:
        rows, cols = rng.choice(SHAPES)
        every = [(r, c) for r in range(rows) for c in range(cols)]
        blocked = set(rng.sample(every, rows * cols - CELLS))
        if not _connected(set(every) - blocked):
            continue
        text = "".join("".join("#" if (r, c) in blocked else "." for c in range(cols)) + "\n" for r in range(rows))
        out.append((f"box_{rows}x{cols}_s{seed}_{len(out) + 1:02d}", text))
    return out


def main() -> int:
    """Write the boxes to DIR, one NAME.txt per box."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, help="the folder to write the boxes to (created)")
    parser.add_argument("--count", type=int, default=40, help="how many boxes (default 40)")
    parser.add_argument("--seed", type=int, default=7, help="the random seed (default 7)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    for name, text in random_boxes(args.count, args.seed):
        (args.dir / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"{args.count} boxes in {args.dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
