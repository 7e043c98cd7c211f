"""The `csp2sat` command: dispatches to one module per subcommand in `csp2sat.commands`.

Each command module defines ``NAME``, ``HELP`` (one line), ``DESCRIPTION``
(the text `csp2sat NAME --help` shows, with examples), ``add_arguments(parser)``
and ``run(args) -> int``. This module only wires them up and turns errors into
messages and exit statuses: a user never sees a Python traceback for bad input
(set CSP2SAT_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import os
import sys
from typing import NoReturn, Sequence

from csp2sat.commands._common import check_paths, positive_megabytes
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
    "csp2sat.commands.url",
    "csp2sat.commands.batch",
    "csp2sat.commands.convert",
)

EPILOG = """\
typical use:
  csp2sat solve queens.csp              solve a Sugar CSP file, print Sugar's answer format
  csp2sat solve --unique queens.csp     ... and say whether the answer is the only one
  csp2sat check queens.csp              parse and check a file, print a summary or the errors
  csp2sat fmt model.csp                 print a file in canonical layout (keeps comments)
  csp2sat puzzle slitherlink board.txt  solve a puzzle and draw its solution
  csp2sat gen hashi board.txt -o b.csp  write a puzzle's Sugar CSP file (then: solve, draw)
  csp2sat COMMAND --help                what a command does, its options and examples

'-' as a file name reads standard input (named <stdin> in messages).

exit status: 0 answer printed (SAT, UNSAT or UNKNOWN), 1 puzzle without solution
or fmt --check found an unformatted file, 2 usage, 3 syntax error (also in a
puzzle, map or solver output), 4 name/arity/type error, 5 unsupported construct,
6 resource limit, 7 file not readable or not writable (also a full disk or a
closed pipe), 8 an answer failed verification (or decode could not verify it), 9 internal error.
--timeout, Ctrl-C and SIGTERM stop any stage alike: s UNKNOWN (or the answers so far and
a 'c' line), exit status 0 (puzzle: 1, nothing drawn); the commands that do not solve
(check, fmt, encode, decode, gen, draw, url, convert, batch) stop on Ctrl-C or SIGTERM
with 'c interrupted' and exit status 130.
"""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that a failed write of --help or --version is not silently dropped."""

    def _print_message(self, message: str, file=None) -> None:  # argparse swallows OSError here
        if message:
            (file or sys.stderr).write(message)


# Commands that compile a CNF, and so take --memory-limit.
MEMORY_LIMITED = ("solve", "encode", "puzzle", "explain")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand attached (with `only`, that one subcommand alone).

    Each command module imports what its options need (the puzzle commands the genre
    registry, batch its scheduler options), so building one subcommand instead of
    twelve keeps a run of one command from importing the others' modules.
    """
    parser = _Parser(
        prog="csp2sat",
        description="Solve constraint problems written in the Sugar CSP language, through SAT.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from csp2sat import __version__

    parser.add_argument("--version", action="version", version=f"csp2sat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        if only is not None and name.rsplit(".", 1)[1] != only:
            continue
        module = importlib.import_module(name)
        cmd = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(cmd)
        if module.NAME in MEMORY_LIMITED:
            cmd.add_argument(
                "--memory-limit", type=positive_megabytes, metavar="MB",
                help="stop with exit status 6 before encoding when the CNF would need more than MB megabytes "
                     "(default: 90%% of the memory available when the run starts)")
        cmd.set_defaults(run=module.run, reads=getattr(module, "READS", ()), writes=getattr(module, "WRITES", ()))
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand `argv` starts with, when it is one of ours (None: --help, --version, a typo...)."""
    if argv and argv[0] in {name.rsplit(".", 1)[1] for name in COMMAND_MODULES}:
        return argv[0]
    return None


def _collect_garbage_rarely() -> None:
    """Let Python's cycle collector run after 10,000 net allocations instead of 700.

    A command builds one pipeline whose objects (syntax trees, models, clause
    buffers) live until it ends and are acyclic, so every collection rescans a
    heap that only grows, for nothing: 0.07 s of the 1.2 s of a Slitherlink 30x25
    board. Reference counting still frees everything at once; memory is not affected.
    """
    import gc

    gc.set_threshold(10_000, 10, 10)


