"""Task isolation for `csp2sat batch`: each task runs in a forked process with its own time and memory limit.

One long-lived *sandbox* process per worker thread (``python -m csp2sat.sandbox MODULE...``,
started on first use, with the solving pipeline already imported and warmed up) forks a
fresh child for every task. The child sets RLIMIT_AS (``--memory-limit``), runs the task and
sends its result back through a pipe, while the sandbox watches the clock: at the deadline it
sends SIGINT (the solvers stop cleanly there and keep the best answer found so far), and
`GRACE_S` later SIGKILL, so a solver that ignores the signal is stopped all the same. A
crash, a hang or an exhausted memory limit thus ends only that child; how it ended and its
peak memory (from ``wait4``) become the task's result, and the batch goes on.

Why not `multiprocessing`: Dask's worker processes are daemonic and may not start
multiprocessing children, forking a multi-threaded Dask worker is unsafe, and a fresh
interpreter per task spends ~0.8 s importing the pipeline. The sandbox process is
single-threaded, so forking it is safe, and a fork costs a few milliseconds.

Protocol, one JSON object per line. Request (sandbox stdin): ``{"call": "module:function",
"arg": ..., "timeout": seconds|null, "memory_mb": n|null}``. Reply (sandbox stdout):
``{"ok": true, "value": ..., "interrupted": bool}`` or ``{"ok": false, "failure":
"timeout"|"memory"|"crash"|"error", "error": text}``, both with ``peak_mb`` and ``wall_s``.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any

GRACE_S = 2.0  # after SIGINT at the deadline, how long a task may take to stop before SIGKILL
_TAIL_CHARS = 2000  # how much of a dead child's stderr is kept for the error message


# -- the worker side: one sandbox process per thread ---------------------------------------


class Sandbox:
    """A handle on one sandbox process; `run` sends it one task at a time (not thread-safe: one per thread)."""

    def __init__(self, preload: tuple[str, ...] = ()) -> None:
        self.preload = preload
        self.process: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        # Tasks run in parallel already: native libraries must not start thread pools of their own.
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(name, "1")
        return subprocess.Popen(
            [sys.executable, "-m", "csp2sat.sandbox", *self.preload],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C at the terminal reaches the batch driver only
            env=env,
        )

    def run(self, call: str, arg: Any, timeout: float | None, memory_mb: int | None) -> dict:
        """Run ``call(arg)`` in a fresh child of the sandbox and return the reply (see the module doc)."""
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        request = json.dumps({"call": call, "arg": arg, "timeout": timeout, "memory_mb": memory_mb}) + "\n"
        # The sandbox always answers by deadline + grace; the margin covers start-up and a busy machine.
        limit = None if timeout is None else timeout + GRACE_S + 60.0
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(request.encode())
            self.process.stdin.flush()
            line = _read_line(self.process.stdout.fileno(), limit)
        except (OSError, ValueError) as err:
            line = None
            reason = f"the sandbox process failed: {err}"
        else:
            reason = "the sandbox process died" if line is None else ""
        if line is None:  # the sandbox itself is gone or stuck: replace it, record the task as crashed
            self.close()
            return {"ok": False, "failure": "crash", "error": reason, "peak_mb": None, "wall_s": None}
        return json.loads(line)

    def close(self) -> None:
        """Stop the sandbox process (its running child gets SIGKILL through PR_SET_PDEATHSIG)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


def _read_line(fd: int, limit: float | None) -> bytes | None:
    """One line from `fd`, or None at end of file or after `limit` seconds."""
    deadline = None if limit is None else time.monotonic() + limit
    chunks: list[bytes] = []
    while True:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return None
        data = os.read(fd, 1 << 16)
        if not data:
            return None
        chunks.append(data)
        if data.endswith(b"\n"):
            return b"".join(chunks)


_local = threading.local()
_all: list[Sandbox] = []
_all_lock = threading.Lock()


def run_isolated(call: str, arg: Any, timeout: float | None = None, memory_mb: int | None = None,
                 preload: tuple[str, ...] = ()) -> dict:
    """Run ``call(arg)`` (``"module:function"``; JSON in and out) in this thread's sandbox; see the module doc."""
    sandbox = getattr(_local, "sandbox", None)
    if sandbox is None or sandbox.preload != preload:
        sandbox = _local.sandbox = Sandbox(preload)
        with _all_lock:
            _all.append(sandbox)
    return sandbox.run(call, arg, timeout, memory_mb)


def close_all() -> None:
    """Stop every sandbox this process started (on exit, and when a batch is interrupted)."""
    with _all_lock:
        sandboxes = list(_all)
    for sandbox in sandboxes:
        sandbox.close()


atexit.register(close_all)


# -- the sandbox process -------------------------------------------------------------------


def _set_parent_death_signal() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no orphaned solver keeps running)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the child still ends at its deadline
        pass


