"""Checker tests: every accepted conformance file checks, every errors/ file is rejected with a
position, the right exit status and a message naming the problem, and the quirk decisions hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from csp2sat.checker import check
from csp2sat.diagnostics import CspError, Exit
from csp2sat.parser import parse_text
from csp2sat.syntax import Domain, Node

CONFORMANCE = Path(__file__).parent / "conformance"


def _cases(folder: str, accepted: bool) -> list[str]:
    expected = json.loads((CONFORMANCE / folder / "expected.json").read_text(encoding="utf-8"))
    return sorted(name for name, e in expected.items() if (e["status"] != "ERROR") == accepted)


def load(text: str, file: str = "<string>"):
    return check(parse_text(text, file))


ACCEPTED = [(f, n) for f in ("features", "sugar-examples", "quirks") for n in _cases(f, True)]


@pytest.mark.parametrize("folder, name", ACCEPTED)
def test_files_sugar_accepted_pass_check(folder: str, name: str) -> None:
    path = CONFORMANCE / folder / name
    model = load(path.read_text(encoding="utf-8"), str(path))
    assert model.file == str(path)
    assert all(c.line > 0 and c.text for c in model.constraints)


# file -> (exit status, words the message must contain, line)
ERRORS = {
    "bad_objective_goal.csp": (Exit.SEMANTIC, ["smallest", "minimize"], 3),
    "bad_range_in_domain.csp": (Exit.SEMANTIC, ["range", "(3 1)"], 2),
    "bool_used_as_integer.csp": (Exit.SEMANTIC, ["Boolean", "'p'", "integer"], 4),
    "cumulative_two_nil_fields.csp": (Exit.SEMANTIC, ["nil"], 3),
    "duplicate_bool.csp": (Exit.SEMANTIC, ["'p'", "twice"], 3),
    "duplicate_domain.csp": (Exit.SEMANTIC, ["domain", "'d'", "twice"], 3),
    "duplicate_int.csp": (Exit.SEMANTIC, ["'x'", "twice"], 3),
    "empty_domain_range.csp": (Exit.SEMANTIC, ["empty"], 2),
    "empty_int_range.csp": (Exit.SEMANTIC, ["empty"], 2),
    "empty_range_list.csp": (Exit.SEMANTIC, ["empty range list"], 2),
    "int_used_as_formula.csp": (Exit.SEMANTIC, ["integer", "'x'", "formula"], 3),
    "syntax_bad_character.csp": (Exit.SYNTAX, ["'#'"], 3),
    "syntax_extra_paren.csp": (Exit.SYNTAX, ["unexpected ')'"], 2),
    "syntax_missing_paren.csp": (Exit.SYNTAX, ["missing ')'", "3:1"], 3),
    "syntax_unknown_operator.csp": (Exit.SYNTAX, ["unknown operator 'foo'"], 3),
    "syntax_uppercase_keyword.csp": (Exit.SYNTAX, ["'INT'", "'int'"], 2),
    "undefined_bool_variable.csp": (Exit.SEMANTIC, ["undefined", "'q'"], 3),
    "undefined_domain.csp": (Exit.SEMANTIC, ["undefined domain 'd'"], 2),
    "undefined_int_variable.csp": (Exit.SEMANTIC, ["undefined", "'y'"], 3),
    "undefined_objective_variable.csp": (Exit.SEMANTIC, ["objective", "'y'"], 3),
    "undefined_predicate_or_relation.csp": (Exit.SYNTAX, ["'r'", "predicate or relation"], 4),
    "unsupported_div_by_variable.csp": (Exit.UNSUPPORTED, ["div", "variable"], 4),
    "unsupported_div_by_zero.csp": (Exit.UNSUPPORTED, ["div", "zero"], 3),
    "unsupported_mod_by_variable.csp": (Exit.UNSUPPORTED, ["mod", "variable"], 4),
    "unsupported_mod_negative_divisor.csp": (Exit.UNSUPPORTED, ["mod", "-2"], 3),
    "unsupported_pow.csp": (Exit.UNSUPPORTED, ["pow"], 3),
    "used_before_definition.csp": (Exit.SEMANTIC, ["'x'", "before its definition", "line 3"], 2),
    "wrong_arity_comparison.csp": (Exit.SEMANTIC, ["'<'", "2 arguments", "got 3"], 4),
    "wrong_arity_if.csp": (Exit.SEMANTIC, ["'if'", "3 arguments", "got 2"], 4),
    "wrong_arity_imp.csp": (Exit.SEMANTIC, ["'imp'", "2 arguments", "got 3"], 4),
    "wrong_arity_lex_less.csp": (Exit.SEMANTIC, ["lex_less", "2 and 3"], 4),
    "wrong_arity_min.csp": (Exit.SEMANTIC, ["'min'", "2 arguments", "got 3"], 3),
    "wrong_arity_not.csp": (Exit.SEMANTIC, ["'not'", "1 argument", "got 2"], 4),
    "wrong_arity_predicate_call.csp": (Exit.SEMANTIC, ["predicate 'p'", "2 arguments", "got 1"], 4),
    "wrong_arity_relation_call.csp": (Exit.SEMANTIC, ["relation 'r'", "arity 2", "1 argument"], 4),
    "wrong_arity_relation_tuple.csp": (Exit.SEMANTIC, ["arity 3", "(1 2)"], 2),
}


def test_every_error_file_has_an_expectation() -> None:
    assert sorted(ERRORS) == _cases("errors", False)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_files_are_rejected_with_position_and_message(name: str) -> None:
    exit_status, words, line = ERRORS[name]
    path = CONFORMANCE / "errors" / name
    with pytest.raises(CspError) as info:
        load(path.read_text(encoding="utf-8"), str(path))
    err = info.value
    assert (err.exit, err.line, err.file) == (exit_status, line, str(path))
    assert err.col > 0
    for word in words:
        assert word in err.message, err.message


def warnings_of(text: str) -> list[str]:
    return [w.message for w in load(text).warnings]


def test_resolution_and_domains() -> None:
    model = load("(domain d ((5 7) (1 2) (6 9) 3))(int x d)(bool p)(int y 1 2)(predicate (q a b) (and b (< a 2)))(q x p)")
    assert model.int_vars["x"].domain == Domain(((1, 3), (5, 9)))
    call = model.constraints[0].formula
    assert call == Node("pcall", (Node("ivar", (), "x"), Node("bvar", (), "p")), "q")
    assert model.predicates["q"].body == Node("and", (Node("param", (), "b"), Node("lt", (Node("param", (), "a"), Node("const", (), 2)))))


def test_alldifferent_list_forms_are_flattened() -> None:
    model = load("(int a 1 3)(int b 1 3)(alldifferent (a b))(alldifferent ((+ a 1) b))(alldifferent a b)")
    forms = [c.formula for c in model.constraints]
    assert forms[0] == forms[2] and len(forms[1].args) == 2


def test_quirk_empty_alldifferent_is_accepted() -> None:
    assert load("(alldifferent)").constraints[0].formula == Node("alldifferent")


def test_quirk_single_compound_alldifferent_is_one_term() -> None:
    model = load("(int x 1 2)(alldifferent (+ x 1))")
    assert len(model.constraints[0].formula.args) == 1 and "one term" in model.warnings[0].message


def test_quirk_bool_equality_hints_iff() -> None:
    with pytest.raises(CspError, match=r"use \(iff p q\)"):
        load("(bool p)(bool q)(= p q)")


def test_quirk_div_minus_one_accepted_other_non_positive_rejected() -> None:
    load("(int x 0 5)(= (div x -1) -3)")
    for text in ("(int x 0 5)(= (div x -2) 1)", "(int x 0 5)(= (mod x -1) 0)", "(int x 0 5)(= (div x (- 3 3)) 0)"):
        with pytest.raises(CspError) as info:
            load(text)
        assert info.value.exit == Exit.UNSUPPORTED


def test_quirk_redefinitions_warn_and_later_wins() -> None:
    model = load("(relation r 1 (supports (1)))(relation r 1 (supports (2)))(int x 1 3)(r x)")
    assert model.relations["r"].tuples == ((2,),) and "later definition wins" in model.warnings[0].message


def test_quirk_int_and_bool_share_a_name_position_decides() -> None:
    model = load("(int v 1 2)(bool v)(= v 2)v")
    assert [c.formula.args[0].op if c.formula.args else c.formula.op for c in model.constraints] == ["ivar", "bvar"]
    assert model.warnings


def test_quirk_integer_constant_as_formula() -> None:
    model = load("(or 0 1)\n2\n-1")
    assert [c.formula for c in model.constraints] == [Node("or", (Node("false"), Node("true"))), Node("true"), Node("false")]
    assert len(model.warnings) == 4


def test_quirk_minus_prefixed_symbol_hint() -> None:
    with pytest.raises(CspError, match=r"write \(- x\)"):
        load("(int x 0 5)(int y -5 0)(= y -x)")


def test_quirk_neg_with_two_arguments_is_sub() -> None:
    model = load("(int x 0 9)(= (neg 7 x) 2)")
    assert model.constraints[0].formula.args[0].op == "sub" and model.warnings


def test_quirk_objectives() -> None:
    model = load("(int x 0 5)(int y 0 5)(objective minimize x y)")
    assert (model.objective.var, model.objective.shown) == ("x", ("x", "y")) and model.warnings
    model = load("(int x 0 5)(int y 0 5)(objective minimize x)(objective maximize y)")
    assert (model.objective.sense, model.objective.var) == ("maximize", "y")
    assert "second objective" in model.warnings[0].message


def test_quirk_predicate_extra_arguments_truncated() -> None:
    model = load("(predicate (p a) (> a 1))(int x 1 3)(int y 1 3)(p x y)")
    assert len(model.constraints[0].formula.args) == 1 and model.warnings


def test_quirk_relation_calls() -> None:
    model = load("(relation r 2 (supports (1 2 99)))(int x 1 3)(r x 2)")
    assert model.constraints[0].formula.args[1] == Node("const", (), 2)
    assert model.relations["r"].tuples == ((1, 2),)
    supports = load("(relation r 1 (supports (1)))(int x 1 3)(int y 1 3)(r x y)")
    conflicts = load("(relation r 1 (conflicts (1)))(int x 1 3)(int y 1 3)(r x y)")
    assert supports.constraints[0].formula.op == "false" and conflicts.constraints[0].formula.op == "true"


def test_quirk_mul_zero_reversed_and_names() -> None:
    load("(int x -2 2)(int y -2 2)(< 0 (* x y))")
    model = load("(int $I9 1 3)(int _h 1 3)(bool _b)(int a$b 1 2)")
    assert [v.name for v in model.printed_int_vars()] == ["$I9", "a$b"] and not model.printed_bool_vars()


@pytest.mark.parametrize(
    "text, words",
    [
        ("(predicate (p a) (p a))", ["recursive"]),
        ("(predicate (q a) (> a 0))(predicate (p a) (q a))(predicate (q a) (p a))", ["recursive"]),
        ("(int x 1 2)(objective minimize)", ["objective needs a variable"]),
        ("(bool p)(objective minimize p)", ["Boolean"]),
        ("(int x 1 2)(cumulative ((x 1 nil nil)) 1)", ["nil"]),
        ("(int x 1 2)(= (+ x p) 1)", ["undefined", "'p'"]),
        ("(int x 1 2)(+ x 1)", ["integer term, not a formula"]),
        ("(int x 1 2)(= x (> x 1))", ["formula, not an integer term"]),
        ("(int x 1 2)(and (int y 1 2))", ["top level"]),
        ("(p 1)(predicate (p a) (> a 0))", ["before its definition"]),
    ],
)
def test_more_semantic_errors(text: str, words: list[str]) -> None:
    with pytest.raises(CspError) as info:
        load(text)
    assert info.value.line > 0
    for word in words:
        assert word in info.value.message


def test_deep_nesting_does_not_crash() -> None:
    depth = 5000
    text = "(bool p)" + "(not " * depth + "p" + ")" * depth
    try:
        model = load(text)
    except CspError as err:
        assert err.exit == Exit.LIMIT
    else:
        assert model.constraints


@pytest.mark.parametrize("chain", [300, 3000])
def test_a_long_chain_of_predicate_calls_is_a_positioned_limit(chain: int) -> None:
    """Each predicate calls the previous one: expanding 3000 of them overflowed Python's stack (no position)."""
    import csp2sat

    text = "(int x 0 5)\n(predicate (p0 a) (> a 2))\n"
    text += "".join(f"(predicate (p{k} a) (p{k - 1} a))\n" for k in range(1, chain)) + f"(p{chain - 1} x)\n"
    with pytest.raises(CspError) as info:
        csp2sat.solve(text)
    assert info.value.exit == Exit.LIMIT and info.value.line > 2 and info.value.col > 0
    assert "at most 200 deep" in info.value.message
    shallow = "(int x 0 5)\n(predicate (p0 a) (> a 2))\n" + "".join(
        f"(predicate (p{k} a) (p{k - 1} a))\n" for k in range(1, 150)) + "(p149 x)\n"
    assert csp2sat.solve(shallow).values["x"] >= 3


