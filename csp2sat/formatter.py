"""Front end, formatter: print a `SyntaxTree` back as Sugar CSP text in a canonical layout.

For people who edit CSP files by hand (`csp2sat fmt`). Each statement starts a
line; an expression that fits in `WIDTH` columns stays on one line, a longer one
is broken with two-space indentation: small items (names, numbers, short lists
such as tuples) are packed onto lines, larger ones get a line each. Aliases are
printed in one spelling Sugar accepts (``=``, ``!=``, ``<=``, ``+``, ``-``,
``*``, ``and``, ``or``, ``not``, ``imp``...). Comments stay where they were: a
comment on a line of its own stays before the statement that follows it, a
comment after the end of a statement stays at the end of its last line, and a
comment inside a multi-line statement moves onto its own line just before the
statement. At most one blank line is kept between statements.

The layout depends only on the tree, so formatting is idempotent, and the
output parses back to an equal tree.
"""

from __future__ import annotations

from typing import Union

from csp2sat.syntax import (
    BoolDecl,
    ConstraintStmt,
    DomainDecl,
    IntDecl,
    Node,
    ObjectiveDecl,
    PredicateDecl,
    RelationDecl,
    Statement,
    SyntaxTree,
)

__all__ = ["format_tree", "format_node", "WIDTH"]

WIDTH = 80
# Lists this short (flat) are packed with their neighbours when a line is broken.
_SMALL = 16

SPELLING = {
    "not": "not", "and": "and", "or": "or", "imp": "imp", "xor": "xor", "iff": "iff",
    "eq": "=", "ne": "!=", "le": "<=", "lt": "<", "ge": ">=", "gt": ">",
    "add": "+", "sub": "-", "mul": "*", "div": "div", "mod": "mod",
    "abs": "abs", "min": "min", "max": "max", "if": "if", "pow": "pow",
}  # fmt: skip

# An S-expression to lay out: an atom, or a list of S-expressions.
Sx = Union[str, list]


def _node_sx(node: Node) -> Sx:
    """`node` as an S-expression (iterative: expressions can be nested deeply)."""
    # Post-order over an explicit stack: `done` holds the finished children.
    stack: list[tuple[Node, bool]] = [(node, False)]
    done: list[Sx] = []
    while stack:
        current, expanded = stack.pop()
        if not expanded and current.args:
            stack.append((current, True))
            stack.extend((a, False) for a in reversed(current.args))
            continue
        children = [done.pop() for _ in current.args][::-1] if current.args else []
        done.append(_one(current, children))
    return done[0]


def _one(node: Node, args: list) -> Sx:
    op = node.op
    if op == "const":
        return str(node.value)
    if op in ("sym", "ivar", "bvar", "param"):
        return str(node.value)
    if op in ("true", "false", "nil"):
        return op
    if op == "list":
        return args
    if op in ("call", "pcall", "rcall"):
        return [str(node.value)] + args
    if op == "neg":
        # (- x) reads back as neg; a two-argument neg (a Sugar quirk) keeps its name
        return ["-"] + args if len(args) == 1 else ["neg"] + args
    if op in ("weightedsum", "count", "element"):
        # the comparison word goes before the last argument
        if op == "element" and node.value == "eq":
            return [op] + args
        return [op] + args[:-1] + [str(node.value)] + args[-1:]
    return [SPELLING.get(op, op)] + args


def _flat(sx: Sx) -> str:
    if isinstance(sx, str):
        return sx
    return "(" + " ".join(_flat(x) for x in sx) + ")"


def _small(sx: Sx, flat: str) -> bool:
    return isinstance(sx, str) or (len(flat) <= _SMALL and all(isinstance(x, str) for x in sx))


