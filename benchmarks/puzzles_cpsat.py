"""Side-by-side benchmark: csp2sat against OR-tools CP-SAT (one worker) on the same puzzle boards.

For each board of the genres named (default: all 17) measures both sides the
same two ways, in CPU seconds (user + system, which the load of a shared
machine does not inflate; wall-clock in the JSON):

- fresh: a process of its own, start-up included. csp2sat: ``csp2sat puzzle
  GENRE FILE``; CP-SAT: this script with ``--one GENRE FILE``, which starts
  Python, imports CP-SAT and the one genre module whose reader parses the
  board, reads it, builds and solves the model and checks the answer;
- warm: the same work in an already running Python (imports, parser tables
  loaded): csp2sat's generate, compile, solve, check and draw; CP-SAT's build,
  solve, decode and check.

With --unique both sides also prove the answer unique: csp2sat with
``--unique``, CP-SAT by solving the model again with the answer excluded.

The models read the boards through the genres' own readers and state the rules
directly with CP-SAT's constraints (AddAllDifferent, sums, AddExactlyOne over
the placements of Shikaku, pentomino and Fillmat blocks, AddCircuit for the
loops of Slitherlink, Masyu and Yajilin). CP-SAT has no connectivity
constraint, so the connected genres (Hashiwokakero, Hitori, Heyawake, LITS,
Nurikabe) use a rooted numbering (an inside node other than the root has an
inside neighbour with a smaller number) and Numberlink ordering variables
along the lines, as CP-SAT users write them. Every model returns the genre's
printed variables, so CP-SAT's answer is decoded by the genre's decoder,
checked by its rule checker (`Genre.check`, as ``draw`` does) and compared
with csp2sat's.

OR-tools is not a dependency of csp2sat: ``.venv/bin/pip install ortools`` first.

usage: .venv/bin/python benchmarks/puzzles_cpsat.py [GENRE...] [--unique] [--boards N] [--repeat N]
           [--json FILE] [--markdown FILE] [--command 'CMD'] [--pycache DIR] [--no-cpsat]
           [--from DIR] (the boards of one genre from DIR, e.g. benchmarks/random_boxes.py's)
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.generators.base import Genre, genre, genre_names  # noqa: E402
from csp2sat.generators.boardkit import neighbours, region_cells, runs, segment_name  # noqa: E402

CSP2SAT = Path(sys.executable).parent / "csp2sat"  # the installed command of this venv
TIME_LIMIT = 60.0
FRESH_ENV: dict | None = None  # the environment of the fresh processes (None: this one's)


# Every model states the rules on CP-SAT variables and returns the board's answer as the genre's printed
# variables (name -> CP-SAT variable or linear expression), so the genre's own decoder reads CP-SAT's
# answer, its rule checker (`Genre.check`, the one `draw` uses) checks it, and its renderer writes it
# for the comparison with csp2sat's answer; uniqueness excludes exactly these values.
Printed = dict  # printed variable name -> CP-SAT variable or linear expression


def _grid(model: Any, rows: int, cols: int, lo: int = 0, hi: int = 1) -> dict:
    return {(r, c): model.NewIntVar(lo, hi, f"x{r}_{c}") for r in range(rows) for c in range(cols)}


def _named(prefix: str, x: dict) -> Printed:
    """Cell variables under the genre's printed names ``PREFIX_R_C``."""
    return {f"{prefix}_{r}_{c}": var for (r, c), var in x.items()}


def _grid_around(cells: Any, rows: int, cols: int) -> dict:
    """Each cell's grid neighbours among `cells`, with no edge literal (always usable)."""
    inside = set(cells)
    return {cell: [(other, None) for other in neighbours(*cell, rows, cols) if other in inside] for cell in inside}


def _rooted(model: Any, member: dict, around: dict, roots: Any = None) -> None:
    """The nodes whose `member` literal is true are connected through the edges whose literal is true
    (`around[node]`: (neighbour, edge literal or None for always)): a rooted numbering as in
    boardkit.connected_rule, where every member but a root has a member neighbour with a smaller
    number. Without `roots` one member is the root (any); with `roots`, exactly those nodes are
    (every member is then connected to one of them)."""
    n = len(member)
    z = {node: model.NewIntVar(1, n, "") for node in member}
    if roots is None:
        root = {node: model.NewBoolVar("") for node in member}
        model.Add(sum(root.values()) <= 1)
    for node, inside in member.items():
        if roots is not None:
            if node in roots:
                model.Add(z[node] == 1)
                continue
            is_root = None
        else:
            is_root = root[node]
            model.AddImplication(is_root, inside)
            model.Add(z[node] == 1).OnlyEnforceIf(is_root)
        lower = []
        for other, edge in around[node]:
            b = model.NewBoolVar("")
            model.AddImplication(b, member[other])
            if edge is not None:
                model.AddImplication(b, edge)
            model.Add(z[other] < z[node]).OnlyEnforceIf(b)
            lower.append(b)
        model.AddBoolOr(lower + [inside.Not()] + ([is_root] if is_root is not None else []))


