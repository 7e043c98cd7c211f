"""Command `csp2sat decode`: turn an external SAT solver's output into Sugar's answer, checked.

Reads a map from `csp2sat encode` and the solver output (`csp2sat.dimacs`),
decodes the values, and, when the original .csp is readable and unchanged
(SHA-256), verifies the answer with the independent evaluator before printing.
"""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import parse_model, read_text
from csp2sat.output import write_pairs
from csp2sat.diagnostics import CspError, Exit

NAME = "decode"
HELP = "print Sugar's answer from an external SAT solver's output and a map of `csp2sat encode`"
DESCRIPTION = """\
Read a solver's output in MiniSat's result-file format (SAT/UNSAT, then the
literals ending with 0) or in SAT-competition format (s SATISFIABLE, v lines),
and print the answer as Sugar does (s SATISFIABLE, a NAME<TAB>VALUE lines, a).
The answer is checked against the original .csp named in the map; a warning
says when that file cannot be read or has changed since encoding.

examples:
  minisat queens.cnf queens.out; csp2sat decode queens.map queens.out
  cadical queens.cnf | csp2sat decode queens.map -
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat decode`."""
    parser.add_argument("map", metavar="OUT.map", help="the map written by `csp2sat encode --map`")
    parser.add_argument("output", metavar="SOLVER_OUTPUT", help="the solver's output ('-' for stdin)")


def _verify(mapping: dict, values: dict, map_path: str) -> None:
    """Check the values against the original file, or warn why that is not possible."""
    from csp2sat.dimacs import sha256_text
    from csp2sat.evaluator import violations

    source = mapping["source"]
    try:
        text = read_text(source["path"])
    except CspError:
        print(f"{map_path}: warning: {source['path']} cannot be read; the answer is not verified", file=sys.stderr)
        return
    if sha256_text(text) != source["sha256"]:
        print(
            f"{map_path}: warning: {source['path']} changed since it was encoded; the answer is not verified",
            file=sys.stderr,
        )
        return
    failed = violations(parse_model(text, source["path"]), values)
    if failed:
        raise CspError(f"the solver's answer fails the check: {failed[0]}", file=map_path, exit=Exit.VERIFY)


def run(args: argparse.Namespace) -> int:
    """Decode, verify and print."""
    from csp2sat.dimacs import decode_assignment, load_map, printed_answer, read_solver_output

    mapping = load_map(args.map)
    if args.output == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        text, name = read_text(args.output), args.output
    result = read_solver_output(text, name)
    if result.status != "SATISFIABLE":
        sys.stdout.write(f"s {result.status}\n")
        return Exit.OK
    values = decode_assignment(mapping, result.true_vars)
    _verify(mapping, values, args.map)  # before any output: a failed check prints no answer
    sys.stdout.write("s SATISFIABLE\n")
    write_pairs(sys.stdout, printed_answer(mapping, values))
    return Exit.OK
