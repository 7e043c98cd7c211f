"""Shared helpers of the puzzle generators (the `generate`/`render` ends of the genre pipeline).

Reading grid text into positioned tokens, writing readable Sugar CSP text,
the exact-cover encoding shared by Shikaku and pentomino packing, and the small
hand-written SVG builder the renderers use. Used by the Shikaku, pentomino,
Fillmat and Nurikabe genres; nothing here knows a genre's rules.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from csp2sat.generators.base import PuzzleError, Values, Violation, cell_name, helper, is_number

T = TypeVar("T")
Pos = tuple[int, int]

# Tokens that mean "no clue here" in the number genres: the data/ format uses `-`,
# the seeds load boards with np.loadtxt where 0 (or -1) is an empty cell.
EMPTY_TOKENS = frozenset({"-", ".", "0", "-1"})


@dataclass(frozen=True, slots=True)
class Token:
    """One cell of a grid as written: its text and 1-based line and column."""

    text: str
    line: int
    col: int


def read_grid(text: str, *, hash_comments: bool = True, tokens: bool | None = None) -> list[list[Token]]:
    """The rectangular grid of cell tokens in `text`.

    A grid is written either one character per cell or with whitespace-separated
    tokens; the form is detected from the text (any row with inner whitespace,
    or a size line of one column, means tokens) unless `tokens` forces it. Blank lines and lines starting with
    ``;`` (and ``#`` when `hash_comments`, as np.loadtxt skips them) are ignored,
    and a ``size ROWS COLS`` line as Sugar's puzzle scripts write it is checked
    against the grid. Raises `PuzzleError` for an empty or ragged grid.
    """
    rows: list[tuple[int, str]] = []
    size: tuple[int, int, int] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(";") or (hash_comments and stripped.startswith("#")):
            continue
        words = stripped.split()
        if words[0] == "size":
            if len(words) != 3 or not all(is_number(w) for w in words[1:]):
                raise PuzzleError("a size line must be 'size ROWS COLS'", number, raw.index("size") + 1)
            size = (int(words[1]), int(words[2]), number)
            continue
        rows.append((number, raw.rstrip()))
    if not rows:
        raise PuzzleError("the puzzle has no rows", 1, 1)
    detected = tokens is None
    if tokens is None:
        # a one-column grid has no inner whitespace either way: its size line says which form it is in
        # ('size 2 1' over '10' and '10' is two cells of 10, not a 2x2 grid of digits)
        tokens = any(len(line.split()) > 1 for _, line in rows) or (size is not None and size[1] == 1)
    grid: list[list[Token]] = []
    for number, line in rows:
        if tokens:
            row, col = [], 0
            for word in line.split():
                col = line.index(word, col)
                row.append(Token(word, number, col + 1))
                col += len(word)
        else:
            start = len(line) - len(line.lstrip())
            row = [Token(ch, number, i + 1) for i, ch in enumerate(line) if i >= start]
        grid.append(row)
    width = len(grid[0])
    # rows of one word each, of different lengths, are either a typo in a board of characters or a board of
    # one column of longer tokens ('10' over '9'), which only a size line tells apart; rows such as '3.2'
    # are no single token, so the hint is only for rows that each could be one ('10', '-1', '?')
    could_be_one_column = all(is_number(line.strip()) or len(line.strip()) == 1 for _, line in rows)
    one_column_hint = "" if tokens or not detected or not could_be_one_column else \
        f" (a board of one column of tokens needs a line 'size {len(grid)} 1')"
    for (number, line), row in zip(rows, grid):
        if len(row) > width:
            extra = row[width]
            raise PuzzleError(
                f"row has {len(row)} cell{'s' * (len(row) != 1)} but the first row has {width}{one_column_hint}", number, extra.col
            )
        if len(row) < width:
            raise PuzzleError(
                f"row has {len(row)} cell{'s' * (len(row) != 1)} but the first row has {width}{one_column_hint}", number, len(line) + 1
            )
    if size is not None and (size[0], size[1]) != (len(grid), width):
        raise PuzzleError(
            f"the size line says {size[0]}x{size[1]} but the grid is {len(grid)}x{width}", size[2], 1
        )
    return grid


def header_value(text: str, key: str, lo: int, hi: int) -> tuple[int | None, str]:
    """The number N of a ``KEY N`` line in a board text (e.g. Star Battle's ``stars 2``), and the text with
    that line blanked into a comment so that the grid keeps its line numbers; None when there is none.

    Raises `PuzzleError` at the line for a value that is not a number in lo..hi.
    """
    lines = text.splitlines()
    for number, raw in enumerate(lines, 1):
        words = raw.split()
        if words and words[0] == key:
            if len(words) != 2 or not is_number(words[1]) or not lo <= int(words[1]) <= hi:
                raise PuzzleError(f"a {key} line must be '{key} N' with N in {lo}..{hi}", number, raw.index(key) + 1)
            for later, other in enumerate(lines[number:], number + 1):
                if other.split()[:1] == [key]:
                    raise PuzzleError(f"a second {key} line (the first is line {number})", later,
                                      other.index(key) + 1)
            lines[number - 1] = ";"
            return int(words[1]), "\n".join(lines) + "\n"
    return None, text


def read_regions(text: str) -> tuple[list[list[int]], list[list[Token]]]:
    """The region of every cell of a region grid (any token names a region: ``0 0 1`` or ``AAB``), renumbered
    0, 1, ... in reading order of each region's first cell, and the grid's tokens (for positions).

    Raises `PuzzleError` (see `read_grid`) for an empty or ragged grid, and for a region in two or more
    parts (at the first cell of the second part): the genres' rooms are connected areas, and a puzz.link
    URL, which records the borders between cells, could not say that two parts are one region.
    """
    grid = read_grid(text, hash_comments=False)
    names: dict[str, int] = {}
    labels = [[names.setdefault(token.text, len(names)) for token in row] for row in grid]
    for cells in region_cells(labels):
        parts = connected(cells)
        if len(parts) > 1:
            first, second = min(parts[0]), min(parts[1])
            token, where = grid[second[0]][second[1]], grid[first[0]][first[1]]
            raise PuzzleError(f"region {token.text!r} is in {len(parts)} parts: this cell does not touch its cells "
                              f"from line {where.line} column {where.col}; give each part a name of its own",
                              token.line, token.col)
    return labels, grid


def sections(text: str, count: int) -> list[str]:
    """The `count` blank-line-separated sections of a board text (e.g. Heyawake's room grid, then its
    numbers), each as the whole text with every other line blanked, so that positions stay those of the file.

    Lines of ``;`` comments neither start nor end a section; past the last section only ``#`` comment
    lines may follow. Raises `PuzzleError` when the text has fewer sections, or more (at the first line of
    the first one too many: a third grid must not be read as more rows of the second).
    """
    lines = text.splitlines()
    groups: list[list[int]] = []
    previous_blank = True
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if stripped.startswith(";"):
            continue
        if not stripped:
            previous_blank = True
            continue
        if previous_blank:
            groups.append([])
        groups[-1].append(i)
        previous_blank = False
    if len(groups) < count:
        raise PuzzleError(f"the board needs {count} grids separated by a blank line, and has {len(groups)}",
                          len(lines) or 1, 1)
    for extra in groups[count:]:
        if not all(lines[i].strip().startswith("#") for i in extra):
            raise PuzzleError(f"the board has {count} grids separated by a blank line, and this is one more",
                              extra[0] + 1, 1)
    out = []
    for index in range(count):
        keep = set(groups[index]) if index < count - 1 else {i for g in groups[index:] for i in g}
        out.append("\n".join(raw if i in keep else "" for i, raw in enumerate(lines)) + "\n")
    return out


def region_lines(labels: Sequence[Sequence[int]]) -> list[str]:
    """A region grid as data/ text lines (space-separated region numbers)."""
    return [" ".join(map(str, row)) for row in labels]


def number_cell(token: Token, lo: int, hi: int) -> int | None | bool:
    """A cell of a number genre: the clue's int, ``None`` for an unknown clue ``?``, ``False`` for no clue.

    Raises `PuzzleError` at the token for anything else or a number outside lo..hi.
    """
    text = token.text
    if text in EMPTY_TOKENS:
        return False
    if text == "?":
        return None
    if is_number(text):
        value = int(text)
        if lo <= value <= hi:
            return value
        raise PuzzleError(f"clue {value} is impossible here (it must be {lo}..{hi})", token.line, token.col)
    raise PuzzleError(f"unknown cell {text!r} (expected a number, '?', '-' or '.')", token.line, token.col)


def neighbours(r: int, c: int, rows: int, cols: int) -> list[Pos]:
    """The orthogonal neighbours of (r, c) inside a rows x cols grid (up, left, right, down)."""
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols:
            out.append((rr, cc))
    return out


def need(values: Values, name: str) -> int:
    """The int value of `name` in a solution, or a `PuzzleError` saying the log lacks it."""
    try:
        value = values[name]
    except KeyError:
        raise PuzzleError(f"the solution log has no value for {name}") from None
    if isinstance(value, bool):  # a Boolean where the puzzle has an integer: a log of something else
        raise PuzzleError(f"{name} = {str(value).lower()} is not an integer")
    return int(value)


def need_in(values: Values, name: str, lo: int, hi: int, meaning: str) -> int:
    """`need`, and a `PuzzleError` when the value is outside lo..hi (`meaning` says what it should be).

    A log of another puzzle or encoding can hold any integer under a known name
    (``a h_0_0 7``); decoders read through this so such a value is never drawn.
    """
    value = need(values, name)
    if not lo <= value <= hi:
        raise PuzzleError(f"{name} = {value} is not {meaning} ({lo}..{hi})")
    return value


def connected(cells: Iterable[Pos]) -> list[set[Pos]]:
    """The orthogonally connected groups of `cells`, each a set, in reading order of their first cell."""
    left = set(cells)
    groups = []
    for start in sorted(left):
        if start not in left:
            continue
        left.discard(start)
        group, stack = {start}, [start]
        while stack:
            r, c = stack.pop()
            for other in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if other in left:
                    left.discard(other)
                    group.add(other)
                    stack.append(other)
        groups.append(group)
    return groups


def runs(is_open: Callable[[int, int], bool], rows: int, cols: int, axes: str = "across down") -> list[list[Pos]]:
    """The maximal horizontal runs (first) and vertical runs of open cells, each in order, singletons included
    (`axes` "across" or "down" for one kind only).

    Akari's lines of sight and Kakuro's sums are such runs between walls.
    """
    out: list[list[Pos]] = []
    kinds = {"across": [[(r, c) for c in range(cols)] for r in range(rows)],
             "down": [[(r, c) for r in range(rows)] for c in range(cols)]}
    for lines in (kinds[axis] for axis in axes.split()):
        for line in lines:
            current: list[Pos] = []
            for cell in line + [None]:  # type: ignore[operator]
                if cell is not None and is_open(*cell):
                    current.append(cell)
                elif current:
                    out.append(current)
                    current = []
    return out


# ---------------------------------------------------------------- CSP text


def any_true(parts: Sequence[str]) -> str:
    """The Sugar disjunction of formulas (``false`` for none, the formula itself for one)."""
    if not parts:
        return "false"
    return parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


def all_true(parts: Sequence[str]) -> str:
    """The Sugar conjunction of formulas (``true`` for none, the formula itself for one)."""
    if not parts:
        return "true"
    return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"


def total(terms: Sequence[str]) -> str:
    """The Sugar sum of terms (``0`` for none, the term itself for one)."""
    if not terms:
        return "0"
    return terms[0] if len(terms) == 1 else f"(+ {' '.join(terms)})"


class CspText:
    """A Sugar CSP file being written: a header comment, then commented blocks of statements."""

    def __init__(self, title: str, puzzle_lines: Iterable[str], notes: Iterable[str] = ()) -> None:
        self.lines: list[str] = [f"; {title}", ";"]
        self.lines += [f";   {line}".rstrip() for line in puzzle_lines]
        notes = list(notes)
        if notes:
            self.lines.append(";")
            self.lines += [f"; {note}" for note in notes]

    def block(self, title: str, *explanation: str) -> None:
        """Start a block of statements with a comment saying which rule it encodes."""
        self.lines.append("")
        self.lines.append(f"; {title}")
        self.lines += [f";   {line}" for line in explanation]

    def comment(self, text: str) -> None:
        """A one-line comment inside a block."""
        self.lines.append(f"; {text}")

    def add(self, statement: str) -> None:
        """One statement (a declaration or a constraint)."""
        self.lines.append(statement)

    def extend(self, statements: Iterable[str]) -> None:
        """Several statements."""
        self.lines.extend(statements)

    def text(self) -> str:
        """The whole file."""
        return "\n".join(self.lines) + "\n"


def int_decl(name: str, values: Sequence[int]) -> str:
    """``(int NAME ...)`` for a sorted list of values: bounds when contiguous, a value list otherwise."""
    if values[-1] - values[0] + 1 == len(values):
        return f"(int {name} {values[0]} {values[-1]})"
    return f"(int {name} ({' '.join(map(str, values))}))"


def any_of(name: str, values: Sequence[int]) -> str:
    """The formula "int var `name` takes one of `values`" (sorted): ranges become two comparisons."""
    parts = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        lo, hi = values[i], values[j]
        if lo == hi:
            parts.append(f"(= {name} {lo})")
        else:
            parts.append(f"(and (<= {lo} {name}) (<= {name} {hi}))")
        i = j + 1
    return parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


def lex_leader(cells: Sequence[Pos], cell_var: Callable[[Pos], str], moves: Sequence[Callable[[int, int], Pos]],
               prefix: str = "lex", when: str | None = None) -> list[str]:
    """Sugar lines keeping exactly the answers that are least among their images under `moves`.

    `moves` with the identity must form a group of symmetries of the board that map `cells` onto
    themselves; `cell_var(cell)` is an int variable whose values the moves carry along (the image
    of an answer has at cell m(x) the value the answer has at x). Answers are compared as the
    vectors of `cell_var` values read in `cells` order, lexicographically. Since the images of an
    answer s are the vectors i -> s[m(cells[i])] for m in the group, "s ≤ each of them" (the
    lex-leader constraint of Crawford et al. 1996, one chain per move) holds for exactly one member
    of every class: its least one. Chain: ``_PREFIXk_n`` (hidden) says that the first n compared
    positions are equal; position i is compared only while all earlier ones are equal. A position
    whose pair was compared the other way round earlier (reflections swap cells) is equal once
    the earlier ones are, and is skipped. With `when` (a Sugar condition), the chains apply only
    where it holds: the comparison is then the tie-break after an earlier one that `when` says is
    a tie (see `pentomino.generate_classes`).
    """
    order = {cell: i for i, cell in enumerate(cells)}
    lines: list[str] = []
    for k, move in enumerate(moves, 1):
        equal_so_far: str | None = when
        compared: set[tuple[Pos, Pos]] = set()
        for n, cell in enumerate(cells):
            image = move(*cell)
            if image not in order:
                raise ValueError(f"move {k} takes cell {cell} off the board")
            if image == cell or (image, cell) in compared:
                continue
            compared.add((cell, image))
            a, b = cell_var(cell), cell_var(image)
            least = f"(<= {a} {b})"
            lines.append(least if equal_so_far is None else f"(=> {equal_so_far} {least})")
            same = f"(= {a} {b})"
            flag = helper(f"{prefix}{k}_{n}")
            lines.append(f"(bool {flag})")
            lines.append(f"(iff {flag} {same if equal_so_far is None else f'(and {equal_so_far} {same})'})")
            equal_so_far = flag
        if equal_so_far is not None and equal_so_far != when:  # the flag after the last position says nothing
            del lines[-2:]
    return lines


def register_width(count: int) -> int:
    """The number of bits W with 2^W greater than `count`, so no count up to `count` is a multiple of 2^W."""
    return max(1, count.bit_length())


def increment_predicate(width: int, name: str = "inc") -> str:
    """``(predicate (NAME Z... N...) ...)``: N = Z + 1 modulo 2^W (bits low first).

    The carry into bit K is Z[K-1] and not N[K-1] (a carry into bit K-1 turns
    its 1 into 0 and goes on; without one N[K-1] = Z[K-1]), so the rule needs no
    carry variables: N[K] = Z[K] xor carry, six clauses per bit.
    """
    z = [f"Z{k}" for k in range(width)]
    n = [f"N{k}" for k in range(width)]
    clauses = [f"(or {n[0]} {z[0]})", f"(or (! {n[0]}) (! {z[0]}))"]
    for k in range(1, width):
        # With a carry N[K] differs from Z[K] (each clause starts with "no carry") ...
        unless_carry = f"(! {z[k - 1]}) {n[k - 1]}"
        clauses += [f"(or {unless_carry} {n[k]} {z[k]})", f"(or {unless_carry} (! {n[k]}) (! {z[k]}))"]
        # ... and without one (either literal of the carry false) it equals Z[K].
        for unless_no_carry in (z[k - 1], f"(! {n[k - 1]})"):
            clauses += [f"(or {unless_no_carry} (! {n[k]}) {z[k]})", f"(or {unless_no_carry} {n[k]} (! {z[k]}))"]
    return f"(predicate ({name} {' '.join(z + n)}) (and {' '.join(clauses)}))"


def two_colouring(cells: Sequence[Pos]) -> tuple[set[Pos], str]:
    """The smaller colour class of a checkerboard colouring of grid cells and its name ("even" or "odd" R+C).

    Every path between orthogonal neighbours alternates between the two classes.
    """
    even = {cell for cell in cells if sum(cell) % 2 == 0}
    odd = set(cells) - even
    return (even, "even") if len(even) <= len(odd) else (odd, "odd")


def step_numbers(out: CspText, cells: Sequence[Pos], longest: int, prefix: str = "",
                 grid: bool = True) -> tuple[dict, dict]:
    """Declare the W-bit numbers that rule out circles of predecessors among grid `cells`, and their rules.

    Every cell gets a number ``_{prefix}z_R_C_K`` (bit K, low first); its
    outgoing number is that number plus one (bits ``_{prefix}n_R_C_K``) at the
    cells of one checkerboard colour and the number itself at the others. A
    cell that takes its predecessor's outgoing number (``({prefix}step A Z...
    N...)``: if A, Z = N) gains one at every other step, so going round a circle
    of at most `longest` cells adds 1..2^W - 1 modulo 2^W: there is no such
    circle, and following predecessors always ends at a cell that has none.
    Unlike numbers compared by "<" over 1..n (n order-encoding literals per cell
    and a guess of *some* smaller neighbour), the numbers are short and follow
    from the predecessors by unit propagation. Returns the bit names of each
    cell's number and of its outgoing number. Without `grid` the nodes (named
    by a cell each) are those of some other graph, not known to be bipartite:
    every node counts, and a circle adds its length (at most `longest`).
    """
    if grid:
        counted, parity = two_colouring(cells)
        width = register_width(min(len(counted), max(longest // 2, 1)))
    else:
        counted, parity = set(cells), ""
        width = register_width(longest)
    inc, step = f"{prefix}inc", f"{prefix}step"
    z = {cell: [helper(f"{prefix}z_{cell[0]}_{cell[1]}_{k}") for k in range(width)] for cell in cells}
    outgoing = {cell: [helper(f"{prefix}n_{cell[0]}_{cell[1]}_{k}") for k in range(width)] if cell in counted
                else z[cell] for cell in cells}
    out.comment(f"{width}-bit numbers _{prefix}z_R_C_K, outgoing _{prefix}n_R_C_K = _{prefix}z_R_C_K + 1"
                + (f" at cells with R+C {parity} (the number itself elsewhere);" if grid else ";"))
    out.comment(f"a circle of predecessors would add 1..{(1 << width) - 1} modulo {1 << width}, so there is none")
    out.comment(f"({inc} Z N): N = Z + 1; ({step} A Z N): if A, Z = N")
    out.add(increment_predicate(width, inc))
    pairs = " ".join(f"(or (! A) (! Z{k}) N{k}) (or (! A) Z{k} (! N{k}))" for k in range(width))
    zs = " ".join(f"Z{k}" for k in range(width))
    ns = " ".join(f"N{k}" for k in range(width))
    out.add(f"(predicate ({step} A {zs} {ns}) (and {pairs}))")
    for cell in cells:
        out.extend(f"(bool {name})" for name in z[cell])
        if cell in counted:
            out.extend(f"(bool {name})" for name in outgoing[cell])
            out.add(f"({inc} {' '.join(z[cell] + outgoing[cell])})")
    return z, outgoing


# Headings of a step between orthogonal neighbours, in quarter turns counterclockwise from east (row numbers grow
# downwards, so north is the row above).
_HEADING = {(0, 1): 0, (-1, 0): 1, (0, -1): 2, (1, 0): 3}


def _heading(a: Pos, b: Pos) -> int:
    return _HEADING[b[0] - a[0], b[1] - a[1]]


def winding_rule(out: CspText, incident: Mapping[Pos, Sequence[tuple[str, Pos]]],
                 guard: Mapping[Pos, str] | None = None, prefix: str = "") -> None:
    """Write "the edges with value 1 close no circuit" for paths on a grid, in plain Sugar.

    `incident` maps each node (a grid position) to its edges: the name of a 0/1
    variable and the orthogonally neighbouring node it joins. The rule is meant
    for edge sets where no node has more than two edges on (lines and loops).
    `guard` (a formula per node; missing: true) lifts the rule at a node where it
    is false, so that the one circuit through such a node (the root of a loop)
    is allowed; a node whose guard is ``false`` gets no rule at all.

    Encoding: every edge E gets the 2-bit number ``_{prefix}w_E_0/1`` (K in
    0..3); with the edge's axis A (0 across, 1 down) 2K + A stands for the
    direction of travel along it in quarter turns, counted modulo 8, that is,
    the heading with the number of whole turns made so far modulo 2. Where two
    edges on meet at a node the second's number is the first's plus the turn
    made there (-1, 0 or +1 quarter turn, a fixed amount for each pair of edges,
    whichever way the line is travelled). A path can always be numbered so, a
    simple closed circuit cannot: it turns by four quarter turns in all, and
    4 is not 0 modulo 8. Per edge 2 Booleans and per pair of edges at a node 4
    or 6 clauses, against W-bit numbers with their increments and copies in
    `step_numbers`; a stray circuit is refuted after guessing 2 bits.
    """
    guard = guard or {}
    bits = {}
    for around in incident.values():
        for name, _ in around:
            bits.setdefault(name, [helper(f"{prefix}w_{name}_{k}") for k in (0, 1)])
    guarded = any(guard.get(node, "true") not in ("true", "false") for node in incident)
    lifted = any(guard.get(node, "true") != "true" for node in incident)
    # One predicate per set of directions a node has edges in (u, l, r, d: up, left, right, down),
    # holding the rule for every pair of its edges.
    shapes = {}
    calls = []
    for node, around in incident.items():
        when = guard.get(node, "true")
        if when == "false" or len(around) < 2:
            continue
        ordered = sorted(around, key=lambda edge: _ULRD.index(_heading(node, edge[1])))
        shape = "".join("ulrd"[_ULRD.index(_heading(node, other))] for _, other in ordered)
        shapes[shape] = None
        args = [name for name, _ in ordered] + [bit for name, _ in ordered for bit in bits[name]]
        calls.append(f"({prefix}turns_{shape} {when + ' ' if guarded else ''}{' '.join(args)})")
    out.comment(f"_{prefix}w_E_0/1: the 2-bit number K of edge E; 2K + (0 across, 1 down) is the direction of travel"
                " along E in quarter turns, counted modulo 8")
    out.comment("where two edges on meet, the number changes by the turn made there; a closed circuit turns by 4"
                " quarter turns in all, which is not 0 modulo 8, so there is none"
                + (" except through the root, where the rule is lifted" if lifted else ""))
    out.comment(f"({prefix}turns_ulrd {'G ' if guarded else ''}U L R D U0 U1 L0 L1 R0 R1 D0 D1): the rule at a node with"
                " edges U, L, R, D up, left, right, down (K of U: U0 + 2 U1)"
                + (", unless G is false" if guarded else "") + "; other letters, other edges")
    for shape in shapes:
        out.add(_turns_predicate(prefix, shape, guarded))
    out.extend(f"(bool {name})" for pair in bits.values() for name in pair)
    out.extend(calls)


# The headings from a node to its neighbours up, left, right and down (the order of `_turns_predicate`'s edges).
_ULRD = (1, 2, 0, 3)


def _turns_predicate(prefix: str, shape: str, guarded: bool) -> str:
    """``(predicate ({prefix}turns_SHAPE [G] E... E0 E1...) ...)``: the turn rule for every pair of a node's edges."""
    edges = [letter.upper() for letter in shape]
    clauses = []
    for first, second in itertools.combinations(edges, 2):
        into = (_ULRD["ULRD".index(first)] + 2) % 4  # travelling in from that neighbour
        onwards = _ULRD["ULRD".index(second)]
        turn = (onwards - into + 1) % 4 - 1  # -1, 0 or +1 (a line never goes back along itself)
        change = (into % 2 + turn - onwards % 2) // 2  # of K: 2K + axis goes up by the turn
        off = f"{'(! G) ' if guarded else ''}(= {first} 0) (= {second} 0)"
        x, y = [f"{first}0", f"{first}1"], [f"{second}0", f"{second}1"]
        if change == -1:
            x, y = y, x
        if change == 0:  # Y = X
            pairs = [(f"(! {x[k]})", y[k]) for k in (0, 1)] + [(x[k], f"(! {y[k]})") for k in (0, 1)]
            clauses += [f"(or {off} {a} {b})" for a, b in pairs]
        else:  # Y = X + 1 modulo 4: Y0 = not X0, Y1 = X1 xor X0 (the carry of bit 0)
            clauses += [f"(or {off} {x[0]} {y[0]})", f"(or {off} (! {x[0]}) (! {y[0]}))",
                        f"(or {off} (! {y[1]}) {x[1]} {x[0]})", f"(or {off} (! {y[1]}) (! {x[1]}) (! {x[0]}))",
                        f"(or {off} {y[1]} (! {x[1]}) {x[0]})", f"(or {off} {y[1]} {x[1]} (! {x[0]}))"]
    params = ("G " if guarded else "") + " ".join(edges + [f"{e}{k}" for e in edges for k in (0, 1)])
    return f"(predicate ({prefix}turns_{shape.lower()} {params}) (and {' '.join(clauses)}))"


