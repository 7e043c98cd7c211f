"""The loop kit (generators/loopkit.py): the counting predicates and "exactly one loop" against enumeration."""

from __future__ import annotations

import itertools

import pytest
from pysat.solvers import Solver

from csp2sat.checker import check
from csp2sat.compiler import compile_model
from csp2sat.parser import parse_text
from csp2sat.generators import loopkit
from csp2sat.generators.boardkit import CspText


def satisfiable(text: str) -> bool:
    with Solver(name="cadical195", bootstrap_with=compile_model(check(parse_text(text))).clauses()) as sat:
        return sat.solve()


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_increment_predicate_is_plus_one_modulo_two_to_the_width(width: int) -> None:
    names = [f"z{k}" for k in range(width)] + [f"n{k}" for k in range(width)]
    head = "".join(f"(bool {x})" for x in names) + loopkit.increment_predicate(width) + f"(inc {' '.join(names)}) "
    for z, n in itertools.product(range(1 << width), repeat=2):
        fixed = [f"{'' if v >> k & 1 else '! '}{x}{k}" for x, v in (("z", z), ("n", n)) for k in range(width)]
        text = head + " ".join(f"({lit})" if lit.startswith("!") else lit for lit in fixed)
        assert satisfiable(text) == (n == (z + 1) % (1 << width)), (z, n)


def grid(rows: int, cols: int) -> tuple[list[loopkit.Pos], list[loopkit.Edge]]:
    nodes = [(r, c) for r in range(rows) for c in range(cols)]
    edges = [(f"h_{r}_{c}", (r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    edges += [(f"v_{r}_{c}", (r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    return nodes, edges


def loops_by_enumeration(nodes, edges, certain) -> set[frozenset[str]]:
    """Every edge set forming one simple closed loop through the `certain` nodes, by trying all subsets."""
    found = set()
    for mask in range(1, 1 << len(edges)):
        chosen = [e for i, e in enumerate(edges) if mask >> i & 1]
        degree = {n: 0 for n in nodes}
        for _, a, b in chosen:
            degree[a] += 1
            degree[b] += 1
        if any(d not in (0, 2) for d in degree.values()) or any(degree[n] == 0 for n in certain):
            continue
        seen, stack = set(), [chosen[0][1]]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(b if a == node else a for _, a, b in chosen if node in (a, b))
        if len(seen) == sum(1 for d in degree.values() if d):
            found.add(frozenset(name for name, _, _ in chosen))
    return found


def loops_by_solver(nodes, edges, certain) -> set[frozenset[str]]:
    out = CspText("loop", [], [])
    out.extend(f"(int {name} 0 1)" for name, _, _ in edges)
    loopkit.single_loop(out, nodes, edges, certain)
    compiled = compile_model(check(parse_text(out.text())))
    found = set()
    with Solver(name="cadical195") as sat:
        compiled.load(sat)
        while sat.solve():
            values = compiled.decode(sat.get_model())
            edge_values = {name: values[name] for name, _, _ in edges}
            found.add(frozenset(name for name, v in edge_values.items() if v))
            sat.add_clause(compiled.block_clause(edge_values))
    return found


@pytest.mark.parametrize("rows, cols, certain", [
    (3, 4, ()),          # two separate squares fit: they must be rejected
    (3, 4, ((1, 1),)),
    (4, 3, ((0, 0), (3, 2))),
    (2, 2, ()),
])
def test_single_loop_solutions_are_exactly_the_simple_loops(rows: int, cols: int, certain) -> None:
    nodes, edges = grid(rows, cols)
    expected = loops_by_enumeration(nodes, edges, certain)
    assert expected  # the boards are chosen to have loops
    assert loops_by_solver(nodes, edges, list(certain)) == expected


def test_register_width_exceeds_every_circuit_length() -> None:
    assert [loopkit.register_width(n) for n in (1, 3, 4, 806)] == [1, 2, 3, 10]


def test_graph_with_odd_circuits_counts_at_every_node() -> None:
    # A 3x3 grid of nodes with the diagonals of two squares: triangles, so not bipartite.
    nodes, edges = grid(3, 3)
    edges += [("x_0_0", (0, 0), (1, 1)), ("x_1_1", (1, 1), (2, 2))]
    incident = {n: [(e, b if a == n else a) for e, a, b in edges if n in (a, b)] for n in nodes}
    assert loopkit.counting_nodes(nodes, incident) == set(nodes)
    expected = loops_by_enumeration(nodes, edges, ())
    assert loops_by_solver(nodes, edges, []) == expected


def test_grid_counts_on_the_smaller_side() -> None:
    nodes, edges = grid(3, 3)
    incident = {n: [(e, b if a == n else a) for e, a, b in edges if n in (a, b)] for n in nodes}
    assert loopkit.counting_nodes(nodes, incident) == {(0, 1), (1, 0), (1, 2), (2, 1)}