def _connected(model: Any, x: dict, inside: Callable[[Any], Any], rows: int, cols: int) -> None:
    """Cells with inside(var) true are connected: rooted numbering, as in boardkit.connected_rule."""
    member = {cell: model.NewBoolVar("") for cell in x}
    for cell, var in x.items():
        model.Add(inside(var) == 1).OnlyEnforceIf(member[cell])
        model.Add(inside(var) == 0).OnlyEnforceIf(member[cell].Not())
    _rooted(model, member, _grid_around(x, rows, cols))


def _single_loop(model: Any, edges: dict, on: dict) -> dict:
    """One closed loop by AddCircuit: `edges` maps a key to the two nodes it joins, `on[node]` says the
    loop passes through the node (a node off the loop has its self-loop arc). Returns a Boolean per edge
    key (an arc per direction; an edge is on when either arc is)."""
    index = {node: i for i, node in enumerate(on)}
    arcs = [(index[node], index[node], var.Not()) for node, var in on.items()]
    x = {}
    for key, (a, b) in edges.items():
        x[key] = model.NewBoolVar("")
        forward, backward = model.NewBoolVar(""), model.NewBoolVar("")
        model.Add(forward + backward == x[key])
        arcs += [(index[a], index[b], forward), (index[b], index[a], backward)]
    model.AddCircuit(arcs)
    return x


def _cover(model: Any, options: Any, cells: Any) -> list:
    """A Boolean per option (a set of cells); every cell of `cells` covered by exactly one chosen option."""
    chosen = [model.NewBoolVar("") for _ in options]
    covering: dict = {cell: [] for cell in cells}
    for b, option in zip(chosen, options):
        for cell in option:
            covering[cell].append(b)
    for bs in covering.values():
        model.AddExactlyOne(bs)
    return chosen


def _choosers(model: Any, choosers: Any, cells: Any) -> Printed:
    """Exact cover with choosers (Shikaku's clues, the pentominoes): each picks exactly one of its options,
    each cell is covered once; printed: the 1-based number of the option each chooser picked."""
    flat = [(k, option) for k, ch in enumerate(choosers) for option in ch.options]
    chosen = _cover(model, [option for _, option in flat], cells)
    printed = {}
    for k, ch in enumerate(choosers):
        mine = [b for b, (j, _) in zip(chosen, flat) if j == k]
        model.AddExactlyOne(mine)
        printed[ch.var] = sum(i * b for i, b in enumerate(mine, 1))
    return printed


def model_sudoku(model: Any, p: Any) -> Printed:
    x = _grid(model, p.size, p.size, 1, p.size)
    for cell, v in p.givens.items():
        model.Add(x[cell] == v)
    for _, cells in p.houses():
        model.AddAllDifferent([x[c] for c in cells])
    return _named("x", x)


def model_akari(model: Any, p: Any) -> Printed:
    x = {cell: model.NewBoolVar("") for cell in ((r, c) for r in range(p.rows) for c in range(p.cols)) if p.white(*cell)}
    for (r, c), v in p.black.items():
        if v is not None:
            model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols) if n in x) == v)
    seen: dict = {}
    for run in runs(p.white, p.rows, p.cols):
        model.Add(sum(x[c] for c in run) <= 1)
        for cell in run:
            seen.setdefault(cell, set()).update(run)
    for cell, cells in seen.items():
        model.AddBoolOr([x[c] for c in cells])
    return _named("l", x)


def model_hitori(model: Any, p: Any) -> Printed:
    x = _grid(model, p.rows, p.cols)
    for a, b in p.repeats():
        model.Add(x[a] + x[b] >= 1)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return _named("s", x)


def model_starbattle(model: Any, p: Any) -> Printed:
    x = _grid(model, p.rows, p.cols)
    for _, cells in p.lines():
        model.Add(sum(x[c] for c in cells) == p.stars)
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.Add(x[(r, c)] + x[(r, c + 1)] + x[(r + 1, c)] + x[(r + 1, c + 1)] <= 1)
    return _named("t", x)


def model_norinori(model: Any, p: Any) -> Printed:
    x = _grid(model, p.rows, p.cols)
    for cells in region_cells(p.regions):
        model.Add(sum(x[c] for c in cells) == 2)
    for (r, c), var in x.items():
        model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols)) == 1).OnlyEnforceIf(var)
    return _named("s", x)


