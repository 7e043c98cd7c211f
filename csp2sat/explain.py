"""Beyond Sugar, diagnosis stage: why is a CSP unsatisfiable? A minimal conflicting set of its constraints.

The model is compiled with one selector literal per source constraint
(``compile_model(..., selectors=True)``). All selectors are assumed; when the
solver answers UNSAT, its core is minimised by deletion: drop one member at a
time, keep it dropped while the rest is still UNSAT (and shrink to the smaller
core the solver returns each time). The result is minimal: every proper
subset is satisfiable.

Declarations count as constraints too. ``(int x 1 3)`` with ``(> x 3)`` is
unsatisfiable because of the declaration, so an explanation must be able to
name it. Decision: every integer variable is compiled with a *widened*
domain, and its declared domain becomes one more selectable constraint
(membership in the declared values, attributed to the declaration's line).
Assuming every selector gives exactly the original problem, so the verdict
is unchanged. A declaration left out of an explanation means the conflict
remains even when that variable may take any value of its widened range:
the declared interval extended on both sides by ``max(size of the declared
hull, largest |constant| or |value of a compared term| in the model + 1)`` values, capped at `WIDEN_CAP`
values in all. This is a finite stand-in for "any integer" and is what
"minimal" is measured against (the cap keeps the order encoding small). The compared
terms are bounded over the declared domains: in ``(int z 0 5) (= z (* x y))`` with x and y in
0..5, z may reach 25, so leaving z's declaration out of an explanation says that no z up to
25 helps (a widening by constants only let z reach 6 and blamed the product instead); with
``widen=False`` declarations are hard and explanations list constraints only.

The objective, if any, plays no part: a problem without a feasible solution
has no optimum either.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from pysat.solvers import Solver

from csp2sat.compiler import compile_model
from csp2sat.diagnostics import CspError, Exit
from csp2sat.evaluator import term_bounds
from csp2sat.solver import AUTO_SOLVER, choose_solver, new_solver, released, without_auto
from csp2sat.syntax import Constraint, Domain, IntVar, Model, Node


# The most values a widened domain may have (order encoding: one literal each).
WIDEN_CAP = 1024


@dataclass(frozen=True)
class Part:
    """One member of an explanation: a source constraint or a declaration (`kind` "constraint" / "declaration").

    `index` is its position among the constraints of the relaxed model (`relax`).
    """

    kind: str
    file: str
    line: int
    text: str
    index: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}"


# ---------------------------------------------------------------- source text


def _source_lines(path: str) -> list[str] | None:
    """The lines of the model's file, or None when it cannot be read (then texts are rebuilt)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _sexpr_at(lines: list[str], line: int, col: int) -> str | None:
    """The parenthesised expression starting at (line, col), on one line with spaces collapsed."""
    if not (1 <= line <= len(lines)) or col < 1:
        return None
    depth, out = 0, []
    for row in range(line - 1, len(lines)):
        text = lines[row][col - 1 :] if row == line - 1 else lines[row]
        for ch in text:
            if ch == ";":  # a comment runs to the end of its line
                break
            out.append(ch)
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return " ".join("".join(out).split())
            if depth == 0 and not out[0] == "(":
                return None
        out.append(" ")
    return None


def _domain_text(domain: Domain) -> str:
    """A domain in Sugar's syntax."""
    if len(domain.intervals) == 1:
        lo, hi = domain.intervals[0]
        return f"{lo} {hi}" if lo != hi else str(lo)
    return "(" + " ".join(f"({lo} {hi})" if lo != hi else str(lo) for lo, hi in domain.intervals) + ")"


# ---------------------------------------------------------------- the relaxed model


def _constants(model: Model) -> list[int]:
    """Every integer constant the constraints, predicates and relations mention."""
    consts = [0]
    bodies = [c.formula for c in model.constraints] + [p.body for p in model.predicates.values()]
    for body in bodies:
        consts.extend(n.value for n in body.walk() if n.op == "const" and isinstance(n.value, int))
    for rel in model.relations.values():
        for tup in rel.tuples:
            consts.extend(tup)
    return consts


_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def _compared_magnitude(model: Model) -> int:
    """The largest |value| a term compared in a constraint can take over the declared domains (0 if none).

    A constant folded from others (``(* 10 10)``) or a product of variables can lie far beyond every
    constant written, and a widened variable must be able to meet it: else a declaration that the
    conflict needs looks unneeded. Terms that cannot be bounded (inside predicates, say) are skipped.
    """
    bounds = model.declared_bounds()
    biggest = 0
    for c in model.constraints:
        for node in c.formula.walk():
            if node.op not in _COMPARISONS:
                continue
            for arg in node.args:
                try:
                    lo, hi = term_bounds(arg, bounds)
                except (CspError, KeyError, TypeError, ValueError):
                    continue
                biggest = max(biggest, abs(lo), abs(hi))
    return biggest


