"""Pentomino box packing (箱詰め) genre: a box shape -> Sugar CSP, and a solution log -> the packing.

Rules (seed 001): put the 12 free pentominoes F I L N P T U V W X Y Z, each
exactly once and turned or flipped at will, into the box so that every cell is
covered exactly once. Every distinct placement (a set of five box cells; the
8 orientations are deduplicated for symmetric pieces) gets a number; ``p_F``
is the placement number of piece F and ``_c_R_C`` the piece covering cell
(R, C), with the exact-cover link of `generators.boardkit.exact_cover`.

The placement variables ``p_*`` determine the packing and are the printed
answer; the cell variables follow from them and are hidden helpers, so counting
printed answers counts packings (6x10: 9356, 3x20: 8); `placement_variables`
lists them for the enumeration tools.

An implied constraint leaves out the placements that cut the box into a part whose size is
not a multiple of 5 (`cutting_placements`): no packing uses one, and without them the solver
proves a box without packings 10-15x faster.

For one answer `csp2sat puzzle` solves `generate_one`: the same text plus a restriction
that breaks the box's symmetries (`symmetry_breaking`), keeping a packing of every class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from csp2sat.generators.base import Genre, NoSolution, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    PALETTE,
    Chooser,
    CspText,
    Pos,
    Svg,
    any_of,
    check_format,
    chosen_options,
    exact_cover,
    lex_leader,
    read_grid,
    region_drawing,
)

# The 12 pentominoes in one reference orientation each, as in data/pentomino/pieces.txt.
PIECES: dict[str, tuple[str, ...]] = {
    "F": (".##", "##.", ".#."),
    "I": ("#####",),
    "L": ("####", "#..."),
    "N": ("##..", ".###"),
    "P": ("###", "##."),
    "T": ("###", ".#.", ".#."),
    "U": ("#.#", "###"),
    "V": ("#..", "#..", "###"),
    "W": ("#..", "##.", ".##"),
    "X": (".#.", "###", ".#."),
    "Y": ("####", ".#.."),
    "Z": ("##.", ".#.", ".##"),
}

BLOCKED = "#"
OVERLAP = "*"  # in a decoded packing: a cell several pieces cover
# Box cells as the data files write them ('.'), or as the seed's 0/1 arrays do (1 = cell).
_CELL_TOKENS = {".": True, "1": True, "#": False, "0": False}


def orientations(shape: tuple[str, ...]) -> list[tuple[Pos, ...]]:
    """The distinct orientations (rotations and reflections) of a shape, each normalised and sorted."""
    cells = [(r, c) for r, row in enumerate(shape) for c, ch in enumerate(row) if ch == "#"]
    seen: list[tuple[Pos, ...]] = []
    for flip in (False, True):
        current = [(r, -c) if flip else (r, c) for r, c in cells]
        for _ in range(4):
            current = [(c, -r) for r, c in current]
            top = min(r for r, _ in current)
            left = min(c for _, c in current)
            normal = tuple(sorted((r - top, c - left) for r, c in current))
            if normal not in seen:
                seen.append(normal)
    return seen


@dataclass(frozen=True)
class Box:
    """A box to pack: its size, which cells are to be covered, and every piece's placements."""

    rows: int
    cols: int
    cells: tuple[Pos, ...]
    choosers: tuple[Chooser, ...]

    def text_lines(self) -> list[str]:
        """The box in the data/ format."""
        inside = set(self.cells)
        return ["".join("." if (r, c) in inside else BLOCKED for c in range(self.cols)) for r in range(self.rows)]


def _placements(shape: tuple[str, ...], inside: set[Pos], rows: int, cols: int) -> tuple[tuple[Pos, ...], ...]:
    """Every distinct placement of `shape` in the box, sorted by its cells in row-major order.

    The order matters for speed: the order encoding's literals ``p <= j`` then mean
    "the piece starts before cell j", a geometric split the SAT solver can use
    (3-5x faster than numbering by orientation first).
    """
    found: list[tuple[Pos, ...]] = []
    seen: set[tuple[Pos, ...]] = set()
    for orient in orientations(shape):
        height = max(r for r, _ in orient) + 1
        width = max(c for _, c in orient) + 1
        for top in range(rows - height + 1):
            for left in range(cols - width + 1):
                cells = tuple((top + r, left + c) for r, c in orient)
                if all(cell in inside for cell in cells) and cells not in seen:
                    seen.add(cells)
                    found.append(cells)
    return tuple(sorted(found))


