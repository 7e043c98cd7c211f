"""Generator stage, genre Hashiwokakero (Bridges): puzzle text -> Sugar CSP, solution log -> drawings.

Rules: join the islands with horizontal and vertical bridges, at most two
between two islands, bridges do not cross, an island's number is the count of
its bridges, and all islands are connected.

The encoding is the one of the Hashiwokakero seed (Sugar's puzzle page):
``h_R_C`` / ``v_R_C`` in -2..2 are the bridges from island R,C to the next
island right / below, their sign a direction (positive: rightward/downward);
``(abs ...)`` sums give the counts; crossing bridges exclude each other; every
island has a number ``z_R_C`` and a root flag ``r_R_C``: exactly one root has
number 1, bridges lead from smaller to larger numbers, and every other island
has an incoming bridge, so all islands hang from the root.
Input: one character per cell (``1``-``8``, ``.``, ``?``, data/README.md) or
whitespace-separated tokens (``-``, ``.``, ``0`` or ``-1`` for water) as
Sugar's ``hashiwokakero.pl`` reads and prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, PuzzleError, Values, register
from csp2sat.generators.boardkit import CspText, Svg, check_format, need, number_cell, read_grid

Pos = tuple[int, int]
UNKNOWN = None  # a `?` island: its bridge count is not given


@dataclass(frozen=True)
class Bridge:
    """A possible bridge: its variable, the upper/left island `a` and the lower/right island `b`."""

    var: str
    a: Pos
    b: Pos

    @property
    def horizontal(self) -> bool:
        """True for a bridge along a row."""
        return self.a[0] == self.b[0]


@dataclass(frozen=True)
class Hashi:
    """A board: `islands` maps a position to its count (1..8) or `UNKNOWN`; `bridges` the possible bridges."""

    rows: int
    cols: int
    islands: dict[Pos, "int | None"]
    bridges: tuple[Bridge, ...]


def _bridges(rows: int, cols: int, islands: dict[Pos, "int | None"]) -> tuple[Bridge, ...]:
    found = []
    for (r, c) in sorted(islands):
        for dr, dc, kind in ((1, 0, "v"), (0, 1, "h")):
            rr, cc = r + dr, c + dc
            while rr < rows and cc < cols and (rr, cc) not in islands:
                rr, cc = rr + dr, cc + dc
            if rr < rows and cc < cols:
                found.append(Bridge(f"{kind}_{r}_{c}", (r, c), (rr, cc)))
    return tuple(found)


def read(text: str) -> Hashi:
    """Parse a Hashiwokakero board; `PuzzleError` with line and column for bad input or impossible counts."""
    grid = read_grid(text)
    islands: dict[Pos, int | None] = {}
    tokens = {}
    for r, row in enumerate(grid):
        for c, tok in enumerate(row):
            value = number_cell(tok, 1, 8)
            if value is not False:
                islands[(r, c)] = value
                tokens[(r, c)] = tok
    if not islands:
        raise PuzzleError("the board has no island", 1, 1)
    rows, cols = len(grid), len(grid[0])
    bridges = _bridges(rows, cols, islands)
    degree = {pos: 0 for pos in islands}
    for b in bridges:
        degree[b.a] += 1
        degree[b.b] += 1
    for pos, count in islands.items():
        if count is not None and count > 2 * degree[pos]:
            tok = tokens[pos]
            raise PuzzleError(
                f"island {count} is impossible: it sees {degree[pos]} other island(s), so at most "
                f"{2 * degree[pos]} bridges", tok.line, tok.col)
    return Hashi(rows, cols, islands, bridges)


def _token(p: Hashi, r: int, c: int) -> str:
    if (r, c) not in p.islands:
        return "-"
    count = p.islands[(r, c)]
    return "?" if count is None else str(count)


def generate(p: Hashi) -> str:
    """The Sugar CSP text of a board (the seed's encoding)."""
    out = CspText(
        f"Hashiwokakero {p.rows}x{p.cols} ('?' = island of unknown count)",
        [" ".join(_token(p, r, c) for c in range(p.cols)) for r in range(p.rows)],
        ["h_R_C / v_R_C: bridges from island R,C to the next island right / below, -2..2;",
         "  |value| is the number of bridges, the sign their direction (> 0: rightward / downward)",
         "z_R_C: the number of island R,C; r_R_C = 1 for the root island"],
    )
    mine: dict[Pos, list[tuple[Bridge, bool]]] = {pos: [] for pos in p.islands}
    for b in p.bridges:
        mine[b.a].append((b, True))
        mine[b.b].append((b, False))
    out.block("Rules 1, 3, 4: bridges run along rows and columns to the next island, at most 2")
    out.extend(f"(int {b.var} -2 2)  ; {b.a[0]},{b.a[1]} - {b.b[0]},{b.b[1]}" for b in p.bridges)
    out.block("Rule 2: an island's number is the count of its bridges ('?' islands: any count)")
    for pos in sorted(p.islands):
        count = p.islands[pos]
        if count is not None:
            terms = " ".join(f"(abs {b.var})" for b, _ in mine[pos])
            out.add(f"(= (+ {terms}) {count})")
    out.block("Rule 5: bridges do not cross")
    horizontal = [b for b in p.bridges if b.horizontal]
    vertical = [b for b in p.bridges if not b.horizontal]
    for h in horizontal:
        r = h.a[0]
        for v in vertical:
            if h.a[1] < v.a[1] < h.b[1] and v.a[0] < r < v.b[0]:
                out.add(f"(or (= {h.var} 0) (= {v.var} 0))")
    n = len(p.islands)
    out.block(
        "Rule 1: all islands are connected (rooted numbering)",
        "exactly one root, the island numbered 1; a bridge leads from the smaller to the larger number;",
        "every island but the root has an incoming bridge, so every island is reached from the root",
    )
    for r, c in sorted(p.islands):
        out.add(f"(int z_{r}_{c} 1 {n})")
        out.add(f"(int r_{r}_{c} 0 1)")
        out.add(f"(iff (= z_{r}_{c} 1) (= r_{r}_{c} 1))")
    out.add(f"(= (+ {' '.join(f'r_{r}_{c}' for r, c in sorted(p.islands))}) 1)")
    for pos in sorted(p.islands):
        z = f"z_{pos[0]}_{pos[1]}"
        incoming = []
        for b, first in mine[pos]:
            other = b.b if first else b.a
            out_sign, in_sign = (">", "<") if first else ("<", ">")
            out.add(f"(=> ({out_sign} {b.var} 0) (< {z} z_{other[0]}_{other[1]}))")
            incoming.append(f"({in_sign} {b.var} 0)")
        rule = incoming[0] if len(incoming) == 1 else f"(or {' '.join(incoming)})" if incoming else "false"
        out.add(f"(=> (= r_{pos[0]}_{pos[1]} 0) {rule})")
    return out.text()


def decode(p: Hashi, values: Values) -> dict[Bridge, int]:
    """The number of bridges (1 or 2) on each used bridge position of a solution log."""
    used = {}
    for b in p.bridges:
        k = abs(need(values, b.var))
        if k > 2:
            raise PuzzleError(f"{b.var} = {k} is not a bridge count (-2..2)")
        if k:
            used[b] = k
    return used


def exclude(p: Hashi, s: dict[Bridge, int]) -> str:
    """A Sugar constraint that excludes the bridges of `s` whatever their directions (for uniqueness checks)."""
    return f"(or {' '.join(f'(!= (abs {b.var}) {s.get(b, 0)})' for b in p.bridges)})"


def fact_view(p: Hashi) -> tuple[str, list[str]]:
    """Bridge counts for forced-value queries: extra Sugar lines defining ``_n_<bridge>`` = |bridge|, and their names.

    The bridge variables also carry a direction (for connectivity), which differs
    between solutions even when the bridges themselves do not.
    """
    lines = [f"(int _n_{b.var} 0 2)\n(= _n_{b.var} (abs {b.var}))" for b in p.bridges]
    return "\n".join(lines) + "\n", [f"_n_{b.var}" for b in p.bridges]


def _cells(p: Hashi, s: dict[Bridge, int]) -> dict[Pos, tuple[bool, int]]:
    # Water cells under a bridge: position -> (horizontal?, count).
    covered = {}
    for b, k in s.items():
        (r1, c1), (r2, c2) = b.a, b.b
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                if (r, c) not in p.islands:
                    covered[(r, c)] = (b.horizontal, k)
    return covered


def _drawing(p: Hashi, s: dict[Bridge, int]) -> str:
    # Character for character what Sugar's hashiwokakero.pl -s prints (the seed's drawing).
    covered = _cells(p, s)
    lines = ["; Hashiwokakero Puzzle", "; # http://www.nikoli.co.jp/en/puzzles/hashiwokakero/",
             f"; size {p.cols} {p.rows}"]
    lines += ["; " + " ".join(_token(p, r, c) for c in range(p.cols)) for r in range(p.rows)]
    lines.append("")
    for r in range(p.rows):
        cells = []
        for c in range(p.cols):
            if (r, c) in p.islands:
                cells.append(f" {_token(p, r, c)} ")
            elif (r, c) in covered:
                horizontal, k = covered[(r, c)]
                cells.append(("===" if k == 2 else "---") if horizontal else (" # " if k == 2 else " | "))
            else:
                cells.append("   ")
        lines.append("".join(cells) + " ")
    lines += ["", "; END"]
    return "\n".join(lines) + "\n"


def _answer(p: Hashi, s: dict[Bridge, int]) -> str:
    covered = _cells(p, s)
    lines = ["# bridges: r1 c1 r2 c2 count   (0-based row/col of the two islands; r1,c1 is the upper/left one)"]
    lines += [f"{b.a[0]} {b.a[1]} {b.b[0]} {b.b[1]} {k}" for b, k in sorted(s.items(), key=lambda bk: (bk[0].a, bk[0].b))]
    lines.append('# picture (informative only): - = single/double horizontal, | " single/double vertical')
    for r in range(p.rows):
        row = []
        for c in range(p.cols):
            if (r, c) in p.islands:
                row.append(_token(p, r, c))
            elif (r, c) in covered:
                horizontal, k = covered[(r, c)]
                row.append(("=" if k == 2 else "-") if horizontal else ('"' if k == 2 else "|"))
            else:
                row.append(".")
        lines.append("# " + "".join(row))
    return "\n".join(lines) + "\n"


def _svg(p: Hashi, s: dict[Bridge, int]) -> str:
    svg = Svg(p.rows, p.cols)
    for b, k in s.items():
        (r1, c1), (r2, c2) = b.a, b.b
        offsets = (0.0,) if k == 1 else (-0.08, 0.08)
        for d in offsets:
            if b.horizontal:
                svg.line(r1 + 0.5 + d, c1 + 0.5, r2 + 0.5 + d, c2 + 0.5, 2, "green")
            else:
                svg.line(r1 + 0.5, c1 + 0.5 + d, r2 + 0.5, c2 + 0.5 + d, 2, "green")
    for (r, c) in sorted(p.islands):
        x, y = svg.margin + (c + 0.5) * svg.unit, svg.margin + (r + 0.5) * svg.unit
        svg.parts.append(f'<circle cx="{x}" cy="{y}" r="{svg.unit * 0.4}" fill="white" stroke="black"/>')
        svg.text(r, c, _token(p, r, c))
    return svg.document()


def render(p: Hashi, s: dict[Bridge, int], fmt: str) -> str:
    """The solution as ``drawing`` (as Sugar's hashiwokakero.pl), ``answer`` (bridge list) or ``svg``."""
    check_format(fmt)
    if fmt == "drawing":
        return _drawing(p, s)
    if fmt == "answer":
        return _answer(p, s)
    return _svg(p, s)


GENRE = register(Genre("hashiwokakero", ("hashi", "bridges"), "Hashiwokakero: connect the islands with bridges",
                       read, generate, decode, render))
