"""Generator stage, genre Slitherlink: puzzle text -> Sugar CSP, solution log -> board drawings.

Rules: draw one closed loop along the grid lines, without branches or
crossings; a clue is the number of the cell's four sides that the loop uses.

Variables: ``h_R_C`` (0/1) is the horizontal edge above cell R,C (R = 0..rows),
``v_R_C`` (0/1) the vertical edge left of cell R,C (C = 0..cols); lattice point
R,C is a loop node. The edges are the printed answer; every other variable is
a hidden helper (``_`` prefix). The one-loop rules come from `generators.loopkit`; the
implied inside/outside colouring of the cells (``_in_R_C``, an edge is on
exactly when the cells on its two sides differ) is added because it carries
clue information across the board by unit propagation (30x25 solve 2-5x faster).
Input: one character per cell (``0``-``4`` clue, ``.`` empty, ``?`` unknown
clue, data/README.md), or whitespace-separated tokens as the seed loads with
np.loadtxt (``-1``, ``-`` or ``.`` empty).
"""

from __future__ import annotations

from dataclasses import dataclass

from csp2sat.generators import loopkit
from csp2sat.generators.base import Genre, PuzzleError, Values, Violation, cell_name, helper, is_number, register
from csp2sat.generators.boardkit import CspText, Svg, Token, check_format, need_in, read_grid

Pos = tuple[int, int]
UNKNOWN = None  # a `?` clue: the cell is a clue whose count is not given


@dataclass(frozen=True)
class Slitherlink:
    """A board: `clues[r][c]` is 0..4, `UNKNOWN` (``?``) or False (no clue)."""

    rows: int
    cols: int
    clues: tuple[tuple["int | None | bool", ...], ...]


@dataclass(frozen=True)
class Loop:
    """A solution: the sets of horizontal and vertical edges (R, C) on the loop."""

    horizontal: frozenset[Pos]
    vertical: frozenset[Pos]


def _cell(token: Token) -> "int | None | bool":
    text = token.text
    if text in (".", "-", "-1"):
        return False
    if text == "?":
        return UNKNOWN
    if is_number(text):
        # 4 is a clue too: the loop is then that cell's four sides alone (a board pzprjs can hold).
        if int(text) <= 4:
            return int(text)
        raise PuzzleError(f"clue {text} is more than a cell's 4 sides", token.line, token.col)
    raise PuzzleError(f"unknown cell {text!r} (expected 0-4, '?', '.' or '-')", token.line, token.col)


def read(text: str) -> Slitherlink:
    """Parse a Slitherlink board; `PuzzleError` with line and column for bad input."""
    grid = read_grid(text)
    clues = tuple(tuple(_cell(tok) for tok in row) for row in grid)
    return Slitherlink(len(clues), len(clues[0]), clues)


def _clue_text(clue: "int | None | bool") -> str:
    return "?" if clue is UNKNOWN else "." if clue is False else str(clue)


def _edges(p: Slitherlink) -> list[loopkit.Edge]:
    edges: list[loopkit.Edge] = []
    for r in range(p.rows + 1):
        for c in range(p.cols):
            edges.append((f"h_{r}_{c}", (r, c), (r, c + 1)))
    for r in range(p.rows):
        for c in range(p.cols + 1):
            edges.append((f"v_{r}_{c}", (r, c), (r + 1, c)))
    return edges


def generate(p: Slitherlink) -> str:
    """The Sugar CSP text of a board."""
    out = CspText(
        f"Slitherlink {p.rows}x{p.cols} ('?' = clue of unknown count)",
        ["".join(_clue_text(x) for x in row) for row in p.clues],
        ["h_R_C: edge above cell R,C; v_R_C: edge left of cell R,C; 1 = on the loop",
         "names starting with _ are helpers (loop bookkeeping), solved but not printed"],
    )
    edges = _edges(p)
    out.block("Edges: 1 when the loop uses it")
    out.extend(f"(int {name} 0 1)" for name, _, _ in edges)
    out.block("Clues: the number of the cell's sides on the loop")
    for r, row in enumerate(p.clues):
        for c, clue in enumerate(row):
            if clue is not False and clue is not UNKNOWN:
                out.add(f"(= (+ h_{r}_{c} h_{r + 1}_{c} v_{r}_{c} v_{r}_{c + 1}) {clue})")
    _inside_colouring(out, p, edges)
    # All four corners of a 3 (or a 4) are on the loop (three sides touch every corner): a safe root.
    certain = [(r, c) for r, row in enumerate(p.clues) for c, clue in enumerate(row) if clue in (3, 4)]
    nodes = [(r, c) for r in range(p.rows + 1) for c in range(p.cols + 1)]
    loopkit.single_loop(out, nodes, edges, certain)
    return out.text()


