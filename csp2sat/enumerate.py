"""Beyond Sugar, SAT stage: all solutions, counting, uniqueness and forced values ("facts").

Every query runs on ONE incremental PySAT solver loaded once with the compiled
CNF. A query adds its temporary clauses guarded by a fresh activation literal
``act`` (clauses ``C ∨ ¬act``, solved under the assumption ``act``) and retires
``act`` with the unit ``¬act`` when it ends, so the solver stays usable for the
next query (e.g. count, then uniqueness, then facts) without reloading.

Solutions are always *projected* on the printed variables (Sugar hides names
starting with ``_``): two SAT models that differ only in hidden or auxiliary
variables are the same answer and are counted once.

Objectives: when the model has an objective, every query here ranges over the
OPTIMAL solutions only. `SolutionSpace` first finds the optimum (descending by
assumptions on the objective's order literal, as Sugar does) and then fixes
the objective variable to it with permanent unit clauses.

Enumeration (`solutions`, `count`) has four methods (``-O enumerate=``).
``cubes`` splits the space into disjoint cubes instead of adding blocking
clauses (`CubeEnumerator`): a cube is a set of
assumption literals; when the solver finds an answer inside cube C, the
answer's identifying literals l1..lk (`Space.answer_literals`, variables with
the smallest domains first) split the rest of C into the cubes
C∧¬l1, C∧l1∧¬l2, ..., C∧l1..l(k-1)∧¬lk, which are pushed on a stack (depth
first). The cubes are pairwise disjoint and, with the answer's own cube, cover
C, so every answer is met exactly once; the solver never gets a clause, keeps
every learnt clause, and the pending cubes are independent tasks that
`csp2sat.parallel` hands to worker processes. Uniqueness (two answers at most)
still uses one blocking clause: one refutation beats k cube refutations there.

``blocking`` (`BlockingEnumerator`, the default) enumerates instead with one
blocking clause per answer (the negated answer literals, guarded by an
activation literal per cube): one SAT call per answer instead of about one per
answer literal. Work items are then ``(cube, blocked)`` pairs, `blocked` being
the answer literals already found inside the cube, so a search stopped
mid-cube can be carried on by another process; `split_by_values` cuts the
space into cubes over the values of the printed variables for the parallel
workers. Blocking with CaDiCaL's stable mode was as fast as cubes or faster
on every family measured (2-2.5x on pentomino sub-spaces; benchmarks/results/
count_methods.md), hence "auto" = `DEFAULT_ENUMERATE` = blocking. ``split``
runs the same blocking search in the cubes of `split_by_values`, one after the
other (faster on whole pentomino boxes, slower on their sub-spaces: not "auto").

``propagate`` (`PropagationEnumerator`) is a chronological DPLL search over the
printed variables that never re-searches found space and adds no clause: a
node is a cube of value literals; the solver's unit propagation
(`Solver.propagate`) prunes it (a conflict, or a variable left without a
value, ends the node), the variable with the fewest values left is branched
on value by value (disjoint children), and only a leaf, where every printed
variable has one value left, costs a SAT call (none when propagation already
assigned every variable). Answers are distinct by construction. It wins where
answers are dense (many answers, few dead ends: 1.4x on a loose permutation
with 136,080 answers) and loses where unit propagation alone prunes badly
(2x on n-queens and random permutations; on pentomino boxes the tree explodes):
benchmarks/results/count_methods.md, "Third study". Not chosen by "auto".

The algorithms only need these operations, gathered in the `Space` protocol:
`CompiledSpace` adapts the compiler's `Compiled` (docs/compiler-api.md), and
`CnfSpace` adapts a plain CNF projected on some of its variables (used for
DIMACS-level work and to test the algorithms in isolation).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence

from pysat.solvers import Solver

from csp2sat.solver import (
    AUTO_SOLVER, CAPABILITIES, DEFAULT_SOLVER, abandon, check_solver, is_interrupt, new_solver, printed_values,
    release, verify_answer,
)

Value = int | bool
Answer = dict[str, Value]
# -O enumerate=...: how `SolutionSpace.solutions` visits the answers; "auto" means DEFAULT_ENUMERATE.
ENUMERATE_METHODS = ("cubes", "blocking", "split", "propagate")
# -O enumerate=split: blocking inside about this many cubes of `split_by_values`, one after the other.
SPLIT_PARTS = 8
DEFAULT_ENUMERATE = "blocking"  # measured: benchmarks/results/count_methods.md, "Methods across families"


def enumerate_method(choice: str) -> str:
    """The method that ``-O enumerate=CHOICE`` means (a key of `ENUMERATE_METHODS`)."""
    return DEFAULT_ENUMERATE if choice in ("auto", "", None) else choice



class Space(Protocol):
    """What the enumeration algorithms need from a compiled problem."""

    def load(self, solver: Solver) -> None:
        """Add every clause of the problem to `solver`."""

    def new_var(self) -> int:
        """A CNF variable not used by the problem nor by any earlier call."""

    def project(self, sat_model: Sequence[int]) -> Answer:
        """The answer (projected variables only, in output order) read from a SAT model."""

    def block_clause(self, answer: Answer) -> list[int]:
        """A clause false exactly under the given assignment of the given variables."""

    def answer_literals(self, answer: Answer) -> list[int]:
        """Literals whose conjunction (with the CNF) fixes exactly this answer, in the order cubes split on them."""

    def value_literals(self, name: str, value: Value) -> list[int]:
        """Literals whose conjunction means ``name == value`` ([] when always true)."""

    def size_of(self, name: str) -> int:
        """How many values an answered variable can take (without listing them: log-encoded domains
        reach 2^32 values)."""


class CnfSpace:
    """A plain CNF whose answers are the values of the variables `shown` (named ``"v<N>"``... or as given)."""

    def __init__(self, clauses: Sequence[Sequence[int]], shown: Sequence[int], names: Sequence[str] | None = None):
        self.clauses = [list(c) for c in clauses]
        self.shown = list(shown)
        self.names = list(names) if names is not None else [f"v{v}" for v in self.shown]
        self._var_of = dict(zip(self.names, self.shown))
        self._top = max([abs(lit) for c in self.clauses for lit in c] + self.shown + [0])

    def load(self, solver: Solver) -> None:
        """Add the clauses to `solver`."""
        solver.append_formula(self.clauses)

    def new_var(self) -> int:
        """A fresh variable above every variable seen so far."""
        self._top += 1
        return self._top

    def project(self, sat_model: Sequence[int]) -> Answer:
        """The truth values of the shown variables."""
        n = len(sat_model)  # variables in no clause and never assumed are missing: any value, say false
        return {name: var <= n and sat_model[var - 1] > 0 for name, var in zip(self.names, self.shown)}

    def block_clause(self, answer: Answer) -> list[int]:
        """The clause excluding this assignment of the shown variables."""
        return [-self._var_of[n] if v else self._var_of[n] for n, v in answer.items()]

    def answer_literals(self, answer: Answer) -> list[int]:
        """The shown variables' literals, in the order given."""
        return [self._var_of[n] if v else -self._var_of[n] for n, v in answer.items()]

    def values_of(self, name: str) -> list[Value]:
        """False and True."""
        return [False, True]

    def size_of(self, name: str) -> int:
        """2."""
        return 2

    def split_names(self) -> list[str]:
        """The shown variables, in the order given."""
        return list(self.names)

    def value_literals(self, name: str, value: Value) -> list[int]:
        """``[v]`` or ``[-v]``."""
        var = self._var_of[name]
        return [var] if value else [-var]


