"""Batch stage: many problems, one task each, run in parallel on Dask, one JSON record per task.

Data flows one way: `collect` turns the command line's paths into `Task`s (one per ``.csp``
file or puzzle file; a reader per kind of input, see `READERS`) -> `run_batch` loads each
task's text on the client and submits it to Dask (a local in-process cluster by default, or
the cluster at ``--scheduler``) -> on a worker, `execute` runs it in an isolated process
(`csp2sat.sandbox`: time and memory limits, crashes contained) where `run_task` calls the
ordinary pipeline (`csp2sat.solve`, `csp2sat.enumerate`, `csp2sat.generators.run`) -> the
worker turns the outcome into a `record` -> the client hands each record, as it completes, to
the caller (the command writes it as a JSON line, so an interrupted batch loses nothing).

Tasks are independent: a task carries its file's text, so workers need csp2sat but not the
files, and the same records come back from the local pool and from a remote cluster.

A new kind of input is a reader (path -> tasks, or None when the file is not its kind) added
to `READERS` and, if its tasks need a step of their own, a runner added to `RUNNERS`. A reader
of a list file (e.g. puzz.link URLs, one per line) makes one task per entry, numbered by
`Task.item`, and fills each task's `text` with its entry, so that `load` leaves it as it is.
"""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator

MODES = ("solve", "unique", "count", "facts")

# Solver statuses (Sugar's words) and the statuses of tasks that did not end with an answer.
ANSWERED = ("SATISFIABLE", "UNSATISFIABLE", "OPTIMUM FOUND", "UNKNOWN")
TIMEOUT, MEMORY, ERROR, CRASH = "timeout", "memory", "error", "crash"
FAILED = (MEMORY, ERROR, CRASH)

# Files in puzzle folders that are not puzzles (data/README.md's conventions).
NOT_PUZZLES = frozenset({"sources.txt", "pieces.txt", "counts.txt"})

# Record fields in the order they are written; every record has all of them (null when not applicable).
RECORD_FIELDS = ("file", "item", "kind", "genre", "mode", "status", "objective", "answer", "unique",
                 "count", "classes", "facts", "times", "cnf", "peak_mb", "wall_s", "exit", "error", "warnings")


@dataclass(frozen=True)
class Task:
    """One problem to solve: a kind (a key of `RUNNERS`), where it comes from, and (once loaded) its text.

    `item` locates the problem inside a file that lists several (e.g. a line number), None
    for a whole file. `text` is filled by `load` on the client just before submission.
    """

    kind: str
    file: str
    item: int | None = None
    genre: str | None = None
    text: str | None = None

    def key(self, mode: str) -> tuple:
        """What identifies the task's record in a results file (for --resume)."""
        return (self.file, self.item, mode)


@dataclass(frozen=True)
class Settings:
    """How every task of a batch is run."""

    mode: str = "solve"
    solver: str = "auto"  # as `solve` reads it for .csp files, as `puzzle` for puzzles
    timeout: float | None = None
    memory_mb: float | None = None


class CollectError(Exception):
    """A path on the command line that is neither a problem file nor a directory."""


# -- collecting tasks ---------------------------------------------------------------------


def _read_csp(path: str, genre: str | None) -> list[Task] | None:
    return [Task("csp", path)] if path.endswith(".csp") else None


def _read_puzzle(path: str, genre: str | None) -> list[Task] | None:
    name = os.path.basename(path)
    if not name.endswith(".txt") or name in NOT_PUZZLES or name.endswith(".solution.txt"):
        return None
    chosen = genre or _folder_genre(path)
    return [Task("puzzle", path, genre=chosen)] if chosen else None


def _folder_genre(path: str) -> str | None:
    """The genre named by the file's folder (data/slitherlink/x.txt -> slitherlink), if it is one."""
    from csp2sat.generators.base import genre as lookup

    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    try:
        lookup(folder)
    except KeyError:
        return None
    return folder


