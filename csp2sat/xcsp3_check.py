"""Verification stage for XCSP3 input: an answer checked against the XML constraints themselves.

The solver already checks every answer against the translated `Model`
(`csp2sat.evaluator`); that cannot catch a wrong translation. This module
evaluates the XCSP3 constraints directly, from the `Instance` elements, with
its own reading of each constraint's meaning (XCSP3 specification 3.1), and
shares nothing with `csp2sat.xcsp3` but the notation layer (`xcsp3_read`:
lists, tuples, expression parsing). It also recomputes the objective.
"""

from __future__ import annotations

from typing import Callable, Mapping

from csp2sat.xcsp3_read import (
    Instance,
    intension_expr,
    XElem,
    list_tokens,
    matrix_rows,
    parse_condition,
    parse_expr,
    parse_int_set,
    parse_item,
    parse_tuples,
    split_top,
)

__all__ = ["check_answer", "objective_value"]


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


_OPS: dict[str, Callable[..., int]] = {
    "neg": lambda a: -a,
    "abs": abs,
    "add": lambda *a: sum(a),
    "sub": lambda a, b: a - b,
    "mul": lambda *a: _product(a),
    "div": _trunc_div,
    "mod": lambda a, b: a - b * _trunc_div(a, b),
    "sqr": lambda a: a * a,
    "pow": lambda a, b: a**b,
    "min": lambda *a: min(a),
    "max": lambda *a: max(a),
    "dist": lambda a, b: abs(a - b),
    "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b),
    "ge": lambda a, b: int(a >= b),
    "gt": lambda a, b: int(a > b),
    "eq": lambda *a: int(len(set(a)) == 1),
    "ne": lambda a, b: int(a != b),
    "not": lambda a: int(not a),
    "and": lambda *a: int(all(a)),
    "or": lambda *a: int(any(a)),
    "xor": lambda *a: sum(1 for x in a if x) % 2,
    "iff": lambda *a: int(len({bool(x) for x in a}) == 1),
    "imp": lambda a, b: int((not a) or bool(b)),
    "if": lambda c, a, b: a if c else b,
}


def _product(items: tuple) -> int:
    r = 1
    for x in items:
        r *= x
    return r


def _compare(op: str, a: int, operand) -> bool:
    if op == "in":
        return any(lo <= a <= hi for lo, hi in operand)
    if op == "notin":
        return not any(lo <= a <= hi for lo, hi in operand)
    return bool(_OPS[op](a, operand))