def model_heyawake(model: Any, p: Any) -> Printed:
    x = _grid(model, p.rows, p.cols)
    rooms = region_cells(p.rooms)
    for k, v in p.numbers.items():
        if v is not None:
            model.Add(sum(x[c] for c in rooms[k]) == v)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    for run in p.crossings():
        model.Add(sum(x[c] for c in run) >= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return _named("s", x)


def model_kakuro(model: Any, p: Any) -> Printed:
    x = {(r, c): model.NewIntVar(1, 9, "") for r in range(p.rows) for c in range(p.cols) if p.white(r, c)}
    for run, value in p.runs_with_sums():
        if len(run) > 1:
            model.AddAllDifferent([x[c] for c in run])
        if value:
            model.Add(sum(x[c] for c in run) == value)
    return _named("x", x)


def model_lits(model: Any, p: Any) -> Printed:
    from csp2sat.generators.lits import SHAPES

    x = _grid(model, p.rows, p.cols)
    shape_of: dict = {}  # (region, letter) -> "the region's tetromino has this shape"
    for k, options in enumerate(p.options):
        chosen = [model.NewBoolVar("") for _ in options]
        model.AddExactlyOne(chosen)
        for cell in region_cells(p.regions)[k]:
            model.Add(x[cell] == sum(b for b, (_, placed) in zip(chosen, options) if cell in placed))
        for letter in SHAPES:
            of_shape = [b for b, (s, _) in zip(chosen, options) if s == letter]
            if of_shape:
                shape_of[k, letter] = model.NewBoolVar("")
                model.Add(shape_of[k, letter] == sum(of_shape))
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            a, b = p.regions[r][c], p.regions[o[0]][o[1]] if o in x else None
            if o in x and a != b:
                for letter in SHAPES:
                    if (a, letter) in shape_of and (b, letter) in shape_of:
                        model.AddBoolOr([x[(r, c)].Not(), x[o].Not(), shape_of[a, letter].Not(),
                                         shape_of[b, letter].Not()])
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.Add(x[(r, c)] + x[(r, c + 1)] + x[(r + 1, c)] + x[(r + 1, c + 1)] <= 3)
    _connected(model, x, lambda var: var, p.rows, p.cols)
    return _named("s", x)


def model_numberlink(model: Any, p: Any) -> Printed:
    """Segments, a pair number per cell (equal along a segment) and an ordering variable per cell: every
    line cell but the pair's first number has a segment to a cell with a smaller one (no stray loops);
    the rule lines every-cell (pair number >= 1) and no-2x2 (one of a block's pairs differs)."""
    pairs = p.pairs()
    pair_of = {cell: pairs.index(value) + 1 for cell, value in p.numbers.items()}
    first = {}
    for cell, k in sorted(pair_of.items()):
        first.setdefault(k, cell)
    x = {s: model.NewBoolVar("") for s in p.segments()}
    at: dict = {}
    for s in x:
        at.setdefault(s[0], []).append(s)
        at.setdefault(s[1], []).append(s)
    n = p.rows * p.cols
    colour = {cell: model.NewIntVar(pair_of.get(cell, 0), pair_of.get(cell, len(pairs)), "") for cell in at}
    order = {cell: model.NewIntVar(0, 0 if first.get(pair_of.get(cell)) == cell else n, "") for cell in at}
    for cell, around in at.items():
        degree = sum(x[s] for s in around)
        if cell in pair_of:
            model.Add(degree == 1)
            used = None
        else:
            used = model.NewBoolVar("")
            model.Add(degree == 2).OnlyEnforceIf(used)
            model.Add(degree == 0).OnlyEnforceIf(used.Not())
            model.Add(colour[cell] >= 1).OnlyEnforceIf(used)
            model.Add(colour[cell] == 0).OnlyEnforceIf(used.Not())
        if first.get(pair_of.get(cell)) == cell:
            continue
        lower = []
        for s in around:
            other = s[0] if s[1] == cell else s[1]
            b = model.NewBoolVar("")
            model.AddImplication(b, x[s])
            model.Add(order[other] < order[cell]).OnlyEnforceIf(b)
            lower.append(b)
        model.AddBoolOr(lower + ([used.Not()] if used is not None else []))
    for s, var in x.items():
        model.Add(colour[s[0]] == colour[s[1]]).OnlyEnforceIf(var)
    if p.every_cell:  # Arukone: no empty cell
        for cell in at:
            model.Add(colour[cell] >= 1)
    if p.no_2x2:  # no 2x2 block on one line: one of its pairs differs (or its corner is empty)
        for r in range(p.rows - 1):
            for c in range(p.cols - 1):
                tl, tr, bl, br = (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)
                differ = []
                for a, b in ((tl, tr), (tl, bl), (tr, br)):
                    d = model.NewBoolVar("")
                    model.Add(colour[a] != colour[b]).OnlyEnforceIf(d)
                    differ.append(d)
                model.AddBoolOr(differ + [_empty(model, colour[tl])])
    return {segment_name(s): var for s, var in x.items()}


def _empty(model: Any, colour: Any) -> Any:
    """A Boolean that implies `colour` == 0 (a cell off every line)."""
    e = model.NewBoolVar("")
    model.Add(colour == 0).OnlyEnforceIf(e)
    return e


def model_yajilin(model: Any, p: Any) -> Printed:
    """Segments and the single loop by AddCircuit (a skipped cell is shaded), shaded cells apart, arrow
    counts."""
    on = {(r, c): model.NewBoolVar("") for r in range(p.rows) for c in range(p.cols) if p.free((r, c))}
    x = _single_loop(model, {s: s for s in p.segments()}, on)
    for a, b in x:
        model.AddBoolOr([on[a], on[b]])
    for cell, (number, arrow) in p.clues.items():
        if arrow and number is not None:
            model.Add(sum(1 - on[o] for o in p.seen(cell)) == number)
    return {segment_name(s): var for s, var in x.items()}


def model_shikaku(model: Any, p: Any) -> Printed:
    """A Boolean per rectangle of a clue's area holding no other clue; each clue picks one, each cell lies
    in exactly one picked rectangle."""
    return _choosers(model, p.choosers, [(r, c) for r in range(p.rows) for c in range(p.cols)])


def model_pentomino(model: Any, p: Any) -> Printed:
    """A Boolean per placement (orientation and offset) of each piece in the box; each piece placed once,
    each box cell covered once."""
    return _choosers(model, p.choosers, p.cells)


def model_slitherlink(model: Any, p: Any) -> Printed:
    """Edges between lattice points, one loop by AddCircuit over the points, clues as sums of a cell's sides."""
    on = {(r, c): model.NewBoolVar("") for r in range(p.rows + 1) for c in range(p.cols + 1)}
    edges = {f"h_{r}_{c}": ((r, c), (r, c + 1)) for r in range(p.rows + 1) for c in range(p.cols)}
    edges.update({f"v_{r}_{c}": ((r, c), (r + 1, c)) for r in range(p.rows) for c in range(p.cols + 1)})
    x = _single_loop(model, edges, on)
    for r, row in enumerate(p.clues):
        for c, clue in enumerate(row):
            if clue is not False and clue is not None:
                model.Add(x[f"h_{r}_{c}"] + x[f"h_{r + 1}_{c}"] + x[f"v_{r}_{c}"] + x[f"v_{r}_{c + 1}"] == clue)
    return x


def model_hashiwokakero(model: Any, p: Any) -> Printed:
    """Bridge counts 0..2 between facing islands, island sums, crossing bridges exclusive, and the islands
    connected through used bridges (rooted numbering)."""
    x = {b.var: model.NewIntVar(0, 2, "") for b in p.bridges}
    used = {b.var: model.NewBoolVar("") for b in p.bridges}
    around: dict = {pos: [] for pos in p.islands}
    for b in p.bridges:
        model.Add(x[b.var] >= 1).OnlyEnforceIf(used[b.var])
        model.Add(x[b.var] == 0).OnlyEnforceIf(used[b.var].Not())
        around[b.a].append((b.b, used[b.var]))
        around[b.b].append((b.a, used[b.var]))
    for pos, count in p.islands.items():
        if count is not None:
            model.Add(sum(x[b.var] for b in p.bridges if pos in (b.a, b.b)) == count)
    for h in p.bridges:
        for v in p.bridges:
            if h.horizontal and not v.horizontal and h.a[1] < v.a[1] < h.b[1] and v.a[0] < h.a[0] < v.b[0]:
                model.AddBoolOr([used[h.var].Not(), used[v.var].Not()])
    member = {pos: model.NewBoolVar("") for pos in p.islands}
    for var in member.values():
        model.Add(var == 1)
    _rooted(model, member, around)
    return x


def model_fillmat(model: Any, p: Any) -> Printed:
    """A Boolean per straight block of 1..4 cells (holding at most one clue, of its size), each cell in
    exactly one block; a cell's size is its block's; neighbours in different blocks differ in size; at
    every inner grid point two of the four cells around it share a block."""
    cells = [(r, c) for r in range(p.rows) for c in range(p.cols)]
    blocks = []
    for r, c in cells:
        for size in range(1, 5):
            for dr, dc in ((0, 1), (1, 0)) if size > 1 else ((0, 1),):
                block = [(r + dr * k, c + dc * k) for k in range(size)]
                clues = [p.clues[cell] for cell in block if cell in p.clues]
                if block[-1][0] < p.rows and block[-1][1] < p.cols and len(clues) <= 1 \
                        and all(v is None or v == size for v in clues):
                    blocks.append(block)
    chosen = _cover(model, blocks, cells)
    size = {cell: model.NewIntVar(1, 4, "") for cell in cells}
    for cell in cells:
        model.Add(size[cell] == sum(len(block) * b for block, b in zip(blocks, chosen) if cell in block))
    together = {}  # (cell, right or lower neighbour) -> "one block holds both"
    for r, c in cells:
        for other in ((r, c + 1), (r + 1, c)):
            if other in size:
                together[(r, c), other] = same = model.NewBoolVar("")
                model.Add(same == sum(b for block, b in zip(blocks, chosen) if (r, c) in block and other in block))
                model.Add(size[(r, c)] != size[other]).OnlyEnforceIf(same.Not())
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            tl, tr, bl, br = (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)
            model.AddBoolOr([together[tl, tr], together[bl, br], together[tl, bl], together[tr, br]])
    return _named("a", size)


def model_masyu(model: Any, p: Any) -> Printed:
    """Links between neighbouring cells, one loop by AddCircuit through every circle; white: straight
    through, turning in a cell next to it; black: a turn, straight on through both cells next to it."""
    on = {(r, c): model.NewBoolVar("") for r in range(p.rows) for c in range(p.cols)}
    edges = {f"h_{r}_{c}": ((r, c), (r, c + 1)) for r in range(p.rows) for c in range(p.cols - 1)}
    edges.update({f"v_{r}_{c}": ((r, c), (r + 1, c)) for r in range(p.rows - 1) for c in range(p.cols)})
    x = _single_loop(model, edges, on)
    off = model.NewConstant(0)

    def link(kind: str, r: int, c: int) -> Any:
        return x.get(f"{kind}_{r}_{c}", off)

    for r, row in enumerate(p.circles):
        for c, circle in enumerate(row):
            if not circle:
                continue
            model.Add(on[(r, c)] == 1)
            # the links left, right / up, down of the cell, and the next ones beyond them
            lines = ((link("h", r, c - 1), link("h", r, c), link("h", r, c - 2), link("h", r, c + 1)),
                     (link("v", r - 1, c), link("v", r, c), link("v", r - 2, c), link("v", r + 1, c)))
            for near_a, near_b, far_a, far_b in lines:
                if circle == "W":
                    model.Add(near_a == near_b)
                    model.AddBoolOr([near_a.Not(), far_a.Not(), far_b.Not()])
                else:
                    model.AddBoolOr([near_a.Not(), near_b.Not()])
                    model.AddImplication(near_a, far_a)
                    model.AddImplication(near_b, far_b)
    return x


def model_nurikabe(model: Any, p: Any) -> Printed:
    """Per cell: shaded, or in the island of one clue that can reach it; unshaded neighbours share the
    island; an island's size is its clue; island cells connected to their clue and the shaded cells
    connected (rooted numberings); no 2x2 shaded square. Printed: the island's clue number, 0 if shaded."""
    cells = [(r, c) for r in range(p.rows) for c in range(p.cols)]
    ids = {cell: n for n, cell in enumerate(p.clue_cells, 1)}
    shaded = {cell: model.NewBoolVar("") for cell in cells}
    island = {(cell, n): model.NewBoolVar("") for cell in cells for n in p.reach[cell]}
    for cell in cells:
        model.AddExactlyOne([shaded[cell]] + [island[cell, n] for n in p.reach[cell]])
    for cell, n in ids.items():
        model.Add(island[cell, n] == 1)
    for r, c in cells:
        for other in ((r, c + 1), (r + 1, c)):
            if other in shaded:
                for a, b in (((r, c), other), (other, (r, c))):
                    for n in p.reach[a]:  # a in island n and b unshaded: b in island n too
                        model.AddBoolOr([island[a, n].Not(), shaded[b]] + ([island[b, n]] if (b, n) in island else []))
    for cell, n in ids.items():
        if p.clues[cell] is not None:
            model.Add(sum(var for (_, k), var in island.items() if k == n) == p.clues[cell])
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.AddBoolOr([shaded[(r, c)].Not(), shaded[(r, c + 1)].Not(),
                             shaded[(r + 1, c)].Not(), shaded[(r + 1, c + 1)].Not()])
    unshaded = {cell: var.Not() for cell, var in shaded.items()}
    _rooted(model, unshaded, _grid_around(cells, p.rows, p.cols), roots=set(ids))
    _rooted(model, shaded, _grid_around(cells, p.rows, p.cols))
    return {f"g_{r}_{c}": sum(n * island[(r, c), n] for n in p.reach[(r, c)]) for r, c in cells}


MODELS = {"sudoku": model_sudoku, "akari": model_akari, "hitori": model_hitori, "starbattle": model_starbattle,
          "norinori": model_norinori, "heyawake": model_heyawake, "kakuro": model_kakuro, "lits": model_lits,
          "numberlink": model_numberlink, "yajilin": model_yajilin, "shikaku": model_shikaku,
          "pentomino": model_pentomino, "slitherlink": model_slitherlink, "hashiwokakero": model_hashiwokakero,
          "fillmat": model_fillmat, "masyu": model_masyu, "nurikabe": model_nurikabe}


def _solve(model: Any, cp_model: Any) -> tuple[Any, int]:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = TIME_LIMIT
    status = solver.Solve(model)
    return solver, status


def run_cpsat(g: Genre, puzzle: Any, unique: bool = False) -> dict:
    """Build and solve the CP-SAT model of a board with one worker, decode the answer with the genre's
    decoder and check it with the genre's rule checker; with `unique`, build the model again with the
    answer's printed values excluded and solve that. Seconds (wall) of each step, CPU seconds of the
    whole, the answer rows, the broken rules (none expected) and the verdict."""
    from ortools.sat.python import cp_model

    c0, t0 = time.process_time(), time.perf_counter()
    model = cp_model.CpModel()
    x = MODELS[g.name](model, puzzle)
    t1 = time.perf_counter()
    solver, status = _solve(model, cp_model)
    t2 = time.perf_counter()
    out: dict = {"build": t1 - t0, "solve": t2 - t1, "answer": None, "broken": []}
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        out["verdict"] = "none" if status == cp_model.INFEASIBLE else "unknown"
        out["cpu"] = time.process_time() - c0
        if unique:  # no answer: nothing more to prove
            out["unique"], out["unique_cpu"] = 0.0, out["cpu"]
        return out
    values = {name: solver.Value(var) for name, var in x.items()}
    solution = g.decode(puzzle, values)
    out["broken"] = [str(v) for v in g.check(puzzle, solution)]
    out["answer"] = g.render(puzzle, solution, "answer").split("\n")[:-1]
    out["cpu"] = time.process_time() - c0
    if unique:
        t3 = time.perf_counter()
        model = cp_model.CpModel()
        x = MODELS[g.name](model, puzzle)
        differs = []
        for name, var in x.items():
            b = model.NewBoolVar("")
            model.Add(var != values[name]).OnlyEnforceIf(b)
            differs.append(b)
        model.AddBoolOr(differs)
        _, status = _solve(model, cp_model)
        out["unique"] = time.perf_counter() - t3
        out["unique_cpu"] = time.process_time() - c0  # the whole: first answer and the proof
        out["verdict"] = ("unique" if status == cp_model.INFEASIBLE else
                          "MULTIPLE" if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else "unknown")
    return out


def _run_one(genre_name: str, path: Path, unique: bool) -> int:
    """The CP-SAT side as its own program (`--one`): import CP-SAT and the one genre module whose reader
    parses the board, read, build, solve, decode and check; print run_cpsat's figures as JSON."""
    from ortools.sat.python import cp_model  # noqa: F401  (imported here, as a CP-SAT script does)

    g = importlib.import_module(f"csp2sat.generators.{genre_name}").GENRE
    print(json.dumps(run_cpsat(g, g.read(path.read_text(encoding="utf-8")), unique)))
    return 0


def _timed(command: list[str]) -> dict:
    """Run `command` in a fresh process: wall and CPU seconds (user + system of the child), exit status, output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=FRESH_ENV)
    try:
        stdout, stderr = proc.communicate(timeout=TIME_LIMIT)
        wall: float | None = time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        wall = None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "returncode": proc.returncode, "stdout": stdout, "stderr": stderr}


def run_fresh(genre_name: str, path: Path, unique: bool, csp2sat: list[str]) -> dict:
    """`csp2sat puzzle GENRE FILE` in a fresh process: wall and CPU seconds (user + system), answer rows."""
    command = [*csp2sat, "puzzle", genre_name, str(path), "--format", "answer"] + (["--unique"] if unique else [])
    ran = _timed(command)
    if ran["wall"] is None:
        return {"wall": None, "cpu": ran["cpu"], "answer": None, "verdict": f"timeout ({TIME_LIMIT:.0f} s wall)"}
    code, stderr = ran["returncode"], ran["stderr"]
    verdict = ("unique" if "is unique" in stderr else "MULTIPLE" if "NOT unique" in stderr else
               "none" if code == 1 else "" if code == 0 else f"exit {code}")
    return {"wall": ran["wall"], "cpu": ran["cpu"], "answer": ran["stdout"].split("\n")[:-1] if code == 0 else None,
            "verdict": verdict}


def run_cpsat_fresh(genre_name: str, path: Path, unique: bool) -> dict:
    """The CP-SAT side in a fresh Python (`--one`): wall and CPU seconds, and what run_cpsat reports."""
    ran = _timed([sys.executable, str(Path(__file__).resolve()), "--one", genre_name, str(path)]
                 + (["--unique"] if unique else []))
    if ran["wall"] is None or ran["returncode"] != 0:
        failed = f"timeout ({TIME_LIMIT:.0f} s wall)" if ran["wall"] is None else f"exit {ran['returncode']}"
        return {"wall": ran["wall"], "cpu": ran["cpu"], "answer": None, "verdict": failed, "broken": []}
    return {**json.loads(ran["stdout"]), "wall": ran["wall"], "cpu_process": ran["cpu"]}


def in_process_cpu(g: Genre, puzzle: Any, unique: bool) -> tuple[float, Any]:
    """CPU seconds of csp2sat's pipeline in this (warm) process: generate, compile, solve, check, draw."""
    from csp2sat.generators.run import solve_puzzle

    c0 = time.process_time()
    run = solve_puzzle(g, puzzle, unique=unique)
    if run.solution is not None:
        g.render(puzzle, run.solution, "drawing")
    return time.process_time() - c0, run


def import_cost() -> float:
    """CPU seconds of a fresh Python that imports CP-SAT (least of three): part of every fresh CP-SAT run."""
    return min(_timed([sys.executable, "-c", "from ortools.sat.python import cp_model"])["cpu"] for _ in range(3))


def _fmt(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def _least(runs: list[dict], key: str) -> dict:
    """The run with the least `key` (CPU seconds) of repeated runs; a failed run counts as slowest."""
    return min(runs, key=lambda run: float("inf") if run.get(key) is None else run[key])


def main() -> int:
    """Time both solvers on the boards of the chosen genres; one line per board, optionally JSON + Markdown."""
    global TIME_LIMIT, FRESH_ENV
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help="genres to run (default: every genre)")
    parser.add_argument("--unique", action="store_true", help="also time the uniqueness check on both sides")
    parser.add_argument("--boards", type=int, default=0,
                        help="at most N boards per genre: the largest N (default: all)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run every measurement N times and keep the least CPU time (default 1)")
    parser.add_argument("--command", default=str(CSP2SAT),
                        help="the csp2sat command timed in a fresh process (default: this venv's; e.g. another"
                             " checkout's 'python -m csp2sat', to compare branches)")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                        help=f"seconds (wall-clock) per run on either side (default {TIME_LIMIT:.0f})")
    parser.add_argument("--pycache", type=Path,
                        help="let the fresh processes (both sides) cache compiled bytecode in this directory (as"
                             " an installed package has it), even where PYTHONDONTWRITEBYTECODE is set; warmed up first")
    parser.add_argument("--no-cpsat", action="store_true", help="time csp2sat only")
    parser.add_argument("--from", dest="source", type=Path, metavar="DIR",
                        help="the boards of the one genre named from DIR instead of data/ (e.g. boards that"
                             " benchmarks/random_boxes.py wrote)")
    parser.add_argument("--json", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--markdown", type=Path, help="write the table to this Markdown file")
    parser.add_argument("--one", nargs=2, metavar=("GENRE", "FILE"), help=argparse.SUPPRESS)  # the CP-SAT child
    args = parser.parse_args()
    TIME_LIMIT = args.time_limit
    if args.one:
        return _run_one(args.one[0], Path(args.one[1]), args.unique)
    from scripts.regen_csp import GENRE_DIRS, puzzle_files

    names = [genre(name).name for name in args.genres or genre_names()]
    if args.source and len(names) != 1:
        parser.error("--from DIR needs exactly one genre")

    def boards(name: str) -> list[Path]:
        if args.source:
            return sorted(p for p in args.source.glob("*.txt") if not p.name.endswith(".solution.txt"))
        return puzzle_files(GENRE_DIRS[name])
    cpsat = not args.no_cpsat
    if args.pycache:
        FRESH_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        FRESH_ENV["PYTHONPYCACHEPREFIX"] = str(args.pycache.resolve())
        for name in names:  # every genre's modules compiled once, untimed
            first = boards(name)[0]
            run_fresh(name, first, True, args.command.split())
            if cpsat:
                run_cpsat_fresh(name, first, True)
    warm = genre(names[0])  # the in-process figures leave out start-up: imports and parser tables loaded first
    in_process_cpu(warm, warm.read(boards(warm.name)[0].read_text(encoding="utf-8")), True)
    imports = None
    if cpsat:
        from ortools.sat.python import cp_model  # noqa: F401
        imports = import_cost()
        print(f"a fresh Python importing CP-SAT: {imports:.3f} s CPU")
    print("CPU seconds; fresh = a process of its own (start-up included), warm = in a running Python")
    print(f"{'board':40s} {'fresh':>6s} {'cp-sat':>6s} {'warm':>6s} {'cp-sat':>6s}"
          + ("  | unique: fresh cp-sat   warm cp-sat  verdicts" if args.unique else "") + "  answers")
    rows = []
    for name in names:
        g = genre(name)
        paths = boards(g.name)
        if args.boards:
            paths = sorted(paths, key=lambda q: (-_cells(q), q.name))[:args.boards]
        for path in paths:
            puzzle = g.read(path.read_text(encoding="utf-8"))
            row: dict = {"genre": g.name, "board": path.stem, "cells": _cells(path)}
            for unique in (False, True) if args.unique else (False,):
                key = "unique_" if unique else ""
                warm_runs = [in_process_cpu(g, puzzle, unique) for _ in range(args.repeat)]
                fresh = _least([run_fresh(g.name, path, unique, args.command.split()) for _ in range(args.repeat)], "cpu")
                run = warm_runs[0][1]
                row.update({f"{key}csp2sat_cpu": fresh["cpu"], f"{key}csp2sat_wall": fresh["wall"],
                            f"{key}csp2sat_warm_cpu": min(cpu for cpu, _ in warm_runs)})
                if unique:
                    row["unique_verdict"] = fresh["verdict"]
                else:
                    row["cnf_clauses"] = run.stats["cnf_clauses"]
                    mine = None if run.solution is None else g.render(puzzle, run.solution, "answer").split("\n")[:-1]
                if not cpsat:
                    continue
                theirs_fresh = _least([run_cpsat_fresh(g.name, path, unique) for _ in range(args.repeat)], "cpu_process")
                theirs = _least([run_cpsat(g, puzzle, unique) for _ in range(args.repeat)], "unique_cpu" if unique else "cpu")
                row.update({f"{key}cpsat_cpu": theirs_fresh.get("cpu_process"), f"{key}cpsat_wall": theirs_fresh["wall"],
                            f"{key}cpsat_warm_cpu": theirs["unique_cpu" if unique else "cpu"]})
                if theirs["broken"] or theirs_fresh["broken"]:
                    row["cpsat_broken"] = theirs["broken"] or theirs_fresh["broken"]
                if unique:
                    row["cpsat_verdict"] = theirs.get("verdict", "none")
                else:
                    row.update(cpsat_build=theirs["build"], cpsat_solve=theirs["solve"])
                    answer = theirs["answer"]
                    row["answers"] = ("CP-SAT's answer BREAKS A RULE" if row.get("cpsat_broken") else
                                      "both none" if mine is None and answer is None else
                                      "same" if mine == answer else "differ")
            rows.append(row)
            line = (f"{g.name + '/' + path.stem:40s} {_fmt(row['csp2sat_cpu'])} {_fmt(row.get('cpsat_cpu'))}"
                    f" {_fmt(row['csp2sat_warm_cpu'])} {_fmt(row.get('cpsat_warm_cpu'))}")
            if args.unique:
                line += (f"  | {_fmt(row['unique_csp2sat_cpu'])} {_fmt(row.get('unique_cpsat_cpu'))}"
                         f" {_fmt(row['unique_csp2sat_warm_cpu'])} {_fmt(row.get('unique_cpsat_warm_cpu'))}"
                         f"  {row['unique_verdict']}/{row.get('cpsat_verdict', '-')}")
            print(line + f"  {row.get('answers', '')}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": platform.node(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                         time.gmtime()), "time_limit": TIME_LIMIT, "repeat": args.repeat,
                                         "bytecode_cache": bool(args.pycache), "cpsat_import_cpu": imports,
                                         "boards": rows}, indent=1) + "\n")
    if args.markdown:
        args.markdown.write_text(_markdown(rows, args.unique, imports))
    return 0