def read(text: str) -> Box:
    """Read a box: ``.`` (or ``1``) is a cell to cover, ``#`` (or ``0``) a blocked cell.

    Raises `PuzzleError` at the place for unknown characters, ragged rows and a box
    with no cells; `NoSolution` (a `PuzzleError`) for a box of other than 60 cells
    and for cells no pentomino can reach.
    """
    grid = read_grid(text, hash_comments=False)
    rows, cols = len(grid), len(grid[0])
    cells = []
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            if token.text not in _CELL_TOKENS:
                raise PuzzleError(
                    f"unknown box cell {token.text!r} (expected '.' for a cell or '#' for blocked)",
                    token.line,
                    token.col,
                )
            if _CELL_TOKENS[token.text]:
                cells.append((r, c))
    first = grid[0][0]
    if not cells:
        raise PuzzleError("the box has no cell to cover", first.line, first.col)
    if len(cells) != 5 * len(PIECES):
        raise NoSolution(
            f"the box has {len(cells)} cells; the {len(PIECES)} pentominoes cover exactly {5 * len(PIECES)}",
            first.line,
            first.col,
        )
    inside = set(cells)
    choosers = []
    for ident, (letter, shape) in enumerate(PIECES.items(), 1):
        options = _placements(shape, inside, rows, cols)
        if not options:
            raise NoSolution(f"pentomino {letter} fits nowhere in the box", first.line, first.col)
        choosers.append(Chooser(f"p_{letter}", ident, options))
    reachable = {cell for ch in choosers for option in ch.options for cell in option}
    for r, c in cells:
        if (r, c) not in reachable:
            token = grid[r][c]
            raise NoSolution("no pentomino can cover this cell", token.line, token.col)
    return Box(rows, cols, tuple(cells), tuple(choosers))


def placement_variables(box: Box) -> list[str]:
    """The names of the placement variables (``p_F`` ... ``p_Z``), which determine a packing."""
    return [ch.var for ch in box.choosers]


puzzle_variables = placement_variables


def generate(box: Box) -> str:
    """The Sugar CSP text of packing the 12 pentominoes into `box`."""
    letters = list(PIECES)
    out = CspText(
        f"Pentomino box packing, {box.rows} rows x {box.cols} columns ('#' = blocked)",
        box.text_lines(),
        [
            "p_F ... p_Z: the placement number chosen for each pentomino (counts below)",
            "_c_R_C: the pentomino covering cell (R, C) (a hidden helper): "
            + ", ".join(f"{n}={letter}" for n, letter in enumerate(letters, 1)),
        ],
    )
    out.block(
        "Placements: every orientation at every offset inside the box, numbered in row-major order of their cells",
        *(f"p_{letter}: {len(ch.options)} placements" for letter, ch in zip(letters, box.choosers)),
    )
    exact_cover(
        out,
        box.choosers,
        box.cells,
        lambda cell: helper(f"c_{cell[0]}_{cell[1]}"),
        (
            "Rule: each pentomino is placed exactly once (one placement number per piece)",
            "Rule: each cell of the box is covered by exactly one pentomino",
            "A pentomino covers a cell exactly when its chosen placement contains the cell",
        ),
    )
    cutting = cutting_placements(box)
    if cutting:
        out.block(
            "Implied (no packing is lost): a placement that leaves a part of the box whose size is not a multiple of 5",
            "cannot be in a packing, since the other pieces cover 5 cells each; so each piece keeps the others",
            *(f"{ch.var}: {len(cut)} of its {len(ch.options)} placements cut the box"
              for ch in box.choosers if (cut := cutting.get(ch.var))),
        )
        for ch in box.choosers:
            if ch.var in cutting:
                gone = set(cutting[ch.var])
                out.add(any_of(ch.var, [n for n in range(1, len(ch.options) + 1) if n not in gone]))
    return out.text()


