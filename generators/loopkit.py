"""Generator stage, shared by the loop genres (Slitherlink, Masyu): one closed loop on a grid graph.

Writes the Sugar constraints that make a set of 0/1 edge variables form exactly
one simple closed loop, and draws loops as text. The genres give the graph
(nodes and the edge variable between two nodes) and add their own clue rules.

Encoding (plain Sugar, chosen to keep the CNF small):

- every node has an on-loop 0/1 variable ``p_R_C`` with ``sum(edges) = 2 p``,
  so degrees are 0 or 2 (no branches, no dead ends);
- connectivity by rooted numbering, as the Hashiwokakero seed does with
  ``z``/``r``: every loop node but one root has a loop neighbour with a smaller
  number. Following smaller numbers always ends at the root, so every loop node
  is joined to it and the loop is one circuit. The numbers are written in
  binary (Boolean bits ``z_R_C_K``, compared by a predicate ``bin_lt``) because an
  order-encoded number would cost a clause per value per arc (a 30x25
  Slitherlink has 806 nodes: ~2.5M clauses), while a K-bit comparison costs
  O(K);
- the root is a node certain to be on the loop when the genre knows one (a
  corner of a Slitherlink 3, a Masyu circle); otherwise the first loop node in
  reading order, found by a prefix chain of Booleans ``s_R_C`` ("some node up
  to here is on the loop"). Either way there is exactly one root, which also
  removes the symmetric choices of a free root.
"""

from __future__ import annotations

from typing import Sequence

from generators.boardkit import CspText

Pos = tuple[int, int]
# An edge of the graph: its 0/1 variable name and the two nodes it joins.
Edge = tuple[str, Pos, Pos]


def on_var(node: Pos) -> str:
    """The name of the on-loop variable of a node."""
    return f"p_{node[0]}_{node[1]}"


def _bits(node: Pos, width: int) -> list[str]:
    # Most significant bit first, the order the `lt` predicate takes them in.
    return [f"z_{node[0]}_{node[1]}_{k}" for k in range(width - 1, -1, -1)]


def lt_predicate(width: int) -> str:
    """``(predicate (bin_lt A... B...) ...)``: the unsigned binary number A (msb first) is less than B."""
    a = [f"a{k}" for k in range(width - 1, -1, -1)]
    b = [f"b{k}" for k in range(width - 1, -1, -1)]
    # Built from the least significant bit up: lt_k = (!a_k & b_k) | (a_k <= b_k & lt_{k-1}).
    body = f"(and (! {a[-1]}) {b[-1]})"
    for x, y in zip(reversed(a[:-1]), reversed(b[:-1])):
        body = f"(or (and (! {x}) {y}) (and (or (! {x}) {y}) {body}))"
    return f"(predicate (bin_lt {' '.join(a + b)}) {body})"


def single_loop(out: CspText, nodes: Sequence[Pos], edges: Sequence[Edge], certain: Sequence[Pos] = ()) -> None:
    """Write the rules "the edges with value 1 form exactly one closed loop" into `out`.

    `nodes` are in reading order; `certain` lists nodes the loop must pass
    through (the first becomes the root). Declares ``p``/``z`` (and ``s`` without a
    certain node) variables; the edge variables must already be declared 0..1.
    """
    incident: dict[Pos, list[tuple[str, Pos]]] = {n: [] for n in nodes}
    for name, a, b in edges:
        incident[a].append((name, b))
        incident[b].append((name, a))
    width = max(1, (len(nodes) - 1).bit_length())

    out.block(
        "Loop: every node has 0 or 2 loop edges (p_R_C = 1: the loop passes through the node)",
        "no branches and no dead ends, so the loop edges form disjoint circuits",
    )
    for node in nodes:
        out.add(f"(int {on_var(node)} 0 1)")
    for node in nodes:
        names = [name for name, _ in incident[node]]
        if names:
            out.add(f"(= (+ {' '.join(names)}) (* 2 {on_var(node)}))")
        else:
            out.add(f"(= {on_var(node)} 0)")

    root = certain[0] if certain else None
    out.block(
        "Loop: one circuit only (rooted numbering in binary, z_R_C_K is bit K of node R,C's number)",
        "every loop node but the root has a loop neighbour with a smaller number,",
        "so every loop node is joined to the root",
        "(bin_lt A B): the binary number A (bits msb first) is less than B",
    )
    out.add(lt_predicate(width))
    for node in nodes:
        out.extend(f"(bool {bit})" for bit in _bits(node, width))
    nonroot: dict[Pos, str] = {}
    if root is not None:
        out.comment("nodes every solution passes through")
        out.extend(f"(= {on_var(node)} 1)" for node in certain)
        out.comment(f"the root is node {root[0]},{root[1]}; it is number 0")
        out.extend(f"(! {bit})" for bit in _bits(root, width))
        nonroot = {n: f"(= {on_var(n)} 1)" for n in nodes if n != root}
    else:
        out.comment("the root is the first loop node in reading order: s_R_C says a node up to R,C is on the loop")
        out.extend(f"(bool s_{r}_{c})" for r, c in nodes)
        previous = None
        for r, c in nodes:
            here = f"(= {on_var((r, c))} 1)"
            if previous is None:
                out.add(f"(iff s_{r}_{c} {here})")
            else:
                out.add(f"(iff s_{r}_{c} (or {previous} {here}))")
                nonroot[(r, c)] = f"(and {here} {previous})"
            previous = f"s_{r}_{c}"
        out.comment("there is a loop")
        out.add(previous or "false")
    for node in nodes:
        if node not in nonroot or not incident[node]:
            continue
        mine = " ".join(_bits(node, width))
        parents = " ".join(
            f"(and (= {name} 1) (bin_lt {' '.join(_bits(other, width))} {mine}))" for name, other in incident[node]
        )
        out.add(f"(=> {nonroot[node]} (or {parents}))")

