"""Front end, stage 1: parse Sugar CSP text into a `SyntaxTree` (see `csp2sat.syntax`).

The grammar is `grammar.lark`; lark builds its LALR(1) tables (about a second),
which are cached as plain data in the user's cache directory
(``$XDG_CACHE_HOME/csp2sat`` or ``~/.cache/csp2sat``, see `_load_table_data`):
a process with the cache in place does not even import lark. Without a usable
cache directory everything works, only each start pays for the tables.

Parsing runs in one pass with the tree builders applied at each reduction, so
no intermediate parse tree is made: statements come out as `syntax` dataclasses
and expressions as `Node`s with the operator folded to its canonical name.
Profiling showed lark's own lexer and parse loop (token objects, child filters,
callback wrappers) taking most of the time, so the hot path is ours:

* `_tokens` splits each line with one compiled regex (`findall`), giving words,
  numbers and parentheses with their positions;
* `_drive` runs lark's LALR tables. A word becomes a keyword only when lark's
  table for the current state accepts that keyword, and is a SYMBOL otherwise:
  exactly what lark's contextual lexer does, which keeps keywords unreserved.

Whatever the fast path does not accept (a syntax error, or a rare input where
lark's contextual lexer splits a word such as ``eqz`` after a keyword prefix)
is parsed again by lark itself: its tokens feed the same driver, and its errors
become `CspError`s with exit `Exit.SYNTAX` and a message in the user's terms.
So every input gets exactly lark's reading, and a valid file never pays for
lark's slow path.

Names are not resolved here (that is `csp2sat.checker`). Sugar's tokenizer
quirks are reproduced, each with a warning: ``1x`` is the number 1 then the
symbol ``x``, ``2.7`` is read as 2, ``-x`` is ``-`` then ``x``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import marshal
import os
import re
import sys
import tempfile
import threading
from bisect import bisect_right
from itertools import accumulate, chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from csp2sat._gc import gc_paused
from csp2sat.diagnostics import MAX_INT_DIGITS, CspError, Diagnostic, Exit
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
    fast_constructor,
    make_node,
)

if TYPE_CHECKING:  # lark is imported only to build the tables and to parse rejected input
    from lark import Lark, Token
    from lark.exceptions import UnexpectedInput

__all__ = ["parse_text", "SYMBOL_RE", "NUMBER_RE"]

# The token classes of grammar.lark, for other modules (the formatter checks
# that a name it prints reads back as one symbol).
_SYMBOL_START = r"A-Za-z_+*/%=<>!&|$\u0080-\U0010ffff"
_SYMBOL_CHAR = r"A-Za-z0-9_.+\-*/%=<>!&|$\u0080-\U0010ffff"
_SYMBOL = rf"-(?![0-9])|[{_SYMBOL_START}][{_SYMBOL_CHAR}]*"
_NUMBER = r"-?[0-9]+(\.[0-9]*)?"


def _ascii_complement(allowed: str) -> str:
    """A character class of every character but the ASCII ones not in `allowed` (so all of U+0080 and up).

    The same set as ``[<allowed>\u0080-\U0010ffff]``, which takes `re` about 8 ms to compile:
    a cost every command paid at start-up for the tokenizer's pattern.
    """
    return "[^" + "".join(f"\\x{i:02x}" for i in range(128) if chr(i) not in allowed) + "]"


_ASCII_SYMBOL_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_+*/%=<>!&|$"
_ASCII_SYMBOL_CHAR = _ASCII_SYMBOL_START + "0123456789.-"
# One token with the blanks before it; a number is tried first, as in Sugar
# ("-5" is a number, a lone "-" a symbol). Comments run to the end of the line.
# The symbol is `_SYMBOL`, with its classes written as ASCII complements (tests compare the two).
_TOKEN = re.compile(
    rf"([ \t\f\r]*)(-?[0-9]+(?:\.[0-9]*)?|-(?![0-9])|{_ascii_complement(_ASCII_SYMBOL_START)}"
    rf"{_ascii_complement(_ASCII_SYMBOL_CHAR)}*|[()]|;.*)"
)
_BLANKS = " \t\f\r"

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
    "weightedsum": "(weightedsum ((A T)...) OP T), OP one of eq ne le lt ge gt = != <= < >= >",
    "wsum": "(wsum ((A T)...) OP T), OP one of eq ne le lt ge gt = != <= < >= >",
    "count": "(count T (T...) OP T), OP one of eq ne le lt ge gt = != <= < >= >",
    "element": "(element T (T...) T) or (element T (T...) OP T), OP one of eq ne le lt ge gt = != <= < >= >",
    "cumulative": "(cumulative ((ORIGIN DURATION END HEIGHT)...) LIMIT)",
    "disjunctive": "(disjunctive ((ORIGIN DURATION)...))",
    "lex_less": "(lex_less (T...) (T...))",
    "lex_lesseq": "(lex_lesseq (T...) (T...))",
    "nvalue": "(nvalue T (T...))",
    "global_cardinality": "(global_cardinality (T...) ((VALUE T)...))",
    "global_cardinality_with_costs": "(global_cardinality_with_costs (T...) ((VALUE T)...) ((I J W)...) T)",
}

# Tokens Sugar reads in a surprising way (comments are matched first, to be skipped).
_ODD_TOKENS = (
    rf";[^\n]*|(?<![{_SYMBOL_CHAR}])(?:(?P<num>-?[0-9]+(?P<frac>\.[0-9]*)?)(?P<glued>[{_SYMBOL_CHAR}])?"
    rf"|(?P<minus>-)(?=[{_SYMBOL_START}]))"
)
# Patterns compiled on first use: the Unicode classes make each compile take
# 10-20 ms, a fifth of the start-up of a small check.
_LAZY_PATTERNS = {"SYMBOL_RE": _SYMBOL, "NUMBER_RE": _NUMBER, "_ODD_TOKENS": _ODD_TOKENS}


@functools.cache
def _pattern(name: str) -> re.Pattern:
    return re.compile(_LAZY_PATTERNS[name])


def __getattr__(name: str) -> Any:
    """`SYMBOL_RE` and `NUMBER_RE`, compiled when first asked for."""
    if name in ("SYMBOL_RE", "NUMBER_RE"):
        return _pattern(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_COMMENT_RE = re.compile(r";[^\n]*")


# ---------------------------------------------------------------- building nodes


_node = make_node
# The statements every generated file has thousands of, made as `make_node` makes nodes.
_new_bool_decl = fast_constructor(BoolDecl)
_new_int_decl = fast_constructor(IntDecl)
_new_constraint_stmt = fast_constructor(ConstraintStmt)

# A token on the parser's value stack is a tuple (kind, text, line, col).


def _number(text: str) -> int:
    if "." in text:  # Sugar truncates "2.7" to 2 (a warning is given by the odd-token scan)
        text = text.split(".", 1)[0]
    return int(text)


def _items_as_lists(node: Node) -> Node:
    """The items of a list whose items are lists: ``(x 3)`` reads as a call of x, make it a list again."""
    items = []
    for item in node.args:
        if item.op == "call":
            head = _node("sym", (), item.value, item.line, item.col + 1)
            item = _node("list", (head,) + item.args, None, item.line, item.col)
        items.append(item)
    return _node("list", tuple(items), None, node.line, node.col)


def _operator(op: str) -> Callable[[list], Node]:
    def build(c: list) -> Node:
        lpar = c[0]
        return _node(op, tuple(c[1:]), None, lpar[2], lpar[3])

    return build


def _list(c: list) -> Node:
    lpar = c[0]
    return _node("list", tuple(c[1:]), None, lpar[2], lpar[3])


def _sub(c: list) -> Node:
    lpar = c[0]
    # (- x) and (sub x) mean negation; folding here gives one tree for both.
    return _node("neg" if len(c) == 2 else "sub", tuple(c[1:]), None, lpar[2], lpar[3])


def _task(c: list) -> Node:
    # "nil" is an ordinary symbol in the grammar (see grammar.lark); a task reads it as nil.
    lpar = c[0]
    items = tuple(_node("nil", (), None, a.line, a.col) if a.op == "sym" and a.value == "nil" else a for a in c[1:])
    return _node("list", items, None, lpar[2], lpar[3])


def _predicate_decl(c: list) -> PredicateDecl:
    lpar, _lpar2, name, *rest = c
    params, body = rest[:-1], rest[-1]
    return PredicateDecl(name[1], tuple(p[1] for p in params), body, lpar[2], lpar[3])


def _objective_decl(c: list) -> ObjectiveDecl:
    lpar, *words = c
    sense = words[0][1] if words else ""
    return ObjectiveDecl(sense, tuple(w[1] for w in words[1:]), lpar[2], lpar[3])


def _relation_decl(c: list) -> RelationDecl:
    lpar, name, arity, _lpar2, kind, *tuples = c
    return RelationDecl(name[1], arity, kind == "supports", tuple(tuples), lpar[2], lpar[3])


# The symbols of the comparisons, as a global's comparison word (which the tree keeps canonical).
_RELOPS = {"=": "eq", "!=": "ne", "<=": "le", "<": "lt", ">=": "ge", ">": "gt"}


def _first(c: list) -> Any:
    return c[0]


# Rule (or alias) name -> builder of its value from the kept children (lark's
# filtering: anonymous tokens dropped, "_rule" children spliced in).
_BUILDERS: dict[str, Callable[[list], Any]] = {
    **{op: _operator(op) for op in _OPERATOR_RULES},
    "const": lambda c: _node("const", (), _number(c[0][1]), c[0][2], c[0][3]),
    "sym": lambda c: _node("sym", (), c[0][1], c[0][2], c[0][3]),
    "true": lambda c: _node("true", (), None, c[0][2], c[0][3]),
    "false": lambda c: _node("false", (), None, c[0][2], c[0][3]),
    "num": lambda c: _number(c[0][1]),
    "sub": _sub,
    "neg": lambda c: _node("neg", tuple(c[1:]), None, c[0][2], c[0][3]),
    "call": lambda c: _node("call", tuple(c[2:]), c[1][1], c[0][2], c[0][3]),
    "seq": _list,
    "list": _list,
    "task_list": _list,
    "task": _task,
    "relop": lambda c: _RELOPS.get(c[0][1], c[0][1]),
    "weightedsum": lambda c: _node("weightedsum", (_items_as_lists(c[1]), c[3]), c[2], c[0][2], c[0][3]),
    "count": lambda c: _node("count", (c[1], c[2], c[4]), c[3], c[0][2], c[0][3]),
    "element": lambda c: _node("element", (c[1], c[2], c[3]), "eq", c[0][2], c[0][3]),
    "element_op": lambda c: _node("element", (c[1], c[2], c[4]), c[3], c[0][2], c[0][3]),
    "cumulative": lambda c: _node("cumulative", (c[1], c[2]), None, c[0][2], c[0][3]),
    "disjunctive": lambda c: _node("disjunctive", (_items_as_lists(c[1]),), None, c[0][2], c[0][3]),
    "global_cardinality": lambda c: _node(
        "global_cardinality", (c[1], _items_as_lists(c[2])), None, c[0][2], c[0][3]
    ),
    "global_cardinality_with_costs": lambda c: _node(
        "global_cardinality_with_costs",
        (c[1], _items_as_lists(c[2]), _items_as_lists(c[3]), c[4]),
        None,
        c[0][2],
        c[0][3],
    ),
    # statements
    "domain_decl": lambda c: DomainDecl(c[1][1], c[2], c[0][2], c[0][3]),
    "int_decl": lambda c: IntDecl(c[1][1], c[2], c[0][2], c[0][3]),
    "bounds": lambda c: ("bounds", c[0], c[1]),
    "single": lambda c: ("value", c[0]),
    "ranges": lambda c: ("ranges", tuple(x if isinstance(x, tuple) else (x,) for x in c[1:])),
    "range_pair": lambda c: (c[1], c[2]),
    "domain_ref": lambda c: ("domain", c[0][1]),
    "bool_decl": lambda c: BoolDecl(c[1][1], c[0][2], c[0][3]),
    "relation_decl": _relation_decl,
    "relation_kind": lambda c: c[0][1],
    "tuple": lambda c: tuple(c[1:]),
    "predicate_decl": _predicate_decl,
    "objective_decl": _objective_decl,
    # A constraint stays a bare Node until `_spans` knows its source text.
    "constraint": _first,
    "start": lambda c: c,
}


# ---------------------------------------------------------------- LALR tables


class _Reject(Exception):
    """The fast path does not take this input: lark parses it (and reports the error, if any)."""


_WORD = "WORD"  # a symbol-shaped word: a keyword or a SYMBOL, by parser state
_END = "$END"
_END_TOKENS = ((_END, "", 0, 0),)


def _append(c: list) -> list:
    """The value of ``items: items item`` (the list of a "x*"); `_drive` does this one in place."""
    items = c[0]
    items.append(c[1])
    return items


class _Tables:
    """lark's LALR(1) tables for grammar.lark, in the shape `_drive` uses.

    `actions[state]` maps a terminal or rule name to the next state (a shift or
    goto, an int) or to a reduction ``(length, rule name, builder)``; the
    builder is None when the reduction keeps its only child as it is.
    `keywords` maps the text of each keyword to its terminal name.
    Made from `_table_data`'s plain data, so that it needs no lark objects.
    """

    def __init__(self, data: dict) -> None:
        self.start: int = data["start"]
        self.end: int = data["end"]
        reductions = [(len(rule[4]), rule[0], _reducer(*rule)) for rule in data["rules"]]
        self.actions: list[dict[str, Any]] = [
            {name: arg if arg >= 0 else reductions[~arg] for name, arg in row.items()} for row in data["states"]
        ]
        self.keywords: dict[str, str] = data["keywords"]
        self._skip_unit_states()

    def _skip_unit_states(self) -> None:
        """Make gotos jump over states whose only action is a unit reduction such as ``expr: atom``.

        Each atom or operator passes through two or three of these (``?expr``,
        ``?compound``, ``?comparison``...). Skipping them accepts no more input: an LR parser shifts a token only where it is a
        viable continuation, and then the skipped state (whose LALR lookaheads
        include every such token) would have reduced on it too; where it would
        have rejected the token, the states after it reject it as well.
        """
        unit: dict[int, str] = {}
        for state, row in enumerate(self.actions):
            acts = list(row.values())
            if acts and acts[0].__class__ is tuple and acts[0][2] is None and all(a is acts[0] for a in acts):
                unit[state] = acts[0][1]
        for row in self.actions:
            for name, target in row.items():
                if target.__class__ is int and not name.isupper() and name != _END:
                    while target in unit:
                        target = row[unit[target]]
                    row[name] = target


def _reducer(
    origin: str, alias: str | None, expand1: bool, keep_all: bool, expansion: list
) -> Callable[[list], Any] | None:
    """The function that makes the value of a rule from its children, as lark's tree builder would.

    `expansion` lists the rule's symbols as (name, is_terminal, filtered_out).
    """
    kept = [
        (i, not is_term and name.startswith("_"))
        for i, (name, is_term, filter_out) in enumerate(expansion)
        if keep_all or not (is_term and filter_out)
    ]
    expand1 = expand1 and not alias
    inlined = origin.startswith("_")
    single = len(expansion) == 1 and len(kept) == 1 and not kept[0][1]
    if single and (expand1 or _BUILDERS.get(alias or origin) is _first):
        return None  # the value is the only child, as it is
    if len(kept) == len(expansion) and not any(splice for _, splice in kept):
        select = None
    elif kept == [(0, True), (1, False)]:  # the left-recursive list of a "x*": append in place
        select = _append
    elif len(kept) == 2 and kept[0] == (0, False) and kept[1][1]:  # "(" OPERATOR items ")": reuse the items
        k = kept[1][0]

        def select(c: list) -> list:
            items = c[k]
            items.insert(0, c[0])
            return items

    else:

        def select(c: list) -> list:
            out: list = []
            for i, splice in kept:
                if splice:
                    if out:
                        out += c[i]
                    else:
                        out = c[i]
                else:
                    out.append(c[i])
            return out

    if inlined:  # a "_rule": its children are spliced into the parent
        return select if select is not None else (lambda c: c)
    build = _BUILDERS[alias or origin]
    if expand1:
        def build_or_expand(c: list) -> Any:
            if select is not None:
                c = select(c)
            return c[0] if len(c) == 1 else build(c)

        return build_or_expand
    if select is None:
        return build
    return lambda c: build(select(c))


# ---------------------------------------------------------------- the shared parser

_LOCK = threading.Lock()
_PARSER: Lark | None = None
_TABLES: _Tables | None = None
_LARK_TABLES: _Tables | None = None
_TABLE_FORMAT = 1  # bump when the cached data changes shape


def _grammar() -> str:
    return Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")


def _cache_path(grammar: str, kind: str) -> str | None:
    """A file in the user's cache directory for `kind` ("lark" or "tables"), or None when there is none.

    The name carries a digest of the grammar, the installed lark (its path and
    modification time, read without importing it) and the Python version, so
    different installations never share a file and an upgrade makes a new one.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    directory = os.path.join(base, "csp2sat")
    try:
        os.makedirs(directory, exist_ok=True)
        spec = importlib.util.find_spec("lark")
        lark_file = spec.origin if spec and spec.origin else ""
        lark_stamp = f"{lark_file}\0{os.stat(lark_file).st_mtime_ns}" if lark_file else ""
    except (OSError, ImportError, ValueError):
        return None
    key = f"{grammar}\0{lark_stamp}\0{sys.version}\0{_TABLE_FORMAT}".encode("utf-8")
    return os.path.join(directory, f"{kind}-{hashlib.sha256(key).hexdigest()[:16]}.{kind}")


