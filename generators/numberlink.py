"""Numberlink (ナンバーリンク) genre: puzzle text -> Sugar CSP, and a solution log -> the drawn lines.

Rules: join every pair of equal numbers by a line through cell centres; lines
run horizontally and vertically, never branch, cross or touch another line in
a cell, and never pass through a number. Cells may stay empty.

Encoding: ``h_R_C`` / ``v_R_C`` (0/1) are the line segments from cell (R, C)
to its right / lower neighbour, the printed answer. A number cell has one
segment, any other cell none or two. Hidden helpers: ``_c_R_C_K`` are the bits
of the pair a cell's line belongs to (0: empty; a segment joins cells of the
same pair: two clauses a bit, where a pair number 0..P of the order encoding
took about 2P per segment and 80 per 2x2 block), and
`boardkit.winding_rule` (a 2-bit turn count ``_w_S_0/1`` per segment S) rules out
closed circuits, so every line runs between two numbers of its pair. Under ``no-2x2`` the segments also
carry the implied "not three segments inside a 2x2 block", which the search
would otherwise only learn through the pair numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from csp2sat.generators.base import Genre, PuzzleError, Values, Violation, cell_name, helper, register
from csp2sat.generators.boardkit import (
    CspText,
    Pos,
    Svg,
    any_true,
    check_format,
    need_in,
    number_cell,
    read_grid,
    Segment,
    segment_name,
    segment_picture,
    total,
    winding_rule,
)



@dataclass(frozen=True)
class Numberlink:
    """A Numberlink board: size and its numbers (cell -> number; each number stands in exactly two cells)."""

    rows: int
    cols: int
    numbers: dict[Pos, int]
    every_cell: bool = False
    no_2x2: bool = False
    no_detour: bool = False

    def pairs(self) -> list[int]:
        """The numbers, in the order of their first cell (pair k is ``pairs()[k-1]``)."""
        return list(dict.fromkeys(self.numbers.values()))

    def segments(self) -> list[Segment]:
        """Every segment between orthogonal neighbours, in reading order."""
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                out += [((r, c), other) for other in ((r, c + 1), (r + 1, c))
                        if other[0] < self.rows and other[1] < self.cols]
        return out

    def text_lines(self) -> list[str]:
        """The puzzle in the data/ format (rule lines first)."""
        rules = [word for word, on in ((EVERY_CELL, self.every_cell), (NO_2X2, self.no_2x2),
                                       (NO_DETOUR, self.no_detour)) if on]
        return rules + [" ".join(str(self.numbers.get((r, c), "-")) for c in range(self.cols)) for r in range(self.rows)]


EVERY_CELL = "every-cell"
NO_2X2 = "no-2x2"
NO_DETOUR = "no-detour"


def _rule_lines(text: str) -> tuple[set[str], str]:
    """The rule words (``every-cell``, ``no-2x2``, ``no-detour``) of lines that hold one alone, and the text with those
    lines blanked into comments so that the grid keeps its line numbers."""
    lines = text.splitlines()
    rules = set()
    for number, raw in enumerate(lines, 1):
        words = raw.split()
        if len(words) == 1 and words[0] not in (EVERY_CELL, NO_2X2, NO_DETOUR) and re.fullmatch(
                r"[A-Za-z][A-Za-z0-9_-]*[-_][A-Za-z0-9_-]*|[A-Za-z]+2x2", words[0]):  # a rule line mistyped, not cells
            raise PuzzleError(f"unknown rule line {words[0]!r} (the rules are {EVERY_CELL}, {NO_2X2}, {NO_DETOUR})",
                              number, raw.index(words[0]) + 1)
        if words and words[0] in (EVERY_CELL, NO_2X2, NO_DETOUR):
            if len(words) != 1:
                raise PuzzleError(f"a {words[0]} line holds that word alone", number, raw.index(words[1]) + 1)
            rules.add(words[0])
            lines[number - 1] = ";"
            if {EVERY_CELL, NO_DETOUR} <= rules:
                # a line cannot be shortened when every cell must stay on one: the convention would lose answers
                raise PuzzleError("no-detour and every-cell do not go together", number, raw.index(words[0]) + 1)
    return rules, "\n".join(lines) + "\n"


def read(text: str) -> Numberlink:
    """Read a Numberlink board: optional rule lines (``every-cell``, ``no-2x2``), then tokens,
    ``-`` empty, a positive number twice per number.

    Raises `PuzzleError` at the place for anything else, ragged rows, and a number that does not
    stand exactly twice (at its third cell, or at its only one).
    """
    rules, text = _rule_lines(text)
    grid = read_grid(text)
    numbers: dict[Pos, int] = {}
    seen: dict[int, list[Pos]] = {}
    for r, row in enumerate(grid):
        for c, token in enumerate(row):
            value = number_cell(token, 1, 10**6)
            if value is None:
                raise PuzzleError("a Numberlink number cannot be unknown ('?')", token.line, token.col)
            if value is False:
                continue
            seen.setdefault(value, []).append((r, c))
            if len(seen[value]) > 2:
                raise PuzzleError(f"the number {value} stands more than twice", token.line, token.col)
            numbers[r, c] = value
    for value, cells in seen.items():
        if len(cells) == 1:
            token = grid[cells[0][0]][cells[0][1]]
            raise PuzzleError(f"the number {value} stands only once", token.line, token.col)
    return Numberlink(len(grid), len(grid[0]), numbers, EVERY_CELL in rules, NO_2X2 in rules,
                      NO_DETOUR in rules)


def puzzle_variables(puzzle: Numberlink) -> list[str]:
    """The printed variables: every segment ``h_R_C`` / ``v_R_C``."""
    return [segment_name(s) for s in puzzle.segments()]


def generate(puzzle: Numberlink) -> str:
    """The Sugar CSP text of `puzzle`."""
    rows, cols = puzzle.rows, puzzle.cols
    pairs = puzzle.pairs()
    pair_of = {cell: pairs.index(value) + 1 for cell, value in puzzle.numbers.items()}
    segments = puzzle.segments()
    at: dict[Pos, list[Segment]] = {}
    at_cell: dict[Pos, list[tuple[str, Pos]]] = {}
    for s in segments:
        at.setdefault(s[0], []).append(s)
        at.setdefault(s[1], []).append(s)
        at_cell.setdefault(s[0], []).append((segment_name(s), s[1]))
        at_cell.setdefault(s[1], []).append((segment_name(s), s[0]))
    width = max(1, len(pairs).bit_length())
    colour = {cell: [helper(f"c_{cell[0]}_{cell[1]}_{k}") for k in range(width)] for cell in at}
    # _e_R_C: a cell other than a number may stay empty (not under every-cell)
    empty = {} if puzzle.every_cell else {cell: helper(f"e_{cell[0]}_{cell[1]}") for cell in at if cell not in pair_of}
    out = CspText(
        f"Numberlink puzzle, {rows} rows x {cols} columns",
        puzzle.text_lines(),
        ["h_R_C / v_R_C: 1 if the line joins cell (R, C) to its right / lower neighbour",
         f"_c_R_C_K: bit K of the pair (1.. in order of first appearance, {width} bits) whose line passes cell (R, C),",
         "  0 if none" + ("" if puzzle.every_cell else " (_e_R_C: the cell is empty)"),
         "_w_S_0/1: the turn count of segment S (see the last block)"],
    )
    out.block("Segments: one 0/1 variable between neighbours")
    out.extend(f"(int {segment_name(s)} 0 1)" for s in segments)
    out.block("Pairs: a number cell belongs to its pair (bits low first)")
    for cell in sorted(at):
        out.extend(f"(bool {bit})" for bit in colour[cell])
        k = pair_of.get(cell)
        if k:
            out.add(f"(and {' '.join(bit if k >> j & 1 else f'(! {bit})' for j, bit in enumerate(colour[cell]))})")
    if puzzle.every_cell:
        out.block("Rule: a number has one segment, another cell two (lines never branch; every cell is on a line)")
    else:
        out.block("Rule: a number has one segment, another cell none or two (lines never branch);",
                  "an empty cell has pair 0, a cell on a line another")
    for cell in sorted(at):
        degree = total([segment_name(s) for s in at[cell]])
        if cell in pair_of:
            out.add(f"(= {degree} 1)")
        elif puzzle.every_cell:
            out.add(f"(= {degree} 2)")
        else:
            out.add(f"(bool {empty[cell]})")
            out.add(f"(or (= {degree} 0) (= {degree} 2))")
            out.add(f"(iff {empty[cell]} (= {degree} 0))")
            out.add(f"(=> {empty[cell]} (and {' '.join(f'(! {bit})' for bit in colour[cell])}))")
            out.add(f"(or {empty[cell]} {' '.join(colour[cell])})")
    if puzzle.every_cell and rows * cols == 1:  # the one cell has no segment, so it cannot lie on a line
        out.block("Rule: every cell is on a line, and a board of one cell has no segment for it")
        out.add("false")
    xs, ys = [f"X{k}" for k in range(width)], [f"Y{k}" for k in range(width)]
    out.block("Rule: a segment joins cells of the same pair (lines never meet)",
              "(joins S X Y): if S = 1, X = Y bit by bit")
    out.add(f"(predicate (joins S {' '.join(xs + ys)}) (and "
            + " ".join(f"(or (= S 0) (! {x}) {y}) (or (= S 0) {x} (! {y}))" for x, y in zip(xs, ys)) + "))")
    for s in segments:
        out.add(f"(joins {segment_name(s)} {' '.join(colour[s[0]] + colour[s[1]])})")
    if puzzle.no_2x2:
        out.block("Rule: no 2x2 block of cells lies on one line: the pairs of its four cells differ in some bit",
                  "(apart A B C D): some bit K is not the same in A, B, C and D (the bits of the four pairs)")
        quads = [f"A{k} B{k} C{k} D{k}" for k in range(width)]
        out.add(f"(predicate (apart {' '.join(f'A{k}' for k in range(width))} {' '.join(f'B{k}' for k in range(width))}"
                f" {' '.join(f'C{k}' for k in range(width))} {' '.join(f'D{k}' for k in range(width))}) (or "
                + " ".join(f"(and (or {q}) (or {' '.join(f'(! {x})' for x in q.split())}))" for q in quads) + "))")
        for r in range(rows - 1):
            for c in range(cols - 1):
                block = [(r + dr, c + dc) for dr in (0, 1) for dc in (0, 1)]
                call = f"(apart {' '.join(bit for cell in block for bit in colour[cell])})"
                out.add(f"(or {empty[block[0]]} {call})" if block[0] in empty else call)
    if puzzle.no_2x2:
        # Three segments inside a 2x2 block join its four cells into one line, which the rule above forbids;
        # stated on the segments it propagates without going through the pair numbers (25x25 Arukone:
        # 34,533 -> 1,270 conflicts to the answer).
        out.block("Implied: at most two of the four segments inside a 2x2 block (three put it on one line);",
                  "(turn A B C D): not three of the four segments")
        out.add("(predicate (turn A B C D) (and (or (= A 0) (= B 0) (= C 0)) (or (= A 0) (= B 0) (= D 0))"
                " (or (= A 0) (= C 0) (= D 0)) (or (= B 0) (= C 0) (= D 0))))")
        for r in range(rows - 1):
            for c in range(cols - 1):
                inner = [((r, c), (r, c + 1)), ((r, c + 1), (r + 1, c + 1)), ((r + 1, c), (r + 1, c + 1)),
                         ((r, c), (r + 1, c))]
                out.add(f"(turn {' '.join(segment_name(s) for s in inner)})")
    if puzzle.no_detour:
        _no_detour(out, puzzle, colour, empty)
    out.block("Rule: no line closes into a circuit (with the degrees, every line then runs between two numbers,",
              "and the segments keep it to one pair)")
    winding_rule(out, at_cell, {cell: "false" for cell in pair_of})  # a number has one segment: no turn
    return out.text()


def _no_detour(out: CspText, puzzle: Numberlink, colour: dict[Pos, list[str]], empty: dict[Pos, str]) -> None:
    """Write the no-detour conventions (as cspuz_core's Numberlink solver counts answers)."""
    rows, cols = puzzle.rows, puzzle.cols
    width = len(colour[0, 0])
    h = lambda r, c: segment_name(((r, c), (r, c + 1)))  # noqa: E731
    v = lambda r, c: segment_name(((r, c), (r + 1, c)))  # noqa: E731
    xs, ys = [f"X{k}" for k in range(width)], [f"Y{k}" for k in range(width)]
    out.block("No detour: _l_R_C_K / _u_R_C_K is bit K of the pair of the nearest non-empty cell left of / above",
              "(R, C) (0: none); two cells of one line with only empty cells between them are joined directly",
              "(copy G X Y): if G, X = Y bit by bit; (direct S X Y): if the pairs X and Y are equal, S = 1")
    out.add(f"(predicate (copy G {' '.join(xs + ys)}) (and "
            + " ".join(f"(or (! G) (! {x}) {y}) (or (! G) {x} (! {y}))" for x, y in zip(xs, ys)) + "))")
    out.add(f"(predicate (direct S {' '.join(xs + ys)}) (or (= S 1) "
            + " ".join(f"(xor {x} {y})" for x, y in zip(xs, ys)) + "))")
    for axis, before, seg in (("l", lambda r, c: (r, c - 1), h), ("u", lambda r, c: (r - 1, c), v)):
        seen = {}
        for r in range(rows):
            for c in range(cols):
                prev = before(r, c)
                if prev[0] < 0 or prev[1] < 0:
                    continue
                if prev not in empty:  # a number: never empty
                    seen[r, c] = colour[prev]
                else:
                    seen[r, c] = [helper(f"{axis}_{r}_{c}_{k}") for k in range(width)]
                    out.extend(f"(bool {bit})" for bit in seen[r, c])
                    out.add(f"(copy (! {empty[prev]}) {' '.join(seen[r, c] + colour[prev])})")
                    out.add(f"(copy {empty[prev]} {' '.join(seen[r, c] + seen[prev])})" if prev in seen else
                            f"(=> {empty[prev]} (and {' '.join(f'(! {bit})' for bit in seen[r, c])}))")
                call = f"(direct {seg(*prev)} {' '.join(colour[r, c] + seen[r, c])})"
                out.add(f"(or {empty[r, c]} {call})" if (r, c) in empty else call)
    out.block("No detour: no 2x2 block holds three segments; a bend whose inner diagonal cell is free is pushed",
              "down (that cell bends the same way), and forbidden where it cannot be")
    for r in range(rows - 1):
        for c in range(cols - 1):
            out.add(f"(<= {total([h(r, c), h(r + 1, c), v(r, c), v(r, c + 1)])} 2)")
            if (r + 1, c + 1) in empty:  # not a number
                bend = f"(and (= {h(r, c)} 1) (= {v(r, c)} 1))"
                out.add(f"(not {bend})" if r == rows - 2 or c == cols - 2
                        else f"(=> {bend} (and (= {h(r + 1, c + 1)} 1) (= {v(r + 1, c + 1)} 1)))")
            if (r + 1, c) in empty:
                bend = f"(and (= {h(r, c)} 1) (= {v(r, c + 1)} 1))"
                out.add(f"(not {bend})" if r == rows - 2 or c == 0
                        else f"(=> {bend} (and (= {h(r + 1, c - 1)} 1) (= {v(r + 1, c)} 1)))")


def decode(puzzle: Numberlink, values: Values) -> set[Segment]:
    """The drawn segments; `PuzzleError` for a missing value or one other than 0 and 1."""
    return {s for s in puzzle.segments() if need_in(values, segment_name(s), 0, 1, "0 or 1")}


def _trace(start: Pos, around: dict[Pos, list[Pos]]) -> list[Pos]:
    """The cells of the line from `start` (following drawn segments, `around`: each cell's neighbours along
    one, until the line ends or returns)."""
    path, previous, cell = [start], None, start
    while True:
        step = [other for other in around.get(cell, ()) if other != previous]
        if len(step) != 1 or step[0] == start:
            return path
        previous, cell = cell, step[0]
        path.append(cell)


def check(puzzle: Numberlink, drawn: set[Segment]) -> list[Violation]:
    """The rules the lines break: numbers with one segment, other cells none or two, each line
    from a number ending at the equal number, and no line that joins no numbers; with the rule
    lines, no empty cell (``every-cell``) and no 2x2 block on one line (``no-2x2``)."""
    found = []
    degree: dict[Pos, int] = {}
    around: dict[Pos, list[Pos]] = {}
    for a, b in drawn:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
        around.setdefault(a, []).append(b)
        around.setdefault(b, []).append(a)
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            d = degree.get((r, c), 0)
            if (r, c) in puzzle.numbers and d != 1:
                found.append(Violation(f"a number has one line segment, and this one has {d}", cell_name(r, c)))
            elif (r, c) not in puzzle.numbers and d not in (0, 2):
                found.append(Violation(f"a line never branches or ends in an empty cell, and here {d} segments meet",
                                       cell_name(r, c)))
    if found:
        return found
    reached: set[Pos] = set()
    line_of: dict[Pos, int] = {}
    for cell, value in sorted(puzzle.numbers.items()):
        path = _trace(cell, around)
        reached.update(path)
        line_of.update((on, value) for on in path)
        end = path[-1]
        if puzzle.numbers.get(end) != value:
            found.append(Violation(f"the line from {value} ends at {cell_name(*end)}, not at the other {value}",
                                   cell_name(*cell)))
    stray = sorted(cell for cell in degree if cell not in reached)
    if stray:
        found.append(Violation("every line joins two numbers, and a closed line runs here", cell_name(*stray[0])))
    if puzzle.every_cell:
        found += [Violation("every cell lies on a line (every-cell), and this one is empty", cell_name(r, c))
                  for r in range(puzzle.rows) for c in range(puzzle.cols) if (r, c) not in degree][:1]
    if puzzle.no_2x2:
        for r in range(puzzle.rows - 1):
            for c in range(puzzle.cols - 1):
                block = {line_of.get((r + dr, c + dc)) for dr in (0, 1) for dc in (0, 1)}
                if len(block) == 1 and None not in block:
                    found.append(Violation("no 2x2 block lies on one line (no-2x2), and this one does",
                                           cell_name(r, c)))
    return found


def _picture(puzzle: Numberlink, drawn: set[Segment], width: int) -> str:
    """Cells as `width`-wide marks (number, ``+`` on a line, ``.`` empty) joined by ``-`` and ``|``."""
    on = {cell for s in drawn for cell in s}
    return segment_picture(puzzle.rows, puzzle.cols,
                           lambda r, c: str(puzzle.numbers.get((r, c), "+" if (r, c) in on else ".")), drawn, width)


def render(puzzle: Numberlink, drawn: set[Segment], fmt: str) -> str:
    """The lines as ``drawing`` (wide cells), ``answer`` (one character per cell and gap) or ``svg``."""
    check_format(fmt)
    if fmt != "svg":
        return _picture(puzzle, drawn, 3 if fmt == "drawing" else 1)
    svg = Svg(puzzle.rows, puzzle.cols)
    svg.regions([[0] * puzzle.cols for _ in range(puzzle.rows)], {})
    for (r, c), (r2, c2) in sorted(drawn):
        svg.line(r + 0.5, c + 0.5, r2 + 0.5, c2 + 0.5, 4, "#1f77b4")
    for (r, c), value in puzzle.numbers.items():
        svg.cell(r, c, "white")
        svg.text(r, c, str(value), bold=True)
    return svg.document()


GENRE = register(
    Genre(
        name="numberlink",
        aliases=("numlin",),
        summary="join equal numbers by lines that never branch, cross or touch",
        read=read,
        generate=generate,
        decode=decode,
        render=render,
        check=check,
    )
)
