"""Command-line helpers shared by the commands: reading sources (with positioned errors) and writing output files.

Reading goes through the front end (`csp2sat.parser`, `csp2sat.checker`) with
the file's real name, so every error is reported as ``FILE:LINE:COL``; a file
that cannot be read is a `CspError` with `Exit.IO`, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence, TextIO

from csp2sat.diagnostics import STDIN, STDIN_NAME, CspError, Exit, decode_utf8, display_name  # noqa: F401 (re-exported)
from csp2sat.syntax import Model


def check_paths(args: object, reads: Sequence[str], writes: Sequence[str]) -> None:
    """Refuse (usage error, before anything is read or written) a command line whose files collide.

    `reads` and `writes` name the attributes of `args` that hold input and output paths (a path,
    a list of paths, or None). Standard input can be read only once, standard output written
    only once, and no output may be an input or another output (it would be overwritten: `encode
    q.csp -o q.csp` replaced the source, `-o X --map X` lost the CNF).
    """
    import os

    def paths(names: Sequence[str]) -> list[str]:
        found: list[str] = []
        for name in names:
            value = getattr(args, name, None)
            found.extend(value if isinstance(value, list) else [] if value is None else [value])
        return found

    inputs, outputs = paths(reads), paths(writes)
    if inputs.count(STDIN) > 1:
        raise CspError("standard input (-) can be read only once: give at most one '-'", file="csp2sat", exit=Exit.USAGE)
    if outputs.count(STDIN) > 1:
        raise CspError("only one output can go to standard output (-): name a file for the others",
                       file="csp2sat", exit=Exit.USAGE)

    def same(a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:  # one does not exist (yet): compare where they would be
            return os.path.realpath(a) == os.path.realpath(b)

    files = [path for path in inputs if path != STDIN and not os.path.isdir(path)]
    for k, out in enumerate(outputs):
        if out == STDIN or (os.path.exists(out) and not os.path.isfile(out)):
            continue  # standard output, /dev/null, /dev/full, a pipe: nothing to overwrite
        for other in files + [o for o in outputs[:k] if o != STDIN]:
            if same(out, other):
                role = "input" if other in files else "other output"
                raise CspError(f"the output {out} is also the {role} {other}: it would be overwritten",
                               file="csp2sat", exit=Exit.USAGE)


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


class ChunkedStdout:
    """Standard output, written in pieces smaller than its buffer.

    CPython's buffered writer passes a string larger than its buffer straight to the
    pipe, and when the reader closes the pipe in the middle of that write (``| head``)
    it drops the rest without an error: a 330 KB `gen` output into ``head -c 10``
    ended with exit status 0. Written in pieces, the next piece meets the closed pipe
    and raises `BrokenPipeError`, which the command line reports (exit status 7).
    """

    PIECE = 4096

    def write(self, text: str) -> int:
        for start in range(0, len(text), self.PIECE):
            sys.stdout.write(text[start:start + self.PIECE])
        return len(text)

    def __getattr__(self, name: str):
        return getattr(sys.stdout, name)


def write_output(path: str, write: Callable[[TextIO], None]) -> None:
    """Open `path` for writing (``-`` is stdout) and call `write(stream)`; IO errors become `Exit.IO`."""
    if path == "-":
        write(ChunkedStdout())  # type: ignore[arg-type]
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            write(f)
    except OSError as err:
        raise CspError(f"cannot write file: {err.strerror}", file=path, exit=Exit.IO) from None


# ---------------------------------------------------------------- options shared by the solving commands


def _solver_name(text: str) -> str:
    """argparse type of --solver: the main name of a usable PySAT solver (any alias accepted)."""
    import argparse

    from csp2sat.solver import check_solver

    try:
        return check_solver(text)
    except CspError as err:
        raise argparse.ArgumentTypeError(err.message) from None


class _SolverHelp(str):
    """The --solver help text, listing the usable solvers only when help is printed (probing imports PySAT)."""

    def __mod__(self, params: object) -> str:  # argparse expands help with `help % params`
        from csp2sat.solver import CAPABILITIES, DECISION_SOLVER, DEFAULT_SOLVER, PLACEMENT_SOLVER, usable_solvers

        fresh = [n for n in usable_solvers() if not (CAPABILITIES[n].assumptions and CAPABILITIES[n].incremental)]
        if self == "auto":
            text = (f"SAT solver (default auto: {DECISION_SOLVER} unless an alldifferent has more values than "
                    f"terms, {DEFAULT_SOLVER} then, or {PLACEMENT_SOLVER} for a placement alldifferent, as "
                    f"n-queens' diagonals, without an objective; -v's 'c search' line names it): "
                    f"{', '.join(usable_solvers())}, or a PySAT alias")
        elif self in ("puzzle", "batch"):
            text = (f"SAT solver (default auto: the genre's own where one was measured faster for one answer and "
                    f"--unique ({_genre_solvers()}), else {DEFAULT_SOLVER}"
                    + ("; a .csp file's as in 'csp2sat solve'" if self == "batch" else "; -v names it")
                    + f"): {', '.join(usable_solvers())}, or a PySAT alias")
        else:
            text = f"SAT solver (default {DEFAULT_SOLVER}): {', '.join(usable_solvers())}, or a PySAT alias"
        if fresh:
            text += f"; {', '.join(fresh)}: not incremental, run afresh for every SAT call (slower on objectives and modes)"
        return text


def _genre_solvers() -> str:
    """"pentomino: glucose42"-style list of the genres with a solver of their own (`Genre.solver`)."""
    from csp2sat.generators.base import genre, genre_names

    return ", ".join(f"{g.name}: {g.solver}" for g in map(genre, genre_names()) if g.solver) or "none"


def add_solver_argument(parser, auto: "bool | str" = False) -> None:
    """The --solver NAME option, the same in every command that solves. `auto`: "auto" is the default, as
    `solve` reads it (True), or as the puzzle commands ("puzzle") and `batch` ("batch") read it."""
    from csp2sat.solver import AUTO_SOLVER, DEFAULT_SOLVER

    kind = "auto" if auto is True else auto or "solver"
    parser.add_argument("--solver", default=AUTO_SOLVER if auto else DEFAULT_SOLVER, type=_solver_name, metavar="NAME",
                        help=_SolverHelp(kind))


def _positive_number(text: str, unit: str) -> float:
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of {unit}, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """argparse type of --timeout: a positive, finite number of seconds."""
    return _positive_number(text, "seconds")


def positive_megabytes(text: str) -> float:
    """argparse type of --memory-limit: a positive, finite number of megabytes."""
    return _positive_number(text, "megabytes")


def positive_int(text: str) -> int:
    """argparse type of counts such as -n and --jobs: an integer >= 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