def _lark_parser() -> Lark:
    """lark's parser for grammar.lark: used to build the tables and to parse what the fast path rejects."""
    global _PARSER
    if _PARSER is None:
        from lark import Lark

        grammar = _grammar()
        # lark reads and writes this cache itself; a file it cannot read or
        # write (read-only home, a half-written file) only means a rebuild.
        _PARSER = Lark(
            grammar,
            parser="lalr",
            lexer="contextual",
            maybe_placeholders=False,
            cache=_cache_path(grammar, "lark") or False,
        )
    return _PARSER


def _table_data(parser: Lark) -> dict:
    """lark's parse table, rules and keywords as plain data (ints, strings, lists, dicts) for `_Tables`."""
    table = parser.parser.parser.parser.parse_table
    rules: list = []
    index: dict[Any, int] = {}
    states: list[dict[str, int]] = [{} for _ in range(max(table.states) + 1)]
    for state, row in table.states.items():
        for name, (action, arg) in row.items():
            if action.name == "Shift":
                states[state][str(name)] = arg
                continue
            if arg not in index:
                index[arg] = len(rules)
                # str(): a freshly built grammar names things with lark Tokens (str subclasses)
                expansion = [(str(sym.name), sym.is_term, bool(getattr(sym, "filter_out", False))) for sym in arg.expansion]
                alias = str(arg.alias) if arg.alias else None
                options = arg.options
                rules.append((str(arg.origin.name), alias, bool(options.expand1), bool(options.keep_all_tokens), expansion))
            states[state][str(name)] = ~index[arg]
    keywords = {
        str(t.pattern.value): str(t.name)
        for t in parser.terminals
        if t.pattern.type == "str" and _TOKEN.fullmatch(t.pattern.value) and t.pattern.value not in "()"
    }
    start, end = table.start_states["start"], table.end_states["start"]
    return {"start": start, "end": end, "states": states, "rules": rules, "keywords": keywords}


