"""Command `csp2sat encode`: write the compiled CNF in DIMACS and a map to decode an external solver's answer.

Front end, compiler, then `csp2sat.dimacs` (`write_cnf`, `build_map`). The
map (JSON) is what `csp2sat decode` needs to print Sugar's answer without
recompiling.
"""

from __future__ import annotations

import argparse
import os
import sys

from csp2sat.commands._common import (
    STDIN,
    STDIN_NAME,
    add_encoding_argument,
    display_name,
    encoding_options,
    read_model,
    write_output,
)
from csp2sat.diagnostics import Exit

NAME = "encode"
READS = ("file",)  # file arguments read and written (cli: none may collide)
WRITES = ("output", "map")
HELP = "write a CSP file's CNF in DIMACS, with a map for `csp2sat decode`"
DESCRIPTION = """\
Compile a Sugar CSP file to CNF in standard DIMACS format (p cnf), for any SAT
solver, and write a map file (JSON) recording how to read every variable's
value back from the solver's model, plus the source file's path and SHA-256.
An objective is not encoded: the CNF's models are the feasible solutions.

examples:
  csp2sat encode queens.csp -o queens.cnf --map queens.map
  minisat queens.cnf queens.out
  csp2sat decode queens.map queens.out
  csp2sat encode -O int=direct queens.csp -o q.cnf --map q.map   (another encoding, to compare)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat encode`."""
    parser.add_argument("file", metavar="FILE.csp", help="the Sugar CSP file ('-' for standard input)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.cnf", help="the DIMACS file ('-' for stdout)")
    parser.add_argument("--map", required=True, metavar="OUT.map", help="the map file for `csp2sat decode`")
    add_encoding_argument(
        parser,
        "choose an encoding (repeatable), as for `csp2sat solve -O`: the keys that shape the CNF are alldifferent, "
        "cardinality, amo, int, large, split and disjunction (see `csp2sat solve --help`); the map records how each "
        "variable is encoded, so `csp2sat decode` needs no option",
    )


def run(args: argparse.Namespace) -> int:
    """Compile and write both files."""
    from csp2sat.compiler import compile_model
    from csp2sat.dimacs import build_map, dump_map, write_cnf

    options = encoding_options(args.encoding)
    model, text = read_model(args.file)
    compiled = compile_model(model, options=options)
    if model.objective is not None:
        print(f"c note: the objective ({model.objective.sense} {model.objective.var}) is not encoded", file=sys.stderr)
    source = STDIN_NAME if args.file == STDIN else os.path.abspath(args.file)
    mapping = build_map(compiled, model, source, text)
    comments = [f"csp2sat encode {display_name(args.file)}", f"map {args.map}"]
    highest: list[int] = []
    write_output(args.output, lambda out: highest.append(write_cnf(compiled, out, comments)))
    mapping["clause_vars"] = highest[0]  # the variables above it are free: a solver may not report them
    write_output(args.map, lambda out: dump_map(mapping, out))
    return Exit.OK