def _io_error(err: OSError) -> int:
    """Report a failed read or write outside the commands' own file handling; `Exit.IO`."""
    if err.filename:  # a file the command did not open through its own readers and writers
        _say(f"csp2sat: error: {err.filename}: {err.strerror or err}")
        return Exit.IO
    if isinstance(err, BrokenPipeError):
        message = "the output was closed before everything was written (broken pipe)"
    else:
        message = f"cannot write the output (standard output): {err.strerror or err}"
    # What is still buffered for stdout can never be written: drop it, so that the
    # interpreter's last flush at exit does not fail a second time.
    _drop(sys.stdout)
    _say(f"csp2sat: error: {message}")
    return Exit.IO


def _say(message: str) -> None:
    """Print `message` on stderr if stderr can still be written (a full disk, a closed pipe: it cannot,
    and then nothing more is tried there; the exit status says it)."""
    try:
        print(message, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        _drop(sys.stderr)


def _drop(stream) -> None:
    """Point `stream`'s file descriptor at /dev/null, dropping what is buffered, so that no later write or
    the interpreter's last flush at exit fails on it again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


_stopped_by: list[str] = []  # "SIGTERM" once `_sigterm_as_ctrl_c`'s handler has run


def _sigterm_as_ctrl_c() -> None:
    """SIGTERM stops a command as Ctrl-C does (the solving commands' watchdog takes it over while it runs)."""
    import signal
    import threading

    def stop(signum, frame) -> None:
        _stopped_by.append("SIGTERM")
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def _stopped_early(command: str | None, puzzle: str | None = None) -> int:
    """Report a Ctrl-C or SIGTERM that came before the command's own handling of stops (start-up, argument
    checks, the solving commands' watchdog not yet running) as the command reports a stop, and its status.

    `solve` then has printed nothing: ``s UNKNOWN`` and exit 0, as for any stop before an answer;
    `puzzle`: ``s UNKNOWN`` on stderr and exit 1; the other commands: ``c interrupted`` and 130.
    """
    why = _stopped_by[-1] if _stopped_by else "Ctrl-C"
    if command == "solve":
        try:
            print("s UNKNOWN", flush=True)
        except (OSError, ValueError):
            return Exit.IO
        _say(f"c stopped by {why}")
        return Exit.OK
    if command == "puzzle":
        _say("s UNKNOWN")
        _say(f"c {puzzle + ': ' if puzzle else ''}stopped by {why} before a solution was found")
        return 1
    _say("c interrupted")
    return 130


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """`parser.parse_args`, except that a command taking several paths also takes those after its options.

    argparse stops a ``nargs="+"`` positional at the first option, so ``batch dir/ --genre
    sudoku more/`` failed with "unrecognized arguments: more/".
    """
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    dest = _many_paths(parser, getattr(args, "command", None))
    if dest is None or any(item.startswith("-") and item != "-" for item in extra):
        return parser.parse_args(argv)  # argparse's own message and exit status 2
    getattr(args, dest).extend(extra)
    return args


def _many_paths(parser: argparse.ArgumentParser, command: str | None) -> str | None:
    """The destination of `command`'s positional taking one or more values, if it has one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            for inner in action.choices[command]._actions:
                if not inner.option_strings and inner.nargs in ("+", "*"):
                    return inner.dest
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]) and return the exit status."""
    _collect_garbage_rarely()
    parser = build_parser(_command_named(sys.argv[1:] if argv is None else argv))
    try:
        args = _parse(parser, argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return Exit.USAGE
    except SystemExit:  # --help, --version or a usage error: argparse has written its text
        try:
            sys.stdout.flush()
        except OSError as err:
            return _io_error(err)
        raise
    except OSError as err:  # --help into a full disk or a closed pipe
        return _io_error(err)
    if args.command in MEMORY_LIMITED:  # (batch's --memory-limit is per task, enforced in its sandbox)
        from csp2sat.memory import set_limit

        set_limit(args.memory_limit)  # None: the default; also undoes an earlier main() call in this process
    _sigterm_as_ctrl_c()
    try:
        check_paths(args, args.reads, args.writes)  # each command's READS and WRITES: no file clobbered
        status = int(args.run(args))
        sys.stdout.flush()  # a full disk or a closed pipe shows here, while it can still be reported
        return status
    except CspError as err:
        _say(str(err))
        return int(err.exit)
    except KeyboardInterrupt:  # before the command's own handling of stops began (it reports those itself)
        return _stopped_early(args.command, getattr(args, "puzzle", None))
    except OSError as err:  # writing the output failed (disk full, pipe closed) or a file went away
        return _io_error(err)
    except RecursionError:
        _say("csp2sat: error: the input is nested too deeply to process")
        return Exit.LIMIT
    except MemoryError:
        pass  # reported below: leaving this clause frees the frames the error holds (a parser's state)
    except Exception as err:  # a bug of ours: say so plainly, and how to report it
        if os.environ.get("CSP2SAT_DEBUG"):
            raise
        _say(f"csp2sat: internal error: {type(err).__name__}: {err}")
        _say("csp2sat: this is a bug; run again with CSP2SAT_DEBUG=1 for details")
        return Exit.INTERNAL
    _say("csp2sat: error: out of memory (the problem is too large)")
    return Exit.LIMIT


class _ClosedStream(io.TextIOBase):
    """Stands for a standard stream the process was started without (``csp2sat solve f.csp >&-``), where
    Python leaves None: reading or writing it fails as on a closed descriptor (EBADF), so each command
    reports it as any other failed read or write (exit 7) instead of an internal error."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def _closed(self, *args: object) -> NoReturn:
        raise OSError(errno.EBADF, "closed when csp2sat started")

    write = read = readline = fileno = _closed

    @property
    def buffer(self) -> "_ClosedStream":
        return self

    def readable(self) -> bool:
        return self._name == "standard input"

    def writable(self) -> bool:
        return self._name != "standard input"


def _stand_in_for_closed_streams() -> None:
    """Put a `_ClosedStream` where the process has no stdin, stdout or stderr."""
    for attr, name in (("stdin", "standard input"), ("stdout", "standard output"), ("stderr", "standard error")):
        if getattr(sys, attr) is None:
            setattr(sys, attr, _ClosedStream(name))


def entry() -> None:
    """The `csp2sat` command and ``python -m csp2sat``: `main` in a process that ends with it."""
    _sigterm_as_ctrl_c()  # at once: until then a SIGTERM kills the process without a word
    _stand_in_for_closed_streams()
    try:
        from csp2sat.solver import kept_until_exit, leave_solvers_at_exit

        leave_solvers_at_exit()  # the process ends after this one run (`csp2sat batch` says otherwise)
        status = main()
    except KeyboardInterrupt:  # a Ctrl-C or SIGTERM while the process starts (imports, the parser)
        status = _stopped_early(_command_named(sys.argv[1:]))
        sys.exit(status)
    if kept_until_exit():
        _exit_without_freeing(status)
    sys.exit(status)


def _exit_without_freeing(status: int) -> None:
    """End the process at once after a stopped run: its output is written and its exit handlers run,
    but what it was building is left to the operating system (`solver.keep_until_exit`): freeing a
    200x200 board's half-made CNF took 2.7 s after `s UNKNOWN`, past the time limit."""
    import atexit
    import threading

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or Exit.IO
    # What the interpreter's own exit does first, in its order (CPython): join the threads and run their
    # exit hooks (a process pool tells its workers to stop there: without it, the exit handlers below
    # waited for them for good, 8 runs of 15 of a stopped `solve --all -j 2` under load), then the exit
    # handlers (the solver helpers, worker processes, temporary files). Only freeing is left out.
    threading._shutdown()
    atexit._run_exitfuncs()
    os._exit(status)


if __name__ == "__main__":
    entry()
