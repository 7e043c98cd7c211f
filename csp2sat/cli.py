"""The `csp2sat` command: dispatches to one module per subcommand in `csp2sat.commands`.

Each command module defines ``NAME``, ``HELP`` (one line), ``DESCRIPTION``
(the text `csp2sat NAME --help` shows, with examples), ``add_arguments(parser)``
and ``run(args) -> int``. This module only wires them up and turns errors into
messages and exit statuses: a user never sees a Python traceback for bad input
(set CSP2SAT_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from csp2sat.diagnostics import CspError, Exit

# Subcommand modules, in the order `csp2sat --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "csp2sat.commands.solve",
    "csp2sat.commands.check",
    "csp2sat.commands.fmt",
    "csp2sat.commands.explain",
    "csp2sat.commands.encode",
    "csp2sat.commands.decode",
    "csp2sat.commands.gen",
    "csp2sat.commands.draw",
    "csp2sat.commands.puzzle",
)

EPILOG = """\
typical use:
  csp2sat solve queens.csp              solve a Sugar CSP file, print Sugar's answer format
  csp2sat check queens.csp              parse and check a file, print a summary or the errors
  csp2sat fmt model.csp                 print a file in canonical layout (keeps comments)

exit status: 0 answer printed (SAT, UNSAT or UNKNOWN), 2 usage, 3 syntax error,
4 name/arity/type error, 5 unsupported construct, 6 resource limit, 7 file error,
8 verification failure (internal), 9 internal error.
--timeout, Ctrl-C and SIGTERM stop any stage alike: s UNKNOWN (or the answers so far and
a 'c' line), exit status 0 (puzzle: 1, nothing drawn).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand attached."""
    parser = argparse.ArgumentParser(
        prog="csp2sat",
        description="Solve constraint problems written in the Sugar CSP language, through SAT.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from csp2sat import __version__

    parser.add_argument("--version", action="version", version=f"csp2sat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        cmd = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(cmd)
        cmd.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]) and return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return Exit.USAGE
    try:
        return int(args.run(args))
    except CspError as err:
        print(str(err), file=sys.stderr)
        return int(err.exit)
    except KeyboardInterrupt:
        print("c interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return Exit.OK
    except RecursionError:
        print("csp2sat: error: the input is nested too deeply to process", file=sys.stderr)
        return Exit.LIMIT
    except MemoryError:
        print("csp2sat: error: out of memory (the problem is too large)", file=sys.stderr)
        return Exit.LIMIT
    except Exception as err:  # a bug of ours: say so plainly, and how to report it
        if os.environ.get("CSP2SAT_DEBUG"):
            raise
        print(f"csp2sat: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        print("csp2sat: this is a bug; run again with CSP2SAT_DEBUG=1 for details", file=sys.stderr)
        return Exit.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