def predecessor_choice(out: CspText, name: str, link: str, step: str, number: Sequence[str],
                       outgoing: Sequence[str]) -> str:
    """Declare the hidden Boolean "this node takes that one as its predecessor" (``_{name}``) and return it.

    It requires `link` (the formula joining the two nodes) and, through the
    `step` predicate of `step_numbers`, makes the node's `number` bits equal to
    the predecessor's `outgoing` bits.
    """
    choice = helper(name)
    out.add(f"(bool {choice})")
    out.add(f"(=> {choice} {link})")
    out.add(f"({step} {choice} {' '.join([*number, *outgoing])})")
    return choice


def connected_rule(
    out: CspText,
    cells: Sequence[Pos],
    inside: Callable[[Pos], str],
    rows: int,
    cols: int,
    what: str,
    prefix: str = "",
) -> None:
    """Write "the cells for which `inside` holds are orthogonally connected" in plain Sugar.

    `cells` are the cells that may be inside (in reading order), `inside(cell)`
    the formula saying one is. `what` names the cells in the block comment;
    `prefix` keeps the hidden names of two such rules in one file apart.

    Encoding: the root is the first inside cell in reading order (a prefix chain
    of Booleans ``_{prefix}s_R_C``, "some cell up to here is inside"). Every
    other inside cell points to one inside neighbour, its parent
    (``_{prefix}a_R_C_D``, D = 0..3 for up, left, right, down; at most one, and
    never two cells to each other), so following parents from any inside cell
    ends at the root unless it runs round a circuit. A circuit of parents is a
    simple closed path on the grid and turns by four quarter turns in all (as in
    `winding_rule`): every cell has a Boolean ``_{prefix}k_R_C``, the number of
    whole turns made modulo 2 when the parent's direction is counted in quarter
    turns, which changes between a cell and its parent exactly when the one
    points right and the other down (the direction count passes 0 = 4 there). Round a
    circuit it would change an odd number of times: there is none. One Boolean
    and up to 19 clauses per cell, where W-bit numbers with increments and
    copies (`step_numbers`) took about 100. An inside cell other than the root
    has an inside neighbour: implied, but stated on the inside formulas.
    """
    allowed = set(cells)
    out.block(
        f"Rule: {what} are connected",
        f"the first of them in reading order is the root (_{prefix}s_R_C: one of them lies up to R,C);",
        f"any other has one of them as parent _{prefix}a_R_C_D (D: 0 up, 1 left, 2 right, 3 down) before it,",
        "and no circuit of parents closes (the turn count _{0}k_R_C below):".format(prefix),
    )
    parent = {}
    for cell in cells:
        r, c = cell
        for d, other in enumerate(((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))):
            if other in allowed:
                parent[cell, d] = helper(f"{prefix}a_{r}_{c}_{d}")
    previous = "false"
    for cell in cells:
        here = inside(cell)
        mark = helper(f"{prefix}s_{cell[0]}_{cell[1]}")
        around = [inside(other) for other in neighbours(*cell, rows, cols) if other in allowed]
        if previous != "false":
            # Implied by the parents, stated on the inside formulas alone so that the solver sees a cell
            # walled off without going through them (the same for the root, with a chain of "one of
            # them lies after R,C", cost more text than it saved conflicts: Hitori, Heyawake, Nurikabe).
            out.add(f"(=> (and {here} {previous}) {any_true(around)})")
        out.add(f"(bool {mark})")
        out.add(f"(iff {mark} {here})" if previous == "false" else f"(iff {mark} (or {previous} {here}))")
        r, c = cell
        choices = []
        for d, other in enumerate(((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))):
            if (cell, d) in parent:
                out.add(f"(bool {parent[cell, d]})")
                out.add(f"(=> {parent[cell, d]} {inside(other)})")
                choices.append(parent[cell, d])
        if previous != "false":
            out.add(f"(=> (and {here} {previous}) {any_true(choices)})")
        previous = mark
    out.comment(f"_{prefix}k_R_C: whole turns modulo 2 of the parent's direction (quarter turns from 'right',")
    out.comment("counted up for 'up'); a circuit of parents would turn by four quarter turns, so it cannot close")
    out.comment(f"({prefix}parent_ulrd K AU AL AR AD KU KL KR KD RL RD DU DR): the rule at a cell with neighbours up,")
    out.comment("left, right and down: at most one parent A; with one up or left, its K equals the cell's; with")
    out.comment("the one right (R), the K differ exactly when R's parent is down (RD), and R's is not the cell (RL);")
    out.comment("with the one down (D) likewise for D's parent right (DR) and up (DU); other letters, other neighbours")
    shapes = {}
    calls = []
    k = {cell: helper(f"{prefix}k_{cell[0]}_{cell[1]}") for cell in cells}
    for cell in cells:
        r, c = cell
        shape = "".join(letter for d, letter in enumerate("ulrd") if (cell, d) in parent)
        if not shape:
            continue
        shapes[shape] = None
        up, left, right, down = (r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)
        args = [k[cell]] + [parent[cell, d] for d in range(4) if (cell, d) in parent]
        args += [k[other] for d, other in enumerate((up, left, right, down)) if (cell, d) in parent]
        if "r" in shape:
            args += [parent.get((right, 1), "false"), parent.get((right, 3), "false")]
        if "d" in shape:
            args += [parent.get((down, 0), "false"), parent.get((down, 2), "false")]
        calls.append(f"({prefix}parent_{shape} {' '.join(args)})")
    for shape in shapes:
        out.add(_parent_predicate(prefix, shape))
    out.extend(f"(bool {name})" for name in k.values())
    out.extend(calls)


