"""Front end, stage 1: parse Sugar CSP text into a `SyntaxTree` (see `csp2sat.syntax`).

`parse_text` runs lark's LALR parser over `grammar.lark` with the tree builder
(`_Builder`) applied at each reduction, so no intermediate parse tree is made:
statements come out as `syntax` dataclasses and expressions as `Node`s with the
operator folded to its canonical name. Comments are collected by a lexer
callback for the formatter. Names are not resolved here (that is
`csp2sat.checker`); lark's errors become `CspError`s with exit `Exit.SYNTAX`
and a message that says what is wrong in the user's terms.

Sugar's tokenizer quirks are reproduced, each with a warning: ``1x`` is the
number 1 then the symbol ``x``, ``2.7`` is read as 2, ``-x`` is ``-`` then ``x``.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from pathlib import Path
from typing import Callable

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from csp2sat.diagnostics import CspError, Diagnostic, Exit
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
    SyntaxTree,
)

__all__ = ["parse_text", "SYMBOL_RE", "NUMBER_RE"]

# The token classes of grammar.lark, for other modules (the formatter checks
# that a name it prints reads back as one symbol).
SYMBOL_RE = re.compile(
    r"-(?![0-9])|[A-Za-z_+*/%=<>!&|$\u0080-\U0010ffff][A-Za-z0-9_.+\-*/%=<>!&|$\u0080-\U0010ffff]*"
)
NUMBER_RE = re.compile(r"-?[0-9]+(\.[0-9]*)?")

# Rule name -> canonical operator, for the rules that only differ by operator.
_OPERATOR_RULES = (
    "not and or imp xor iff eq ne le lt ge gt add mul div mod abs min max if pow alldifferent lex_less lex_lesseq nvalue"
).split()

# How each construct is written, for messages about a malformed one.
USAGE = {
    "domain": "(domain NAME LB UB), (domain NAME VALUE) or (domain NAME (RANGE...))",
    "int": "(int NAME LB UB), (int NAME VALUE), (int NAME (RANGE...)) or (int NAME DOMAIN)",
    "bool": "(bool NAME)",
    "relation": "(relation NAME ARITY (supports|conflicts (N...)...))",
    "predicate": "(predicate (NAME PARAM...) FORMULA)",
    "objective": "(objective minimize|maximize NAME)",
    "weightedsum": "(weightedsum ((A T)...) eq|ne|le|lt|ge|gt T)",
    "count": "(count T (T...) eq|ne|le|lt|ge|gt T)",
    "element": "(element T (T...) T) or (element T (T...) eq|ne|le|lt|ge|gt T)",
    "cumulative": "(cumulative ((ORIGIN DURATION END HEIGHT)...) LIMIT)",
    "disjunctive": "(disjunctive ((ORIGIN DURATION)...))",
    "lex_less": "(lex_less (T...) (T...))",
    "lex_lesseq": "(lex_lesseq (T...) (T...))",
    "nvalue": "(nvalue T (T...))",
    "global_cardinality": "(global_cardinality (T...) ((VALUE T)...))",
    "global_cardinality_with_costs": "(global_cardinality_with_costs (T...) ((VALUE T)...) ((I J W)...) T)",
}

_SYMBOL_CHAR = r"A-Za-z0-9_.+\-*/%=<>!&|$\u0080-\U0010ffff"
# Tokens Sugar reads in a surprising way (comments are matched first, to be skipped).
_ODD_TOKENS = re.compile(
    rf";[^\n]*|(?<![{_SYMBOL_CHAR}])(?:(?P<num>-?[0-9]+(?P<frac>\.[0-9]*)?)(?P<glued>[{_SYMBOL_CHAR}])?"
    rf"|(?P<minus>-)(?=[A-Za-z_+*/%=<>!&|$\u0080-\U0010ffff]))"
)
_COMMENT_RE = re.compile(r";[^\n]*")


class _State:
    """What one parse collects besides the statements (the parser object is shared)."""

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.comments: list[Comment] = []
        self.starts: list[int] = []  # offset of each statement, in order


class _Builder(Transformer):
    """Callbacks of grammar.lark's rules: build statements and `Node`s during parsing."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.state: _State | None = None

    # ---------------------------------------------------------- leaves

    @staticmethod
    def const(children: list) -> Node:
        tok = children[0]
        return Node("const", (), _number(tok), tok.line, tok.column)

    @staticmethod
    def sym(children: list) -> Node:
        tok = children[0]
        return Node("sym", (), str(tok), tok.line, tok.column)

    @staticmethod
    def true(children: list) -> Node:
        tok = children[0]
        return Node("true", (), None, tok.line, tok.column)

    @staticmethod
    def false(children: list) -> Node:
        tok = children[0]
        return Node("false", (), None, tok.line, tok.column)

    @staticmethod
    def num(children: list) -> int:
        return _number(children[0])

    # ---------------------------------------------------------- expressions

    @staticmethod
    def sub(children: list) -> Node:
        lpar = children[0]
        args = tuple(children[1:])
        # (- x) and (sub x) mean negation; folding here gives one tree for both.
        return Node("neg" if len(args) == 1 else "sub", args, None, lpar.line, lpar.column)

    @staticmethod
    def neg(children: list) -> Node:
        lpar = children[0]
        return Node("neg", tuple(children[1:]), None, lpar.line, lpar.column)

    @staticmethod
    def call(children: list) -> Node:
        lpar, name = children[0], children[1]
        return Node("call", tuple(children[2:]), str(name), lpar.line, lpar.column)

    @staticmethod
    def seq(children: list) -> Node:
        lpar = children[0]
        return Node("list", tuple(children[1:]), None, lpar.line, lpar.column)

    list = seq

    @staticmethod
    def relop(children: list) -> str:
        return str(children[0])

    @staticmethod
    def task(children: list) -> Node:
        lpar = children[0]
        items = tuple(
            Node("nil", (), None, a.line, a.col) if a.op == "sym" and a.value == "nil" else a for a in children[1:]
        )
        return Node("list", items, None, lpar.line, lpar.column)

    @staticmethod
    def task_list(children: list) -> Node:
        lpar = children[0]
        return Node("list", tuple(children[1:]), None, lpar.line, lpar.column)

    @staticmethod
    def weightedsum(children: list) -> Node:
        lpar, pairs, op, rhs = children
        return Node("weightedsum", (_items_as_lists(pairs), rhs), op, lpar.line, lpar.column)

    @staticmethod
    def count(children: list) -> Node:
        lpar, value, terms, op, rhs = children
        return Node("count", (value, terms, rhs), op, lpar.line, lpar.column)

    @staticmethod
    def element(children: list) -> Node:
        lpar, index, terms, rhs = children
        return Node("element", (index, terms, rhs), "eq", lpar.line, lpar.column)

    @staticmethod
    def element_op(children: list) -> Node:
        lpar, index, terms, op, rhs = children
        return Node("element", (index, terms, rhs), op, lpar.line, lpar.column)

    @staticmethod
    def cumulative(children: list) -> Node:
        lpar, tasks, limit = children
        return Node("cumulative", (tasks, limit), None, lpar.line, lpar.column)

    @staticmethod
    def disjunctive(children: list) -> Node:
        lpar, tasks = children
        return Node("disjunctive", (_items_as_lists(tasks),), None, lpar.line, lpar.column)

    @staticmethod
    def global_cardinality(children: list) -> Node:
        lpar, terms, pairs = children
        return Node("global_cardinality", (terms, _items_as_lists(pairs)), None, lpar.line, lpar.column)

    @staticmethod
    def global_cardinality_with_costs(children: list) -> Node:
        lpar, terms, pairs, costs, cost = children
        args = (terms, _items_as_lists(pairs), _items_as_lists(costs), cost)
        return Node("global_cardinality_with_costs", args, None, lpar.line, lpar.column)

    # ---------------------------------------------------------- statements

    def _start(self, tok: Token) -> None:
        self.state.starts.append(tok.start_pos)  # type: ignore[union-attr]

    def domain_decl(self, children: list) -> DomainDecl:
        lpar, name, spec = children
        self._start(lpar)
        return DomainDecl(str(name), spec, lpar.line, lpar.column)

    def int_decl(self, children: list) -> IntDecl:
        lpar, name, spec = children
        self._start(lpar)
        return IntDecl(str(name), spec, lpar.line, lpar.column)

    @staticmethod
    def bounds(children: list) -> tuple:
        return ("bounds", children[0], children[1])

    @staticmethod
    def single(children: list) -> tuple:
        return ("value", children[0])

    @staticmethod
    def ranges(children: list) -> tuple:
        return ("ranges", tuple(c if isinstance(c, tuple) else (c,) for c in children[1:]))

    @staticmethod
    def range_pair(children: list) -> tuple:
        return (children[1], children[2])

    @staticmethod
    def domain_ref(children: list) -> tuple:
        return ("domain", str(children[0]))

    def bool_decl(self, children: list) -> BoolDecl:
        lpar, name = children
        self._start(lpar)
        return BoolDecl(str(name), lpar.line, lpar.column)

    def relation_decl(self, children: list) -> RelationDecl:
        lpar, name, arity, _lpar2, kind, *tuples = children
        self._start(lpar)
        return RelationDecl(str(name), arity, kind == "supports", tuple(tuples), lpar.line, lpar.column)

    @staticmethod
    def relation_kind(children: list) -> str:
        return str(children[0])

    @staticmethod
    def tuple(children: list) -> tuple:
        return tuple(children[1:])

    def predicate_decl(self, children: list) -> PredicateDecl:
        lpar, _lpar2, name, *rest = children
        self._start(lpar)
        params, body = rest[:-1], rest[-1]
        return PredicateDecl(str(name), tuple(str(p) for p in params), body, lpar.line, lpar.column)

    def objective_decl(self, children: list) -> ObjectiveDecl:
        lpar, *words = children
        self._start(lpar)
        sense = str(words[0]) if words else ""
        return ObjectiveDecl(sense, tuple(str(w) for w in words[1:]), lpar.line, lpar.column)

    def constraint(self, children: list) -> ConstraintStmt:
        node = children[0]
        state = self.state
        assert state is not None
        state.starts.append(_offset(state, node.line, node.col))
        return ConstraintStmt(node, node.line, node.col)

    @staticmethod
    def start(children: list) -> list:
        return children


