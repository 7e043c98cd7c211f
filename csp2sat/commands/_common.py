"""Command-line helpers shared by the commands: reading sources (with positioned errors) and writing output files.

Reading goes through the front end (`csp2sat.parser`, `csp2sat.checker`) with
the file's real name, so every error is reported as ``FILE:LINE:COL``; a file
that cannot be read is a `CspError` with `Exit.IO`, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from csp2sat.diagnostics import CspError, Exit, decode_utf8
from csp2sat.syntax import Model

STDIN = "-"  # the file argument that means standard input
STDIN_NAME = "<stdin>"  # how messages and map files name standard input


def display_name(path: str) -> str:
    """The name of the file argument `path` in messages: ``<stdin>`` for ``-``."""
    return STDIN_NAME if path == STDIN else path


def read_text(path: str) -> str:
    """The UTF-8 text of `path`, '-' for standard input (IO errors become `CspError` with `Exit.IO`).

    Every command reads its inputs here, so they all treat standard input, a
    byte-order mark and bytes that are not UTF-8 the same way.
    """
    name = display_name(path)
    try:
        if path == STDIN:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream put in place of stdin (tests, embedding)
                text = sys.stdin.read()
                return text[1:] if text.startswith("\ufeff") else text
            data = stream.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as err:
        raise CspError(f"cannot read file: {err.strerror}", file=name, exit=Exit.IO) from None
    return decode_utf8(data, name)


def parse_model(text: str, path: str) -> Model:
    """The checked model of `text`, errors attributed to `path`."""
    from csp2sat.checker import check
    from csp2sat.memory import check_text
    from csp2sat.parser import parse_text

    path = display_name(path)
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