def cutting_placements(box: Box) -> dict[str, list[int]]:
    """For each piece, the numbers of its placements that leave a connected part of the other box cells
    whose size is not a multiple of 5 (pieces with none are left out).

    No packing uses such a placement, so leaving them out loses none; measured on random boxes
    (benchmarks/results/puzzles-vs-cpsat-random-boxes.md) it cuts the proof of a box without packings
    10-15x and the search for one packing by about a tenth.
    """
    width = box.cols + 1  # cells as bits, row by row, with a spare bit per row so that a step sideways never wraps

    def mask(cells: Iterable[Pos]) -> int:
        return sum(1 << (r * width + c) for r, c in cells)

    inside = mask(box.cells)
    out: dict[str, list[int]] = {}
    for ch in box.choosers:
        cut = [n for n, option in enumerate(ch.options, 1) if not _parts_of_fives(inside & ~mask(option), width)]
        if cut:
            out[ch.var] = cut
    return out


def _parts_of_fives(cells: int, width: int) -> bool:
    """Whether every connected part (4-neighbours) of the cells set in `cells` has a multiple of 5 of them."""
    while cells:
        part = cells & -cells  # grow the part of the lowest cell step by step to all it reaches
        while True:
            grown = (part | part << 1 | part >> 1 | part << width | part >> width) & cells
            if grown == part:
                break
            part = grown
        if part.bit_count() % 5:
            return False
        cells &= ~part
    return True


Move = Callable[[int, int], Pos]


def _moved(move: Move, option: tuple[Pos, ...]) -> tuple[Pos, ...]:
    return tuple(sorted(move(r, c) for r, c in option))


def orbit_least_placements(choosers: tuple[Chooser, ...], moves: list[Move]) -> tuple[Chooser, list[int]] | None:
    """The piece that keeps fewest placements when only the least of each orbit is kept, and those kept.

    `moves` with the identity form a group of symmetries of the box; a placement's orbit is the
    placements the moves turn it into, and a placement is kept (as its 1-based number) when no
    move turns it into one of a smaller number. Every packing has an image in which any one
    piece lies at the least placement of its orbit, so restricting one piece loses no packing up
    to symmetry. Ties go to the first piece in F..Z order. None when there is no move.
    """
    if not moves:
        return None
    best: tuple[Chooser, list[int]] | None = None
    for ch in choosers:
        number = {option: n for n, option in enumerate(ch.options, 1)}
        kept = [n for option, n in number.items() if all(number[_moved(move, option)] >= n for move in moves)]
        if best is None or len(kept) < len(best[1]):
            best = (ch, kept)
    return best


def symmetry_breaking(box: Box) -> list[str]:
    """Sugar lines (comments and constraints) that keep one packing or a few of each class equal up to
    the box's symmetries (empty for a box without symmetry).

    First one piece A keeps the least placements of its orbits under the whole group
    (`orbit_least_placements`). A kept placement may be left in place by some symmetries (the X
    in the middle row of a 3x20 box by the upside-down flip): for the placements of A with the
    same such subgroup H, a second piece B keeps the least placements of its orbits under H. Sound:
    turn a packing so that A is least in its orbit, then by a member of H, which leaves A where it
    is, so that B is least in its orbit under H.
    """
    moves = symmetries(box)
    first = orbit_least_placements(box.choosers, moves)
    if first is None:
        return []
    piece, kept = first
    lines = [
        "; Symmetry breaking (one answer only, not for counting): a packing turned or reflected by a symmetry",
        f";   of the box is a packing too, and one of these images puts {piece.var[2:]} at the least-numbered",
        f";   placement of its orbit under the symmetries; so {piece.var} keeps those {len(kept)} of its",
        f";   {len(piece.options)} placements and no packing is lost up to symmetry",
        any_of(piece.var, kept),
    ]
    fixing: dict[tuple[int, ...], list[int]] = {}
    for n in kept:
        option = piece.options[n - 1]
        still = tuple(i for i, move in enumerate(moves) if _moved(move, option) == option)
        if still:
            fixing.setdefault(still, []).append(n)
    others = tuple(ch for ch in box.choosers if ch is not piece)
    for still, numbers in fixing.items():
        second, kept2 = orbit_least_placements(others, [moves[i] for i in still])
        when = "" if numbers == kept else f"where {piece.var} is one of {' '.join(map(str, numbers))}, "
        lines += [
            f"; Then, {when}the symmetries that leave {piece.var[2:]} in place ({len(still)} but the identity) still",
            f";   apply: one of their images puts {second.var[2:]} at the least placement of its orbit under them,",
            f";   so {second.var} keeps {len(kept2)} of its {len(second.options)} placements",
            any_of(second.var, kept2) if numbers == kept
            else f"(or (not {any_of(piece.var, numbers)}) {any_of(second.var, kept2)})",
        ]
    return lines


