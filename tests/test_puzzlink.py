"""puzz.link URLs: every stored board that came from a URL decodes to exactly that board; codes round-trip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csp2sat.generators import puzzlink
from csp2sat.generators.puzzlink import UNKNOWN, UrlError
from tests.cli_support import run_cli

DATA = Path(__file__).resolve().parent.parent / "data"


def _url_records() -> list[tuple[str, Path, str]]:
    """(genre folder, board file, URL) for every sources.txt record with a puzz.link-style URL."""
    records = []
    for sources in sorted(DATA.glob("*/sources.txt")):
        name = None
        for line in sources.read_text(encoding="utf-8").splitlines():
            if line and not line[0].isspace() and not line.startswith("#"):
                name = line.strip()
            match = re.match(r"\s+url: (\S+)", line)
            if match and name and puzzlink.looks_like_url(match.group(1)) and "m=edit" not in match.group(1):
                records.append((sources.parent.name, sources.parent / name, match.group(1)))
    return records


RECORDS = _url_records()


def _rows(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _board_text(board: Path) -> str:
    """A stored board without its Numberlink rule lines: a numlin URL holds the numbers only, and a line such as
    'no-detour' is the file's own (how to count its answers)."""
    lines = board.read_text(encoding="utf-8").splitlines()
    return "".join(line + "\n" for line in lines if line.strip() not in ("every-cell", "no-2x2", "no-detour"))


def test_the_data_has_urls_of_every_genre_with_a_url_form() -> None:
    genres = {puzzlink.genre_of_url(url) for _, _, url in RECORDS}
    assert genres == set(puzzlink.FORMATS)


@pytest.mark.parametrize("folder,board,url", RECORDS, ids=[f"{f}/{b.name}" for f, b, _ in RECORDS])
def test_url_decodes_to_the_stored_board(folder: str, board: Path, url: str) -> None:
    genre = puzzlink.genre_of_url(url)
    assert _rows(puzzlink.url_to_text(url, genre)) == _rows(_board_text(board))


@pytest.mark.parametrize("folder,board,url", RECORDS, ids=[f"{f}/{b.name}" for f, b, _ in RECORDS])
def test_canonical_url_round_trips(folder: str, board: Path, url: str) -> None:
    genre = puzzlink.genre_of_url(url)
    canonical = puzzlink.to_url(_board_text(board), genre)
    assert canonical.startswith("https://puzz.link/p?" + puzzlink.FORMATS[genre].pids[0] + "/")
    assert puzzlink.to_url(puzzlink.url_to_text(canonical, genre), genre) == canonical
    # the stored URL and the canonical one carry the same board
    assert puzzlink.url_to_text(canonical, genre) == puzzlink.url_to_text(url, genre)


def test_pzprjs_encodings_of_known_boards() -> None:
    # URLs as pzprjs itself writes them (its test scripts), reproduced character for character
    assert puzzlink.to_url(puzzlink.url_to_text("https://puzz.link/p?slither/5/5/cbcbcddad"), "slitherlink") == \
        "https://puzz.link/p?slither/5/5/cbcbcddad"
    assert puzzlink.to_url(puzzlink.url_to_text("http://pzv.jp/p.html?bridges/5/5/4g2i3h23k3g1g3g4g3"), "hashiwokakero") \
        == "https://puzz.link/p?hashikake/5/5/4g2i3h23k3g1g3g4g3"
    # pzprjs's hitori code is base 36 without runs: 'g' is the number 16, '.' a cell without a number
    assert puzzlink.url_to_text("https://puzz.link/p?hitori/3/1/g.@", "hitori") == "16 - ?\n"
    assert puzzlink.to_url("16 - ?\n40 1 2\n", "hitori") == "https://puzz.link/p?hitori/3/2/g.@-1412"