def _parent_predicate(prefix: str, shape: str) -> str:
    """``(predicate ({prefix}parent_SHAPE K A... K... [RL RD] [DU DR]) ...)``: see `connected_rule`."""
    letters = [x.upper() for x in shape]
    a = [f"A{x}" for x in letters]
    ks = [f"K{x}" for x in letters]
    clauses = [f"(or (! {x}) (! {y}))" for x, y in itertools.combinations(a, 2)]
    for x in letters:
        same = [f"(or (! A{x}) (! K) K{x})", f"(or (! A{x}) K (! K{x}))"]
        differ = [f"(or (! A{x}) K K{x})", f"(or (! A{x}) (! K) (! K{x}))"]
        if x in "UL":
            clauses += same
        else:
            back, turn = ("RL", "RD") if x == "R" else ("DU", "DR")
            clauses.append(f"(or (! A{x}) (! {back}))")
            clauses += [f"(or {turn} {part[4:]}" for part in same]
            clauses += [f"(or (! {turn}) {part[4:]}" for part in differ]
    extra = (["RL", "RD"] if "R" in letters else []) + (["DU", "DR"] if "D" in letters else [])
    return f"(predicate ({prefix}parent_{shape} K {' '.join(a + ks + extra)}) (and {' '.join(clauses)}))"


