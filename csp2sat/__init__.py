"""csp2sat: a Sugar-compatible constraint solver in Python.

Sugar CSP files are parsed (`parse`), compiled by order encoding into CNF and
solved with a PySAT solver (`solve`). The pipeline, one module per stage:
text -> `parser` (syntax tree) -> `checker` (model) -> `normalise`
(clauses over Boolean and linear literals) -> `encoders` (CNF) -> `solver`
(model of the SAT solver) -> answer, checked by `evaluator` before printing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the front end (lark) is imported only when `parse` is called
    from csp2sat.syntax import Model

__version__ = "0.1.0"
__all__ = ["__version__", "parse", "solve"]


def parse(text_or_path: "str | os.PathLike[str]") -> "Model":
    """Parse and check a Sugar CSP file or text into a `Model`; raises `CspError` for bad input.

    The argument is read as a path if it names an existing file, or if it is one line without a ``(`` (every
    Sugar statement has one; so a missing file or a directory is an error with exit `Exit.IO`, not CSP text),
    else as CSP text. An XCSP3 path (``.xml``, ``.xml.gz``, ``.xml.lzma``) is translated (names ``x[1]`` become
    ``x.1``), as `csp2sat convert` does.
    """
    from csp2sat.checker import check
    from csp2sat.diagnostics import CspError, Exit, decode_utf8
    from csp2sat.parser import parse_text

    if isinstance(text_or_path, (bytes, bytearray)):
        raise TypeError("parse takes CSP text (str) or a path, not bytes: decode them first (UTF-8)")
    if not isinstance(text_or_path, (str, os.PathLike)):
        raise TypeError(f"parse takes CSP text (str) or a path, not {type(text_or_path).__name__}")
    if isinstance(text_or_path, os.PathLike) or (
        "\n" not in text_or_path and os.path.isfile(text_or_path)  # an existing file, '(' in its name or not
    ) or ("(" not in text_or_path and "\n" not in text_or_path.strip() and text_or_path.strip()[:1] not in ("", ";")):
        path = os.fspath(text_or_path)
        from csp2sat.xcsp3_read import XCSP3_SUFFIXES

        if path.endswith(XCSP3_SUFFIXES):
            from csp2sat.xcsp3 import read_xcsp3

            return read_xcsp3(path).model
        try:
            with open(path, "rb") as handle:
                text = decode_utf8(handle.read(), path)
        except OSError as err:
            raise CspError(f"cannot read the file: {err.strerror}", file=path, exit=Exit.IO) from None
        return check(parse_text(text, file=path))
    return check(parse_text(text_or_path))


def solve(model_or_text, solver: str = "auto", timeout: "float | None" = None, verify: bool = True, **kwargs):
    """Solve a `Model`, CSP text or ``.csp`` path and return a `csp2sat.solver.Result`.

    ``result.status`` is Sugar's status word (``SATISFIABLE``, ``UNSATISFIABLE``,
    ``OPTIMUM FOUND``, or ``UNKNOWN`` after a time-out), ``result.values`` maps
    the printed variables to their values and ``result.objective`` is the
    optimum. `solver` is a PySAT solver name, or ``auto`` (as on the command line) for the
    one `csp2sat.solver.choose_solver` picks for the problem. See `csp2sat.solver.solve`
    for the other keyword arguments.

    >>> import csp2sat
    >>> csp2sat.solve("(int x 0 9) (int y 0 9) (= (+ x y) 12) (objective minimize x)").values
    {'x': 3, 'y': 9}
    """
    import math

    from csp2sat.solver import solve as run
    from csp2sat.syntax import Model

    if not isinstance(model_or_text, (str, os.PathLike, Model)):
        raise TypeError(f"solve takes a Model, CSP text or a path, not {type(model_or_text).__name__}")
    if not isinstance(solver, str):
        raise TypeError(f"solver must be a solver's name (str), such as 'auto', not {type(solver).__name__}")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
        if not (timeout > 0 and math.isfinite(timeout)):
            raise ValueError(f"timeout must be a positive number of seconds (None: no limit), not {timeout}")
    return run(model_or_text, solver=solver, timeout=timeout, verify=verify, **kwargs)