CODES = {
    "4cell": (puzzlink.decode_4cell, puzzlink.encode_4cell, st.one_of(st.none(), st.integers(0, 4), st.just(UNKNOWN))),
    "number10": (puzzlink.decode_number10, puzzlink.encode_number10,
                 st.one_of(st.none(), st.integers(0, 9), st.just(UNKNOWN))),
    "number16": (puzzlink.decode_number16, puzzlink.encode_number16,
                 st.one_of(st.none(), st.integers(0, 300), st.integers(0, puzzlink.NUMBER16_MAX), st.just(UNKNOWN))),
    "circle": (puzzlink.decode_circle, puzzlink.encode_circle, st.one_of(st.none(), st.sampled_from([1, 2]))),
    "hitori": (puzzlink.decode_hitori, puzzlink.encode_hitori,
               st.one_of(st.none(), st.integers(0, 1295), st.just(UNKNOWN))),
    "arrow number16": (puzzlink.decode_arrow_number16, puzzlink.encode_arrow_number16,
                       st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(0, 300), st.integers(0, 4095)))),
}


@pytest.mark.parametrize("number, code", [
    (15, "f"), (16, "-10"), (255, "-ff"), (256, "+100"), (4095, "+fff"), (4096, "=000"), (8191, "=fff"),
    (8192, "%000"), (12239, "%fcf"), (12240, "*0000"), (77775, "*ffff"), (77776, "$00000"), (1126351, "$fffff"),
])
def test_number16_uses_pzprjs_forms_at_every_boundary(number: int, code: str) -> None:
    # pzprjs writeNumber16: '%' stops at 12239, '*' (4 digits) from 12240, '$' (5 digits) from 77776
    assert puzzlink.encode_number16([number]) == code
    assert puzzlink.decode_number16(code, 1) == [number]


def test_numbers_beyond_a_code_are_refused_not_wrapped() -> None:
    with pytest.raises(puzzlink.UrlError, match="0 to 1126351"):
        puzzlink.encode_number16([1126352])
    with pytest.raises(puzzlink.UrlError, match="0 to 4095"):
        puzzlink.encode_arrow_number16([(1, 4096)])


def test_arrow_clues_of_two_digits_read_back() -> None:
    # '5'-'9': direction + 5 and two hexadecimal digits (pzprjs decodeArrowNumber16); a 34x1 Yajilin board
    assert puzzlink.decode_arrow_number16("910zg", 34)[0] == (4, 16)
    assert puzzlink.encode_arrow_number16([(4, 16)] + [None] * 33) == "910zg"


@pytest.mark.parametrize("code", sorted(CODES))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_every_code_round_trips(code: str, data: st.DataObject) -> None:
    decode, encode, clue = CODES[code]
    # mostly empty cells, as real boards are, so that long runs of empties are exercised
    cells = data.draw(st.lists(st.one_of(st.none(), st.none(), st.none(), clue), min_size=1, max_size=120))
    assert decode(encode(cells), len(cells)) == cells


