"""Nurikabe genre: reader, generated CSP, decoder and renderers, and every data/nurikabe board end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from csp2sat.parser import parse_text
from csp2sat.generators import nurikabe
from csp2sat.generators.base import PuzzleError, genre
from csp2sat.generators.boardkit import neighbours
from genre_support import expected_answer, instances, puzzle_text, solve_once, solve_twice, statuses, strip_lines

SMALL = "- 5 - - -\n- - 2 - -\n- - - - -\n- - 1 - -\n- - - 3 -\n"
SMALL_ANSWER = "..###\n.#..#\n.####\n.#.#.\n###..\n"


def components(rows: list[str], kind: str) -> list[set[tuple[int, int]]]:
    """The connected regions of cells whose character is `kind`."""
    h, w = len(rows), len(rows[0])
    seen: set[tuple[int, int]] = set()
    out = []
    for r in range(h):
        for c in range(w):
            if rows[r][c] != kind or (r, c) in seen:
                continue
            region, stack = set(), [(r, c)]
            seen.add((r, c))
            while stack:
                cell = stack.pop()
                region.add(cell)
                for n in neighbours(*cell, h, w):
                    if rows[n[0]][n[1]] == kind and n not in seen:
                        seen.add(n)
                        stack.append(n)
            out.append(region)
    return out


def check_shading(puzzle: nurikabe.Nurikabe, rows: list[str]) -> None:
    """Independent check of the rules on a shading."""
    walls = components(rows, nurikabe.WALL)
    assert len(walls) <= 1, "the wall is not connected"
    for island in components(rows, nurikabe.ISLAND):
        clues = [puzzle.clues[cell] for cell in island if cell in puzzle.clues]
        assert len(clues) == 1, f"an island holds {len(clues)} clues"
        assert clues[0] in (None, len(island))
    for r in range(len(rows) - 1):
        for c in range(len(rows[0]) - 1):
            assert {rows[r][c], rows[r][c + 1], rows[r + 1][c], rows[r + 1][c + 1]} != {nurikabe.WALL}


def test_reader_accepts_data_and_seed_forms():
    data = nurikabe.read(SMALL)
    seed = nurikabe.read(SMALL.replace("-", "0"))
    assert data == seed
    assert data.clues == {(0, 1): 5, (1, 2): 2, (3, 2): 1, (4, 3): 3}
    assert nurikabe.read("? -\n- -\n").clues == {(0, 0): None}


def test_clues_reach_only_cells_closer_than_their_size():
    puzzle = nurikabe.read(SMALL)
    assert puzzle.reach[2, 4] == ()  # no clue can get there: always a wall
    assert puzzle.reach[3, 3] == (4,)
    assert puzzle.reach[3, 2] == (3,)


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("- 2\n- - -\n", "row has 3 cells", 2, 5),
        ("- 2\n- x\n", "unknown cell 'x'", 2, 3),
        ("- 2\n- 3\n", "adjacent clues", 2, 3),
        ("3 -\n- 3\n", "the clues so far need 6 island cells", 2, 3),
        ("- -\n- -\n", "no clue", 1, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    with pytest.raises(PuzzleError) as err:
        nurikabe.read(text)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (line, col)


def test_generated_file_is_readable_sugar():
    text = nurikabe.generate(nurikabe.read(SMALL))
    assert text.startswith("; Nurikabe puzzle, 5 rows x 5 columns\n")
    for rule in ("same island", "connected to its clue", "size of its island", "no 2x2", "wall cells are connected"):
        assert rule in text
    assert "(int g_2_4 0 0)" in text
    parse_text(text)


def test_known_answer_round_trips_and_drawing():
    puzzle = nurikabe.read(SMALL)
    rows = SMALL_ANSWER.split()
    check_shading(puzzle, rows)
    values = {f"g_{r}_{c}": 0 if ch == "#" else 1 for r, row in enumerate(rows) for c, ch in enumerate(row)}
    solution = nurikabe.decode(puzzle, values)
    assert nurikabe.render(puzzle, solution, "answer") == SMALL_ANSWER
    assert nurikabe.render(puzzle, solution, "drawing") == (
        "+---+---+---+---+---+\n"
        "|     5 |### ### ###|\n"
        "+   +---+---+---+   +\n"
        "|   |###| 2     |###|\n"
        "+   +   +---+---+   +\n"
        "|   |### ### ### ###|\n"
        "+   +   +---+   +---+\n"
        "|   |###| 1 |###|   |\n"
        "+---+   +---+---+   +\n"
        "|### ### ###| 3     |\n"
        "+---+---+---+---+---+\n"
    )
    svg = ET.fromstring(nurikabe.render(puzzle, solution, "svg"))
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == ["5", "2", "1", "3"]


def test_wall_must_be_connected():
    # In one row, a 1 at the end leaves one wall piece; a 1 in the middle would split the wall in two.
    assert solve_once(nurikabe.generate(nurikabe.read("1 - -\n"))) is not None
    assert solve_once(nurikabe.generate(nurikabe.read("- 1 -\n"))) is None


def test_island_must_reach_its_size():
    assert solve_once(nurikabe.generate(nurikabe.read("- 2 -\n- - -\n"))) is not None
    # The 2 can only grow towards the 1, and its island would then touch the 1's island.
    assert solve_once(nurikabe.generate(nurikabe.read("2 - 1\n"))) is None


def test_registered_under_its_name():
    assert genre("nurikabe").render is nurikabe.render


STATUS = statuses("nurikabe")


@pytest.mark.parametrize("name", instances("nurikabe"))
def test_every_board_solves_with_the_recorded_uniqueness(name):
    puzzle = nurikabe.read(puzzle_text("nurikabe", name))
    values, another = solve_twice(nurikabe, puzzle)
    rows = nurikabe.decode(puzzle, values)
    check_shading(puzzle, rows)
    if expected_answer("nurikabe", name) is not None:
        assert strip_lines(nurikabe.render(puzzle, rows, "answer")) == expected_answer("nurikabe", name)
    assert another == (STATUS[name] == "MULTIPLE")
