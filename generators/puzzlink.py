"""puzz.link URLs in and out: the front end that turns a pzprjs URL into a genre's board text, and back.

Puzzle people pass boards around as URLs such as ``https://puzz.link/p?slither/10/10/...``
(also ``pzv.jp/p.html?...`` and ``pzprxs.vercel.app/p?...``). The part after ``?`` is
``TYPE[/FLAGS]/COLS/ROWS/BODY``; the body packs the clues of the cells in row-major order
with one of pzprjs's cell codes (its ``Encode`` class):

- ``4cell`` (Slitherlink): ``0``-``4`` a clue; ``5``-``9`` and ``a``-``e`` a clue followed by
  1 or 2 empty cells; ``g``-``z`` a run of 1 to 20 empty cells; ``.`` an unknown clue.
- ``number10`` (Fillmat): ``0``-``9`` a clue, ``a``-``z`` a run of 1 to 26 empty cells, ``.`` unknown.
- ``number16`` (Hashiwokakero, Shikaku, Nurikabe): ``0``-``f`` a clue, ``-XX`` / ``+XXX`` /
  ``=XXX`` / ``%XXX`` larger clues in hexadecimal, ``g``-``z`` a run of empty cells, ``.`` unknown.
- ``hitori``: ``0``-``9``/``a``-``z`` a base-36 number, ``-XX`` a two-digit one, ``.`` a cell
  without a number, ``%``/``@`` an unknown number (no runs).
- ``circle`` (Masyu): each base-27 digit holds three cells (0 none, 1 white, 2 black).

Data flows one way in each direction: URL -> `parse_url` -> clue grid -> the genre's board
text (the format of data/README.md, which the genre's own reader then reads); board text ->
clue grid -> canonical URL (`to_url`). Decoding follows pzprjs: a body that ends early leaves
the remaining cells empty and characters after the last cell are ignored (pzprjs ignores them
too), but a character that is not part of the code is an error naming its position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from csp2sat.generators.base import PuzzleError, is_number
from csp2sat.generators.boardkit import EMPTY_TOKENS, header_value, read_grid, read_regions, region_lines, sections

# A cell's clue: None (no clue), UNKNOWN (a clue whose value is not given: `?`), or a number.
Clue = "int | str | None"
UNKNOWN = "?"

CANONICAL_HOST = "https://puzz.link/p?"
# Hosts that serve pzprjs boards; anything of the form SCHEME://HOST/PATH?QUERY is read the same way.
_URL = re.compile(r"^(?:(?:https?://)?[A-Za-z0-9.-]+(?::\d+)?/[^?]*\?)?(?P<query>.*)$", re.IGNORECASE)
# pzprjs's own hosts, with or without a scheme (schemes and host names are case-insensitive)
_KNOWN_HOST = re.compile(r"^(https?://)?(www\.)?(puzz\.link|pzv\.jp|pzprxs\.vercel\.app)(/|$)", re.IGNORECASE)
_SCHEME = re.compile(r"^https?://", re.IGNORECASE)


class UrlError(PuzzleError):
    """A puzz.link URL that cannot be read, naming the part that is wrong."""


class NoUrlForm(UrlError):
    """A valid board that a puzz.link URL cannot express (its genre has no URL, or a rule line)."""


@dataclass(frozen=True)
class PuzzleUrl:
    """The parts of a pzprjs URL: puzzle type, optional flags, size and the clue body."""

    pid: str
    flags: str
    cols: int
    rows: int
    body: str


def looks_like_url(text: str) -> bool:
    """True when `text` is a puzz.link-style URL rather than a file name or board text."""
    text = text.strip()
    # a known host without '?' is still a URL: parse_url says what is missing
    return _KNOWN_HOST.match(text) is not None or (_SCHEME.match(text) is not None and "?" in text)


MAX_URL_CELLS = 1_000_000  # the largest board read from a URL, and so the largest written as one


def parse_url(url: str) -> PuzzleUrl:
    """Split a pzprjs URL into its parts; `UrlError` names the part that is malformed."""
    url = url.strip()
    if "?" not in url and (_SCHEME.match(url) or _KNOWN_HOST.match(url)):
        raise UrlError(f"URL {url!r} has no puzzle after '?' (expected TYPE/COLS/ROWS/BODY)")
    match = _URL.match(url)
    query = match.group("query") if match else ""
    query = query.split("#", 1)[0]
    if not query:
        raise UrlError(f"URL {url!r} has no puzzle after '?' (expected TYPE/COLS/ROWS/BODY)")
    parts = query.split("/")
    pid = parts[0]
    if not re.fullmatch(r"[A-Za-z0-9_]+", pid):
        raise UrlError(f"URL puzzle type {pid!r} is not a name")
    rest = parts[1:]
    flags = ""
    # pzprjs: a segment before the size that is not a number is the flags field; only letters followed by two
    # numbers are taken so, so that a malformed width ("-4", "4.5", "x/4/...") is reported as the width
    if len(rest) >= 3 and re.fullmatch(r"[A-Za-z_]+", rest[0]) and is_number(rest[1]) and is_number(rest[2]):
        flags = rest.pop(0)
    if len(rest) < 2:
        raise UrlError(f"URL {url!r} has no size: expected {pid}/COLS/ROWS/BODY")
    cols_text, rows_text = rest[0], rest[1]
    for label, value in (("width (columns)", cols_text), ("height (rows)", rows_text)):
        if not is_number(value) or int(value) == 0:
            raise UrlError(f"URL {label} {value!r} is not a positive whole number")
    cols, rows = int(cols_text), int(rows_text)
    if cols * rows > MAX_URL_CELLS:
        raise UrlError(f"URL size {cols}x{rows} is larger than csp2sat reads (at most {MAX_URL_CELLS:,} cells)")
    # pzprjs's "Copy URL" and some pages end the body with a '/'
    return PuzzleUrl(pid.lower(), flags, cols, rows, "/".join(rest[2:]).removesuffix("/"))


# --- pzprjs cell codes -------------------------------------------------------------------

def _bad(code: str, body: str, i: int) -> UrlError:
    return UrlError(f"URL body character {body[i]!r} at position {i + 1} is not valid in the {code} code")


def _note_cut_or_rest(notes: list[str] | None, code: str, body: str, i: int, c: int, cells: int,
                      start: int = 0) -> None:
    """Note in `notes` a body whose `code` part (from `start`) stops at cell `c` of `cells`, or that goes on after
    the last cell at `i`. pzprjs reads both (the missing cells empty, the rest ignored) and so do we, but pzprjs
    writes every cell and nothing more, so either is likely a URL cut short or two run together. A part with no
    characters at all is not noted here (a whole body with none is noted once by `url_to_text`)."""
    _note_cut(notes, code, i, c, cells, start)
    _note_rest(notes, body, i)


def _note_cut(notes: list[str] | None, code: str, i: int, c: int, cells: int, start: int = 0) -> None:
    """Note in `notes` a `code` part (from `start`) that stops at `i`, after cell `c` of `cells`."""
    if notes is not None and c < cells and i > start:
        notes.append(f"URL body ends after {c} of its {cells} cells (the {code} code, at position {i}): "
                     "the other cells are read as empty; is the URL cut short?")


def _note_rest(notes: list[str] | None, body: str, i: int) -> None:
    """Note in `notes` the characters of `body` after its last part, from `i` (pzprjs ignores them, as we do)."""
    if notes is not None and i < len(body):
        rest = body[i:] if len(body) - i <= 20 else body[i:i + 20] + "..."
        notes.append(f"URL body goes on after the whole board: {rest!r} from position {i + 1} is ignored, "
                     "as pzprjs ignores it")


def decode_4cell(body: str, cells: int, notes: list[str] | None = None) -> list[Clue]:
    """pzprjs ``decode4Cell``: clues 0-4 with runs of empty cells."""
    out: list[Clue] = [None] * cells
    c = i = 0
    while i < len(body) and c < cells:
        ch = body[i]
        if "0" <= ch <= "4":
            out[c] = int(ch)
        elif "5" <= ch <= "9":
            out[c] = int(ch) - 5
            c += 1
        elif "a" <= ch <= "e":
            out[c] = int(ch, 16) - 10
            c += 2
        elif "g" <= ch <= "z":
            c += int(ch, 36) - 16
        elif ch == ".":
            out[c] = UNKNOWN
        else:
            raise _bad("4cell", body, i)
        c += 1
        i += 1
    _note_cut_or_rest(notes, "4cell", body, i, c, cells)
    return out


def encode_4cell(clues: Sequence[Clue]) -> str:
    """pzprjs ``encode4Cell``: the inverse of `decode_4cell` (clues must be 0-4 or unknown)."""
    def pieces() -> Iterator[str | None]:
        c, n = 0, len(clues)
        while c < n:
            clue = clues[c]
            if isinstance(clue, int):
                if not 0 <= clue <= 4:
                    raise UrlError(f"clue {clue} cannot be written in the 4cell code (0-4 only)")
                # a clue followed by one or two empty cells takes them into its own character
                if c + 1 < n and clues[c + 1] is not None:
                    yield str(clue)
                elif c + 2 < n and clues[c + 2] is not None:
                    yield str(5 + clue)
                    c += 1
                else:
                    yield format(10 + clue, "x")
                    c += 2
            else:
                yield "." if clue == UNKNOWN else None
            c += 1
    return _with_runs(pieces(), offset=15, longest=20)


def decode_number10(body: str, cells: int, notes: list[str] | None = None) -> list[Clue]:
    """pzprjs ``decodeNumber10``: clues 0-9 with runs of empty cells ``a``-``z``."""
    out: list[Clue] = [None] * cells
    c = i = 0
    while i < len(body) and c < cells:
        ch = body[i]
        if ch == ".":
            out[c] = UNKNOWN
        elif "0" <= ch <= "9":
            out[c] = int(ch)
        elif "a" <= ch <= "z":
            c += int(ch, 36) - 10
        else:
            raise _bad("number10", body, i)
        c += 1
        i += 1
    _note_cut_or_rest(notes, "number10", body, i, c, cells)
    return out


def encode_number10(clues: Sequence[Clue]) -> str:
    """pzprjs ``encodeNumber10`` (clues must be 0-9 or unknown)."""
    def piece(clue: Clue) -> str | None:
        if isinstance(clue, int) and not 0 <= clue <= 9:
            raise UrlError(f"clue {clue} cannot be written in the number10 code (0-9 only)")
        return "." if clue == UNKNOWN else None if clue is None else str(clue)
    return _with_runs(map(piece, clues), offset=9, longest=26)


# pzprjs ``writeNumber16``/``readNumber16``: prefix -> (hexadecimal digits, offset); "$" reaches 1,126,351.
_WIDE = {"-": (2, 0), "+": (3, 0), "=": (3, 4096), "%": (3, 8192), "*": (4, 12240), "$": (5, 77776)}
NUMBER16_MAX = 77776 + 0xFFFFF


def decode_number16(body: str, cells: int, notes: list[str] | None = None, start: int = 0) -> list[Clue]:
    """pzprjs ``decodeNumber16``: hexadecimal clues of any size with runs of empty cells ``g``-``z``, read from
    `start` to the end of `body`."""
    out: list[Clue] = [None] * cells
    c, i = 0, start
    while i < len(body) and c < cells:
        ch = body[i]
        if "0" <= ch <= "9" or "a" <= ch <= "f":
            out[c] = int(ch, 16)
        elif ch in _WIDE:
            width, offset = _WIDE[ch]
            digits = body[i + 1:i + 1 + width]
            if len(digits) != width or not re.fullmatch(r"[0-9a-f]+", digits):
                raise UrlError(f"URL body: {ch!r} at position {i + 1} must be followed by {width} hexadecimal digits")
            out[c] = int(digits, 16) + offset
            i += width
        elif ch == ".":
            out[c] = UNKNOWN
        elif "g" <= ch <= "z":
            c += int(ch, 36) - 16
        else:
            raise _bad("number16", body, i)
        c += 1
        i += 1
    _note_cut_or_rest(notes, "number16", body, i, c, cells, start)
    return out


def encode_number16(clues: Sequence[Clue]) -> str:
    """pzprjs ``encodeNumber16``."""
    def piece(clue: Clue) -> str | None:
        if clue is None or clue == UNKNOWN:
            return None if clue is None else "."
        assert isinstance(clue, int)
        if clue < 0:
            raise UrlError(f"clue {clue} cannot be written in the number16 code")
        if clue < 16:
            return format(clue, "x")
        if clue < 256:
            return "-" + format(clue, "x")
        if clue < 4096:
            return "+" + format(clue, "x")
        if clue < 8192:
            return "=" + format(clue - 4096, "03x")
        if clue < 12240:
            return "%" + format(clue - 8192, "03x")
        if clue < 77776:
            return "*" + format(clue - 12240, "04x")
        if clue <= NUMBER16_MAX:
            return "$" + format(clue - 77776, "05x")
        raise UrlError(f"clue {clue} cannot be written in the number16 code (0 to {NUMBER16_MAX})")
    return _with_runs(map(piece, clues), offset=15, longest=20)


def decode_hitori(body: str, cells: int, notes: list[str] | None = None) -> list[Clue]:
    """pzprjs ``decodeHitori``: one base-36 digit per number (``0``-``9``, ``a``-``z``), ``-XX`` two
    base-36 digits, ``.`` a cell without a number, ``%`` or ``@`` a number that is not given."""
    out: list[Clue] = [None] * cells
    c = i = 0
    while i < len(body) and c < cells:
        ch = body[i]
        if "0" <= ch <= "9" or "a" <= ch <= "z":
            out[c] = int(ch, 36)
        elif ch == "-":
            digits = body[i + 1:i + 3]
            if len(digits) != 2 or not re.fullmatch(r"[0-9a-z]+", digits):
                raise UrlError(f"URL body: '-' at position {i + 1} must be followed by 2 base-36 digits")
            out[c] = int(digits, 36)
            i += 2
        elif ch in "%@":
            out[c] = UNKNOWN
        elif ch != ".":
            raise _bad("hitori", body, i)
        c += 1
        i += 1
    _note_cut_or_rest(notes, "hitori", body, i, c, cells)
    return out


def encode_hitori(clues: Sequence[Clue]) -> str:
    """pzprjs ``encodeHitori``: no runs; every cell without a number is a ``.``."""
    def piece(clue: Clue) -> str:
        if clue is None:
            return "."
        if clue == UNKNOWN:
            return "@"
        assert isinstance(clue, int)
        if not 0 <= clue < 1296:
            raise UrlError(f"clue {clue} cannot be written in the hitori code (0 to 1295)")
        return _base36(clue) if clue < 36 else "-" + _base36(clue // 36) + _base36(clue % 36)
    return "".join(piece(clue) for clue in clues)


def decode_circle(body: str, cells: int, notes: list[str] | None = None) -> list[Clue]:
    """pzprjs ``decodeCircle``: three cells per base-27 digit (1 white, 2 black)."""
    out: list[Clue] = [None] * cells
    for i in range(min((cells + 2) // 3, len(body))):
        try:
            value = int(body[i], 27)
        except ValueError:
            raise _bad("circle", body, i) from None
        for k, weight in enumerate((9, 3, 1)):
            c = 3 * i + k
            if c < cells and (value // weight) % 3:
                out[c] = (value // weight) % 3
    need = (cells + 2) // 3
    _note_cut_or_rest(notes, "circle", body, min(need, len(body)), min(3 * len(body), cells), cells)
    return out


def encode_circle(clues: Sequence[Clue]) -> str:
    """pzprjs ``encodeCircle``."""
    out = []
    for start in range(0, len(clues), 3):
        value = 0
        for k, weight in enumerate((9, 3, 1)):
            clue = clues[start + k] if start + k < len(clues) else None
            if clue not in (None, 1, 2):
                raise UrlError(f"cell value {clue!r} cannot be written in the circle code (white or black only)")
            value += (clue or 0) * weight
        out.append(_base36(value))
    return "".join(out)


def _with_runs(pieces: Iterable[str | None], offset: int, longest: int) -> str:
    """Cell codes joined as pzprjs's encoders join them: each run of empty cells (None) becomes one
    base-36 digit, `offset` + the run's length, a run being cut at `longest` cells."""
    out, count = [], 0
    for piece in pieces:
        if piece is None:
            count += 1
            if count < longest:
                continue
            piece = ""
        if count:
            out.append(_base36(offset + count))
            count = 0
        out.append(piece)
    if count:
        out.append(_base36(offset + count))
    return "".join(out)