class CompiledSpace:
    """The compiler's `Compiled` product, projected on the model's printed variables (or on `names`).

    `names` (keys as in value mappings) narrows answers to the variables that
    matter, e.g. a puzzle's own cells when the file also prints auxiliary ones.

    `verify`: True checks every answer with the independent evaluator, False
    none, ``"sample"`` the answers numbered 1..16 and every power of two after
    that (for counts, where answers are not printed and a check can cost more
    than finding the answer); `checked` counts the answers checked.
    """

    def __init__(
        self, compiled: Any, model: Any, verify: bool | str = True, names: Sequence[str] | None = None
    ):
        self.compiled = compiled
        self.model = model
        self.verify = verify
        self.names = list(names) if names is not None else None
        self.projected = 0
        self.checked = 0
        self._split_order: dict[str, int] | None = None

    def load(self, solver: Solver) -> None:
        """Add the compiled clauses to `solver`."""
        self.compiled.load(solver)

    def new_var(self) -> int:
        """A fresh variable from the compiler's pool."""
        return self.compiled.new_var()

    def project(self, sat_model: Sequence[int]) -> Answer:
        """Printed int variables in definition order, then printed bools (under `bool_key`), checked when `verify`."""
        values = self.compiled.decode(sat_model)
        self.projected += 1
        n = self.projected
        if self.verify is True or (self.verify == "sample" and (n <= 16 or n & (n - 1) == 0)):
            verify_answer(self.model, values)
            self.checked += 1
        if self.names is not None:
            return {name: values[name] for name in self.names}
        return dict(printed_values(self.model, values))

    def block_clause(self, answer: Answer) -> list[int]:
        """The compiler's clause excluding this assignment."""
        return list(self.compiled.block_clause(answer))

    def _answer_keys(self) -> tuple[list[str], set[str]]:
        """The keys of an answer (as `project` gives them) and which of them are Booleans."""
        bool_keys = [self.model.bool_key(v.name) for v in self.model.printed_bool_vars()]
        bools = set(bool_keys)
        if self.names is not None:
            return list(self.names), {n for n in self.names if n in bools}
        return [v.name for v in self.model.printed_int_vars()] + bool_keys, bools

    def values_of(self, name: str) -> list[Value]:
        """The values an answered variable can take (its domain; False and True for a Boolean)."""
        if name in self._answer_keys()[1]:
            return [False, True]
        return list(self.compiled.domain_values(name))

    def size_of(self, name: str) -> int:
        """The number of `values_of`, without listing them."""
        return 2 if name in self._answer_keys()[1] else self.compiled.domain(name).size

    def split_names(self) -> list[str]:
        """The answered variables in the order cubes split on them: smallest domains first, then output order."""
        keys, bools = self._answer_keys()
        sizes = {k: 2 if k in bools else self.compiled.domain(k).size for k in keys}
        return sorted(keys, key=lambda k: sizes[k])  # stable: output order breaks ties

    def answer_literals(self, answer: Answer) -> list[int]:
        """The value literals of every answered variable, smallest domains first (first-fail order for cubes)."""
        if self._split_order is None:
            sizes = {}
            for name in answer:
                is_int = not isinstance(answer[name], bool)
                sizes[name] = self.compiled.domain(name).size if is_int else 2
            ranked = sorted(answer, key=lambda name: sizes[name])  # stable: output order breaks ties
            self._split_order = {name: k for k, name in enumerate(ranked)}
        lits: list[int] = []
        for name in sorted(answer, key=self._split_order.__getitem__):
            lits.extend(self.compiled.value_literals(name, answer[name]))
        return lits

    def value_literals(self, name: str, value: Value) -> list[int]:
        """The compiler's literals for ``name == value``."""
        return list(self.compiled.value_literals(name, value))