def not_touching_rule(out: CspText, rows: int, cols: int, shaded: Callable[[Pos], str], what: str) -> None:
    """Write "no two cells for which `shaded` holds share an edge" (`what` names them in the comment)."""
    out.block(f"Rule: {what} never share an edge")
    for r in range(rows):
        for c in range(cols):
            for other in ((r, c + 1), (r + 1, c)):
                if other[0] < rows and other[1] < cols:
                    out.add(f"(not (and {shaded((r, c))} {shaded(other)}))")


def touching_violations(solution: Sequence[str], mark: str, what: str) -> list[Violation]:
    """A violation for each pair of `mark` cells of a character grid that share an edge."""
    found = []
    rows, cols = len(solution), len(solution[0])
    for r in range(rows):
        for c in range(cols):
            for other in ((r, c + 1), (r + 1, c)):
                if other[0] < rows and other[1] < cols and solution[r][c] == mark == solution[other[0]][other[1]]:
                    found.append(Violation(f"{what} never share an edge, and this one touches {cell_name(*other)}",
                                           cell_name(r, c)))
    return found


def split_violations(solution: Sequence[str], inside: Callable[[str], bool], what: str) -> list[Violation]:
    """A violation when the cells of a character grid for which `inside` holds are not connected."""
    parts = connected((r, c) for r, row in enumerate(solution) for c, ch in enumerate(row) if inside(ch))
    if len(parts) < 2:
        return []
    return [Violation(f"{what} are connected, and they fall into {len(parts)} parts",
                      f"the part at {cell_name(*min(parts[1]))}")]


