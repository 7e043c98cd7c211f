"""The solver portfolio on a Dask cluster (``solve --jobs N --scheduler ADDRESS``): N racers, first proof wins.

Each racer is one Dask task (`run_racer`) that runs `csp2sat.parallel.race` in a
*racer process* of its own (``python -m csp2sat.dask_portfolio``) and relays between
that process and the cluster. Why a process and not the worker's thread: a SAT call
cannot be stopped from Python with every solver (CaDiCaL holds the GIL while it
searches, lingeling has no interruptible call), and Dask cannot stop a running task;
killing the racer process stops the search for sure, and a solver crash ends that
process only.

Shared state, and why this way. The coordinator (`portfolio_solve_on_dask`, in the
`solve` command) is its only writer. Racers send their answers, proven bounds and ends
through one Dask `Queue`; the coordinator prints the improving answers in order and
publishes ``(stop, best rank, proven rank)`` in one Dask `Variable`, which every task
reads every `POLL_S` seconds and passes on to its racer (read between SAT calls, as the
local portfolio reads its shared memory). A single writer needs no lock or
compare-and-set across machines (Dask offers neither cheaply), one Variable costs one
small round trip per poll, and a racer that Dask restarts on another worker (its worker
died) starts from the bounds known so far. The coordinator also proves the optimum
itself when one racer's proven bound meets another's answer.

Stopping. After a proof, a time-out, Ctrl-C or SIGTERM the coordinator publishes
stop and cancels the tasks; each task kills its racer process within `POLL_S` and
returns. A task whose client vanished (killed) sees its own task released by the
scheduler and does the same, and a racer process dies with the worker thread that
started it (PR_SET_PDEATHSIG), so no search is left running on the cluster.
Lost workers: Dask reruns a task whose worker died (up to
``distributed.scheduler.allowed-failures`` times), then it fails with the error
reported; if the cluster has no worker left for `NO_WORKER_S` seconds, the search ends
with that error instead of waiting forever.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from typing import Any, Callable

POLL_S = 0.1  # how often a task reads the shared state and its racer's output
STOP_WAIT_S = 3.0  # how long the coordinator waits for the tasks to stop before cancelling them
STATE_TIMEOUT_S = 5.0  # a task that cannot read the shared state this long stops
NO_WORKER_S = 10.0  # how long the coordinator waits for a worker when the cluster has none
_STOPPED_STATES = ("cancelled", "released", "forgotten", "error")  # a worker's task no longer wanted


# ---------------------------------------------------------------- frames (pickles with a length) on pipes


def _frame(message: Any) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<I", len(data)) + data


class _FrameReader:
    """Whole frames from a non-blocking file descriptor; `closed` once the writer is gone."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.closed = fd, b"", False
        os.set_blocking(fd, False)

    def read(self) -> list[Any]:
        while not self.closed:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                self.closed = True
            self.buffer += chunk
        messages = []
        while len(self.buffer) >= 4:
            (size,) = struct.unpack("<I", self.buffer[:4])
            if len(self.buffer) < 4 + size:
                break
            messages.append(pickle.loads(self.buffer[4 : 4 + size]))
            self.buffer = self.buffer[4 + size :]
        return messages


# ---------------------------------------------------------------- the racer process


class _PipeBoard:
    """`race`'s bounds in a racer process: reads the published bounds from stdin, writes its own to stdout."""

    def __init__(self, reader: _FrameReader, out: Any) -> None:
        self.reader, self.out = reader, out
        self._best, self._proven = 1 << 62, 0

    def _refresh(self) -> None:
        for best, proven in self.reader.read():
            self._best, self._proven = min(self._best, best), max(self._proven, proven)

    def best(self) -> int:
        self._refresh()
        return self._best

    def proven(self) -> int:
        self._refresh()
        return self._proven

    def offer(self, rank: int, values: dict, shown: tuple) -> None:
        if rank < self.best():
            self._best = rank
            self._send(("answer", rank, values, shown))

    def prove(self, rank: int) -> None:
        if rank > self._proven:
            self._proven = rank
            self._send(("proven", rank, None, None))

    def end(self, kind: str, detail: Any) -> None:
        self._send((kind, detail if kind == "optimum" else None, detail if kind in ("sat", "error") else None, None))

    def _send(self, message: tuple) -> None:
        self.out.write(_frame(message))
        self.out.flush()


