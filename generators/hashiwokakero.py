"""Generator stage, genre Hashiwokakero (Bridges): puzzle text -> Sugar CSP, solution log -> drawings.

Rules: join the islands with horizontal and vertical bridges, at most two
between two islands, bridges do not cross, an island's number is the count of
its bridges, and all islands are connected.

Encoding: ``h_R_C`` / ``v_R_C`` in 0..2 are the bridges from island R,C to the
next island right / below, and the only printed variables, so one printed
answer is one solution; sums give the counts; crossing bridges exclude each
other. Connectivity: the first island is the root with number 1, and every
other island has a bridge to an island with a smaller hidden number
``_z_R_C``. (The seed's encoding signs the bridges -2..2 with a direction and
prints its numbering, so one solution is printed many times; `decode` still
reads the seed's and real Sugar's logs of it.)
Input: one character per cell (``1``-``8``, ``.``, ``?``, data/README.md) or
whitespace-separated tokens (``-``, ``.``, ``0`` or ``-1`` for water) as
Sugar's ``hashiwokakero.pl`` reads and prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import CspText, Svg, check_format, need_in, number_cell, read_grid

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
            raise NoSolution(
                f"island {count} is impossible: it sees {degree[pos]} other island(s), so at most "
                f"{2 * degree[pos]} bridges", tok.line, tok.col)
    return Hashi(rows, cols, islands, bridges)


def _token(p: Hashi, r: int, c: int) -> str:
    if (r, c) not in p.islands:
        return "-"
    count = p.islands[(r, c)]
    return "?" if count is None else str(count)


def generate(p: Hashi) -> str:
    """The Sugar CSP text of a board: the bridge counts are the printed answer, connectivity uses hidden helpers."""
    islands = sorted(p.islands)
    root = islands[0]
    out = CspText(
        f"Hashiwokakero {p.rows}x{p.cols} ('?' = island of unknown count)",
        [" ".join(_token(p, r, c) for c in range(p.cols)) for r in range(p.rows)],
        ["h_R_C / v_R_C: the number of bridges (0..2) from island R,C to the next island right / below",
         f"_z_R_C: hidden helper, the distance number of island R,C from the root island {root[0]},{root[1]}"],
    )
    mine: dict[Pos, list[Bridge]] = {pos: [] for pos in p.islands}
    for b in p.bridges:
        mine[b.a].append(b)
        mine[b.b].append(b)
    out.block("Rules 1, 3, 4: bridges run along rows and columns to the next island, at most 2")
    out.extend(f"(int {b.var} 0 2)  ; {b.a[0]},{b.a[1]} - {b.b[0]},{b.b[1]}" for b in p.bridges)
    out.block("Rule 2: an island's number is the count of its bridges ('?' islands: any count)")
    for pos in islands:
        count = p.islands[pos]
        if count is not None:
            out.add(f"(= (+ {' '.join(b.var for b in mine[pos])}) {count})" if mine[pos] else f"(= 0 {count})")
    out.block("Rule 5: bridges do not cross")
    horizontal = [b for b in p.bridges if b.horizontal]
    vertical = [b for b in p.bridges if not b.horizontal]
    for h in horizontal:
        r = h.a[0]
        for v in vertical:
            if h.a[1] < v.a[1] < h.b[1] and v.a[0] < r < v.b[0]:
                out.add(f"(or (= {h.var} 0) (= {v.var} 0))")
    n = len(islands)
    out.block(
        "Rule 1: all islands are connected (rooted numbering, hidden: several numberings fit one answer)",
        f"the root island {root[0]},{root[1]} has number 1 (every island is on every solution's one network);",
        "every other island has a bridge to an island with a smaller number, so it is reached from the root",
    )
    z = {pos: helper(f"z_{pos[0]}_{pos[1]}") for pos in islands}
    for pos in islands:
        out.add(f"(int {z[pos]} 1 1)" if pos == root else f"(int {z[pos]} 2 {max(2, n)})")
    for pos in islands:
        if pos == root:
            continue
        nearer = [f"(and (> {b.var} 0) (< {z[b.b if b.a == pos else b.a]} {z[pos]}))" for b in mine[pos]]
        out.add(nearer[0] if len(nearer) == 1 else f"(or {' '.join(nearer)})" if nearer else "false")
    return out.text()


def decode(p: Hashi, values: Values) -> dict[Bridge, int]:
    """The number of bridges (1 or 2) on each used bridge position of a solution log.

    Reads our files' counts (0..2) and the seed's signed bridges (-2..2, the sign a direction).
    """
    used = {}
    for b in p.bridges:
        k = abs(need_in(values, b.var, -2, 2, "a bridge count (0..2, or -2..2 signed as in the seed's encoding)"))
        if k:
            used[b] = k
    return used


def check(p: Hashi, s: dict[Bridge, int]) -> list[Violation]:
    """The rules `s` breaks: island counts, at most 2 bridges (decode), no crossing, all islands connected."""
    found = []
    count = {pos: 0 for pos in p.islands}
    for b, k in s.items():
        count[b.a] += k
        count[b.b] += k
    for pos in sorted(p.islands):
        want = p.islands[pos]
        if want is not None and count[pos] != want:
            found.append(Violation(f"the island {want} must have {want} bridges, and it has {count[pos]}",
                                   f"the island at {cell_name(*pos)}"))
    lines = list(s)
    for h in lines:
        for v in lines:
            if h.horizontal and not v.horizontal and h.a[1] < v.a[1] < h.b[1] and v.a[0] < h.a[0] < v.b[0]:
                found.append(Violation(f"bridges do not cross, and the bridge from {h.a} to {h.b} crosses "
                                       f"the one from {v.a} to {v.b}", cell_name(h.a[0], v.a[1])))
    groups: dict[Pos, Pos] = {pos: pos for pos in p.islands}

    def find(x: Pos) -> Pos:
        while groups[x] != x:
            x = groups[x]
        return x

    for b in s:
        groups[find(b.a)] = find(b.b)
    first = min(p.islands)
    apart = [pos for pos in sorted(p.islands) if find(pos) != find(first)]
    if apart:
        found.append(Violation(f"all islands are connected, and {len(apart)} cannot be reached from "
                               f"island {first[0]},{first[1]}", f"the island at {cell_name(*apart[0])}"))
    return found


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


def _touching(s: dict[Bridge, int]) -> list[tuple[Bridge, int]]:
    """The bridges between islands side by side: no water cell to draw them in."""
    return sorted(((b, k) for b, k in s.items() if abs(b.b[0] - b.a[0]) + abs(b.b[1] - b.a[1]) == 1),
                  key=lambda bk: (bk[0].a, bk[0].b))


def _touching_note(bridges: list[tuple[Bridge, int]], prefix: str) -> list[str]:
    if not bridges:
        return []
    listed = ", ".join(f"{b.a[0]} {b.a[1]} - {b.b[0]} {b.b[1]}" + (" (double)" if k == 2 else "") for b, k in bridges)
    return [f"{prefix}bridges between neighbouring islands (row col, 0-based): {listed}"]


def _drawing(p: Hashi, s: dict[Bridge, int]) -> str:
    # Character for character what Sugar's hashiwokakero.pl -s prints (the seed's drawing), but for bridges
    # between neighbouring islands, which it leaves out: side by side in the spaces between them, one
    # above the other in a note (no line lies between them).
    covered = _cells(p, s)
    touching = _touching(s)
    joined = {b.a: k for b, k in touching if b.horizontal}
    lines = ["; Hashiwokakero Puzzle", "; # http://www.nikoli.co.jp/en/puzzles/hashiwokakero/",
             f"; size {p.cols} {p.rows}"]
    lines += ["; " + " ".join(_token(p, r, c) for c in range(p.cols)) for r in range(p.rows)]
    lines.append("")
    for r in range(p.rows):
        cells = []
        for c in range(p.cols):
            if (r, c) in p.islands:
                left = joined.get((r, c - 1))
                right = joined.get((r, c))
                cells.append(("=" if left == 2 else "-" if left else " ") + _token(p, r, c)
                             + ("=" if right == 2 else "-" if right else " "))
            elif (r, c) in covered:
                horizontal, k = covered[(r, c)]
                cells.append(("===" if k == 2 else "---") if horizontal else (" # " if k == 2 else " | "))
            else:
                cells.append("   ")
        lines.append("".join(cells) + " ")
    lines.append("")
    lines += _touching_note([(b, k) for b, k in touching if not b.horizontal], "; ")
    lines.append("; END")
    return "\n".join(lines) + "\n"


def _answer(p: Hashi, s: dict[Bridge, int]) -> str:
    covered = _cells(p, s)
    lines = ["# bridges: r1 c1 r2 c2 count   (0-based row/col of the two islands; r1,c1 is the upper/left one)"]
    lines += [f"{b.a[0]} {b.a[1]} {b.b[0]} {b.b[1]} {k}" for b, k in sorted(s.items(), key=lambda bk: (bk[0].a, bk[0].b))]
    lines += _touching_note(_touching(s), "# ")  # not in the picture: no cell lies between them
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


GENRE = register(Genre("hashiwokakero", ("hashi", "bridges", "hashikake"), "Hashiwokakero: connect the islands with bridges",
                       read, generate, decode, render, check))
