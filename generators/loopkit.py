"""Generator stage, shared by the loop genres (Slitherlink, Masyu): one closed loop on a grid graph.

Writes the Sugar constraints that make a set of 0/1 edge variables form exactly
one simple closed loop, and draws loops as text. The genres give the graph
(nodes and the edge variable between two nodes) and add their own clue rules.

Encoding (plain Sugar, chosen so that unit propagation does the work):

Every variable declared here is an auxiliary one, hidden (``_`` prefix, see
`generators.base.helper`): the edges alone are the printed answer, so a loop
is printed once, not once per direction or numbering.

- every node has an on-loop 0/1 variable ``_p_R_C``; of its edges 0 are on
  when p = 0 and 2 when p = 1 (no branches, no dead ends), written as clauses;
- on a grid graph (every edge joins orthogonal neighbours: all genres here) one
  circuit only by turning (`boardkit.winding_rule`): every edge has a 2-bit
  number ``_w_E_0/1``, the direction of travel along it counted in quarter turns
  modulo 8; where two loop edges meet it changes by the turn made there, except
  at the root. A circuit turns by four quarter turns in all, so only the one
  through the root can close; per edge 2 Booleans, per pair of edges at a node
  4 or 6 clauses, no orientation (Slitherlink 30x25: about half the text);
- on any other graph the loop is oriented: a Boolean ``_d_E`` per edge E says it is travelled from
  its first node to its second, and at every node one of its two loop edges
  enters and the other leaves;
- connectivity by counting along the loop: every node has a W-bit number
  ``_z_R_C_K`` (bit K) and the node a loop edge enters has the number of the
  node it leaves plus one, modulo 2^W; the rule is lifted on entering the root.
  Going once round a circuit adds its length to a number, so with 2^W above
  every circuit length only the circuit through the root can close. Unlike
  numbers compared by "<" (a node needs *some* smaller neighbour, a choice the
  solver must guess right) the successor is a function: once the loop is known
  every number follows by unit propagation from the root. A stray circuit of
  length 2^J times an odd number fails on bit J whatever the higher bits are, so
  the short ones the solver tries are refuted after guessing J low bits.
  ``_n_R_C_K`` is bit K of the node's number plus one. In a bipartite graph
  (grids are) only the nodes of one side count (the others pass their number
  on unchanged): a circuit still gains half its length, W drops by one and
  only half the nodes need the increment. Each edge costs 4W copying clauses;
  the rules are predicates so the file stays small;
- the root is a node certain to be on the loop when the genre knows one (a
  corner of a Slitherlink 3, a Masyu circle; its number is fixed to 0); otherwise
  the first loop node in reading order, found by a prefix chain of Booleans
  ``_s_R_C`` ("some node up to here is on the loop").
"""

from __future__ import annotations

import itertools
from typing import Callable, Sequence

from csp2sat.generators.base import Violation, helper
from csp2sat.generators.boardkit import CspText, increment_predicate, register_width, winding_rule

Pos = tuple[int, int]
# An edge of the graph: its 0/1 variable name and the two nodes it joins.
Edge = tuple[str, Pos, Pos]


def on_var(node: Pos) -> str:
    """The name of the on-loop variable of a node."""
    return helper(f"p_{node[0]}_{node[1]}")


def counting_nodes(nodes: Sequence[Pos], incident: dict[Pos, list[tuple[str, Pos]]]) -> set[Pos]:
    """The nodes on entering which the count goes up.

    In a bipartite graph (grids are) every circuit alternates between the two
    sides, so counting on one side only still adds half the circuit's length,
    at least 2; the smaller side is taken, which narrows the numbers and halves
    the increment rules. Otherwise every node counts.
    """
    side: dict[Pos, int] = {}
    for start in nodes:
        if start in side:
            continue
        side[start] = 0
        stack = [start]
        while stack:
            node = stack.pop()
            for _, other in incident[node]:
                if other not in side:
                    side[other] = 1 - side[node]
                    stack.append(other)
                elif side[other] == side[node]:
                    return set(nodes)
    sides = [{n for n in nodes if side[n] == k} for k in (0, 1)]
    return min(sides, key=len)