def _racer_main(solver_name: str, problem_path: str) -> None:
    """``python -m csp2sat.dask_portfolio SOLVER PROBLEM``: race on the pickled problem in the file PROBLEM."""
    from csp2sat.parallel import _die_with_parent, race

    _die_with_parent()
    with open(problem_path, "rb") as problem:
        model, compiled, verify = pickle.loads(problem.read())
    frames = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else prints goes to stderr, not into the frames
    board = _PipeBoard(_FrameReader(sys.stdin.fileno()), frames)
    race(model, compiled, solver_name, verify, board)


# ---------------------------------------------------------------- the task on a Dask worker


def run_racer(payload: bytes, solver_name: str, token: str) -> str:
    """A Dask task: run one racer process, relay its messages and the shared bounds until it ends or is stopped.

    Returns how it ended ("unsat", "sat", "optimum", "stopped"); raises when the racer
    process died without a verdict (the coordinator reports it).
    """
    from distributed import Queue, Variable, get_client, get_worker

    client = get_client()
    queue, state = Queue(f"{token}-queue", client=client), Variable(f"{token}-state", client=client)
    worker = get_worker()
    from distributed.worker import thread_state

    key = getattr(thread_state, "key", None)
    # The problem goes through a file, not the racer's stdin: a write of megabytes into a pipe
    # would block this thread (and so its polling of stop) until the racer had started and read it.
    with tempfile.NamedTemporaryFile(prefix="csp2sat-racer-", suffix=".pickle") as problem, \
            tempfile.TemporaryFile() as errors:
        problem.write(payload)
        problem.flush()
        racer = subprocess.Popen(
            [sys.executable, "-m", "csp2sat.dask_portfolio", solver_name, problem.name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
        )
        ending = None
        try:
            reader = _FrameReader(racer.stdout.fileno())
            sent = None
            while True:
                select.select([reader.fd], [], [], POLL_S)
                for message in reader.read():
                    queue.put(pickle.dumps((solver_name, *message), protocol=pickle.HIGHEST_PROTOCOL))
                    if message[0] in ("unsat", "sat", "optimum", "error"):
                        ending = message[0]
                if reader.closed:
                    break
                try:
                    stop, best, proven = state.get(timeout=STATE_TIMEOUT_S)
                except TimeoutError:  # deleted: the coordinator is done
                    stop = True
                if stop or not _wanted(worker, key):
                    ending = "stopped"
                    break
                if (best, proven) != sent:
                    try:
                        racer.stdin.write(_frame((best, proven)))
                        racer.stdin.flush()
                    except BrokenPipeError:  # it is ending; its last frames are still read above
                        pass
                    sent = (best, proven)
        finally:
            if racer.poll() is None:
                racer.kill()
            racer.wait()
            for pipe in (racer.stdin, racer.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
        if ending is None:
            errors.seek(0)
            tail = errors.read().decode(errors="replace").strip()[-1500:]
            raise RuntimeError(f"racer process ended with status {racer.returncode} without a verdict: {tail}")
    return ending


def _wanted(worker: Any, key: Any) -> bool:
    """False once the scheduler released this task (cancelled, or its client is gone)."""
    if key is None:  # Dask did not tell which task this is: rely on the published stop alone
        return True
    try:
        task = worker.state.tasks.get(key)
        return task is not None and task.state not in _STOPPED_STATES
    except Exception:  # Dask internals changed: rely on the published stop alone
        return True


# ---------------------------------------------------------------- the coordinator (the solve command)


def portfolio_solve_on_dask(
    model: Any,
    compiled: Any,
    jobs: int,
    scheduler: Any,
    *,
    first: str,
    timeout: float | None = None,
    verify: bool = True,
    on_answer: Callable[[dict, tuple], None] | None = None,
) -> Any:
    """Race `jobs` solvers on the Dask cluster at `scheduler` (an address or a cluster object).

    Same contract as `csp2sat.parallel.portfolio_solve`; raises
    `csp2sat.batch.PoolError` when the cluster cannot be reached or has no csp2sat.
    """
    from distributed import Queue, Variable

    from csp2sat.parallel import PortfolioResult, connect, objective_rank, portfolio_racers
    from csp2sat.solver import OPTIMUM, SATISFIABLE, UNKNOWN, UNSATISFIABLE

    names = portfolio_racers(jobs, first, model, compiled)
    client = connect(scheduler)
    token = f"csp2sat-portfolio-{uuid.uuid4().hex}"
    queue, state = Queue(f"{token}-queue", client=client), Variable(f"{token}-state", client=client)
    outcome = PortfolioResult(UNKNOWN, None, proven=False)
    best, proven = 1 << 62, 0  # the best rank received, the highest proven bound
    rank_of = objective_rank(model)
    futures: list[Any] = []
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        state.set((False, best, proven))
        payload = pickle.dumps((model, compiled, verify), protocol=pickle.HIGHEST_PROTOCOL)
        # The problem travels inside each task rather than scattered once: Dask keeps a task's
        # arguments on the scheduler, so it can rerun a racer whose worker died, while scattered
        # data held by that worker would be lost with it (costs N copies on the network).
        with warnings.catch_warnings():  # Dask's advice on large graphs is about data frames, not this
            warnings.filterwarnings("ignore", message="Sending large graph")
            futures = [
                client.submit(run_racer, payload, name, token, key=f"{token}-{k}-{name}", pure=False)
                for k, name in enumerate(names)
            ]
        ended: set[Any] = set()  # tasks that returned or failed
        published = (best, proven)
        no_worker_since = None
        last_check = 0.0
        while True:
            # Statuses first, messages second: a task puts its last message before it returns,
            # so when every task has ended, this drain holds everything they sent.
            for future in futures:
                if future.status == "error" and future not in ended:
                    outcome.errors.append(f"{future.key}: {future.exception()!r}")
                if future.status in ("error", "finished", "cancelled"):
                    ended.add(future)
            wait_s = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if wait_s <= 0:
                break  # time is up: keep the best answer, unproven
            # Polled without a time-out: a Dask queue's get that times out logs a traceback on the scheduler.
            messages = queue.get(batch=True)
            if not messages and len(ended) < len(futures):
                time.sleep(wait_s)
                messages = queue.get(batch=True)
            finished = False
            for raw in messages:
                solver_name, kind, rank, values, shown = pickle.loads(raw)
                if kind == "answer":
                    if rank >= best:  # answers from different racers may arrive out of order
                        continue
                    best = rank
                    outcome.values, outcome.winner = values, solver_name
                    outcome.objective = values[model.objective.var]
                    if outcome.status == UNKNOWN:
                        outcome.status = SATISFIABLE
                    if on_answer:
                        on_answer(values, shown)
                elif kind == "proven":
                    proven = max(proven, rank)
                elif kind == "error":
                    outcome.errors.append(f"{solver_name}: {values}")
                elif not finished:  # the first proof wins
                    finished = True
                    outcome.take_proof(solver_name, kind, values, on_answer)
                    if kind == "optimum":  # every answer it rests on came before it through the same queue
                        proven = max(proven, rank)
            if model.objective is not None and best < (1 << 62) and proven >= best:
                outcome.status, outcome.proven, finished = OPTIMUM, True, True
                if outcome.winner is None:
                    outcome.winner = "(shared bounds)"
            if finished or len(ended) == len(futures):
                break
            if (best, proven) != published:
                state.set((False, best, proven))
                published = (best, proven)
            now = time.monotonic()
            if now - last_check >= 1.0:  # a cluster without workers would leave the tasks waiting forever
                last_check = now
                if client.scheduler_info().get("workers"):
                    no_worker_since = None
                elif no_worker_since is None:
                    no_worker_since = now
                elif now - no_worker_since >= NO_WORKER_S:
                    outcome.errors.append(f"the Dask cluster has had no worker for {NO_WORKER_S:.0f} s")
                    break
    finally:
        _stop(client, state, queue, futures)
    return outcome


def _stop(client: Any, state: Any, queue: Any, futures: list[Any]) -> None:
    """Publish stop, give the tasks a moment to kill their racer processes and return, then cancel what is left.

    Waiting before cancelling means that when `solve` ends, the racers have stopped
    (cancelling first would only make Dask forget the tasks, not stop them).
    """
    from distributed import wait

    from csp2sat.batch import dask_loop_guard

    try:
        state.set((True, 1 << 62, 0))
        if futures:
            try:
                wait(futures, timeout=STOP_WAIT_S)
            except Exception:  # a task slow to notice: cancelled below, and it then sees its task released
                pass
            client.cancel(futures)
        state.delete()
        queue.close()  # the scheduler forgets it (and what a late racer put in it)
    except Exception:  # the cluster may be gone already; nothing is left to stop then
        pass
    finally:
        with dask_loop_guard():
            client.close()


if __name__ == "__main__":
    _racer_main(sys.argv[1], sys.argv[2])
