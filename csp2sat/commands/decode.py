"""Command `csp2sat decode`: turn an external SAT solver's output into Sugar's answer, checked.

Reads a map from `csp2sat encode` and the solver output (`csp2sat.dimacs`),
decodes the values, and verifies the answer with the independent evaluator
against the original .csp (unchanged: same SHA-256) before printing. An answer
that cannot be verified is refused unless --no-verify.
"""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import STDIN_NAME, display_name, parse_model, read_text
from csp2sat.output import write_pairs
from csp2sat.diagnostics import CspError, Exit

NAME = "decode"
READS = ("map", "output", "source")  # file arguments read and written (cli: none may collide)
WRITES = ()
HELP = "print Sugar's answer from an external SAT solver's output and a map of `csp2sat encode`"
DESCRIPTION = """\
Read a solver's output in MiniSat's result-file format (SAT/UNSAT, then the
literals ending with 0) or in SAT-competition format (s SATISFIABLE, v lines),
and print the answer as Sugar does (s SATISFIABLE, a NAME<TAB>VALUE lines, a).

The answer is checked against the original .csp named in the map (or given
with --source) before it is printed. An answer that cannot be checked is
refused with exit status 8: the .csp is missing, unreadable or changed since
encoding, or the solver's model leaves out a variable the answer needs.
--no-verify prints it anyway, with a warning.

examples:
  minisat queens.cnf queens.out; csp2sat decode queens.map queens.out
  cadical queens.cnf | csp2sat decode queens.map -
  csp2sat decode --source queens.csp queens.map queens.out   the .csp has moved
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat decode`."""
    parser.add_argument("map", metavar="OUT.map", help="the map written by `csp2sat encode --map` ('-' for standard input)")
    parser.add_argument("output", metavar="SOLVER_OUTPUT", help="the solver's output ('-' for standard input)")
    parser.add_argument(
        "--source", metavar="FILE.csp", help="the encoded .csp file, if it is not where the map says (or was stdin)"
    )
    parser.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="print an answer even when it cannot be checked against the .csp (with a warning)",
    )


def _unverifiable(reason: str, map_path: str, verify: bool, anyway: str = "the answer is not verified") -> None:
    """Refuse (exit 8) an answer that cannot be checked, or with --no-verify only warn (saying what is done
    `anyway`)."""
    if verify:
        raise CspError(
            f"{reason}; the answer cannot be verified (--no-verify prints it anyway)", file=map_path, exit=Exit.VERIFY
        )
    print(f"{map_path}: warning: {reason}; {anyway}", file=sys.stderr)


def _verify(mapping: dict, values: dict, map_path: str, source_arg: str | None, verify: bool) -> None:
    """Check the values against the original file; an answer that cannot be checked goes to `_unverifiable`."""
    from csp2sat.dimacs import sha256_text
    from csp2sat.evaluator import violations

    source = mapping["source"]
    path = source_arg or source["path"]
    if path == STDIN_NAME:
        _unverifiable("the map was made from standard input (give the file with --source)", map_path, verify)
        return
    try:
        text = read_text(path)
    except CspError as err:
        _unverifiable(f"the encoded file {path} cannot be read ({err.message})", map_path, verify)
        return
    if sha256_text(text) != source["sha256"]:
        _unverifiable(f"{path} is not the file that was encoded (changed since?)", map_path, verify)
        return
    failed = violations(parse_model(text, path), values)
    if failed:
        raise CspError(f"the solver's answer fails the check: {failed[0]}", file=map_path, exit=Exit.VERIFY)


def run(args: argparse.Namespace) -> int:
    """Decode, verify and print."""
    from csp2sat.dimacs import decode_assignment, load_map, printed_answer, read_solver_output, unassigned

    mapping = load_map(args.map)
    result = read_solver_output(read_text(args.output), display_name(args.output))
    if result.status != "SATISFIABLE":
        sys.stdout.write(f"s {result.status}\n")
        return Exit.OK
    top = mapping["cnf"]["vars"]
    beyond = sorted(v for v in result.assigned if v > top)
    if beyond:  # another CNF's model, or a line run together: not a truncation
        raise CspError(f"the solver's model sets variable {beyond[0]}, but the CNF of this map has {top} variables; "
                       "is it the output for another CNF?", file=display_name(args.output), exit=Exit.SYNTAX)
    missing = unassigned(mapping, result.assigned)
    if missing:
        name, var = missing[0]
        _unverifiable(
            f"the solver's model gives no value to CNF variable {var} (of '{name}'"
            + (f", and {len(missing) - 1} more" if len(missing) > 1 else "")
            + "); is the output truncated?",
            display_name(args.output),
            args.verify,
            "the missing variables are read as false",  # and the answer is still checked when it can be
        )
    values = decode_assignment(mapping, result.true_vars)
    _verify(mapping, values, args.map, args.source, args.verify)  # before any output: a failed check prints no answer
    sys.stdout.write("s SATISFIABLE\n")
    write_pairs(sys.stdout, printed_answer(mapping, values))
    return Exit.OK
