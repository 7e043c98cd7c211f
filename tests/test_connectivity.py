"""The board kit's connectivity rule (generators/boardkit.py `connected_rule`, `step_numbers`) against enumeration.

Every subset of the cells of a small board is tried as the set of inside
cells: the rule must be satisfiable exactly when the subset is orthogonally
connected (the empty set and a single cell included).
"""

from __future__ import annotations

import itertools

import pytest
from pysat.solvers import Solver

from csp2sat.checker import check
from csp2sat.compiler import compile_model
from csp2sat.generators.boardkit import CspText, connected, connected_rule, step_numbers, winding_rule
from csp2sat.parser import parse_text


def _compiled_rule(rows: int, cols: int, cells: list[tuple[int, int]]):
    out = CspText("connectivity test", [])
    out.extend(f"(bool x_{r}_{c})" for r, c in cells)
    connected_rule(out, cells, lambda cell: f"x_{cell[0]}_{cell[1]}", rows, cols, "the x cells")
    return compile_model(check(parse_text(out.text())))


@pytest.mark.parametrize("rows, cols, holes", [(3, 3, ()), (2, 4, ()), (3, 4, ((1, 1),)), (1, 5, ()), (4, 4, ((0, 3),))])
def test_connected_rule_holds_exactly_for_connected_subsets(rows: int, cols: int, holes: tuple) -> None:
    cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in holes]
    compiled = _compiled_rule(rows, cols, cells)
    with Solver(name="cadical195") as sat:
        compiled.load(sat)
        for mask in range(1 << len(cells)):
            chosen = [cell for i, cell in enumerate(cells) if mask >> i & 1]
            assumptions = [lit for i, (r, c) in enumerate(cells)
                           for lit in compiled.value_literals(f"x_{r}_{c}", bool(mask >> i & 1))]
            assert sat.solve(assumptions=assumptions) == (len(connected(chosen)) <= 1), chosen


def test_step_numbers_on_a_graph_that_is_not_bipartite_rule_out_every_circle() -> None:
    # a triangle and a square sharing a node: every node must pick a predecessor, which needs a circle,
    # and every circle (lengths 2, 3, 4, 5) is refused; with one node free of the rule there is a way
    nodes = [(0, k) for k in range(5)]
    edges = {(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 2)}
    adjacent = {n: [m for m in range(5) if (n, m) in edges or (m, n) in edges] for n in range(5)}
    for root in (None, 3):
        out = CspText("circle test", [])
        z, outgoing = step_numbers(out, nodes, len(nodes), grid=False)
        for n in range(5):
            if n == root:
                continue
            choices = [f"a_{n}_{m}" for m in adjacent[n]]
            out.extend(f"(bool {a})" for a in choices)
            out.extend(f"(step {a} {' '.join(z[nodes[n]] + outgoing[nodes[m]])})" for a, m in zip(choices, adjacent[n]))
            out.add(f"(or {' '.join(choices)})")
        with Solver(name="cadical195", bootstrap_with=compile_model(check(parse_text(out.text()))).clauses()) as sat:
            assert sat.solve() == (root is not None)


def _grid_edges(rows: int, cols: int) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    edges = [(f"h_{r}_{c}", (r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    return edges + [(f"v_{r}_{c}", (r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]


def _has_circuit(chosen) -> bool:
    parent: dict = {}

    def root(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n
    for _, a, b in chosen:
        ra, rb = root(a), root(b)
        if ra == rb:
            return True
        parent[ra] = rb
    return False


@pytest.mark.parametrize("rows, cols", [(3, 3), (2, 4), (3, 4)])
def test_winding_rule_allows_exactly_the_edge_sets_without_circuits(rows: int, cols: int) -> None:
    # Every edge set with at most two edges at a node (lines and loops) is tried: the rule must be
    # satisfiable exactly when the set closes no circuit (two separate 2x2 squares fit in 3x4).
    edges = _grid_edges(rows, cols)
    incident: dict = {}
    for name, a, b in edges:
        incident.setdefault(a, []).append((name, b))
        incident.setdefault(b, []).append((name, a))
    out = CspText("winding test", [])
    out.extend(f"(int {name} 0 1)" for name, _, _ in edges)
    winding_rule(out, incident)
    compiled = compile_model(check(parse_text(out.text())))
    assumed = {name: {v: compiled.value_literals(name, v) for v in (0, 1)} for name, _, _ in edges}
    tried = 0
    with Solver(name="cadical195", bootstrap_with=compiled.clauses()) as sat:
        for mask in range(1 << len(edges)):
            chosen = [e for i, e in enumerate(edges) if mask >> i & 1]
            degree: dict = {}
            for _, a, b in chosen:
                degree[a] = degree.get(a, 0) + 1
                degree[b] = degree.get(b, 0) + 1
            if any(d > 2 for d in degree.values()):
                continue
            tried += 1
            on = {name for name, _, _ in chosen}
            assumptions = [lit for name, _, _ in edges for lit in assumed[name][int(name in on)]]
            assert sat.solve(assumptions=assumptions) == (not _has_circuit(chosen)), sorted(on)
    assert tried > 100
