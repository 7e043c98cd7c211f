"""Command `csp2sat check`: run the front end (parse and check) on CSP files and report.

On success prints the warnings to stderr and one summary line per file to
stdout; on failure prints the error and exits with the status of the first
failing file (syntax 3, names/arity/types 4, unsupported 5, file 7).
"""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import display_name, read_text
from csp2sat.diagnostics import CspError
from csp2sat.syntax import GLOBAL_OPS, Model

NAME = "check"
READS = ("files",)  # file arguments read and written (cli: none may collide)
WRITES = ()
HELP = "parse and check CSP files: print a summary, or the errors with their positions"
DESCRIPTION = """\
Parse and check Sugar CSP files without solving them. For each file prints a
summary line to stdout (warnings go to stderr), or the first error as
FILE:LINE:COL: error: MESSAGE. "-" reads standard input.

examples:
  csp2sat check queens.csp
  csp2sat check models/*.csp
  generate_csp | csp2sat check -

Exit status: 0 when every file passes; else the status of the first file that fails
(3 syntax, 4 names, arity and types, 5 unsupported, 6 a limit, 7 unreadable), every
file being checked and reported all the same.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `csp2sat check`."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="CSP files ('-' for standard input)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no warnings")


def read_source(path: str) -> str:
    """The text of `path`, or of standard input for ``-``."""
    return read_text(path)


def load(path: str) -> Model:
    """Parse and check the file `path` (``-``: standard input)."""
    from csp2sat.checker import check
    from csp2sat.normalise import check_domain_sizes
    from csp2sat.parser import parse_text

    name = display_name(path)
    model = check(parse_text(read_source(path), file=name))
    check_domain_sizes(model)  # what solve refuses, check does not pass
    return model


def summary(model: Model) -> str:
    """One line: sizes of the model and its largest domain."""
    n_global = sum(1 for c in model.constraints if c.formula.op in GLOBAL_OPS)
    text = (
        f"{len(model.int_vars)} int, {len(model.bool_vars)} bool, "
        f"{len(model.constraints)} constraints ({n_global} global)"
    )
    if model.int_vars:
        largest = max(model.int_vars.values(), key=lambda v: v.domain.size)
        text += f", largest domain {largest.domain.size} ({largest.name})"
    if model.objective:
        text += f", {model.objective.sense} {model.objective.var}"
    return text


def run(args: argparse.Namespace) -> int:
    """Check every file; the status is that of the first failing file (0 if all pass)."""
    status = 0
    for path in args.files:
        name = display_name(path)
        try:
            model = load(path)
        except CspError as err:
            print(str(err), file=sys.stderr)
            status = status or int(err.exit)
            continue
        if not args.quiet:
            for warning in model.warnings:
                print(str(warning), file=sys.stderr)
        print(f"{name}: ok: {summary(model)}")
    return status
