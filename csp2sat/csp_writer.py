"""Output stage for `csp2sat convert`: a checked `Model` written back as a Sugar CSP file.

The model of another front end (XCSP3) becomes a ``.csp`` file that Sugar and
`csp2sat solve` read, laid out by the formatter (`csp2sat.formatter`): the
integer variables, the relations, each constraint after a comment naming the
line of the source it came from, then the objective.
"""

from __future__ import annotations

from typing import TextIO

from csp2sat.formatter import format_node, statement_sx, _layout
from csp2sat.syntax import Domain, IntDecl, Model, ObjectiveDecl, RelationDecl


def _spec(domain: Domain) -> tuple:
    if len(domain.intervals) == 1:
        lo, hi = domain.intervals[0]
        return ("bounds", lo, hi)
    return ("ranges", tuple((lo,) if lo == hi else (lo, hi) for lo, hi in domain.intervals))


def write_model(model: Model, out: TextIO, header: list[str] = ()) -> None:  # type: ignore[assignment]
    """Write `model` as Sugar CSP text to `out`, after the comment lines `header`."""
    for line in header:
        out.write(f"; {line}\n")
    for var in model.int_vars.values():
        out.write(_layout(statement_sx(IntDecl(var.name, _spec(var.domain))), 0) + "\n")
    for var in model.bool_vars.values():
        out.write(f"(bool {var.name})\n")
    for rel in model.relations.values():
        out.write(_layout(statement_sx(RelationDecl(rel.name, rel.arity, rel.supports, rel.tuples)), 0) + "\n")
    last = None
    for c in model.constraints:
        if c.text and c.text != last:
            out.write(f"; line {c.line}: {c.text}\n")
            last = c.text
        out.write(format_node(c.formula) + "\n")
    if model.objective is not None:
        objective = model.objective
        out.write(_layout(statement_sx(ObjectiveDecl(objective.sense, (objective.var,))), 0) + "\n")