def _cells(path: Path) -> int:
    """The board's number of cells from its file name (``..._15x15``, ``hexasudoku_16x16``, ``penpa_9x9_2``)."""
    found = re.findall(r"(\d+)x(\d+)", path.stem)
    return int(found[-1][0]) * int(found[-1][1]) if found else 0


def _cpu(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _ratio(mine: float | None, theirs: float | None) -> str:
    """csp2sat's CPU time over CP-SAT's, bold where csp2sat is the slower."""
    if mine is None or not theirs:
        return "-"
    ratio = mine / theirs
    return f"**{ratio:.2f}**" if ratio > 1 else f"{ratio:.2f}"


def _markdown(rows: list[dict], unique: bool, imports: float | None) -> str:
    """The figures as a Markdown table of CPU seconds (wall-clock in the JSON: inflated by the load)."""
    lines = ["CPU seconds (user + system). *fresh*: a process of its own, start-up included — csp2sat:"
             " `csp2sat puzzle GENRE FILE`; CP-SAT: `python benchmarks/puzzles_cpsat.py --one GENRE FILE`, which"
             " starts Python, imports CP-SAT"
             + (f" ({imports:.2f} s alone)" if imports is not None else "")
             + " and the genre's reader, reads the board, builds and solves the model (one worker) and checks the"
             " answer with the genre's rule checker. *warm*: the same work in a running Python, start-up left out."
             " ratio: csp2sat / CP-SAT, fresh (bold: csp2sat the slower).", ""]
    head = "| board | CNF clauses | fresh csp2sat | fresh CP-SAT | ratio | warm csp2sat | warm CP-SAT |"
    if unique:
        head += " --unique fresh csp2sat | CP-SAT | ratio | warm csp2sat | CP-SAT | uniqueness |"
    head += " answers |"
    lines += [head, "|" + "---|" * head.count(" |")]
    for row in rows:
        cells = [f"{row['genre']}/{row['board']}", f"{row['cnf_clauses']:,}", _cpu(row["csp2sat_cpu"]),
                 _cpu(row.get("cpsat_cpu")), _ratio(row["csp2sat_cpu"], row.get("cpsat_cpu")),
                 _cpu(row["csp2sat_warm_cpu"]), _cpu(row.get("cpsat_warm_cpu"))]
        if unique:
            cells += [_cpu(row["unique_csp2sat_cpu"]), _cpu(row.get("unique_cpsat_cpu")),
                      _ratio(row["unique_csp2sat_cpu"], row.get("unique_cpsat_cpu")),
                      _cpu(row["unique_csp2sat_warm_cpu"]), _cpu(row.get("unique_cpsat_warm_cpu")),
                      row["unique_verdict"] + (f" / {row['cpsat_verdict']}" if "cpsat_verdict" in row else "")]
        cells.append(row.get("answers", "-"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