@pytest.mark.parametrize("url,part", [
    ("https://puzz.link/p?", "no puzzle after '?'"),
    ("https://puzz.link/p?slither/10", "no size"),
    ("https://puzz.link/p?slither/0/5/g", "width (columns) '0'"),
    ("https://puzz.link/p?slither/5/-5/g", "'-5'"),
    ("https://puzz.link/p?slither/-4/4/dgdh2c7b", "width (columns) '-4'"),
    ("https://puzz.link/p", "no puzzle after '?'"),  # a URL without its puzzle, not a file name  # not taken for a flags field
    ("https://puzz.link/p?slither/x/4/dgdh2c7b", "width (columns) 'x'"),
    ("https://puzz.link/p?slither/4.5/4/dgdh2c7b", "width (columns) '4.5'"),
    ("https://puzz.link/p?slither/4/4/dg!h", "'!' at position 3"),
    ("https://puzz.link/p?nurikabe/4/4/g-1", "'-' at position 2 must be followed by 2 hexadecimal digits"),
    ("https://puzz.link/p?mashu/4/4/1z", "'z' at position 2 is not valid in the circle code"),
    ("https://puzz.link/p?tapa/4/4/g", "'tapa' is not a genre csp2sat reads"),
    ("https://puzz.link/p?kakuro/4/4/g", "ends inside the sums of a black cell"),
    ("https://puzz.link/p?kakuro/2/2/\u00ff", "'\u00ff' at position 1 is not valid in the kakuro code"),
    ("https://puzz.link/p?hitori/4/4/12-3", "'-' at position 3 must be followed by 2 base-36 digits"),
    ("https://puzz.link/p?hitori/4/4/12+3", "'+' at position 3 is not valid in the hitori code"),
    # str.isdigit takes '²', which int() refuses: these were internal errors
    ("https://puzz.link/p?hitori/2/1/1\u00b2", "'\u00b2' at position 2 is not valid in the hitori code"),
    ("https://puzz.link/p?shikaku/2/1/1\u00b2", "'\u00b2' at position 2 is not valid in the number16 code"),
    ("https://puzz.link/p?fillmat/2/1/1\u00b2", "'\u00b2' at position 2 is not valid in the number10 code"),
    ("https://puzz.link/p?slither/2/\u00b2/1", "height (rows) '\u00b2'"),
])
def test_malformed_urls_name_the_wrong_part(url: str, part: str) -> None:
    with pytest.raises(UrlError) as err:
        puzzlink.url_to_text(url)
    assert part in str(err.value)


def test_an_empty_body_is_an_empty_board_with_a_note() -> None:
    # read as pzprjs reads it, but pzprjs never writes it (an empty 3x2 board is 'nurikabe/3/2/l')
    notes: list[str] = []
    assert puzzlink.url_to_text("https://puzz.link/p?nurikabe/3/2/", notes=notes) == "- - -\n- - -\n"
    assert len(notes) == 1 and "no body" in notes[0]
    assert puzzlink.to_url("- - -\n- - -\n", "nurikabe").endswith("/3/2/l")


@pytest.mark.parametrize("url, board, note", [
    # pzprjs reads the cells a body gives and leaves the others empty, and ignores what follows the last cell;
    # so do we, and the note says so (pzprjs writes every cell and nothing more)
    ("https://puzz.link/p?slither/3/2/1g", "1..\n...\n", "ends after 2 of its 6 cells (the 4cell code, at position 2)"),
    ("https://puzz.link/p?slither/3/2/1k2", "1..\n...\n", "'2' from position 3 is ignored"),
    ("https://puzz.link/p?nurikabe/3/2/1g", "1 - -\n- - -\n", "ends after 2 of its 6 cells (the number16 code"),
    ("https://puzz.link/p?fillmat/3/1/1b2", "1..\n", "'2' from position 3 is ignored"),
    ("https://puzz.link/p?mashu/3/2/900", "W..\n...\n", "'0' from position 3 is ignored"),
    ("https://puzz.link/p?mashu/6/1/9", "W.....\n", "ends after 3 of its 6 cells (the circle code"),
    ("https://puzz.link/p?hitori/2/1/123", "1 2\n", "'3' from position 3 is ignored"),
    ("https://puzz.link/p?hitori/2/1/1", "1 -\n", "ends after 1 of its 2 cells (the hitori code"),
    ("https://puzz.link/p?yajilin/2/1/41", "1> .\n", "ends after 1 of its 2 cells (the arrow number16 code"),
    ("https://puzz.link/p?norinori/2/2/0", "0 0\n0 0\n", "ends after 1 of the 2 wall characters of a 2x2 board"),
    ("https://puzz.link/p?lits/2/2/00x", "0 0\n0 0\n", "'x' from position 3 is ignored"),
    ("https://puzz.link/p?starbattle/2/2/1/0", "stars 1\n0 0\n0 0\n", "ends after 1 of the 2 wall characters"),
    ("https://puzz.link/p?heyawake/2/1/01x", "0 0\n\n1 -\n", "'x' from position 3 is ignored"),
    ("https://puzz.link/p?kakuro/2/1/l12", "# 1\\- 2\\-\n# . .\n", "ends after 2 of the 3 sums of the frame"),
    ("https://puzz.link/p?kakuro/2/1/l123x", "# 1\\- 2\\-\n-\\3 . .\n", "'x' from position 5 is ignored"),
])
def test_a_body_cut_short_or_run_on_is_read_as_pzprjs_reads_it_with_a_note(url: str, board: str, note: str) -> None:
    notes: list[str] = []
    assert puzzlink.url_to_text(url, notes=notes) == board
    assert len(notes) == 1 and note in notes[0], notes