def generate_one(box: Box) -> str:
    """The CSP text of `generate` plus symmetry breaking, for one packing (or a second for ``--unique``).

    It keeps one packing (at least) of every class of packings equal up to the box's symmetries
    (`symmetry_breaking`), not every packing, so it is for `csp2sat puzzle` without counting or
    facts (`Genre.generate_one`); ``--unique`` stays sound because `images` applies the same symmetries.
    """
    lines = symmetry_breaking(box)
    return generate(box) + "".join(f"{line}\n" for line in ["", *lines]) if lines else generate(box)


def generate_classes(box: Box) -> str:
    """The CSP text of `generate` keeping exactly one packing of every class equal up to the box's
    symmetries: the least by `class_order`, so that `Genre.images` gives the rest of its class.

    The order compares first the placement number of the piece A that `orbit_least_placements`
    picks (X on the rectangles), then the cells' pieces (numbered F=1 ... Z=12, as the letters
    sort) row by row. So A keeps the least placements of its orbits, as for one answer (strong
    propagation: a unary restriction), and a cell comparison (`boardkit.lex_leader`) is needed
    only against the symmetries that leave A's placement where it is, and only where it is.
    Counting these and adding up the sizes of their classes counts every packing, once per class
    instead of once per image (benchmarks/results/count_methods.md, "Counting by classes").
    """
    moves = symmetries(box)
    first = orbit_least_placements(box.choosers, moves)
    if first is None:
        return generate(box)
    piece, kept = first
    lines = [
        "",
        "; Counting by classes (not a rule of the puzzle): of the packings that a symmetry of the box turns",
        f";   into one another, keep only the least: the one with the least {piece.var}, and among those",
        ";   (a symmetry that leaves it in place) the least comparing the pieces of the cells row by row",
        any_of(piece.var, kept),
    ]
    for k, move in enumerate(moves, 1):
        still = [n for n in kept if _moved(move, piece.options[n - 1]) == piece.options[n - 1]]
        if still:
            lines.append(f"; where symmetry {k} leaves {piece.var[2:]} in place")
            lines += lex_leader(box.cells, lambda cell: helper(f"c_{cell[0]}_{cell[1]}"), [move],
                                prefix=f"lex{k}_", when=any_of(piece.var, still))
    return generate(box) + "".join(f"{line}\n" for line in lines)


def class_order(box: Box) -> Callable[[list[str]], tuple[int, list[str]]]:
    """The sort key of the order of packings whose least member of each class `generate_classes`
    keeps: the placement number of its restricted piece, then the rows of letters."""
    first = orbit_least_placements(box.choosers, symmetries(box))
    if first is None:
        return lambda solution: (0, solution)
    letter = first[0].var[2:]
    number = {tuple(sorted(option)): n for n, option in enumerate(first[0].options, 1)}

    def key(solution: list[str]) -> tuple[int, list[str]]:
        cells = tuple(sorted((r, c) for r, row in enumerate(solution) for c, ch in enumerate(row) if ch == letter))
        return (number.get(cells, 0), solution)

    return key


def decode(box: Box, values: Values) -> list[str]:
    """The packing as rows of piece letters (``#`` for blocked cells).

    A box cell no piece covers is ``.`` and one that several cover ``*`` (`check` reports them).
    Raises `PuzzleError` for a missing or out-of-range variable.
    """
    letters = list(PIECES)
    inside = set(box.cells)
    grid = [["." if (r, c) in inside else BLOCKED for c in range(box.cols)] for r in range(box.rows)]
    for ident, index in chosen_options(box.choosers, values).items():
        for r, c in box.choosers[ident - 1].options[index]:
            grid[r][c] = OVERLAP if grid[r][c] != "." else letters[ident - 1]
    return ["".join(row) for row in grid]