class _Checker:
    def __init__(self, inst: Instance, values: Mapping[str, int]) -> None:
        self.inst = inst
        self.values = values
        self.tables: dict[tuple[str, str], tuple[set, list]] = {}

    def ev(self, e: tuple) -> int:
        kind = e[0]
        if kind == "int":
            return e[1]
        if kind == "var":
            return self.values[e[1]]
        if kind in ("in", "notin"):
            x = self.ev(e[1][0])
            members = {self.ev(a) for a in e[1][1][1]}
            return int((x in members) == (kind == "in"))
        return int(_OPS[kind](*(self.ev(a) for a in e[1])))

    def items(self, text: str, elem: XElem) -> list[int]:
        return [self.ev(parse_item(t, self.inst, elem)) for t in list_tokens(self.inst, text, elem)]

    def lst(self, elem: XElem, tag: str = "list") -> list[int]:
        child = elem.child(tag)
        return self.items(child.text if child is not None else elem.text, elem)

    def cond(self, elem: XElem, value: int) -> bool:
        c = elem.child("condition")
        op, operand = parse_condition(c.text, self.inst, c)  # type: ignore[union-attr]
        if op not in ("in", "notin"):
            operand = self.ev(operand)  # type: ignore[arg-type]
        return _compare(op, value, operand)

    def matrix(self, elem: XElem) -> list[list[int]]:
        return [[self.ev(parse_item(t, self.inst, elem)) for t in row] for row in matrix_rows(self.inst, elem)]

    # one method per constraint: True when satisfied
    def intension(self, e: XElem) -> bool:
        return self.ev(intension_expr(self.inst, e)) != 0

    def extension(self, e: XElem) -> bool:
        xs = self.lst(e)
        table = e.child("supports") or e.child("conflicts")
        assert table is not None
        if len(xs) == 1 and not table.text.strip().startswith("("):
            found = any(lo <= xs[0] <= hi for lo, hi in parse_int_set(table.text, self.inst, table))
        else:
            key = (table.tag, table.text)
            if key not in self.tables:  # groups share one table text: read it once
                tuples = parse_tuples(table.text, self.inst, table)
                self.tables[key] = ({t for t in tuples if None not in t}, [t for t in tuples if None in t])
            plain, stars = self.tables[key]
            found = tuple(xs) in plain or any(all(v is None or v == x for v, x in zip(t, xs)) for t in stars)
        return found == (table.tag == "supports")

    def allDifferent(self, e: XElem) -> bool:
        m = e.child("matrix")
        if m is not None:
            rows = self.matrix(m)
            return all(len(set(r)) == len(r) for r in rows + [list(c) for c in zip(*rows)])
        lists = e.all("list")
        if len(lists) > 1:
            vecs = [tuple(self.items(l.text, e)) for l in lists]
            return len(set(vecs)) == len(vecs)
        xs = self.lst(e)
        exc = e.child("except")
        excepted = {v for lo, hi in parse_int_set(exc.text, self.inst, exc) for v in range(lo, hi + 1)} if exc is not None else set()
        kept = [x for x in xs if x not in excepted]
        return len(set(kept)) == len(kept)

    def allEqual(self, e: XElem) -> bool:
        return len(set(self.lst(e))) <= 1

    def sum(self, e: XElem) -> bool:
        xs = self.lst(e)
        c = e.child("coeffs")
        cs = self.items(c.text, e) if c is not None else [1] * len(xs)
        return self.cond(e, sum(a * b for a, b in zip(cs, xs)))

    def count(self, e: XElem) -> bool:
        xs, vs = self.lst(e), set(self.lst(e, "values"))
        return self.cond(e, sum(1 for x in xs if x in vs))

    def nValues(self, e: XElem) -> bool:
        exc = e.child("except")
        excepted = {v for lo, hi in parse_int_set(exc.text, self.inst, exc) for v in range(lo, hi + 1)} if exc is not None else set()
        return self.cond(e, len(set(self.lst(e)) - excepted))

    def cardinality(self, e: XElem) -> bool:
        xs, vs = self.lst(e), self.lst(e, "values")
        occurs = e.child("occurs")
        for v, tok in zip(vs, list_tokens(self.inst, occurs.text, occurs)):  # type: ignore[union-attr]
            n = xs.count(v)
            if ".." in tok:
                lo, hi = (int(t) for t in tok.split(".."))
                if not lo <= n <= hi:
                    return False
            elif n != self.ev(parse_item(tok, self.inst, e)):
                return False
        vals = e.child("values")
        return not (vals is not None and vals.attrs.get("closed") == "true" and any(x not in vs for x in xs))

    def element(self, e: XElem) -> bool:
        m = e.child("matrix")
        idx = e.child("index")
        if m is not None:
            rows = self.matrix(m)
            i, j = (self.ev(parse_item(t, self.inst, e)) for t in split_top(idx.text))  # type: ignore[union-attr]
            i -= int(m.attrs.get("startRowIndex", "0"))
            j -= int(m.attrs.get("startColIndex", "0"))
            if not (0 <= i < len(rows) and 0 <= j < len(rows[0])):
                return False
            picked = rows[i][j]
        else:
            xs = self.lst(e)
            if idx is None:
                return self.ev(parse_item(e.child("value").text.strip(), self.inst, e)) in xs  # type: ignore[union-attr]
            k = self.ev(parse_item(idx.text.strip(), self.inst, e)) - int(e.child("list").attrs.get("startIndex", "0"))  # type: ignore[union-attr]
            if not 0 <= k < len(xs):
                return False
            picked = xs[k]
        value = e.child("value")
        if value is not None:
            return picked == self.ev(parse_item(value.text.strip(), self.inst, e))
        return self.cond(e, picked)

    def channel(self, e: XElem) -> bool:
        lists = e.all("list") or [XElem("list", {}, e.text)]
        xs = self.items(lists[0].text, e)
        sx = int(lists[0].attrs.get("startIndex", "0"))
        value = e.child("value")
        if value is not None:
            v = self.ev(parse_item(value.text.strip(), self.inst, e))
            return all((x == 1) == (v == i + sx) for i, x in enumerate(xs)) and sx <= v < sx + len(xs)
        ys, sy = (xs, sx) if len(lists) == 1 else (self.items(lists[1].text, e), int(lists[1].attrs.get("startIndex", "0")))
        for i, x in enumerate(xs):
            if not sy <= x < sy + len(ys) or ys[x - sy] != i + sx:
                return False
        if len(xs) == len(ys):
            return all(sx <= y < sx + len(xs) and xs[y - sx] == j + sy for j, y in enumerate(ys))
        return True

    def minimum(self, e: XElem, extreme: Callable = min) -> bool:
        xs = self.lst(e)
        best = extreme(xs)
        idx = e.child("index")
        if idx is not None:
            lst = e.child("list")
            k = self.ev(parse_item(idx.text.strip(), self.inst, e)) - (int(lst.attrs.get("startIndex", "0")) if lst is not None else 0)
            rank = idx.attrs.get("rank", "any")
            at = [i for i, x in enumerate(xs) if x == best]
            if k not in at or (rank == "first" and k != at[0]) or (rank == "last" and k != at[-1]):
                return False
        return self.cond(e, best)

    def maximum(self, e: XElem) -> bool:
        return self.minimum(e, max)

    def ordered(self, e: XElem) -> bool:
        xs = self.lst(e)
        op = e.child("operator").text.strip()  # type: ignore[union-attr]
        ls = self.lst(e, "lengths") if e.child("lengths") is not None else [0] * len(xs)
        return all(_OPS[op](a + l, b) for a, b, l in zip(xs, xs[1:], ls))

    def lex(self, e: XElem) -> bool:
        op = e.child("operator").text.strip()  # type: ignore[union-attr]
        m = e.child("matrix")
        if m is not None:
            rows = self.matrix(m)
            groups = [rows, [list(c) for c in zip(*rows)]]
        else:
            groups = [[self.items(l.text, e) for l in e.all("list")]]
        return all(_OPS[op](a, b) for vecs in groups for a, b in zip(vecs, vecs[1:]))  # Python compares lists lexicographically

    def _transitions(self, e: XElem) -> list[tuple[str, int, str]]:
        body = "".join(e.child("transitions").text.split())  # type: ignore[union-attr]
        return [(a, int(v), b) for a, v, b in (t.split(",") for t in body[1:-1].split(")("))]

    def regular(self, e: XElem) -> bool:
        xs = self.lst(e)
        delta: dict[tuple[str, int], set[str]] = {}
        for a, v, b in self._transitions(e):
            delta.setdefault((a, v), set()).add(b)
        states = {e.child("start").text.strip()}  # type: ignore[union-attr]
        for x in xs:
            states = {b for s in states for b in delta.get((s, x), ())}
        return bool(states & set(e.child("final").text.split()))  # type: ignore[union-attr]

    def mdd(self, e: XElem) -> bool:
        xs = self.lst(e)
        tr = self._transitions(e)
        roots = {a for a, _, _ in tr} - {b for _, _, b in tr}
        terminals = {b for _, _, b in tr} - {a for a, _, _ in tr}
        states = roots
        for x in xs:
            states = {b for a, v, b in tr if a in states and v == x}
        return bool(states & terminals)

    def noOverlap(self, e: XElem) -> bool:
        o, l = e.child("origins"), e.child("lengths")
        zero = e.attrs.get("zeroIgnored", "true") == "true"
        if o.text.strip().startswith("("):  # type: ignore[union-attr]
            boxes = [self.items(g.replace(",", " "), e) for g in o.text.replace(" ", "")[1:-1].split(")(")]  # type: ignore[union-attr]
            sizes = [self.items(g.replace(",", " "), e) for g in l.text.replace(" ", "")[1:-1].split(")(")]  # type: ignore[union-attr]
        else:
            boxes = [[x] for x in self.items(o.text, e)]  # type: ignore[union-attr]
            sizes = [[x] for x in self.items(l.text, e)]  # type: ignore[union-attr]
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                if zero and (any(s == 0 for s in sizes[i]) or any(s == 0 for s in sizes[j])):
                    continue
                if not any(boxes[i][d] + sizes[i][d] <= boxes[j][d] or boxes[j][d] + sizes[j][d] <= boxes[i][d]
                           for d in range(len(boxes[i]))):
                    return False
        return True

    def cumulative(self, e: XElem) -> bool:
        os_, ls, hs = self.lst(e, "origins"), self.lst(e, "lengths"), self.lst(e, "heights")
        if e.child("ends") is not None and any(o + l != x for o, l, x in zip(os_, ls, self.lst(e, "ends"))):
            return False
        for t in {o for o, l in zip(os_, ls) if l > 0}:
            if not self.cond(e, sum(h for o, l, h in zip(os_, ls, hs) if o <= t < o + l)):
                return False
        return True

    def circuit(self, e: XElem) -> bool:
        xs = self.lst(e)
        lst = e.child("list")
        start = int(lst.attrs.get("startIndex", "0")) if lst is not None else 0
        succ = [x - start for x in xs]
        n = len(succ)
        if any(not 0 <= s < n for s in succ) or len(set(succ)) != n:
            return False
        moving = [i for i in range(n) if succ[i] != i]
        if not moving:
            return False
        seen, i = set(), moving[0]
        while i not in seen:
            seen.add(i)
            i = succ[i]
        return seen == set(moving)

    def instantiation(self, e: XElem) -> bool:
        return self.lst(e) == self.lst(e, "values")


