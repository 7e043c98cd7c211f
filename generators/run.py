"""The whole puzzle pipeline in one call: generate -> parse -> compile -> solve -> decode (and uniqueness).

Used by the ``csp2sat puzzle`` command, the genre tests and the puzzle
benchmark, so that all three time and check exactly the same steps. The
uniqueness check solves again with the answer's *puzzle* variables excluded:
those are the variables the genre's decoder reads (recorded while it reads
them), so two solutions that differ only in auxiliary numbering (``z``, ``p``,
...) are the same answer. A genre whose puzzle variables carry more than the
answer (Hashiwokakero's bridge directions) defines ``exclude(puzzle, solution)``
in its module: a Sugar constraint that excludes the answer, solved afresh; and
``fact_view(puzzle)``: extra Sugar lines defining the variables that carry the
answer, and their names, for forced-value queries.

Facts (``facts=True``): for each puzzle variable, the value it takes in every
solution, or None where solutions differ (`csp2sat.enumerate`'s refutation
loop over the same puzzle variables): the cells the clues force.

Every answer is checked by the independent evaluator before it is decoded.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from csp2sat.generators.base import Genre, PuzzleError

from csp2sat.solver import DEFAULT_SOLVER, interrupt_handled, is_interrupt, new_solver, verify_answer


class RecordingValues(Mapping[str, "int | bool"]):
    """A read-only view of solution values that remembers which names were looked up."""

    def __init__(self, values: Mapping[str, "int | bool"]) -> None:
        self._values = values
        self.used: dict[str, int | bool] = {}

    def __getitem__(self, name: str) -> "int | bool":
        value = self._values[name]
        self.used[name] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


@dataclass
class PuzzleRun:
    """The outcome of solving one puzzle: the CSP text, the solution (None if unsolvable) and stage times."""

    csp: str
    solution: Any = None
    values: dict[str, "int | bool"] | None = None
    unique: bool | None = None  # None: not asked (or no solution)
    facts: dict[str, "int | bool | None"] | None = None  # None: not asked (or no solution)
    times: dict[str, float] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False  # a time-out or signal stopped the --unique/--facts work after the solution was found


def solve_puzzle(genre: Genre, puzzle: Any, unique: bool = False, solver: str = DEFAULT_SOLVER,
                 file: str = "<puzzle>", facts: bool = False) -> PuzzleRun:
    """Generate the CSP of `puzzle`, solve it and decode the answer; with `unique`, look for a second answer.

    With `facts`, also find which puzzle variables every solution agrees on
    (`PuzzleRun.facts`). Times (seconds) are recorded under ``generate``,
    ``compile`` (parse, check and compile to CNF), ``solve``, ``unique`` and ``facts``.
    """
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.parser import parse_text

    t0 = time.perf_counter()
    csp = genre.generate(puzzle)
    t1 = time.perf_counter()
    model = check(parse_text(csp, file=file))
    compiled = compile_model(model)
    t2 = time.perf_counter()
    run = PuzzleRun(csp, times={"generate": t1 - t0, "compile": t2 - t1})
    run.stats = {"cnf_vars": compiled.num_vars, "cnf_clauses": compiled.num_clauses}
    with new_solver(solver) as sat:
        compiled.load(sat)
        found = sat.solve()
        t3 = time.perf_counter()
        run.times["solve"] = t3 - t2
        if not found:
            return run
        run.values = compiled.decode(sat.get_model())
        verify_answer(model, run.values)
        recorder = RecordingValues(run.values)
        try:
            run.solution = genre.decode(puzzle, recorder)
        except PuzzleError as err:  # the generator and decoder disagree on names: our bug
            raise RuntimeError(f"{genre.name}: decoding our own answer failed: {err}") from err
        if unique:
            try:
                run.unique = _is_unique(genre, puzzle, run, sat, compiled, recorder, csp, file, solver)
            except (KeyboardInterrupt, Exception) as err:  # stopped: the solution stands, uniqueness is unknown
                if not is_interrupt(err):
                    raise
                interrupt_handled()
                run.interrupted = True
                return run
            run.times["unique"] = time.perf_counter() - t3
    if facts:
        try:
            _find_facts(genre, puzzle, run, compiled, model, recorder, csp, file, solver)
        except (KeyboardInterrupt, Exception) as err:
            if not is_interrupt(err):
                raise
            interrupt_handled()
            run.interrupted = True
    return run


def _is_unique(genre: Genre, puzzle: Any, run: PuzzleRun, sat: Any, compiled: Any, recorder: RecordingValues,
               csp: str, file: str, solver: str) -> bool:
    """Whether the solution found in `sat` is the only one (see the module doc)."""
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.parser import parse_text

    exclude = getattr(importlib.import_module(genre.generate.__module__), "exclude", None)
    if exclude is None:
        sat.add_clause(compiled.block_clause(recorder.used))
        return not sat.solve()
    other = compile_model(check(parse_text(csp + exclude(puzzle, run.solution) + "\n", file=file)))
    with new_solver(solver, bootstrap_with=other.clauses()) as second:
        return not second.solve()


def _find_facts(genre: Genre, puzzle: Any, run: PuzzleRun, compiled: Any, model: Any, recorder: RecordingValues,
                csp: str, file: str, solver: str) -> None:
    """Set `run.facts`: the value of each puzzle variable in every solution (None where they differ)."""
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space
    from csp2sat.parser import parse_text

    t4 = time.perf_counter()
    names = list(recorder.used)
    view = getattr(importlib.import_module(genre.generate.__module__), "fact_view", None)
    if view is not None:  # the genre's puzzle meaning lives in extra, derived variables
        extra, names = view(puzzle)
        model = check(parse_text(csp + extra, file=file))
        compiled = compile_model(model)
    with open_space(compiled, model, solver, names=names) as space:
        run.facts = space.facts()
    run.times["facts"] = time.perf_counter() - t4