def _read_url_list(path: str, genre: str | None) -> list[Task] | None:
    """A text file whose entries (non-blank lines, ``#`` comments aside) are puzz.link URLs: a task per entry.

    The first entry must look like a URL; a later one that does not is still a task, reported as an error.
    """
    if not path.endswith((".txt", ".urls")) or os.path.basename(path) in NOT_PUZZLES:
        return None
    from csp2sat.generators.puzzlink import PuzzleError, genre_of_url, looks_like_url

    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None  # not a URL list; the puzzle reader reports what is wrong with it
    entries = [(number, line.strip()) for number, line in enumerate(lines, 1)
               if line.strip() and not line.strip().startswith("#")]
    # The first entry decides: a list with one mistyped line stays a list, whose record for that line
    # says what is wrong, instead of the whole file (and its good URLs) being skipped as no puzzle.
    if not entries or not looks_like_url(entries[0][1]):
        return None
    tasks = []
    for number, url in entries:
        chosen = genre
        if chosen is None:
            try:
                chosen = genre_of_url(url)
            except PuzzleError:
                chosen = None  # the task's record says what is wrong with the URL
        tasks.append(Task("url", path, number, chosen, url))
    return tasks


# Each reader says whether a file is its kind of input and which tasks it holds; the first
# that answers wins (a URL list before the puzzle reader: both are .txt files).
READERS: list[Callable[[str, str | None], list[Task] | None]] = [_read_csp, _read_url_list, _read_puzzle]


def collect(paths: Iterable[str], genre: str | None = None) -> tuple[list[Task], list[str]]:
    """The tasks in `paths` (directories walked in sorted order) and the files walked past as not problems.

    A file named on the command line that no reader accepts is a `CollectError`, as is a
    path that does not exist; in a directory such files are only listed as skipped.
    """
    tasks: list[Task] = []
    skipped: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.normpath(os.path.join(root, name))
                    found = _read_file(full, genre)
                    if found is None:
                        skipped.append(full)
                    else:
                        tasks.extend(found)
        elif os.path.exists(path):
            found = _read_file(os.path.normpath(path), genre)
            if found is None:
                raise CollectError(f"{path}: not a .csp file, nor a puzzle file of a known genre "
                                   "(name the genre with --genre, or keep puzzles in a folder named after it)")
            tasks.extend(found)
        else:
            raise CollectError(f"{path}: no such file or directory")
    return tasks, skipped


def _read_file(path: str, genre: str | None) -> list[Task] | None:
    for reader in READERS:
        found = reader(path, genre)
        if found is not None:
            return found
    return None


def load(task: Task) -> Task:
    """The task with its file's text, read here so that workers need no access to the files."""
    if task.text is not None:
        return task
    from csp2sat.diagnostics import decode_utf8

    with open(task.file, "rb") as handle:  # bytes that are not UTF-8: a CspError at their line and column
        return Task(task.kind, task.file, task.item, task.genre, decode_utf8(handle.read(), task.file))


# -- running one task (inside the sandbox's child process) --------------------------------


def warm_up() -> None:
    """Import and prepare the pipeline once in the sandbox process, so each forked task starts ready."""
    # numpy is imported lazily by large clause buffers; imported first inside a task under a small
    # --memory-limit, its OpenBLAS could not even start (a crash instead of an out-of-memory record)
    import numpy  # noqa: F401
    import pysat.solvers  # noqa: F401 - the native solvers' module

    import csp2sat
    import csp2sat.compiler  # noqa: F401
    import csp2sat.enumerate  # noqa: F401
    import csp2sat.generators.run  # noqa: F401
    from csp2sat.generators.base import genre_names

    genre_names()  # imports every genre module
    from csp2sat.solver import usable_solvers

    usable_solvers()  # probes every SAT solver once, before a task's memory limit (Gluecard aborts under it)
    csp2sat.parse("(int x 0 1)")  # builds (or loads) the parser tables


def run_task(arg: dict) -> dict:
    """Run one task (``{"task": Task fields, "settings": Settings fields}``) and return its result fields.

    Input errors (bad syntax, unreadable puzzle text, a failed verification) are results with
    status ``error`` and the exit status `csp2sat solve` would give; anything else that goes
    wrong propagates, and the sandbox records it.
    """
    from csp2sat.diagnostics import CspError
    from csp2sat.memory import MemoryLimitError

    task = Task(**arg["task"])
    settings = Settings(**arg["settings"])
    try:
        return RUNNERS[task.kind](task, settings)
    except MemoryLimitError as err:  # refused before running out (the sandbox's limit is an address-space limit)
        return {"status": MEMORY, "exit": int(err.exit), "error": str(err)}
    except CspError as err:
        return {"status": ERROR, "exit": int(err.exit), "error": str(err)}