def _bits(letter: str, node: Pos, width: int) -> list[str]:
    return [helper(f"{letter}_{node[0]}_{node[1]}_{k}") for k in range(width)]


def _equal(x: list[str], y: list[str]) -> str:
    # x = y bit by bit, as a conjunction of clauses: the compiler distributes an
    # enclosing (or LITERALS... (and CLAUSES...)) into clauses without new variables,
    # and a short guard outside is normalised once instead of once per clause.
    return "(and " + " ".join(f"(or (! {u}) {v}) (or {u} (! {v}))" for u, v in zip(x, y)) + ")"


def link_predicate(width: int, plain_second: bool = False) -> str:
    """``(predicate (link E D GA GB A... B... OA... OB...) ...)``: the counting rule along loop edge E.

    A, B are the numbers of the edge's first and second node, OA, OB their
    outgoing numbers. D true: E is travelled from the first node to the second,
    so B = OA unless GB is false (B is the root); D false: A = OB unless GA is false.
    With `plain_second` the second node does not count, its outgoing number is B
    itself and the parameters OB are left out (every edge of a bipartite graph
    is written so, from its counting end).
    """
    a, b, oa, ob = ([f"{x}{k}" for k in range(width)] for x in ("A", "B", "OA", "OB"))
    if plain_second:
        ob = b
    body = f"(or (= E 0) (and (or (! D) (! GB) {_equal(b, oa)}) (or D (! GA) {_equal(a, ob)})))"
    params = a + b + oa + ([] if plain_second else ob)
    return f"(predicate (link E D GA GB {' '.join(params)}) {body})"


def degree_predicate(degree: int) -> str:
    """``(predicate (degK P E1... EK) ...)``: the node's loop edges number 0 when P = 0 and 2 when P = 1.

    Written as clauses (an edge on puts the node on the loop and needs a second
    edge; no three edges; a node on the loop has an edge): they propagate as well
    as the sum ``(= (+ E...) (* 2 P))`` and compile without auxiliary variables.
    """
    edges = [f"E{k}" for k in range(1, degree + 1)]
    clauses = [f"(or (= P 0) {' '.join(f'(= {e} 1)' for e in edges)})"]
    for e in edges:
        others = " ".join(f"(= {o} 1)" for o in edges if o != e)
        clauses.append(f"(or (= {e} 0) (and (= P 1) (or {others})))" if others else f"(= {e} 0)")
    clauses += [f"(or {' '.join(f'(= {e} 0)' for e in trio)})" for trio in itertools.combinations(edges, 3)]
    return f"(predicate (deg{degree} P {' '.join(edges)}) (and {' '.join(clauses)}))"


def turn_predicate(degree: int) -> str:
    """``(predicate (turnK E1... EK X1... XK) ...)``: of two loop edges at a node, exactly one enters it.

    Xi is the literal "edge Ei enters this node" (its direction variable or the negation).
    """
    edges = [f"E{k}" for k in range(1, degree + 1)]
    enters = [f"X{k}" for k in range(1, degree + 1)]
    clauses = []
    for i, j in itertools.combinations(range(degree), 2):
        x, y = enters[i], enters[j]
        clauses.append(f"(or (= {edges[i]} 0) (= {edges[j]} 0) (and (or {x} {y}) (or (! {x}) (! {y}))))")
    return f"(predicate (turn{degree} {' '.join(edges + enters)}) (and {' '.join(clauses)}))"


