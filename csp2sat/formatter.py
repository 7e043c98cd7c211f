"""Front end, formatter: print a `SyntaxTree` back as Sugar CSP text in a canonical layout.

For people who edit CSP files by hand (`csp2sat fmt`). Each statement starts a
line; an expression that fits in `WIDTH` columns stays on one line, a longer one
is broken with two-space indentation: small items (names, numbers, short lists
such as tuples) are packed onto lines, larger ones get a line each. Aliases are
printed in one spelling Sugar accepts (``=``, ``!=``, ``<=``, ``+``, ``-``,
``*``, ``and``, ``or``, ``not``, ``imp``...). Comments stay where they were: a
comment on a line of its own stays before the statement that follows it, a
comment after the end of a statement stays at the end of its last line, and a
comment inside a constraint or predicate stays among the same tokens: before
the same item, at the end of a line if it followed code on its line, on a line
of its own otherwise (an expression holding a comment is always broken over
lines). Comments inside declarations move onto their own line just before the
declaration. At most one blank line is kept between statements.

The layout depends only on the tree, so formatting is idempotent, and the
output parses back to an equal tree.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Optional, Sequence, Union

from csp2sat.syntax import (
    BoolDecl,
    Comment,
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

# An S-expression to lay out: an atom, a list of S-expressions, or one with comments before it.
Sx = Union[str, list, "_Commented"]


@dataclass(frozen=True)
class _Commented:
    """An item preceded by comments of the source; `item` None: comments before a closing parenthesis.

    `trailing[i]` says whether comment i followed code on its source line (it is
    then printed at the end of the current line, else on a line of its own).
    """

    texts: tuple[str, ...]
    trailing: tuple[bool, ...]
    item: Optional[Sx]


def _node_sx(node: Node, comments: Sequence[Comment] = (), code_cols: Optional[dict] = None) -> Sx:
    """`node` as an S-expression (iterative: expressions can be nested deeply).

    `comments` (inside the node's text, in order) are attached before the first
    node that starts after each, or at the end of `node`'s list; `code_cols`
    maps a line to the column where code starts on it (to tell trailing comments).
    """
    before: dict[int, list[Comment]] = {}
    at_end: list[Comment] = []
    if comments:
        order = [n for n in node.walk() if n.line]
        starts = [(n.line, n.col) for n in order]
        for c in comments:
            i = bisect_right(starts, (c.line, c.col))
            if i < len(order) and order[i] is not node:
                before.setdefault(id(order[i]), []).append(c)
            else:
                at_end.append(c)
    cols = code_cols or {}

    def commented(cs: list[Comment], item: Optional[Sx]) -> _Commented:
        trailing = tuple(c.line in cols and cols[c.line] < c.col for c in cs)
        return _Commented(tuple(c.text.rstrip() for c in cs), trailing, item)

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
        sx = _one(current, children)
        if before and id(current) in before:
            sx = commented(before[id(current)], sx)
        done.append(sx)
    root = done[0]
    if at_end:
        root = (list(root) if isinstance(root, list) else [root]) + [commented(at_end, None)]
    return root


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
        last = args[-1]
        if isinstance(last, _Commented) and last.item is not None:
            # the word has no position of its own: comments before the last argument go before it
            return [op] + args[:-1] + [_Commented(last.texts, last.trailing, str(node.value)), last.item]
        return [op] + args[:-1] + [str(node.value)] + args[-1:]
    return [SPELLING.get(op, op)] + args


def _flat(sx: Sx) -> str:
    """`sx` on one line; with a newline in it when it holds a comment (so it never fits on one)."""
    if isinstance(sx, str):
        return sx
    if isinstance(sx, _Commented):
        return "\n".join(sx.texts) + "\n" + ("" if sx.item is None else _flat(sx.item))
    return "(" + " ".join(_flat(x) for x in sx) + ")"


def _small(sx: Sx, flat: str) -> bool:
    return isinstance(sx, str) or (
        isinstance(sx, list) and len(flat) <= _SMALL and all(isinstance(x, str) for x in sx)
    )


def _layout(sx: Sx, indent: int) -> str:
    """`sx` printed starting at column `indent` (the first line is not indented)."""
    flat = _flat(sx)
    if isinstance(sx, str) or (indent + len(flat) <= WIDTH and "\n" not in flat):
        return flat
    inner = " " * (indent + 2)
    lines: list[str] = []
    line = "("
    line_start = indent  # column where `line` starts
    # After a child broken over lines, `line` ends with that child's closing
    # parentheses: a sibling appended there would read as part of the child
    # (a dangling "b) 20)"), so the next sibling starts a line of its own.
    after_broken_child = False
    for i, child in enumerate(sx):
        if isinstance(child, _Commented):
            for text, trailing in zip(child.texts, child.trailing):
                if trailing and line != inner:
                    lines.append(line + " " + text)
                else:
                    if line != inner:
                        lines.append(line)
                    lines.append(inner + text)
                line, line_start, after_broken_child = inner, 0, False
            if child.item is None:
                continue
            child = child.item
        child_flat = _flat(child)
        if _small(child, child_flat) or (i == 0 and isinstance(child, str)):
            sep = "" if line in ("(", inner) else " "
            if after_broken_child:
                after_broken_child = False
                lines.append(line)
                line, line_start = inner + child_flat, 0
                continue
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
        after_broken_child = "\n" in text
        if after_broken_child:
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


def statement_sx(stmt: Statement, comments: Sequence[Comment] = (), code_cols: Optional[dict] = None) -> Sx:
    """A statement as an S-expression; `comments` inside it are kept in place (constraints and predicates)."""
    if isinstance(stmt, ConstraintStmt):
        return _node_sx(stmt.formula, comments, code_cols)
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
        body = stmt.body
        head = [c for c in comments if (c.line, c.col) < (body.line, body.col)]
        sx = _node_sx(body, comments[len(head):], code_cols)
        if head:
            cols = code_cols or {}
            trailing = tuple(c.line in cols and cols[c.line] < c.col for c in head)
            sx = _Commented(tuple(c.text.rstrip() for c in head), trailing, sx)
        return ["predicate", [stmt.name, *stmt.params], sx]
    assert isinstance(stmt, ObjectiveDecl)
    return ["objective", stmt.sense, *stmt.names]


def _code_cols(stmt: Statement) -> dict[int, int]:
    """For each line of `stmt`, the column where its first node starts (to tell trailing comments)."""
    cols = {stmt.line: stmt.col}
    root = stmt.formula if isinstance(stmt, ConstraintStmt) else stmt.body  # type: ignore[union-attr]
    for n in root.walk():
        if n.line and n.col < cols.get(n.line, n.col + 1):
            cols[n.line] = n.col
    return cols


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
        inside_comments: list[Comment] = []
        trailing: list[str] = []
        while ci < len(comments) and comments[ci].line <= eline:
            c = comments[ci]
            if c.line == eline and c.col > ecol:
                trailing.append(c.text.rstrip())
            else:
                inside.append(c.text.rstrip())
                inside_comments.append(c)
            ci += 1
        blank_before(sline)
        kept: list[Comment] = []
        if isinstance(stmt, (ConstraintStmt, PredicateDecl)) and inside_comments:
            kept, inside = inside_comments, []
        out.extend(inside)
        text = _layout(statement_sx(stmt, kept, _code_cols(stmt) if kept else None), 0)
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
