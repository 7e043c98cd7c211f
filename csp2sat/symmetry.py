"""Before normalising, for one-answer solving only: break value symmetry where it provably changes no optimum.

Graph colouring written the Sugar way (``(!= n1 n2)`` per edge, ``(<= n1 color)``
per node, minimise ``color``) has k! equivalent answers for every colouring with
k colours, and a SAT solver proving "no colouring with fewer colours" walks
through all of them (gcp-myciel5: 22 s, with the constraints added here 0.1 s).

`interchangeable_groups` finds integer variables whose values are interchangeable:
a set X of variables with one interval domain a..b that every constraint
touches only as

* ``(!= x y)`` or ``(alldifferent x y ...)`` with every argument a plain variable of X, or
* ``x ≤ u`` (``<=``, ``<``, ``>=``, ``>`` with x on the small side), u a variable
  outside X or a constant, with the SAME set of such bounds for every x of X,

and that is not the objective. Then renaming the values used by X in the order
of their first use to a, a+1, ... turns any answer into one that satisfies every
constraint and has the same objective: the renaming is injective on the values
used (≠ and alldifferent hold), maps into a..a+|S|-1 where |S| values are used
(the domain holds), and a+|S|-1 ≤ max(S) ≤ every bound u (bounds hold); no other
variable changes. So "each x_i is at most one more than the largest value before
it" (value precedence, Law & Lee 2004) keeps at least one answer of every objective
value, and is added per connected component of the ≠ graph, the most constrained
variables first. It is written ``(or (<= xᵢ (+ x₁ 1)) ... (<= xᵢ (+ xᵢ₋₁ 1)))``, which
the encoder turns into one clause per value of xᵢ, next to the bound xᵢ ≤ a + i - 1 that it implies
(which narrows xᵢ's domain before encoding); every `PRECEDENCE_BLOCK` variables a
hidden m ≤ max(the variables so far) takes their place, so that clauses stay short (m =
the largest value so far, capped at b - 1, fits the renamed answer).

It removes answers, so `--all`, `--count`, `--unique` and `--facts` must never
use it (the compiler applies it only when asked for one answer).
"""

from __future__ import annotations

from dataclasses import replace

from csp2sat.syntax import Constraint, Domain, IntVar, Model, Node

_FLIP = {"ge": "le", "gt": "lt"}

# How many earlier variables a precedence constraint names before a hidden variable takes their
# maximum: longer blocks mean fewer clauses (issue 10: colouring CNFs at or below Sugar's), shorter
# ones shorter clauses. Measured on the colouring families, 2026-12-03 (docs/performance.md).
PRECEDENCE_BLOCK = 8


