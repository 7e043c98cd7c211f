"""The whole puzzle pipeline in one call: generate -> parse -> compile -> solve -> decode (and uniqueness).

Used by the ``csp2sat puzzle`` command, the genre tests and the puzzle
benchmark, so that all three time and check exactly the same steps. The
uniqueness check solves again with the answer's *puzzle* variables excluded:
those are the variables the genre's decoder reads (recorded while it reads
them). By the genres' convention (`generators.base`) they are exactly the
printed variables of the generated file, so ``puzzle --unique`` and
``solve --unique FILE.csp`` ask the same question. Where a symmetry of the
board turns the answer into another one (`Genre.images`, checked by the
genre's rule checker), that is the second answer and no search is needed.
Without facts or a count the text solved is `Genre.generate_one` where the genre
has one (symmetry breaking): it keeps an image of every solution, and a second
solution it drops is an image of the first, which `Genre.images` finds.

Counting (``count=True``): the distinct answers on the puzzle variables. Where the genre
has `Genre.generate_classes` (symmetric boards), the text counted keeps only the least
solution of every class that the board's symmetries turn into one another, and each
adds its class's size (itself and its distinct images, every one checked by the
genre's rules): one search per class instead of one per solution.

Facts (``facts=True``): for each puzzle variable, the value it takes in every
solution, or None where solutions differ (`csp2sat.enumerate`'s refutation
loop over the same puzzle variables): the cells the clues force.

Every answer is checked by the independent evaluator before it is decoded,
and the decoded solution by the genre's own rule checker (``Genre.check``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from csp2sat.generators.base import Genre, PuzzleError

from csp2sat.solver import (
    AUTO_SOLVER, DEFAULT_SOLVER, interrupt_handled, is_interrupt, new_solver, released, usable_solvers, verify_answer,
)


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
    count: int | None = None  # None: not asked; 0 when there is no solution; a lower bound when `interrupted`
    classes: int | None = None  # with `count` and `Genre.generate_classes`: the classes of solutions counted
    times: dict[str, float] = field(default_factory=dict)
    stats: dict[str, int | str] = field(default_factory=dict)
    interrupted: bool = False  # a time-out or signal stopped the --unique/--facts work after the solution was found
    unique_by_symmetry: bool = False  # the second answer is the first one's image under a symmetry (`Genre.images`)


def solve_puzzle(genre: Genre, puzzle: Any, unique: bool = False, solver: str = AUTO_SOLVER,
                 file: str = "<puzzle>", facts: bool = False, count: bool = False, jobs: int = 1,
                 progress: "Callable[[PuzzleRun], None] | None" = None) -> PuzzleRun:
    """Generate the CSP of `puzzle`, solve it and decode the answer; with `unique`, look for a second answer.

    With `facts`, also find which puzzle variables every solution agrees on
    (`PuzzleRun.facts`); with `count`, count the distinct answers, judged on the
    same puzzle variables (`PuzzleRun.count`), by classes of symmetric solutions where the genre
    has `Genre.generate_classes` (`PuzzleRun.classes`), on `jobs` worker processes when more than
    one (`csp2sat.parallel`); `progress(run)` is called after every answer counted. Times are recorded under
    ``generate``, ``compile`` (parse, check and compile to CNF), ``solve``,
    ``verify`` (decoding, the independent evaluator and the genre's rule check),
    ``unique``, ``facts`` and ``count``; ``parse`` (parse and check) is the part of
    ``compile`` before the CNF. `solver` ``auto`` is `Genre.solver` for one answer and `unique` where the
    genre has one, else `DEFAULT_SOLVER`; ``stats["solver"]`` names the one that searched.
    """
    from csp2sat.checker import check
    from csp2sat.compiler import compile_model
    from csp2sat.parser import parse_text

    t0 = time.perf_counter()
    by_classes = count and genre.generate_classes is not None and genre.images is not None
    if genre.generate_one is not None and not (facts or count):
        csp = genre.generate_one(puzzle)
    elif by_classes and not facts:  # the first solution, and the count, from the text of classes
        csp = genre.generate_classes(puzzle)
    else:
        csp = genre.generate(puzzle)
    t1 = time.perf_counter()
    # messages about its lines (the memory limit names costly constraints) must not point into the puzzle file;
    # `csp2sat gen` writes the same text, where those lines are
    csp_name = f"{file} (generated CSP)"
    model = check(parse_text(csp, file=csp_name))
    parsed = time.perf_counter()
    compiled = compile_model(model, options=_count_options(genre, count, jobs))
    t2 = time.perf_counter()
    run = PuzzleRun(csp, times={"generate": t1 - t0, "compile": t2 - t1, "parse": parsed - t1})
    run.stats = {"cnf_vars": compiled.num_vars, "cnf_clauses": compiled.num_clauses}
    first = solver_for(genre, solver, facts or count)
    run.stats["solver"] = first
    with released(new_solver(first)) as sat:
        compiled.load(sat)
        found = sat.solve()
        t3 = time.perf_counter()
        run.times["solve"] = t3 - t2
        if not found:
            if count:
                run.count = 0
            return run
        run.values = compiled.decode(sat.get_model())
        verify_answer(model, run.values)
        recorder = RecordingValues(run.values)
        try:
            run.solution = genre.decode(puzzle, recorder)
        except PuzzleError as err:  # the generator and decoder disagree on names: our bug
            raise RuntimeError(f"{genre.name}: decoding our own answer failed: {err}") from err
        broken = genre.check(puzzle, run.solution)
        if broken:  # the encoding lets through an answer the rules forbid: our bug
            raise RuntimeError(f"{genre.name}: our own answer breaks a rule: {broken[0]}")
        t4 = time.perf_counter()
        run.times["verify"] = t4 - t3
        if unique and _second_by_symmetry(genre, puzzle, run.solution):
            run.unique = False
            run.unique_by_symmetry = True
            run.times["unique"] = time.perf_counter() - t4
        elif unique:
            try:
                sat.add_clause(compiled.block_clause(recorder.used))
                run.unique = not sat.solve()
            except (KeyboardInterrupt, Exception) as err:  # stopped: the solution stands, uniqueness is unknown
                if not is_interrupt(err):
                    raise
                interrupt_handled()
                run.interrupted = True
                return run
            run.times["unique"] = time.perf_counter() - t4
    if facts or count:
        solver = solver_for(genre, solver, every_answer=True)
        try:
            if facts:
                _facts(run, compiled, model, recorder, solver)
            if count:
                if by_classes and facts:  # facts needed every solution: the classes' text is another file
                    model = check(parse_text(genre.generate_classes(puzzle), file=csp_name))
                    compiled = compile_model(model, options=_count_options(genre, count, jobs))
                sizes = ClassSizes(genre, puzzle) if by_classes else None
                _count(run, compiled, model, sizes, list(recorder.used), solver, jobs, progress)
        except (KeyboardInterrupt, Exception) as err:
            if not is_interrupt(err):
                raise
            interrupt_handled()
            run.interrupted = True
            if count and run.solution is not None and not run.count:
                # The workers of a parallel count may be stopped before they hand over any answer:
                # the solution found first is one of those it counts.
                run.count = 1
    return run


def solver_for(genre: Genre, solver: str, every_answer: bool = False) -> str:
    """The SAT solver `solver` means for a puzzle of `genre`: ``auto`` is the genre's own (`Genre.solver`) for
    one answer and ``--unique``, else `DEFAULT_SOLVER`; with `every_answer` (counting, facts) always the latter."""
    if solver != AUTO_SOLVER:
        return solver
    if genre.solver and not every_answer and genre.solver in usable_solvers():  # a PySAT built without it: default
        return genre.solver
    return DEFAULT_SOLVER


def _count_options(genre: Genre, count: bool, jobs: int) -> dict[str, str] | None:
    """Compile options for counting: the genre's own (`Genre.count_options`), and in one process `split`.

    ``enumerate=split`` is blocking enumeration inside value cubes, one after the other. Measured on
    `puzzle --count` texts (benchmarks/results/count_methods.md, "Fifth study"): pentomino classes 5x12
    325 -> 159 s of CPU, 4x15 49 -> 41 s, 8x8 even, 3x20 2.4 -> 3.8 s; the multi-solution boards in data/
    (9 genres) even. Several processes split the space by values anyway (`parallel_enumerate`).
    """
    if not count:
        return None
    options = dict(genre.count_options or {})
    if jobs <= 1:
        options["enumerate"] = "split"
    return options or None


def _second_by_symmetry(genre: Genre, puzzle: Any, solution: Any) -> bool:
    """Whether a symmetry of the board turns `solution` into another solution (`Genre.images`).

    Each image is checked by the genre's rule checker, so the answer "not unique" never rests
    on the symmetry alone; a board without symmetries, or whose images equal the solution,
    leaves the question to the SAT search.
    """
    if genre.images is None:
        return False
    return any(image != solution and not genre.check(puzzle, image) for image in genre.images(puzzle, solution))


def _facts(run: PuzzleRun, compiled: Any, model: Any, recorder: RecordingValues, solver: str) -> None:
    """Set `run.facts`: each puzzle variable's value in every solution, None where they differ."""
    from csp2sat.enumerate import open_space

    t4 = time.perf_counter()
    with open_space(compiled, model, solver, names=list(recorder.used)) as space:
        run.facts = space.facts()
    run.times["facts"] = time.perf_counter() - t4


def _count(run: PuzzleRun, compiled: Any, model: Any, sizes: "ClassSizes | None", names: list[str], solver: str,
           jobs: int, progress: "Callable[[PuzzleRun], None] | None") -> None:
    """Set `run.count`, the distinct answers on the puzzle variables `names`, counted as they come.

    With `sizes` the answers are the least solutions of their classes (`Genre.generate_classes`):
    each adds its class's size, and `run.classes` counts them.
    """
    start = time.perf_counter()
    run.count = 0
    if sizes is not None:
        run.classes = 0
    for answer in _answers(compiled, model, names, solver, jobs):
        if sizes is None:
            run.count += 1
        else:
            run.count += sizes.of(answer)
            run.classes += 1
        if progress is not None:
            progress(run)
    run.times["count"] = time.perf_counter() - start


def _answers(compiled: Any, model: Any, names: list[str], solver: str, jobs: int) -> Iterator[dict]:
    """Every answer projected on `names`, each checked by the independent evaluator; on `jobs` processes if > 1."""
    if jobs > 1:
        from csp2sat.parallel import parallel_enumerate

        for batch in parallel_enumerate(compiled, model, jobs, names=names, solver=solver, verify=True):
            yield from batch
        return
    from csp2sat.enumerate import open_space

    with open_space(compiled, model, solver, names=names, enumerating=True) as space:
        yield from space.solutions()


class ClassSizes:
    """The size of a class of solutions that the board's symmetries turn into one another (`Genre.images`)."""

    def __init__(self, genre: Genre, puzzle: Any) -> None:
        self.genre = genre
        self.puzzle = puzzle
        self.key = genre.class_order(puzzle) if genre.class_order is not None else None

    def of(self, answer: Mapping[str, "int | bool"]) -> int:
        """How many distinct solutions the class of `answer` holds (it and its images).

        Raises RuntimeError (our bug, not the user's) when the answer or an image breaks a rule, or
        when the answer is not the least of its class: `Genre.generate_classes` must keep exactly that
        one, or classes would be counted twice.
        """
        genre, puzzle = self.genre, self.puzzle
        solution = genre.decode(puzzle, answer)
        members = [solution, *genre.images(puzzle, solution)]
        for member in members:
            broken = genre.check(puzzle, member)
            if broken:
                raise RuntimeError(f"{genre.name}: a solution counted by classes breaks a rule: {broken[0]}")
        if min(members, key=self.key) != solution:
            raise RuntimeError(f"{genre.name}: counting by classes met a solution that is not the least of its class")
        return len({repr(member) for member in members})
