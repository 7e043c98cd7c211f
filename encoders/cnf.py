"""Pipeline stage "encode": the one CNF variable pool and the flat clause buffer every encoder writes to.

Clauses are stored as one `array('i')` of literals with a 0 after each clause
(the DIMACS layout): 4 bytes per literal and no Python object per clause, so
millions of clauses fit in memory and are written quickly.
"""

from __future__ import annotations

import signal
import sys
import threading
from array import array
from types import ModuleType
from typing import Any, Iterable, Iterator


_NUMPY: ModuleType | None = None  # set once numpy_module's import is complete


def numpy_module() -> ModuleType:
    """numpy, imported on first use with SIGINT and SIGTERM held back until the import is done.

    Only large formulas need numpy, and importing it costs a small run a third of its time
    (its OpenBLAS starts threads: ~0.1 s wall, ~0.15 s CPU). But a KeyboardInterrupt (Ctrl-C,
    the time limit's SIGINT) landing inside its first import would leave it half-initialised
    for the rest of the process (seen: numpy without `matrix`, every later call failing). So the
    signals are blocked meanwhile: one that arrives is delivered as the import ends.
    The module is taken from `sys.modules` only through `import`: while another thread is still
    importing it, `sys.modules` already holds it half-initialised, and `import` waits for the end.
    """
    global _NUMPY
    if _NUMPY is not None:
        return _NUMPY
    hold = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
    if hold:
        saved = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        import numpy
    finally:
        if hold:
            signal.pthread_sigmask(signal.SIG_SETMASK, saved)
    _NUMPY = numpy
    return numpy


class Pool:
    """Hands out CNF variables 1, 2, 3, ...; `top` is the largest one in use."""

    __slots__ = ("top",)

    def __init__(self, top: int = 0) -> None:
        self.top = top

    def new(self) -> int:
        """One fresh variable."""
        self.top += 1
        return self.top

    def block(self, n: int) -> int:
        """`n` consecutive fresh variables; returns the first."""
        first = self.top + 1
        self.top += n
        return first


# Literals converted to Python objects at a time when iterating over a buffer (smaller buffers: at once).
CHUNK = 1 << 20


# Shorter runs of clauses of one length are cut from the chunk's list one by one (numpy's own
# per-call cost would be more than it saves).
MIN_RUN = 16
# Rows of a run turned into lists at once: few enough that the lists alive together stay small
# (all of a chunk's at once added ~90 MB to the peak of loading the families' big CNFs).
ROWS = 4096


def _chunk_clauses(np: ModuleType, flat: Any, ends: Any) -> Iterator[list[int]]:
    """The clauses of one chunk of the buffer (`flat`, a copy; `ends`: the positions of its 0s) as lists, in order.

    A run of clauses of one length becomes a matrix whose rows numpy turns into
    lists a block at a time: most of a big CNF is long runs of binary or ternary
    clauses, and per clause this is about twice as fast as cutting a flat list in
    Python (see docs/performance.md, "Loading into the solver"). The clauses between
    two long runs (short runs, alternating lengths) are cut from one list together.
    """
    count = len(ends)
    begins = np.empty(count, dtype=np.int64)
    begins[0] = 0
    begins[1:] = ends[:-1] + 1
    lengths = ends - begins
    cuts = np.flatnonzero(lengths[1:] != lengths[:-1]) + 1
    firsts = np.concatenate(([0], cuts))
    stops = np.concatenate((cuts, [count]))
    long_runs = np.flatnonzero(stops - firsts >= MIN_RUN)
    done = 0  # clauses before this one have been yielded
    for first, stop in zip(firsts[long_runs].tolist(), stops[long_runs].tolist()):
        if done < first:
            yield from _cut(flat, begins, ends, done, first)
        offset = int(begins[first])
        width = int(lengths[first]) + 1
        rows = flat[offset: offset + (stop - first) * width].reshape(stop - first, width)[:, : width - 1]
        for block in range(0, stop - first, ROWS):
            yield from rows[block: block + ROWS].tolist()
        done = stop
    if done < count:
        yield from _cut(flat, begins, ends, done, count)


def _cut(flat: Any, begins: Any, ends: Any, first: int, stop: int) -> Iterator[list[int]]:
    """Clauses first..stop-1 of a chunk, cut one by one from one list of their literals."""
    offset = int(begins[first])
    values = flat[offset: int(ends[stop - 1])].tolist()
    starts = (begins[first:stop] - offset).tolist()
    finals = (ends[first:stop] - offset).tolist()
    return map(values.__getitem__, map(slice, starts, finals))


def clause_chunks(lits: array) -> Iterator[tuple[Any, Any]]:
    """A flat clause buffer a chunk of about `CHUNK` literals at a time: (a numpy copy of it, the positions of its 0s).

    Each chunk ends with a whole clause (a clause longer than `CHUNK` gets a chunk of its own).
    Copies, and the view of the buffer released before yielding: a live view would forbid
    appending clauses while the caller works.
    """
    np = numpy_module()
    total = len(lits)
    start = 0
    while start < total:
        size = CHUNK
        while True:
            stop = min(start + size, total)
            flat = np.frombuffer(lits, dtype=np.int32, count=stop - start, offset=4 * start)
            ends = np.flatnonzero(flat == 0)
            if len(ends) or stop == total:
                break
            size *= 2
        if not len(ends):
            raise ValueError("clause buffer does not end with 0")
        chunk = flat[: int(ends[-1]) + 1].copy()
        del flat
        start += len(chunk)
        yield chunk, ends


class ClauseBuffer:
    """Clauses as a flat array of literals, each clause terminated by 0."""

    __slots__ = ("lits", "count")

    def __init__(self) -> None:
        self.lits = array("i")
        self.count = 0

    def add(self, clause: Iterable[int]) -> None:
        """Append one clause (an empty clause makes the formula unsatisfiable)."""
        self.lits.extend(clause)
        self.lits.append(0)
        self.count += 1

    def __iter__(self) -> Iterator[list[int]]:
        # Converted to Python lists a chunk at a time: the whole buffer as Python ints
        # would take ~9 times its own size (the peak memory of loading used to be there).
        lits = self.lits
        total = len(lits)
        if total <= CHUNK and "numpy" not in sys.modules:
            # Small formulas without numpy: its import costs more than a small problem's whole run.
            values = lits.tolist()
            begin = 0
            for end, lit in enumerate(values):
                if lit == 0:
                    yield values[begin:end]
                    begin = end + 1
            return
        np = numpy_module()
        for chunk, ends in clause_chunks(lits):
            yield from _chunk_clauses(np, chunk, ends)

    def __len__(self) -> int:
        return self.count