def test_a_trailing_slash_is_no_part_of_the_body() -> None:
    # pzprjs's "Copy URL" and pages that list boards often end a URL with '/'
    notes: list[str] = []
    assert puzzlink.url_to_text("https://puzz.link/p?slither/5/5/cbcbcddad/", notes=notes) == \
        puzzlink.url_to_text("https://puzz.link/p?slither/5/5/cbcbcddad")
    assert notes == []


def test_an_error_in_a_decoded_board_quotes_its_line(capsys: pytest.CaptureFixture) -> None:
    # the user never saw the decoded text, so "<url>:1:3:" would point nowhere; the message quotes the line
    for command in ("puzzle", "url", "gen"):
        status, _, err = run_cli(capsys, command, "hashi", "https://puzz.link/p?hashikake/2/1/9")
        assert status == 3 and "<url>: error: clue 9 is impossible here (it must be 1..8) (line 1, column 1 of the " \
            "board the URL decodes to: '9.')" in err, err
    # and where the board is well-formed but has no solution (a 1 given twice in a row)
    for command, status_wanted in (("puzzle", 1), ("url", 0), ("gen", 1)):
        status, _, err = run_cli(capsys, command, "sudoku", "https://puzz.link/p?sudoku/4/4/11k23k3g")
        assert status == status_wanted and "<url>: " in err and "the puzzle has no solution: 1 is given twice in " \
            "row 0 (line 1, column 3 of the board the URL decodes to: '1 1 - -')" in err, err


def test_the_cli_warns_of_a_body_cut_short(capsys: pytest.CaptureFixture) -> None:
    status, out, err = run_cli(capsys, "gen", "slitherlink", "https://puzz.link/p?slither/4/4/dgdh")
    assert status == 0 and ("(int" in out or "(bool" in out)
    assert "<url>: warning: URL body ends after 9 of its 16 cells" in err and "cut short" in err


def test_the_cli_warns_of_a_url_with_no_body(capsys: pytest.CaptureFixture) -> None:
    # pzprjs writes an empty board as runs of empty cells ('slither/3/3/o'), never as nothing
    assert puzzlink.to_url("- - -\n- - -\n- - -\n", "slitherlink").endswith("/3/3/o")
    for url in ("https://puzz.link/p?slither/3/3/", "https://puzz.link/p?slither/3/3"):
        status, out, err = run_cli(capsys, "gen", "slitherlink", url)
        assert status == 0 and "(int" in out or "(bool" in out
        assert "<url>: warning: URL has no body after its size 3/3" in err and "cut short" in err, err


def test_puzzle_command_solves_a_url(capsys: pytest.CaptureFixture) -> None:
    status, out, err = run_cli(capsys, "puzzle", "slitherlink", "https://puzz.link/p?slither/4/4/dgdh2c7b", "--unique")
    assert status == 0
    stored = (DATA / "slitherlink" / "cspuz_4x4.solution.txt").read_text(encoding="utf-8")
    status, answer, _ = run_cli(capsys, "puzzle", "slitherlink", "https://puzz.link/p?slither/4/4/dgdh2c7b",
                                "--format", "answer")
    assert status == 0 and _rows(answer) == _rows(stored)
    assert "unique" in err


