"""Pentomino box packing: pieces, box reader, generated CSP (checked against known packings), renderers,
and every data/pentomino box packed end to end."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

import csp2sat
from csp2sat.evaluator import satisfies
from csp2sat.generators import pentomino
from csp2sat.generators.base import NoSolution, PuzzleError, genre
from cli_support import run_cli
from genre_support import DATA, expected_answer, instances, puzzle_text, solve_once

BOXES = instances("pentomino", "box_*.txt")
SOLVED = ["box_6x10", "box_8x8_centre2x2"]


def read_pieces_file() -> dict[str, tuple[str, ...]]:
    """data/pentomino/pieces.txt as letter -> rows."""
    pieces: dict[str, list[str]] = {}
    current = None
    for line in (DATA / "pentomino" / "pieces.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("# ") or not line.strip():
            continue
        if line.isalpha():
            current = pieces.setdefault(line, [])
        else:
            current.append(line)
    return {letter: tuple(rows) for letter, rows in pieces.items()}


def values_from_packing(box: pentomino.Box, rows: list[str]) -> dict[str, int]:
    """The p_* and hidden _c_* values of a packing given as letter rows."""
    values = {}
    for ident, (letter, chooser) in enumerate(zip(pentomino.PIECES, box.choosers), 1):
        cells = tuple(sorted((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == letter))
        values[chooser.var] = [tuple(sorted(o)) for o in chooser.options].index(cells) + 1
        for r, c in cells:
            values[f"_c_{r}_{c}"] = ident
    return values


def check_packing(box: pentomino.Box, rows: list[str]) -> None:
    """Independent check: every box cell holds a letter, each letter forms one of its piece's shapes."""
    inside = set(box.cells)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            assert (ch == pentomino.BLOCKED) == ((r, c) not in inside)
    for letter, shape in pentomino.PIECES.items():
        cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == letter]
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        assert tuple(sorted((r - top, c - left) for r, c in cells)) in pentomino.orientations(shape), letter


def test_pieces_are_those_of_the_data_file():
    assert pentomino.PIECES == read_pieces_file()


def test_orientations_are_deduplicated():
    counts = {letter: len(pentomino.orientations(shape)) for letter, shape in pentomino.PIECES.items()}
    assert counts == dict(F=8, I=2, L=8, N=8, P=8, T=4, U=4, V=4, W=4, X=1, Y=8, Z=4)
    assert sum(counts.values()) == 63  # the 63 fixed pentominoes


def test_reader_accepts_the_seed_array_form():
    dots = pentomino.read("." * 10 + "\n" + ("." * 10 + "\n") * 5)
    ones = pentomino.read(("1 " * 10 + "\n") * 6)
    assert dots == ones
    assert len(dots.cells) == 60


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("; a box\n" + "." * 10 + "\n" + "." * 9 + "x\n" + ("." * 10 + "\n") * 4, "unknown box cell 'x'", 3, 10),
        ("." * 10 + "\n" + "." * 11 + "\n", "row has 11 cells", 2, 11),
        ("####\n####\n", "the box has no cell", 1, 1),
        ("." * 10 + "\n", "the box has 10 cells", 1, 1),
    ],
)
def test_reader_errors_have_positions(text, message, line, col):
    with pytest.raises(PuzzleError) as err:
        pentomino.read(text)
    assert message in err.value.message
    assert (err.value.line, err.value.col) == (line, col)
    # A well-formed box that cannot be packed (the wrong number of cells) is a board without a solution
    # (exit 1 from `puzzle`), not bad text (exit 3).
    assert isinstance(err.value, NoSolution) == ("the box has 10 cells" in message)


def test_unreachable_cell_is_reported_at_its_place():
    # 59 cells of a 6x10 box plus one cell cut off from them: 60 cells, one of them unreachable.
    text = ("." * 10 + "\n") * 5 + "." * 9 + "#\n" + "#" * 9 + ".\n"
    with pytest.raises(PuzzleError) as err:
        pentomino.read(text)
    assert "no pentomino can cover this cell" in err.value.message
    assert (err.value.line, err.value.col) == (7, 10)


def test_generated_file_and_placement_variables():
    box = pentomino.read(puzzle_text("pentomino", "box_3x20"))
    text = pentomino.generate(box)
    assert "; Rule: each pentomino is placed exactly once" in text
    model = csp2sat.parse(text)
    names = pentomino.placement_variables(box)
    assert names == [f"p_{letter}" for letter in "FILNPTUVWXYZ"]
    assert all(name in model.int_vars for name in names)


