"""`csp2sat batch`: solve many files in parallel on Dask, one JSON line per task, a summary at the end."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TextIO

from csp2sat.commands._common import add_solver_argument, positive_int, positive_megabytes, positive_seconds
from csp2sat.diagnostics import CspError, Exit

NAME = "batch"
READS = ("paths",)  # file arguments read and written (cli: none may collide)
WRITES = ("output",)
HELP = "solve many CSP and puzzle files in parallel (Dask), one JSON line each"
DESCRIPTION = """\
Solve every problem under the given paths, one task each, in parallel, and write one
JSON line per task. Directories are walked: .csp files are Sugar CSP files, .txt files
are puzzles whose genre is --genre or the name of their folder (puzzles/slitherlink/x.txt
is a Slitherlink puzzle; NAME.solution.txt, sources.txt, pieces.txt and counts.txt are
not puzzles), and a .txt file of puzz.link URLs (one per line, # comments) is a URL list:
one task per URL, its genre read from the URL. Every answer is verified as in
'csp2sat solve'.

Tasks run on Dask: by default on a local pool of --jobs solver processes (no server
needed); with --scheduler, on a Dask cluster you started, on this or other machines:
  dask scheduler                          # prints its address, e.g. tcp://10.0.0.5:8786
  dask worker tcp://10.0.0.5:8786         # on each machine, with csp2sat[dask] installed
  csp2sat batch puzzles/ --scheduler tcp://10.0.0.5:8786 -o results.jsonl
Workers need csp2sat installed, not the files: each task carries its file's text.

Each task runs in its own process: --timeout and --memory-limit hold even when a solver
ignores them, and a task that crashes, hangs or runs out of memory is recorded as such
while the batch goes on.

record fields (one JSON object per line):
  file, item (a URL's line number), kind (csp|puzzle|url), genre, mode
  status     SATISFIABLE, UNSATISFIABLE, OPTIMUM FOUND; timeout (the record keeps what was
             found so far), memory, error (bad input, with its exit status), crash
  objective, answer (values of the printed variables; a puzzle's solution text),
  unique (--mode unique), count (--mode count), classes (the classes of solutions up to
  the board's symmetries a puzzle's count searched, e.g. pentomino boxes; else null),
  facts (--mode facts: value or null),
  times (seconds per stage), cnf (vars, clauses), peak_mb (the task process's peak
  resident memory, ~30 MB of it the loaded pipeline), wall_s, exit, error,
  warnings (a URL whose body stops before its last cell or goes on after it: read as
  pzprjs reads it, and said so here; else null)

examples:
  csp2sat batch models/ puzzles/ -o results.jsonl
  csp2sat batch puzzles/slitherlink --mode unique --timeout 60 -o unique.jsonl
  csp2sat batch boards/ --genre masyu --jobs 4 --memory-limit 2000
  csp2sat batch puzzles/ urls.txt -o results.jsonl --resume      after Ctrl-C: run only what is missing

exit status: 0 every task answered; 1 some task failed, ran out of memory or timed out;
2 usage (bad path, unreachable scheduler); 5 Dask is not installed (pip install 'csp2sat[dask]');
8 some answer failed verification (a bug).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `csp2sat batch`."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".csp files, puzzle files or directories")
    parser.add_argument("--mode", choices=("solve", "unique", "count", "facts"), default="solve",
                        help="what to find for each problem (default solve; see 'csp2sat solve --help')")
    parser.add_argument("--genre", metavar="G", help="genre of every puzzle file (default: the folder's name)")
    parser.add_argument("--jobs", "-j", type=positive_int, metavar="N",
                        help="local solver processes at once (default: the number of cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on the Dask cluster at ADDRESS (tcp://HOST:PORT) instead of locally")
    parser.add_argument("--timeout", type=positive_seconds, metavar="S", help="time limit per task, in seconds")
    parser.add_argument("--memory-limit", type=positive_megabytes, metavar="MB",
                        help="memory each task may take on top of the loaded pipeline, in MB (an RLIMIT_AS on its process)")
    parser.add_argument("-o", "--output", default="-", metavar="RESULTS",
                        help="write the JSON lines to RESULTS (default: standard output)")
    parser.add_argument("--resume", action="store_true",
                        help="skip the tasks already recorded in RESULTS and append the others")
    add_solver_argument(parser, auto="batch")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")


def _usage(message: str) -> CspError:
    return CspError(message, file="csp2sat batch", exit=Exit.USAGE)


def _check_options(args: argparse.Namespace) -> None:
    if args.resume and args.output == "-":
        raise _usage("--resume needs the results file: add -o RESULTS")
    if args.genre is not None:
        from csp2sat.commands._puzzles import lookup

        lookup(args.genre)
    try:
        import distributed  # noqa: F401
        import rich  # noqa: F401
    except ImportError as err:  # say which one: Dask may be there without rich (the progress bar)
        missing = {"distributed": "Dask (distributed)", "rich": "rich"}.get((err.name or "").split(".")[0],
                                                                           err.name or "a module it needs")
        raise CspError(f"csp2sat batch runs on Dask and draws its progress with rich; {missing} is not installed: "
                       "pip install 'csp2sat[dask]'", file="csp2sat batch", exit=Exit.UNSUPPORTED) from None


def run(args: argparse.Namespace) -> int:
    """Collect the tasks, run them on Dask, write the records and the summary."""
    from csp2sat import batch
    from csp2sat.solver import leave_solvers_at_exit

    leave_solvers_at_exit(False)  # many runs in this process (and in workers forked from it): each frees its solver
    _check_options(args)
    try:
        tasks, skipped = batch.collect(args.paths, args.genre)
    except batch.CollectError as err:
        raise _usage(str(err)) from None
    settings = batch.Settings(args.mode, args.solver, args.timeout, args.memory_limit)
    tally = batch.Tally()
    done: set[tuple] = set()
    if args.resume and os.path.exists(args.output):
        previous, bad = batch.read_results(args.output)
        done = batch.done_keys(previous)
        if bad and not args.quiet:
            print(f"c {args.output}: {bad} line(s) are not records (cut short?); their tasks run again",
                  file=sys.stderr)
    todo = [task for task in tasks if task.key(args.mode) not in done]
    if not args.quiet:
        note = f" ({len(skipped)} other file{'s' if len(skipped) != 1 else ''} skipped)" if skipped else ""
        resumed = f", {len(tasks) - len(todo)} already in {args.output}" if args.resume else ""
        print(f"c {len(tasks)} tasks{note}{resumed}; running {len(todo)}", file=sys.stderr)
    if args.scheduler and args.jobs and not args.quiet:
        print("c --jobs is ignored with --scheduler: the cluster's workers decide", file=sys.stderr)
    out = _open_results(args.output, args.resume)
    started = time.monotonic()
    interrupted = False
    try:
        if todo:
            interrupted = _run(todo, settings, args, out, tally)
    finally:
        if out is not sys.stdout:
            _close_results(out, args.output, failing=sys.exc_info()[0] is not None)
    if not args.quiet:
        _summary(tally, time.monotonic() - started, interrupted, args.output)
    if interrupted:
        return 130
    if tally.verify_failures:
        return Exit.VERIFY
    return 1 if tally.failed or tally.timed_out else Exit.OK


def _close_results(out: TextIO, path: str, failing: bool) -> None:
    """Close the results file; an error is reported unless one is already on its way (a failed write)."""
    try:
        out.close()
    except OSError as err:
        if not failing:
            raise CspError(f"cannot write file: {err.strerror}", file=path, exit=Exit.IO) from None


def _open_results(path: str, resume: bool) -> TextIO:
    if path == "-":
        return sys.stdout
    try:
        if resume and os.path.exists(path):
            with open(path, "rb") as handle:  # a line cut short by an interruption must not swallow the next
                size = handle.seek(0, os.SEEK_END)
                ends_cleanly = size == 0 or (handle.seek(size - 1) >= 0 and handle.read(1) == b"\n")
            out = open(path, "a", encoding="utf-8")
            if not ends_cleanly:
                out.write("\n")
            return out
        return open(path, "w", encoding="utf-8")
    except OSError as err:
        raise CspError(f"cannot write file: {err.strerror}", file=path, exit=Exit.IO) from None


def _run(todo: list, settings: Any, args: argparse.Namespace, out: TextIO, tally: Any) -> bool:
    """Run the tasks, writing each record as it completes; True when interrupted by Ctrl-C."""
    from csp2sat import batch

    progress = _Progress(len(todo), enabled=not args.quiet and sys.stderr.isatty())
    try:
        pool = batch.open_pool(args.jobs, args.scheduler)
    except batch.PoolError as err:
        raise _usage(str(err)) from None
    try:
        with progress:
            for rec in batch.run_batch(todo, settings, pool):
                try:
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                except OSError as err:
                    if out is sys.stdout:
                        raise  # the command line's own report of standard output
                    raise CspError(f"cannot write file: {err.strerror}", file=args.output, exit=Exit.IO) from None
                tally.add(rec)
                progress.update(tally)
    except KeyboardInterrupt:
        return True
    finally:
        pool.close()
    return False


class _Progress:
    """A rich progress bar on stderr (done, failed, timed out, rate, ETA); nothing when disabled."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self.bar = Progress(
            TextColumn("[bold]batch"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]failed {task.fields[failed]}"),
            TextColumn("[yellow]timed out {task.fields[timed_out]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.task = self.bar.add_task("batch", total=total, failed=0, timed_out=0, rate="")
        self.started = time.monotonic()

    def __enter__(self) -> "_Progress":
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, tally: Any) -> None:
        if self.bar is None:
            return
        elapsed = max(time.monotonic() - self.started, 1e-9)
        self.bar.update(self.task, completed=tally.total, failed=tally.failed, timed_out=tally.timed_out,
                        rate=f"{tally.total / elapsed:.2f} tasks/s")


def _summary(tally: Any, elapsed: float, interrupted: bool, output: str) -> None:
    """The table of outcomes on stderr."""
    from rich.console import Console
    from rich.table import Table

    from csp2sat import batch

    console = Console(stderr=True, highlight=False)
    table = Table(title="csp2sat batch" + (" (interrupted)" if interrupted else ""), title_justify="left")
    table.add_column("status")
    table.add_column("tasks", justify="right")
    order = {status: rank for rank, status in enumerate(batch.ANSWERED + (batch.TIMEOUT,) + batch.FAILED)}
    for status, count in sorted(tally.by_status.items(), key=lambda item: order.get(item[0], len(order))):
        table.add_row(status, str(count))
    if tally.unique or tally.multiple:
        table.add_row("  of which unique", str(tally.unique))
        table.add_row("  of which multiple", str(tally.multiple))
    rate = tally.total / elapsed if elapsed > 0 else 0.0
    table.add_row("total", f"{tally.total}", end_section=True)
    console.print(table)
    console.print(f"{tally.total} tasks in {elapsed:.1f} s ({rate:.2f} tasks/s)"
                  + ("" if output == "-" else f"; records in {output}"))
    if tally.slowest:
        console.print("slowest:")
        for seconds, name in tally.slowest[:3]:
            console.print(f"  {seconds:8.2f} s  {name}", soft_wrap=True)
    for rec in tally.problems[:10]:
        error = (rec.get("error") or "").splitlines()[0] if rec.get("error") else ""
        where = "" if error.startswith(rec["file"]) else f"{rec['file']}: "
        console.print(f"{rec['status']}: {where}{error}", soft_wrap=True, markup=False)
    if len(tally.problems) > 10:
        console.print(f"... and {len(tally.problems) - 10} more (see the records)")
    if interrupted:
        console.print("interrupted: run again with --resume to do the rest")