# ---------------------------------------------------------------- exact cover


@dataclass(frozen=True)
class Chooser:
    """An item that picks exactly one of its options (a clue's rectangle, a piece's placement).

    `var` is the int variable holding the option number (1-based), `ident` the
    value cell variables take when this item covers them, `options` the cells of
    each option.
    """

    var: str
    ident: int
    options: tuple[tuple[Pos, ...], ...]


def exact_cover(
    out: CspText,
    choosers: Sequence[Chooser],
    cells: Sequence[Pos],
    cell_var: Callable[[Pos], str],
    titles: tuple[str, str, str],
) -> None:
    """Write the exact-cover rules: each chooser picks one option, each cell is covered exactly once.

    Exactly-one per item and per cell come free with int variables (an int has
    exactly one value); the link says "cell x is owned by item i" iff "item i
    picked an option covering x". Option numbers are listed per cell as ranges,
    which keeps the text short because options are generated in scan order.
    `titles` are the comments of the three blocks (choices, owners, links).
    Raises `PuzzleError` (without position) when some cell no option covers.
    """
    covering: dict[Pos, dict[int, list[int]]] = {cell: {} for cell in cells}
    for ch in choosers:
        for number, option in enumerate(ch.options, 1):
            for cell in option:
                covering[cell].setdefault(ch.ident, []).append(number)
    for cell, owners in covering.items():
        if not owners:
            raise PuzzleError(f"no piece or rectangle can cover the cell at row {cell[0]}, column {cell[1]}")
    by_ident = {ch.ident: ch for ch in choosers}
    out.block(titles[0])
    out.extend(f"(int {ch.var} 1 {len(ch.options)})" for ch in choosers)
    out.block(titles[1])
    out.extend(int_decl(cell_var(cell), sorted(covering[cell])) for cell in cells)
    out.block(titles[2])
    for cell in cells:
        owners = covering[cell]
        name = cell_var(cell)
        for ident, numbers in owners.items():
            chooser = by_ident[ident]
            # When every option covers the cell the link is just "the owner is this item".
            if len(numbers) == len(chooser.options):
                if len(owners) > 1:
                    out.add(f"(= {name} {ident})")
            elif len(owners) == 1:
                out.add(any_of(chooser.var, numbers))
            else:
                out.add(f"(iff (= {name} {ident}) {any_of(chooser.var, numbers)})")


