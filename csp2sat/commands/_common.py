"""Command-line helpers shared by the commands: reading sources (with positioned errors) and writing output files.

Reading goes through the front end (`csp2sat.parser`, `csp2sat.checker`) with
the file's real name, so every error is reported as ``FILE:LINE:COL``; a file
that cannot be read is a `CspError` with `Exit.IO`, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import Model


def read_text(path: str) -> str:
    """The UTF-8 text of `path`, '-' for standard input (IO errors become `CspError` with `Exit.IO`)."""
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as err:
        raise CspError(f"cannot read file: {err.strerror}", file=path, exit=Exit.IO) from None
    except UnicodeDecodeError as err:
        raise CspError(f"not UTF-8 text (byte {err.start})", file=path, exit=Exit.IO) from None


def parse_model(text: str, path: str) -> Model:
    """The checked model of `text`, errors attributed to `path`."""
    from csp2sat.checker import check
    from csp2sat.memory import check_text
    from csp2sat.parser import parse_text

    check_text(len(text), path)
    try:
        return check(parse_text(text, file=path))
    except CspError as err:
        raise err.with_file(path) if err.file == "<string>" else err


def read_model(path: str) -> tuple[Model, str]:
    """The checked model of the file `path` and its text."""
    text = read_text(path)
    return parse_model(text, path), text


def write_output(path: str, write: Callable[[TextIO], None]) -> None:
    """Open `path` for writing (``-`` is stdout) and call `write(stream)`; IO errors become `Exit.IO`."""
    if path == "-":
        write(sys.stdout)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            write(f)
    except OSError as err:
        raise CspError(f"cannot write file: {err.strerror}", file=path, exit=Exit.IO) from None
