"""Pipeline stage "encode": alldifferent over order-encoded variables.

Methods, chosen by the compiler option ``alldifferent``:

* ``"amo"``: value-wise. Each (term, value) gets an equality literal
  ``x = w`` that is *equivalent* to its order literals
  (`OrderEncoding.equal`, shared between constraints), and the literals of
  one value get an at-most-one: pairwise for a few, else Chen's product
  encoding (2·√k auxiliaries, about 2k clauses). When the terms are
  exactly as many as the values they can take (a permutation, e.g. the
  rows of n-queens) every value must be used, so an at-least-one clause per
  value is added too: sound, and the propagator that makes permutations easy.
* ``"pairwise"``: ``xᵢ + oᵢ ≠ xⱼ + oⱼ`` for every pair, one clause per common
  value (``xᵢ ≠ v ∨ xⱼ ≠ v``, four order literals).
* ``"relational"``: Sugar's own decomposition, ``xᵢ + oᵢ < xⱼ + oⱼ ∨ xᵢ + oᵢ > xⱼ + oⱼ``
  for every pair, with one fresh Boolean per pair choosing the side and each
  side order-encoded (three-literal clauses). About twice the clauses of
  ``"pairwise"``, but the solver can branch on and learn the order between two
  terms: on knight's tours and magic squares it needs far fewer conflicts
  (docs/performance.md, "alldifferent").
* ``"auto"`` (default, `choose_method`): value-wise for a permutation whose
  variables meet no other variable outside alldifferents (sudoku, Latin squares,
  n-queens' rows: the at-least-one per value is their strongest rule); otherwise,
  relational for a permutation of at least `RELATIONAL_MIN_TERMS` terms (knight's
  tours, magic squares: their sums and differences make the order between terms
  worth learning) while its pairwise encoding has at most `RELATIONAL_PAIRWISE_LIMIT`
  clauses; otherwise pairwise while that is small (at most `PAIRWISE_LIMIT` clauses
  for the constraint), and value-wise above. See
  docs/performance.md for the measurements behind the rule.
"""

from __future__ import annotations

from typing import Sequence

from csp2sat.encoders.cardinality import at_most_one
from csp2sat.encoders.cnf import ClauseBuffer, Pool
from csp2sat.encoders.order import OrderEncoding

__all__ = ["METHODS", "PAIRWISE_LIMIT", "at_most_one", "choose_method", "encode_alldifferent", "pairwise_size"]

METHODS = ("auto", "amo", "pairwise", "relational")
# "auto" keeps the pairwise encoding up to this many clauses per constraint.
PAIRWISE_LIMIT = 150_000
# ... and makes it relational for a compared permutation of at least this many terms (knight's
# tours, magic squares: 25+ terms); shorter ones search better pairwise.
RELATIONAL_MIN_TERMS = 20
# A compared permutation stays relational above PAIRWISE_LIMIT, up to this many pairwise clauses
# (the relational encoding has about twice as many: 1 M pairwise is 121 terms, ~2 M clauses):
# magicSquare-10x10 value-wise took 75-118 s of CPU, relational 13-17 s (docs/performance.md).
RELATIONAL_PAIRWISE_LIMIT = 1_000_000


def choose_method(method: str, terms: int, values: int, pairwise: int, compared: bool,
                  pairwise_limit: int = PAIRWISE_LIMIT) -> str:
    """The encoding an alldifferent gets: `method` itself unless it is ``"auto"``.

    `terms` and `values` count the terms and the values they can take (equal: a
    permutation), `pairwise` the clauses of the pairwise encoding, and `compared`
    says whether a variable of the terms also meets another variable elsewhere
    (a sum, a difference, a comparison; other alldifferents do not count).
    A permutation compared with nothing is value-wise: 25x25 sudokus need 100-800x
    fewer conflicts than relational (docs/performance.md, "alldifferent"). A compared one
    of `RELATIONAL_MIN_TERMS` or more terms is relational up to `RELATIONAL_PAIRWISE_LIMIT`
    (above `pairwise_limit`, where anything else turns value-wise).
    """
    if method != "auto":
        return method
    permutation = values == terms
    if permutation and not compared:
        return "amo"
    if permutation and terms >= RELATIONAL_MIN_TERMS and pairwise <= max(pairwise_limit, RELATIONAL_PAIRWISE_LIMIT):
        return "relational"
    return "amo" if pairwise > pairwise_limit else "pairwise"


