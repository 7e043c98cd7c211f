"""XCSP3 front end, stage 2: an XCSP3 `Instance` becomes the same checked `Model` the Sugar front end makes.

`read_xcsp3(path)` / `parse_xcsp3(text)` read the XML (`csp2sat.xcsp3_read`)
and translate every XCSP3-core constraint into Sugar formulas, so that the
normaliser, encoders, solver and evaluator work unchanged and `csp2sat
convert` can write the model out as a Sugar ``.csp`` file.

Names: the XCSP3 variable ``x[2][3]`` is the Sugar variable ``x.2.3`` (Sugar
symbols cannot hold brackets, and no XCSP3 id contains a dot); `Translation.names`
maps back. Auxiliary variables (states of ``regular``/``mdd``, ranks of
``circuit``, the objective of a ``sum`` objective) start with ``_`` and are not
part of answers.

Semantics follow the XCSP3 specification (3.1): ``div``/``mod`` truncate
towards zero as in Java (Sugar's floor is used only when the dividend cannot be
negative), a formula used as an integer is 0/1, an integer used as a formula is
true when it is not 0. Whatever is not supported raises `CspError` with
`Exit.UNSUPPORTED` and the element's line, never a partial translation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Union

from csp2sat._gc import gc_paused
from csp2sat.diagnostics import CspError, Exit
from csp2sat.syntax import Constraint, Domain, IntVar, Model, Node, Objective, Relation
from csp2sat.xcsp3_read import (
    Instance,
    intension_expr,
    XElem,
    list_tokens,
    matrix_rows,
    parse_condition,
    parse_expr,
    parse_instance,
    parse_int_set,
    parse_item,
    parse_tuples,
    read_instance,
    split_top,
)

__all__ = ["Translation", "read_xcsp3", "parse_xcsp3", "translate", "sugar_name", "sugar_names"]

# Largest set of values a nValues decomposition may range over.
MAX_NVALUES_VALUES = 100_000


def sugar_name(xcsp_id: str) -> str:
    """The Sugar name of an XCSP3 variable: ``x[2][3]`` -> ``x.2.3``."""
    return xcsp_id.replace("][", ".").replace("[", ".").replace("]", "") if "[" in xcsp_id else xcsp_id


# XCSP3 ids that Sugar's syntax reads as something else: a variable `nil` written into a cumulative task is no
# origin at all, `(= true 2)` compares a formula.
_SUGAR_WORDS = frozenset({"nil", "true", "false"})


def sugar_names(xcsp_ids: Iterable[str]) -> dict[str, str]:
    """The Sugar name of every XCSP3 variable (`sugar_name`), with `_` appended to the ids that are words of
    Sugar's syntax (``nil``, ``true``, ``false``) until the name is no other variable's."""
    names = {xid: sugar_name(xid) for xid in xcsp_ids}
    taken = set(names.values())
    for xid, name in names.items():
        if name in _SUGAR_WORDS:
            while name in taken:
                name += "_"
            taken.add(name)
            names[xid] = name
    return names


@dataclass
class Translation:
    """A translated instance: the `Model`, the XCSP3 `Instance` it came from, and the name map."""

    model: Model
    instance: Instance
    names: dict[str, str] = field(default_factory=dict)  # XCSP3 id -> Sugar name


def read_xcsp3(path: str) -> Translation:
    """Read and translate the XCSP3 file `path` (``.xml``, ``.xml.gz``, ``.xml.lzma``)."""
    return translate(read_instance(path))


def parse_xcsp3(text: str, file: str = "<string>") -> Translation:
    """Translate XCSP3 text."""
    return translate(parse_instance(text, file))


def translate(inst: Instance) -> Translation:
    """The `Model` of an `Instance`."""
    with gc_paused():
        return _Translator(inst).run()


# ---------------------------------------------------------------- node helpers


def _n(op: str, *args: Node, value: Union[int, str, None] = None, line: int = 0) -> Node:
    return Node(op, tuple(args), value, line, 0)


def _c(v: int) -> Node:
    return Node("const", (), v)


_TRUE = Node("true")
_FALSE = Node("false")
_CMP = {"lt", "le", "ge", "gt", "eq", "ne"}
_SWAP = {"lt": "gt", "le": "ge", "ge": "le", "gt": "lt", "eq": "eq", "ne": "ne"}
_LOGIC = {"not", "and", "or", "xor", "iff", "imp"}


def _and(items: list[Node]) -> Node:
    items = [i for i in items if i.op != "true"]
    if any(i.op == "false" for i in items):
        return _FALSE
    return _TRUE if not items else items[0] if len(items) == 1 else _n("and", *items)


def _or(items: list[Node]) -> Node:
    items = [i for i in items if i.op != "false"]
    if any(i.op == "true" for i in items):
        return _TRUE
    return _FALSE if not items else items[0] if len(items) == 1 else _n("or", *items)


def _add(items: list[Node]) -> Node:
    return _c(0) if not items else items[0] if len(items) == 1 else _n("add", *items)


def _in_set(t: Node, pieces: list[tuple[int, int]]) -> Node:
    out = []
    for lo, hi in Domain.of(pieces).intervals:
        out.append(_n("eq", t, _c(lo)) if lo == hi else _and([_n("ge", t, _c(lo)), _n("le", t, _c(hi))]))
    return _or(out)


class _Translator:
    def __init__(self, inst: Instance) -> None:
        self.inst = inst
        self.model = Model(file=inst.file)
        self.names: dict[str, str] = {}
        self.relations: dict[tuple, str] = {}
        self.elem: XElem | None = None
        self.aux = 0
        self.stars: dict[str, list[tuple]] = {}  # relation name -> its tuples with '*' (not in the relation)

    # ------------------------------------------------------------ helpers

    def error(self, message: str, exit: Exit = Exit.UNSUPPORTED) -> CspError:
        return self.inst.error(message, self.elem, exit)

    def new_int(self, prefix: str, domain: Domain) -> Node:
        name = f"_{prefix}{self.aux}"
        self.aux += 1
        self.model.int_vars[name] = IntVar(name, domain, self.elem.line if self.elem else 0, 0)
        return _n("ivar", value=name)

    def var(self, xid: str) -> Node:
        return _n("ivar", value=self.names[xid])

    def bounds(self, t: Node) -> tuple[int, int]:
        """Interval bounds of an integer term (formulas in `if` count as 0/1)."""
        op = t.op
        if op == "const":
            return t.value, t.value  # type: ignore[return-value]
        if op == "ivar":
            d = self.model.int_vars[t.value].domain  # type: ignore[index]
            return d.lb, d.ub
        b = [self.bounds(a) for a in t.args] if op not in ("if",) else []
        if op == "add":
            return sum(x[0] for x in b), sum(x[1] for x in b)
        if op == "sub":
            lo, hi = b[0]
            for x in b[1:]:
                lo, hi = lo - x[1], hi - x[0]
            return lo, hi
        if op == "neg":
            return -b[0][1], -b[0][0]
        if op == "mul":
            products = [x * y for x in b[0] for y in b[1]]
            return min(products), max(products)
        if op == "abs":
            lo, hi = b[0]
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
        if op == "min":
            return min(x[0] for x in b), min(x[1] for x in b)
        if op == "max":
            return max(x[0] for x in b), max(x[1] for x in b)
        if op == "if":
            (l1, h1), (l2, h2) = self.bounds(t.args[1]), self.bounds(t.args[2])
            return min(l1, l2), max(h1, h2)
        if op in ("div", "mod"):
            (lo, hi), (d, _) = b[0], b[1]
            if op == "div":
                return (lo // d, hi // d) if d > 0 else (hi // d, lo // d)
            return (0, d - 1) if d > 0 else (d + 1, 0)
        raise self.error(f"internal: no bounds for {op}", Exit.INTERNAL)

    def domain_of_term(self, t: Node) -> Domain:
        if t.op == "ivar":
            return self.model.int_vars[t.value].domain  # type: ignore[index]
        lo, hi = self.bounds(t)
        return Domain.range(lo, hi)

    # ------------------------------------------------------------ expressions

    def expr(self, e: tuple) -> tuple[Node, bool]:
        """(node, is_formula) of a parsed functional expression."""
        op = e[0]
        if op == "int":
            return _c(e[1]), False
        if op == "var":
            return self.var(e[1]), False
        args = e[1]
        if op in _LOGIC:
            fs = [self.formula(a) for a in args]
            if op == "not":
                return _n("not", fs[0]), True
            if op == "and":
                return _and(fs), True
            if op == "or":
                return _or(fs), True
            if op == "imp":
                return _n("imp", fs[0], fs[1]), True
            if op == "xor":
                node = fs[0]
                for f in fs[1:]:
                    node = _n("xor", node, f)
                return node, True
            # iff: all equal
            return _and([_n("iff", a, b) for a, b in zip(fs, fs[1:])]), True
        if op in _CMP:
            parts = [self.expr(a) for a in args]
            if len(parts) < 2:
                raise self.error(f"'{op}' needs two arguments", Exit.SEMANTIC)
            if op in ("eq", "ne") and all(p[1] for p in parts) and len(parts) == 2:
                a, b = parts[0][0], parts[1][0]
                return (_n("iff", a, b) if op == "eq" else _n("xor", a, b)), True
            ts = [self.as_term(p) for p in parts]
            if op == "eq":
                return _and([_n("eq", a, b) for a, b in zip(ts, ts[1:])]), True
            if len(ts) != 2:
                if op == "ne":
                    raise self.error("'ne' with more than two arguments is not supported")
                return _and([_n(op, a, b) for a, b in zip(ts, ts[1:])]), True
            return _n(op, ts[0], ts[1]), True
        if op in ("in", "notin"):
            t = self.term(args[0])
            s = args[1]
            if s[0] != "set":
                raise self.error(f"'{op}' needs a set(...) as second argument", Exit.SEMANTIC)
            ts = [self.term(a) for a in s[1]]
            f = _or([_n("eq", t, x) for x in ts])
            return (f if op == "in" else _n("not", f)), True
        if op == "if":
            cond = self.formula(args[0])
            then, other = self.expr(args[1]), self.expr(args[2])
            if then[1] and other[1]:
                return _and([_n("imp", cond, then[0]), _n("imp", _n("not", cond), other[0])]), True
            return _n("if", cond, self.as_term(then), self.as_term(other)), False
        ts = [self.term(a) for a in args]
        if op == "neg":
            return _n("neg", ts[0]), False
        if op == "abs":
            return _n("abs", ts[0]), False
        if op == "add":
            return _add(ts), False
        if op == "sub":
            return _n("sub", ts[0], ts[1]), False
        if op == "mul":
            node = ts[0]
            for t in ts[1:]:
                node = _n("mul", node, t)
            return node, False
        if op == "sqr":
            return _n("mul", ts[0], ts[0]), False
        if op == "pow":
            if ts[1].op != "const" or ts[1].value < 0:  # type: ignore[operator]
                raise self.error("'pow' with a variable or negative exponent is not supported")
            node = _c(1)
            for _ in range(ts[1].value):  # type: ignore[arg-type]
                node = ts[0] if node.op == "const" and node.value == 1 else _n("mul", node, ts[0])
            return node, False
        if op == "dist":
            return _n("abs", _n("sub", ts[0], ts[1])), False
        if op in ("min", "max"):
            node = ts[0]
            for t in ts[1:]:
                node = _n(op, node, t)
            return node, False
        if op in ("div", "mod"):
            return self.divmod(op, ts[0], ts[1]), False
        raise self.error(f"the operator '{op}' is not supported in intension")

    def divmod(self, op: str, x: Node, d: Node) -> Node:
        if d.op != "const":
            raise self.error(f"'{op}' by a variable is not supported (only by a constant)")
        k = d.value
        assert isinstance(k, int)
        if k == 0:
            raise self.error(f"'{op}' by zero", Exit.SEMANTIC)
        lo, _ = self.bounds(x)
        ak = abs(k)
        if lo >= 0:  # truncation = floor
            q = _n("div", x, _c(ak))
            if op == "div":
                return q if k > 0 else _n("neg", q)
            return _n("mod", x, _c(ak))
        # Java truncates towards zero: trunc(x/k) = sign(x)·floor(|x|/|k|)·sign(k)
        q = _n("if", _n("ge", x, _c(0)), _n("div", x, _c(ak)), _n("neg", _n("div", _n("neg", x), _c(ak))))
        if op == "div":
            return q if k > 0 else _n("neg", q)
        return _n("sub", x, _n("mul", _c(ak), q))

    def term(self, e: tuple) -> Node:
        return self.as_term(self.expr(e))

    def formula(self, e: tuple) -> Node:
        node, is_formula = self.expr(e)
        return node if is_formula else _n("ne", node, _c(0))

    def as_term(self, part: tuple[Node, bool]) -> Node:
        node, is_formula = part
        return _n("if", node, _c(1), _c(0)) if is_formula else node

    def items(self, text: str) -> list[Node]:
        """The terms of a list (variables, integers, expressions)."""
        return [self.term(parse_item(tok, self.inst, self.elem)) for tok in list_tokens(self.inst, text, self.elem)]  # type: ignore[arg-type]

    def list_of(self, elem: XElem, tag: str = "list") -> list[Node]:
        child = elem.child(tag)
        if child is None:
            if tag == "list" and elem.text and not elem.children:
                return self.items(elem.text)
            raise self.error(f"<{elem.tag}> needs a <{tag}>", Exit.SEMANTIC)
        return self.items(child.text)

    def condition(self, t: Node, elem: XElem) -> Node:
        cond = elem.child("condition")
        if cond is None:
            raise self.error(f"<{elem.tag}> needs a <condition>", Exit.SEMANTIC)
        op, operand = parse_condition(cond.text, self.inst, cond)
        if op in ("in", "notin"):
            f = _in_set(t, operand)  # type: ignore[arg-type]
            return f if op == "in" else _n("not", f)
        return _n(op, t, self.term(operand))  # type: ignore[arg-type]

    # ------------------------------------------------------------ the instance

    def run(self) -> Translation:
        inst = self.inst
        self.names.update(sugar_names(inst.domains))
        for xid, domain in inst.domains.items():
            name = self.names[xid]
            if domain.is_empty():
                raise CspError(f"variable {xid} has an empty domain", inst.lines.get(xid, 0), 0, inst.file, Exit.SEMANTIC)
            self.model.int_vars[name] = IntVar(name, domain, inst.lines.get(xid, 0), 0)
        for elem in inst.constraints:
            self.elem = elem
            handler = getattr(self, "c_" + elem.tag, None)
            if handler is None:
                raise self.error(f"the constraint <{elem.tag}> is not supported")
            formulas = handler(elem)
            text = elem.summary()
            for f in formulas if isinstance(formulas, list) else [formulas]:
                if f.op != "true":
                    self.model.constraints.append(Constraint(f, elem.line, 0, text))
        for obj in inst.objectives:
            self.elem = obj
            self.objective(obj)
        return Translation(self.model, inst, self.names)

    def objective(self, obj: XElem) -> None:
        kind = obj.attrs.get("type", "expression")
        if kind == "expression" and not obj.children:
            t = self.term(parse_item(obj.text.strip(), self.inst, obj)) if "(" not in obj.text else self.term(parse_expr(obj.text, self.inst, obj))
        elif kind in ("sum", "minimum", "maximum", "nValues"):
            ts = self.list_of(obj)
            if kind == "sum":
                t = self.weighted(ts, obj)
            elif kind == "nValues":
                t = self.nvalues_term(ts, [])
            else:
                op = "min" if kind == "minimum" else "max"
                t = ts[0]
                for x in ts[1:]:
                    t = _n(op, t, x)
        else:
            raise self.error(f"objective of type {kind!r} is not supported")
        if t.op != "ivar":
            lo, hi = self.bounds(t)
            aux = self.new_int("objective", Domain.range(lo, hi))
            self.model.constraints.append(Constraint(_n("eq", aux, t), obj.line, 0, obj.summary()))
            t = aux
        self.model.objective = Objective(obj.tag, t.value, (t.value,), obj.line, 0)  # type: ignore[arg-type]

    def weighted(self, ts: list[Node], elem: XElem) -> Node:
        coeffs_elem = elem.child("coeffs")
        if coeffs_elem is None:
            return _add(ts)
        cs = self.items(coeffs_elem.text)
        if len(cs) != len(ts):
            raise self.error(f"<coeffs> has {len(cs)} items for {len(ts)} terms", Exit.SEMANTIC)
        out = []
        for c, t in zip(cs, ts):
            if c.op == "const" and c.value == 0:
                continue
            out.append(t if c.op == "const" and c.value == 1 else _n("mul", c, t))
        return _add(out)

    def nvalues_term(self, ts: list[Node], excepted: list[int]) -> Node:
        values: set[int] = set()
        domains = [self.domain_of_term(t) for t in ts]
        for d in domains:
            if d.size > MAX_NVALUES_VALUES:
                raise self.error("nValues over a huge domain is not supported", Exit.LIMIT)
            values.update(d.values())
        if len(values) > MAX_NVALUES_VALUES:
            raise self.error("nValues over too many values is not supported", Exit.LIMIT)
        parts = []
        for v in sorted(values.difference(excepted)):
            taking = [_n("eq", t, _c(v)) for t, d in zip(ts, domains) if v in d]
            parts.append(_n("if", _or(taking), _c(1), _c(0)))
        return _add(parts)

    # ------------------------------------------------------------ constraints

    def c_intension(self, elem: XElem) -> Node:
        return self.formula(intension_expr(self.inst, elem))

    def c_extension(self, elem: XElem) -> Node:
        lst = elem.child("list")
        if lst is None:
            raise self.error("<extension> needs a <list>", Exit.SEMANTIC)
        ts = self.items(lst.text)
        table = elem.child("supports") or elem.child("conflicts")
        if table is None:
            raise self.error("<extension> needs <supports> or <conflicts>", Exit.SEMANTIC)
        supports = table.tag == "supports"
        if len(ts) == 1 and not table.text.strip().startswith("("):
            f = _in_set(ts[0], parse_int_set(table.text, self.inst, table))
            return f if supports else _n("not", f)
        key = (len(ts), supports, table.text)
        name = self.relations.get(key)
        stars: list[tuple] = []
        if name is None:
            tuples = parse_tuples(table.text, self.inst, table)
            plain = []
            for t in tuples:
                if len(t) != len(ts):
                    raise self.error(f"a tuple of {len(t)} values for a list of {len(ts)}", Exit.SEMANTIC)
                (stars if None in t else plain).append(t)
            name = f"rel.{len(self.relations) + 1}"
            self.relations[key] = name
            self.model.relations[name] = Relation(name, len(ts), supports, tuple(plain), elem.line, 0)
            self.stars[name] = stars
        stars = self.stars[name]
        call = _n("rcall", *ts, value=name)
        if not stars:
            return call
        matches = [_and([_n("eq", t, _c(v)) for t, v in zip(ts, tup) if v is not None]) for tup in stars]
        if supports:
            return _or([call] + matches)
        return _and([call] + [_n("not", m) for m in matches])

    def c_allDifferent(self, elem: XElem) -> list[Node]:
        matrix = elem.child("matrix")
        if matrix is not None:
            rows = [[self.term(parse_item(t, self.inst, elem)) for t in row] for row in matrix_rows(self.inst, matrix)]
            cols = [list(c) for c in zip(*rows)]
            return [self.alldiff(r, []) for r in rows + cols]
        lists = elem.all("list")
        excepted: list[int] = []
        exc = elem.child("except")
        if exc is not None:
            excepted = [v for lo, hi in parse_int_set(exc.text, self.inst, exc) for v in range(lo, hi + 1)]
        if len(lists) > 1:
            vectors = [self.items(l.text) for l in lists]
            out = []
            for i, a in enumerate(vectors):
                for b in vectors[i + 1 :]:
                    out.append(_or([_n("ne", x, y) for x, y in zip(a, b)]))
            return out
        return [self.alldiff(self.list_of(elem), excepted)]

    def alldiff(self, ts: list[Node], excepted: list[int]) -> Node:
        if not excepted:
            return _n("alldifferent", *ts) if len(ts) > 1 else _TRUE
        out = []
        for i, a in enumerate(ts):
            for b in ts[i + 1 :]:
                out.append(_or([_n("ne", a, b)] + [_n("eq", a, _c(e)) for e in excepted]))
        return _and(out)

    def c_allEqual(self, elem: XElem) -> Node:
        ts = self.list_of(elem)
        return _and([_n("eq", a, b) for a, b in zip(ts, ts[1:])])

    def c_sum(self, elem: XElem) -> Node:
        ts = self.list_of(elem)
        coeffs_elem = elem.child("coeffs")
        cond = elem.child("condition")
        if cond is None:
            raise self.error("<sum> needs a <condition>", Exit.SEMANTIC)
        op, operand = parse_condition(cond.text, self.inst, cond)
        cs = self.items(coeffs_elem.text) if coeffs_elem is not None else [_c(1)] * len(ts)
        if op in _CMP and all(c.op == "const" for c in cs) and len(cs) == len(ts):
            pairs = _n("list", *(_n("list", c, t) for c, t in zip(cs, ts)))
            return _n("weightedsum", pairs, self.term(operand), value=op)  # type: ignore[arg-type]
        return self.condition(self.weighted(ts, elem), elem)

    def c_count(self, elem: XElem) -> Node:
        ts = self.list_of(elem)
        vals = elem.child("values")
        if vals is None:
            raise self.error("<count> needs <values>", Exit.SEMANTIC)
        vs = self.items(vals.text)
        cond = elem.child("condition")
        op, operand = parse_condition(cond.text if cond is not None else "", self.inst, cond or elem)
        if len(vs) == 1 and op in _CMP:
            return _n("count", vs[0], _n("list", *ts), self.term(operand), value=op)  # type: ignore[arg-type]
        total = _add([_n("if", _or([_n("eq", t, v) for v in vs]), _c(1), _c(0)) for t in ts])
        return self.condition(total, elem)

    def c_nValues(self, elem: XElem) -> Node:
        ts = self.list_of(elem)
        exc = elem.child("except")
        excepted = [v for lo, hi in parse_int_set(exc.text, self.inst, exc) for v in range(lo, hi + 1)] if exc is not None else []
        return self.condition(self.nvalues_term(ts, excepted), elem)

    def c_cardinality(self, elem: XElem) -> list[Node]:
        ts = self.list_of(elem)
        vals, occurs = elem.child("values"), elem.child("occurs")
        if vals is None or occurs is None:
            raise self.error("<cardinality> needs <values> and <occurs>", Exit.SEMANTIC)
        vs = self.items(vals.text)
        occ_tokens = list_tokens(self.inst, occurs.text, occurs)
        if len(occ_tokens) != len(vs):
            raise self.error(f"<occurs> has {len(occ_tokens)} items for {len(vs)} values", Exit.SEMANTIC)
        lst = _n("list", *ts)
        out = []
        for v, tok in zip(vs, occ_tokens):
            if ".." in tok:
                lo, hi = (int(x) for x in tok.split(".."))
                out.append(_n("count", v, lst, _c(lo), value="ge"))
                out.append(_n("count", v, lst, _c(hi), value="le"))
            else:
                out.append(_n("count", v, lst, self.term(parse_item(tok, self.inst, occurs)), value="eq"))
        if vals.attrs.get("closed") == "true":
            out += [_or([_n("eq", t, v) for v in vs]) for t in ts]
        return out

    def c_element(self, elem: XElem) -> Node:
        matrix = elem.child("matrix")
        index_elem = elem.child("index")
        if matrix is not None:
            rows = [[self.term(parse_item(t, self.inst, elem)) for t in row] for row in matrix_rows(self.inst, matrix)]
            if index_elem is None:
                raise self.error("<element> on a <matrix> needs an <index>", Exit.SEMANTIC)
            i, j = [self.term(parse_item(t, self.inst, index_elem)) for t in split_top(index_elem.text)]
            start_r = int(matrix.attrs.get("startRowIndex", "0"))
            start_c = int(matrix.attrs.get("startColIndex", "0"))
            width = len(rows[0])
            flat = [t for row in rows for t in row]
            index = _add([_n("mul", _c(width), _n("sub", i, _c(start_r))), _n("sub", j, _c(start_c)), _c(1)])
            in_range = _and([_n("ge", i, _c(start_r)), _n("le", i, _c(start_r + len(rows) - 1)),
                             _n("ge", j, _c(start_c)), _n("le", j, _c(start_c + width - 1))])
            return _and([in_range, self.element_of(index, flat, elem)])
        lst = elem.child("list")
        if lst is None:
            raise self.error("<element> needs a <list>", Exit.SEMANTIC)
        ts = self.items(lst.text)
        if index_elem is None:
            value = elem.child("value")
            if value is not None:
                v = self.term(parse_item(value.text.strip(), self.inst, value))
                return _or([_n("eq", t, v) for t in ts])
            raise self.error("<element> without <index> needs a <value>", Exit.SEMANTIC)
        if index_elem.attrs.get("rank", "any") != "any":
            raise self.error("<element> with a rank is not supported")
        start = int(lst.attrs.get("startIndex", "0"))
        idx = self.term(parse_item(index_elem.text.strip(), self.inst, index_elem))
        one_based = idx if start == 1 else _add([idx, _c(1 - start)])
        return self.element_of(one_based, ts, elem)

    def element_of(self, index: Node, ts: list[Node], elem: XElem) -> Node:
        value = elem.child("value")
        if value is not None:
            return _n("element", index, _n("list", *ts), self.term(parse_item(value.text.strip(), self.inst, value)), value="eq")
        cond = elem.child("condition")
        if cond is None:
            raise self.error("<element> needs a <value> or a <condition>", Exit.SEMANTIC)
        op, operand = parse_condition(cond.text, self.inst, cond)
        if op not in _CMP:
            raise self.error(f"<element> with the condition operator '{op}' is not supported")
        return _n("element", index, _n("list", *ts), self.term(operand), value=op)  # type: ignore[arg-type]

    def c_channel(self, elem: XElem) -> list[Node]:
        lists = elem.all("list") or [XElem("list", {}, elem.text)]
        xs = self.items(lists[0].text)
        sx = int(lists[0].attrs.get("startIndex", "0"))
        value = elem.child("value")
        out = []
        if value is not None:  # one-hot: x[i] = 1 <=> value = i
            v = self.term(parse_item(value.text.strip(), self.inst, value))
            out.append(_and([_n("ge", v, _c(sx)), _n("le", v, _c(sx + len(xs) - 1))]))
            out += [_n("iff", _n("eq", x, _c(1)), _n("eq", v, _c(i + sx))) for i, x in enumerate(xs)]
            return out
        if len(lists) == 1:
            ys, sy = xs, sx
        else:
            ys = self.items(lists[1].text)
            sy = int(lists[1].attrs.get("startIndex", "0"))
            if len(xs) > len(ys):
                raise self.error("<channel> with a first list longer than the second", Exit.SEMANTIC)
        for i, x in enumerate(xs):
            out.append(_and([_n("ge", x, _c(sy)), _n("le", x, _c(sy + len(ys) - 1))]))
            for j, y in enumerate(ys):
                a, b = _n("eq", x, _c(j + sy)), _n("eq", y, _c(i + sx))
                out.append(_n("iff", a, b) if len(xs) == len(ys) else _n("imp", a, b))
        return out

    def c_minimum(self, elem: XElem, op: str = "min") -> Node:
        ts = self.list_of(elem)
        t = ts[0]
        for x in ts[1:]:
            t = _n(op, t, x)
        index_elem = elem.child("index")
        if index_elem is None:
            return self.condition(t, elem)
        # arg-min / arg-max: the item at the index is the extreme value (the first or last one if asked)
        rank = index_elem.attrs.get("rank", "any")
        if rank not in ("any", "first", "last"):
            raise self.error(f"<index rank={rank!r}> is not supported")
        lst = elem.child("list")
        start = int(lst.attrs.get("startIndex", "0")) if lst is not None else 0
        idx = self.term(parse_item(index_elem.text.strip(), self.inst, index_elem))
        out = [self.condition(t, elem), _n("element", _add([idx, _c(1 - start)]) if start != 1 else idx, _n("list", *ts), t, value="eq")]
        for j, x in enumerate(ts):
            if rank == "first":
                out.append(_or([_n("le", idx, _c(j + start)), _n("ne", x, t)]))
            elif rank == "last":
                out.append(_or([_n("ge", idx, _c(j + start)), _n("ne", x, t)]))
        return _and(out)

    def c_maximum(self, elem: XElem) -> Node:
        return self.c_minimum(elem, "max")

    def c_ordered(self, elem: XElem) -> Node:
        ts = self.list_of(elem)
        op_elem = elem.child("operator")
        op = op_elem.text.strip() if op_elem is not None else "le"
        if op not in ("lt", "le", "ge", "gt"):
            raise self.error(f"<ordered> with operator {op!r}", Exit.SEMANTIC)
        lens = elem.child("lengths")
        ls = self.items(lens.text) if lens is not None else [_c(0)] * len(ts)
        return _and([_n(op, _add([a, l]) if not (l.op == "const" and l.value == 0) else a, b) for a, b, l in zip(ts, ts[1:], ls)])

    def c_lex(self, elem: XElem) -> list[Node]:
        op_elem = elem.child("operator")
        op = op_elem.text.strip() if op_elem is not None else "le"
        matrix = elem.child("matrix")
        if matrix is not None:
            rows = [[self.term(parse_item(t, self.inst, elem)) for t in row] for row in matrix_rows(self.inst, matrix)]
            vectors_sets = [rows, [list(c) for c in zip(*rows)]]
        else:
            vectors_sets = [[self.items(l.text) for l in elem.all("list")]]
        out = []
        for vectors in vectors_sets:
            for a, b in zip(vectors, vectors[1:]):
                if op in ("gt", "ge"):
                    a, b = b, a
                if op not in ("lt", "le", "gt", "ge"):
                    raise self.error(f"<lex> with operator {op!r}", Exit.SEMANTIC)
                if len(a) != len(b):
                    raise self.error("<lex> on lists of different lengths", Exit.SEMANTIC)
                out.append(_n("lex_less" if op in ("lt", "gt") else "lex_lesseq", _n("list", *a), _n("list", *b)))
        return out

    def automaton(self, ts: list[Node], transitions: list[tuple[str, int, str]], starts: list[str], finals: list[str],
                  layers: list[set[str]] | None = None) -> list[Node]:
        """Layered states: q0 in `starts`, (q_i, x_i, q_i+1) a transition, q_n in `finals`."""
        states = sorted({s for t in transitions for s in (t[0], t[2])} | set(starts) | set(finals))
        number = {s: k for k, s in enumerate(states)}
        name = f"rel.{len(self.relations) + 1}"
        self.relations[("automaton", name)] = name
        tuples = tuple(sorted({(number[a], v, number[b]) for a, v, b in transitions}))
        self.model.relations[name] = Relation(name, 3, True, tuples, self.elem.line if self.elem else 0, 0)
        qs = []
        for i in range(len(ts) + 1):
            if i == 0:
                allowed = starts
            elif i == len(ts):
                allowed = finals
            else:
                allowed = list(layers[i]) if layers else states
            domain = Domain.of([(number[s], number[s]) for s in allowed if s in number])
            if domain.is_empty():
                return [_FALSE]
            qs.append(self.new_int("state", domain))
        return [_n("rcall", qs[i], ts[i], qs[i + 1], value=name) for i in range(len(ts))]

    def _transitions(self, elem: XElem) -> list[tuple[str, int, str]]:
        tr = elem.child("transitions")
        if tr is None:
            raise self.error(f"<{elem.tag}> needs <transitions>", Exit.SEMANTIC)
        body = "".join(tr.text.split())
        out = []
        for t in body[1:-1].split(")(") if body else []:
            a, v, b = t.split(",")
            try:
                out.append((a, int(v), b))
            except ValueError:
                raise self.error(f"transition ({t}): only integer values are supported") from None
        return out

    def c_regular(self, elem: XElem) -> list[Node]:
        ts = self.list_of(elem)
        transitions = self._transitions(elem)
        start, final = elem.child("start"), elem.child("final")
        if start is None or final is None:
            raise self.error("<regular> needs <start> and <final>", Exit.SEMANTIC)
        return self.automaton(ts, transitions, [start.text.strip()], final.text.split())

    def c_mdd(self, elem: XElem) -> list[Node]:
        ts = self.list_of(elem)
        transitions = self._transitions(elem)
        sources = {a for a, _, _ in transitions}
        targets = {b for _, _, b in transitions}
        roots, terminals = sources - targets, targets - sources
        if len(roots) != 1 or len(terminals) != 1:
            raise self.error("<mdd> needs exactly one root and one terminal node", Exit.SEMANTIC)
        layers = [set(roots)]
        for _ in ts:
            layers.append({b for a, _, b in transitions if a in layers[-1]})
        return self.automaton(ts, transitions, list(roots), list(terminals), layers)

    def c_noOverlap(self, elem: XElem) -> list[Node]:
        origins, lengths = elem.child("origins"), elem.child("lengths")
        if origins is None or lengths is None:
            raise self.error("<noOverlap> needs <origins> and <lengths>", Exit.SEMANTIC)
        zero_ignored = elem.attrs.get("zeroIgnored", "true") == "true"
        if origins.text.strip().startswith("("):
            boxes_o = [self.items(g.replace(",", " ")) for g in origins.text.replace(" ", "").strip()[1:-1].split(")(")]
            boxes_l = [self.items(g.replace(",", " ")) for g in lengths.text.replace(" ", "").strip()[1:-1].split(")(")]
        else:
            boxes_o = [[t] for t in self.items(origins.text)]
            boxes_l = [[t] for t in self.items(lengths.text)]
        if len(boxes_o) != len(boxes_l):
            raise self.error("<noOverlap>: as many origins as lengths are needed", Exit.SEMANTIC)
        out = []
        for i in range(len(boxes_o)):
            for j in range(i + 1, len(boxes_o)):
                parts = []
                for oi, li, oj, lj in zip(boxes_o[i], boxes_l[i], boxes_o[j], boxes_l[j]):
                    parts.append(_n("le", _add([oi, li]), oj))
                    parts.append(_n("le", _add([oj, lj]), oi))
                    if zero_ignored:
                        parts += [_n("le", li, _c(0)), _n("le", lj, _c(0))]
                out.append(_or(parts))
        return out

    def c_cumulative(self, elem: XElem) -> Node:
        os_, ls, hs = (elem.child(t) for t in ("origins", "lengths", "heights"))
        if os_ is None or ls is None or hs is None:
            raise self.error("<cumulative> needs <origins>, <lengths> and <heights>", Exit.SEMANTIC)
        origins, lengths, heights = self.items(os_.text), self.items(ls.text), self.items(hs.text)
        ends_elem = elem.child("ends")
        ends = self.items(ends_elem.text) if ends_elem is not None else [Node("nil")] * len(origins)
        cond = elem.child("condition")
        op, operand = parse_condition(cond.text if cond is not None else "", self.inst, cond or elem)
        if op not in ("le", "lt"):
            raise self.error(f"<cumulative> with the condition operator '{op}' is not supported (only le, lt)")
        limit = self.term(operand)  # type: ignore[arg-type]
        if op == "lt":
            limit = _n("sub", limit, _c(1))
        for h in heights:
            if self.bounds(h)[0] < 0:
                raise self.error("<cumulative> with negative heights is not supported")
        tasks = _n("list", *(_n("list", o, l, e, h) for o, l, e, h in zip(origins, lengths, ends, heights)))
        return _n("cumulative", tasks, limit)

    def c_circuit(self, elem: XElem) -> list[Node]:
        if elem.child("size") is not None:
            raise self.error("<circuit> with a <size> is not supported")
        lst = elem.child("list")
        start = int(lst.attrs.get("startIndex", "0")) if lst is not None else 0
        xs = self.list_of(elem)
        n = len(xs)
        if n < 2:
            return [_FALSE]
        out = [_n("alldifferent", *xs)]
        out += [_and([_n("ge", x, _c(start)), _n("le", x, _c(start + n - 1))]) for x in xs]
        # One node R of the circuit (x_R != R) has rank 0; every other arc i -> j of a non-loop raises
        # the rank by one, so a cycle avoiding R cannot close: exactly one circuit, of length >= 2.
        # A node that cannot loop on itself (TSP-like domains) is always on the circuit: it is the root,
        # and "rank j > rank i" on each arc i -> j not into the root suffices (a cycle avoiding it cannot close).
        fixed = next((i for i, x in enumerate(xs) if i + start not in self.domain_of_term(x)), None)
        ranks = [self.new_int("circuit_rank", Domain.range(0, n - 1)) for _ in xs]
        if fixed is not None:
            out.append(_n("eq", ranks[fixed], _c(0)))
            for i, x in enumerate(xs):
                for j in range(n):
                    if j != i and j != fixed and j + start in self.domain_of_term(x):
                        out.append(_n("imp", _n("eq", x, _c(j + start)), _n("ge", ranks[j], _n("add", ranks[i], _c(1)))))
            return out
        root = self.new_int("circuit_root", Domain.range(0, n - 1))
        for i, x in enumerate(xs):
            out.append(_n("imp", _n("eq", root, _c(i)), _and([_n("ne", x, _c(i + start)), _n("eq", ranks[i], _c(0))])))
            for j in range(n):
                if j != i and j + start in self.domain_of_term(x):
                    out.append(_n("imp", _and([_n("eq", x, _c(j + start)), _n("ne", root, _c(j))]),
                                  _n("eq", ranks[j], _n("add", ranks[i], _c(1)))))
        return out

    def c_instantiation(self, elem: XElem) -> list[Node]:
        ts = self.list_of(elem)
        vals = elem.child("values")
        vs = self.items(vals.text) if vals is not None else []
        if len(vs) != len(ts):
            raise self.error(f"<instantiation> has {len(vs)} values for {len(ts)} variables", Exit.SEMANTIC)
        return [_n("eq", t, v) for t, v in zip(ts, vs)]