def _inside_colouring(out: CspText, p: Slitherlink, edges: list[loopkit.Edge]) -> None:
    # Implied by the loop rules (a simple closed loop splits the cells into inside and
    # outside, and its edges are exactly the sides between the two); stated because a
    # cell's colour carries clue information across the board by unit propagation.
    out.block(
        "Inside and outside (implied): _in_R_C is true for a cell inside the loop; cells beyond the border are outside",
        "an edge is on the loop exactly when the cells on its two sides differ",
        "(side E X Y): E = 1 exactly when X and Y differ",
    )
    out.add("(predicate (side E X Y) (and (or (= E 0) (and (or X Y) (or (! X) (! Y))))"
            " (or (= E 1) (and (or (! X) Y) (or X (! Y))))))")
    out.extend(f"(bool {helper(f'in_{r}_{c}')})" for r in range(p.rows) for c in range(p.cols))

    def colour(r: int, c: int) -> str:
        return helper(f"in_{r}_{c}") if 0 <= r < p.rows and 0 <= c < p.cols else "false"

    for name, (r, c), _ in edges:
        # h_R_C lies between cells R-1,C and R,C; v_R_C between R,C-1 and R,C.
        before = colour(r - 1, c) if name[0] == "h" else colour(r, c - 1)
        out.add(f"(side {name} {before} {colour(r, c)})")


def decode(p: Slitherlink, values: Values) -> Loop:
    """The loop of a solution log's values (`PuzzleError` when an edge variable is missing)."""
    horizontal = frozenset((r, c) for r in range(p.rows + 1) for c in range(p.cols)
                           if need_in(values, f"h_{r}_{c}", 0, 1, "an edge (0 off, 1 on the loop)"))
    vertical = frozenset((r, c) for r in range(p.rows) for c in range(p.cols + 1)
                         if need_in(values, f"v_{r}_{c}", 0, 1, "an edge (0 off, 1 on the loop)"))
    return Loop(horizontal, vertical)


def check(p: Slitherlink, s: Loop) -> list[Violation]:
    """The rules `s` breaks: a clue counts the cell's sides on the loop; the edges form one simple loop."""
    found = []
    for r, row in enumerate(p.clues):
        for c, clue in enumerate(row):
            if clue is False or clue is UNKNOWN:
                continue
            sides = ((r, c) in s.horizontal) + ((r + 1, c) in s.horizontal) \
                + ((r, c) in s.vertical) + ((r, c + 1) in s.vertical)
            if sides != clue:
                found.append(Violation(f"the clue {clue} must be the number of its sides on the loop, "
                                       f"and the loop uses {sides}", cell_name(r, c)))
    on = [((r, c), (r, c + 1)) for r, c in s.horizontal] + [((r, c), (r + 1, c)) for r, c in s.vertical]
    return found + loopkit.loop_violations(on, lambda n: f"lattice point row {n[0]}, column {n[1]}")


def _picture(p: Slitherlink, s: Loop, width: int) -> str:
    # width 1: the data/README.md answer format; 3: a roomier terminal drawing.
    lines = []
    for r in range(p.rows + 1):
        lines.append("+" + "+".join(("-" if (r, c) in s.horizontal else " ") * width for c in range(p.cols)) + "+")
        if r == p.rows:
            break
        cells = []
        for c in range(p.cols + 1):
            cells.append("|" if (r, c) in s.vertical else " ")
            if c < p.cols:
                clue = p.clues[r][c]
                cells.append((" " if clue is False else _clue_text(clue)).center(width))
        lines.append("".join(cells))
    return "\n".join(lines) + "\n"


def _svg(p: Slitherlink, s: Loop) -> str:
    svg = Svg(p.rows, p.cols)
    for r in range(p.rows):
        for c in range(p.cols):
            if p.clues[r][c] is not False:
                svg.text(r, c, _clue_text(p.clues[r][c]))
    for r in range(p.rows + 1):
        for c in range(p.cols):
            svg.line(r, c, r, c + 1, 3 if (r, c) in s.horizontal else 0.5,
                     "green" if (r, c) in s.horizontal else "#999999")
    for r in range(p.rows):
        for c in range(p.cols + 1):
            svg.line(r, c, r + 1, c, 3 if (r, c) in s.vertical else 0.5,
                     "green" if (r, c) in s.vertical else "#999999")
    return svg.document()


def render(p: Slitherlink, s: Loop, fmt: str) -> str:
    """The solution as ``drawing``, ``answer`` (data/README.md format) or ``svg``."""
    check_format(fmt)
    if fmt == "svg":
        return _svg(p, s)
    return _picture(p, s, 3 if fmt == "drawing" else 1)


GENRE = register(Genre("slitherlink", ("slither",), "Slitherlink: one loop around the clues", read, generate,
                       decode, render, check))
