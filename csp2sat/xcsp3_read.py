"""XCSP3 front end, stage 1: XML text -> `Instance` (variables, flat constraint list, objective).

Reads an XCSP3 instance (plain, ``.xml.gz`` or ``.xml.lzma``) with the
standard library's expat parser, keeping the line of every element so that
errors point at the XML. It resolves what is only notation, and nothing of
what constraints mean: integer variables and arrays with their domains
(``<domain for=...>`` included), and ``<group>``/``<block>``/``<slide>``
expanded into plain constraint elements whose ``%i`` parameters are
substituted. Two consumers read an `Instance`: the translator to a Sugar
`Model` (`csp2sat.xcsp3`) and the independent checker of answers
(`csp2sat.xcsp3_check`); neither shares any constraint semantics with the other.

Also here: the tokenisers both consumers use for lists (``x[] y[0][1..2] 3``),
integer sets (``1 3..5``), tuples (``(1,*)(2,3)``) and functional expressions
(``add(x[0],mul(2,y))``).
"""

from __future__ import annotations

import gzip
import itertools
import lzma
import re
import sys
import zlib
from dataclasses import dataclass, field
from typing import Iterator, Union
from xml.parsers import expat

from csp2sat._gc import gc_paused
from csp2sat.diagnostics import STDIN, CspError, Exit, decode_utf8, display_name
from csp2sat.syntax import Domain

__all__ = ["XElem", "Instance", "read_instance", "parse_instance", "is_xcsp3_path", "intension_expr"]

XCSP3_SUFFIXES = (".xml", ".xml.gz", ".xml.lzma", ".xml.xz")


def is_xcsp3_path(path: str) -> bool:
    """Whether `path` names an XCSP3 file (by its suffix)."""
    return path.lower().endswith(XCSP3_SUFFIXES)


@dataclass
class XElem:
    """One XML element: tag, attributes, its own text (children's text excluded), children, line."""

    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list["XElem"] = field(default_factory=list)
    line: int = 0
    # For a constraint made from a <group>: its template and arguments (expressions are parsed once per template).
    origin: "tuple[XElem, list[str]] | None" = None

    def child(self, tag: str) -> "XElem | None":
        """The first child with this tag, or None."""
        for c in self.children:
            if c.tag == tag:
                return c
        return None

    def all(self, tag: str) -> list["XElem"]:
        """Every child with this tag."""
        return [c for c in self.children if c.tag == tag]

    def summary(self, width: int = 90) -> str:
        """A one-line rendering of the element for messages."""
        text = " ".join(self.text.split())
        inner = " ".join(
            f"<{c.tag}>{' '.join(c.text.split())}</{c.tag}>" if not c.children else f"<{c.tag}>...</{c.tag}>"
            for c in self.children
        )
        body = (text + " " + inner).strip()
        attrs = "".join(f' {k}="{v}"' for k, v in self.attrs.items())
        out = f"<{self.tag}{attrs}>{body}</{self.tag}>"
        return out if len(out) <= width else out[: width - 3] + "..."


@dataclass
class Instance:
    """An XCSP3 instance with notation resolved.

    `domains`: every integer variable (XCSP3 id, e.g. ``x[0][1]``) -> its domain,
    in declaration order; `arrays`: array id -> its sizes; `declared`: top-level
    ids (variables and arrays) in declaration order, for the answer;
    `constraints`: plain constraint elements (groups, blocks and slides
    expanded); `objectives`: the ``<minimize>``/``<maximize>`` elements.
    """

    file: str
    type: str
    domains: dict[str, Domain]
    arrays: dict[str, tuple[int, ...]]
    declared: list[str]
    constraints: list[XElem]
    objectives: list[XElem]
    lines: dict[str, int] = field(default_factory=dict)
    templates: dict[int, tuple] = field(default_factory=dict)  # id of a group's template -> its parsed expression

    def error(self, message: str, elem: XElem | None, exit: Exit = Exit.UNSUPPORTED) -> CspError:
        """A positioned error about `elem`."""
        return CspError(message, elem.line if elem else 0, 0, self.file, exit)


# ---------------------------------------------------------------- reading XML