def _terms_by_value(order: OrderEncoding, vars: Sequence[int], offsets: Sequence[int]) -> dict[int, list[int]]:
    by_value: dict[int, list[int]] = {}
    for i, (x, o) in enumerate(zip(vars, offsets)):
        for w in order.values[x]:
            by_value.setdefault(w + o, []).append(i)
    return by_value


def pairwise_size(order: OrderEncoding, vars: Sequence[int], offsets: Sequence[int]) -> int:
    """Number of clauses of the pairwise decomposition."""
    return sum(len(t) * (len(t) - 1) // 2 for t in _terms_by_value(order, vars, offsets).values())


def encode_alldifferent(
    order: OrderEncoding,
    vars: Sequence[int],
    offsets: Sequence[int],
    prefix: list[int],
    pool: Pool,
    out: ClauseBuffer,
    method: str = "auto",
    compared: bool = True,
) -> str:
    """Clauses for ``prefix ∨ alldifferent(vars[i] + offsets[i])``; returns the method used.

    `compared`: whether a variable of the terms meets another variable outside
    alldifferents (what ``"auto"`` needs to know, see `choose_method`).
    """
    if method not in METHODS:
        raise ValueError(f"unknown alldifferent method {method!r}; choose one of {', '.join(METHODS)}")
    by_value = _terms_by_value(order, vars, offsets)
    # A permutation: n terms over exactly n values, so every value is taken.
    permutation = len(by_value) == len(vars)
    if method == "auto":
        pairwise = sum(len(t) * (len(t) - 1) // 2 for t in by_value.values())
        method = choose_method(method, len(vars), len(by_value), pairwise, compared)
    if method == "relational" and any(order.is_direct(x) for x in vars):
        method = "pairwise"  # the sides are order-encoded sums; direct variables have no order literals to spare
    if method == "relational":
        for i in range(len(vars)):
            for j in range(i + 1, len(vars)):
                lo_i, hi_i = order.values[vars[i]][0] + offsets[i], order.values[vars[i]][-1] + offsets[i]
                lo_j, hi_j = order.values[vars[j]][0] + offsets[j], order.values[vars[j]][-1] + offsets[j]
                if hi_i < lo_j or hi_j < lo_i:
                    continue  # disjoint ranges: always different
                less = pool.new()  # xᵢ + oᵢ < xⱼ + oⱼ; false: xᵢ + oᵢ > xⱼ + oⱼ
                d = offsets[j] - offsets[i]
                order.encode_le((1, -1), (vars[i], vars[j]), d - 1, prefix + [-less], out)
                order.encode_le((1, -1), (vars[j], vars[i]), -d - 1, prefix + [less], out)
        return method
    if method == "pairwise":
        for v, terms in by_value.items():
            neq = [order.not_equal(vars[i], v - offsets[i]) for i in terms]
            for a in range(len(terms)):
                for b in range(a + 1, len(terms)):
                    out.add(prefix + neq[a] + neq[b])
        return method
    # A direct term over consecutive values has the literal "term = v" at a fixed distance from v:
    # found by addition instead of `order.equal`'s lookup (a million calls for 1000 queens).
    shift: dict[int, int] = {}
    if order.direct:
        for i, x in enumerate(vars):
            vals = order.values[x]
            if order.direct[x] and vals[-1] - vals[0] + 1 == len(vals):
                shift[i] = order.base[x] - vals[0] - offsets[i]
    for v, terms in by_value.items():
        if len(terms) < 2 and not permutation:
            continue
        lits = []
        fixed = 0
        for i in terms:
            d = shift.get(i)
            if d is not None:
                lits.append(d + v)
                continue
            e = order.equal(vars[i], v - offsets[i], pool, out)
            if e is True:
                fixed += 1
            elif e is not False:
                lits.append(e)
        if fixed:
            # A term fixed to v: no other term may take v.
            if fixed > 1:
                out.add(prefix)
            else:
                for e in lits:
                    out.add(prefix + [-e])
            continue
        if permutation:
            out.add(prefix + lits)
        at_most_one(lits, prefix, pool, out)
    return method
