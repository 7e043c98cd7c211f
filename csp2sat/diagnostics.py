"""Diagnostics shared by every stage: positioned errors and warnings, and exit statuses.

Every problem a user can cause is raised as a `CspError` (or collected as a
`Diagnostic`), printed as ``FILE:LINE:COL: error: MESSAGE`` and mapped to its
own exit status, so that scripts can tell a syntax error from an unsupported
construct or a time-out without parsing text. No stage lets a Python traceback
reach the user for bad input.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import IntEnum


class Exit(IntEnum):
    """Exit statuses of the `csp2sat` command (0 also for UNSAT/UNKNOWN answers, as Sugar does)."""

    OK = 0
    USAGE = 2  # bad command line (argparse uses 2 as well)
    SYNTAX = 3  # the text is not a Sugar CSP file: bad character, parentheses, unknown construct
    SEMANTIC = 4  # names, arity and types: undefined, duplicate, wrong number of arguments, ...
    UNSUPPORTED = 5  # valid syntax that neither Sugar nor we support: pow, division by a variable
    LIMIT = 6  # a resource limit: huge domain, nesting too deep, too many clauses
    IO = 7  # a file that cannot be read or written
    VERIFY = 8  # internal error: an answer failed the independent check (never printed)
    INTERNAL = 9  # internal error: a bug in csp2sat


# The most digits Python converts to an integer (`int` raises ValueError above it; where Python sets no
# limit, 4,300 all the same): longer numbers are reported at their place, in .csp files and puzzle texts.
MAX_INT_DIGITS = (getattr(sys, "get_int_max_str_digits", lambda: 0)() or 4300)


@dataclass(frozen=True)
class Diagnostic:
    """One message about a place in a file: an error or a warning."""

    message: str
    line: int = 0
    col: int = 0
    file: str = "<string>"
    severity: str = "error"  # "error" | "warning" | "note"

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}"
            if self.col:
                where += f":{self.col}"
        return f"{where}: {self.severity}: {self.message}"


class CspWarning(UserWarning):
    """A parser warning (a token read as Sugar reads it), issued when the library solves text or a file."""


class CspError(Exception):
    """A user-caused problem with a position; `exit` says which kind of problem it is."""

    def __init__(
        self,
        message: str,
        line: int = 0,
        col: int = 0,
        file: str = "<string>",
        exit: Exit = Exit.SEMANTIC,
        notes: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.file = file
        self.exit = exit
        self.notes = notes

    @property
    def diagnostic(self) -> Diagnostic:
        """The error as a printable `Diagnostic`."""
        return Diagnostic(self.message, self.line, self.col, self.file, "error")

    def with_file(self, file: str) -> "CspError":
        """The same error, attributed to `file` (stages below the reader do not know the name)."""
        self.file = file
        return self

    def __str__(self) -> str:
        text = str(self.diagnostic)
        for note in self.notes:
            text += f"\n{self.file}: note: {note}"
        return text


STDIN = "-"  # the file argument that means standard input
STDIN_NAME = "<stdin>"  # how messages and map files name standard input


def display_name(path: str) -> str:
    """The name of the file argument `path` in messages: ``<stdin>`` for ``-``."""
    return STDIN_NAME if path == STDIN else path


def decode_utf8(data: bytes, file: str) -> str:
    """`data` as text: strict UTF-8, a leading byte-order mark dropped.

    Bytes that are not UTF-8 are a `CspError` (`Exit.IO`) at their line and
    column, with the 1-based byte offset in the file, like every other position.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        col = len(data[line_start : err.start].decode("utf-8")) + 1  # everything before err.start is valid
        raise CspError(
            f"not UTF-8 text: byte {err.start + 1} of the file is 0x{data[err.start]:02x}", line, col, file, Exit.IO
        ) from None
    return text[1:] if text.startswith("\ufeff") else text