def _load_table_data() -> dict:
    """The table data from the cache file, or built with lark and written to the cache (atomically)."""
    grammar = _grammar()
    path = _cache_path(grammar, "tables")
    if path is not None:
        try:
            with open(path, "rb") as handle:
                data = marshal.load(handle)
            if isinstance(data, dict) and data.get("format") == _TABLE_FORMAT:
                return data
        except (OSError, EOFError, ValueError, TypeError):
            pass  # missing or damaged: rebuilt below
    data = _table_data(_lark_parser())
    data["format"] = _TABLE_FORMAT
    if path is not None:
        try:
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tables-")
        except OSError:
            return data  # an unwritable cache only costs the rebuild next time
        try:
            with os.fdopen(fd, "wb") as handle:
                marshal.dump(data, handle)
            os.replace(tmp, path)  # readers see the old file or the whole new one
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return data


def _tables() -> _Tables:
    """The tables of the fast path (from the cache: lark is not even imported when it is there)."""
    global _TABLES
    if _TABLES is None:
        with _LOCK:
            if _TABLES is None:
                _TABLES = _Tables(_load_table_data())
    return _TABLES


def _lark_tables() -> _Tables:
    """Tables made from the live lark parser, whose token names they match by construction (call under _LOCK)."""
    global _LARK_TABLES
    if _LARK_TABLES is None:
        _LARK_TABLES = _Tables(_table_data(_lark_parser()))
    return _LARK_TABLES


