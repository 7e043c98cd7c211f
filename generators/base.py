"""The interface every puzzle genre implements, and the registry the CLI reads.

A genre turns puzzle text into a Sugar CSP file and a solution log back into a
board. Data flows one way: ``read`` (text -> puzzle) -> ``generate`` (puzzle ->
.csp text) -> a solver -> ``decode`` (puzzle + answer values -> solution) ->
``render`` (solution -> drawing / answer text / SVG). Each genre lives in its
own module and registers itself with `register`.

Two conventions every genre keeps, so that a generated file says exactly what
its puzzle says:

- the printed variables of a generated file are the puzzle's answer and
  nothing else: one printed assignment per solution of the puzzle. Every
  auxiliary variable (loop directions, numberings, roles, ...) is named with
  `helper`, i.e. starts with ``_``, which Sugar and csp2sat solve but do not
  print, so ``solve --count/--unique`` count puzzle solutions;
- ``check(puzzle, solution)`` re-checks a decoded solution against the rules
  of the genre, written from the rules (never by re-running the encoder), and
  returns the broken rules as `Violation` s naming the place (``draw`` refuses
  a log whose answer breaks a rule).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from csp2sat.diagnostics import MAX_INT_DIGITS

HIDDEN_PREFIX = "_"


def helper(name: str) -> str:
    """The name of an auxiliary (not printed) variable: `name` with Sugar's hiding prefix ``_``."""
    return HIDDEN_PREFIX + name


def is_printed(name: str) -> bool:
    """True for a variable Sugar prints (its name does not start with ``_``)."""
    return not name.startswith(HIDDEN_PREFIX)


@dataclass(frozen=True)
class Violation:
    """A rule of the puzzle that a solution breaks, and where (e.g. ``row 2, column 3``)."""

    rule: str
    where: str

    def __str__(self) -> str:
        return f"{self.where}: {self.rule}"


def is_number(text: str) -> bool:
    """Whether `text` is a whole number in ASCII digits, as puzzle texts and URLs write them.

    `str.isdigit` also takes '²' (which `int` refuses: an internal error instead of a
    positioned message) and other scripts' digits (which `int` reads, but no source writes).
    Nor is a number of more digits than `int` converts (4,300: again an internal error), far past any
    size or clue.
    """
    return text.isascii() and text.isdigit() and len(text) <= MAX_INT_DIGITS


def cell_name(r: int, c: int) -> str:
    """How a violation names a cell (0-based, as the puzzle files and variable names count)."""
    return f"cell row {r}, column {c}"


# A solution log read back: variable name -> int or bool value (see `read_log`).
Values = Mapping[str, "int | bool"]