def decode_border(body: str, rows: int, cols: int, start: int = 0,
                  notes: list[str] | None = None) -> tuple[list[list[int]], int]:
    """pzprjs ``decodeBorder``: the room walls, 5 per base-32 digit (vertical walls first, then
    horizontal ones, row-major) from `start`, as the rooms they make (numbered in reading order of
    their first cell), and where the rest of the body starts. Walls missing from a body cut short
    are read as none, as pzprjs reads them (and noted in `notes`)."""
    vertical, horizontal = (cols - 1) * rows, cols * (rows - 1)
    need = (vertical + 4) // 5 + (horizontal + 4) // 5
    end = min(start + need, len(body))
    if start < end < start + need and notes is not None:
        notes.append(f"URL body ends after {end - start} of the {need} wall characters of a {cols}x{rows} board "
                     f"(at position {end}): the other walls are read as none; is the URL cut short?")
    bits: list[bool] = []
    for i in range(start, end):
        try:
            value = int(body[i], 32)
        except ValueError:
            raise _bad("border", body, i) from None
        bits += [bool(value & w) for w in (16, 8, 4, 2, 1)]
    first = (vertical + 4) // 5 * 5
    walls_v = (bits[:first] + [False] * first)[:vertical]
    walls_h = (bits[first:] + [False] * horizontal)[:horizontal]
    labels = [[-1] * cols for _ in range(rows)]
    count = 0
    for r0 in range(rows):
        for c0 in range(cols):
            if labels[r0][c0] >= 0:
                continue
            labels[r0][c0], stack = count, [(r0, c0)]
            while stack:
                r, c = stack.pop()
                steps = []
                if c + 1 < cols and not walls_v[r * (cols - 1) + c]:
                    steps.append((r, c + 1))
                if c > 0 and not walls_v[r * (cols - 1) + c - 1]:
                    steps.append((r, c - 1))
                if r + 1 < rows and not walls_h[r * cols + c]:
                    steps.append((r + 1, c))
                if r > 0 and not walls_h[(r - 1) * cols + c]:
                    steps.append((r - 1, c))
                for rr, cc in steps:
                    if labels[rr][cc] < 0:
                        labels[rr][cc] = count
                        stack.append((rr, cc))
            count += 1
    return labels, end