def read_text_of(path: str) -> str:
    """The text of an XCSP3 file, decompressing ``.gz``/``.lzma``/``.xz`` (errors: `Exit.IO`).

    ``-`` reads standard input, compressed or not (told apart by the first bytes).
    """
    name = display_name(path)
    try:
        low = path.lower()
        if path == STDIN:
            data = sys.stdin.buffer.read()
            if data.startswith(b"\x1f\x8b"):
                data = gzip.decompress(data)
            elif data.startswith((b"\xfd7zXZ\x00", b"\x5d\x00\x00")):  # xz; the legacy .lzma header
                data = lzma.decompress(data)
        elif low.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                data = f.read()
        elif low.endswith((".lzma", ".xz")):
            with lzma.open(path, "rb") as f:
                data = f.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except (OSError, lzma.LZMAError, EOFError, zlib.error) as err:
        raise CspError(f"cannot read file: {getattr(err, 'strerror', None) or err}", file=name, exit=Exit.IO) from None
    return decode_utf8(data, name)  # bad bytes at LINE:COL with their 1-based offset, as for every other input


def parse_xml(text: str, file: str) -> XElem:
    """The element tree of `text`, with lines (syntax errors: `Exit.SYNTAX`)."""
    parser = expat.ParserCreate()
    root: list[XElem] = []
    stack: list[XElem] = []
    texts: list[list[str]] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        elem = XElem(tag, dict(attrs), line=parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(elem)
        else:
            root.append(elem)
        stack.append(elem)
        texts.append([])

    def end(tag: str) -> None:
        elem = stack.pop()
        elem.text = "".join(texts.pop()).strip()

    def data(chunk: str) -> None:
        if texts:
            texts[-1].append(chunk)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.buffer_text = True
    try:
        parser.Parse(text, True)
    except expat.ExpatError as err:
        raise CspError(f"not well-formed XML: {expat.ErrorString(err.code)}", err.lineno, err.offset + 1, file, Exit.SYNTAX) from None
    if not root:
        raise CspError("empty XML document", 1, 1, file, Exit.SYNTAX)
    return root[0]


def read_instance(path: str) -> Instance:
    """The `Instance` of the XCSP3 file `path`."""
    return parse_instance(read_text_of(path), display_name(path))


def parse_instance(text: str, file: str = "<string>") -> Instance:
    """The `Instance` of XCSP3 text."""
    with gc_paused():
        return _parse_instance(text, file)


def _parse_instance(text: str, file: str) -> Instance:
    root = parse_xml(text, file)
    if root.tag != "instance":
        raise CspError(f"the root element is <{root.tag}>, not <instance>: not an XCSP3 file", root.line, 0, file, Exit.SYNTAX)
    kind = root.attrs.get("type", "CSP")
    inst = Instance(file, kind, {}, {}, [], [], [])
    if kind not in ("CSP", "COP"):
        raise inst.error(f"instance type {kind!r} is not supported (only CSP and COP)", root)
    for part in root.children:
        if part.tag == "variables":
            _read_variables(inst, part)
        elif part.tag == "constraints":
            for c in part.children:
                _expand(inst, c, inst.constraints)
        elif part.tag == "objectives":
            for o in part.children:
                if o.tag not in ("minimize", "maximize"):
                    raise inst.error(f"<{o.tag}> in <objectives> is not supported", o)
                inst.objectives.append(o)
            if part.attrs.get("combination") not in (None, "lexico", "pareto") or len(inst.objectives) > 1:
                raise inst.error("more than one objective is not supported", part)
        elif part.tag == "annotations":
            continue
        else:
            raise inst.error(f"<{part.tag}> is not part of XCSP3-core", part)
    if kind == "COP" and not inst.objectives:
        raise inst.error("a COP instance without <objectives>", root, Exit.SEMANTIC)
    return inst


# ---------------------------------------------------------------- variables


def parse_int_set(text: str, inst: Instance | None, elem: XElem | None) -> list[tuple[int, int]]:
    """``1 3..5 -2`` as intervals (``+infinity`` and symbols are unsupported)."""
    pieces = []
    for tok in text.split():
        try:
            if ".." in tok:
                a, b = tok.split("..")
                pieces.append((int(a), int(b)))
            else:
                v = int(tok)
                pieces.append((v, v))
        except ValueError:
            what = "infinite domains" if "infinity" in tok else f"the value {tok!r} (only integers are supported)"
            if inst is None:
                raise CspError(f"bad integer set: {tok!r}", elem.line if elem else 0, 0, exit=Exit.SYNTAX) from None
            raise inst.error(f"{what} in <{elem.tag if elem else '?'}>", elem) from None
    return pieces


def _domain_of(inst: Instance, elem: XElem, text: str) -> Domain:
    if elem.attrs.get("type", "integer") != "integer":
        raise inst.error(f"variables of type {elem.attrs['type']!r} are not supported (only integer)", elem)
    return Domain.of(parse_int_set(text, inst, elem))


# XCSP3's identifiers (specification, section "Variables"): a letter, then letters, digits and underscores.
# Others are refused, not read: `_x` could meet the translation's own `_`-helpers and `x.1` the Sugar
# name of `x[1]`, and a clash would solve another model.
_XCSP3_ID = re.compile(r"[a-zA-Z][_a-zA-Z0-9]*")


def _read_variables(inst: Instance, part: XElem) -> None:
    by_id: dict[str, XElem] = {}
    for decl in part.children:
        ident = decl.attrs.get("id")
        if not ident:
            raise inst.error(f"<{decl.tag}> without id", decl, Exit.SEMANTIC)
        if not _XCSP3_ID.fullmatch(ident):
            raise inst.error(f"badly formed id {ident!r}: an XCSP3 id is a letter followed by letters, digits "
                             "and underscores", decl, Exit.SEMANTIC)
        if ident in by_id:
            raise inst.error(f"the id {ident!r} is declared twice (first on line {by_id[ident].line})", decl,
                             Exit.SEMANTIC)
        if "as" in decl.attrs:
            other = by_id.get(decl.attrs["as"])
            if other is None:
                raise inst.error(f"'as' refers to the unknown {decl.attrs['as']!r}", decl, Exit.SEMANTIC)
            if other.tag != decl.tag:
                raise inst.error("'as' between a variable and an array is not supported", decl)
            decl = XElem(decl.tag, {**other.attrs, **decl.attrs}, other.text, other.children, decl.line)
        by_id[ident] = decl
        inst.declared.append(ident)
        if decl.tag == "var":
            inst.domains[ident] = _domain_of(inst, decl, decl.text)
            inst.lines[ident] = decl.line
        elif decl.tag == "array":
            sizes = tuple(int(s) for s in re.findall(r"\[(\d+)\]", decl.attrs.get("size", "")))
            if not sizes:
                raise inst.error(f"array {ident!r} has no size", decl, Exit.SEMANTIC)
            inst.arrays[ident] = sizes
            cells = [ident + "".join(f"[{i}]" for i in idx) for idx in itertools.product(*(range(s) for s in sizes))]
            if decl.children:
                assigned: dict[str, Domain] = {}
                for dom in decl.all("domain"):
                    domain = _domain_of(inst, decl, dom.text)
                    targets = dom.attrs.get("for", "").split()
                    if targets == ["others"]:
                        for cell in cells:
                            assigned.setdefault(cell, domain)
                        continue
                    for target in targets:
                        for cell in expand_ref(inst, target, dom, within=ident):
                            assigned[cell] = domain
                for cell in cells:
                    if cell in assigned:
                        inst.domains[cell] = assigned[cell]
                        inst.lines[cell] = decl.line
            else:
                domain = _domain_of(inst, decl, decl.text)
                for cell in cells:
                    inst.domains[cell] = domain
                    inst.lines[cell] = decl.line
        else:
            raise inst.error(f"<{decl.tag}> in <variables> is not supported", decl)


_REF = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]]*\])*)$")