def _make_operator(op: str) -> Callable[[list], Node]:
    def build(children: list) -> Node:
        lpar = children[0]
        return Node(op, tuple(children[1:]), None, lpar.line, lpar.column)

    build.__name__ = op
    return staticmethod(build)  # type: ignore[return-value]


for _op in _OPERATOR_RULES:
    setattr(_Builder, _op, _make_operator(_op))


def _number(tok: Token) -> int:
    text = str(tok)
    if "." in text:  # Sugar truncates "2.7" to 2 (a warning is given by the odd-token scan)
        text = text.split(".", 1)[0]
    return int(text)


def _items_as_lists(node: Node) -> Node:
    """The items of a list whose items are lists: ``(x 3)`` reads as a call of x, make it a list again."""
    items = []
    for item in node.args:
        if item.op == "call":
            head = Node("sym", (), item.value, item.line, item.col + 1)
            item = Node("list", (head,) + item.args, None, item.line, item.col)
        items.append(item)
    return Node("list", tuple(items), None, node.line, node.col)


def _offset(state: _State, line: int, col: int) -> int:
    line_starts = getattr(state, "line_starts", None)
    if line_starts is None:
        line_starts = [0] + [m.end() for m in re.finditer("\n", state.text)]
        state.line_starts = line_starts  # type: ignore[attr-defined]
    return line_starts[line - 1] + col - 1