class CubeEnumerator:
    """Depth-first enumeration of the answers inside a list of disjoint cubes (see the module docstring).

    Iterating yields answers; `stack` always holds the cubes not yet explored,
    disjoint from every answer yielded so far, so a caller may stop at any
    answer and hand `stack` to someone else (`csp2sat.parallel`). The solver is
    only asked `solve(assumptions=cube)`: it gains no clause and can serve
    other queries afterwards. `calls` counts SAT calls.
    """

    def __init__(self, solver: Solver, space: Space, cubes: Sequence[Sequence[int]]):
        self.solver = solver
        self.space = space
        self.stack: list[list[int]] = [list(cube) for cube in reversed(cubes)]
        self.calls = 0

    def __iter__(self) -> Iterator[Answer]:
        solver, space, stack = self.solver, self.space, self.stack
        while stack:
            cube = stack.pop()
            self.calls += 1
            if not solver.solve(assumptions=cube):
                continue
            answer = space.project(solver.get_model())
            # Children first, then the answer: whoever stops here finds the rest of the space on the stack.
            prefix = list(cube)
            assumed = set(cube)
            children = []
            for lit in space.answer_literals(answer):
                if lit in assumed:
                    continue
                children.append(prefix + [-lit])
                prefix.append(lit)
                assumed.add(lit)
            stack.extend(children)  # the last child (closest to the answer) is explored first
            yield answer