@pytest.mark.parametrize("name", SOLVED)
def test_known_packings_satisfy_the_csp_and_round_trip(name):
    box = pentomino.read(puzzle_text("pentomino", name))
    answer = expected_answer("pentomino", name)
    rows = answer.split()
    check_packing(box, rows)
    values = values_from_packing(box, rows)
    assert satisfies(csp2sat.parse(pentomino.generate(box)), values)
    packing = pentomino.decode(box, values)
    assert pentomino.render(box, packing, "answer") == answer


def test_a_wrong_packing_violates_the_csp():
    box = pentomino.read(puzzle_text("pentomino", "box_6x10"))
    values = values_from_packing(box, expected_answer("pentomino", "box_6x10").split())
    values["_c_0_0"] = 3  # the I covers this cell, not the L
    assert not satisfies(csp2sat.parse(pentomino.generate(box)), values)


def test_drawing_shows_pieces_by_letter():
    box = pentomino.read(puzzle_text("pentomino", "box_6x10"))
    rows = expected_answer("pentomino", "box_6x10").split()
    drawing = pentomino.render(box, rows, "drawing").splitlines()
    assert drawing[:4] == [
        "+---+---+---+---+---+---+---+---+---+---+",
        "| I   I   I   I   I | L   L   L   L | N |",
        "+---+---+---+---+---+---+---+---+   +   +",
        "| P   P   P | W   W | X | U   U | L | N |",
    ]
    assert len(drawing) == 13
    svg = ET.fromstring(pentomino.render(box, rows, "svg"))
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}text"))) == 60


def test_registered_under_its_name():
    assert genre("pentomino").generate is pentomino.generate


@pytest.mark.parametrize("name", BOXES)
def test_every_box_gets_a_packing(name):
    box = pentomino.read(puzzle_text("pentomino", name))
    values = solve_once(pentomino.generate(box))
    assert values is not None
    rows = pentomino.decode(box, values)
    check_packing(box, rows)


L_SHAPE = "..........\n" * 5 + ".....#####\n" * 2  # a 5x10 box with a 2x5 foot: no symmetry


def test_symmetries_of_boxes():
    counts = {name: len(pentomino.symmetries(pentomino.read(puzzle_text("pentomino", name)))) for name in BOXES}
    assert counts["box_6x10"] == 3 and counts["box_8x8_centre2x2"] == 7
    assert pentomino.symmetries(pentomino.read(L_SHAPE)) == []
    diagonal = pentomino.read("#.......\n.#......\n" + "........\n" * 4 + "......#.\n.......#\n")  # both diagonals, 180°
    assert len(pentomino.symmetries(diagonal)) == 3


@pytest.mark.parametrize("name", SOLVED)
def test_images_of_a_packing_are_other_packings(name):
    box = pentomino.read(puzzle_text("pentomino", name))
    rows = expected_answer("pentomino", name).split()
    images = list(pentomino.images(box, rows))
    assert len(images) == len(pentomino.symmetries(box)) and len({tuple(i) for i in images}) == len(images)
    for image in images:
        assert image != rows and pentomino.check(box, image) == []


def test_unique_on_a_box_without_symmetry_still_searches():
    from csp2sat.generators.run import solve_puzzle

    box = pentomino.read(L_SHAPE)
    assert pentomino.symmetries(box) == []
    run = solve_puzzle(genre("pentomino"), box, unique=True)
    assert run.solution is not None and run.unique is False and "unique" in run.times


# Symmetry breaking for one answer (`pentomino.generate_one`): it must keep an image of every packing.
UNSEEN_BOXES = {
    "20x3": "...\n" * 20,
    "10x6": "......\n" * 10,
    "8x8 corner 2x2": "##......\n##......\n" + "........\n" * 6,
    "8x8 four holes": "........\n..#..#..\n........\n........\n........\n..#..#..\n........\n........\n",
    "both diagonals": "#.......\n.#......\n" + "........\n" * 4 + "......#.\n.......#\n",
}


def _symmetry_boxes() -> list[tuple[str, str]]:
    return [(name, puzzle_text("pentomino", name)) for name in BOXES] + list(UNSEEN_BOXES.items())


@pytest.mark.parametrize("name,text", _symmetry_boxes(), ids=[n for n, _ in _symmetry_boxes()])
def test_orbit_least_placements_meet_every_orbit(name, text):
    box = pentomino.read(text)
    moves = pentomino.symmetries(box)
    chooser, kept = pentomino.orbit_least_placements(box.choosers, moves)
    number = {option: n for n, option in enumerate(chooser.options, 1)}
    for option, n in number.items():
        orbit = {n} | {number[tuple(sorted(move(r, c) for r, c in option))] for move in moves}
        assert min(orbit) in kept and len(orbit & set(kept)) == 1, (chooser.var, option)
    assert len(kept) < len(chooser.options)  # a box with a symmetry: the restriction cuts
    text_one = pentomino.generate_one(box)
    assert text_one.startswith(pentomino.generate(box)) and "; Symmetry breaking" in text_one
    csp2sat.parse(text_one)