# ---------------------------------------------------------------- the shared parser

_LOCK = threading.Lock()
_BUILDER = _Builder()
_PARSER: Lark | None = None


def _comment(tok: Token) -> Token:
    _BUILDER.state.comments.append(Comment(str(tok), tok.line, tok.column))  # type: ignore[union-attr]
    return tok


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
        _PARSER = Lark(
            grammar,
            parser="lalr",
            lexer="contextual",
            transformer=_BUILDER,
            lexer_callbacks={"COMMENT": _comment},
            maybe_placeholders=False,
            cache=False,
        )
    return _PARSER


def parse_text(text: str, file: str = "<string>") -> SyntaxTree:
    """Parse Sugar CSP `text` (named `file` in messages) into a `SyntaxTree`; raises `CspError`."""
    parser = _parser()
    with _LOCK:
        state = _State(text, file)
        _BUILDER.state = state
        try:
            statements = parser.parse(text)
        except UnexpectedInput as err:
            raise _syntax_error(err, text, file) from None
        finally:
            _BUILDER.state = None
    warnings = _odd_token_warnings(text, file)
    ends, statements = _spans(text, state, statements)
    return SyntaxTree(tuple(statements), tuple(state.comments), file, warnings=warnings, ends=ends)


def _spans(text: str, state: _State, statements: list) -> tuple[tuple, list]:
    """End positions of the statements, and constraint statements with their source text.

    A statement ends at the last non-blank, non-comment character before the
    next statement starts, so no end token needs to be kept during parsing.
    """
    starts = state.starts
    ends = []
    out = []
    n = len(statements)
    for i, stmt in enumerate(statements):
        start = starts[i]
        limit = starts[i + 1] if i + 1 < n else len(text)
        segment = text[start:limit]
        if ";" in segment:
            segment = _COMMENT_RE.sub(lambda m: " " * len(m.group(0)), segment)
        code = segment.rstrip()
        end = start + len(code)
        line, col = _line_col(state, end - 1) if code else _line_col(state, start)
        ends.append((line, col, end))
        if isinstance(stmt, ConstraintStmt):
            stmt = ConstraintStmt(stmt.formula, stmt.line, stmt.col, text=" ".join(code.split()))
        out.append(stmt)
    return tuple((line, col) for line, col, _ in ends), out