# ---------------------------------------------------------------- lexing and parsing


def _tokens(lines: list[str], odd: list[bool]) -> Iterator[tuple]:
    """The tokens of `lines` as (kind, text, line, col); comments are skipped.

    Sets ``odd[0]`` when a token might be one of Sugar's odd readings (a number
    with a fraction or with something glued to it, a minus glued to a word), so
    that the exact scan for them runs only then. Raises `_Reject` at a
    character that starts no token.
    """
    findall = _TOKEN.findall
    kind_of = _FIRST_CHAR_KIND.get
    for lineno, line in enumerate(lines, 1):
        col = 1
        glued = False  # the previous token was a number or a lone "-"
        for blanks, text in findall(line):
            if blanks:
                col += len(blanks)
            elif glued and text[0] not in "();":
                odd[0] = True
            kind = kind_of(text[0], _WORD)
            glued = False
            if kind is not _WORD:
                if kind == "COMMENT":
                    col += len(text)
                    continue
                if kind == "-":
                    kind = _WORD if text == "-" else "NUMBER"
                    glued = True
                elif kind == "NUMBER":
                    glued = True
                if glued and "." in text:
                    odd[0] = True
            yield (kind, text, lineno, col)
            col += len(text)
        if col - 1 != len(line) and col - 1 != len(line.rstrip(_BLANKS)):
            raise _Reject()