class PuzzleError(ValueError):
    """Bad puzzle text or an unusable log, with the 1-based line and column of the problem."""

    def __init__(self, message: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def __str__(self) -> str:
        if self.line:
            return f"{self.line}:{self.col}: {self.message}" if self.col else f"{self.line}: {self.message}"
        return self.message



class NoSolution(PuzzleError):
    """A well-formed board whose clues admit no solution, found while reading it (a clue no piece, bridge or
    loop can satisfy where it stands). `puzzle` and `batch` answer it as UNSATISFIABLE, not as bad text."""

@dataclass(frozen=True)
class Genre:
    """One puzzle genre.

    - `read(text)` parses puzzle text into the genre's own puzzle object, raising `PuzzleError`.
    - `generate(puzzle)` returns the text of a readable Sugar CSP file.
    - `decode(puzzle, values)` turns the values of a solution into the genre's solution object,
      raising `PuzzleError` when a needed variable is missing.
    - `render(puzzle, solution, fmt)` returns the solution as ``drawing`` (terminal text),
      ``answer`` (the canonical solution text of shared/puzzles/README.md) or ``svg``.
    - `check(puzzle, solution)` lists the rules the solution breaks (empty: it is a solution),
      checked from the rules independently of the encoding.
    - `images(puzzle, solution)` (optional) yields the solutions that a symmetry of the board
      makes of `solution`; ``--unique`` takes one that differs and passes `check` as the second
      answer instead of searching for one.
    - `generate_one(puzzle)` (optional) returns the CSP text `csp2sat puzzle` solves when only one
      answer is asked, or a second one for ``--unique``: it may drop solutions that are images
      of others under the board's symmetries (symmetry breaking), never a whole orbit, and only
      under symmetries that `images` also applies. ``--facts`` and ``gen`` use `generate`.
    - `generate_classes(puzzle)` (optional, with `images`) returns CSP text whose answers are
      exactly the least solution (by `class_order`, else by Python's ordering of solution objects,
      e.g. rows of text compared row by row) of every class of solutions that `images` turns into one another.
      Counting then finds one answer per class and adds up the classes' sizes (the solution and
      its distinct images); without it, counting enumerates `generate`'s answers one by one.
    - `class_order(puzzle)` (optional, with `generate_classes`): the sort key (a function of a
      solution) of the order whose least member of each class `generate_classes` keeps; by
      default the solution itself.
    - `count_options` (optional): compile options (as ``solve -O``) for counting, where they were
      measured faster on the genre's boards than the defaults.
    - `solver` (optional): the SAT solver that ``--solver auto`` (the puzzle commands' default) means for
      one answer and ``--unique`` of the genre, where one was measured faster than `DEFAULT_SOLVER` on
      boards of the genre nobody chose; counting and ``--facts`` keep the default.
    """

    name: str
    aliases: tuple[str, ...]
    summary: str
    read: Callable[[str], Any]
    generate: Callable[[Any], str]
    decode: Callable[[Any, Values], Any]
    render: Callable[[Any, Any, str], str]
    check: Callable[[Any, Any], "list[Violation]"]
    images: Callable[[Any, Any], Iterable[Any]] | None = None
    generate_one: Callable[[Any], str] | None = None
    generate_classes: Callable[[Any], str] | None = None
    class_order: Callable[[Any], Callable[[Any], Any]] | None = None
    count_options: Mapping[str, str] | None = None
    solver: str | None = None


FORMATS = ("drawing", "answer", "svg")

_REGISTRY: dict[str, Genre] = {}
# The modules that define genres; importing one registers it.
GENRE_MODULES = (
    "csp2sat.generators.shikaku",
    "csp2sat.generators.pentomino",
    "csp2sat.generators.slitherlink",
    "csp2sat.generators.hashiwokakero",
    "csp2sat.generators.fillmat",
    "csp2sat.generators.masyu",
    "csp2sat.generators.nurikabe",
    "csp2sat.generators.sudoku",
    "csp2sat.generators.akari",
    "csp2sat.generators.hitori",
    "csp2sat.generators.starbattle",
    "csp2sat.generators.norinori",
    "csp2sat.generators.heyawake",
    "csp2sat.generators.lits",
    "csp2sat.generators.numberlink",
    "csp2sat.generators.kakuro",
    "csp2sat.generators.yajilin",
)


def register(genre: Genre) -> Genre:
    """Add a genre to the registry under its name and aliases."""
    for key in (genre.name, *genre.aliases):
        _REGISTRY[key] = genre
    return genre


def _load_all() -> None:
    for module in GENRE_MODULES:
        importlib.import_module(module)


def genre(name: str) -> Genre:
    """The genre called `name` (or one of its aliases); KeyError with the known names otherwise."""
    _load_all()
    try:
        return _REGISTRY[name.lower()]
    except KeyError:
        raise KeyError(f"unknown genre {name!r}; known genres: {', '.join(genre_names())}") from None


def genre_names() -> list[str]:
    """The canonical genre names, in registry order."""
    _load_all()
    seen: list[str] = []
    for g in _REGISTRY.values():
        if g.name not in seen:
            seen.append(g.name)
    return seen


def read_log(text: str) -> dict[str, "int | bool"]:
    """The values in a Sugar-format solution log (ours or real Sugar's).

    Reads every ``a NAME VALUE`` line (tab or spaces), ignores ``s``/``c``/``o``
    lines and the lone ``a``. With an optimisation log the last answer wins,
    as it is the best one. Raises `PuzzleError` when the log says UNSATISFIABLE
    or holds no answer at all.
    """
    values: dict[str, int | bool] = {}
    status = None
    seen_answer = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("s "):
            status = line[2:].strip()
            continue
        if not line.startswith("a"):
            continue
        parts = line.split()
        if parts[0] != "a":
            continue
        if len(parts) == 1:
            seen_answer = True
            continue
        if len(parts) != 3:
            raise PuzzleError(f"cannot read answer line {raw.strip()!r}", number, 1)
        name, word = parts[1], parts[2]
        if word in ("true", "false"):
            values[name] = word == "true"
        else:
            try:
                values[name] = int(word)
            except ValueError:
                raise PuzzleError(f"value {word!r} of {name} is not an integer or true/false", number, 1) from None
        seen_answer = True
    if status == "UNSATISFIABLE":
        raise PuzzleError("the log says UNSATISFIABLE: the puzzle has no solution")
    if not seen_answer:
        if status == "UNKNOWN":  # a run stopped (time-out, Ctrl-C) before it found an answer
            raise PuzzleError("the log says UNKNOWN: the run stopped before it found an answer (no 'a' lines)")
        raise PuzzleError("the log holds no answer (no 'a' lines)")
    return values


def read_answers(text: str) -> tuple[list[dict[str, "int | bool"]], bool]:
    """Every answer in a Sugar-format log, in order, and whether the log is an optimisation's.

    An answer is a run of ``a NAME VALUE`` lines ended by a lone ``a`` (or by an
    ``s``/``o``/``c`` line or the end of the log). A log of ``solve --all`` or of
    ``--unique`` with two solutions holds several answers; an optimisation log
    (``o`` lines) holds improving ones, of which the last is the best. Errors as
    `read_log`, which reads the lines first.
    """
    read_log(text)  # the same errors, with positions
    answers: list[dict[str, int | bool]] = []
    current: dict[str, int | bool] = {}
    optimising = False
    previous = ""  # the first word of the last line read
    for raw in text.splitlines():
        parts = raw.split()
        if not parts:
            continue
        if parts[0] == "a" and len(parts) == 3:
            word = parts[2]
            current[parts[1]] = word == "true" if word in ("true", "false") else int(word)
            previous = "a"
            continue
        optimising = optimising or parts[0] == "o"
        # A lone `a` right after the status or objective line is an answer without variables (a board with
        # nothing to decide): it is an answer all the same.
        if parts[0] in ("a", "s", "o", "c") and (current or (parts == ["a"] and previous in ("s", "o"))):
            answers.append(current)
            current = {}
        previous = parts[0]
    if current:
        answers.append(current)
    return answers, optimising