def single_loop(out: CspText, nodes: Sequence[Pos], edges: Sequence[Edge], certain: Sequence[Pos] = ()) -> None:
    """Write the rules "the edges with value 1 form exactly one closed loop" into `out`.

    `nodes` are in reading order; `certain` lists nodes the loop must pass
    through (the first becomes the root). Declares the hidden ``_p`` (and ``_s``
    without a certain node) variables, and ``_w`` on a grid graph (every edge
    joins orthogonal neighbours), ``_d``, ``_z`` and ``_n`` on any other; the edge
    variables must already be declared 0..1.
    """
    incident: dict[Pos, list[tuple[str, Pos]]] = {n: [] for n in nodes}
    for name, a, b in edges:
        incident[a].append((name, b))
        incident[b].append((name, a))

    out.block(
        "Loop: every node has 0 or 2 loop edges (_p_R_C = 1: the loop passes through the node)",
        "no branches and no dead ends, so the loop edges form disjoint circuits",
        "(degK P E1 ... EK): of a node's K edges, 2 are on when P = 1 and none when P = 0",
    )
    out.extend(degree_predicate(k) for k in sorted({len(around) for around in incident.values()} - {0}))
    for node in nodes:
        out.add(f"(int {on_var(node)} 0 1)")
    for node in nodes:
        names = [name for name, _ in incident[node]]
        if names:
            out.add(f"(deg{len(names)} {on_var(node)} {' '.join(names)})")
        else:
            out.add(f"(= {on_var(node)} 0)")

    guard = _root(out, nodes, certain)
    if all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for _, a, b in edges):
        out.block(
            "Loop: one circuit only: no circuit closes except through the root (a grid graph, so by turning:",
            "travelled round a circuit, a line turns four quarter turns in all)",
        )
        winding_rule(out, incident, guard)
    else:
        _counting_rule(out, nodes, edges, incident, certain[0] if certain else None, guard)


def _root(out: CspText, nodes: Sequence[Pos], certain: Sequence[Pos]) -> dict[Pos, str]:
    """Write the choice of the root, and return each node's guard: a formula false at the root only."""
    if certain:
        out.block("Loop: the nodes every solution passes through",
                  f"the root is node {certain[0][0]},{certain[0][1]}, the first of them")
        out.extend(f"(= {on_var(node)} 1)" for node in certain)
        guard = {n: "true" for n in nodes}
        guard[certain[0]] = "false"
        return guard
    out.block("Loop: the root is the first loop node in reading order: _s_R_C says a node up to R,C is on the loop")
    out.extend(f"(bool {helper(f's_{r}_{c}')})" for r, c in nodes)
    guard = {}
    previous = "false"
    for r, c in nodes:
        here = f"(= {on_var((r, c))} 1)"
        prefix = helper(f"s_{r}_{c}")
        out.add(f"(iff {prefix} {here})" if previous == "false" else f"(iff {prefix} (or {previous} {here}))")
        guard[(r, c)] = previous
        previous = prefix
    out.comment("there is a loop")
    out.add(previous)
    return guard