_FIRST_CHAR_KIND: dict[str, str] = {"(": "LPAR", ")": "RPAR", ";": "COMMENT", "-": "-"}
_FIRST_CHAR_KIND.update({d: "NUMBER" for d in "0123456789"})


def _drive(tables: _Tables, tokens: Iterable[tuple]) -> list:
    """Run the LALR automaton over `tokens`, building values at each reduction; the statements.

    Raises `_Reject` where the tables have no action (a syntax error, to be
    reported by lark).
    """
    actions = tables.actions
    keywords = tables.keywords
    end = tables.end
    state = tables.start
    states = [state]
    values: list = []
    row = actions[state]
    for token in chain(tokens, _END_TOKENS):
        kind = token[0]
        if kind is _WORD:
            kind = keywords.get(token[1], "SYMBOL")
            if kind not in row:
                kind = "SYMBOL"
        act = row.get(kind)
        while act.__class__ is not int:
            if act is None:
                if kind is _END and state == end:
                    return values[-1]
                raise _Reject()
            # The two commonest reductions (a leaf, the next item of a list)
            # are done in place, without slicing the stacks.
            n, origin, build = act
            if n == 1:
                if build is not None:
                    values[-1] = build(values[-1:])
                del states[-1]
            elif build is _append:
                item = values.pop()
                values[-1].append(item)
                del states[-2:]
            elif n:
                children = values[-n:]
                del values[-n:]
                del states[-n:]
                values.append(build(children))
            else:
                values.append(build([]))
            state = actions[states[-1]][origin]
            states.append(state)
            row = actions[state]
            act = row.get(kind)
        states.append(act)
        values.append(token)
        state = act
        row = actions[act]
    raise _Reject()  # not reached: the end token is never shifted


# ---------------------------------------------------------------- the common forms, read directly

# Operator words -> canonical operator: the heads `_read_common` builds itself.
_COMMON_OPS = {
    **{op: op for op in "not and or imp xor iff eq ne le lt ge gt add sub neg mul div mod abs min max if pow alldifferent".split()},
    "!": "not", "&&": "and", "||": "or", "=>": "imp",
    "=": "eq", "!=": "ne", "<=": "le", "<": "lt", ">=": "ge", ">": "gt",
    "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod",
}
# What a parenthesised form is, once its head is read (declarations only at the top level):
# an operator, a call, (int ...), (bool ...), (predicate ...), (relation ...), or inside them
# a predicate's signature, an int's value list (and its (LB UB) pairs), a relation's tuple
# list (and each tuple); _HEAD while the head is not read yet.
_HEAD, _OP, _CALL, _INT, _BOOL, _PRED, _REL, _SIG, _VALUES, _PAIR, _TUPLES, _TUPLE = range(12)
_DECLS = {"int": _INT, "bool": _BOOL, "predicate": _PRED, "relation": _REL}


