"""Parallel search inside one problem: cube-split enumeration (--count/--all --jobs N) and a solver portfolio.

Enumeration. `csp2sat.enumerate.CubeEnumerator` explores a stack of pairwise
disjoint cubes (assumption sets). Here the cubes become tasks: a task is a
list of cubes, run by a worker process on its own incremental solver (built
once per process from the pickled `Compiled` and kept, with its learnt
clauses, for the following tasks) for at most `budget` seconds; it returns the
answers (or their number) found and the cubes it did not reach. Those go back
to the same worker, whose solver holds what it learnt there; a worker left
without work takes every other cube of the longest queue, so the load balances
itself without any communication between workers. The cubes stay
disjoint throughout, hence counts are exact and no answer appears twice.

Workers are local processes by default, each a `concurrent.futures.ProcessPoolExecutor`
of one process (so that its cubes can be sent back to it), or a Dask cluster with
`scheduler="tcp://HOST:PORT"` (``pip install csp2sat[dask]``), which places tasks
itself: the problem is scattered once to every worker, tasks carry only cubes.

Portfolio (`portfolio_solve`, ``solve --jobs N``): N local processes run
different PySAT solvers on the same CNF; the first proof (UNSAT, SAT without
objective, or optimum) wins and the others are terminated. With an objective
each worker runs plain solving's objective search (`csp2sat.solver.Search.run`:
budgeted probes, re-encoding for the values still open) and they share two
numbers through shared memory: the best objective found by anyone (an upper
bound on the next target) and the best proven bound (below it no answer
exists); every improvement is sent with its answer to the coordinator, which
prints it.
The racer's search (`race`) is shared with the portfolio on a Dask cluster
(``solve --jobs N --scheduler``, `csp2sat.dask_portfolio`).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import pickle
import threading
import time
import uuid
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from csp2sat.solver import (
    AUTO_SOLVER, DECISION_SOLVER, DEFAULT_SOLVER, SATISFIABLE, UNSATISFIABLE, choose_solver, without_auto,
)

Answer = dict

# Solvers raced by the portfolio, in this order after the user's own choice.
PORTFOLIO = ("cadical195", "glucose4", "cadical153", "maplechrono", "lingeling", "minisat22", "glucose3", "mergesat3")
# The second racer beside Glucose on a problem without an objective. Where `auto` picks Glucose there
# (permutations with sums or differences, social golfers, linear systems), CaDiCaL 1.9.5 is 1.2-10x
# slower and MiniSat 2.2 its equal, faster on some members and slower on others: the one that can win
# the race (`solve -j 2` on nine such files: 63-65 s in all against 76-77 s with CaDiCaL second;
# docs/performance.md, "A second racer for Glucose").
DECISION_PARTNER = "minisat22"


# ---------------------------------------------------------------- worker side (enumeration)

_LOCAL = threading.local()  # per worker thread: (token, CompiledSpace, Solver); solvers are not shared
_PAYLOAD: bytes | None = None  # the problem, set by the local pool's initializer


def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when its parent dies (a killed `solve` leaves no orphan solving on).

    A watchdog thread could not do it: CaDiCaL holds the GIL while it searches.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):  # not Linux: workers end when their next task cannot be sent
        pass


@contextmanager
def _stops_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back until the block ends, around spawning local workers.

    A time-out or Ctrl-C in the middle of writing a worker's start-up data (the pickled problem) left it
    printing a traceback (truncated pickle data, its queue's semaphore gone with us, or its interpreter
    stopped half started). Held back, those signals are handled once the worker has its data; the worker
    inherits the mask and `_worker_takes_stops` undoes it.
    """
    import signal

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _worker_takes_stops() -> None:
    """In a worker spawned under `_stops_held`: a Ctrl-C at the terminal is the parent's to handle (it stops
    its workers), so it is ignored here, and SIGTERM gets its default action back."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _init_local_worker(payload: bytes) -> None:
    global _PAYLOAD
    _die_with_parent()
    _worker_takes_stops()  # spawned under `_stops_held` (`_Pool.submit`)
    _PAYLOAD = payload


def _loaded(token: str, payload: bytes | None) -> tuple[Any, Any]:
    """This worker's (space, solver) for problem `token`, built on first use and kept."""
    cached = getattr(_LOCAL, "problem", None)
    if cached is not None and cached[0] == token:
        return cached[1], cached[2]
    if cached is not None:
        cached[2].delete()
    from csp2sat.enumerate import CompiledSpace
    from csp2sat.solver import new_solver

    compiled, model, names, units, solver_name, verify, mode = pickle.loads(payload if payload is not None else _PAYLOAD)
    solver = new_solver(solver_name, mode=mode)
    compiled.load(solver)
    for lit in units:
        solver.add_clause([lit])
    space = CompiledSpace(compiled, model, verify, names)
    _LOCAL.problem = (token, space, solver)
    return space, solver


