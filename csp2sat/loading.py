"""Pipeline stage "load": hands the clauses of a CNF to a PySAT solver, by PySAT's native call where it has one.

PySAT's `append_formula` makes two Python calls per clause (the `add_clause` of the
`Solver` wrapper's backend class, then the native `pysolvers.<name>_add_cl`). Here
the native call is mapped over the clauses in C, so a clause costs one native call
and the Python list it is passed as: loading magicSquare-8x8's 2 M clauses into
Glucose took 2.1-2.5 s with `append_formula` and 1.5-1.7 s this way (with
`ClauseBuffer`'s run-wise iteration), of which ~1.3 s is Glucose's own `addClause`.
Solvers PySAT wraps differently (CryptoMiniSat, csp2sat's `FreshSolver`) get
`append_formula`.
"""

from __future__ import annotations

from collections import deque
from itertools import repeat
from typing import Any, Callable, Iterable

from csp2sat._gc import gc_paused

# PySAT's backend classes: the attribute holding the native solver, and the native call that adds
# one clause. Each class's own `add_clause` is this call, plus `status = False` when it returns
# False (the formula is unsatisfiable at the root), which `load_clauses` does too.
NATIVE_ADD: dict[str, tuple[str, str]] = {
    "Cadical103": ("cadical", "cadical103_add_cl"),
    "Cadical153": ("cadical", "cadical153_add_cl"),
    "Cadical195": ("cadical", "cadical195_add_cl"),
    "Cadical300": ("cadical", "cadical300_add_cl"),
    "Gluecard3": ("gluecard", "gluecard3_add_cl"),
    "Gluecard4": ("gluecard", "gluecard41_add_cl"),
    "Glucose3": ("glucose", "glucose3_add_cl"),
    "Glucose4": ("glucose", "glucose41_add_cl"),
    "Glucose42": ("glucose", "glucose421_add_cl"),
    "Lingeling": ("lingeling", "lingeling_add_cl"),
    "MapleChrono": ("maplesat", "maplechrono_add_cl"),
    "MapleCM": ("maplesat", "maplecm_add_cl"),
    "Maplesat": ("maplesat", "maplesat_add_cl"),
    "Mergesat3": ("mergesat", "mergesat3_add_cl"),
    "Minicard": ("minicard", "minicard_add_cl"),
    "Minisat22": ("minisat", "minisat22_add_cl"),
    "MinisatGH": ("minisat", "minisatgh_add_cl"),
    "MinisatEP": ("minisat", "minisatep_add_cl"),
}


def native_adder(solver: Any) -> "tuple[Callable[[Any, list[int]], Any], Any, Any] | None":
    """(native add call, native solver, backend object) of a PySAT `Solver`, or None where PySAT has no such call."""
    backend = getattr(solver, "solver", None)
    entry = NATIVE_ADD.get(type(backend).__name__)
    if entry is None:
        return None
    handle = getattr(backend, entry[0], None)
    try:
        import pysolvers
    except ImportError:
        return None
    add = getattr(pysolvers, entry[1], None)
    if handle is None or add is None:
        return None
    return add, handle, backend


def load_clauses(solver: Any, clauses: Iterable[list[int]]) -> None:
    """Add every clause to `solver` (a PySAT `Solver`, or anything with `append_formula`)."""
    native = native_adder(solver)
    if native is None:
        solver.append_formula(clauses)
        return
    add, handle, backend = native
    with gc_paused():
        # A MiniSat-family solver answers False to every clause from the one that made it inconsistent on,
        # so the last answer tells.
        last = deque(map(add, repeat(handle), clauses), maxlen=1)
    if last and last[0] is False:
        backend.status = False