def _read_common(lines: list[str], odd: list[bool], keywords: dict[str, str]) -> list:
    """The statements of `lines` when every one is of a common form; raises `_Reject` otherwise.

    Generated files (puzzles, benchmarks) are megabytes of ``(int x 0 1)``, ``(bool b)``,
    ``(predicate (p A B) F)`` and expressions of operators, calls, symbols and numbers.
    For those the grammar is plain: this reads them in one loop over the tokens, with a
    stack of open parentheses instead of the LALR automaton, and builds the very values
    `_drive` builds (the same nodes and statements with the same positions; tests compare
    them on the corpus, the generated files and random texts). Anything else (domains,
    objectives, globals other than alldifferent, a keyword where a name could be, lists
    such as ``((a b))``, any error) is left to `_drive`: this raises `_Reject` and reads
    nothing. Tokens and Sugar's odd readings are found exactly as `_tokens` finds them.
    """
    make = make_node
    findall = _TOKEN.findall
    ops = _COMMON_OPS
    out: list = []
    stack: list[list] = []  # open forms: [what, line, col, operator or name, items]
    top = None  # stack[-1]
    for lineno, line in enumerate(lines, 1):
        col = 1
        glued = False  # the previous token was a number or a lone "-"
        for blanks, text in findall(line):
            if blanks:
                col += len(blanks)
            elif glued and text[0] not in "();":
                odd[0] = True
            first = text[0]
            glued = False
            if first == "(":
                if top is None:
                    top = [_HEAD, lineno, col, None, []]
                else:
                    top = [_open_inside(top), lineno, col, None, []]
                stack.append(top)
                col += 1
                continue
            if first == ")":
                if top is None:
                    raise _Reject()
                what, fline, fcol, head, items = stack.pop()
                if what is _OP:
                    if head == "sub" and len(items) == 1:
                        head = "neg"
                    value = make(head, tuple(items), None, fline, fcol)
                elif what is _CALL:
                    value = make("call", tuple(items), head, fline, fcol)
                else:
                    value = _close_other(what, fline, fcol, head, items)
                if stack:
                    top = stack[-1]
                    top[4].append(value)
                else:
                    top = None
                    out.append(value)
                col += 1
                continue
            if first == ";":
                col += len(text)
                continue
            if first in "0123456789" or (first == "-" and text != "-"):
                glued = True
                if "." in text:
                    odd[0] = True
                kind = "NUMBER"
            else:
                if first == "-":
                    glued = True
                kind = _WORD
            if top is None:  # a constraint that is an atom
                out.append(_common_atom(kind, text, lineno, col, keywords))
            elif top[0] is _OP or top[0] is _CALL:
                if kind is _WORD and text not in keywords:  # the commonest token: a name
                    top[4].append(make("sym", (), text, lineno, col))
                else:
                    top[4].append(_common_atom(kind, text, lineno, col, keywords))
            elif top[0] is _HEAD:
                if kind is not _WORD:
                    raise _Reject()  # (1 ...): a list, not a common form
                op = ops.get(text)
                if op is not None:
                    top[0], top[3] = _OP, op
                elif text not in keywords:
                    top[0], top[3] = _CALL, text
                elif len(stack) == 1 and text in _DECLS:
                    top[0] = _DECLS[text]
                else:
                    raise _Reject()
            else:
                _other_token(top, kind, text, lineno, col, keywords)
            col += len(text)
        if col - 1 != len(line) and col - 1 != len(line.rstrip(_BLANKS)):
            raise _Reject()
    if stack:
        raise _Reject()
    return out


def _open_inside(top: list) -> int:
    """What a '(' opens inside the form `top` (`_read_common`); `_Reject` where it is no common form."""
    what, items = top[0], top[4]
    if what is _OP or what is _CALL or (what is _PRED and items):
        return _HEAD  # an expression (a predicate's body after its signature)
    if what is _PRED:
        return _SIG
    if what is _INT and top[3] is not None and not items:
        return _VALUES
    if what is _VALUES:
        return _PAIR
    if what is _TUPLES and items:
        return _TUPLE
    if what is _REL and len(items) == 1:
        return _TUPLES
    raise _Reject()  # ((...: a list; (bool (...: an error; ...


def _other_token(top: list, kind: str, text: str, line: int, col: int, keywords: dict[str, str]) -> None:
    """A token inside a declaration (`_read_common`): its name, bounds, values, signature or tuples."""
    what, items = top[0], top[4]
    if what is _PAIR or what is _TUPLE or what is _VALUES:
        if kind is _WORD:
            raise _Reject()
        items.append((_number(text),) if what is _VALUES else _number(text))
    elif what is _PRED:  # the body, when it is an atom
        if not items:
            raise _Reject()
        items.append(_common_atom(kind, text, line, col, keywords))
    elif what is _SIG:
        if kind is not _WORD:
            raise _Reject()
        items.append(text)
    elif what is _TUPLES:  # supports or conflicts, then the tuples
        if items or kind is not _WORD or (text != "supports" and text != "conflicts"):
            raise _Reject()
        items.append(text)
    elif top[3] is None:  # the name of an int, bool or relation
        if kind is not _WORD:
            raise _Reject()
        top[3] = text
    elif what is _INT:
        items.append((kind, text))
    elif what is _REL and not items and kind is not _WORD:
        items.append(_number(text))  # the arity
    else:
        raise _Reject()


def _close_other(what: int, line: int, col: int, name: "str | None", items: list) -> Any:
    """The value of a declaration or of a part of one at its ')' (`_read_common`)."""
    if what is _INT:
        if name is not None and len(items) == 1 and items[0][0] == "ranges":
            return IntDecl(name, items[0], line, col)
        return _int_decl(name, items, line, col)
    if what is _BOOL and name is not None and not items:
        return _new_bool_decl(name, line, col)
    if what is _PRED and len(items) == 2:
        name, *params = items[0]
        return PredicateDecl(name, tuple(params), items[1], line, col)
    if what is _SIG and items:
        return items
    if what is _VALUES:
        return ("ranges", tuple(items))
    if what is _TUPLE or (what is _PAIR and len(items) == 2):
        return tuple(items)
    if what is _TUPLES and items:
        return items
    if what is _REL and name is not None and len(items) == 2:
        kind, *tuples = items[1]
        return RelationDecl(name, items[0], kind == "supports", tuple(tuples), line, col)
    raise _Reject()  # "()", a declaration that lacks a part