def encode_border(labels: Sequence[Sequence[object]]) -> str:
    """pzprjs ``encodeBorder``: the walls between cells of different labels."""
    rows, cols = len(labels), len(labels[0])
    out = []
    for bits in ([labels[r][c] != labels[r][c + 1] for r in range(rows) for c in range(cols - 1)],
                 [labels[r][c] != labels[r + 1][c] for r in range(rows - 1) for c in range(cols)]):
        for start in range(0, len(bits), 5):
            value = sum(w for w, bit in zip((16, 8, 4, 2, 1), bits[start:start + 5]) if bit)
            out.append("0123456789abcdefghijklmnopqrstuv"[value])
    return "".join(out)


def _base36(n: int) -> str:
    return "0123456789abcdefghijklmnopqrstuvwxyz"[n]


def _one_column_size(rows: int, cols: int) -> str:
    """The size line a board of tokens needs when it has one column (`read_grid`), else nothing: its
    tokens ('10', '11') have no space between them to show they are not one character per cell."""
    return f"size {rows} 1\n" if cols == 1 else ""


def _rooms_text(labels: list[list[int]]) -> str:
    return _one_column_size(len(labels), len(labels[0])) + "".join(line + "\n" for line in region_lines(labels))


def _stars_to_board(parts: PuzzleUrl, notes: list[str] | None = None) -> str:
    """Star Battle: ``STARS/BORDERS`` (pzprjs ``decodeStarCount`` then ``decodeBorder``)."""
    count = parts.body.partition("/")[0]
    if not is_number(count) or int(count) == 0:
        raise UrlError(f"URL star count {count!r} is not a positive whole number (expected STARS/BORDERS)")
    start = len(count) + 1
    labels, end = decode_border(parts.body, parts.rows, parts.cols, start, notes)
    _note_rest(notes, parts.body, end)
    return f"stars {int(count)}\n" + _rooms_text(labels)