def expand_ref(inst: Instance, token: str, elem: XElem | None, within: str | None = None) -> list[str]:
    """The variable ids of ``x``, ``x[2]``, ``x[]``, ``x[1..3][]`` (undefined cells of an array are skipped)."""
    m = _REF.match(token)
    if not m:
        raise inst.error(f"{token!r} is not a variable reference", elem, Exit.SEMANTIC)
    name, index = m.group(1), m.group(2)
    if not index:
        if name in inst.domains:
            return [name]
        if name in inst.arrays:
            raise inst.error(f"array {name!r} used without brackets", elem, Exit.SEMANTIC)
        raise inst.error(f"undefined variable {name!r}", elem, Exit.SEMANTIC)
    sizes = inst.arrays.get(name)
    if sizes is None:
        raise inst.error(f"undefined array {name!r}", elem, Exit.SEMANTIC)
    parts = re.findall(r"\[([^\]]*)\]", index)
    if len(parts) != len(sizes):
        raise inst.error(f"{token!r}: array {name!r} has {len(sizes)} dimension(s)", elem, Exit.SEMANTIC)
    ranges = []
    for part, size in zip(parts, sizes):
        try:
            if part == "":
                ranges.append(range(size))
            elif ".." in part:
                a, b = part.split("..")
                ranges.append(range(int(a), int(b) + 1))
            else:
                ranges.append(range(int(part), int(part) + 1))
        except ValueError:
            raise inst.error(f"bad index {part!r} in {token!r}", elem, Exit.SEMANTIC) from None
    out = []
    for idx in itertools.product(*ranges):
        cell = name + "".join(f"[{i}]" for i in idx)
        if cell in inst.domains or (within is not None and all(0 <= i < s for i, s in zip(idx, sizes))):
            out.append(cell)
        elif within is None and any(not (0 <= i < s) for i, s in zip(idx, sizes)):
            raise inst.error(f"{cell} is outside array {name!r}", elem, Exit.SEMANTIC)
    if within is None and not out and all(p != "" and ".." not in p for p in parts):
        raise inst.error(f"{token!r} is an undefined cell of array {name!r}", elem, Exit.SEMANTIC)
    return out