def _line_col(state: _State, offset: int) -> tuple[int, int]:
    _offset(state, 1, 1)  # builds the line table
    line_starts = state.line_starts  # type: ignore[attr-defined]
    line = bisect_right(line_starts, offset)
    return line, offset - line_starts[line - 1] + 1


def _odd_token_warnings(text: str, file: str) -> tuple[Diagnostic, ...]:
    """Warnings for tokens that Sugar reads in a surprising way (we read them the same way)."""
    if not any(c in text for c in ".-0123456789"):
        return ()
    warnings = []
    state = _State(text, file)
    for m in _ODD_TOKENS.finditer(text):
        if m.group(0).startswith(";"):
            continue
        if m.group("minus"):
            line, col = _line_col(state, m.start())
            end = SYMBOL_RE.match(text, m.start() + 1)
            word = end.group(0) if end else ""
            message = f"'-{word}' is read as '-' followed by '{word}' (as Sugar does); write (- {word}) to negate"
        elif m.group("glued"):
            line, col = _line_col(state, m.start())
            message = (
                f"'{m.group('num')}' is directly followed by '{m.group('glued')}': read as the number "
                f"{int(m.group('num').split('.')[0])} and a separate symbol (as Sugar does); put a space between them"
            )
        elif m.group("frac"):
            line, col = _line_col(state, m.start())
            message = f"'{m.group('num')}' is not an integer: read as {int(m.group('num').split('.')[0])} (as Sugar does)"
        else:
            continue
        warnings.append(Diagnostic(message, line, col, file, "warning"))
    return tuple(warnings)


# ---------------------------------------------------------------- error messages

_PAIR = re.compile(r";[^\n]*|[()]|[^\s();]+")


def _open_parens(text: str, stop: int) -> list[tuple[int, str]]:
    """The '(' still open at offset `stop`: (offset, first word after it) for each, outermost first."""
    stack: list[list] = []
    for m in _PAIR.finditer(text, 0, stop):
        tok = m.group(0)
        if tok == "(":
            stack.append([m.start(), None])
        elif tok == ")":
            if stack:
                stack.pop()
        elif tok[0] != ";" and stack and stack[-1][1] is None:
            stack[-1][1] = tok
    return [(pos, head or "") for pos, head in stack]


def _syntax_error(err: UnexpectedInput, text: str, file: str) -> CspError:
    """A lark error as a `CspError` that says what is wrong in the user's terms."""
    state = _State(text, file)

    def where(offset: int) -> str:
        line, col = _line_col(state, offset)
        return f"{line}:{col}"

    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        if char == ")":
            return CspError("unexpected ')': there is no '(' to close", err.line, err.column, file, Exit.SYNTAX)
        if char == "(" or char.isspace():
            message = f"unexpected '{char}'"
        else:
            message = f"character {char!r} is not allowed in a symbol or number"
        return CspError(message, err.line, err.column, file, Exit.SYNTAX)

    token = getattr(err, "token", None)
    if isinstance(err, UnexpectedEOF) or (token is not None and token.type == "$END"):
        stack = _open_parens(text, len(text))
        if stack:
            pos, head = stack[-1]
            line, col = _line_col(state, pos)
            inner = f" in ({head} ...)" if head else ""
            return CspError(
                f"missing ')' to close '(' opened at {line}:{col}{inner}",
                *_line_col(state, len(text.rstrip()) or 0),
                file,
                Exit.SYNTAX,
            )
        return CspError("unexpected end of file", 0, 0, file, Exit.SYNTAX)

    assert isinstance(err, UnexpectedToken)
    tok = err.token
    stack = _open_parens(text, tok.start_pos)
    if not stack:
        if tok == ")":
            return CspError("unexpected ')': there is no '(' to close", tok.line, tok.column, file, Exit.SYNTAX)
        return CspError(f"unexpected {tok!s:.40}", tok.line, tok.column, file, Exit.SYNTAX)
    pos, head = stack[-1]
    context = f"in ({head} ...) opened at {where(pos)}" if head else f"in '(' opened at {where(pos)}"
    outer = stack[-2][1] if len(stack) > 1 else ""
    usage = USAGE.get(head) or USAGE.get(outer)
    message = f"unexpected {_describe(tok)} {context}"
    if usage:
        message += f"; expected {usage}"
    elif tok.type == "SYMBOL" and len(stack) == 1:
        message += f"; expected a name"
    return CspError(message, tok.line, tok.column, file, Exit.SYNTAX)


def _describe(tok: Token) -> str:
    if tok.type == "NUMBER":
        return f"number {tok}"
    if tok.type == "SYMBOL":
        return f"symbol '{tok}'"
    return f"'{tok}'"
