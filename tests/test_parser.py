"""Parser tests: every construct and alias, Sugar's tokenizer quirks, and syntax error messages."""

from __future__ import annotations

import pytest

from csp2sat.diagnostics import CspError, Exit
from csp2sat.parser import MAX_NESTING, parse_text
from csp2sat.syntax import ConstraintStmt, IntDecl, Node


def formula(text: str) -> Node:
    stmt = parse_text(text).statements[-1]
    assert isinstance(stmt, ConstraintStmt)
    return stmt.formula


def sym(name: str) -> Node:
    return Node("sym", (), name)


def const(v: int) -> Node:
    return Node("const", (), v)


@pytest.mark.parametrize(
    "spelled, op",
    [("not", "not"), ("!", "not"), ("and", "and"), ("&&", "and"), ("or", "or"), ("||", "or"),
     ("imp", "imp"), ("=>", "imp"), ("xor", "xor"), ("iff", "iff"),
     ("eq", "eq"), ("=", "eq"), ("ne", "ne"), ("!=", "ne"), ("le", "le"), ("<=", "le"),
     ("lt", "lt"), ("<", "lt"), ("ge", "ge"), (">=", "ge"), ("gt", "gt"), (">", "gt"),
     ("add", "add"), ("+", "add"), ("sub", "sub"), ("-", "sub"), ("mul", "mul"), ("*", "mul"),
     ("div", "div"), ("/", "div"), ("mod", "mod"), ("%", "mod"), ("min", "min"), ("max", "max")],
)  # fmt: skip
def test_operator_aliases_fold_to_canonical_names(spelled: str, op: str) -> None:
    assert formula(f"({spelled} a b)") == Node(op, (sym("a"), sym("b")))


def test_unary_minus_is_neg() -> None:
    assert formula("(- x)") == formula("(sub x)") == Node("neg", (sym("x"),))


def test_declarations() -> None:
    tree = parse_text("(domain d ((1 3) 5))(int x 1 3)(int y 4)(int z ((1 2) 7))(int w d)(bool p)")
    specs = [s.spec for s in tree.statements if hasattr(s, "spec")]
    assert specs == [("ranges", ((1, 3), (5,))), ("bounds", 1, 3), ("value", 4), ("ranges", ((1, 2), (7,))), ("domain", "d")]


def test_keywords_are_not_reserved() -> None:
    tree = parse_text("(int domain 1)(int nil 0 9)(int supports 3)(= nil (+ domain supports))")
    assert [s.name for s in tree.statements[:3]] == ["domain", "nil", "supports"]
    assert tree.statements[3].formula == Node("eq", (sym("nil"), Node("add", (sym("domain"), sym("supports")))))


def test_globals_shapes() -> None:
    assert formula("(count 2 (x y) ge 1)") == Node("count", (const(2), Node("list", (sym("x"), sym("y"))), const(1)), "ge")
    assert formula("(element i (7 4) lt 5)").value == "lt"
    assert formula("(element i (7 4) v)").value == "eq"
    ws = formula("(weightedsum ((1 a) (-2 b)) le 3)")
    assert ws.args[0] == Node("list", (Node("list", (const(1), sym("a"))), Node("list", (const(-2), sym("b")))))
    task = formula("(cumulative ((s nil e 1)) 2)").args[0].args[0]
    assert task == Node("list", (sym("s"), Node("nil"), sym("e"), const(1)))
    assert formula("(disjunctive ((a 1)))").args[0].args[0] == Node("list", (sym("a"), const(1)))


def test_tokenizer_quirks_with_warnings() -> None:
    tree = parse_text("(int x 0 5)\n(= 1x)\n(= x 2.7)\n(= y -x)")
    assert tree.statements[1].formula == Node("eq", (const(1), sym("x")))
    assert tree.statements[2].formula == Node("eq", (sym("x"), const(2)))
    assert tree.statements[3].formula == Node("eq", (sym("y"), sym("-"), sym("x")))
    assert formula("(= x -5)") == Node("eq", (sym("x"), const(-5)))
    messages = [w.message for w in tree.warnings]
    assert len(messages) == 3 and "'1x' is read as the number 1 followed by the symbol 'x'" in messages[0]
    assert "2.7" in messages[1] and "'-x'" in messages[2]
    assert [w.line for w in tree.warnings] == [2, 3, 4]