def _run_csp(task: Task, settings: Settings) -> dict:
    """A Sugar CSP file: `csp2sat.solve` for plain solving, `csp2sat.enumerate` for the other modes."""
    from csp2sat.commands._common import parse_model

    start = time.perf_counter()
    model = parse_model(task.text or "", task.file)
    parsed = time.perf_counter()
    if settings.mode == "solve":
        import csp2sat

        result = csp2sat.solve(model, solver=settings.solver, verify=True)
        stats = result.stats
        times = {"parse": parsed - start}
        times.update({key[:-2]: stats[key] for key in ("normalise_s", "encode_s", "load_s", "solve_s") if key in stats})
        return {
            "status": result.status,
            "objective": result.objective,
            "answer": result.values,
            "times": times,
            "cnf": _cnf(stats),
            "proven": result.proven,
        }
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space
    from csp2sat.solver import is_interrupt

    compiled = compile_model(model, enumerating=settings.mode == "count")
    compiled_at = time.perf_counter()
    fields: dict[str, Any] = {"cnf": {"vars": compiled.num_vars, "clauses": compiled.num_clauses}}
    with open_space(compiled, model, settings.solver, verify=True, enumerating=settings.mode == "count") as space:
        if settings.mode == "count":
            fields["count"] = 0
            try:
                for _ in space.solutions():
                    fields["count"] += 1
            except (KeyboardInterrupt, Exception) as err:  # the time limit: keep the count so far (a lower bound)
                if not is_interrupt(err):
                    raise
                fields["proven"] = False
            found = fields["count"] > 0
        elif settings.mode == "unique":
            verdict = space.uniqueness()
            found = verdict.first is not None
            fields["answer"] = verdict.first
            fields["unique"] = verdict.status == "unique" if found else None
        else:
            facts = space.facts()
            found = facts is not None
            fields["facts"] = facts
        optimum = space.optimum
    fields["status"] = ("OPTIMUM FOUND" if optimum is not None else "SATISFIABLE") if found else "UNSATISFIABLE"
    fields["objective"] = optimum
    fields["times"] = {"parse": parsed - start, "compile": compiled_at - parsed,
                       settings.mode: time.perf_counter() - compiled_at}
    return fields


def _run_puzzle(task: Task, settings: Settings, from_url: bool = False) -> dict:
    """A puzzle file (or the board text of a URL): `csp2sat.generators.run.solve_puzzle`, the answer in the
    genre's solution text."""
    from csp2sat.commands._puzzles import lookup, no_solution_line, puzzle_error
    from csp2sat.generators.base import NoSolution, PuzzleError
    from csp2sat.generators.run import solve_puzzle

    genre = lookup(task.genre or "")
    mode = settings.mode
    try:
        puzzle = genre.read(task.text or "")
    except PuzzleError as err:
        decoded = task.text if from_url else None
        if isinstance(err, NoSolution):  # well-formed, and the reader already knows it unsolvable
            return {"status": "UNSATISFIABLE", "answer": None, "unique": None,
                    "count": 0 if mode == "count" else None, "classes": None, "facts": None, "times": {},
                    "cnf": None, "proven": True, "warnings": [no_solution_line(err, task.file, decoded)]}
        raise puzzle_error(err, task.file, decoded) from None
    run = solve_puzzle(genre, puzzle, unique=mode == "unique", solver=settings.solver, file=task.file,
                       facts=mode == "facts", count=mode == "count")
    found = run.solution is not None
    return {
        "status": "SATISFIABLE" if found else "UNSATISFIABLE",
        "answer": genre.render(puzzle, run.solution, "answer") if found else None,
        "unique": run.unique,
        "count": run.count,
        "classes": run.classes,  # a count by symmetry classes (`Genre.generate_classes`): how many
        "facts": run.facts,
        "times": dict(run.times),
        "cnf": {"vars": run.stats.get("cnf_vars"), "clauses": run.stats.get("cnf_clauses")},
        "proven": not run.interrupted,  # a time limit that stopped --unique/--facts/--count after the solution
    }