def _stars_from_board(text: str) -> tuple[int, int, str]:
    count, rest = header_value(text, "stars", 1, 10**6)
    labels, _ = read_regions(rest)
    return len(labels), len(labels[0]), f"{count or 1}/{encode_border(labels)}"


def _rooms_to_board(parts: PuzzleUrl, notes: list[str] | None = None) -> str:
    """Norinori, LITS: the rooms alone (pzprjs ``decodeBorder``)."""
    labels, end = decode_border(parts.body, parts.rows, parts.cols, notes=notes)
    _note_rest(notes, parts.body, end)
    return _rooms_text(labels)


def _rooms_from_board(text: str) -> tuple[int, int, str]:
    labels, _ = read_regions(text)
    return len(labels), len(labels[0]), encode_border(labels)


def _numbered_rooms_to_board(parts: PuzzleUrl, notes: list[str] | None = None) -> str:
    """Heyawake: ``BORDERS`` then one number16 clue per room in room order (pzprjs ``decodeRoomNumber16``),
    written at each room's first cell."""
    labels, end = decode_border(parts.body, parts.rows, parts.cols, notes=notes)
    count = 1 + max(max(row) for row in labels)
    clues = decode_number16(parts.body, count, notes, end)
    grid: list[list[str]] = [["-"] * parts.cols for _ in range(parts.rows)]
    placed: set[int] = set()
    for r, row in enumerate(labels):
        for c, k in enumerate(row):
            if k not in placed:
                placed.add(k)
                clue = clues[k]
                grid[r][c] = "-" if clue is None else str(clue)
    return _rooms_text(labels) + "\n" + "".join(" ".join(row) + "\n" for row in grid)