def test_a_call_that_expands_exponentially_is_refused_before_it_is_expanded() -> None:
    """Each predicate calls the previous one twice: 2^39 copies grew until the time limit, past --memory-limit."""
    import csp2sat

    text = "(int x 0 5)\n(predicate (p0 a) (> a 2))\n"
    text += "".join(f"(predicate (p{k} a) (and (p{k - 1} a) (p{k - 1} a)))\n" for k in range(1, 40)) + "(p39 x)\n"
    with pytest.raises(CspError) as info:
        csp2sat.solve(text)
    assert info.value.exit == Exit.LIMIT and (info.value.line, info.value.col) == (42, 1)
    assert "'p39' expands to about 4.4e+12 nodes" in info.value.message


@pytest.mark.parametrize("text, answers", [
    # c goes on to q's unused parameter and is a formula in p's own body (Sugar: SATISFIABLE, x = 1)
    ("(int x 0 1)\n(predicate (q a) (and))\n(predicate (p c) (and (q c) c))\n(p (= x 1))\n", [{"x": 1}]),
    # c is unused all the way down, so (p F) takes a formula as (p T) takes a term (Sugar: SATISFIABLE)
    ("(int x 0 3)\n(predicate (q a b) (< a 2))\n(predicate (p c) (q x c))\n(p (= x 1))\n(p (+ x 1))\n",
     [{"x": 0}, {"x": 1}]),
    # passed on unused first, then a term in the same body
    ("(int x 0 3)\n(predicate (q a b) (< a 2))\n(predicate (r c d) (and (q c d) (> d 1)))\n(r 0 x)\n",
     [{"x": 2}, {"x": 3}]),
])
def test_a_parameter_passed_on_to_an_unused_one_takes_no_kind_from_it(text: str, answers: list) -> None:
    """Found by differential testing against Sugar 2.3.3: a parameter handed to a predicate that ignores it was taken
    for an integer term, and its use as a formula elsewhere was refused (exit 4)."""
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    model = check(parse_text(text))
    with open_space(compile_model(model), model) as space:  # every answer checked by the evaluator on the way
        found = sorted((dict(answer) for answer in space.solutions()), key=lambda answer: answer["x"])
    assert found == answers