ENCODING_HELP = (
    "choose an encoding for comparison (repeatable): alldifferent=auto|pairwise|relational|amo, "
    "cardinality=auto|totalizer|order, amo=auto|product (an at-most-one count: over the groups its inputs are "
    "already exclusive in, or the product encoding), int=auto|order|direct|mixed (direct: one literal per value; "
    "mixed: only for integers of 3-16 values used solely against constants; auto is order, measured faster), "
    "large=auto|log|order, split=auto|shared|onesided "
    "(long sums: shared two-sided helpers, or separate ones per side), disjunction=auto|named "
    "(a clause of several sums: one-clause sums and sums sharing a variable written out, or all but one named), "
    "satmode=auto|default|focus|stable "
    "(CaDiCaL's search: its own alternation, focused or stable mode only; auto is stable for --all/--count/-n, "
    "else default), "
    "objective=auto|binary|linear|gallop (how an objective is improved), "
    "shrink=auto|on|off (re-encode with the objective's domain cut to the values still open), "
    "symmetry=auto|on|off (value symmetry breaking, one answer only), "
    "enumerate=auto|cubes|blocking|split|propagate (how --all/--count/-n visit the answers: disjoint cubes, a "
    "blocking clause per answer, the same in a few cubes of values one after the other, or a DPLL search over the "
    "printed variables by unit propagation, for loose problems with very many answers; auto is blocking); "
    "auto, the default of every key, is the choice measured best"
)


def add_encoding_argument(parser, help: str = ENCODING_HELP) -> None:
    """The -O KEY=VALUE option (repeatable), the same in every command that compiles to CNF."""
    parser.add_argument("-O", "--encoding", action="append", default=[], metavar="KEY=VALUE", help=help)


def encoding_options(pairs: list[str]) -> dict[str, str]:
    """The -O pairs as a dict; keys and values are checked by the compiler (`compile_model`)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CspError(f"-O takes KEY=VALUE, got {pair!r}", file="csp2sat", exit=Exit.USAGE)
        options[key.strip()] = value.strip()
    return options


TIMEOUT_HELP = (
    "stop after this many seconds, counted from the start (parsing and encoding included); "
    "like Ctrl-C or SIGTERM it prints s UNKNOWN, or the best answer so far and a 'c' line"
)


def add_timeout_argument(parser, help: str = TIMEOUT_HELP) -> None:
    """The --timeout SECONDS option, the same in every command that solves."""
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS", help=help)


def stop_reason(watchdog) -> str:
    """Words for what stopped a run: the time limit, Ctrl-C or SIGTERM."""
    return watchdog.reason()