def _numbered_rooms_from_board(text: str) -> tuple[int, int, str]:
    room_text, number_text = sections(text, 2)
    labels, _ = read_regions(room_text)
    clues: list[Clue] = [None] * (1 + max(max(row) for row in labels))
    for r, row in enumerate(read_grid(number_text, tokens=True)):
        for c, token in enumerate(row):
            if token.text == "?":
                clues[labels[r][c]] = UNKNOWN
            elif is_number(token.text):
                clues[labels[r][c]] = int(token.text)
    return len(labels), len(labels[0]), encode_border(labels) + encode_number16(clues)


def _kakuro_value(ch: str, body: str, i: int) -> int:
    """pzprjs kakuro ``decval``: 0-9 and a-j are 0-19, A-Z are 20-45; ``-`` (pzprjs's -1) is no sum, as 0."""
    if ch == "-":
        return 0
    if "0" <= ch <= "9" or "a" <= ch <= "j":
        return int(ch, 36)
    if "A" <= ch <= "Z":
        return int(ch, 36) + 10
    raise _bad("kakuro", body, i)


def _kakuro_char(value: int) -> str:
    """pzprjs kakuro ``encval``."""
    return _base36(value) if value < 20 else _base36(value - 10).upper()


def _kakuro_to_board(parts: PuzzleUrl, notes: list[str] | None = None) -> str:
    """Kakuro (pzprjs ``decodeKakuro``): the board's black cells (``.`` none, else DOWN ACROSS as two
    characters, ``k``-``z`` a run of 1-16 white cells), then the frame's sums: down sums of the columns
    whose top cell is white, across sums of the rows whose left cell is white. The board text has the
    frame as its first row and column."""
    rows, cols, body = parts.rows, parts.cols, parts.body
    black: dict[tuple[int, int], tuple[int, int]] = {}
    c = i = 0
    while i < len(body) and c < rows * cols:
        ch = body[i]
        if "k" <= ch <= "z":
            c += int(ch, 36) - 19
        else:
            sums = (0, 0)
            if ch != ".":
                down = _kakuro_value(ch, body, i)  # first: a character of no code is named as such
                if i + 1 >= len(body):
                    raise UrlError(f"URL body ends inside the sums of a black cell (position {i + 1})")
                sums = (down, _kakuro_value(body[i + 1], body, i + 1))
                i += 1
            black[divmod(c, cols)] = sums
            c += 1
        i += 1
    _note_cut(notes, "kakuro", i, c, rows * cols)  # the frame's sums follow: not a rest
    frame_down = [0] * cols
    frame_across = [0] * rows
    # the frame's sums follow, one per column whose top cell is white, then one per row whose left cell is
    frame = [(frame_down, col) for col in range(cols) if (0, col) not in black]
    frame += [(frame_across, row) for row in range(rows) if (row, 0) not in black]
    if i < len(body) < i + len(frame) and notes is not None:
        notes.append(f"URL body ends after {len(body) - i} of the {len(frame)} sums of the frame "
                     f"(at position {len(body)}): the other sums are read as none; is the URL cut short?")
    for sums, k in frame[:len(body) - i]:
        sums[k], i = _kakuro_value(body[i], body, i), i + 1
    _note_rest(notes, body, i)

    def mark(down: int, across: int) -> str:
        return "#" if down == across == 0 else f"{down or '-'}\\{across or '-'}"

    lines = [" ".join(["#"] + [mark(frame_down[col], 0) for col in range(cols)])]
    for row in range(rows):
        cells = [mark(0, frame_across[row])]
        cells += [mark(*black[row, col]) if (row, col) in black else "." for col in range(cols)]
        lines.append(" ".join(cells))
    return "".join(line + "\n" for line in lines)