def _live_items(token: str) -> dict:
    """This worker's unfinished blocking items still live on its solver (`BlockingEnumerator`'s `live`)."""
    live = getattr(_LOCAL, "live", None)
    if live is None or live[0] != token:
        live = (token, {})
        _LOCAL.live = live
    return live[1]


# A unit of work: (cube, answer literals already found and to block inside it, printed variables split so far).
Item = tuple[list[int], list[list[int]], int]


@dataclass
class CubeResult:
    """What one task sends back: answers (or only their number), the work items left, and its costs."""

    count: int
    answers: list[Answer] | None
    leftover: list[Item]
    calls: int
    cpu_s: float
    checked: int = 0


def run_cubes(
    token: str, payload: bytes | None, items: list[Item], budget: float, keep_answers: bool, limit: int | None,
    method: str = "cubes",
) -> CubeResult:
    """Enumerate inside `items` for about `budget` seconds (at least one SAT call); return what is left.

    `method` "cubes": `CubeEnumerator` (items carry nothing to block); "blocking": `BlockingEnumerator`;
    "propagate": `PropagationEnumerator` (items are cubes, as for "cubes").
    """
    from csp2sat.enumerate import BlockingEnumerator, CubeEnumerator, PropagationEnumerator

    space, solver = _loaded(token, payload)
    start, cpu = time.monotonic(), time.process_time()
    checked_before = space.checked
    if method == "blocking":
        search: Any = BlockingEnumerator(solver, space, items, _live_items(token))
    elif method == "propagate":
        search = PropagationEnumerator(solver, space, [cube for cube, _, _ in items])
    else:
        search = CubeEnumerator(solver, space, [cube for cube, _, _ in items])
    answers: list[Answer] = []
    count = 0
    for answer in search:
        count += 1
        if keep_answers:
            answers.append(answer)
        if (limit is not None and count >= limit) or time.monotonic() - start >= budget:
            break
    if method == "blocking":
        leftover = search.leftover()
    else:
        # back in the order given: the first cube is explored first; cube splits are not value splits (depth 0)
        leftover = [(cube, [], 0) for cube in reversed(search.stack)]
    return CubeResult(
        count,
        answers if keep_answers else None,
        leftover,
        search.calls,
        time.process_time() - cpu,
        space.checked - checked_before,
    )


# ---------------------------------------------------------------- coordinator (enumeration)


@dataclass
class ParallelStats:
    """Costs of a parallel enumeration (reported by -v)."""

    tasks: int = 0
    sat_calls: int = 0
    worker_cpu_s: float = 0.0
    checked: int = 0
    optimum: int | None = None


