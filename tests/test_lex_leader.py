"""`boardkit.lex_leader`: the symmetry-breaking lines that counting by classes relies on keep exactly
the least member of every class, checked against brute force on small grids and groups."""

from __future__ import annotations

import itertools

import pytest

from csp2sat.checker import check
from csp2sat.compiler import compile_model
from csp2sat.enumerate import open_space
from csp2sat.generators.boardkit import lex_leader
from csp2sat.parser import parse_text


def _group(rows: int, cols: int, square: bool):
    """The moves other than the identity of the rectangle's (or, `square`, the square's) symmetry group."""
    lr, lc = rows - 1, cols - 1
    moves = [lambda r, c: (lr - r, c), lambda r, c: (r, lc - c), lambda r, c: (lr - r, lc - c)]
    if square:
        moves += [lambda r, c: (c, r), lambda r, c: (lc - c, lr - r), lambda r, c: (c, lr - r), lambda r, c: (lc - c, r)]
    return moves


def _kept(cells, moves, values: int) -> set[tuple[int, ...]]:
    """The cell vectors the lex-leader lines accept, by SAT enumeration."""
    name = {cell: f"_v_{cell[0]}_{cell[1]}" for cell in cells}
    text = "".join(f"(int {name[cell]} 1 {values})\n" for cell in cells)
    text += "\n".join(lex_leader(cells, name.__getitem__, moves)) + "\n"
    model = check(parse_text(text))
    with open_space(compile_model(model), model, names=[name[c] for c in cells]) as space:
        return {tuple(answer[name[c]] for c in cells) for answer in space.solutions()}


def _least_of_classes(cells, moves, values: int) -> set[tuple[int, ...]]:
    """Brute force: the least vector of every class (an image puts the value of cell x at move(x))."""
    index = {cell: i for i, cell in enumerate(cells)}
    least = set()
    for vector in itertools.product(range(1, values + 1), repeat=len(cells)):
        images = []
        for move in moves:
            image = [0] * len(cells)
            for cell, value in zip(cells, vector):
                image[index[move(*cell)]] = value
            images.append(tuple(image))
        if all(vector <= image for image in images):
            least.add(vector)
    return least


@pytest.mark.parametrize("rows,cols,square,values", [
    (2, 3, False, 2), (3, 3, False, 2), (3, 2, False, 3), (2, 2, True, 3), (3, 3, True, 2),
])
def test_keeps_exactly_the_least_of_every_class(rows, cols, square, values):
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    moves = _group(rows, cols, square)
    kept = _kept(cells, moves, values)
    assert kept == _least_of_classes(cells, moves, values)
    assert len(kept) < values ** len(cells)


def test_a_subgroup_and_a_board_with_holes():
    # the cells of a 4x4 square without its centre 2x2, under the 180-degree turn only
    cells = [(r, c) for r in range(4) for c in range(4) if not (1 <= r <= 2 and 1 <= c <= 2)]
    moves = [lambda r, c: (3 - r, 3 - c)]
    assert _kept(cells, moves, 2) == _least_of_classes(cells, moves, 2)


def test_a_move_off_the_board_is_refused():
    with pytest.raises(ValueError, match="off the board"):
        lex_leader([(0, 0), (0, 1)], lambda cell: f"_v{cell[1]}", [lambda r, c: (r, c + 1)])


def test_chains_apply_only_where_the_condition_holds():
    # an extra variable _w picks whether the chains apply: where _w = 1 only the least of each
    # class is kept, elsewhere every vector is
    cells = [(r, c) for r in range(2) for c in range(3)]
    moves = _group(2, 3, False)
    name = {cell: f"_v_{cell[0]}_{cell[1]}" for cell in cells}
    text = "(int _w 0 1)\n" + "".join(f"(int {name[cell]} 1 2)\n" for cell in cells)
    for k, move in enumerate(moves):
        text += "\n".join(lex_leader(cells, name.__getitem__, [move], prefix=f"m{k}_", when="(= _w 1)")) + "\n"
    model = check(parse_text(text))
    with open_space(compile_model(model), model, names=["_w", *(name[c] for c in cells)]) as space:
        kept = {(answer["_w"], tuple(answer[name[c]] for c in cells)) for answer in space.solutions()}
    assert {v for w, v in kept if w == 0} == set(itertools.product((1, 2), repeat=len(cells)))
    assert {v for w, v in kept if w == 1} == _least_of_classes(cells, moves, 2)
