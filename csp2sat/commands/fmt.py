"""Command `csp2sat fmt`: print CSP files in the canonical layout of `csp2sat.formatter`.

Without options prints the formatted file to stdout; ``-i`` rewrites files in
place; ``--check`` changes nothing and exits 1 if some file is not formatted.
Comments are kept. A file that does not parse is left alone (its error is
printed with the usual exit status), and so is a file with a token that Sugar
reads in a surprising way (``2.7`` read as 2, ``1x`` as 1 then x): formatting
would silently rewrite it, so the warning is printed and the status is 3.
Several files are formatted only with -i or --check (their outputs would run
together on stdout).
"""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import ChunkedStdout, display_name, write_output
from csp2sat.commands.check import read_source
from csp2sat.diagnostics import CspError, Exit

NAME = "fmt"
READS = ("files",)  # file arguments read and written (cli: none may collide)
WRITES = ()
HELP = "print CSP files in canonical layout, keeping comments (-i: in place, --check: verify)"
DESCRIPTION = """\
Print Sugar CSP files in a canonical layout: one statement per line, long
expressions broken with two-space indentation, one spelling per operator
(=, !=, <=, +, -, *, and, or, not, imp, ...), comments kept in place.
Formatting is idempotent and does not change the meaning of the file.
A file with a token Sugar reads in a surprising way (2.7 is read as 2, 1x as 1
then x) is not formatted: the warning says what to write instead (exit 3).
Several files need -i or --check: printed one after the other they would run
together.

examples:
  csp2sat fmt model.csp              print the formatted file
  csp2sat fmt -i *.csp               rewrite the files in place
  csp2sat fmt --check *.csp          exit 1 if some file is not formatted
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `csp2sat fmt`."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="CSP files ('-' for standard input)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("-i", "--in-place", action="store_true", help="rewrite the files")
    mode.add_argument("--check", action="store_true", help="exit 1 if a file is not formatted; change nothing")


def run(args: argparse.Namespace) -> int:
    """Format every file as asked; the status of the first error, else 1 for --check failures, else 0."""
    from csp2sat.formatter import format_tree
    from csp2sat.parser import parse_text

    if len(args.files) > 1 and not (args.in_place or args.check):
        raise CspError(
            f"{len(args.files)} files given: fmt prints one file; use -i to rewrite several in place, "
            "or --check to check them",
            file="csp2sat fmt",
            exit=Exit.USAGE,
        )
    status = 0
    unformatted = False
    for path in args.files:
        name = display_name(path)
        try:
            text = read_source(path)
            tree = parse_text(text, file=name)
            if tree.warnings:  # formatting would replace the odd tokens by their reading
                for warning in tree.warnings:
                    print(str(warning), file=sys.stderr)
                raise CspError(
                    "not formatted: it would rewrite the tokens above as Sugar reads them; write them so first",
                    file=name,
                    exit=Exit.SYNTAX,
                )
            formatted = format_tree(tree)
            if args.check:
                if formatted != text:
                    print(f"{name}: not formatted", file=sys.stderr)
                    unformatted = True
            elif args.in_place and path != "-":
                if formatted != text:
                    write_output(path, lambda out: out.write(formatted))
            else:
                ChunkedStdout().write(formatted)
        except CspError as err:
            print(str(err), file=sys.stderr)
            status = status or int(err.exit)
    return status or (1 if unformatted else 0)