def test_box_without_symmetry_is_not_restricted():
    box = pentomino.read(L_SHAPE)
    assert pentomino.orbit_least_placements(box.choosers, []) is None
    assert pentomino.symmetry_breaking(box) == []
    assert pentomino.generate_one(box) == pentomino.generate(box)


@pytest.mark.parametrize("name", SOLVED)
def test_restriction_keeps_an_image_of_known_packings(name):
    box = pentomino.read(puzzle_text("pentomino", name))
    rows = expected_answer("pentomino", name).split()
    restricted = csp2sat.parse(pentomino.generate_one(box))
    orbit = [rows] + list(pentomino.images(box, rows))
    kept = [image for image in orbit if satisfies(restricted, values_from_packing(box, image))]
    assert kept and len(kept) < len(orbit)


def test_puzzle_path_uses_the_restriction_only_for_one_answer():
    from csp2sat.generators.run import solve_puzzle

    box = pentomino.read(puzzle_text("pentomino", "box_6x10"))
    g = genre("pentomino")
    assert "; Symmetry breaking" in solve_puzzle(g, box).csp
    assert "; Symmetry breaking" in solve_puzzle(g, box, unique=True).csp
    assert "; Symmetry breaking" not in pentomino.generate(box)  # what `gen` writes keeps every packing


def _all_packings(box: pentomino.Box, text: str) -> list[list[str]]:
    """Every packing of a CSP text of `box`, by blocking the printed placements."""
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.parser import parse_text
    from csp2sat.solver import DEFAULT_SOLVER, new_solver

    compiled = compile_model(check(parse_text(text)))
    found = []
    with new_solver(DEFAULT_SOLVER) as sat:
        compiled.load(sat)
        while sat.solve():
            values = compiled.decode(sat.get_model())
            found.append(pentomino.decode(box, values))
            sat.add_clause(compiled.block_clause({v: values[v] for v in pentomino.placement_variables(box)}))
    return found


@pytest.mark.slow
def test_restriction_keeps_every_packing_class_of_the_3x20_box():
    box = pentomino.read(puzzle_text("pentomino", "box_3x20"))
    every = _all_packings(box, pentomino.generate(box))
    assert len(every) == 8
    restricted_text = pentomino.generate_one(box)
    restricted = csp2sat.parse(restricted_text)
    for rows in every:
        assert any(satisfies(restricted, values_from_packing(box, image))
                   for image in [rows] + list(pentomino.images(box, rows)))
    kept = _all_packings(box, restricted_text)
    assert kept and all(rows in every for rows in kept) and len(kept) < len(every)
    classes = {min(tuple(image) for image in [rows] + list(pentomino.images(box, rows))) for rows in every}
    assert {min(tuple(image) for image in [rows] + list(pentomino.images(box, rows))) for rows in kept} == classes


@pytest.mark.parametrize("name,text", _symmetry_boxes(), ids=[n for n, _ in _symmetry_boxes()])
def test_symmetry_breaking_keeps_an_image_of_every_pair_of_placements(name, text):
    """The restriction names two pieces only, so it loses no packing up to symmetry exactly when every
    two non-overlapping placements of those pieces have an image (under the box's symmetries) it accepts."""
    box = pentomino.read(text)
    lines = pentomino.symmetry_breaking(box)
    pieces = sorted({ch for ch in box.choosers if any(ch.var in line for line in lines if not line.startswith(";"))},
                    key=lambda ch: ch.ident)
    assert 1 <= len(pieces) <= 2  # the second only where some symmetry leaves the first piece in place
    declared = "".join(f"(int {ch.var} 1 {len(ch.options)})\n" for ch in pieces)
    restriction = csp2sat.parse(declared + "\n".join(lines) + "\n")
    moves = [lambda r, c: (r, c)] + pentomino.symmetries(box)
    numbers = [{option: n for n, option in enumerate(ch.options, 1)} for ch in pieces]
    pairs = itertools.product(*(ch.options for ch in pieces))
    for placed in pairs:
        if len({cell for option in placed for cell in option}) < 5 * len(placed):
            continue  # overlapping: in no packing
        assert any(satisfies(restriction, {ch.var: number[tuple(sorted(move(r, c) for r, c in option))]
                                           for ch, number, option in zip(pieces, numbers, placed)})
                   for move in moves), placed