def chosen_options(choosers: Sequence[Chooser], values: Values) -> dict[int, int]:
    """The option each chooser picked in a solution: ident -> 0-based option index.

    Raises `PuzzleError` when a variable is missing or out of range.
    """
    picked = {}
    for ch in choosers:
        number = need(values, ch.var)
        if not 1 <= number <= len(ch.options):
            raise PuzzleError(f"{ch.var} = {number} is not an option number (1..{len(ch.options)})")
        picked[ch.ident] = number - 1
    return picked


# ---------------------------------------------------------------- drawings


def region_drawing(labels: Sequence[Sequence[object]], inside: Callable[[int, int], str]) -> str:
    """A terminal picture of a grid split into regions: ``+ - |`` borders between different labels.

    `labels[r][c]` identifies the region of each cell; `inside(r, c)` gives the
    characters drawn in the cell (three as a rule). Every cell is as wide as the widest of them,
    at least three, so a long mark (a two-digit number in brackets) widens every column
    instead of pushing its row out of line; shorter marks are centred.
    """
    rows, cols = len(labels), len(labels[0])
    marks = [[inside(r, c) for c in range(cols)] for r in range(rows)]
    width = max(3, max(len(m) for row in marks for m in row))

    def label(r: int, c: int) -> object:
        return labels[r][c] if 0 <= r < rows and 0 <= c < cols else None

    out = []
    for r in range(rows + 1):
        line = []
        for c in range(cols + 1):
            around = {label(r - 1, c - 1), label(r - 1, c), label(r, c - 1), label(r, c)}
            line.append("+" if len(around) > 1 else " ")
            if c < cols:
                line.append("-" * width if label(r - 1, c) != label(r, c) else " " * width)
        out.append("".join(line).rstrip())
        if r < rows:
            line = []
            for c in range(cols + 1):
                line.append("|" if label(r, c - 1) != label(r, c) else " ")
                if c < cols:
                    line.append(f"{marks[r][c]:^{width}}")
            out.append("".join(line).rstrip())
    return "\n".join(out) + "\n"


