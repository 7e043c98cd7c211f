"""Front end support (parser and checker): pause Python's cyclic garbage collector while building trees.

Parsing and checking allocate millions of small acyclic objects (nodes,
tuples, lists) and free almost none of them, so every automatic collection
scans a heap that only grows, for nothing: on a 5 MB file that is a third of
the parse time. Reference counting still frees everything that is dropped;
only the cycle detector waits until the block ends.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable automatic cyclic collection inside the block (re-enabled after it, if it was enabled)."""
    was_enabled = gc.isenabled()
    # Young garbage from before the block is collected now (cheap: the young generations are small), so
    # that the move below, which takes every object, does not leave it waiting for a full collection.
    gc.collect(1)
    gc.disable()
    try:
        yield
    finally:
        # What the block allocated is all in the youngest generation, far past its threshold: the first
        # allocation after `enable` would scan it whole (seconds after a 64 MB file, and, when a stop is
        # propagating, past the watchdog's repeated SIGINT). Moved to the oldest generation, it is scanned
        # only by the rare full collections. (`freeze` + `unfreeze` only relink the generation lists.)
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()