class BlockingEnumerator:
    """Enumeration by blocking clauses inside a list of disjoint work items ``(cube, blocked)``.

    For each item, answers inside `cube` are found one SAT call each, and each
    answer's literals (`Space.answer_literals`) are blocked by a clause guarded
    by an activation literal of the item; `blocked` lists the answer literals
    already found there (by an earlier task), blocked before the search starts.
    Iterating yields answers; `leftover()` gives the items not finished, with
    the answers found so far in the current one added to its `blocked`, so a
    caller may stop at any answer and hand the rest to someone else. The
    activation literal is retired when an item ends or the caller stops (not
    after an interruption: CaDiCaL aborts on any call after a SIGINT).
    """

    def __init__(self, solver: Solver, space: Space, items: Sequence[tuple], live: dict | None = None):
        self.solver = solver
        self.space = space
        # `live` (kept by a caller that reuses the solver for the next items): cube -> (activation literal,
        # blocked answers) of an item left unfinished on this solver, not retired. An item given again with the
        # same answers blocked resumes under that literal: its blocking clauses and the clauses learnt from them
        # stay, where a fresh literal would make the solver learn them again (measured: 2.7x the CPU with
        # --jobs 2 and 1 s tasks, benchmarks/results/count_methods.md). Other live literals are retired.
        self.live = live
        if live is not None:
            wanted = {tuple(item[0]) for item in items}
            for key in [key for key in live if key not in wanted]:
                solver.add_clause([-live.pop(key)[0]])
        # An item may carry more than (cube, blocked): the rest is the caller's and comes back in `leftover`.
        self.pending: list[tuple] = [
            (list(item[0]), [list(b) for b in item[1]], *item[2:]) for item in reversed(items)
        ]
        self.current: tuple | None = None
        self.calls = 0

    def leftover(self) -> list[tuple]:
        """The items not finished, in the order given (the current one first, with its answers so far in `blocked`)."""
        rest = list(reversed(self.pending))
        return ([self.current] if self.current is not None else []) + rest

    def __iter__(self) -> Iterator[Answer]:
        solver, space = self.solver, self.space
        while self.pending:
            self.current = self.pending.pop()
            cube, blocked = self.current[0], self.current[1]
            resumed = self.live.pop(tuple(cube), None) if self.live is not None else None
            if resumed is not None and _same_answers(resumed[1], blocked):
                act = resumed[0]
            else:
                if resumed is not None:
                    solver.add_clause([-resumed[0]])
                act = space.new_var()
                for lits in blocked:
                    solver.add_clause([-lit for lit in lits] + [-act])
            interrupted = False
            finished = False
            try:
                while True:
                    self.calls += 1
                    if not solver.solve(assumptions=cube + [act]):
                        finished = True
                        break
                    answer = space.project(solver.get_model())
                    lits = space.answer_literals(answer)
                    solver.add_clause([-lit for lit in lits] + [-act])
                    blocked.append(lits)
                    yield answer
            except BaseException as err:
                interrupted = is_interrupt(err)
                raise
            finally:
                if not interrupted:
                    if not finished and self.live is not None:  # stopped by the caller: may resume here
                        self.live[tuple(cube)] = (act, [list(b) for b in blocked])
                    else:
                        solver.add_clause([-act])
            self.current = None


# Printed variables with more values than this are not enumerated value by value (log-encoded domains):
# `PropagationEnumerator.usable` says no and `SolutionSpace` falls back to `DEFAULT_ENUMERATE`.
PROPAGATE_MAX_VALUES = 1024
PROPAGATE_SOLVER = "glucose4"  # the solver of -O enumerate=propagate when none other than the default is named