def _common_atom(kind: str, text: str, line: int, col: int, keywords: dict[str, str]) -> Node:
    """A number, true, false or a symbol where an expression is expected."""
    if kind == "NUMBER":
        return make_node("const", (), _number(text), line, col)
    if text in keywords:
        if text == "true" or text == "false":
            return make_node(text, (), None, line, col)
        raise _Reject()  # a keyword where a name could be: `_drive` knows which it is
    return make_node("sym", (), text, line, col)


def _int_decl(name: str | None, spec: list, line: int, col: int) -> IntDecl:
    """``(int NAME LB UB)``, ``(int NAME VALUE)`` or ``(int NAME DOMAIN)`` from its tokens after the name."""
    kinds = tuple(kind for kind, _ in spec)
    if name is None:
        raise _Reject()
    if kinds == ("NUMBER", "NUMBER"):
        return _new_int_decl(name, ("bounds", _number(spec[0][1]), _number(spec[1][1])), line, col)
    if kinds == ("NUMBER",):
        return IntDecl(name, ("value", _number(spec[0][1])), line, col)
    if kinds == (_WORD,):
        return IntDecl(name, ("domain", spec[0][1]), line, col)
    raise _Reject()


def _lark_tokens(text: str) -> list[tuple]:
    """The tokens of `text` as lark's contextual lexer reads them; raises lark's error if it rejects the text."""
    interactive = _lark_parser().parse_interactive(text)
    tokens = [(tok.type, str(tok), tok.line, tok.column) for tok in interactive.iter_parse()]
    interactive.feed_eof()
    return tokens


def parse_text(text: str, file: str = "<string>", max_nesting: int | None = None) -> SyntaxTree:
    """Parse Sugar CSP `text` (named `file` in messages) into a `SyntaxTree`; raises `CspError`.

    Parentheses nested deeper than `max_nesting` (default `MAX_NESTING`, the
    depth every later stage handles) are an error (`Exit.LIMIT`) at the first
    '(' past it; ``max_nesting=0`` parses any depth (parsing itself is iterative).
    """
    tables = _tables()
    if text.startswith("\ufeff"):  # a byte-order mark is no part of the text (positions stay right)
        text = text[1:]
    if "\r" in text:  # old Mac line ends (a lone CR) end lines too: else every position is on line 1
        text = re.sub(r"\r(?!\n)", "\n", text)
    with gc_paused():
        lines = text.split("\n")
        odd = [False]
        try:
            try:
                statements = _read_common(lines, odd, tables.keywords)
            except _Reject:
                odd[0] = False
                statements = _drive(tables, _tokens(lines, odd))
        except ValueError:  # Python reads integers of at most `sys.get_int_max_str_digits()` digits
            _check_digits(lines, file)
            raise
        except _Reject:
            from lark.exceptions import UnexpectedInput

            with _LOCK:  # lark's parser object is shared
                try:
                    statements = _drive(_lark_tables(), _lark_tokens(text))
                except UnexpectedInput as err:
                    error = _syntax_error(err, text, file)
                    # an odd token on the error's line is often its cause ('1e3' is 1 and a symbol 'e3'), and
                    # the warnings about them are not otherwise printed when reading fails
                    error.notes += tuple(f"{w.line}:{w.col}: {w.message}" for w in _odd_token_warnings(
                        text, file, _line_starts(text)) if w.line == error.line)
                    if text.lstrip().startswith("<"):
                        error.notes += (_xml_note(file),)
                    raise error from None
            odd[0] = True
        if max_nesting != 0:
            _check_nesting(lines, file, max_nesting or MAX_NESTING)
        line_starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        warnings = _odd_token_warnings(text, file, line_starts) if odd[0] else ()
        ends, statements = _spans(text, line_starts, statements, lines)
        return SyntaxTree(tuple(statements), _comments(text, line_starts), file, warnings=warnings, ends=ends)


# The deepest nesting of parentheses accepted. The later stages (checker, normaliser,
# formatter) follow the tree recursively, so a limit stated here, with the place where
# a file passes it, replaces a stack overflow somewhere further on; every stage is
# tested at exactly this depth (tests/test_cli_inputs.py).
MAX_NESTING = 200


def _check_digits(lines: list[str], file: str) -> None:
    """Raise `CspError` (`Exit.LIMIT`) at the first number longer than Python converts to an integer."""
    for lineno, line in enumerate(lines, 1):
        for m in re.finditer(r"[0-9]{%d,}" % (MAX_INT_DIGITS + 1), line.split(";", 1)[0]):
            raise CspError(f"number of {len(m.group(0)):,} digits: csp2sat reads numbers of at most {MAX_INT_DIGITS:,} "
                           "digits (and domains within -2^31..2^31-1)", lineno, m.start() + 1, file, Exit.LIMIT)