def _membership(var: IntVar) -> Node:
    """The formula "var takes one of its declared values", positioned at the declaration."""
    ref = Node("ivar", value=var.name, line=var.line, col=var.col)

    def const(c: int) -> Node:
        return Node("const", value=c, line=var.line, col=var.col)

    pieces = []
    for lo, hi in var.domain.intervals:
        if lo == hi:
            pieces.append(Node("eq", (ref, const(lo)), line=var.line, col=var.col))
        else:
            pieces.append(
                Node(
                    "and",
                    (Node("ge", (ref, const(lo)), line=var.line, col=var.col), Node("le", (ref, const(hi)))),
                    line=var.line,
                    col=var.col,
                )
            )
    return pieces[0] if len(pieces) == 1 else Node("or", tuple(pieces), line=var.line, col=var.col)


def relax(model: Model, widen: bool = True) -> tuple[Model, list[Part]]:
    """The model to compile with selectors, and the `Part` each of its constraints stands for.

    With `widen`, integer domains are widened and each declaration is added
    as a membership constraint (see the module docstring); the objective is dropped.
    """
    lines = _source_lines(model.file)
    parts = []
    for c in model.constraints:
        text = c.text or (lines and _sexpr_at(lines, c.line, c.col)) or "(constraint)"
        parts.append(Part("constraint", model.file, c.line, " ".join(text.split()), len(parts)))
    # widened domains must not move cumulative's horizon: it stays the declared domains' (`Model.horizon_bounds`)
    relaxed = replace(model, objective=None, constraints=list(model.constraints), int_vars=dict(model.int_vars),
                      horizon_bounds=model.declared_bounds())
    if not widen:
        return relaxed, parts
    biggest = max(max(abs(c) for c in _constants(model)), _compared_magnitude(model))
    for name, var in model.int_vars.items():
        lo, hi = var.domain.lb, var.domain.ub
        width = max(hi - lo + 1, biggest + 1)
        width = max(0, min(width, (WIDEN_CAP - (hi - lo + 1)) // 2))
        relaxed.int_vars[name] = replace(var, domain=Domain.range(lo - width, hi + width))
        relaxed.constraints.append(Constraint(_membership(var), var.line, var.col, ""))
        text = (lines and _sexpr_at(lines, var.line, var.col)) or f"(int {name} {_domain_text(var.domain)})"
        parts.append(Part("declaration", model.file, var.line, text, len(parts)))
    return relaxed, parts


# ---------------------------------------------------------------- core minimisation


def minimise_core(solver: Solver, core: Sequence[int]) -> list[int]:
    """Deletion-based minimisation of an UNSAT core of assumption literals.

    Every member is tried once: if the others are still UNSAT it goes, and
    the solver's (possibly smaller) core of the rest replaces the candidate set.
    """
    members = list(core)
    i = 0
    while i < len(members):
        trial = members[:i] + members[i + 1 :]
        if solver.solve(assumptions=trial):
            i += 1
            continue
        smaller = set(solver.get_core() or trial)
        members = [lit for lit in trial if lit in smaller]
    return members


@dataclass
class Explanation:
    """The result of `explain`: `satisfiable`, or the minimal conflicting `parts` (in file order).

    `domains_kept` is True when domains were to be widened but were kept as declared, because
    the widened problem would not fit in the memory limit (the parts are then constraints only).
    """

    satisfiable: bool
    parts: list[Part]
    domains_kept: bool = False


def explain(model: Model, solver: str = AUTO_SOLVER, widen: bool = True) -> Explanation:
    """A minimal set of the model's constraints (and declarations) that cannot all hold together.

    An empty list of parts for an unsatisfiable model means the compiled
    problem is unsatisfiable without any selectable constraint.

    The model is first solved as it is (without its objective): a satisfiable one needs no
    selectors, and its widened, untightened compilation can be many times larger (a 9x9 magic
    square: 4.6 M clauses as written, about 430 M widened).
    """
    plain = compile_model(replace(model, objective=None), single_answer=True)
    with released(new_solver(choose_solver(model, plain) if solver == AUTO_SOLVER else solver)) as sat:
        plain.load(sat)
        if sat.solve():
            return Explanation(True, [])
    del plain
    domains_kept = False
    try:
        relaxed, parts = relax(model, widen)
        compiled = compile_model(relaxed, selectors=True)
    except CspError as err:
        if not widen or err.exit != Exit.LIMIT:
            raise
        relaxed, parts = relax(model, False)
        compiled = compile_model(relaxed, selectors=True)
        domains_kept = True
    selectors = list(compiled.selectors)
    part_of = dict(zip(selectors, parts))
    # the core is minimised with the default solver under "auto"; Kissat ignores assumptions: new_solver emulates them
    with released(new_solver(without_auto(solver))) as sat:
        compiled.load(sat)
        if sat.solve(assumptions=selectors):
            return Explanation(True, [])
        core = minimise_core(sat, sat.get_core() or selectors)
    chosen = sorted((part_of[lit] for lit in core), key=lambda p: (p.line, p.kind != "declaration"))
    return Explanation(False, chosen, domains_kept)
