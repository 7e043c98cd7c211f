"""Output stage for XCSP3 input: the XCSP3 competition format.

``o N`` for each improved objective value, one ``s`` line
(``SATISFIABLE``, ``UNSATISFIABLE``, ``OPTIMUM FOUND`` or ``UNKNOWN``) and the
last answer as ``v <instantiation> ... </instantiation>``: arrays whose cells
are all defined are written ``x[]`` with their values in row-major order,
everything else variable by variable, in declaration order.
"""

from __future__ import annotations

from typing import Mapping, Union

from csp2sat.xcsp3_read import Instance


def answer_ids(inst: Instance) -> list[tuple[str, list[str]]]:
    """(list item, the variable ids it stands for) in declaration order."""
    out: list[tuple[str, list[str]]] = []
    for ident in inst.declared:
        if ident in inst.arrays:
            prefix = ident + "["
            cells = [x for x in inst.domains if x.startswith(prefix)]
            total = 1
            for s in inst.arrays[ident]:
                total *= s
            if len(cells) == total:
                out.append((ident + "[]" * len(inst.arrays[ident]), cells))
            else:
                out.extend((c, [c]) for c in cells)
        elif ident in inst.domains:
            out.append((ident, [ident]))
    return out


def instantiation(inst: Instance, names: Mapping[str, str], values: Mapping[str, Union[int, bool]],
                  cost: int | None = None) -> str:
    """The ``v`` line of one answer (`values` keyed by Sugar name, `names` maps XCSP3 ids to them)."""
    items = answer_ids(inst)
    listed = " ".join(item for item, _ in items)
    vals = " ".join(str(values[names[x]]) for _, ids in items for x in ids)
    kind = ' type="solution"' + (f' cost="{cost}"' if cost is not None else "")
    return f"v <instantiation{kind}> <list> {listed} </list> <values> {vals} </values> </instantiation>"