def _counting_rule(out: CspText, nodes: Sequence[Pos], edges: Sequence[Edge],
                   incident: dict[Pos, list[tuple[str, Pos]]], root: Pos | None, guard: dict[Pos, str]) -> None:
    """One circuit only on a graph that is not a grid: numbers counted along the oriented loop."""
    counting = counting_nodes(nodes, incident)
    bipartite = len(counting) < len(nodes)  # then every edge joins a counting node and a plain one
    width = register_width(len(counting))
    out.block(
        "Loop: direction of travel (_d_E true: edge E is travelled from its first node, top or left, to the other)",
        "where two loop edges meet, one enters the node and the other leaves it",
        "(turnK E1 ... EK X1 ... XK): of any two of the node's edges that are on, exactly one enters it",
        "(Xi: edge Ei enters the node, d_E when the node is the edge's second node, (! d_E) when it is its first)",
    )
    out.extend(turn_predicate(k) for k in sorted({len(around) for around in incident.values()} - {0, 1}))
    out.extend(f"(bool {helper('d_' + name)})" for name, _, _ in edges)
    first = {name: a for name, a, _ in edges}
    for node in nodes:
        names = [name for name, _ in incident[node]]
        if len(names) >= 2:
            enters = [helper(f"d_{e}") if first[e] != node else f"(! {helper('d_' + e)})" for e in names]
            out.add(f"(turn{len(names)} {' '.join(names + enters)})")

    out.block(
        f"Loop: one circuit only (_z_R_C_K: bit K of the {width}-bit number of node R,C, counted modulo {1 << width})",
        "the node a loop edge enters has the outgoing number of the node it leaves, except the root;",
        "a node's outgoing number is its number plus one at the counting nodes (those with _n_R_C_K bits,",
        ("every other node of the grid" if bipartite else "all nodes") + ") and its number elsewhere;",
        f"round a circuit that misses the root the number would grow by its count of counting nodes (< {1 << width}),",
        "so there is no such circuit",
        "(inc Z N): N = Z + 1 (_n_R_C_K: bit K of node R,C's number plus one)",
        *(
            ("(link E D GA GB A B OA): edge E from counting node A to the other node B; if E is on, D says",
             "whether it is travelled from A to B, and the node entered (GA/GB true: it is not the root) has",
             "the other's outgoing number (OA for A, B's own number for B)")
            if bipartite else
            ("(link E D GA GB A B OA OB): if edge E is on, D says its direction and the node entered",
             "(GA/GB true: it is not the root) has the other node's outgoing number (OA/OB)")
        ),
    )
    out.add(increment_predicate(width))
    out.add(link_predicate(width, plain_second=bipartite))
    outgoing: dict[Pos, list[str]] = {}
    for node in nodes:
        if incident[node]:
            number = _bits("z", node, width)
            out.extend(f"(bool {name})" for name in number)
            outgoing[node] = number
            if node in counting:
                outgoing[node] = _bits("n", node, width)
                out.extend(f"(bool {name})" for name in outgoing[node])
                out.add(f"(inc {' '.join(number + outgoing[node])})")
    if root is not None:
        out.comment(f"the root is node {root[0]},{root[1]}; its number is 0")
        out.extend(f"(! {bit})" for bit in _bits("z", root, width))
    out.comment("the counting rule along every edge")
    for name, a, b in edges:
        direction = helper(f"d_{name}")
        if bipartite and a not in counting:
            a, b, direction = b, a, f"(! {direction})"
        numbers = _bits("z", a, width) + _bits("z", b, width) + outgoing[a] + ([] if bipartite else outgoing[b])
        out.add(f"(link {name} {direction} {guard[a]} {guard[b]} {' '.join(numbers)})")


# ---------------------------------------------------------------- checking a decoded loop


def loop_violations(on_edges: Sequence[tuple[Pos, Pos]], where: "Callable[[Pos], str]") -> list[Violation]:
    """The ways the edges `on_edges` (pairs of nodes) fail to form exactly one simple closed loop.

    Written from the rule, not from the encoding above: every node the edges
    touch has exactly two of them (no dead end, no branch or crossing), and
    they are all connected (one loop, not several). `where(node)` names a node.
    """
    degree: dict[Pos, int] = {}
    around: dict[Pos, list[Pos]] = {}
    for a, b in on_edges:
        for x, y in ((a, b), (b, a)):
            degree[x] = degree.get(x, 0) + 1
            around.setdefault(x, []).append(y)
    if not degree:
        return [Violation("there must be a loop, and the answer has no loop edge", "the whole board")]
    found = []
    for node in sorted(degree):
        if degree[node] == 1:
            found.append(Violation("the loop has a dead end here (every point on the loop has 2 loop edges)",
                                   where(node)))
        elif degree[node] > 2:
            found.append(Violation(f"the loop branches or crosses here ({degree[node]} loop edges meet)",
                                   where(node)))
    pieces = 0
    seen: set[Pos] = set()
    for start in sorted(degree):
        if start in seen:
            continue
        pieces += 1
        seen.add(start)
        stack = [start]
        while stack:
            for other in around[stack.pop()]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        if pieces == 2:
            found.append(Violation("there is only one loop, and the answer has a second one", f"the one through {where(start)}"))
    return found