@pytest.mark.parametrize("text, answers", [
    ("(int x -5 5)\n(int y 2)\n(= (div x y) -3)\n", [{"x": -5, "y": 2}]),
    ("(int x -5 5)\n(int y 2)\n(= (mod x (+ y 1)) 2)\n(> x 3)\n", [{"x": 5, "y": 2}]),
    ("(int x -5 5)\n(int y 2)\n(predicate (p d) (= (div x d) -3))\n(p y)\n", [{"x": -5, "y": 2}]),
])
def test_a_divisor_whose_variables_have_one_value_is_a_constant(text: str, answers: list) -> None:
    """Sugar 2.3.3 asks only that the divisor's domain have one value (found by differential testing against it);
    a divisor of one value that is 0 or negative, or of two values, is refused as before."""
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    model = check(parse_text(text))
    with open_space(compile_model(model), model) as space:
        assert [dict(answer) for answer in space.solutions()] == answers
    for bad in ("(int x 0 5)(int y 0)(= (div x y) 1)", "(int x 0 5)(int y -2)(= (div x y) 1)",
                "(int x 0 5)(int y 1 2)(= (mod x y) 1)"):
        with pytest.raises(CspError) as info:
            load(bad)
        assert info.value.exit == Exit.UNSUPPORTED


@pytest.mark.parametrize("text, answers", [
    # Sugar 2.3.3: SATISFIABLE with x = y = v = 3, c = 2
    ("(int x 1 3)\n(int y 1 3)\n(int v 1 3)\n(int c 0 2)\n(global_cardinality (x y) ((v c)))\n(= c 2)\n(= x 3)\n",
     [{"x": 3, "y": 3, "v": 3, "c": 2}]),
    # Sugar 2.3.3: SATISFIABLE with x = 1, y = 2, c = 1, k = -3 (one of the two answers)
    ("(int x 1 2)\n(int y 1 2)\n(int c 0 2)\n(int k -20 20)\n"
     "(global_cardinality_with_costs (x y) ((1 c)) ((1 1 (- y 5))) k)\n(= x 1)\n",
     [{"x": 1, "y": 1, "c": 2, "k": -4}, {"x": 1, "y": 2, "c": 1, "k": -3}]),
])
def test_cardinality_values_and_cost_weights_may_be_terms(text: str, answers: list) -> None:
    """As in Sugar (found by differential testing against it): a value of global_cardinality is any term, and so is
    a weight w of global_cardinality_with_costs; its positions i and j stay constants."""
    from csp2sat.compiler import compile_model
    from csp2sat.enumerate import open_space

    model = check(parse_text(text))
    with open_space(compile_model(model), model) as space:
        assert sorted((dict(answer) for answer in space.solutions()), key=lambda a: a["y"]) == answers
    with pytest.raises(CspError) as info:
        load("(int x 1 2)(int i 1 1)(global_cardinality_with_costs (x) ((1 1)) ((i 1 2)) 2)")
    assert "position 1 must be an integer constant" in info.value.message


def test_a_boolean_named_true_or_false_is_accepted_with_a_warning() -> None:
    """Sugar 2.3.3 accepts (bool true) and prints it (a true false); every 'true' in a formula is the constant."""
    model = check(parse_text("(bool true)\n(bool false)\n(not false)\n"))
    assert set(model.bool_vars) == {"true", "false"}
    assert sum("can never be used" in str(w) for w in model.warnings) == 2
