"""Drawings keep their columns in line when a number has two digits or more (a Numberlink pair 12,
a Sudoku 16, a Heyawake room of 10, a Shikaku area of 24, a Yajilin clue 12>): every cell of a
row starts where the cell above it starts, and each number stands in its own cell's slot.

The boards are small and made up; the renderers do not check the answer, so each is drawn with a
fixed answer and nothing is solved here."""

from __future__ import annotations

import pytest

from csp2sat.generators import heyawake, hitori, kakuro, nurikabe, numberlink, shikaku, sudoku, yajilin


def framed_slots(text: str, rows: int, cols: int) -> list[list[str]]:
    """The contents of every cell of a `region_drawing`, checking that the frame is regular: the top
    border has a ``+`` at every cell corner, every ``|`` and ``+`` stands at a corner's column, and
    no line is wider than the top border."""
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == 2 * rows + 1
    top = lines[0]
    width = top.index("+", 1) - 1
    assert len(top) == cols * (width + 1) + 1, top
    assert [i for i, ch in enumerate(top) if ch == "+"] == list(range(0, len(top), width + 1))
    for line in lines:
        assert len(line) <= len(top), f"line wider than the frame: {line!r}"
        assert all(i % (width + 1) == 0 for i, ch in enumerate(line) if ch in "|+"), f"out of line: {line!r}"
    return [[lines[2 * r + 1].ljust(len(top))[c * (width + 1) + 1:(c + 1) * (width + 1)] for c in range(cols)]
            for r in range(rows)]


def segment_slots(text: str, rows: int, cols: int) -> list[list[str]]:
    """The mark of every cell of a `segment_picture` (cells w wide, one character between them),
    checking that no line is wider than the cells allow and that every gap holds only ``-`` or a
    space (``|`` below a cell)."""
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == 2 * rows - 1
    longest = max(len(line) for line in lines)
    width = next(w for w in range(1, longest + 2) if cols * (w + 1) - 1 >= longest)
    full = cols * (width + 1) - 1
    out = []
    for i, line in enumerate(lines):
        line = line.ljust(full)
        assert len(line) == full, f"line wider than the cells: {line!r}"
        gaps = {line[c * (width + 1) + width] for c in range(cols - 1)}
        assert gaps <= ({"-", " "} if i % 2 == 0 else {" "}), f"a mark spills into a gap: {line!r}"
        if i % 2 == 0:
            out.append([line[c * (width + 1):c * (width + 1) + width].strip() for c in range(cols)])
        else:
            assert {line[c * (width + 1):c * (width + 1) + width].strip() for c in range(cols)} <= {"|", ""}
    return out


# Numberlink: pairs 1..12, each joined straight along its row (12 rows x 3 columns).
NUMBERLINK = "".join(f"{k} - {k}\n" for k in range(1, 13))


@pytest.mark.parametrize("fmt", ["drawing", "answer"])
def test_numberlink_two_digit_numbers_stay_in_their_cells(fmt):
    puzzle = numberlink.read(NUMBERLINK)
    drawn = {((r, c), (r, c + 1)) for r in range(12) for c in range(2)}
    assert numberlink.check(puzzle, drawn) == []
    slots = segment_slots(numberlink.render(puzzle, drawn, fmt), 12, 3)
    assert slots == [[str(k), "+", str(k)] for k in range(1, 13)]


def test_numberlink_one_digit_answer_keeps_one_character_per_cell():
    puzzle = numberlink.read("1 - 1\n2 - 2\n")
    drawn = {((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (1, 1)), ((1, 1), (1, 2))}
    assert numberlink.render(puzzle, drawn, "answer") == "1-+-1\n\n2-+-2\n"


@pytest.mark.parametrize("fmt", ["drawing", "answer"])
def test_yajilin_long_clues_stay_in_their_cells(fmt):
    cols = 24
    puzzle = yajilin.read("10> " + " ".join(["."] * (cols - 1)) + "\n" + " ".join(["."] * cols) + "\n")
    slots = segment_slots(yajilin.render(puzzle, set(), fmt), 2, cols)
    assert slots[0][0] == ("10>" if fmt == "drawing" else ">")
    assert all(len(mark) == 1 for row in slots for mark in row[1:])


def test_sudoku_16x16_givens_and_numbers_stay_in_line():
    grid = [[(4 * (r % 4) + r // 4 + c) % 16 + 1 for c in range(16)] for r in range(16)]
    text = "\n".join(" ".join(str(v) if (r + c) % 3 == 0 else "-" for c, v in enumerate(row))
                     for r, row in enumerate(grid)) + "\n"
    puzzle = sudoku.read(text)
    assert sudoku.check(puzzle, grid) == []
    slots = framed_slots(sudoku.render(puzzle, grid, "drawing"), 16, 16)
    for r in range(16):
        for c in range(16):
            expected = f"[{grid[r][c]}]" if (r + c) % 3 == 0 else str(grid[r][c])
            assert slots[r][c].strip().replace(" ", "") == expected


def test_hitori_two_digit_numbers_shaded_or_not():
    puzzle = hitori.read("10 1 12\n3 10 4\n12 5 6\n")
    solution = ["#..", "...", "..#"]
    slots = framed_slots(hitori.render(puzzle, solution, "drawing"), 3, 3)
    assert [s.strip() for s in slots[0]] == ["#10#", "1", "12"]
    assert [s.strip() for s in slots[2]] == ["12", "5", "##6#"]


def test_heyawake_room_numbers_of_two_digits_shaded_or_not():
    rooms = "\n".join(" ".join("a" if c < 6 else "b" for c in range(12)) for _ in range(5))
    numbers = ["-"] * 12
    numbers[0], numbers[6] = "10", "3"
    text = rooms + "\n\n" + " ".join(numbers) + "\n" + "\n".join(" ".join(["-"] * 12) for _ in range(4)) + "\n"
    puzzle = heyawake.read(text)
    for first in "#.":
        solution = [first + "." * 11] + ["." * 12] * 4
        slots = framed_slots(heyawake.render(puzzle, solution, "drawing"), 5, 12)
        assert slots[0][0].strip() == ("#10#" if first == "#" else "10")
        assert slots[0][6].strip() == "3"


def test_shikaku_and_nurikabe_clues_of_two_digits():
    puzzle = shikaku.read("12 - - - - -\n- - - - - -\n")
    labels = [[1] * 6, [1] * 6]
    slots = framed_slots(shikaku.render(puzzle, labels, "drawing"), 2, 6)
    assert slots[0][0].strip() == "12"
    puzzle = nurikabe.read("10 - - - -\n- - - - -\n- - - - -\n")
    solution = [".....", ".....", "#####"]
    slots = framed_slots(nurikabe.render(puzzle, solution, "drawing"), 3, 5)
    assert slots[0][0].strip() == "10"
    assert slots[2] == ["#" * len(slots[2][0])] * 5


def test_kakuro_drawing_columns_line_up():
    puzzle = kakuro.read("# 16\\- 3\\-\n-\\12 . .\n-\\7 . .\n")
    digits = [[None, None, None], [None, 9, 3], [None, 7, 4]]
    lines = kakuro.render(puzzle, digits, "drawing").splitlines()
    ends = {i for line in lines for i, ch in enumerate(line) if ch != " " and (i + 1 == len(line) or line[i + 1] == " ")}
    assert len(ends) == 3  # right-aligned: three columns of token ends
