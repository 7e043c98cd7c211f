"""Formatter tests: idempotent and meaning-preserving on every conformance file, comments kept,
and a hypothesis round trip over random syntax trees."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csp2sat.diagnostics import CspError
from csp2sat.formatter import WIDTH, format_tree
from csp2sat.parser import parse_text
from csp2sat.syntax import ConstraintStmt, IntDecl, Node, SyntaxTree

CONFORMANCE = Path(__file__).parent / "conformance"
FILES = sorted(p.relative_to(CONFORMANCE).as_posix() for p in CONFORMANCE.glob("*/*.csp"))


@pytest.mark.parametrize("name", FILES)
def test_format_is_idempotent_and_keeps_meaning_and_comments(name: str) -> None:
    text = (CONFORMANCE / name).read_text(encoding="utf-8")
    try:
        tree = parse_text(text)
    except CspError:
        return  # syntax errors: nothing to format
    once = format_tree(tree)
    again = parse_text(once)
    assert again.statements == tree.statements
    assert [c.text for c in again.comments] == [c.text.rstrip() for c in tree.comments]
    assert format_tree(again) == once


def test_layout_and_comment_placement() -> None:
    text = "; head\n(int x 0 9) ; tail\n(int ; inside\n  y 0 9)\n\n\n(&& (= x 1) (!= y 2))\n; end\n"
    assert format_tree(parse_text(text)) == (
        "; head\n(int x 0 9) ; tail\n; inside\n(int y 0 9)\n\n(and (= x 1) (!= y 2))\n; end\n"
    )


def test_long_expressions_are_broken_within_width() -> None:
    names = " ".join(f"variable_{i}" for i in range(40))
    out = format_tree(parse_text(f"(alldifferent {names})\n(or {' '.join(f'(= {n} 1)' for n in names.split()[:8])})"))
    lines = out.splitlines()
    assert len(lines) > 2 and all(len(line) <= WIDTH for line in lines)
    assert all(line.startswith(("(", "  ")) for line in lines)


# ------------------------------------------------------------ random trees

NAMES = st.sampled_from(["x", "y", "z_1", "a.b", "変数", "p$q", "nil", "domain"])
CONSTS = st.integers(-50, 50).map(lambda v: Node("const", (), v))
LEAVES = st.one_of(NAMES.map(lambda n: Node("sym", (), n)), CONSTS)


def _terms(children: st.SearchStrategy) -> st.SearchStrategy:
    nary = st.tuples(st.sampled_from(["add", "sub"]), st.lists(children, min_size=2, max_size=3))
    binary = st.tuples(st.sampled_from(["mul", "div", "mod", "min", "max"]), st.lists(children, min_size=2, max_size=2))
    unary = st.tuples(st.sampled_from(["neg", "abs"]), st.lists(children, min_size=1, max_size=1))
    return st.one_of(nary, binary, unary).map(lambda t: Node(t[0], tuple(t[1])))


TERMS = st.recursive(LEAVES, _terms, max_leaves=12)


def _formulas(children: st.SearchStrategy) -> st.SearchStrategy:
    logic = st.tuples(st.sampled_from(["and", "or"]), st.lists(children, max_size=3))
    binary = st.tuples(st.sampled_from(["imp", "xor", "iff"]), st.lists(children, min_size=2, max_size=2))
    return st.one_of(
        logic.map(lambda t: Node(t[0], tuple(t[1]))),
        binary.map(lambda t: Node(t[0], tuple(t[1]))),
        children.map(lambda f: Node("not", (f,))),
    )


ATOMS = st.one_of(
    st.tuples(st.sampled_from(["eq", "ne", "le", "lt", "ge", "gt"]), TERMS, TERMS).map(lambda t: Node(t[0], t[1:])),
    st.sampled_from([Node("true"), Node("false")]),
    st.lists(TERMS, max_size=4).map(lambda ts: Node("alldifferent", tuple(ts))),
    st.tuples(TERMS, st.lists(TERMS, max_size=3), st.sampled_from(["eq", "le", "gt"]), TERMS).map(
        lambda t: Node("count", (t[0], Node("list", tuple(t[1])), t[3]), t[2])
    ),
    st.tuples(NAMES, st.lists(TERMS, max_size=2)).map(lambda t: Node("call", tuple(t[1]), t[0])),
)
FORMULAS = st.recursive(ATOMS, _formulas, max_leaves=10)
# A statement `(domain ...)` is a domain declaration in Sugar, so a top-level call of a predicate
# named `domain` cannot be written at all (nested calls and variables named `domain` can).
WRITABLE_STATEMENTS = FORMULAS.filter(lambda f: not (f.op == "call" and f.value == "domain"))
STATEMENTS = st.one_of(
    WRITABLE_STATEMENTS.map(ConstraintStmt),
    st.tuples(NAMES, st.integers(-9, 0), st.integers(0, 9)).map(lambda t: IntDecl(t[0], ("bounds", t[1], t[2]))),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(STATEMENTS, max_size=6))
def test_random_trees_round_trip(statements: list) -> None:
    tree = SyntaxTree(tuple(statements))
    text = format_tree(tree)
    parsed = parse_text(text)
    assert parsed.statements == tree.statements
    assert format_tree(parsed) == text


def test_comments_inside_an_expression_stay_among_the_same_tokens() -> None:
    text = (
        "(int x 0 9)\n(int y 0 9)\n"
        "(and (= x 1) ; first\n     ; own line\n     (!= y 2)\n     ; before close\n     )\n"
        "(predicate (p a)\n  (or (= a 1)\n   ; alt\n   (= a 2)))\n"
        "(<= (+ x ; tx\n y) 3)\n"
    )
    out = format_tree(parse_text(text))
    assert out == (
        "(int x 0 9)\n(int y 0 9)\n"
        "(and (= x 1) ; first\n  ; own line\n  (!= y 2)\n  ; before close\n  )\n"
        "(predicate (p a)\n  (or (= a 1)\n    ; alt\n    (= a 2)))\n"
        "(<=\n  (+ x ; tx\n    y)\n  3)\n"
    )
    assert format_tree(parse_text(out)) == out


def test_no_sibling_is_appended_after_a_broken_child() -> None:
    """Wrapping never leaves a dangling '... b)) 20)': what follows a child broken over lines starts a line."""
    long = "b" * 40
    text = f"(int a 0 9)(int {long} 0 9)\n(<= (+ (* 3 a) (* 5 {long}) (* 7 a) (* 9 {long})) 20)\n"
    out = format_tree(parse_text(text))
    lines = out.splitlines()
    assert lines[-1] == "  20)", out
    for line in lines:
        # once a line closes a list opened on an earlier line, nothing but ')' may follow on it
        balance = 0
        for i, char in enumerate(line):
            balance += (char == "(") - (char == ")")
            if balance < 0:
                assert set(line[i:]) <= {")"}, out
                break


@settings(max_examples=60, deadline=None)
@given(st.lists(STATEMENTS, min_size=1, max_size=4), st.data())
def test_comments_anywhere_between_tokens_are_kept_and_formatting_is_idempotent(statements: list, data) -> None:
    text = format_tree(SyntaxTree(tuple(statements)))
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    out, n = [], 0
    for token in tokens:
        out.append(token)
        if data.draw(st.integers(0, 5)) == 0:
            out.append(f"; c{n}\n")
            n += 1
    source = " ".join(out)
    tree = parse_text(source)
    once = format_tree(tree)
    again = parse_text(once)
    assert again.statements == tree.statements
    assert [c.text for c in again.comments] == [f"; c{i}" for i in range(n)]
    assert format_tree(again) == once
