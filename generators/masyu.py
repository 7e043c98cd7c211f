"""Generator stage, genre Masyu: puzzle text -> Sugar CSP, solution log -> board drawings.

Rules: draw one closed loop through cell centres, moving between orthogonal
neighbours, that passes through every circle. On a white circle the loop goes
straight and turns in at least one of the two cells next to it on the loop; on
a black circle it turns and goes straight through the next cell on both sides.

Variables: ``h_R_C`` (0/1) joins cell R,C to the cell on its right, ``v_R_C``
(0/1) to the cell below; every cell is a loop node (`generators.loopkit`).
The links are the printed answer; the loop bookkeeping is hidden (``_`` names).
Input: one character per cell (``W`` white, ``B`` black, ``.`` empty,
data/README.md) or whitespace-separated tokens (``1``/``W`` white, ``2``/``B``
black, ``0``, ``-1``, ``-`` or ``.`` empty).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators import loopkit
from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, register
from csp2sat.generators.boardkit import CspText, Svg, Token, check_format, need_in, read_grid

Pos = tuple[int, int]
WHITE, BLACK = "W", "B"
_TOKENS = {"W": WHITE, "w": WHITE, "1": WHITE, "B": BLACK, "b": BLACK, "2": BLACK,
           ".": "", "-": "", "0": "", "-1": ""}


@dataclass(frozen=True)
class Masyu:
    """A board: `circles[r][c]` is ``W``, ``B`` or ``""``."""

    rows: int
    cols: int
    circles: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Loop:
    """A solution: the cells R,C whose link to the right (`horizontal`) or down (`vertical`) is on the loop."""

    horizontal: frozenset[Pos]
    vertical: frozenset[Pos]


def _cell(token: Token) -> str:
    try:
        return _TOKENS[token.text]
    except KeyError:
        raise PuzzleError(f"unknown cell {token.text!r} (expected W or 1 white, B or 2 black, '.', '-' or 0 empty)",
                         token.line, token.col) from None


def read(text: str) -> Masyu:
    """Parse a Masyu board; `PuzzleError` with line and column for bad input."""
    grid = read_grid(text, hash_comments=True)
    circles = tuple(tuple(_cell(tok) for tok in row) for row in grid)
    rows, cols = len(circles), len(circles[0])
    for r, row in enumerate(grid):
        for c, tok in enumerate(row):
            if circles[r][c] == BLACK and not ((r >= 2 or r + 2 < rows) and (c >= 2 or c + 2 < cols)):
                raise NoSolution("a black circle needs room for two cells straight on in both directions",
                                  tok.line, tok.col)
    return Masyu(rows, cols, circles)


def _edges(p: Masyu) -> list[loopkit.Edge]:
    edges: list[loopkit.Edge] = []
    for r in range(p.rows):
        for c in range(p.cols - 1):
            edges.append((f"h_{r}_{c}", (r, c), (r, c + 1)))
    for r in range(p.rows - 1):
        for c in range(p.cols):
            edges.append((f"v_{r}_{c}", (r, c), (r + 1, c)))
    return edges


def generate(p: Masyu) -> str:
    """The Sugar CSP text of a board."""
    out = CspText(
        f"Masyu {p.rows}x{p.cols} (W white circle, B black circle)",
        ["".join(x or "." for x in row) for row in p.circles],
        ["h_R_C: the loop joins cell R,C and R,C+1; v_R_C: cell R,C and R+1,C",
         "names starting with _ are helpers (loop bookkeeping), solved but not printed"],
    )
    edges = _edges(p)
    names = {name for name, _, _ in edges}

    def link(kind: str, r: int, c: int) -> str | None:
        # The edge variable, or None outside the board (a link that cannot be on the loop).
        name = f"{kind}_{r}_{c}"
        return name if name in names else None

    out.block("Links between neighbouring cells: 1 when the loop uses it")
    out.extend(f"(int {name} 0 1)" for name, _, _ in edges)
    circles = [(r, c, x) for r, row in enumerate(p.circles) for c, x in enumerate(row) if x]
    nodes = [(r, c) for r in range(p.rows) for c in range(p.cols)]
    loopkit.single_loop(out, nodes, edges, [(r, c) for r, c, _ in circles])
    out.block("White circles: straight through, and a turn in at least one of the two cells next to it",
              "(the loop turns in the next cell when the link beyond it is not used)")
    for r, c, x in circles:
        if x != WHITE:
            continue
        for kind, (a, b), (far_a, far_b) in (
            ("h", (link("h", r, c - 1), link("h", r, c)), (link("h", r, c - 2), link("h", r, c + 1))),
            ("v", (link("v", r - 1, c), link("v", r, c)), (link("v", r - 2, c), link("v", r + 1, c))),
        ):
            if a is None or b is None:
                # The loop cannot pass straight through in this direction.
                out.extend(f"(= {e} 0)" for e in (a, b) if e)
                continue
            out.add(f"(= {a} {b})")
            turns = [f"(= {e} 0)" for e in (far_a, far_b) if e]
            if len(turns) == 2:
                out.add(f"(=> (= {a} 1) (or {' '.join(turns)}))")
            # With a border beyond a neighbour, the loop turns there anyway: nothing to add.
    out.block("Black circles: a turn, and straight on through the next cell on both sides")
    for r, c, x in circles:
        if x != BLACK:
            continue
        for near_a, near_b, far_a, far_b in (
            (link("h", r, c - 1), link("h", r, c), link("h", r, c - 2), link("h", r, c + 1)),
            (link("v", r - 1, c), link("v", r, c), link("v", r - 2, c), link("v", r + 1, c)),
        ):
            if near_a and near_b:
                out.add(f"(or (= {near_a} 0) (= {near_b} 0))")
            for near, far in ((near_a, far_a), (near_b, far_b)):
                if near and far:
                    out.add(f"(=> (= {near} 1) (= {far} 1))")
                elif near:
                    out.add(f"(= {near} 0)")
    return out.text()


def decode(p: Masyu, values: Values) -> Loop:
    """The loop of a solution log's values (`PuzzleError` when a link variable is missing)."""
    meaning = "a link (0 off, 1 on the loop)"
    horizontal = frozenset((r, c) for r in range(p.rows) for c in range(p.cols - 1)
                           if need_in(values, f"h_{r}_{c}", 0, 1, meaning))
    vertical = frozenset((r, c) for r in range(p.rows - 1) for c in range(p.cols)
                         if need_in(values, f"v_{r}_{c}", 0, 1, meaning))
    return Loop(horizontal, vertical)