def _kakuro_from_board(text: str) -> tuple[int, int, str]:
    grid = read_grid(text, hash_comments=False, tokens=True)

    def sums(word: str) -> tuple[int, int]:
        if word == "#":
            return (0, 0)
        down, _, across = word.partition("\\")
        return (0 if down == "-" else int(down), 0 if across == "-" else int(across))

    rows, cols = len(grid) - 1, len(grid[0]) - 1

    def pieces() -> Iterator[str | None]:
        for row in grid[1:]:
            for token in row[1:]:
                if token.text in (".", "0"):
                    yield None
                    continue
                down, across = sums(token.text)
                yield "." if down == across == 0 else _kakuro_char(down) + _kakuro_char(across)

    out = [_with_runs(pieces(), offset=19, longest=16)]
    for col in range(cols):
        if grid[1][col + 1].text in (".", "0"):
            out.append(_kakuro_char(sums(grid[0][col + 1].text)[0]))
    for row in range(rows):
        if grid[row + 1][1].text in (".", "0"):
            out.append(_kakuro_char(sums(grid[row + 1][0].text)[1]))
    return rows, cols, "".join(out)


_DIRECTIONS = {0: "", 1: "^", 2: "v", 3: "<", 4: ">"}


def decode_arrow_number16(body: str, cells: int, notes: list[str] | None = None) -> list[tuple[int, int | None] | None]:
    """pzprjs ``decodeArrowNumber16``: a direction digit (0 none, 1 up, 2 down, 3 left, 4 right) and a
    hexadecimal number (``.`` unknown); ``5``-``9`` a direction + 5 with two digits, ``-`` a direction
    with three; ``a``-``z`` a run of 1-26 empty cells."""
    out: list[tuple[int, int | None] | None] = [None] * cells
    c = i = 0
    while i < len(body) and c < cells:
        ch = body[i]
        if "0" <= ch <= "4" or "5" <= ch <= "9" or ch == "-":
            # "D" + 1 digit (or "."), "D+5" + 2 digits, "-" D + 3 digits: (direction, where the digits start, how many)
            if ch == "-":
                direction, start, size = body[i + 1:i + 2], i + 2, 3
            elif ch <= "4":
                direction, start, size = ch, i + 1, 1
            else:
                direction, start, size = str(int(ch) - 5), i + 1, 2
            digits = body[start:start + size]
            if not is_number(direction) or int(direction) > 4 or not (
                    (digits == "." and size == 1) or (re.fullmatch(r"[0-9a-f]+", digits) and len(digits) == size)):
                raise UrlError(f"URL body: the arrow clue at position {i + 1} is malformed")
            out[c] = (int(direction), None if digits == "." else int(digits, 16))
            i = start + size - 1
        elif "a" <= ch <= "z":
            c += int(ch, 36) - 10
        else:
            raise _bad("arrow number16", body, i)
        c += 1
        i += 1
    _note_cut_or_rest(notes, "arrow number16", body, i, c, cells)
    return out


def encode_arrow_number16(clues: Sequence[tuple[int, int | None] | None]) -> str:
    """pzprjs ``encodeArrowNumber16``."""
    def piece(clue: tuple[int, int | None] | None) -> str | None:
        if clue is None:
            return None
        direction, number = clue
        if number is None:
            return f"{direction}."
        if number < 16:
            return f"{direction}{number:x}"
        if number < 256:
            return f"{direction + 5}{number:02x}"
        if number < 4096:
            return f"-{direction}{number:03x}"
        raise UrlError(f"clue {number} cannot be written in the arrow number16 code (0 to 4095)")
    return _with_runs(map(piece, clues), offset=9, longest=26)


