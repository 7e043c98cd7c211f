"""The data/ boards with several solutions whose sources.txt record gives their number (`count: N`):
`csp2sat puzzle --unique` says they are not unique, `csp2sat solve --count` on their csp/ file
gives N, and an independent brute-force enumeration (tests/puzzle_bruteforce.py), every answer of
which the genre's rule checker accepts, finds the same N."""

from __future__ import annotations

import re

import pytest

import puzzle_bruteforce as bf
from cli_support import run_cli
from csp2sat.generators.base import genre
from genre_support import DATA, puzzle_text, statuses

ROOT = DATA.parent

# How to enumerate each genre's answers by brute force.
BRUTE_FORCE = {
    "sudoku": bf.sudoku,
    "akari": bf.akari,
    "hitori": lambda puzzle: bf.apart_shadings(puzzle.rows, puzzle.cols),
    "starbattle": bf.stars,
    "norinori": bf.norinori,
    "numberlink": bf.numberlink,
    "kakuro": bf.kakuro,
    "yajilin": bf.yajilin,
}


def counted_boards() -> list:
    """(genre folder, board name, recorded count) for every sources.txt record with a ``count:`` line."""
    cases = []
    for sources in sorted(DATA.glob("*/sources.txt")):
        text = sources.read_text(encoding="utf-8")
        for name, count in re.findall(r"^(\S+)\.txt\n(?:  .*\n)*?  count: (\d+)", text, re.M):
            cases.append(pytest.param(sources.parent.name, name, int(count), id=f"{sources.parent.name}/{name}"))
    return cases


CASES = counted_boards()


def listed_answers() -> list:
    """(genre folder, board name, answers) for every counted board whose sources.txt record lists the
    source's own solutions in an ``answers:`` line: each in the genre's answer format, rows joined by
    '/', answers separated by ' | '. (Sudoku's line, 81 digits per answer, is tests/test_sudoku.py's.)"""
    cases = []
    for sources in sorted(DATA.glob("*/sources.txt")):
        if sources.parent.name == "sudoku":
            continue
        text = sources.read_text(encoding="utf-8")
        for name, line in re.findall(r"^(\S+)\.txt\n(?:  .*\n)*?  answers: (.*)", text, re.M):
            answers = [answer.strip().replace("/", "\n") + "\n" for answer in line.split(" | ")]
            cases.append(pytest.param(sources.parent.name, name, answers, id=f"{sources.parent.name}/{name}"))
    return cases


LISTED = listed_answers()


def test_every_new_genre_has_a_board_with_several_solutions():
    several = {folder for folder in BRUTE_FORCE for name, s in statuses(folder).items() if s == "MULTIPLE"}
    assert several == set(BRUTE_FORCE)
    assert {case.values[0] for case in CASES} == set(BRUTE_FORCE)


@pytest.mark.parametrize("folder, name, count", CASES)
def test_recorded_count_is_multiple_in_sources(folder, name, count):
    assert count >= 2 and statuses(folder)[name] == "MULTIPLE"


@pytest.mark.parametrize("folder, name, count", CASES)
def test_brute_force_finds_the_recorded_count(folder, name, count):
    kind = genre(folder)
    puzzle = kind.read(puzzle_text(folder, name))
    candidates = BRUTE_FORCE[folder](puzzle)
    answers = bf.accepted(kind.check, puzzle, candidates)
    assert len(answers) == count
    rendered = {kind.render(puzzle, answer, "answer") for answer in answers}
    assert len(rendered) == count  # all different answers


@pytest.mark.parametrize("folder, name, count", CASES)
def test_solve_count_and_puzzle_unique_agree(capsys, folder, name, count):
    status, out, _ = run_cli(capsys, "solve", "--count", str(ROOT / "csp" / folder / f"{name}.csp"))
    assert status == 0 and out.splitlines()[-1] == f"c SOLUTIONS {count}"
    status, _, err = run_cli(capsys, "puzzle", folder, str(DATA / folder / f"{name}.txt"), "--unique")
    assert status == 0 and "NOT unique" in err


def test_some_counted_board_lists_its_answers():
    assert LISTED, "no sources.txt record outside sudoku/ has an 'answers:' line"


@pytest.mark.parametrize("folder, name, answers", LISTED)
def test_the_answers_a_source_lists_are_the_boards_answers(folder, name, answers):
    """Each answer the source gives is one the rule checker accepts and the brute force finds, and the
    source lists no more answers than the recorded count."""
    kind = genre(folder)
    puzzle = kind.read(puzzle_text(folder, name))
    found = {kind.render(puzzle, answer, "answer") for answer in bf.accepted(kind.check, puzzle, BRUTE_FORCE[folder](puzzle))}
    counts = {case.values[1]: case.values[2] for case in CASES if case.values[0] == folder}
    assert len(set(answers)) == len(answers) <= counts[name]
    assert set(answers) <= found


def _several_solution_boards(folder: str) -> tuple[set[str], set[str]]:
    """(public, derived): the MULTIPLE boards of a data/ folder, split by whether sources.txt says 'source: derived'."""
    text = (DATA / folder / "sources.txt").read_text(encoding="utf-8")
    public, derived = set(), set()
    for name, body in re.findall(r"^(\S+)\.txt\n((?:  .*\n)*)", text, re.M):
        if re.search(r"^  status: MULTIPLE", body, re.M):
            (derived if "  source: derived" in body else public).add(name)
    return public, derived


def test_data_readme_table_of_several_solution_boards_matches_sources():
    """data/README.md's table 'Boards with several solutions' names exactly the MULTIPLE boards of sources.txt,
    public and derived in their columns, for every genre folder that has a status per board."""
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Boards with several solutions", 1)[1]
    rows = [line.split("|")[1:4] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    table = {}
    for genres, public, derived in rows[1:]:  # rows[0] is the header
        for folder in genres.strip().split(", "):
            table[folder] = (set(re.findall(r"`(\w+)`", public)), set(re.findall(r"`(\w+)`", derived)))
    folders = {p.parent.name for p in DATA.glob("*/sources.txt") if statuses(p.parent.name)}
    assert set(table) == folders
    for folder in sorted(folders):
        assert table[folder] == _several_solution_boards(folder), folder