# Counting by classes (`pentomino.generate_classes`, `generators.run.ClassSizes`).


def test_counting_by_classes_finds_every_packing_of_the_3x20_box():
    from csp2sat.generators.run import solve_puzzle

    box = pentomino.read(puzzle_text("pentomino", "box_3x20"))
    run = solve_puzzle(genre("pentomino"), box, count=True)
    assert (run.count, run.classes) == (8, 2) and "; Counting by classes" in run.csp
    both = solve_puzzle(genre("pentomino"), box, count=True, facts=True)  # facts need the whole text
    assert (both.count, both.classes) == (8, 2) and "; Counting by classes" not in both.csp
    assert sum(value is None for value in both.facts.values()) == 12  # every piece moves between packings


@pytest.mark.parametrize("name", SOLVED)
def test_the_text_of_classes_keeps_exactly_the_least_image_of_a_packing(name):
    from csp2sat.generators.run import ClassSizes

    box = pentomino.read(puzzle_text("pentomino", name))
    rows = expected_answer("pentomino", name).split()
    members = [rows, *pentomino.images(box, rows)]
    least = min(members, key=pentomino.class_order(box))  # the least X placement, then rows of letters
    sizes = ClassSizes(genre("pentomino"), box)
    placements = pentomino.placement_variables(box)
    for member in members:
        values = {v: values_from_packing(box, member)[v] for v in placements}
        if member == least:
            assert sizes.of(values) == len(members)
        else:  # counted as a class of its own, the class would be counted twice
            with pytest.raises(RuntimeError, match="not the least of its class"):
                sizes.of(values)
    # the CSP of classes accepts the least image and no other (the lex-leader chains' flags follow)
    text = pentomino.generate_classes(box)
    assert text.startswith(pentomino.generate(box))
    for member in members:
        fixed = "".join(f"(= {v} {n})\n" for v, n in values_from_packing(box, member).items() if v in placements)
        assert (csp2sat.solve(text + fixed).status == "SATISFIABLE") == (member == least)


def test_a_box_without_symmetry_has_classes_of_one():
    box = pentomino.read(L_SHAPE)
    assert pentomino.generate_classes(box) == pentomino.generate(box)


def test_counting_compiles_with_the_genre_s_count_options():
    from csp2sat.generators.run import _count_options

    pentominoes, slitherlink = genre("pentomino"), genre("slitherlink")
    assert _count_options(pentominoes, True, 1) == {"int": "direct", "enumerate": "split"}
    assert _count_options(pentominoes, True, 2) == {"int": "direct"}  # workers split the space by values anyway
    assert _count_options(slitherlink, True, 1) == {"enumerate": "split"}
    assert _count_options(slitherlink, True, 2) is None
    assert _count_options(pentominoes, False, 1) is None  # one answer: the default encoding


def test_auto_is_the_genre_s_solver_for_one_answer_only(capsys):
    from csp2sat.generators.run import solve_puzzle, solver_for
    from csp2sat.solver import DEFAULT_SOLVER

    pentominoes, slitherlink = genre("pentomino"), genre("slitherlink")
    assert pentominoes.solver and pentominoes.solver != DEFAULT_SOLVER
    assert solver_for(pentominoes, "auto") == pentominoes.solver
    assert solver_for(pentominoes, "auto", every_answer=True) == DEFAULT_SOLVER  # counting, facts: measured so
    assert solver_for(pentominoes, "minisat22") == "minisat22"  # a solver asked for is the one used
    assert solver_for(slitherlink, "auto") == DEFAULT_SOLVER
    box = pentominoes.read((DATA / "pentomino" / "box_3x20.txt").read_text(encoding="utf-8"))
    assert solve_puzzle(pentominoes, box).stats["solver"] == pentominoes.solver
    assert solve_puzzle(pentominoes, box, solver="cadical195").stats["solver"] == "cadical195"
    # -v names the solver that searched
    status, _, err = run_cli(capsys, "puzzle", "pentomino", str(DATA / "pentomino" / "box_3x20.txt"), "-v")
    assert status == 0 and f"(load the CNF, SAT search: {pentominoes.solver})" in err


def test_a_parallel_count_stopped_early_counts_the_solution_it_drew() -> None:
    """-j 2 --timeout 2 drew a packing, then said 'at least 0 solutions' (no worker had handed one over)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "csp2sat", "puzzle", "pentomino", str(DATA / "pentomino" / "box_6x10.txt"),
                           "--count", "-j", "2", "--timeout", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    last = done.stderr.splitlines()[-1]
    assert "stopped by the time limit" in last and "at least" in last and "(at least 0 " not in last, last