def connect(scheduler: Any) -> Any:
    """A Dask client on the cluster at address `scheduler` (or on a `distributed` cluster object).

    An address that cannot be reached, a cluster without workers or without
    csp2sat is a usage error, reported at once (`csp2sat.batch.open_pool`'s checks).
    """
    from csp2sat.diagnostics import CspError, Exit

    try:
        from distributed import Client
    except ImportError:
        raise CspError("--scheduler needs Dask: pip install 'csp2sat[dask]'", file="csp2sat", exit=Exit.USAGE) from None
    from csp2sat.batch import PoolError, dask_loop_guard, open_pool

    if not isinstance(scheduler, str):
        with dask_loop_guard():
            return Client(scheduler)
    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        return open_pool(scheduler=scheduler).client
    except PoolError as err:
        raise CspError(str(err), file="csp2sat", exit=Exit.USAGE) from None


class _Pool:
    """Executors (local processes or a Dask cluster) plus what their tasks need to find the problem.

    Locally each worker is an executor of one process, so that a task can be sent to the worker whose
    solver already holds its items (`submit`'s `worker`); a Dask cluster places tasks itself.
    """

    def __init__(self, payload: bytes, jobs: int, scheduler: str | None, method: str = "cubes") -> None:
        self.token = uuid.uuid4().hex
        self.method = method
        self.client = None
        if scheduler is None:
            import multiprocessing

            # "spawn" needs no fork of a process that may hold solver threads; the payload travels once per worker.
            context = multiprocessing.get_context("spawn")
            self.executors: list[cf.Executor] = [
                cf.ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_init_local_worker, initargs=(payload,))
                for _ in range(jobs)
            ]
            self.payload_ref: Any = None
        else:
            self.client = connect(scheduler)
            self.payload_ref = self.client.scatter(payload, broadcast=True)
            self.executors = [self.client.get_executor(pure=False)]

    def submit(self, worker: int, items: list[Item], budget: float, keep: bool, limit: int | None) -> cf.Future:
        """Run `run_cubes` on `items`: locally on worker number `worker`, on Dask wherever the cluster chooses."""
        executor = self.executors[worker % len(self.executors)]
        if self.client is not None:
            return executor.submit(run_cubes, self.token, self.payload_ref, items, budget, keep, limit, self.method)
        with _stops_held():  # a local submit may spawn a worker
            return executor.submit(run_cubes, self.token, self.payload_ref, items, budget, keep, limit, self.method)

    def close(self) -> None:
        if self.client is not None:
            from csp2sat.batch import dask_loop_guard

            with dask_loop_guard():
                self.client.close()
        else:
            for executor in self.executors:
                executor.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Stop at once (time-out, Ctrl-C): local workers are terminated, even those still starting up.

        A worker that is still being spawned when its parent shuts the pool down
        would otherwise print a traceback (its start-up semaphore is gone).
        """
        if self.client is None:
            for executor in self.executors:
                kill_workers(executor)
        self.close()


def kill_workers(executor: cf.ProcessPoolExecutor) -> None:
    """SIGKILL a local executor's processes (a worker still starting up has SIGTERM blocked), so that it can shut down.

    A worker killed while writing a result leaves part of a message in the result pipe. As long as the
    parent holds a writing end of that pipe too, the executor's manager thread waits for the rest of the
    message for ever, and `shutdown(wait=True)` with it (CPython 3.11: `solve --all -j 2 --timeout 4`
    hung in a loaded test run until its watchdog killed it). Without the parent's copy the read ends at
    the last worker's death, and the executor sees its workers broken.
    """
    writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if writer is not None:
        try:
            writer.close()
        except OSError:
            pass
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        process.kill()


def parallel_enumerate(
    compiled: Any,
    model: Any,
    jobs: int,
    *,
    scheduler: Any = None,
    limit: int | None = None,
    keep_answers: bool = True,
    solver: str = DEFAULT_SOLVER,
    verify: bool | str = True,
    names: Sequence[str] | None = None,
    budget: float = 1.0,
    stats: ParallelStats | None = None,
) -> Iterator[list[Answer] | int]:
    """Enumerate the answers of a compiled model on `jobs` workers; yields batches as tasks end.

    Batches are lists of answers (`keep_answers`) or numbers of answers. With
    an objective, only optimal answers (the optimum is found here first).
    `scheduler`: None for local processes, a Dask address (or a
    `distributed` cluster object) otherwise. At most `limit` answers in all.
    """
    from csp2sat.enumerate import CompiledSpace, enumeration_settings, open_space, propagate_settings

    stats = stats if stats is not None else ParallelStats()
    with open_space(compiled, model, solver, verify=False, names=names) as space:
        if space._unsat:
            return
        units = list(space.fixed_units)
        stats.optimum = space.optimum
    method, mode = enumeration_settings(compiled, model)
    splitter = CompiledSpace(compiled, model, False, names)
    method, solver = propagate_settings(method, splitter, solver)
    if method == "split":  # the workers' cubes are split by values already
        method = "blocking"
    payload = pickle.dumps((compiled, model, names, units, solver, verify, mode), protocol=pickle.HIGHEST_PROTOCOL)
    pool = _Pool(payload, jobs, scheduler, method)
    # Each worker's own items: what it leaves unfinished comes back to it, whose solver holds the item's blocking
    # clauses and what it learnt there; an idle worker without items takes some of another's (`_share`).
    queues: list[deque[Item]] = [deque() for _ in range(jobs)]
    queues[0].append(([], [], 0))
    running: dict[cf.Future, int] = {}
    total = 0
    # Cubes: the first task is short, its leftover cubes are what the other workers start from. Blocking
    # splits the space by values of the printed variables instead (a blocking search leaves one item).
    task_budget = min(budget, 0.2) if method in ("cubes", "propagate") else budget
    aborted = False
    try:
        while running or any(queues):
            idle = [k for k in range(jobs) if k not in running.values()]
            _share(queues, idle, splitter if method == "blocking" else None, 4 * jobs)
            for k in idle:
                if queues[k]:
                    running[pool.submit(k, list(queues[k]), task_budget, keep_answers, _left(limit, total))] = k
                    queues[k].clear()
                    stats.tasks += 1
            done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            task_budget = budget
            for future in done:
                worker = running.pop(future)
                result: CubeResult = future.result()
                stats.sat_calls += result.calls
                stats.worker_cpu_s += result.cpu_s
                stats.checked += result.checked
                queues[worker].extend(result.leftover)
                if limit is not None:
                    room = limit - total
                    result.count = min(result.count, room)
                    if result.answers is not None:
                        result.answers = result.answers[:room]
                total += result.count
                if result.count:
                    yield result.answers if keep_answers else result.count
                if limit is not None and total >= limit:
                    for other in running:
                        other.cancel()
                    return
    except BaseException:  # interrupted, or the caller stopped reading: no task is worth waiting for
        aborted = True
        pool.abort()
        raise
    finally:
        if not aborted:
            pool.close()


def _share(queues: list[deque[Item]], idle: list[int], splitter: Any, parts: int) -> None:
    """Give each idle worker without items some of the longest queue's: every other item, the first staying.

    The first item of a queue may be one its worker stopped in (its blocking clauses live there), the
    others are not started yet. A queue of one item is split by values first when `splitter` is given
    (blocking; `_split_items` into `parts`), so that its worker and the idle one each get half the parts.
    """
    for k in idle:
        if queues[k]:
            continue
        longest = max(range(len(queues)), key=lambda j: len(queues[j]))
        if len(queues[longest]) == 1 and splitter is not None:
            _split_items(splitter, queues[longest], parts)
        if len(queues[longest]) < 2:
            return
        items = list(queues[longest])
        queues[longest] = deque(items[0::2])
        queues[k] = deque(items[1::2])


def _split_items(space: Any, pending: deque[Item], parts: int) -> None:
    """Replace the first pending item by its value split on the next printed variables (`split_by_values`).

    Each blocked answer goes to the part it lies in (the part's new literals are
    among its answer literals, both being `value_literals`): a clause blocking an
    answer outside a part's cube would only repeat what the cube says, and each
    worker would carry every answer of the split item.
    """
    from csp2sat.enumerate import split_by_values

    cube, blocked, depth = pending.popleft()
    parts_cubes, depth = split_by_values(space, parts, cube, depth)
    if len(parts_cubes) == 1:  # nothing left to split on
        pending.appendleft((cube, blocked, depth))
        return
    for part in reversed(parts_cubes):
        new = part[len(cube):]
        mine = [list(b) for b in blocked if set(new) <= set(b)]
        pending.appendleft((part, mine, depth))


def _left(limit: int | None, total: int) -> int | None:
    return None if limit is None else limit - total


def parallel_count(compiled: Any, model: Any, jobs: int, **options: Any) -> int:
    """The number of answers, counted on `jobs` workers (options as for `parallel_enumerate`)."""
    return sum(parallel_enumerate(compiled, model, jobs, keep_answers=False, **options))


# ---------------------------------------------------------------- portfolio


def portfolio_solvers(jobs: int, first: str = DEFAULT_SOLVER, decision: bool = False) -> list[str]:
    """The solver of each portfolio worker: `first` ("auto": `DEFAULT_SOLVER`), then the others of `PORTFOLIO`.

    `decision` (no objective): after Glucose comes MiniSat 2.2 (`DECISION_PARTNER`), then the rest.
    """
    first = without_auto(first)
    ranked = PORTFOLIO
    if decision and first == DECISION_SOLVER:
        ranked = (DECISION_PARTNER,) + tuple(name for name in PORTFOLIO if name != DECISION_PARTNER)
    names = [first] + [name for name in ranked if name != first]
    return [names[k % len(names)] for k in range(jobs)]


def first_racer(first: str, model: Any, compiled: Any) -> str:
    """The portfolio's first solver: `first`, or for "auto" what plain solving would use (`choose_solver`).

    Two racers are then that one and CaDiCaL or Glucose (the pair `PORTFOLIO` starts with), MiniSat
    and CaDiCaL for a placement alldifferent, and Glucose and MiniSat where `auto` gives a problem
    without an objective to Glucose (`portfolio_solvers`' `decision`).
    """
    return choose_solver(model, compiled) if first == AUTO_SOLVER else first


def portfolio_racers(jobs: int, first: str, model: Any, compiled: Any) -> list[str]:
    """The solvers `jobs` racers run on this problem (locally or on Dask): `first_racer`, then
    `portfolio_solvers`' order for a problem with or without an objective."""
    return portfolio_solvers(jobs, first_racer(first, model, compiled), decision=model.objective is None)


def objective_rank(model: Any) -> Callable[[int], int]:
    """Rank of an objective value among the objective variable's declared values, best first (0 = best).

    Portfolio racers report answers and bounds as ranks so that minimising and maximising compare
    the same way; counted over the declared domain, so that every CNF of the problem ranks alike
    (the first one, built for the best values only when that pays, and each racer's re-encodings).
    Without an objective every answer has rank 0.
    """
    if model.objective is None:
        return lambda value: 0
    return _Ranks(model)


class _Ranks:
    """`objective_rank` of a model with an objective: rank of a value (the call) and value of a rank
    (`value`), counted over the declared domain's intervals without listing its values."""

    def __init__(self, model: Any) -> None:
        self.domain = model.int_vars[model.objective.var].domain
        self.minimise = model.objective.sense == "minimize"
        self.size = self.domain.size

    def __call__(self, value: int) -> int:
        if self.minimise:
            return self.domain.count_below(value)
        return self.size - self.domain.count_below(value + 1)  # the values above it

    def value(self, rank: int) -> int:
        """The value of `rank` (0 <= rank < `size`)."""
        return self.domain.nth(rank if self.minimise else self.size - 1 - rank)


def race(model: Any, compiled: Any, solver_name: str, verify: bool, board: Any) -> None:
    """One racer: `Search.run` as plain solving runs it, with the bounds shared through `board`; the end goes to `board`.

    Ranks index the objective's declared values, best first (`objective_rank`). `board.best()`: rank
    of the best answer anyone has found; `board.proven()`: no answer has a rank
    below it; `board.offer(rank, values, shown)` publishes an answer if it
    improves on `best()`; `board.prove(rank)` raises the proven bound;
    `board.end(kind, detail)`: unsat, sat (the answer), optimum (its rank) or error.
    Each racer thus runs the objective search of plain solving (budgeted probes, re-encoding
    for the values still open), skipping what the others have found or refuted.
    Used by the local portfolio (shared memory) and on Dask (csp2sat.dask_portfolio).
    """
    from csp2sat.solver import Search

    try:
        search = Search(model, compiled, solver=solver_name, verify=verify)
        objective = model.objective
        if objective is None:
            result = search.run()
            if result.status == UNSATISFIABLE:
                board.end("unsat", None)
            else:
                board.end("sat", result.all_values)
            return
        rank = objective_rank(model)

        def report(values: dict, shown: tuple) -> None:
            board.offer(rank(values[objective.var]), values, shown)

        result = search.run(on_answer=report, shared=_RankedBounds(board, rank))
        if result.status == UNSATISFIABLE:
            board.end("unsat", None)
            return
        board.end("optimum", min(rank(result.objective), board.best()))
    except Exception as err:  # reported, never silent: the coordinator shows it if nobody else succeeds
        board.end("error", repr(err))


class _RankedBounds:
    """`csp2sat.solver.SharedBounds` over a board that keeps ranks (see `race`)."""

    def __init__(self, board: Any, ranks: "_Ranks") -> None:
        self.board, self.ranks = board, ranks

    def narrow(self, open_values: Any) -> Any:
        lo, top = self.board.proven(), min(self.board.best(), self.ranks.size)  # the open ranks: lo .. top - 1
        if lo >= top:
            return open_values.within(1, 0)  # nothing is open
        best, worst = self.ranks.value(lo), self.ranks.value(top - 1)
        return open_values.within(min(best, worst), max(best, worst))

    def refuted(self, target: int) -> None:
        self.board.prove(self.ranks(target) + 1)


class _SharedMemoryBoard:
    """The local racers' bounds: two shared integers; answers and ends go to the coordinator's queue."""

    def __init__(self, index: int, queue: Any, best_rank: Any, proven: Any) -> None:
        self.index, self.queue, self.best_rank, self.proven_rank = index, queue, best_rank, proven

    def best(self) -> int:
        return self.best_rank.value

    def proven(self) -> int:
        with self.proven_rank.get_lock():
            return self.proven_rank.value

    def offer(self, rank: int, values: dict, shown: tuple) -> None:
        with self.best_rank.get_lock():
            if rank < self.best_rank.value:
                self.best_rank.value = rank
                self.queue.put(("answer", self.index, values, shown))

    def prove(self, rank: int) -> None:
        with self.proven_rank.get_lock():
            self.proven_rank.value = max(self.proven_rank.value, rank)

    def end(self, kind: str, detail: Any) -> None:
        self.queue.put((kind, self.index, detail if kind in ("sat", "error") else None, None))


def _portfolio_worker(payload: bytes, solver_name: str, index: int, queue: Any, best_rank: Any, proven: Any) -> None:
    """A local racer process (see `race`)."""
    _die_with_parent()
    _worker_takes_stops()  # started under `_stops_held` (`portfolio_solve`)
    model, compiled, verify = pickle.loads(payload)
    race(model, compiled, solver_name, verify, _SharedMemoryBoard(index, queue, best_rank, proven))


@dataclass
class PortfolioResult:
    """Status (Sugar's word), the winning solver and the answer (the best one with an objective)."""

    status: str
    winner: str | None
    values: dict | None = None
    objective: int | None = None
    proven: bool = True
    errors: list[str] = field(default_factory=list)

    def take_proof(self, winner: str, kind: str, values: Any, on_answer: Callable[[dict, tuple], None] | None) -> None:
        """Record the first proof: `unsat`, `sat` (with its answer, shown through `on_answer`) or `optimum`.

        For `optimum` only the winner is recorded here: the status follows once the answer it
        rests on is known (each portfolio knows when that is).
        """
        self.winner, self.proven = winner, True
        if kind == "unsat":
            self.status = UNSATISFIABLE
        elif kind == "sat":
            self.status, self.values = SATISFIABLE, values
            if on_answer:
                on_answer(values, ())


def portfolio_solve(
    model: Any,
    compiled: Any,
    jobs: int,
    *,
    first: str = DEFAULT_SOLVER,
    timeout: float | None = None,
    verify: bool = True,
    on_answer: Callable[[dict, tuple], None] | None = None,
) -> PortfolioResult:
    """Race `jobs` solvers (`portfolio_solvers`) on the compiled model; the first proof wins (see module doc).

    `on_answer(values, objective_values)` sees every improving answer (with an
    objective) or the single answer, in the coordinator process.
    """
    import multiprocessing
    import queue as queues

    from csp2sat.solver import OPTIMUM, SATISFIABLE, UNKNOWN, UNSATISFIABLE

    context = multiprocessing.get_context("spawn")
    payload = pickle.dumps((model, compiled, verify), protocol=pickle.HIGHEST_PROTOCOL)
    results = context.Queue()
    best_rank = context.Value("q", 1 << 62)
    proven = context.Value("q", 0)
    names = portfolio_racers(jobs, first, model, compiled)
    workers = [
        context.Process(target=_portfolio_worker, args=(payload, name, k, results, best_rank, proven), daemon=True)
        for k, name in enumerate(names)
    ]
    deadline = None if timeout is None else time.monotonic() + timeout
    outcome = PortfolioResult(UNKNOWN, None, proven=False)
    rank_of = objective_rank(model)
    best = 1 << 62  # rank of the best answer received
    failed = 0
    finished = False  # a proof arrived; with an objective, wait for the answer it rests on
    ended: set[int] = set()  # racers whose last message arrived
    dead: set[int] = set()  # racers found exited without one (a crash, a kill): failed at the next quiet moment
    try:
        with _stops_held():
            for worker in workers:
                worker.start()
        while failed < len(workers):
            if finished and (model.objective is None or best <= best_rank.value):
                break
            wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if wait <= 0:
                break  # time is up: keep the best answer, unproven
            try:
                kind, index, values, shown = results.get(timeout=wait)
            except queues.Empty:
                for k in dead - ended:  # exited one quiet period ago and still nothing: it sent no verdict
                    outcome.errors.append(f"{names[k]}: racer process ended with status {workers[k].exitcode}")
                    ended.add(k)
                    failed += 1
                dead = {k for k, worker in enumerate(workers) if k not in ended and worker.exitcode is not None}
                continue
            if kind != "answer":
                ended.add(index)
            if kind == "answer":
                rank = rank_of(values[model.objective.var])
                if rank >= best:  # answers from different workers may arrive out of order
                    continue
                best = rank
                outcome.values, outcome.winner = values, names[index]
                outcome.objective = values[model.objective.var]
                if outcome.status == UNKNOWN:
                    outcome.status = SATISFIABLE
                if on_answer:
                    on_answer(values, shown)
                continue
            if kind == "error":
                outcome.errors.append(f"{names[index]}: {values}")
                failed += 1
                continue
            finished = True
            outcome.take_proof(names[index], kind, values, on_answer)
            if kind == "optimum":
                outcome.status = OPTIMUM
    finally:
        # SIGKILL: a racer still unpickling its data has SIGTERM blocked, and must not outlive us either (its
        # queue's semaphores are unlinked when we exit).
        started = [worker for worker in workers if worker.pid is not None]
        for worker in started:
            if worker.is_alive():
                worker.kill()
        for worker in started:
            worker.join()
    return outcome


def default_jobs() -> int:
    """The number of usable cores."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
