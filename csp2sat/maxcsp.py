"""Sugar's Max-CSP mode (``-max``): a model whose constraints all become soft, minimising the violated ones.

A stage between the front end and the compiler: `soften(model)` returns a new
`Model` in which every constraint C_i reads ``(xor C_i _violated_i)`` for a
fresh Boolean ``_violated_i``, and the objective minimises ``_violations`` =
the number of true ``_violated_i``. The search then runs as for any
objective (``o N`` and an answer per improvement, ``s OPTIMUM FOUND``). Names
starting with ``_`` are hidden from answers, as Sugar hides its own.

``_violated_i`` is true exactly when C_i is violated, so every ``o N`` is the
number of constraints the answer printed under it violates. (With the weaker
``(or C_i _violated_i)`` the first answers' counts were only upper bounds:
``o 2`` over an answer that violates one constraint.) A model that already has
an objective is refused: the two goals cannot both be optimised (see
docs/beyond-sugar.md).
"""

from __future__ import annotations

from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import BoolVar, Constraint, Domain, IntVar, Model, Node, Objective

__all__ = ["soften", "VIOLATIONS"]

VIOLATIONS = "_violations"


def soften(model: Model) -> Model:
    """The Max-CSP version of `model` (every constraint soft; minimise the number violated)."""
    if model.objective is not None:
        raise CspError(
            f"--max minimises the number of violated constraints and cannot be combined with the objective "
            f"({model.objective.sense} {model.objective.var}) of the file: remove one of them",
            model.objective.line,
            model.objective.col,
            model.file,
            Exit.USAGE,
        )
    soft = Model(
        file=model.file,
        int_vars=dict(model.int_vars),
        bool_vars=dict(model.bool_vars),
        relations=dict(model.relations),
        predicates=dict(model.predicates),
        warnings=list(model.warnings),
    )
    taken = set(model.int_vars) | set(model.bool_vars)
    counters = []
    for i, c in enumerate(model.constraints):
        name = f"_violated{i}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        soft.bool_vars[name] = BoolVar(name, c.line, c.col)
        flag = Node("bvar", (), name, c.line, c.col)
        soft.constraints.append(Constraint(Node("xor", (c.formula, flag), None, c.line, c.col), c.line, c.col, c.text))
        counters.append(Node("if", (flag, Node("const", (), 1), Node("const", (), 0))))
    total = VIOLATIONS
    while total in taken:
        total = "_" + total
    soft.int_vars[total] = IntVar(total, Domain.range(0, len(counters)))
    count = Node("add", tuple(counters)) if counters else Node("const", (), 0)
    soft.constraints.append(Constraint(Node("eq", (Node("ivar", (), total), count)), 0, 0, "(number of violated constraints)"))
    soft.objective = Objective("minimize", total, (total,))
    return soft