# ---------------------------------------------------------------- groups, blocks, slides

_CONSTRAINT_CONTAINERS = ("block",)
_PARAM = re.compile(r"%(\.\.\.|\d+)")


def _substitute(elem: XElem, args: list[str]) -> XElem:
    """A copy of `elem` with ``%i`` replaced by args[i] and ``%...`` by the arguments after the highest used."""
    highest = -1
    for e in _walk(elem):
        for m in _PARAM.finditer(e.text + " " + " ".join(e.attrs.values())):
            if m.group(1) != "...":
                highest = max(highest, int(m.group(1)))

    def sub(text: str) -> str:
        def one(m: re.Match) -> str:
            if m.group(1) == "...":
                return " ".join(args[highest + 1 :])
            return args[int(m.group(1))]

        return _PARAM.sub(one, text) if "%" in text else text

    def copy(e: XElem) -> XElem:
        return XElem(e.tag, {k: sub(v) for k, v in e.attrs.items()}, sub(e.text), [copy(c) for c in e.children], e.line)

    return copy(elem)


def _walk(elem: XElem) -> Iterator[XElem]:
    stack = [elem]
    while stack:
        e = stack.pop()
        yield e
        stack.extend(e.children)


def _expand(inst: Instance, elem: XElem, out: list[XElem]) -> None:
    if elem.tag == "block":
        for c in elem.children:
            _expand(inst, c, out)
    elif elem.tag == "group":
        if not elem.children:
            raise inst.error("empty <group>", elem, Exit.SEMANTIC)
        template = elem.children[0]
        for args_elem in elem.children[1:]:
            if args_elem.tag != "args":
                raise inst.error(f"<{args_elem.tag}> in <group> (expected <args>)", args_elem, Exit.SEMANTIC)
            args = list_tokens(inst, args_elem.text, args_elem)
            try:
                made = _substitute(template, args)
                made.origin = (template, args)
                out.append(made)
            except IndexError:
                raise inst.error("<args> has fewer arguments than the template uses", args_elem, Exit.SEMANTIC) from None
    elif elem.tag == "slide":
        lists = elem.all("list")
        template = next((c for c in elem.children if c.tag != "list"), None)
        if template is None or not lists:
            raise inst.error("<slide> needs a <list> and a constraint", elem, Exit.SEMANTIC)
        if len(lists) > 1:
            raise inst.error("<slide> over several lists is not supported", elem)
        items = list_tokens(inst, lists[0].text, lists[0])
        offset = int(lists[0].attrs.get("offset", "1"))
        arity = 1 + max((int(m.group(1)) for e in _walk(template) for m in _PARAM.finditer(e.text) if m.group(1) != "..."), default=0)
        circular = elem.attrs.get("circular") == "true"
        n = len(items)
        starts = range(0, n, offset) if circular else range(0, n - arity + 1, offset)
        for s in starts:
            args = [items[(s + k) % n] for k in range(arity)]
            out.append(_substitute(template, args))
    else:
        out.append(elem)


