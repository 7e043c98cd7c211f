"""Command `csp2sat explain`: print a minimal set of a file's constraints that cannot all hold together.

Front end, then `csp2sat.explain` (selectors, UNSAT core, deletion-based
minimisation). Output: one ``FILE:LINE: TEXT`` line per member, in file order,
after a ``c`` line saying how many; a satisfiable file gets a ``c`` line saying
so. Both exit with status 0 (like Sugar's UNSAT answers), and so does a run
stopped by --timeout, Ctrl-C or SIGTERM (``s UNKNOWN`` and a ``c`` line).
"""

from __future__ import annotations

import argparse
import sys

from csp2sat.commands._common import (
    ChunkedStdout, add_solver_argument, add_timeout_argument, display_name, read_model, stop_reason,
)
from csp2sat.diagnostics import Exit

NAME = "explain"
READS = ("file",)  # file arguments read and written (cli: none may collide)
WRITES = ()
HELP = "explain why a CSP file is unsatisfiable: a minimal set of its constraints that conflict"
DESCRIPTION = """\
Find a minimal set of the file's own constraints that cannot all hold together:
dropping any one of them makes the rest satisfiable. Declarations count too: in
  (int x 1 3)
  (> x 3)
the explanation is both lines. A declaration that is not listed was not needed:
the conflict remains even if that variable may take values (well) outside its
declared domain. --no-domains treats every declaration as fixed and lists only
constraints.

examples:
  csp2sat explain model.csp
  csp2sat explain --no-domains model.csp
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat explain`."""
    parser.add_argument("file", metavar="FILE.csp", help="the Sugar CSP file")
    parser.add_argument(
        "--no-domains", action="store_true", help="keep declared domains fixed; explain with constraints only"
    )
    add_solver_argument(parser, auto=True)
    add_timeout_argument(parser, help="stop after this many seconds (parsing included), like Ctrl-C or SIGTERM: s UNKNOWN")


def run(args: argparse.Namespace) -> int:
    """Explain the file; exit status 0 whether it is satisfiable or not, or stopped (s UNKNOWN)."""
    from csp2sat.solver import Watchdog, interrupt_handled, is_interrupt

    with Watchdog(args.timeout, last_word=True) as watchdog:
        try:
            watchdog.check()
            return _run(args)
        except (KeyboardInterrupt, Exception) as err:
            if not is_interrupt(err):
                raise
            interrupt_handled()
        sys.stdout.write("s UNKNOWN\n")
        sys.stdout.write(f"c {display_name(args.file)}: stopped by {stop_reason(watchdog)} before an explanation was found\n")
    return Exit.OK


def _run(args: argparse.Namespace) -> int:
    from csp2sat.explain import explain

    model, _ = read_model(args.file)
    result = explain(model, solver=args.solver, widen=not args.no_domains)
    out = ChunkedStdout()
    if result.satisfiable:
        out.write(f"c {display_name(args.file)}: satisfiable, nothing to explain\n")
    elif not result.parts:
        out.write(f"c {display_name(args.file)}: unsatisfiable independently of its constraints\n")
    else:
        if result.domains_kept:
            out.write(f"c {display_name(args.file)}: declared domains kept fixed (widened, the problem would not fit "
                      f"in the memory limit): only constraints are listed, as with --no-domains\n")
        n = len(result.parts)
        if n == 1:
            out.write(f"c {display_name(args.file)}: unsatisfiable; this one cannot hold on its own:\n")
        else:
            out.write(f"c {display_name(args.file)}: unsatisfiable; these {n} cannot all hold (dropping any one leaves a satisfiable rest):\n")
        out.write("".join(f"{part}\n" for part in result.parts))
    return Exit.OK