class PropagationEnumerator:
    """Chronological DPLL enumeration over the printed variables, pruned by unit propagation (see the module docstring).

    Iterating yields answers; `stack` always holds the cubes (nodes) not yet
    explored, pairwise disjoint and disjoint from every answer yielded so far,
    so a caller may stop at any answer and hand `stack` on, as with
    `CubeEnumerator`. The solver is only asked `propagate(assumptions=cube)`
    and, at leaves, `solve(assumptions=cube)`: it gains no clause. `calls`
    counts SAT calls, `nodes` propagations.
    """

    def __init__(self, solver: Solver, space: Any, cubes: Sequence[Sequence[int]]):
        self.solver = solver
        self.space = space
        self.stack: list[list[int]] = [list(cube) for cube in reversed(cubes)]
        self.calls = 0
        self.nodes = 0
        # Per printed variable: its values' literal lists, each value's literals as given by the space.
        self._names = space.split_names()
        self._values = [space.values_of(name) for name in self._names]
        self._literals = [[space.value_literals(name, v) for v in values] for name, values in zip(self._names, self._values)]

    @staticmethod
    def usable(space: Any) -> bool:
        """Whether every printed variable has at most `PROPAGATE_MAX_VALUES` values."""
        return all(space.size_of(name) <= PROPAGATE_MAX_VALUES for name in space.split_names())

    def __iter__(self) -> Iterator[Answer]:
        solver, space, stack, literals = self.solver, self.space, self.stack, self._literals
        while stack:
            cube = stack.pop()
            self.nodes += 1
            ok, implied = solver.propagate(assumptions=cube)
            if not ok:
                continue
            # The cube's literals hold too: propagate() leaves out those already set at the root (units).
            true = set(implied)
            true.update(cube)
            false = {-lit for lit in true}
            best: list[list[int]] | None = None
            dead = False
            for lits_of_values in literals:
                alive = [lits for lits in lits_of_values if false.isdisjoint(lits)]
                if not alive:
                    dead = True
                    break
                if len(alive) > 1 and (best is None or len(alive) < len(best)):
                    if any(true.issuperset(lits) for lits in alive):
                        continue  # a value holds: the others are excluded, if not by propagation then by it
                    best = alive
                    if len(best) == 2:
                        break  # no smaller choice left to find
            if dead:
                continue
            if best is not None:
                # Branch on the first value v left: "x = v" and "x != v". The second is one literal when all but
                # one of v's literals hold already (the lowest value of an order-encoded x: x > v; a Boolean),
                # and propagating it prunes all the other values at once; otherwise one child per value.
                # Either way every child holds a literal its parent did not: the search always goes deeper.
                open_lits = [lit for lit in best[0] if lit not in true]
                if len(open_lits) == 1:
                    stack.append(cube + [-open_lits[0]])
                    stack.append(cube + open_lits)
                else:
                    stack.extend(cube + [lit for lit in lits if lit not in true] for lits in reversed(best))
                continue
            # A leaf: every printed variable has one value; the hidden ones may still have none.
            if len(true) >= solver.nof_vars():
                model = sorted(true, key=abs)
            else:
                self.calls += 1
                if not solver.solve(assumptions=cube):
                    continue
                model = solver.get_model()
            yield space.project(model)


def propagate_settings(method: str, space: Any, solver_name: str) -> tuple[str, str]:
    """(method, solver) to enumerate with: ``propagate`` falls back to `DEFAULT_ENUMERATE` on domains over
    `PROPAGATE_MAX_VALUES` values and on a solver without ``propagate()`` (`Capabilities.propagate`: Kissat,
    Lingeling, ...), and runs on `PROPAGATE_SOLVER` when the solver is the default one."""
    if method != "propagate":
        return method, solver_name
    if not PropagationEnumerator.usable(space):
        return DEFAULT_ENUMERATE, solver_name
    # Glucose's propagate() costs 0.2-0.5 ms a node on the 5x12 box where CaDiCaL's costs 0.8-1.3 ms (CaDiCaL
    # sets up a search each call), and n-queens 11 counts in half the CPU: count_methods.md, "Third study".
    if solver_name in (DEFAULT_SOLVER, AUTO_SOLVER):
        return method, PROPAGATE_SOLVER
    if not CAPABILITIES[check_solver(solver_name)].propagate:
        return DEFAULT_ENUMERATE, solver_name  # e.g. Lingeling, CryptoMiniSat: PySAT offers no propagate()
    return method, solver_name


def _same_answers(known: list[list[int]], blocked: list[list[int]]) -> bool:
    """Whether `blocked` lists exactly the answers `known` (answers are only ever appended, in order)."""
    return len(known) == len(blocked) and (not known or known[-1] == list(blocked[-1]))


def split_by_values(
    space: "CompiledSpace", parts: int, cube: Sequence[int] = (), depth: int = 0
) -> tuple[list[list[int]], int]:
    """Disjoint cubes covering `cube`: the value combinations of printed variables (fewest values first).

    The variables of `CompiledSpace.split_names` from number `depth` on are
    taken until there are at least `parts` cubes (or none is left); returns the
    cubes and the number of variables used so far. Every answer inside `cube`
    satisfies exactly one of the cubes, whatever the constraints. Variables of
    one value, or of so many values (log-encoded) that the parts would exceed
    16 x `parts` from one cube, do not split; a variable that would exceed it only
    because of the earlier ones ends this split unused, so that splitting one of
    the cubes again uses it (skipping it left nothing to split pentomino boxes on).
    """
    cubes: list[list[int]] = [list(cube)]
    names = space.split_names()
    while depth < len(names) and len(cubes) < parts:
        size = space.size_of(names[depth])
        if len(cubes) > 1 and len(cubes) * size > 16 * parts:
            break  # too many parts now: left for the next split of one of these cubes, which starts here
        depth += 1
        if size < 2 or len(cubes) * size > 16 * parts:
            continue
        cubes = [c + space.value_literals(names[depth - 1], v) for c in cubes for v in space.values_of(names[depth - 1])]
    return cubes, depth


