"""Regenerate csp/GENRE/NAME.csp for every puzzle instance in data/, with each genre's generator.

The committed csp/ files let people run real Sugar (or `csp2sat solve`) on the
puzzles without this package; tests/test_csp_fresh.py fails when they are
stale. Every genre of the registry is required: a missing genre module is an
error, not a skip.

usage: .venv/bin/python scripts/regen_csp.py [--check]
  --check   write nothing; list stale or missing files and exit 1 if there are any
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from csp2sat.generators.base import genre, genre_names  # noqa: E402

DATA = ROOT / "data"
CSP = ROOT / "csp"
# data/ directory of each genre (Hashiwokakero's is the short name).
GENRE_DIRS = {
    "shikaku": "shikaku", "pentomino": "pentomino", "slitherlink": "slitherlink", "hashiwokakero": "hashi",
    "fillmat": "fillmat", "masyu": "masyu", "nurikabe": "nurikabe", "sudoku": "sudoku",
    "akari": "akari", "hitori": "hitori", "starbattle": "starbattle", "norinori": "norinori",
    "heyawake": "heyawake", "lits": "lits", "numberlink": "numberlink", "kakuro": "kakuro",
    "yajilin": "yajilin",
}
_NOT_PUZZLES = {"sources.txt", "pieces.txt", "counts.txt"}


def puzzle_files(directory: str) -> list[Path]:
    """The puzzle instance files of one data/ directory, sorted by name."""
    return sorted(p for p in (DATA / directory).glob("*.txt")
                  if p.name not in _NOT_PUZZLES and not p.name.endswith(".solution.txt"))


def expected_files() -> dict[Path, str]:
    """Every csp/ file that should exist, with its text, generated in memory."""
    files = {}
    for name in genre_names():
        g = genre(name)
        directory = GENRE_DIRS[g.name]
        for path in puzzle_files(directory):
            files[CSP / directory / f"{path.stem}.csp"] = g.generate(g.read(path.read_text(encoding="utf-8")))
    return files


def stale_files(files: dict[Path, str]) -> list[Path]:
    """The files whose content on disk differs from `files` (missing ones included)."""
    return [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def main() -> int:
    """Regenerate (or with --check, verify) the csp/ directory."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args()
    files = expected_files()
    stale = stale_files(files)
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    print(f"{len(files)} files, {len(stale)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
