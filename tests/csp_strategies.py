"""Hypothesis strategies for the differential tests: random small Sugar CSP files, as text.

`csp_texts()` draws a whole file over the full syntax: 3-8 variables (integers
with small domains written in every declaration form, some with holes, some
negative; Booleans; some hidden `_` names), nested terms, every logical
operator and comparison under both spellings (in globals too, and `wsum`),
every global constraint (cumulative and disjunctive with terms of any sign),
predicates (one calling another, one taking a formula parameter, one whose
body is a cumulative over its parameters), relations
(supports and conflicts) and sometimes an objective. The product of the domain
sizes is kept at most `MAX_ASSIGNMENTS`, so `tests/bruteforce.py` can
enumerate every assignment at once.

Constructs whose meaning is a documented Sugar quirk (integers as formulas,
extra predicate arguments, `(alldifferent)` with no term, `neg` with two
arguments, non-variable relation arguments, divisors other than positive
constants) are not generated: the differential test compares meaning, not
quirks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

MAX_ASSIGNMENTS = 5_000

COMPARISONS = ("eq", "ne", "le", "lt", "ge", "gt")
COMPARISON_ALIASES = {"eq": "=", "ne": "!=", "le": "<=", "lt": "<", "ge": ">=", "gt": ">"}
LOGIC_ALIASES = {"not": "!", "and": "&&", "or": "||", "imp": "=>"}
TERM_ALIASES = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%"}


@dataclass
class _Scope:
    """What a file drawn so far declares: the names terms and formulas may use."""

    ints: dict[str, list[int]] = field(default_factory=dict)
    bools: list[str] = field(default_factory=list)
    # name -> parameter kinds ("t" term, "f" formula)
    predicates: dict[str, tuple[str, ...]] = field(default_factory=dict)
    relations: dict[str, int] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)  # inside a predicate body: name -> kind


def _spell(draw: st.DrawFn, op: str, aliases: dict[str, str]) -> str:
    """The operator under its canonical name or its alias, at random."""
    alias = aliases.get(op)
    return alias if alias is not None and draw(st.booleans()) else op


def _int_terms(scope: _Scope) -> list[str]:
    """The atomic integer terms available: variables, or term parameters inside a predicate body."""
    if scope.params:
        return [p for p, kind in scope.params.items() if kind == "t"]
    return list(scope.ints)


def _bool_atoms(scope: _Scope) -> list[str]:
    if scope.params:
        return [p for p, kind in scope.params.items() if kind == "f"]
    return list(scope.bools)


# ---------------------------------------------------------------- declarations


@st.composite
def _domain_values(draw: st.DrawFn, max_size: int) -> list[int]:
    """A small set of integers, sometimes negative, sometimes with holes."""
    lo = draw(st.integers(-4, 3))
    width = draw(st.integers(0, max(0, min(5, max_size - 1))))
    values = list(range(lo, lo + width + 1))
    if len(values) > 2 and draw(st.booleans()):
        hole = draw(st.sampled_from(values[1:-1]))
        values.remove(hole)
    return values


def _domain_text(draw: st.DrawFn, values: list[int]) -> str:
    """One written form of a domain (`lo hi`, a single value, or a list of ranges and values)."""
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    if len(runs) == 1:
        lo, hi = runs[0]
        if lo == hi and draw(st.booleans()):
            return str(lo)
        if draw(st.integers(0, 3)) > 0:
            return f"{lo} {hi}"
    items = [f"{lo}" if lo == hi else f"({lo} {hi})" for lo, hi in runs]
    if not any(item.startswith("(") for item in items):
        # A list of bare values, e.g. "(1 3)", is the set {1, 3} (Sugar's convertRanges, and ours), which a
        # reader easily takes for the range 1..3: one item written as a pair keeps the file unambiguous to people.
        items[0] = f"({runs[0][0]} {runs[0][0]})"
    if len(items) > 1 and draw(st.booleans()):
        items.reverse()  # the order of the pieces does not matter
    return "(" + " ".join(items) + ")"


# ---------------------------------------------------------------- terms and formulas


@st.composite
def terms(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    """An integer term of nesting at most `depth`."""
    atoms = _int_terms(scope)
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        if atoms and draw(st.integers(0, 3)) > 0:
            return draw(st.sampled_from(atoms))
        return str(draw(st.integers(-3, 3)))
    kind = draw(
        st.sampled_from(
            ("add", "sub", "neg", "mul_const", "mul_var", "div", "mod", "abs", "min", "max", "if")
        )
    )
    sub = terms(scope, depth - 1)
    if kind == "add":
        args = draw(st.lists(sub, min_size=0, max_size=3))
        return f"({_spell(draw, 'add', TERM_ALIASES)}{''.join(' ' + a for a in args)})"
    if kind == "sub":
        args = draw(st.lists(sub, min_size=2, max_size=3))
        return f"({_spell(draw, 'sub', TERM_ALIASES)} {' '.join(args)})"
    if kind == "mul_const":
        c = draw(st.integers(-3, 3))
        t = draw(sub)
        pair = (str(c), t) if draw(st.booleans()) else (t, str(c))
        return f"({_spell(draw, 'mul', TERM_ALIASES)} {pair[0]} {pair[1]})"
    if kind == "mul_var":
        if not atoms:
            return draw(sub)
        a, b = draw(st.sampled_from(atoms)), draw(st.sampled_from(atoms))
        return f"({_spell(draw, 'mul', TERM_ALIASES)} {a} {b})"
    if kind in ("div", "mod"):
        return f"({_spell(draw, kind, TERM_ALIASES)} {draw(sub)} {draw(st.integers(1, 3))})"
    if kind in ("neg", "abs"):
        return f"({kind} {draw(sub)})"
    if kind in ("min", "max"):
        return f"({kind} {draw(sub)} {draw(sub)})"
    return f"(if {draw(formulas(scope, depth - 1, globals_ok=False))} {draw(sub)} {draw(sub)})"


def _comparison(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    op = _spell(draw, draw(st.sampled_from(COMPARISONS)), COMPARISON_ALIASES)
    sub = terms(scope, depth)
    return f"({op} {draw(sub)} {draw(sub)})"


@st.composite
def formulas(draw: st.DrawFn, scope: _Scope, depth: int, globals_ok: bool = True) -> str:
    """A formula of nesting at most `depth`; calls and globals only outside predicate bodies."""
    atoms = _bool_atoms(scope)
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        choice = draw(st.integers(0, 5))
        if atoms and choice <= 1:
            return draw(st.sampled_from(atoms))
        if choice == 2:
            return draw(st.sampled_from(("true", "false")))
        return _comparison(draw, scope, max(0, depth - 1))
    kinds = ["not", "and", "or", "imp", "xor", "iff", "cmp", "cmp"]
    outside = not scope.params
    if outside and scope.predicates:
        kinds.append("pcall")
    if outside and scope.relations:
        kinds.append("rcall")
    if outside and globals_ok:
        kinds.append("global")
    kind = draw(st.sampled_from(kinds))
    sub = formulas(scope, depth - 1, globals_ok)
    if kind == "not":
        return f"({_spell(draw, 'not', LOGIC_ALIASES)} {draw(sub)})"
    if kind in ("and", "or"):
        args = draw(st.lists(sub, min_size=0, max_size=3))
        return f"({_spell(draw, kind, LOGIC_ALIASES)}{''.join(' ' + a for a in args)})"
    if kind in ("imp", "xor", "iff"):
        return f"({_spell(draw, kind, LOGIC_ALIASES)} {draw(sub)} {draw(sub)})"
    if kind == "pcall":
        return draw(_predicate_call(scope, depth - 1))
    if kind == "rcall":
        return draw(_relation_call(scope))
    if kind == "global":
        # Nested positions get the globals whose decomposition is a plain formula.
        return draw(_global(scope, nested=True))
    return _comparison(draw, scope, depth - 1)


@st.composite
def _predicate_call(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    name = draw(st.sampled_from(sorted(scope.predicates)))
    args = []
    for kind in scope.predicates[name]:
        if kind == "t":
            args.append(draw(terms(scope, min(depth, 1))))
        else:
            args.append(draw(formulas(scope, min(depth, 1), globals_ok=False)))
    return f"({name} {' '.join(args)})"


@st.composite
def _relation_call(draw: st.DrawFn, scope: _Scope) -> str:
    name = draw(st.sampled_from(sorted(scope.relations)))
    # Sugar accepts only variable names as relation arguments.
    args = [draw(st.sampled_from(sorted(scope.ints))) for _ in range(scope.relations[name])]
    return f"({name} {' '.join(args)})"


# ---------------------------------------------------------------- globals


def _small_terms(scope: _Scope, min_size: int, max_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(terms(scope, 1), min_size=min_size, max_size=max_size)


@st.composite
def _task_term(draw: st.DrawFn, scope: _Scope) -> str:
    """A term of a task (origin, duration, end, height) or a limit: any sign, sometimes non-linear.

    Sugar's cumulative checks every time point between the bounds of the starts and
    ends, so the bounds of non-linear terms (interval arithmetic) matter too.
    """
    if draw(st.integers(0, 3)) == 0:
        return draw(terms(scope, 1))
    return draw(terms(scope, 0))


@st.composite
def _cumulative(draw: st.DrawFn, scope: _Scope, numbers: bool = False) -> str:
    """A cumulative of 2-3 tasks (sometimes 0-1); `numbers`: constants of both signs more often
    for durations, heights and the limit (a negative height that ends before another task
    does, or a time point no task covers, is what the load at the starts alone misses)."""

    def pick(values: st.SearchStrategy[int]) -> str:
        return draw(st.one_of(_task_term(scope), values.map(str)) if numbers else _task_term(scope))

    # One sign profile per constraint: all durations <= 0 leaves no time point to check,
    # heights of mixed signs make the load fall while a task still runs.
    durations = st.integers(*draw(st.sampled_from(((-2, 0), (-1, 4), (1, 4)))))
    heights = st.integers(*draw(st.sampled_from(((-3, 3), (-3, -1), (0, 3)))))
    tasks = []
    for _ in range(draw(st.integers(0, 3)) if draw(st.integers(0, 7)) == 0 else draw(st.integers(2, 3))):
        origin = draw(_task_term(scope))
        duration = pick(durations)
        end = f"(+ {origin} {duration})" if draw(st.integers(0, 3)) else draw(_task_term(scope))
        fields = [origin, duration, end]
        # At most one field is nil (most often the end); it is then derived from the other two.
        nil_at = draw(st.sampled_from((2, -1, 0, 1, 2)))
        if nil_at >= 0:
            fields[nil_at] = "nil"
        tasks.append(f"({' '.join(fields)} {pick(heights)})")
    return f"(cumulative ({' '.join(tasks)}) {pick(st.integers(-2, 3))})"


@st.composite
def _global(draw: st.DrawFn, scope: _Scope, nested: bool = False) -> str:
    """A global constraint; `nested` restricts to those that make sense inside other formulas."""
    simple = ["alldifferent", "weightedsum", "count", "element"]
    # cumulative and disjunctive are drawn more often: their faults need several tasks of
    # the right signs to show, and each draw has many terms.
    kinds = simple if nested else simple + [
        "cumulative", "disjunctive", "lex_less", "lex_lesseq", "nvalue",
        "global_cardinality", "global_cardinality_with_costs",
    ] + ["cumulative", "disjunctive"] * 3
    kind = draw(st.sampled_from(kinds))
    # Sugar reads the comparison of weightedsum, count and element under both spellings.
    op = _spell(draw, draw(st.sampled_from(COMPARISONS)), COMPARISON_ALIASES)
    if kind == "alldifferent":
        ts = draw(_small_terms(scope, 2, 4))
        if draw(st.booleans()):
            return f"(alldifferent ({' '.join(ts)}))"
        return f"(alldifferent {' '.join(ts)})"
    if kind == "weightedsum":
        ts = draw(_small_terms(scope, 1, 3))
        pairs = " ".join(f"({draw(st.integers(-3, 3))} {t})" for t in ts)
        name = draw(st.sampled_from(("weightedsum", "wsum")))
        return f"({name} ({pairs}) {op} {draw(terms(scope, 1))})"
    if kind == "count":
        ts = draw(_small_terms(scope, 1, 4))
        return f"(count {draw(terms(scope, 0))} ({' '.join(ts)}) {op} {draw(terms(scope, 1))})"
    if kind == "element":
        ts = draw(_small_terms(scope, 1, 4))
        index, value = draw(terms(scope, 1)), draw(terms(scope, 1))
        if draw(st.booleans()):
            return f"(element {index} ({' '.join(ts)}) {value})"
        return f"(element {index} ({' '.join(ts)}) {op} {value})"
    if kind == "cumulative":
        return draw(_cumulative(scope))
    if kind == "disjunctive":
        tasks = [f"({draw(_task_term(scope))} {draw(_task_term(scope))})" for _ in range(draw(st.integers(2, 3)))]
        return f"(disjunctive ({' '.join(tasks)}))"
    if kind in ("lex_less", "lex_lesseq"):
        n = draw(st.integers(1, 3))
        a, b = draw(_small_terms(scope, n, n)), draw(_small_terms(scope, n, n))
        return f"({kind} ({' '.join(a)}) ({' '.join(b)}))"
    if kind == "nvalue":
        return f"(nvalue {draw(terms(scope, 0))} ({' '.join(draw(_small_terms(scope, 1, 4)))}))"
    ts = draw(_small_terms(scope, 1, 3))
    listed = draw(st.lists(st.integers(-2, 3), min_size=1, max_size=3, unique=True))
    # a value may be a term (Sugar passes it on to count): then two pairs may name one value at run time
    values = [draw(st.sampled_from([str(v), str(v), str(v), draw(terms(scope, 0))])) for v in listed]
    pairs = " ".join(f"({value} {draw(terms(scope, 0))})" for value in values)
    if kind == "global_cardinality":
        return f"(global_cardinality ({' '.join(ts)}) ({pairs}))"
    table = draw(
        st.lists(
            st.tuples(st.integers(1, len(ts)), st.integers(1, len(listed)), st.integers(0, 3)),
            min_size=1,
            max_size=4,
            unique_by=lambda e: (e[0], e[1]),
        )
    )
    weights = [draw(st.sampled_from([str(w), str(w), draw(terms(scope, 0))])) for _, _, w in table]
    entries = " ".join(f"({i} {j} {weight})" for (i, j, _), weight in zip(table, weights))
    return f"(global_cardinality_with_costs ({' '.join(ts)}) ({pairs}) ({entries}) {draw(terms(scope, 0))})"


# ---------------------------------------------------------------- whole files


@st.composite
def _predicates(draw: st.DrawFn, scope: _Scope) -> list[str]:
    """Up to three predicates: one over terms, one calling it, one with a formula parameter."""
    lines = []
    if draw(st.booleans()):
        scope.params = {"a": "t", "b": "t"}
        body = draw(formulas(scope, 2))
        lines.append(f"(predicate (p0 a b) {body})")
        scope.predicates["p0"] = ("t", "t")
        if draw(st.booleans()):
            scope.params = {"u": "t", "v": "t", "w": "t"}
            # A body calling another predicate, built by hand: bodies do not draw calls.
            other = draw(formulas(scope, 1))
            lines.append(f"(predicate (p1 u v w) (and (p0 u (+ v w)) {other}))")
            scope.predicates["p1"] = ("t", "t", "t")
    if draw(st.booleans()):
        scope.params = {"f": "f", "c": "t"}
        body = draw(formulas(scope, 2))
        lines.append(f"(predicate (q0 f c) (or f {body}))")
        scope.predicates["q0"] = ("f", "t")
    if draw(st.integers(0, 3)) == 0:
        # A cumulative over parameters: its horizon comes from the bounds of each call's arguments.
        scope.params = {"s": "t", "k": "t"}
        lines.append(f"(predicate (c0 s k) {draw(_cumulative(scope))})")
        scope.predicates["c0"] = ("t", "t")
    scope.params = {}
    return lines


@st.composite
def _relations(draw: st.DrawFn, scope: _Scope) -> list[str]:
    lines = []
    for k in range(draw(st.integers(0, 2))):
        arity = draw(st.integers(1, 3))
        values = sorted({v for vs in scope.ints.values() for v in vs} | {-5, 9})
        tuples = draw(
            st.lists(st.tuples(*[st.sampled_from(values)] * arity), min_size=0, max_size=6, unique=True)
        )
        kind = draw(st.sampled_from(("supports", "conflicts")))
        body = " ".join("(" + " ".join(map(str, t)) + ")" for t in tuples)
        lines.append(f"(relation r{k} {arity} ({kind}{' ' + body if body else ''}))")
        scope.relations[f"r{k}"] = arity
    return lines


@st.composite
def csp_texts(draw: st.DrawFn) -> str:
    """A whole random CSP file whose assignments can be enumerated (at most `MAX_ASSIGNMENTS`)."""
    scope = _Scope()
    lines: list[str] = []
    n_vars = draw(st.integers(3, 8))
    n_bools = draw(st.integers(0, min(2, n_vars - 2)))
    budget = MAX_ASSIGNMENTS // (2**n_bools)
    n_ints = n_vars - n_bools
    for i in range(n_ints):
        # Leave each remaining variable at least two values.
        max_size = max(1, budget // (2 ** (n_ints - i - 1)))
        values = draw(_domain_values(min(max_size, 6)))
        budget //= len(values)
        hidden = draw(st.integers(0, 7)) == 0
        name = f"_h{i}" if hidden else f"x{i}"
        spec = _domain_text(draw, values)
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"(domain d{i} {spec})")
            spec = f"d{i}"
        lines.append(f"(int {name} {spec})")
        scope.ints[name] = values
    for i in range(n_bools):
        name = f"_q{i}" if draw(st.integers(0, 7)) == 0 else f"b{i}"
        lines.append(f"(bool {name})")
        scope.bools.append(name)
    lines += draw(_relations(scope))
    lines += draw(_predicates(scope))
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 2)) == 0:
            lines.append(draw(_global(scope)))
        else:
            lines.append(draw(formulas(scope, 3)))
    return _with_objective(draw, scope, lines)


def _with_objective(draw: st.DrawFn, scope: _Scope, lines: list[str]) -> str:
    printed = [n for n in scope.ints if not n.startswith("_")]
    if printed and draw(st.integers(0, 3)) == 0:
        sense = draw(st.sampled_from(("minimize", "maximize")))
        lines.append(f"(objective {sense} {draw(st.sampled_from(printed))})")
    return "\n".join(lines) + "\n"


@st.composite
def scheduling_texts(draw: st.DrawFn) -> str:
    """A small file around one cumulative or disjunctive: 2-4 integers of any sign, 2-3 tasks.

    Drawn on its own because in a whole random file the other constraints
    usually hide what a time point or a negative duration changes.
    """
    scope = _Scope()
    lines: list[str] = []
    for i in range(draw(st.integers(2, 4))):
        values = draw(_domain_values(4))
        lines.append(f"(int x{i} {_domain_text(draw, values)})")
        scope.ints[f"x{i}"] = values
    kind = draw(st.sampled_from(("cumulative", "disjunctive")))
    if kind == "cumulative":
        lines.append(draw(_cumulative(scope, numbers=True)))
    else:
        # Constant durations of both signs: one task long enough to contain the
        # start of one of negative duration is what tells "exactly 0" from "<= 0".
        constants = st.integers(-3, 6).map(str)
        durations = st.one_of(_task_term(scope), constants, constants)
        tasks = [f"({draw(_task_term(scope))} {draw(durations)})" for _ in range(draw(st.integers(2, 3)))]
        lines.append(f"(disjunctive ({' '.join(tasks)}))")
    if draw(st.booleans()):
        lines.append(draw(formulas(scope, 1, globals_ok=False)))
    return _with_objective(draw, scope, lines)


@st.composite
def _constant_use(draw: st.DrawFn, name: str, values: list[int]) -> str:
    """A formula about integer `name` and constants only: `x = c`, `x ≠ c`, a bound, or a membership
    (an `or` of values and intervals, as the puzzle generators write it)."""
    near = st.integers(values[0] - 1, values[-1] + 1)
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return f"({_spell(draw, draw(st.sampled_from(('eq', 'ne'))), COMPARISON_ALIASES)} {name} {draw(near)})"
    if kind == 1:
        op = _spell(draw, draw(st.sampled_from(COMPARISONS)), COMPARISON_ALIASES)
        return f"({op} {draw(near)} {name})" if draw(st.booleans()) else f"({op} {name} {draw(near)})"
    items = []
    for _ in range(draw(st.integers(1, 3))):
        lo = draw(near)
        hi = draw(st.integers(lo, values[-1] + 1))
        items.append(f"(= {name} {lo})" if lo == hi else f"(and (<= {lo} {name}) (<= {name} {hi}))")
    member = items[0] if len(items) == 1 else f"(or {' '.join(items)})"
    return member if kind == 2 else f"(not {member})" if kind == 3 else f"(and {member} (!= {name} {draw(near)}))"


@st.composite
def constant_use_texts(draw: st.DrawFn) -> str:
    """A file where some integers are used only against constants (the direct encoding's candidates
    under ``-O int=mixed``), linked by Booleans, implications and equivalences, next to integers
    in sums and alldifferent (which keep the order encoding)."""
    scope = _Scope()
    lines: list[str] = []
    budget = MAX_ASSIGNMENTS
    n_bools = draw(st.integers(0, 2))
    budget //= 2**n_bools
    n_local = draw(st.integers(1, 3))
    n_other = draw(st.integers(0, 2))
    local: list[str] = []
    for i in range(n_local + n_other):
        left = n_local + n_other - i - 1
        values = draw(_domain_values(min(6, max(1, budget // (2**left)))))
        budget //= len(values)
        name = (f"_c{i}" if draw(st.integers(0, 5)) == 0 else f"c{i}") if i < n_local else f"y{i}"
        lines.append(f"(int {name} {_domain_text(draw, values)})")
        scope.ints[name] = values
        if i < n_local:
            local.append(name)
    for i in range(n_bools):
        lines.append(f"(bool b{i})")
        scope.bools.append(f"b{i}")

    def fact(var: str) -> str:
        return draw(_constant_use(var, scope.ints[var]))

    others = [n for n in scope.ints if n not in local]
    for _ in range(draw(st.integers(2, 6))):
        kind = draw(st.integers(0, 4))
        a, b = draw(st.sampled_from(local)), draw(st.sampled_from(local))
        if kind == 0:
            lines.append(fact(a))
        elif kind == 1:
            lines.append(f"({draw(st.sampled_from(('iff', 'imp', 'xor')))} {fact(a)} {fact(b)})")
        elif kind == 2 and scope.bools:
            lines.append(f"({draw(st.sampled_from(('iff', 'imp')))} {draw(st.sampled_from(scope.bools))} {fact(a)})")
        elif kind == 3:
            lines.append(f"(or {fact(a)} {fact(b)} {fact(draw(st.sampled_from(local)))})")
        elif others:
            lines.append(draw(formulas(scope, 2, globals_ok=False)))
    if len(others) >= 2 and draw(st.booleans()):
        lines.append(f"(alldifferent {' '.join(others)})")
    return _with_objective(draw, scope, lines)