def check(p: Masyu, s: Loop) -> list[Violation]:
    """The rules `s` breaks: one simple loop through every circle; straight on white with a turn next
    to it; a turn on black, straight on through the next cell on both sides."""

    def links(r: int, c: int) -> tuple[bool, bool, bool, bool]:
        # up, down, left, right
        return ((r - 1, c) in s.vertical, (r, c) in s.vertical, (r, c - 1) in s.horizontal, (r, c) in s.horizontal)

    def straight(r: int, c: int) -> bool:
        up, down, left, right = links(r, c)
        return (up and down) or (left and right)

    on = [((r, c), (r, c + 1)) for r, c in s.horizontal] + [((r, c), (r + 1, c)) for r, c in s.vertical]
    found = loopkit.loop_violations(on, lambda n: cell_name(*n))
    for r, row in enumerate(p.circles):
        for c, circle in enumerate(row):
            if not circle:
                continue
            up, down, left, right = links(r, c)
            colour = "white" if circle == WHITE else "black"
            if not any((up, down, left, right)):
                found.append(Violation(f"the loop passes through every circle, and misses this {colour} one",
                                       cell_name(r, c)))
                continue
            if circle == WHITE:
                if not straight(r, c):
                    found.append(Violation("the loop goes straight through a white circle, and turns here",
                                           cell_name(r, c)))
                else:
                    nexts = [(r, c - 1), (r, c + 1)] if left and right else [(r - 1, c), (r + 1, c)]
                    if all(straight(*n) for n in nexts):
                        found.append(Violation("the loop turns next to a white circle on at least one side, "
                                               "and goes straight on both", cell_name(r, c)))
            else:
                if straight(r, c):
                    found.append(Violation("the loop turns on a black circle, and goes straight here",
                                           cell_name(r, c)))
                for used, nxt in ((up, (r - 1, c)), (down, (r + 1, c)), (left, (r, c - 1)), (right, (r, c + 1))):
                    if used and not straight(*nxt):
                        found.append(Violation("the loop goes straight through the cells next to a black circle, "
                                               f"and turns in {cell_name(*nxt)}", cell_name(r, c)))
    return found


def _picture(p: Masyu, s: Loop, width: int) -> str:
    # width 1: the data/README.md answer format; 3: a roomier terminal drawing with loop cells as '+'.
    on = {pos for h in s.horizontal for pos in (h, (h[0], h[1] + 1))}
    on |= {pos for v in s.vertical for pos in (v, (v[0] + 1, v[1]))}
    lines = []
    for r in range(p.rows):
        row = []
        for c in range(p.cols):
            mark = p.circles[r][c] or ("+" if width > 1 and (r, c) in on else ".")
            row.append(mark)
            if c + 1 < p.cols:
                row.append(("-" if (r, c) in s.horizontal else " ") * width)
        lines.append("".join(row))
        if r + 1 < p.rows:
            gap = (" " * width).join("|" if (r, c) in s.vertical else " " for c in range(p.cols))
            lines.append(gap)
    return "\n".join(lines) + "\n"


def _svg(p: Masyu, s: Loop) -> str:
    svg = Svg(p.rows, p.cols)
    for r in range(p.rows + 1):
        svg.line(r, 0, r, p.cols, 0.5, "#999999")
    for c in range(p.cols + 1):
        svg.line(0, c, p.rows, c, 0.5, "#999999")
    for r, c in s.horizontal:
        svg.line(r + 0.5, c + 0.5, r + 0.5, c + 1.5, 3, "green")
    for r, c in s.vertical:
        svg.line(r + 0.5, c + 0.5, r + 1.5, c + 0.5, 3, "green")
    for r, row in enumerate(p.circles):
        for c, x in enumerate(row):
            if x:
                cx, cy = svg.margin + (c + 0.5) * svg.unit, svg.margin + (r + 0.5) * svg.unit
                fill = "black" if x == BLACK else "white"
                svg.parts.append(f'<circle cx="{cx}" cy="{cy}" r="{svg.unit * 0.35}" fill="{fill}" stroke="black"/>')
    return svg.document()


def render(p: Masyu, s: Loop, fmt: str) -> str:
    """The solution as ``drawing``, ``answer`` (data/README.md format) or ``svg``."""
    check_format(fmt)
    if fmt == "svg":
        return _svg(p, s)
    return _picture(p, s, 3 if fmt == "drawing" else 1)


GENRE = register(Genre("masyu", ("mashu", "pearl"), "Masyu: one loop through white and black circles", read, generate,
                       decode, render, check))