def _run_url(task: Task, settings: Settings) -> dict:
    """One puzz.link URL of a URL list: decoded to the genre's board text, then solved as a puzzle file."""
    from csp2sat.commands._puzzles import lookup
    from csp2sat.diagnostics import CspError, Exit
    from csp2sat.generators.puzzlink import PuzzleError, genre_of_url, looks_like_url, url_to_text

    where = f"{task.file}:{task.item}"
    if not looks_like_url(task.text or ""):
        raise CspError(f"{(task.text or '')[:60]!r} is not a puzz.link URL (https://puzz.link/p?TYPE/COLS/ROWS/BODY)",
                       file=where, exit=Exit.SYNTAX)
    try:
        genre = lookup(task.genre).name if task.genre else genre_of_url(task.text or "")
        notes: list[str] = []
        text = url_to_text(task.text or "", genre, notes)
    except PuzzleError as err:
        raise CspError(str(err), file=where, exit=Exit.SYNTAX) from None
    record = _run_puzzle(Task("puzzle", where, None, genre, text), settings, from_url=True)
    if notes:  # a body cut short or run on, read as pzprjs reads it
        record["warnings"] = notes + record.get("warnings", [])
    return record


def _cnf(stats: dict) -> dict | None:
    if "cnf_vars" not in stats:
        return None
    return {"vars": stats["cnf_vars"], "clauses": stats.get("cnf_clauses")}


# How each kind of task is run; a new kind of input whose text needs a step of its own adds one.
RUNNERS: dict[str, Callable[[Task, Settings], dict]] = {"csp": _run_csp, "puzzle": _run_puzzle, "url": _run_url}


# -- on the worker: one task in the sandbox, its record -----------------------------------


def execute(task: Task, settings: Settings) -> dict:
    """Run `task` in this worker thread's sandbox process and return its record (the function Dask runs)."""
    from csp2sat.sandbox import run_isolated

    arg = {"task": asdict(task), "settings": asdict(settings)}
    reply = run_isolated("csp2sat.batch:run_task", arg, settings.timeout, settings.memory_mb,
                         preload=("csp2sat.batch",))
    return record(task, settings, reply)


def record(task: Task, settings: Settings, reply: dict) -> dict:
    """The JSON record of a task from the sandbox's reply (see RECORD_FIELDS)."""
    rec: dict[str, Any] = dict.fromkeys(RECORD_FIELDS)
    rec.update(file=task.file, item=task.item, kind=task.kind, genre=task.genre, mode=settings.mode)
    if reply.get("ok"):
        fields = dict(reply["value"])
        proven = fields.pop("proven", True)
        rec.update(fields)
        # Stopped at the time limit but not killed: what was found so far is kept (the best
        # objective, a partial count), and the status says that it is not the final answer.
        if not proven or rec["status"] == "UNKNOWN":
            rec["status"] = TIMEOUT
            rec["error"] = "stopped at the time limit; what the record holds is what was found so far"
    else:
        rec["status"] = {"timeout": TIMEOUT, "memory": MEMORY, "crash": CRASH}.get(reply.get("failure"), ERROR)
        rec["error"] = reply.get("error")
        if rec["status"] == ERROR:
            rec["exit"] = 9  # an exception of ours: an internal error, as `csp2sat solve` would say
            if reply.get("traceback"):  # for the bug report
                rec["error"] = f"internal error: {rec['error']}\n{reply['traceback']}"
    if rec["status"] == MEMORY and settings.memory_mb:  # out of memory, or refused up front (run_task)
        rec["error"] = f"{rec['error']} (--memory-limit {settings.memory_mb:g} MB)"
    if rec["status"] == TIMEOUT and settings.timeout is not None:
        rec["error"] = f"{rec['error']} (--timeout {settings.timeout:g} s)"
    if rec["times"]:
        rec["times"] = {key: round(value, 4) for key, value in rec["times"].items()}
    rec["peak_mb"] = reply.get("peak_mb")
    rec["wall_s"] = reply.get("wall_s")
    return rec


# -- on the client: Dask ------------------------------------------------------------------


@dataclass
class Pool:
    """A Dask client and, for the local default, the cluster it owns."""

    client: Any
    cluster: Any = None
    threads: int = 1
    local: bool = True

    def close(self) -> None:
        """Close the client and the local cluster (a remote cluster is left running)."""
        if self.local:  # first stop the sandboxes, so that worker threads still waiting on one return at once
            from csp2sat.sandbox import close_all

            close_all()
        with dask_loop_guard():
            try:
                self.client.close()
            finally:
                if self.cluster is not None:
                    self.cluster.close()