def _address_space() -> int:
    """This process's virtual memory size in bytes (what RLIMIT_AS limits); 0 where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _child(request: dict, result_fd: int, error_fd: int) -> None:
    """In the forked child: apply the memory limit, run the call, write the reply, exit."""
    _set_parent_death_signal()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the deadline arrives as KeyboardInterrupt
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(error_fd, 2)
    reply: dict
    try:
        memory_mb = request.get("memory_mb")
        if memory_mb:
            import resource

            # The budget is the task's own: on top of the address space the preloaded pipeline
            # already holds (about 170 MB, mostly mappings of numpy and the native solvers, which a
            # bare limit of that size would leave the task no room above)
            limit = _address_space() + int(float(memory_mb) * 1024 * 1024)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        module, _, name = request["call"].partition(":")
        function = getattr(importlib.import_module(module), name)
        reply = {"ok": True, "value": function(request["arg"])}
    except MemoryError:
        reply = {"ok": False, "failure": "memory", "error": "out of memory"}
    except KeyboardInterrupt:
        reply = {"ok": False, "failure": "timeout", "error": "stopped at the time limit"}
    except BaseException as err:  # noqa: BLE001 - any failure of the task is its result
        import traceback

        reply = {"ok": False, "failure": "error", "error": f"{type(err).__name__}: {err}",
                 "traceback": traceback.format_exc()[-_TAIL_CHARS:]}
    try:
        data = json.dumps(reply).encode()
    except (TypeError, ValueError) as err:
        data = json.dumps({"ok": False, "failure": "error", "error": f"result is not JSON: {err}"}).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(result_fd, view):]
    os._exit(0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def serve_one(request: dict, parent_fd: int | None = None) -> dict:
    """Fork a child for one request, enforce its deadline, and return its reply with peak memory and time.

    `parent_fd` is the pipe requests come from: if it closes meanwhile, the child is killed
    and this process exits.
    """
    result_r, result_w = os.pipe()
    error_r, error_w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which never returns
        os.close(result_r)
        os.close(error_r)
        try:
            _child(request, result_w, error_w)
        finally:
            os._exit(70)
    os.close(result_w)
    os.close(error_w)
    timeout = request.get("timeout")
    deadline = None if timeout is None else start + float(timeout)
    interrupted = killed = False
    result: list[bytes] = []
    errors = bytearray()
    open_fds = {result_r, error_r}
    watch = [] if parent_fd is None else [parent_fd]
    while open_fds:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            if not interrupted:
                interrupted, deadline = True, now + GRACE_S
                _kill(pid, signal.SIGINT)
            elif not killed:
                killed, deadline = True, now + GRACE_S  # pipes still open after this: a grandchild holds them
                _kill(pid, signal.SIGKILL)
            else:
                break
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select(list(open_fds) + watch, [], [], wait)
        if watch and parent_fd in ready:
            # Requests come one at a time, so the parent's pipe is readable now only at its end:
            # the batch is gone (killed or interrupted). Stop the task and leave.
            _kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(0)
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if not data:
                open_fds.discard(fd)
            elif fd == result_r:
                result.append(data)
            else:
                errors += data
                del errors[:-_TAIL_CHARS]
    for fd in (result_r, error_r):
        os.close(fd)
    if killed:
        _kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    peak_mb = round(usage.ru_maxrss / 1024.0, 1)  # ru_maxrss is in KiB on Linux
    wall_s = round(time.monotonic() - start, 4)
    reply = _decode_reply(b"".join(result))
    if reply is None:
        reply = _death_reply(status, killed or interrupted, request.get("memory_mb"), errors.decode(errors="replace"))
    elif reply.get("ok"):
        reply["interrupted"] = interrupted
    elif interrupted and reply.get("failure") == "error":  # e.g. PySAT's own exception for a caught SIGINT
        reply = {"ok": False, "failure": "timeout", "error": "stopped at the time limit"}
    reply["peak_mb"] = peak_mb
    reply["wall_s"] = wall_s
    return reply


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _decode_reply(data: bytes) -> dict | None:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


# Signals a process dies of when an allocation fails in C code that does not check for it.
_MEMORY_DEATHS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT})


def _death_reply(status: int, hit_deadline: bool, memory_mb: int | None, stderr: str) -> dict:
    """The reply for a child that died without answering."""
    if hit_deadline:
        return {"ok": False, "failure": "timeout", "error": "killed at the time limit"}
    if os.WIFSIGNALED(status):
        how = f"killed by {_signal_name(os.WTERMSIG(status))}"
    else:
        how = f"exited with status {os.WEXITSTATUS(status)} without a result"
    tail = stderr.strip().splitlines()[-3:]
    detail = f"{how}: {' | '.join(tail)}" if tail else how
    said = stderr.lower()  # glibc's loader says "cannot allocate memory for thread-local data", errno "Cannot allocate"
    if memory_mb and any(word in said for word in ("bad_alloc", "memoryerror", "out of memory", "cannot allocate")):
        return {"ok": False, "failure": "memory", "error": f"out of memory ({detail})"}
    if memory_mb and os.WIFSIGNALED(status) and os.WTERMSIG(status) in _MEMORY_DEATHS:
        # C code (a SAT solver, numpy) that gets NULL from malloc under RLIMIT_AS often dies this way without a
        # word; under a memory limit that is by far the likelier cause, and the record says it is a guess
        return {"ok": False, "failure": "memory", "error": f"out of memory, probably ({detail})"}
    return {"ok": False, "failure": "crash", "error": detail}


def main(preload: list[str]) -> None:
    """The sandbox process: import and warm up `preload`, then serve requests until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in preload:
        module = importlib.import_module(name)
        warm_up = getattr(module, "warm_up", None)
        if warm_up is not None:
            warm_up()
    stdout = sys.stdout.buffer
    while True:
        # Read from fd 0 directly (no buffer): while a task runs, select() on it must see its end.
        # A request is one line, and the next is sent only after the reply, so nothing is over-read.
        line = _read_line(0, None)
        if line is None:
            return
        if not line.strip():
            continue
        try:
            reply = serve_one(json.loads(line), parent_fd=0)
        except Exception as err:  # noqa: BLE001 - a broken request must not end the sandbox
            reply = {"ok": False, "failure": "crash", "error": f"sandbox: {type(err).__name__}: {err}",
                     "peak_mb": None, "wall_s": None}
        stdout.write(json.dumps(reply).encode() + b"\n")
        stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