def objective_value(inst: Instance, values: Mapping[str, int]) -> int | None:
    """The value of the instance's objective under `values` (None without one)."""
    if not inst.objectives:
        return None
    obj = inst.objectives[0]
    c = _Checker(inst, values)
    kind = obj.attrs.get("type", "expression")
    if kind == "expression" and not obj.children:
        return c.ev(parse_item(obj.text.strip(), inst, obj)) if "(" not in obj.text else c.ev(parse_expr(obj.text, inst, obj))
    xs = c.lst(obj)
    if kind == "sum":
        co = obj.child("coeffs")
        cs = c.items(co.text, obj) if co is not None else [1] * len(xs)
        return sum(a * b for a, b in zip(cs, xs))
    if kind == "minimum":
        return min(xs)
    if kind == "maximum":
        return max(xs)
    return len(set(xs))


def check_answer(inst: Instance, values: Mapping[str, int], cost: int | None = None) -> list[str]:
    """Descriptions of every problem of the answer `values` (keyed by XCSP3 id); [] when it is a solution."""
    problems = []
    for xid, domain in inst.domains.items():
        if xid not in values:
            problems.append(f"variable {xid} has no value")
        elif values[xid] not in domain:
            problems.append(f"value {values[xid]} of {xid} is outside its domain")
    if problems:
        return problems
    checker = _Checker(inst, values)
    for elem in inst.constraints:
        method = getattr(checker, elem.tag, None)
        if method is None:
            problems.append(f"line {elem.line}: <{elem.tag}> cannot be checked")
        elif not method(elem):
            problems.append(f"line {elem.line}: {elem.summary()}")
    if cost is not None and objective_value(inst, values) != cost:
        problems.append(f"objective value {objective_value(inst, values)} differs from the reported {cost}")
    return problems
