"""Tests of the parser's fast path against lark's own reading, and of the table cache.

`parse_text` lexes with its own regex and runs lark's LALR tables itself; only
input it rejects goes through lark's lexer and parser. These tests parse the
same text both ways (the lark way forced by making the fast lexer reject
everything) and require identical results: statements with their positions,
statement ends, comments, warnings, or the same error at the same place.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csp2sat import parser
from csp2sat.diagnostics import CspError
from tests.csp_strategies import csp_texts

CONFORMANCE = Path(__file__).parent / "conformance"


def _outcome(text: str) -> tuple:
    """Everything `parse_text` gives for `text`, positions included (Node's repr shows them)."""
    try:
        tree = parser.parse_text(text, "f.csp")
    except CspError as err:
        return ("error", err.message, err.line, err.col, err.exit)
    return (
        repr(tree.statements),
        [getattr(s, "text", None) for s in tree.statements],
        tree.ends,
        repr(tree.comments),
        [str(w) for w in tree.warnings],
    )


def _reject(lines: list[str], odd: list[bool]):
    raise parser._Reject()
    yield  # a generator, like the real lexer


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    fast = _outcome(text)
    with monkeypatch.context() as m:
        m.setattr(parser, "_tokens", _reject)
        slow = _outcome(text)
    return fast, slow


@pytest.mark.parametrize("path", sorted(CONFORMANCE.rglob("*.csp")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_corpus_reads_the_same_as_lark(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_ways(path.read_text(encoding="utf-8"), monkeypatch)
    assert fast == slow


TRICKY = [
    "",
    "; only a comment",
    "(int x 0 5)\n(= 1x)\n(= x 2.7)\n(= y -x)",
    "(= --1x 2)(= a -(b)) (= 1-x 0)",
    "(count 1 (x) eqz)",  # lark's contextual lexer reads "eq" then "z"
    "(weightedsum ((1 a)) lez 3)",
    "(relation r 2 (supportsx (1 2)))",
    "(int x 1 3))",
    "(int x 1 3)\n(= x (+ 1 1)\n",
    "(int x)",
    "(int x 1 3)\n(= x #2)",
    "(= x\x0b1)",
    "(int true 1 2)(= true false)(int nil 0 1)",
    "(cumulative ((s nil e 1) (nil 2 nil 3)) 2)",
    "(element i (1 2) lt 5)(element i (1 2) v)",
    "(element i (1 2) >= 5)(element i (1 2) =v)(count 1 (x) != 1)(count 1 (x) <=1)",
    "(wsum ((1 a)) < 3)(weightedsum ((1 a)) > 3)(int wsum 0 1)(= wsum 1)",
    "(predicate (p a b) (and a b)) (p x y) (objective minimize x)",
    "(domain d ((1 3) 5)) (int w d) (bool b) (relation r 1 (conflicts (1) ()))",
    "(alldifferent (x y z)) (- x) (sub x y) (-  x 1) ((a b)) (1 2) ()",
    "(int 変数 1 3)(= 変数 𝑧)\r\n(= a\tb)\f",
    "(and (or a b) ; inner\n  c) ; after\n",
    "(lex_less (x y))",
    "(global_cardinality_with_costs (x) ((1 y)) ((1 1 2)) c)",
    ")",
    "(",
    "2.5.1",
    "(= x 1.)",
    "(-",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_inputs_read_the_same_as_lark(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_ways(text, monkeypatch)
    assert fast == slow


_PIECES = ["(", ")", " ", "\n", "x", "nil", "1", "-", "-2", "2.5", "3y", "eq", "=", "lt", "eqz", "int", "bool",
           "count", "element", "cumulative", "weightedsum", "relation", "supports", "true", "+", "not", "; c\n",
           "domain", "predicate", "objective", "alldifferent", "#", "wsum", "<=", ">", "((1 x))"]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(_PIECES), max_size=24))
def test_token_soup_reads_the_same_as_lark(pieces: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_ways("".join(pieces), monkeypatch)
    assert fast == slow


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=csp_texts())
def test_generated_files_read_the_same_as_lark(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_ways(text, monkeypatch)
    assert fast == slow
    assert fast[0] != "error"


# ---------------------------------------------------------------- the common forms, read directly


def _common_and_driven(text: str) -> tuple:
    """`_read_common`'s statements and `_drive`'s for `text` (None for a side that rejects it), with the odd flags."""
    lines = text.split("\n")
    tables = parser._tables()
    out = []
    for read in (lambda odd: parser._read_common(lines, odd, tables.keywords),
                 lambda odd: parser._drive(tables, parser._tokens(lines, odd))):
        odd = [False]
        try:
            out.append((repr(read(odd)), odd[0]))
        except parser._Reject:
            out.append(None)
    return tuple(out)


GENERATED = sorted((Path(__file__).parent.parent / "csp").rglob("*.csp"))


@pytest.mark.parametrize("path", GENERATED[::7] + sorted(CONFORMANCE.rglob("*.csp"))[::3], ids=lambda p: p.stem)
def test_common_forms_read_as_the_tables_read_them(path: Path) -> None:
    common, driven = _common_and_driven(path.read_text(encoding="utf-8"))
    assert common is None or common == driven


def _takes_the_common_path(text: str) -> bool:
    lines = text.split("\n")
    try:
        parser._read_common(lines, [False], parser._tables().keywords)
    except parser._Reject:
        return False
    return True


def test_generated_puzzle_files_take_the_common_path() -> None:
    # Only the common reader: that it reads as `_drive` does is checked on a sample above.
    missed = [p.name for p in GENERATED if not _takes_the_common_path(p.read_text(encoding="utf-8"))]
    assert missed == []


@pytest.mark.parametrize("text", TRICKY + ["(int x 0 1)(bool b)(predicate (p A) (! A))(p b)(+ 1 -2 x)", "x 3 true",
                                           "(int x y)(int x 1)(- 1 2 3)(sub x)(p)",
                                           "(int x (1 (2 4) 7))(relation r 2 (supports (1 2) (3 4)))(relation s 1 (conflicts))",
                                           "(int y (1 (2)))", "(int z ())", "(relation r 2 (supports 1))", "(relation r (supports))",
                                           "(relation r 1 (conflicts ()))", "(bool)", "(bool a b)", "(predicate (p) true)",
                                           "(predicate p x)", "(predicate (p X) (q X) (r X))", "(int x 1 2 3)"])
def test_tricky_inputs_read_the_same_both_ways(text: str) -> None:
    common, driven = _common_and_driven(text)
    assert common is None or common == driven


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(_PIECES), max_size=24))
def test_token_soup_reads_the_same_both_ways(pieces: list[str]) -> None:
    common, driven = _common_and_driven("".join(pieces))
    assert common is None or common == driven


@settings(max_examples=60, deadline=None)
@given(text=csp_texts())
def test_generated_texts_read_the_same_both_ways(text: str) -> None:
    common, driven = _common_and_driven(text)
    assert common is None or common == driven


# ---------------------------------------------------------------- the table cache


def _fresh_tables(monkeypatch: pytest.MonkeyPatch, cache_home: Path) -> parser._Tables:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.setattr(parser, "_TABLES", None)
    return parser._tables()


def test_tables_are_cached_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = _fresh_tables(monkeypatch, tmp_path)
    files = list((tmp_path / "csp2sat").glob("tables-*.tables"))
    assert len(files) == 1
    monkeypatch.setattr(parser, "_table_data", lambda _parser: pytest.fail("the cache was not used"))
    loaded = _fresh_tables(monkeypatch, tmp_path)
    assert loaded is not built and loaded.keywords == built.keywords
    assert parser.parse_text("(int x 1 3)(< x 2)").statements[1].text == "(< x 2)"


def test_damaged_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_tables(monkeypatch, tmp_path)
    (cached,) = (tmp_path / "csp2sat").glob("tables-*.tables")
    cached.write_bytes(cached.read_bytes()[:100])
    _fresh_tables(monkeypatch, tmp_path)
    assert parser.parse_text("(bool p) p").statements[1].formula.op == "sym"
    assert cached.stat().st_size > 100  # written again, whole


def test_unusable_cache_directory_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    _fresh_tables(monkeypatch, blocker)
    assert parser.parse_text("(int x 1 3)").statements[0].name == "x"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")
    assert parser._cache_path("grammar", "tables") is None


def test_cached_start_does_not_import_lark(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    code = (
        "import sys\nfrom csp2sat.parser import parse_text\n"
        "parse_text('(int x 1 3)(= x 2)')\nprint('lark' in sys.modules)"
    )
    outputs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert outputs == ["True\n", "False\n"]  # the first run builds the tables with lark and caches them


def test_make_node_builds_an_ordinary_frozen_node() -> None:
    from dataclasses import FrozenInstanceError

    from csp2sat.syntax import Node, make_node

    fast, plain = make_node("add", (Node("const", (), 1),), None, 3, 4), Node("add", (Node("const", (), 1),), None, 3, 4)
    assert type(fast) is Node and fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    with pytest.raises(FrozenInstanceError):
        fast.op = "sub"  # type: ignore[misc]


def test_token_pattern_is_the_grammar_symbol() -> None:
    """The tokenizer's ASCII-complement classes accept exactly the characters of grammar.lark's SYMBOL."""
    import re

    reference = re.compile(rf"([ \t\f\r]*)(-?[0-9]+(?:\.[0-9]*)?|{parser._SYMBOL}|[()]|;.*)")
    chars = [chr(i) for i in range(0x800)] + ["\ud7ff", "\ue000", "\uffff", "\U0001d467", "\U0010ffff", "変"]
    for c in chars:
        for text in (c, "a" + c, c + "a", "-" + c, "1" + c, "(" + c + " x)"):
            assert parser._TOKEN.findall(text) == reference.findall(text), repr(text)


@pytest.mark.parametrize("text", ["(int x 0 1)\n(= x 1)  \t\n(= x 0) ; c\n(a)(b)\n(and a\n b)\n(c)",
                                  "(a)\r\n(b)\f\n  (c)\n(d)\n", "(int x 0 1)\n(bool b)\n(or b (= x 1))\n"])
def test_statement_ends_and_texts(text: str) -> None:
    """Ends and constraint texts, also where statements stand alone on their lines (`_spans`' short cut)."""
    import re

    tree = parser.parse_text(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for stmt, end, nxt in zip(tree.statements, tree.ends, [*tree.statements[1:], None]):
        begin = starts[stmt.line - 1] + stmt.col - 1
        stop = starts[nxt.line - 1] + nxt.col - 1 if nxt else len(text)
        code = re.sub(";[^\n]*", lambda m: " " * len(m.group(0)), text[begin:stop]).rstrip()
        last = begin + len(code) - 1
        line = max(i for i, s in enumerate(starts, 1) if s <= last)
        assert end == (line, last - starts[line - 1] + 1)
        if hasattr(stmt, "text"):
            assert stmt.text == " ".join(code.split())


@pytest.mark.parametrize("name", ["BoolDecl", "IntDecl", "ConstraintStmt", "IntVar", "BoolVar", "Constraint"])
def test_fast_constructors_build_ordinary_frozen_objects(name: str) -> None:
    import pickle
    from dataclasses import FrozenInstanceError, fields

    from csp2sat import syntax

    cls = getattr(syntax, name)
    make = syntax.fast_constructor(cls)
    assert make is not cls  # the fast way applies to these classes
    values = [f"v{i}" for i in range(len(fields(cls)))]
    fast, plain = make(*values), cls(*values)
    assert type(fast) is cls and fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert pickle.loads(pickle.dumps(fast)) == plain
    with pytest.raises(FrozenInstanceError):
        setattr(fast, fields(cls)[0].name, "other")