@contextmanager
def dask_loop_guard() -> Iterator[None]:
    """Start or stop Dask clients and clusters inside this: no garbage collection can run in between.

    Dask starts and stops a client's event loop under one lock shared by all clients. A client
    that is garbage (one whose construction failed, say) closes itself when collected and takes
    that lock: if the collector happens to run inside another client's start, in the same
    thread, the process hangs for ever (a CI run did, in `LocalCluster`). So the garbage is
    collected first, outside the lock, and the collector is off while Dask starts or stops.
    """
    from csp2sat._gc import gc_paused

    gc.collect()
    with gc_paused():
        yield


class PoolError(Exception):
    """The cluster cannot be reached or cannot run csp2sat."""


def open_pool(jobs: int | None = None, scheduler: str | None = None, connect_timeout: float = 20.0) -> Pool:
    """A Dask client: on the cluster at `scheduler`, or on a local pool of `jobs` worker slots (default: the cores).

    The local pool is an in-process Dask cluster (no server, no network port) with one thread
    per slot; each thread drives its own sandbox process, where the solving happens, so N slots
    are N solver processes.
    """
    import logging

    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler is None:
        threads = jobs or available_cores()
        with dask_loop_guard():
            cluster = LocalCluster(n_workers=1, threads_per_worker=threads, processes=False,
                                   dashboard_address="127.0.0.1:0",
                                   worker_dashboard_address="127.0.0.1:0", memory_limit=0)
            try:
                return Pool(Client(cluster), cluster, threads, local=True)
            except BaseException:
                cluster.close()
                raise
    _probe(scheduler)
    failure: PoolError | None = None
    with dask_loop_guard():
        try:
            client = Client(scheduler, timeout=connect_timeout)
        except (OSError, TimeoutError) as err:
            failure = PoolError(f"cannot reach the Dask scheduler at {scheduler}: {err}")
        except (ValueError, TypeError) as err:  # Dask's own parsing of the address (scheme, port, IPv6 brackets)
            failure = _bad_address(scheduler, err)
    if failure is not None:
        # The half-built client, held by the error's traceback until now, is garbage: it closes
        # itself here, not inside some later client's start (see dask_loop_guard).
        gc.collect()
        raise failure
    pool = Pool(client, None, 1, local=False)
    try:
        _check_workers(client, scheduler, connect_timeout)
    except BaseException:
        with dask_loop_guard():
            client.close()
        raise
    pool.threads = max(1, sum(client.nthreads().values()))
    return pool


def _bad_address(address: str, err: Exception) -> PoolError:
    return PoolError(f"not a Dask scheduler address: {address!r} ({err}); expected tcp://HOST:PORT")


def _probe(address: str, seconds: float = 5.0) -> None:
    """Fail at once when nothing listens at a tcp:// address (Dask itself retries for its whole time-out)."""
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        port = parts.port
    except ValueError as err:  # "[::1" without its bracket, a port that is not a number or out of range
        raise _bad_address(address, err) from None
    if parts.scheme not in ("tcp", "") or parts.hostname is None or port is None:
        return  # tls://, ucx://, ... and a missing port: left to Dask
    try:
        socket.create_connection((parts.hostname, port), timeout=seconds).close()
    except OSError as err:
        raise PoolError(f"cannot reach the Dask scheduler at {address}: {err.strerror or err}") from None


def _check_workers(client: Any, scheduler: str, wait_s: float) -> None:
    """Fail early and plainly when the cluster has no workers or a worker lacks csp2sat."""
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except (TimeoutError, OSError):
        raise PoolError(f"the Dask scheduler at {scheduler} has no workers (start some with: dask worker {scheduler})") from None

    def version() -> str:
        try:
            import csp2sat
        except ImportError:
            return "missing"
        return csp2sat.__version__

    import csp2sat

    versions = client.run(version)
    wrong = {worker: v for worker, v in versions.items() if v != csp2sat.__version__}
    if wrong:
        listed = ", ".join(f"{worker} ({v})" for worker, v in sorted(wrong.items()))
        raise PoolError(f"these Dask workers do not have csp2sat {csp2sat.__version__} installed: {listed}")