def _check_nesting(lines: list[str], file: str, limit: int) -> None:
    """Raise `CspError` (`Exit.LIMIT`) at the first '(' nested more than `limit` deep.

    Counts per line (a C-level count), and scans characters only on a line that
    could pass the limit, so ordinary files pay almost nothing.
    """
    depth = 0
    for lineno, line in enumerate(lines, 1):
        if ";" in line:
            line = line.split(";", 1)[0]
        opens = line.count("(")
        if depth + opens <= limit:
            depth += opens - line.count(")")
            continue
        for col, char in enumerate(line, 1):
            if char == "(":
                depth += 1
                if depth > limit:
                    raise CspError(
                        f"nesting too deep: this '(' is at depth {depth}, and csp2sat accepts "
                        f"expressions nested at most {limit} deep",
                        lineno, col, file, Exit.LIMIT,
                    )
            elif char == ")":
                depth -= 1


def _comments(text: str, line_starts: list[int]) -> tuple[Comment, ...]:
    """The comments of `text` (a parsed text: every ';' there starts a comment)."""
    if ";" not in text:
        return ()
    out = []
    for m in _COMMENT_RE.finditer(text):
        line, col = _line_col(line_starts, m.start())
        out.append(Comment(m.group(0), line, col))
    return tuple(out)


def _spans(text: str, line_starts: list[int], statements: list, lines: list[str]) -> tuple[tuple, list]:
    """End positions of the statements, and constraint statements with their source text.

    A statement ends at the last non-blank, non-comment character before the
    next statement starts, so no end token needs to be kept during parsing.
    """
    starts = [line_starts[s.line - 1] + s.col - 1 for s in statements]
    starts.append(len(text))
    ends = []
    out = []
    blank_out_comment = _blank_out_comment
    last_index = len(statements) - 1
    for i, stmt in enumerate(statements):
        lineno = stmt.line
        if stmt.col == 1 and i < last_index and statements[i + 1].line == lineno + 1 and statements[i + 1].col == 1:
            # A statement alone on its line, the next one at the start of the next line (generated files).
            code = lines[lineno - 1]
            if ";" not in code:
                code = code.rstrip()
                ends.append((lineno, len(code)))
                if stmt.__class__ is Node:
                    stmt = _new_constraint_stmt(stmt, lineno, 1, " ".join(code.split()))
                out.append(stmt)
                continue
        start = starts[i]
        segment = text[start : starts[i + 1]]
        if ";" in segment:
            segment = _COMMENT_RE.sub(blank_out_comment, segment)
        code = segment.rstrip()
        last = start + len(code) - 1 if code else start
        line = bisect_right(line_starts, last)
        ends.append((line, last - line_starts[line - 1] + 1))
        if stmt.__class__ is Node:
            stmt = ConstraintStmt(stmt, stmt.line, stmt.col, text=" ".join(code.split()))
        out.append(stmt)
    return tuple(ends), out


def _blank_out_comment(match: re.Match) -> str:
    return " " * len(match.group(0))


def _line_col(line_starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect_right(line_starts, offset)
    return line, offset - line_starts[line - 1] + 1


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _xml_note(file: str) -> str:
    """What to do with an XML text given where a Sugar CSP file is read."""
    from csp2sat.xcsp3_read import XCSP3_SUFFIXES  # only on this error path: not a cost of every start-up

    if file.endswith(XCSP3_SUFFIXES):  # named as XCSP3, given to a Sugar-only reader
        return (f"{file} is XCSP3, and this reads Sugar CSP files only: `csp2sat solve {file}` solves it as it is, "
                f"`csp2sat convert {file} -o FILE.csp` writes its Sugar CSP file")
    return ("this looks like XML: XCSP3 is read from a file named FILE.xml (.xml.gz, .xml.lzma), or from standard "
            "input by `csp2sat convert -`")


def _odd_token_warnings(text: str, file: str, line_starts: list[int]) -> tuple[Diagnostic, ...]:
    """Warnings for tokens that Sugar reads in a surprising way (we read them the same way)."""
    warnings = []
    for m in _pattern("_ODD_TOKENS").finditer(text):
        if m.group(0).startswith(";"):
            continue
        if m.group("minus"):
            line, col = _line_col(line_starts, m.start())
            end = _pattern("SYMBOL_RE").match(text, m.start() + 1)
            word = end.group(0) if end else ""
            message = f"'-{word}' is read as '-' followed by '{word}' (as Sugar does); write (- {word}) to negate"
        elif m.group("glued"):
            line, col = _line_col(line_starts, m.start())
            rest = _pattern("SYMBOL_RE").match(text, m.start("glued"))
            word = rest.group(0) if rest else m.group("glued")
            message = (
                f"'{m.group('num')}{word}' is read as the number {int(m.group('num').split('.')[0])} followed by the "
                f"symbol '{word}' (as Sugar does: numbers are plain decimal integers, no exponent, hexadecimal or "
                "'_'); put a space between them if two tokens were meant"
            )
        elif m.group("frac"):
            line, col = _line_col(line_starts, m.start())
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
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    line_starts = _line_starts(text)

    def where(offset: int) -> str:
        line, col = _line_col(line_starts, offset)
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
            line, col = _line_col(line_starts, pos)
            inner = f" in ({head} ...)" if head else ""
            return CspError(
                f"missing ')' to close '(' opened at {line}:{col}{inner}",
                *_line_col(line_starts, len(text.rstrip()) or 0),
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