def interchangeable_groups(model: Model) -> list[list[str]]:
    """Connected groups of variables with interchangeable values (see the module docstring), most constrained first."""
    ints = model.int_vars
    excluded: set[str] = set()
    if model.objective is not None:
        excluded.update(model.objective.shown)
        excluded.add(model.objective.var)
    neighbours: dict[str, set[str]] = {}
    bounds: dict[str, set[tuple[str, object]]] = {}

    def exclude_all(node: Node) -> None:
        excluded.update(n.value for n in node.walk() if n.op == "ivar")

    for con in model.constraints:
        f = con.formula
        op, args = f.op, f.args
        if op in ("ne", "alldifferent") and len(args) >= 2 and all(a.op == "ivar" for a in args):
            names = [a.value for a in args]
            if len(set(names)) < len(names):
                exclude_all(f)
                continue
            for x in names:
                neighbours.setdefault(x, set()).update(y for y in names if y != x)
            continue
        if op in ("le", "lt", "ge", "gt") and len(args) == 2:
            small, large = (args[1], args[0]) if op in _FLIP else (args[0], args[1])
            strict = _FLIP.get(op, op) == "lt"
            if small.op == "ivar" and large.op in ("ivar", "const") and small.value != large.value:
                bounds.setdefault(small.value, set()).add((strict, large.op, large.value))
                if large.op == "ivar":
                    excluded.add(large.value)  # bounded from below by x: not renamed
                continue
        exclude_all(f)

    def key(x: str) -> tuple:
        dom = ints[x].domain
        return (dom.intervals, frozenset(bounds.get(x, ())))

    members = {x for x in neighbours if x not in excluded and len(ints[x].domain.intervals) == 1}
    members -= {x for x in members if any(u[1] == "ivar" and u[2] in members for u in bounds.get(x, ()))}
    changed = True
    while changed:  # a ≠ to a variable outside the set, or with another domain or bounds, pins both ends
        changed = False
        for x in list(members):
            if any(y not in members or key(y) != key(x) for y in neighbours[x]):
                members.discard(x)
                changed = True
    groups: list[list[str]] = []
    seen: set[str] = set()
    order = {name: k for k, name in enumerate(ints)}
    for start in sorted(members, key=order.__getitem__):
        if start in seen:
            continue
        component, stack = [], [start]
        seen.add(start)
        while stack:
            x = stack.pop()
            component.append(x)
            for y in neighbours[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        if len(component) >= 2:
            component.sort(key=lambda x: (-len(neighbours[x]), order[x]))
            groups.append(component)
    return groups


def break_value_symmetry(model: Model) -> tuple[Model, int]:
    """`model` plus value-precedence constraints for every interchangeable group, and how many were added.

    Auxiliary variables are hidden (their names start with ``_``) and fresh;
    the answers of the result are answers of `model` with the same objective
    value, and every objective value of `model` keeps at least one answer.
    """
    groups = interchangeable_groups(model)
    if not groups:
        return model, 0
    int_vars = dict(model.int_vars)
    constraints = list(model.constraints)
    added = 0
    prefix = "_vsym"
    while any(name.startswith(prefix) for name in int_vars):
        prefix = "_" + prefix

    def ivar(name: str) -> Node:
        return Node("ivar", (), name)

    def const(v: int) -> Node:
        return Node("const", (), v)

    def add(formula: Node, text: str) -> None:
        nonlocal added
        constraints.append(Constraint(formula, text=f"{text} ; value symmetry breaking"))
        added += 1

    for g, group in enumerate(groups):
        lo, hi = int_vars[group[0]].domain.lb, int_vars[group[0]].domain.ub
        add(Node("le", (ivar(group[0]), const(lo))), f"(<= {group[0]} {lo})")
        earlier: list[Node] = [const(lo)]  # the largest value so far is the largest of these
        for i, x in enumerate(group[1:], start=1):
            if lo + i < hi:  # implied by the next one, but a disjunction narrows no domain before encoding
                add(Node("le", (ivar(x), const(lo + i))), f"(<= {x} {lo + i})")
            # x ≤ max(earlier) + 1, written as a disjunction: one clause per value of x, no helper
            add(*_disjunction(x, [Node("add", (t, const(1))) for t in earlier]))
            earlier.append(ivar(x))
            if len(earlier) > PRECEDENCE_BLOCK and i < len(group) - 1:
                # A hidden mᵢ ≤ max(earlier) stands for them from now on, so that clauses stay short:
                # the renamed answer's min(hi - 1, largest so far) fits it, and a value above hi - 1
                # would allow nothing more for the next variable (at most hi anyway).
                name = f"{prefix}{g}_{i}"
                int_vars[name] = IntVar(name, Domain.range(lo, min(max(hi - 1, lo), lo + i)))
                add(*_disjunction(name, earlier))
                earlier = [ivar(name)]
    return replace(model, int_vars=int_vars, constraints=constraints), added


def _disjunction(x: str, bounds: list[Node]) -> tuple[Node, str]:
    """``(or (<= x b₁) (<= x b₂) ...)``, i.e. x ≤ max(b₁, b₂, ...), and its Sugar text; the encoder
    writes it as one clause per value of x (no helper variable for the max)."""
    x_node = Node("ivar", (), x)
    parts = [(Node("le", (x_node, b)), f"(<= {x} {_text(b)})") for b in bounds]
    if len(parts) == 1:
        return parts[0]
    return Node("or", tuple(p for p, _ in parts)), "(or " + " ".join(t for _, t in parts) + ")"


def _text(node: Node) -> str:
    if node.op == "add":
        return "(+ " + " ".join(_text(a) for a in node.args) + ")"
    return str(node.value)