def check(box: Box, solution: list[str]) -> list[Violation]:
    """The rules the packing breaks: every box cell covered by exactly one piece, blocked cells by none,
    and each of the 12 pentominoes used once in its own shape (turned or flipped)."""
    found = []
    inside = set(box.cells)
    cells_of: dict[str, list[Pos]] = {letter: [] for letter in PIECES}
    for r, row in enumerate(solution):
        for c, mark in enumerate(row):
            if mark == OVERLAP:
                found.append(Violation("pieces do not overlap, and two cover this cell", cell_name(r, c)))
            elif mark == "." or (mark == BLOCKED and (r, c) in inside):
                found.append(Violation("every cell of the box is covered, and this one is not", cell_name(r, c)))
            elif mark != BLOCKED:
                if (r, c) not in inside:
                    found.append(Violation("blocked cells stay empty, and this one is covered", cell_name(r, c)))
                cells_of[mark].append((r, c))
    if found:  # pieces cut by overlaps are no longer what was placed: the overlaps say it all
        return found
    for letter, cells in cells_of.items():
        if not cells:
            found.append(Violation(f"each pentomino is used once, and {letter} is missing", "the whole box"))
            continue
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        shape = tuple(sorted((r - top, c - left) for r, c in cells))
        if shape not in orientations(PIECES[letter]):
            found.append(Violation(f"each pentomino keeps its shape, and these {len(cells)} cells are not a {letter}",
                                   f"the {letter} at {cell_name(*min(cells))}"))
    return found


def symmetries(box: Box) -> list[Move]:
    """The turns and reflections other than the identity that map the box's cells onto themselves."""
    last_r, last_c = box.rows - 1, box.cols - 1
    moves: list[Move] = [
        lambda r, c: (last_r - r, c), lambda r, c: (r, last_c - c), lambda r, c: (last_r - r, last_c - c)]
    if box.rows == box.cols:
        moves += [lambda r, c: (c, r), lambda r, c: (last_c - c, last_r - r),
                  lambda r, c: (c, last_r - r), lambda r, c: (last_c - c, r)]
    inside = set(box.cells)
    return [move for move in moves if {move(r, c) for r, c in inside} == inside]


def images(box: Box, solution: list[str]) -> Iterator[list[str]]:
    """The packing turned or reflected by each symmetry of the box.

    Each is a packing of the same box, and never the same one: no symmetry
    leaves the F pentomino (neither symmetric nor centred) where it was. So a box
    with a symmetry has at least two packings, and ``--unique`` needs no second search.
    """
    for move in symmetries(box):
        image = [[BLOCKED] * box.cols for _ in range(box.rows)]
        for r, row in enumerate(solution):
            for c, mark in enumerate(row):
                r2, c2 = move(r, c)
                image[r2][c2] = mark
        yield ["".join(row) for row in image]


def render(box: Box, solution: list[str], fmt: str) -> str:
    """The packing as ``drawing`` (pieces by letter, with borders), ``answer`` (letters) or ``svg``."""
    check_format(fmt)
    if fmt == "answer":
        return "".join(row + "\n" for row in solution)
    if fmt == "drawing":
        return region_drawing(solution, lambda r, c: f" {solution[r][c]} ")
    svg = Svg(box.rows, box.cols)
    colours = {letter: PALETTE[i % len(PALETTE)] for i, letter in enumerate(PIECES)}
    colours[BLOCKED] = "#444444"
    svg.regions(solution, colours)
    for r, row in enumerate(solution):
        for c, letter in enumerate(row):
            if letter != BLOCKED:
                svg.text(r, c, letter)
    return svg.document()


GENRE = register(
    Genre(
        name="pentomino",
        aliases=("pentominoes", "hakozume"),
        summary="pack the 12 pentominoes into a box of 60 cells",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
        images=images,
        generate_one=generate_one,
        generate_classes=generate_classes,
        class_order=class_order,
        # One-hot placements and cell owners count faster (the placements are only compared with constants, the
        # owners have 12 values): 8 boxes with --count -j 2, e.g. 4x15 34-36 -> 21-22 s, 5x12 81-88 -> 69-75 s,
        # 6x10 156-187 -> 116-162 s, 7x9 with 3 holes 30 -> 23 s, one job 4x15 44 -> 34 s; unique boards of the
        # other genres count about 15 % slower one-hot (benchmarks/results/count_methods.md, "Seventh study")
        count_options={"int": "direct"},
        # One answer: Glucose 4.2 searched 4 x 40 random boxes (benchmarks/random_boxes.py, seeds 7, 11, 23, 31) in
        # 75.1 s of CPU where CaDiCaL 1.9.5 took 123.0 s (seed 23: median 0.36 against 0.68 s); on the five
        # published boxes it was slower on 4x15 (1.4 against 0.2 s) and faster on 3x20, before the cutting
        # placements were left out (benchmarks/results/puzzles-vs-cpsat-random-boxes.md)
        solver="glucose42",
    )
)