# ---------------------------------------------------------------- tokens, tuples, expressions


def split_top(text: str) -> list[str]:
    """Whitespace-separated tokens, keeping ``add(x, y)`` whole (no split inside parentheses)."""
    if "(" not in text:
        return text.split()
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                out.append("".join(cur))
                cur = []
        elif not (ch.isspace() and depth > 0):
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


_REPEATED = re.compile(r"^[+-]?\d+x\d+$")


def list_tokens(inst: Instance, text: str, elem: XElem) -> list[str]:
    """The items of a list: array references expanded into variable ids; integers and expressions kept as text."""
    out: list[str] = []
    for tok in split_top(text):
        if "[" in tok and "(" not in tok and ("[]" in tok or ".." in tok):
            out.extend(expand_ref(inst, tok, elem))
        elif "x" in tok and _REPEATED.match(tok):  # compact form: 20x4 is 20 20 20 20
            value, times = tok.split("x")
            out.extend([value] * int(times))
        else:
            out.append(tok)
    return out


def parse_tuples(text: str, inst: Instance, elem: XElem) -> list[tuple[Union[int, None], ...]]:
    """``(1,2)(3,*)`` as tuples of ints, None for ``*``."""
    body = "".join(text.split())
    if not body:
        return []
    if not (body.startswith("(") and body.endswith(")")):
        raise inst.error("bad tuples (expected (a,b,...)(c,d,...))", elem, Exit.SYNTAX)
    out = []
    try:
        for t in body[1:-1].split(")("):
            out.append(tuple(None if v == "*" else int(v) for v in t.split(",")))
    except ValueError:
        raise inst.error("bad tuple value (only integers and * are supported)", elem) from None
    return out


# An expression is ("int", v) | ("var", id) | (op, [args]) ; ops are XCSP3's names.
Expr = tuple
_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*)|([+-]?\d+)|([(),])|%(\d+))")


def intension_expr(inst: Instance, elem: XElem) -> Expr:
    """The expression of an ``<intension>``; for one made from a group, its template is parsed only once."""
    if elem.origin is not None:
        template, args = elem.origin
        tree = inst.templates.get(id(template))
        if tree is None:
            f = template.child("function")
            text = f.text if f is not None else template.text
            if "%..." in text:
                tree = ("unparsed",)
            else:
                tree = parse_expr(text, inst, template, params=True)
            inst.templates[id(template)] = tree
        if tree[0] != "unparsed":
            return _bind(tree, args, inst, elem)
    f = elem.child("function")
    return parse_expr(f.text if f is not None else elem.text, inst, elem)


def _bind(tree: Expr, args: list[str], inst: Instance, elem: XElem) -> Expr:
    kind = tree[0]
    if kind == "param":
        if tree[1] >= len(args):
            raise inst.error("<args> has fewer arguments than the template uses", elem, Exit.SEMANTIC)
        return parse_item(args[tree[1]], inst, elem)
    if kind in ("int", "var"):
        return tree
    return (kind, [_bind(a, args, inst, elem) for a in tree[1]])