def _arrows_to_board(parts: PuzzleUrl, notes: list[str] | None = None) -> str:
    """Yajilin: arrow clues (``N>``, ``?^``, ``N`` without an arrow), ``.`` elsewhere."""
    clues = decode_arrow_number16(parts.body, parts.rows * parts.cols, notes)
    words = ["." if clue is None else ("?" if clue[1] is None else str(clue[1])) + _DIRECTIONS[clue[0]]
             for clue in clues]
    return "".join(" ".join(words[r * parts.cols:(r + 1) * parts.cols]) + "\n" for r in range(parts.rows))


def _arrows_from_board(text: str) -> tuple[int, int, str]:
    grid = read_grid(text, tokens=True)
    codes = {v: k for k, v in _DIRECTIONS.items() if v}
    clues: list[tuple[int, int | None] | None] = []
    for row in grid:
        for token in row:
            word = token.text
            if word in (".", "-"):
                clues.append(None)
                continue
            direction = codes.get(word[-1], 0)
            number = word[:-1] if direction else word
            clues.append((direction, None if number == "?" else int(number)))
    return len(grid), len(grid[0]), encode_arrow_number16(clues)


# --- genres ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class UrlFormat:
    """How one genre's boards are written in URLs: the pzprjs type names (the first is the
    canonical one), the cell code and how a clue reads and prints in the genre's board text."""

    genre: str
    pids: tuple[str, ...]
    decode: Callable[[str, int, list[str] | None], list[Clue]] | None  # None: the board is not a grid of cell clues (see below)
    encode: Callable[[Sequence[Clue]], str] | None
    tokens: bool  # board text as space-separated tokens (else one character per cell)
    empty: str
    symbols: dict[int, str] | None = None  # clue value -> board character (Masyu's circles)
    blanks: frozenset[str] = EMPTY_TOKENS  # the board tokens that mean "no clue" to the genre's reader
    unknown: str = UNKNOWN  # how the board text writes the code's "." (Akari: a black cell without a number)
    # Boards of rooms (Star Battle, Norinori): URL parts -> board text, and board text -> (rows, cols, body).
    to_board: Callable[[PuzzleUrl, list[str] | None], str] | None = None
    from_board: Callable[[str], tuple[int, int, str]] | None = None


FORMATS: dict[str, UrlFormat] = {
    f.genre: f
    for f in (
        UrlFormat("slitherlink", ("slither", "slitherlink"), decode_4cell, encode_4cell, False, ".",
                  blanks=frozenset({".", "-", "-1"})),  # 0 is a Slitherlink clue
        UrlFormat("hashiwokakero", ("hashikake", "hashi", "bridges"), decode_number16, encode_number16, False, "."),
        UrlFormat("shikaku", ("shikaku",), decode_number16, encode_number16, True, "-"),
        UrlFormat("fillmat", ("fillmat",), decode_number10, encode_number10, False, "."),
        UrlFormat("masyu", ("mashu", "masyu", "pearl"), decode_circle, encode_circle, False, ".", {1: "W", 2: "B"}),
        UrlFormat("nurikabe", ("nurikabe",), decode_number16, encode_number16, True, "-"),
        UrlFormat("akari", ("lightup", "akari"), decode_4cell, encode_4cell, False, ".", unknown="#",
                  blanks=frozenset({".", "-"})),  # 0 is an Akari clue; the code's "." is a black cell
        UrlFormat("hitori", ("hitori",), decode_hitori, encode_hitori, True, "-"),
        UrlFormat("starbattle", ("starbattle",), None, None, True, "-",
                  to_board=_stars_to_board, from_board=_stars_from_board),
        UrlFormat("norinori", ("norinori",), None, None, True, "-",
                  to_board=_rooms_to_board, from_board=_rooms_from_board),
        UrlFormat("lits", ("lits",), None, None, True, "-", to_board=_rooms_to_board, from_board=_rooms_from_board),
        UrlFormat("numberlink", ("numlin", "numberlink"), decode_number16, encode_number16, True, "-"),
        UrlFormat("kakuro", ("kakuro",), None, None, True, ".", to_board=_kakuro_to_board,
                  from_board=_kakuro_from_board),
        UrlFormat("yajilin", ("yajilin", "yajirin"), None, None, True, ".", to_board=_arrows_to_board,
                  from_board=_arrows_from_board),
        UrlFormat("heyawake", ("heyawake",), None, None, True, "-",
                  to_board=_numbered_rooms_to_board, from_board=_numbered_rooms_from_board),
        UrlFormat("sudoku", ("sudoku",), decode_number16, encode_number16, True, "-"),
    )
}
_BY_PID = {pid: f for f in FORMATS.values() for pid in f.pids}