@dataclass
class Uniqueness:
    """Result of a uniqueness query: status is ``"unique"``, ``"multiple"`` or ``"none"``."""

    status: str
    first: Answer | None = None
    second: Answer | None = None


class SolutionSpace:
    """One incremental solver over a `Space`, answering several queries in a row.

    With an `objective` ``(le_literal, name, sense)`` the space is first
    restricted to optimal solutions (see the module docstring); `optimum` then
    holds the optimal value (None when there is no solution).
    """

    def __init__(
        self, space: Space, solver_name: str = DEFAULT_SOLVER, objective: Any = None, method: str = "auto",
        mode: str = "default",
    ):
        self.space = space
        self.method, solver_name = propagate_settings(enumerate_method(method), space, solver_name)
        self.solver_name = solver_name  # the solver that runs (`propagate_settings` may pick another)
        # any usable solver; missing features are emulated. `mode`: a key of csp2sat.solver.SAT_MODES
        self._mode = mode
        self.solver = new_solver(solver_name, mode=mode)
        space.load(self.solver)
        self.optimum: int | None = None
        self.fixed_units: list[int] = []  # unit clauses added here (the optimum), for copies of this space
        self._unsat = False
        self._closed = False
        self._interrupted = False  # a query was stopped inside the solver: renew it before the next one
        self._guard = threading.Lock()
        self._owner: int | None = None  # the thread in a query, and how deep (queries call each other)
        self._depth = 0
        if objective is not None:
            self._fix_optimum(*objective)

    def close(self) -> None:
        """Free the solver; later queries raise `RuntimeError` (a closed solver answered "no solution")."""
        if not self._closed:
            self._closed = True
            if self._interrupted:
                abandon(self.solver)
            else:
                release(self.solver)

    @contextmanager
    def _query(self) -> Iterator[None]:
        """Around every query: the space is open and used by one thread at a time, and a query stopped
        inside the solver (Ctrl-C, a time limit) leaves it to be renewed: after that, Glucose and CaDiCaL
        answered every later query as if there were no solution."""
        me = threading.get_ident()
        with self._guard:
            if self._closed:
                raise RuntimeError("this solution space is closed (its `with` block has ended): open a new one")
            if self._owner not in (None, me):
                raise RuntimeError("this solution space is in a query of another thread: open one space per thread")
            self._owner, self._depth = me, self._depth + 1
        try:
            if self._interrupted:
                self._renew()
            yield
        except BaseException as err:
            if is_interrupt(err):
                self._interrupted = True
            raise
        finally:
            with self._guard:
                self._depth -= 1
                if not self._depth:
                    self._owner = None

    def _renew(self) -> None:
        """A fresh solver with the problem and the optimum's unit clauses, for the one an interruption left."""
        abandon(self.solver)
        self.solver = new_solver(self.solver_name, mode=self._mode)
        self.space.load(self.solver)
        for lit in self.fixed_units:
            self.solver.add_clause([lit])
        self._interrupted = False

    def __enter__(self) -> "SolutionSpace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- objective ---------------------------------------------------------

    def _fix_optimum(self, le_literal: Any, value_of: Any, sense: str) -> None:
        """Descend to the optimum, then fix the objective to it for good.

        `le_literal(c)` is the literal (or True/False) for ``obj <= c`` and
        `value_of(sat_model)` reads the objective's value.
        """
        if not self.solver.solve():
            self._unsat = True
            return
        best = value_of(self.solver.get_model())
        while True:
            lit = le_literal(best - 1) if sense == "minimize" else _negate(le_literal(best))
            # A constant here means the domain ends at `best`: nothing better can exist.
            if isinstance(lit, bool) or not self.solver.solve(assumptions=[lit]):
                break
            best = value_of(self.solver.get_model())
        self.optimum = best
        for lit in (le_literal(best), _negate(le_literal(best - 1))):
            if not isinstance(lit, bool):  # constants are true here: `best` is a value of the domain
                self.solver.add_clause([lit])
                self.fixed_units.append(lit)

    # -- queries -----------------------------------------------------------

    def solutions(self, limit: int | None = None) -> Iterator[Answer]:
        """Every answer (at most `limit`), by disjoint cubes or by blocking clauses (`method`, see the module docstring)."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            raise TypeError(f"solutions(limit) takes a whole number or None, not {limit!r}")
        with self._query():
            yield from self._solutions(limit)

    def _solutions(self, limit: int | None) -> Iterator[Answer]:
        if self._unsat or (limit is not None and limit <= 0):
            return
        found = 0
        if self.method == "blocking":
            search: Any = BlockingEnumerator(self.solver, self.space, [([], [])])
        elif self.method == "split":
            cubes, _ = split_by_values(self.space, SPLIT_PARTS)
            search = BlockingEnumerator(self.solver, self.space, [(cube, []) for cube in cubes])
        elif self.method == "propagate":
            search = PropagationEnumerator(self.solver, self.space, [[]])
        else:
            search = CubeEnumerator(self.solver, self.space, [[]])
        for answer in search:
            found += 1
            yield answer
            if limit is not None and found >= limit:
                return

    def blocked_solutions(self, limit: int | None = None) -> Iterator[Answer]:
        """Every answer (at most `limit`), each blocked by a clause under one activation literal as it is found."""
        with self._query():
            yield from self._blocked_solutions(limit)

    def _blocked_solutions(self, limit: int | None) -> Iterator[Answer]:
        if self._unsat or (limit is not None and limit <= 0):
            return
        act = self.space.new_var()
        interrupted = False
        try:
            found = 0
            while self.solver.solve(assumptions=[act]):
                answer = self.space.project(self.solver.get_model())
                found += 1
                yield answer
                if limit is not None and found >= limit:
                    return
                clause = self.space.block_clause(answer)
                clause.append(-act)
                self.solver.add_clause(clause)
        except BaseException as err:
            # After a SIGINT (time-out, Ctrl-C) CaDiCaL aborts on any further call: leave it alone.
            interrupted = is_interrupt(err)
            raise
        finally:
            if not interrupted:
                self.solver.add_clause([-act])

    def count(self, limit: int | None = None) -> int:
        """The number of answers (stopping at `limit`)."""
        return sum(1 for _ in self.solutions(limit))

    def uniqueness(self) -> Uniqueness:
        """Whether there is no, exactly one, or more than one answer (with two of them)."""
        found = list(self.blocked_solutions(2))
        if not found:
            return Uniqueness("none")
        if len(found) == 1:
            return Uniqueness("unique", found[0])
        return Uniqueness("multiple", found[0], found[1])

    def facts(self) -> dict[str, Value | None] | None:
        """For every projected variable its value in all answers, or None where answers differ.

        Returns None when there is no answer. Refutation loop: the candidates
        are the first answer's values; each round asks for an answer that
        violates at least one remaining candidate (one clause over per-candidate
        literals ``d_i -> var_i != value_i``, guarded by an activation literal),
        with the phases set against the candidates so that one answer refutes
        many, and drops every candidate that answer disagrees with.
        """
        with self._query():
            return self._facts()

    def _facts(self) -> dict[str, Value | None] | None:
        if self._unsat or not self.solver.solve():
            return None
        first = self.space.project(self.solver.get_model())
        result: dict[str, Value | None] = dict(first)
        differs: dict[str, int] = {}  # candidate name -> d_i
        flipped: dict[str, list[int]] = {}
        for name, value in first.items():
            lits = self.space.value_literals(name, value)
            if not lits:  # the only value of its domain: a fact without asking
                continue
            d = self.space.new_var()
            self.solver.add_clause([-d] + [-lit for lit in lits])
            differs[name] = d
            flipped[name] = [-lit for lit in lits]
        while differs:
            act = self.space.new_var()
            self.solver.add_clause([-act] + list(differs.values()))
            phases = list(differs.values())
            for name in differs:
                phases.extend(flipped[name])
            self.solver.set_phases(phases)
            sat = self.solver.solve(assumptions=[act])
            model = self.solver.get_model() if sat else None
            self.solver.add_clause([-act])
            if not sat:
                break
            other = self.space.project(model)
            for name in [n for n in differs if other[n] != first[n]]:
                result[name] = None
                del differs[name]
        for d in differs.values():  # d-literals left over: fixed false so later queries ignore them
            self.solver.add_clause([-d])
        return result


def _negate(lit: int | bool) -> int | bool:
    """¬lit for a literal or a constant."""
    if isinstance(lit, bool):
        return not lit
    return -lit


def model_objective(compiled: Any, model: Any) -> tuple | None:
    """The `SolutionSpace` objective triple for a compiled model, or None without objective."""
    objective = getattr(model, "objective", None)
    if objective is None:
        return None
    name = objective.var

    def le_literal(c: int) -> int | bool:
        return compiled.le_literal(name, c)

    def value_of(sat_model: Sequence[int]) -> int:
        return int(compiled.decode(sat_model)[name])

    return le_literal, value_of, objective.sense


def open_space(
    compiled: Any, model: Any, solver: str = DEFAULT_SOLVER, verify: bool = True, names: Sequence[str] | None = None,
    enumerating: bool = False,
) -> SolutionSpace:
    """A `SolutionSpace` over the printed variables (or `names`); optimal solutions only if there is an objective.

    The enumeration method and the SAT mode are the compiled options ``-O enumerate=`` and ``-O satmode=``
    (`enumeration_settings`; `enumerating`: the space is opened to list or count all answers).
    """
    from csp2sat.compiler import Compiled
    from csp2sat.syntax import Model

    if not isinstance(compiled, Compiled) or not isinstance(model, Model):
        raise TypeError(f"open_space takes (compiled, model): compile_model(model) and the model, not "
                        f"({type(compiled).__name__}, {type(model).__name__})")
    known = compiled.model
    strangers = [n for n in model.int_vars if n not in known.int_vars] + [
        n for n in model.bool_vars if n not in known.bool_vars]
    if strangers:
        raise ValueError(f"the model's variable {strangers[0]} is not in the compiled model: pass the model that "
                         "was compiled")
    method, mode = enumeration_settings(compiled, model, enumerating)
    return SolutionSpace(
        CompiledSpace(compiled, model, verify, names), solver, model_objective(compiled, model), method, mode
    )


def enumeration_settings(compiled: Any, model: Any, enumerating: bool = True) -> tuple[str, str]:
    """(enumeration method, SAT mode) chosen by the compiled options ``-O enumerate=`` and ``-O satmode=``.

    ``satmode=auto`` is CaDiCaL's stable mode when `enumerating` (all answers: measured as fast or faster
    than its default alternation on every family of benchmarks/count_suite.py, up to 1.5x on pentomino
    boxes), and `csp2sat.solver.sat_mode`'s choice for the other queries (--unique, --facts).
    """
    from csp2sat.solver import sat_mode

    options = getattr(compiled, "options", None) or {}
    objective = getattr(model, "objective", None) is not None
    choice = options.get("satmode", "auto")
    mode = "stable" if enumerating and choice == "auto" else sat_mode(choice, objective, getattr(compiled, "stats", None))
    return enumerate_method(options.get("enumerate", "auto")), mode


def iter_solutions(
    compiled: Any, model: Any, limit: int | None = None, solver: str = DEFAULT_SOLVER, names: Sequence[str] | None = None
) -> Iterator[Answer]:
    """Every answer of the model (at most `limit`), projected on the printed variables (or `names`)."""
    with open_space(compiled, model, solver, names=names, enumerating=True) as space:
        yield from space.solutions(limit)


def count_solutions(
    compiled: Any, model: Any, limit: int | None = None, solver: str = DEFAULT_SOLVER, names: Sequence[str] | None = None
) -> int:
    """The number of answers (at most `limit`)."""
    with open_space(compiled, model, solver, names=names, enumerating=True) as space:
        return space.count(limit)


def uniqueness(
    compiled: Any, model: Any, solver: str = DEFAULT_SOLVER, names: Sequence[str] | None = None
) -> Uniqueness:
    """Whether the model has no, one or several answers (see `Uniqueness`)."""
    with open_space(compiled, model, solver, names=names) as space:
        return space.uniqueness()


def forced_values(
    compiled: Any, model: Any, solver: str = DEFAULT_SOLVER, names: Sequence[str] | None = None
) -> dict[str, Value | None] | None:
    """The value each printed variable (or each of `names`) takes in every answer (None where answers differ); None if no answer."""
    with open_space(compiled, model, solver, names=names) as space:
        return space.facts()