def _layout(sx: Sx, indent: int) -> str:
    """`sx` printed starting at column `indent` (the first line is not indented)."""
    flat = _flat(sx)
    if isinstance(sx, str) or indent + len(flat) <= WIDTH:
        return flat
    inner = " " * (indent + 2)
    lines: list[str] = []
    line = "("
    line_start = indent  # column where `line` starts
    for i, child in enumerate(sx):
        child_flat = _flat(child)
        if _small(child, child_flat) or (i == 0 and isinstance(child, str)):
            sep = "" if line in ("(", inner) else " "
            if line_start + len(line) + len(sep) + len(child_flat) <= WIDTH or line in ("(", inner):
                line += sep + child_flat
                continue
            lines.append(line)
            line, line_start = inner + child_flat, 0
            continue
        # a large item: on a line of its own (the first item stays after the paren)
        if line == "(":
            prefix, text = ("(" if not lines else inner + "("), _layout(child, indent + 1)
        else:
            if line != inner:
                lines.append(line)
            prefix, text = inner, _layout(child, indent + 2)
        line, line_start = prefix + text, (indent if prefix == "(" else 0)
        if "\n" in text:
            head, _, last = text.rpartition("\n")
            lines.append(prefix + head)
            line, line_start = last, 0
    lines.append(line + ")")
    return "\n".join(lines)


def format_node(node: Node, indent: int = 0) -> str:
    """One expression in the canonical layout, starting at column `indent`."""
    return _layout(_node_sx(node), indent)


def _domain_sx(spec: tuple) -> list:
    kind = spec[0]
    if kind == "bounds":
        return [str(spec[1]), str(spec[2])]
    if kind == "value":
        return [str(spec[1])]
    if kind == "ranges":
        return [[str(r[0]) if len(r) == 1 else [str(r[0]), str(r[1])] for r in spec[1]]]
    return [spec[1]]


def statement_sx(stmt: Statement) -> Sx:
    """A statement as an S-expression."""
    if isinstance(stmt, ConstraintStmt):
        return _node_sx(stmt.formula)
    if isinstance(stmt, IntDecl):
        return ["int", stmt.name] + _domain_sx(stmt.spec)
    if isinstance(stmt, DomainDecl):
        return ["domain", stmt.name] + _domain_sx(stmt.spec)
    if isinstance(stmt, BoolDecl):
        return ["bool", stmt.name]
    if isinstance(stmt, RelationDecl):
        body = ["supports" if stmt.supports else "conflicts"] + [[str(v) for v in t] for t in stmt.tuples]
        return ["relation", stmt.name, str(stmt.arity), body]
    if isinstance(stmt, PredicateDecl):
        return ["predicate", [stmt.name, *stmt.params], _node_sx(stmt.body)]
    assert isinstance(stmt, ObjectiveDecl)
    return ["objective", stmt.sense, *stmt.names]


def format_tree(tree: SyntaxTree) -> str:
    """The whole file in the canonical layout, comments kept (see the module docstring)."""
    statements = tree.statements
    ends = tree.ends if len(tree.ends) == len(statements) else ((s.line, s.col) for s in statements)
    spans = [((s.line, s.col), end) for s, end in zip(statements, ends)]
    comments = sorted(tree.comments, key=lambda c: (c.line, c.col))
    out: list[str] = []
    last_line = 0  # last source line printed so far (for blank lines)
    ci = 0

    def blank_before(line: int) -> None:
        if out and last_line and line > last_line + 1:
            out.append("")

    for stmt, ((sline, scol), (eline, ecol)) in zip(statements, spans):
        # comments before this statement, on lines of their own
        while ci < len(comments) and (comments[ci].line, comments[ci].col) < (sline, scol):
            c = comments[ci]
            blank_before(c.line)
            out.append(c.text.rstrip())
            last_line = c.line
            ci += 1
        inside: list[str] = []
        trailing: list[str] = []
        while ci < len(comments) and comments[ci].line <= eline:
            c = comments[ci]
            if c.line == eline and c.col > ecol:
                trailing.append(c.text.rstrip())
            else:
                inside.append(c.text.rstrip())
            ci += 1
        blank_before(sline)
        out.extend(inside)
        text = _layout(statement_sx(stmt), 0)
        if trailing:
            text += " " + trailing[0]
            out.append(text)
            out.extend(trailing[1:])
        else:
            out.append(text)
        last_line = eline
    for c in comments[ci:]:
        blank_before(c.line)
        out.append(c.text.rstrip())
        last_line = c.line
    return "\n".join(out) + "\n" if out else ""