@pytest.mark.parametrize(
    "text, error, note",
    [
        # the parser's error: 'e3' where a bound was expected
        ("(int x 0 1e3)", "1:11: error: unexpected symbol 'e3'", "note: 1:10: '1e3' is read as the number 1"),
        # the checker's error at the statement, the odd token on a later line of it
        ("(int x 0 9)\n(=\n  x\n  1e3)", "2:1: error: '=' takes 2 arguments, got 3", "note: 4:3: '1e3' is read"),
        ("(int x 0 9)\n(= x (+ 0x1 1))", "2:10: error: undefined integer variable 'x1'", "note: 2:9: '0x1' is read"),
    ],
)
def test_an_error_notes_the_odd_tokens_that_may_cause_it(text: str, error: str, note: str) -> None:
    """Warnings are not printed when reading fails, so the error carries the odd tokens of its place."""
    from csp2sat.checker import check

    with pytest.raises(CspError) as caught:
        check(parse_text(text, file="f.csp"))
    assert f"f.csp:{error}" in str(caught.value) and f"f.csp: {note}" in str(caught.value)


def test_an_error_elsewhere_has_no_note() -> None:
    from csp2sat.checker import check

    with pytest.raises(CspError) as caught:
        check(parse_text("(int x 0 9)\n(= y 1)\n(= x 1e3)", file="f.csp"))
    assert "undefined" in str(caught.value) and not caught.value.notes


def test_symbol_characters_and_unicode() -> None:
    tree = parse_text("(int a$b.c-1+*/%=<>!&| 0 1)(int 変数 1 3)(int 𝑧 1 2)")
    assert [s.name for s in tree.statements] == ["a$b.c-1+*/%=<>!&|", "変数", "𝑧"]


def test_comments_and_positions_and_text() -> None:
    tree = parse_text("; head\n(int x 0 9) ; tail\n(= x ; in\n  1)\n")
    assert [(c.text, c.line, c.col) for c in tree.comments] == [("; head", 1, 1), ("; tail", 2, 13), ("; in", 3, 6)]
    stmt = tree.statements[1]
    assert (stmt.line, stmt.col, stmt.text) == (3, 1, "(= x 1)")
    assert tree.ends == ((2, 11), (4, 4))


@pytest.mark.parametrize(
    "text, line, col, words",
    [
        ("(int x 1 3)\n(= x #2)", 2, 6, ["'#'", "not allowed"]),
        ("(int x 1 3))", 1, 12, ["unexpected ')'"]),
        ("(int x 1 3)\n(= x (+ 1 1)\n", 2, 13, ["missing ')'", "opened at 2:1"]),
        ("(int x)", 1, 7, ["(int", "expected"]),
        ("(lex_less (x y))", 1, 16, ["lex_less", "expected"]),
    ],
)
def test_syntax_errors_are_positioned_and_readable(text: str, line: int, col: int, words: list[str]) -> None:
    with pytest.raises(CspError) as info:
        parse_text(text, "f.csp")
    err = info.value
    assert (err.exit, err.line, err.col, err.file) == (Exit.SYNTAX, line, col, "f.csp")
    for word in words:
        assert word in err.message


def test_deep_nesting_parses() -> None:
    depth = 3000
    text = "(bool p)" + "(not " * depth + "p" + ")" * depth
    stmt = parse_text(text, max_nesting=0).statements[-1]  # the parser itself has no limit
    assert isinstance(stmt, ConstraintStmt)
    assert sum(1 for n in stmt.formula.walk() if n.op == "not") == depth
    with pytest.raises(CspError) as err:  # by default: the depth later stages handle, stated with its place
        parse_text(text, file="f.csp")
    assert (err.value.exit, err.value.line, err.value.col) == (Exit.LIMIT, 1, 9 + 5 * MAX_NESTING)
    assert f"at most {MAX_NESTING} deep" in err.value.message


def test_int_decl_is_plain_dataclass() -> None:
    assert parse_text("(int x 1 2)").statements[0] == IntDecl("x", ("bounds", 1, 2))