def cell_width(marks: Iterable[str], least: int = 3) -> int:
    """The width of a drawing's cells: `least`, or the longest of `marks` when that is longer."""
    return max([least, *(len(m) for m in marks)])


PALETTE = (
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#dbdb8d", "#9edae5", "#fdd0a2", "#c7e9c0", "#dadaeb",
)


class Svg:
    """A standalone SVG picture of a grid, cell size `unit` pixels, drawn by hand as text."""

    def __init__(self, rows: int, cols: int, unit: int = 32, margin: int = 4) -> None:
        self.unit, self.margin = unit, margin
        self.width = cols * unit + 2 * margin
        self.height = rows * unit + 2 * margin
        self.parts: list[str] = []

    def _xy(self, r: float, c: float) -> tuple[float, float]:
        return self.margin + c * self.unit, self.margin + r * self.unit

    def cell(self, r: int, c: int, fill: str) -> None:
        """Fill one cell."""
        x, y = self._xy(r, c)
        self.parts.append(f'<rect x="{x}" y="{y}" width="{self.unit}" height="{self.unit}" fill="{fill}"/>')

    def line(self, r1: float, c1: float, r2: float, c2: float, width: float = 1, color: str = "black") -> None:
        """A straight line between two grid points (row, column coordinates)."""
        x1, y1 = self._xy(r1, c1)
        x2, y2 = self._xy(r2, c2)
        self.parts.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}"'
            ' stroke-linecap="square"/>'
        )

    def text(self, r: int, c: int, text: str, bold: bool = False, color: str = "black",
             at: tuple[float, float] = (0.5, 0.5), scale: float = 1.0) -> None:
        """Text centred in a cell (`bold` for a given number, `color` e.g. white on a black cell), or centred
        at another point `at` of the cell (row and column fractions) in a font `scale` times the usual."""
        x, y = self._xy(r + at[0], c + at[1])
        weight = ' font-weight="bold"' if bold else ""
        fill = f' fill="{color}"' if color != "black" else ""
        self.parts.append(
            f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{self.unit * 0.55 * scale:.0f}"{weight}{fill}'
            f' text-anchor="middle" dominant-baseline="central">{_xml_escape(text)}</text>'
        )

    def regions(self, labels: Sequence[Sequence[object]], colours: Mapping[object, str] | None = None) -> None:
        """Thin grid lines, then thick borders between cells of different labels and around the board."""
        rows, cols = len(labels), len(labels[0])
        for r in range(rows):
            for c in range(cols):
                if colours is not None and labels[r][c] in colours:
                    self.cell(r, c, colours[labels[r][c]])
        for r in range(1, rows):
            self.line(r, 0, r, cols, 0.5, "#999999")
        for c in range(1, cols):
            self.line(0, c, rows, c, 0.5, "#999999")
        for r in range(rows):
            for c in range(cols):
                if c + 1 < cols and labels[r][c] != labels[r][c + 1]:
                    self.line(r, c + 1, r + 1, c + 1, 3)
                if r + 1 < rows and labels[r][c] != labels[r + 1][c]:
                    self.line(r + 1, c, r + 1, c + 1, 3)
        for r1, c1, r2, c2 in ((0, 0, 0, cols), (rows, 0, rows, cols), (0, 0, rows, 0), (0, cols, rows, cols)):
            self.line(r1, c1, r2, c2, 3)

    def document(self) -> str:
        """The SVG file text."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}"'
            f' viewBox="0 0 {self.width} {self.height}">'
        )
        background = f'<rect width="{self.width}" height="{self.height}" fill="white"/>'
        return "\n".join([head, background, *self.parts, "</svg>"]) + "\n"


def number_rows(grid: Sequence[Sequence[int]]) -> str:
    """A grid of numbers as answer text: one line per row, numbers separated by spaces."""
    return "".join(" ".join(map(str, row)) + "\n" for row in grid)


def region_cells(labels: Sequence[Sequence[int]]) -> list[list[Pos]]:
    """The cells of each region of a grid labelled 0, 1, ..., by label, each in reading order."""
    out: list[list[Pos]] = [[] for _ in range(1 + max(max(row) for row in labels))]
    for r, row in enumerate(labels):
        for c, k in enumerate(row):
            out[k].append((r, c))
    return out


def decode_marks(values: Values, var: Callable[[Pos], str], rows: int, cols: int, on: str, off: str) -> list[str]:
    """A 0/1 answer grid (``var(cell)`` per cell) as one string per row, `on` for 1 and `off` for 0.

    Raises `PuzzleError` for a missing value or one other than 0 and 1.
    """
    return ["".join(on if need_in(values, var((r, c)), 0, 1, "0 or 1") else off for c in range(cols))
            for r in range(rows)]


def render_marks(
    labels: Sequence[Sequence[object]],
    solution: Sequence[str],
    fmt: str,
    inside: Callable[[int, int], str],
    paint: Callable[[Svg, int, int], None],
    colours: bool = True,
) -> str:
    """Render a one-character-per-cell answer: ``answer`` is the rows themselves, ``drawing`` the
    `region_drawing` of `labels` with `inside`, ``svg`` the regions (in `PALETTE` colours unless not
    `colours`) with `paint` called on every cell."""
    check_format(fmt)
    if fmt == "answer":
        return "".join(row + "\n" for row in solution)
    if fmt == "drawing":
        return region_drawing(labels, inside)
    svg = Svg(len(labels), len(labels[0]))
    names = sorted({k for row in labels for k in row}, key=str)
    svg.regions(labels, {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(names)} if colours else {})
    for r in range(len(labels)):
        for c in range(len(labels[0])):
            paint(svg, r, c)
    return svg.document()


def render_shading(labels: Sequence[Sequence[object]], solution: Sequence[str], fmt: str,
                   marks: Mapping[Pos, str], shaded: str = "#") -> str:
    """`render_marks` for a shading (``#`` cells) with numbers `marks` in some cells: shaded cells are
    drawn ``###`` (``#N#``, ``#12#`` with a number; every cell as wide as the widest, numbers
    right-aligned) and filled dark
    in the SVG, numbers white on them."""
    width = cell_width(f"#{m}#" for m in marks.values())

    def inside(r: int, c: int) -> str:  # numbers right-aligned, so that their last digits line up
        mark = marks.get((r, c), "")
        if solution[r][c] != shaded:
            return f" {mark:>{width - 2}} "
        return f"#{mark:#>{width - 2}}#"

    def paint(svg: Svg, r: int, c: int) -> None:
        if solution[r][c] == shaded:
            svg.cell(r, c, "#333333")
        if (r, c) in marks:
            svg.text(r, c, marks[r, c], color="white" if solution[r][c] == shaded else "black")

    return render_marks(labels, solution, fmt, inside, paint, colours=len({k for row in labels for k in row}) > 1)


def check_format(fmt: str) -> None:
    """Raise ValueError for a render format other than drawing, answer or svg."""
    if fmt not in ("drawing", "answer", "svg"):
        raise ValueError(f"unknown format {fmt!r}; use drawing, answer or svg")


Segment = tuple[Pos, Pos]  # a line segment between a cell and its right or lower neighbour


def segment_name(segment: Segment) -> str:
    """The printed variable of a segment: ``h_R_C`` (to the right of cell R,C) or ``v_R_C`` (below it)."""
    (r, c), (r2, _) = segment
    return f"{'v' if r2 > r else 'h'}_{r}_{c}"


def segment_picture(rows: int, cols: int, mark: Callable[[int, int], str], segments: "set[Segment]",
                    width: int) -> str:
    """Cells as marks at least `width` wide joined by ``-`` and ``|`` where `segments` holds the pair
    (left or upper cell, right or lower cell): the drawing of lines through cell centres.

    A mark longer than `width` (a two-digit number in a one-character answer) widens every cell to
    its length, so the columns stay in line: cell (r, c) always starts at character c * (w + 1) of
    line 2r, where w is that common width; marks and ``|`` are centred in it."""
    marks = [[mark(r, c) for c in range(cols)] for r in range(rows)]
    width = cell_width((m for row in marks for m in row), width)
    lines = []
    for r in range(rows):
        row, below = [], []
        for c in range(cols):
            row.append(f"{marks[r][c]:^{width}}")
            if c + 1 < cols:
                row.append("-" if ((r, c), (r, c + 1)) in segments else " ")
            below.append(f"{'|' if ((r, c), (r + 1, c)) in segments else ' ':^{width}}")
            if c + 1 < cols:
                below.append(" ")
        lines.append("".join(row).rstrip())
        if r + 1 < rows:
            lines.append("".join(below).rstrip())
    return "".join(line + "\n" for line in lines)


def _xml_escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities (what xml.sax.saxutils.escape does; importing it pulls in
    urllib, 20 ms of every puzzle command's start-up)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