def test_gen_reads_a_url_like_the_file(capsys: pytest.CaptureFixture) -> None:
    _, from_url, _ = run_cli(capsys, "gen", "hashi", "https://puzz.link/p?hashikake/5/5/4g2i3h23k3g1g3g4g3")
    _, from_file, _ = run_cli(capsys, "gen", "hashi", str(DATA / "hashi" / "pzprjs_5x5.txt"))
    body = lambda text: [line for line in text.splitlines() if not line.startswith(";")]  # noqa: E731
    assert body(from_url) == body(from_file)


def test_url_command(capsys: pytest.CaptureFixture) -> None:
    status, out, _ = run_cli(capsys, "url", "masyu", str(DATA / "masyu" / "pzprjs_6x6.txt"))
    assert (status, out) == (0, "https://puzz.link/p?mashu/6/6/1063000i3000\n")
    status, out, _ = run_cli(capsys, "url", "hashi", "http://pzv.jp/p.html?bridges/5/5/4g2i3h23k3g1g3g4g3")
    assert (status, out) == (0, "https://puzz.link/p?hashikake/5/5/4g2i3h23k3g1g3g4g3\n")


def test_url_of_a_board_its_reader_finds_unsolvable_is_written_with_a_warning(capsys, tmp_path: Path) -> None:
    board = tmp_path / "one.txt"
    board.write_text("4\n")  # an island that sees no other: well-formed, no solution
    status, out, err = run_cli(capsys, "url", "hashi", str(board))
    assert (status, out) == (0, "https://puzz.link/p?hashikake/1/1/4\n")
    assert f"{board}:1:1: warning: the puzzle has no solution: island 4 is impossible" in err


