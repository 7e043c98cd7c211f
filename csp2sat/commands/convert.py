"""`csp2sat convert`: translate an XCSP3 instance into the equivalent Sugar CSP file."""

from __future__ import annotations

import argparse

from csp2sat.commands._common import display_name, write_output
from csp2sat.diagnostics import Exit

NAME = "convert"
READS = ("file",)  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "translate an XCSP3 file (.xml, .xml.gz, .xml.lzma) into a Sugar CSP file"
DESCRIPTION = """\
Translate an XCSP3-core instance into the equivalent Sugar CSP file: the same
model `csp2sat solve FILE.xml` solves, written out so that Sugar (or csp2sat)
can read it. XCSP3 variables x[i][j] become Sugar variables x.i.j; variables
starting with '_' are auxiliary (automaton states, circuit ranks, objective).

examples:
  csp2sat convert queens-8.xml -o queens-8.csp
  csp2sat convert rcpsp.xml.lzma -o - | less
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat convert`."""
    parser.add_argument("file", metavar="FILE.xml", help="the XCSP3 instance ('-' for standard input, compressed or not)")
    parser.add_argument("-o", "--output", default="-", metavar="OUT.csp", help="the Sugar file ('-' for stdout, the default)")


def run(args: argparse.Namespace) -> int:
    """Translate and write."""
    from csp2sat.csp_writer import write_model
    from csp2sat.xcsp3 import read_xcsp3

    translation = read_xcsp3(args.file)
    header = [f"converted by csp2sat from {display_name(args.file)}", "XCSP3 x[i][j] is written x.i.j"]
    write_output(args.output, lambda out: write_model(translation.model, out, header))
    return Exit.OK