def url_format(genre: str) -> UrlFormat:
    """The URL format of a genre (its canonical name); `UrlError` when the genre has none."""
    try:
        return FORMATS[genre]
    except KeyError:
        raise NoUrlForm(
            f"{genre} boards have no puzz.link URL form; URLs are read for {', '.join(FORMATS)}"
        ) from None


def genre_of_url(url: str) -> str:
    """The csp2sat genre of a URL's puzzle type; `UrlError` for a type csp2sat does not read."""
    pid = parse_url(url).pid
    try:
        return _BY_PID[pid].genre
    except KeyError:
        known = ", ".join(sorted(_BY_PID))
        raise UrlError(f"URL puzzle type {pid!r} is not a genre csp2sat reads (types read: {known})") from None


def url_to_text(url: str, genre: str | None = None, notes: list[str] | None = None) -> str:
    """The board text (data/README.md format) of a puzz.link URL.

    With `genre`, the URL's puzzle type must be one of that genre's names. A body that stops before
    the last cell or goes on after it is read as pzprjs reads it, and said so in `notes`.
    """
    parts = parse_url(url)
    fmt = _BY_PID.get(parts.pid)
    if fmt is None:
        genre_of_url(url)  # raises the error naming the type
    assert fmt is not None
    if genre is not None and fmt.genre != genre:
        raise UrlError(f"URL puzzle type {parts.pid!r} is a {fmt.genre} board, not {genre}")
    if not parts.body and notes is not None:
        # pzprjs writes at least one character for every board (an empty one as runs of empty cells), so
        # a URL that stops after its size was most likely cut short when it was copied
        notes.append(f"URL has no body after its size {parts.cols}/{parts.rows}: every cell is read as empty; "
                     "is the URL cut short?")
    if fmt.to_board is not None:
        return fmt.to_board(parts, notes)
    assert fmt.decode is not None
    clues = fmt.decode(parts.body, parts.rows * parts.cols, notes)
    rows = [clues[r * parts.cols:(r + 1) * parts.cols] for r in range(parts.rows)]
    sep = " " if fmt.tokens else ""
    texts = [[_clue_text(fmt, clue) for clue in row] for row in rows]
    if not fmt.tokens:  # one character per cell: a longer clue would shift the rest of its row
        for r, row in enumerate(texts):
            for c, text in enumerate(row):
                if len(text) > 1:
                    raise UrlError(f"URL clue {text} (row {r + 1}, column {c + 1}) is not a {fmt.genre} clue")
    size = _one_column_size(parts.rows, parts.cols) if fmt.tokens else ""
    return size + "".join(sep.join(row) + "\n" for row in texts)


def _clue_text(fmt: UrlFormat, clue: Clue) -> str:
    if clue is None:
        return fmt.empty
    if clue == UNKNOWN:
        return fmt.unknown
    if fmt.symbols is not None:
        return fmt.symbols[clue]  # type: ignore[index]
    return str(clue)


def _refuse_numberlink_rule_lines(text: str) -> None:
    """A numlin URL holds the numbers only: a Numberlink rule line (every-cell, no-2x2, no-detour) has no form in it."""
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if words and words[0] in ("every-cell", "no-2x2", "no-detour"):
            raise NoUrlForm(f"a numlin URL cannot hold the rule line {words[0]!r}", number, raw.index(words[0]) + 1)


def text_to_clues(text: str, genre: str) -> tuple[int, int, list[Clue]]:
    """Rows, columns and row-major clues of a board text of `genre` (read as the genre reads it)."""
    fmt = url_format(genre)
    if fmt.genre == "numberlink":
        _refuse_numberlink_rule_lines(text)
    # a board whose cells can be '#' (Akari's black cells) has no '#' comment lines
    grid = read_grid(text, hash_comments="#" not in (fmt.unknown, *(fmt.symbols or {}).values()))
    reverse = {v.upper(): k for k, v in (fmt.symbols or {}).items()}
    clues: list[Clue] = []
    for row in grid:
        for tok in row:
            word = tok.text
            if word in fmt.blanks:
                clues.append(None)
            elif word == fmt.unknown:
                clues.append(UNKNOWN)
            elif word.upper() in reverse:
                clues.append(reverse[word.upper()])
            elif is_number(word):
                clues.append(int(word))
            else:
                raise PuzzleError(f"cell {word!r} cannot be written in a URL", tok.line, tok.col)
    return len(grid), len(grid[0]), clues


def to_url(text: str, genre: str) -> str:
    """The canonical puzz.link URL of a board text of `genre`; `UrlError` for a board too large to read back."""
    fmt = url_format(genre)
    if fmt.from_board is not None:
        rows, cols, body = fmt.from_board(text)
    else:
        assert fmt.encode is not None
        rows, cols, clues = text_to_clues(text, genre)
        body = fmt.encode(clues)
    if rows * cols > MAX_URL_CELLS:
        raise UrlError(f"a {cols}x{rows} board has more than {MAX_URL_CELLS:,} cells: its URL could not be read back")
    return f"{CANONICAL_HOST}{fmt.pids[0]}/{cols}/{rows}/{body}"