def test_url_errors_are_positioned_messages_not_tracebacks(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    status, _, err = run_cli(capsys, "puzzle", "masyu", "https://puzz.link/p?slither/4/4/dgdh2c7b")
    assert status == 3 and "is a slitherlink board, not masyu" in err and "Traceback" not in err
    status, _, err = run_cli(capsys, "url", "pentomino", str(DATA / "pentomino" / "box_3x20.txt"))
    assert status == 2 and "no puzz.link URL form" in err
    board = tmp_path / "rule.txt"
    board.write_text("every-cell\n1 - 2\n- - -\n1 - 2\n")
    status, _, err = run_cli(capsys, "url", "numberlink", str(board))  # valid (gen takes it), not a syntax error
    assert status == 5 and f"{board}:1:1:" in err and "cannot hold the rule line 'every-cell'" in err
    status, _, err = run_cli(capsys, "draw", "slitherlink", "https://puzz.link/p?slither/4/x/g", "-")
    assert status == 3 and "'x'" in err


@pytest.mark.parametrize("genre, text, line, col", [
    ("norinori", "0 1 0\n1 1 1\n0 1 0\n", 1, 5),
    ("starbattle", "stars 1\nA A B\nB B B\nB B A\n", 4, 5),
    ("lits", "AAB\nBBB\nAAA\n", 3, 1),
    ("heyawake", "0 1 0\n1 1 1\n0 1 0\n\n1 - -\n- - -\n- - -\n", 1, 5),
])
def test_a_region_in_two_parts_is_refused(genre: str, text: str, line: int, col: int) -> None:
    """Rooms are connected areas; a URL records borders, so two parts of one name would become two regions."""
    from tests.genre_support import assert_read_error

    from csp2sat.generators.base import genre as lookup

    assert_read_error(lookup(genre).read, text, "parts", line, col)


def test_scheme_and_host_are_case_insensitive_and_yajirin_is_yajilin() -> None:
    assert puzzlink.looks_like_url("HTTPS://PUZZ.LINK/p?slither/4/4/dgdh2c7b")
    assert puzzlink.looks_like_url("https://puzz.link/p")  # then parse_url says what is missing
    assert not puzzlink.looks_like_url("https://example.com/board.txt")  # may be a file name
    assert puzzlink.genre_of_url("https://puzz.link/p?yajirin/2/1/10a") == "yajilin"  # pzprjs's own type name


def test_a_board_too_large_to_read_back_gets_no_url() -> None:
    text = ("." * 1001 + "\n") * 1000  # 1,001,000 cells: parse_url refuses more than MAX_URL_CELLS
    with pytest.raises(puzzlink.UrlError, match="could not be read back"):
        puzzlink.to_url(text, "slitherlink")


@pytest.mark.parametrize("genre, url, answer, count", [
    # a one-column board of tokens: 10 and 10 are two cells, not a 2x2 grid of digits
    ("numberlink", "https://puzz.link/p?numlin/1/2/aa", "10\n|\n10\n", 1),
    ("hitori", "https://puzz.link/p?hitori/1/2/cc", None, 2),
    ("shikaku", "https://puzz.link/p?shikaku/1/12/cq", None, 1),
])
def test_a_one_column_board_keeps_its_size(capsys: pytest.CaptureFixture, genre: str, url: str,
                                           answer: str | None, count: int) -> None:
    status, out, err = run_cli(capsys, "puzzle", genre, url, "--count", "--format", "answer")
    assert status == 0, err
    assert f": {count} solution" in err, err
    if answer is not None:
        assert out == answer
    status, out, _ = run_cli(capsys, "url", genre, url)
    assert (status, out) == (0, url + "\n")  # the round trip keeps the size


@pytest.mark.parametrize("genre, board, count", [
    ("hitori", "12\n12\n", "2 solutions"),
    ("hitori", "10\n11\n", "3 solutions"),  # without the size line: a 2x2 board of 1, 0, 1, 1
    ("norinori", "ab\nab\n", "1 solution"),  # one region of two cells, not two columns of regions a and b
    ("lits", "ab\nab\nab\nab\n", "1 solution"),
])
def test_a_size_line_of_one_column_reads_tokens(capsys: pytest.CaptureFixture, monkeypatch, genre: str,
                                                board: str, count: str) -> None:
    import io

    rows = board.count("\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(f"size {rows} 1\n{board}"))
    status, _, err = run_cli(capsys, "puzzle", genre, "-", "--count")
    assert status == 0 and f"<stdin>: {count}" in err, err


def test_a_ragged_board_of_words_suggests_the_size_line(capsys: pytest.CaptureFixture, monkeypatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("10\n9\n"))
    status, _, err = run_cli(capsys, "puzzle", "hitori", "-")
    assert status == 3 and "row has 1 cell but the first row has 2" in err and "'size 2 1'" in err, err


@pytest.mark.parametrize("url", ["https://puzz.link/p?hashikake/3/1/1ga", "https://puzz.link/p?hashikake/3/1/a1"])
def test_a_clue_too_long_for_a_one_character_board_is_an_error(url: str) -> None:
    # a hashi island of 10 would have shifted the rest of its row (a 4x1 board solved instead of 3x1)
    with pytest.raises(UrlError, match="URL clue 10 .* is not a hashiwokakero clue"):
        puzzlink.url_to_text(url)


@pytest.mark.parametrize("genre, url", [("norinori", "https://puzz.link/p?norinori/1/12/vvg"),
                                        ("heyawake", "https://puzz.link/p?heyawake/1/12/vvgr")])
def test_a_one_column_board_of_twelve_rooms_keeps_its_size(capsys: pytest.CaptureFixture, genre: str,
                                                           url: str) -> None:
    # room numbers 10 and 11 were read as two cells each ("row has 2 cells but the first row has 1")
    text = puzzlink.url_to_text(url)
    assert text.startswith("size 12 1\n") and "\n11\n" in text
    status, out, _ = run_cli(capsys, "url", genre, url)
    assert (status, out) == (0, url + "\n")