def available_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run_batch(tasks: list[Task], settings: Settings, pool: Pool) -> Iterator[dict]:
    """Run `tasks` on `pool` and yield each record as it completes (in completion order).

    At most a few tasks per worker slot are in flight, and each task's text is read only when
    it is submitted, so memory stays flat however many files there are. A file that cannot be
    read is a record with status ``error`` (exit 7) without being submitted. If the consumer
    stops early (Ctrl-C), the tasks still running are cancelled.
    """
    import queue

    from csp2sat.diagnostics import CspError

    pending = iter(tasks)
    window = max(4, 2 * pool.threads)
    # Completed futures arrive through a queue read with a time-out, so that Ctrl-C is seen
    # promptly whichever thread the signal lands on (an untimed wait may not wake for it).
    finished: queue.Queue = queue.Queue()
    submitted: dict[Any, Task] = {}

    def top_up() -> Iterator[dict]:
        while len(submitted) < window:
            task = next(pending, None)
            if task is None:
                return
            try:
                loaded = load(task)
            except (OSError, CspError) as err:
                message = str(err) if isinstance(err, CspError) else \
                    f"{task.file}: error: cannot read the file: {err.strerror or err}"
                yield record(task, settings, {"ok": True, "value": {"status": ERROR, "exit": 7, "error": message}})
                continue
            future = pool.client.submit(execute, loaded, settings, pure=False)
            submitted[future] = task
            future.add_done_callback(finished.put)

    try:
        yield from top_up()
        while submitted:
            try:
                future = finished.get(timeout=0.2)
            except queue.Empty:
                continue
            task = submitted.pop(future)
            try:
                yield future.result()
            except Exception as err:  # noqa: BLE001 - e.g. a worker lost: recorded, the batch goes on
                yield record(task, settings, {"ok": False, "failure": "crash",
                                              "error": f"Dask: {type(err).__name__}: {err}"})
            yield from top_up()
    finally:
        if submitted:
            pool.client.cancel(list(submitted))


# -- results files --------------------------------------------------------------------------


def read_results(path: str) -> tuple[list[dict], int]:
    """The records of a JSON-lines results file and the number of lines that are not records (e.g. cut short)."""
    import json

    records: list[dict] = []
    bad = 0
    with open(path, "rb") as handle:  # line by line as bytes: a line that is not UTF-8 is one bad line, not an error
        for line in handle:
            if not line.strip():
                continue
            try:
                rec = json.loads(line.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError included
                bad += 1
                continue
            if isinstance(rec, dict) and "file" in rec and "mode" in rec:
                records.append(rec)
            else:
                bad += 1
    return records, bad


def done_keys(records: Iterable[dict]) -> set[tuple]:
    """The task keys (see `Task.key`) of records already written."""
    return {(rec["file"], rec.get("item"), rec["mode"]) for rec in records}


@dataclass
class Tally:
    """Counts of task outcomes, for the progress bar and the summary."""

    by_status: dict[str, int] = field(default_factory=dict)
    unique: int = 0
    multiple: int = 0
    verify_failures: int = 0
    slowest: list[tuple[float, str]] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)

    def add(self, rec: dict) -> None:
        """Count one record."""
        status = rec["status"]
        self.by_status[status] = self.by_status.get(status, 0) + 1
        if rec.get("unique") is True:
            self.unique += 1
        elif rec.get("unique") is False:
            self.multiple += 1
        if rec.get("exit") == 8:
            self.verify_failures += 1
        if status in FAILED or status == TIMEOUT:
            self.problems.append(rec)
        if rec.get("wall_s") is not None:
            self.slowest.append((rec["wall_s"], rec["file"] if rec.get("item") is None else f"{rec['file']}:{rec['item']}"))
            self.slowest.sort(reverse=True)
            del self.slowest[5:]

    @property
    def failed(self) -> int:
        """Tasks that crashed, ran out of memory or ended in an error."""
        return sum(self.by_status.get(status, 0) for status in FAILED)

    @property
    def timed_out(self) -> int:
        """Tasks stopped at the time limit."""
        return self.by_status.get(TIMEOUT, 0)

    @property
    def total(self) -> int:
        """Every task counted."""
        return sum(self.by_status.values())