def parse_expr(text: str, inst: Instance, elem: XElem, params: bool = False) -> Expr:
    """A functional expression such as ``eq(x,add(y,1))`` as nested tuples (``%i`` as ("param", i) if `params`)."""
    pos = 0
    tokens: list[tuple[str, str]] = []
    text = text.strip()
    end = len(text)
    while pos < end:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise inst.error(f"cannot read the expression {text[:60]!r} at character {pos + 1}", elem, Exit.SYNTAX)
        pos = m.end()
        if m.group(1):
            tokens.append(("name", m.group(1)))
        elif m.group(2):
            tokens.append(("int", m.group(2)))
        elif m.group(3):
            tokens.append((m.group(3), m.group(3)))
        elif params:
            tokens.append(("param", m.group(4)))
        else:
            raise inst.error(f"unexpected %{m.group(4)} in the expression {text[:60]!r}", elem, Exit.SYNTAX)
    i = 0

    def expr() -> Expr:
        nonlocal i
        if i >= len(tokens):
            raise inst.error(f"the expression {text[:60]!r} ends too early", elem, Exit.SYNTAX)
        kind, val = tokens[i]
        i += 1
        if kind == "int":
            return ("int", int(val))
        if kind == "param":
            return ("param", int(val))
        if kind != "name":
            raise inst.error(f"unexpected {val!r} in the expression {text[:60]!r}", elem, Exit.SYNTAX)
        if i < len(tokens) and tokens[i][0] == "(":
            i += 1
            args = []
            if i < len(tokens) and tokens[i][0] == ")":
                i += 1
                return (val, args)
            while True:
                args.append(expr())
                if i >= len(tokens):
                    raise inst.error(f"missing ')' in {text[:60]!r}", elem, Exit.SYNTAX)
                if tokens[i][0] == ",":
                    i += 1
                    continue
                if tokens[i][0] == ")":
                    i += 1
                    return (val, args)
                raise inst.error(f"unexpected {tokens[i][1]!r} in {text[:60]!r}", elem, Exit.SYNTAX)
        if "[" not in val and val not in inst.domains:
            if val in inst.arrays:
                raise inst.error(f"array {val!r} used as a variable", elem, Exit.SEMANTIC)
            raise inst.error(f"undefined variable {val!r}", elem, Exit.SEMANTIC)
        if "[" in val and val not in inst.domains:
            raise inst.error(f"undefined variable {val!r}", elem, Exit.SEMANTIC)
        return ("var", val)

    result = expr()
    if i != len(tokens):
        raise inst.error(f"extra text after the expression {text[:60]!r}", elem, Exit.SYNTAX)
    return result


def parse_item(tok: str, inst: Instance, elem: XElem) -> Expr:
    """One list item: an integer, a variable id or an expression."""
    if tok.lstrip("+-").isascii() and tok.lstrip("+-").isdigit():
        return ("int", int(tok))
    if "(" not in tok:
        if tok not in inst.domains:
            raise inst.error(f"undefined variable {tok!r}", elem, Exit.SEMANTIC)
        return ("var", tok)
    return parse_expr(tok, inst, elem)


def parse_condition(text: str, inst: Instance, elem: XElem) -> tuple[str, Union[Expr, list[tuple[int, int]]]]:
    """``(le,10)``, ``(eq,z)``, ``(in,1..5)`` as (operator, operand expression or intervals)."""
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")) or "," not in body:
        raise inst.error(f"bad condition {body!r} (expected (operator,operand))", elem, Exit.SYNTAX)
    op, operand = body[1:-1].split(",", 1)
    op, operand = op.strip(), operand.strip()
    if op in ("in", "notin"):
        if operand.startswith("set("):
            return op, [(v, v) for v in (int(x) for x in operand[4:-1].split(",") if x.strip())]
        return op, parse_int_set(operand.replace(",", " "), inst, elem)
    if op not in ("lt", "le", "ge", "gt", "eq", "ne"):
        raise inst.error(f"unknown condition operator {op!r}", elem, Exit.SYNTAX)
    return op, parse_item(operand, inst, elem)


def matrix_rows(inst: Instance, elem: XElem) -> list[list[str]]:
    """The rows of a ``<matrix>``: ``(a,b)(c,d)`` or ``x[][]``."""
    text = "".join(elem.text.split())
    if text.startswith("("):
        return [[t for t in row.split(",")] for row in text[1:-1].split(")(")]
    m = _REF.match(text)
    if not m or m.group(1) not in inst.arrays:
        raise inst.error(f"bad <matrix> {text[:40]!r}", elem, Exit.SYNTAX)
    sizes = inst.arrays[m.group(1)]
    if len(sizes) != 2:
        raise inst.error("<matrix> of an array that is not two-dimensional", elem)
    parts = re.findall(r"\[([^\]]*)\]", m.group(2))
    rows = range(sizes[0]) if parts[0] == "" else range(int(parts[0].split("..")[0]), int(parts[0].split("..")[-1]) + 1)
    return [expand_ref(inst, f"{m.group(1)}[{r}][{parts[1]}]", elem) for r in rows]
