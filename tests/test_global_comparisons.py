"""Sugar's comparison spellings inside global constraints, and `wsum` (issues 9 and 14).

Sugar's parser turns the words ``=`` ``!=`` ``<=`` ``<`` ``>=`` ``>`` into eq ne le
lt ge gt and ``wsum`` into weightedsum wherever they appear, so the comparison
of weightedsum, count and 4-argument element may be written either way. Each
spelling must mean exactly what the word means, through parse, solve --count
and fmt.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import csp2sat
from cli_support import run_cli
from csp2sat.diagnostics import CspError, Exit

SYMBOLS = {"eq": "=", "ne": "!=", "le": "<=", "lt": "<", "ge": ">=", "gt": ">"}
DECLS = "(int x -1 3) (int y 0 3)\n"
GLOBALS = [
    "(weightedsum ((2 x) (1 y)) {op} 3)",
    "(wsum ((2 x) (-1 y)) {op} 1)",
    "(count 1 (x y) {op} 1)",
    "(element y (x 2 x 0) {op} 1)",
]


def _constraints(text: str) -> list:
    return [c.formula for c in csp2sat.parse(text).constraints]


@pytest.mark.parametrize("template", GLOBALS)
@pytest.mark.parametrize("word", sorted(SYMBOLS))
def test_symbol_means_the_word(tmp_path: Path, capsys: pytest.CaptureFixture, template: str, word: str) -> None:
    by_word = DECLS + template.format(op=word) + "\n"
    by_symbol = DECLS + template.format(op=SYMBOLS[word]) + "\n"
    canonical = by_word.replace("(wsum", "(weightedsum")
    assert _constraints(by_symbol) == _constraints(by_word) == _constraints(canonical)
    counts = []
    for i, text in enumerate((by_word, by_symbol)):
        path = tmp_path / f"f{i}.csp"
        path.write_text(text, encoding="utf-8")
        code, out, err = run_cli(capsys, "solve", "--count", str(path))
        assert code == 0, err
        counts.append(out.splitlines()[-1])
    assert counts[0] == counts[1]
    # fmt writes the canonical word, which reads back as the same constraint.
    code, out, err = run_cli(capsys, "fmt", str(tmp_path / "f1.csp"))
    assert code == 0, err
    assert _constraints(out) == _constraints(canonical)
    assert "wsum" not in out
    if not (template.startswith("(element") and word == "eq"):  # else the 3-argument form
        assert f" {word} " in out


def test_the_issue_examples_solve(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text = DECLS + "(weightedsum ((2 x) (1 y)) = 5)\n(count 1 (x y) <= 1)\n(element 1 (x y) >= 2)\n(wsum ((1 x)) eq 2)\n"
    path = tmp_path / "issue.csp"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, "solve", "--all", str(path))
    assert code == 0, err
    assert out.splitlines() == ["s SATISFIABLE", "a x\t2", "a y\t1", "a", "c SOLUTIONS 1"]


def test_wrong_comparison_lists_every_spelling() -> None:
    with pytest.raises(CspError) as info:
        csp2sat.parse("(int x 0 1) (count 1 (x) == 1)")
    assert info.value.exit == Exit.SYNTAX
    assert "eq ne le lt ge gt = != <= < >= >" in str(info.value)
    with pytest.raises(CspError) as info:
        csp2sat.parse("(int x 0 1) (wsum ((1 x)) foo 1)")
    assert "(wsum ((A T)...) OP T)" in str(info.value)


def test_upper_case_wsum_gets_the_lower_case_hint() -> None:
    with pytest.raises(CspError) as info:
        csp2sat.parse("(int x 0 1) (WSUM ((1 x)) eq 1)")
    assert "did you mean 'wsum'" in str(info.value)


def test_wsum_and_symbols_stay_names_elsewhere() -> None:
    # Keywords are keywords only where the grammar takes them (as weightedsum already was).
    model = csp2sat.parse("(int wsum 0 2) (int =v 3 4) (= wsum 1) (element wsum (3 4) =v)")
    assert list(model.int_vars) == ["wsum", "=v"]
    assert csp2sat.solve(model).values == {"wsum": 1, "=v": 3}


# Every word Sugar's parser maps to another (its `conv` table), with the canonical word it means.
SUGAR_ALIASES = {
    "!": "not", "&&": "and", "||": "or", "=>": "imp",
    "=": "eq", "!=": "ne", "<=": "le", "<": "lt", ">=": "ge", ">": "gt",
    "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "wsum": "weightedsum",
}  # fmt: skip
_USES = {
    "not": "({op} (= x 1))", "and": "({op} (= x 1) (< y 2))", "or": "({op} (= x 1) (< y 2))",
    "imp": "({op} (= x 1) (< y 2))", "add": "(= ({op} x y) 3)", "sub": "(= ({op} x y) 1)",
    "mul": "(= ({op} x y) 2)", "div": "(= ({op} y 2) 1)", "mod": "(= ({op} y 2) 1)",
    "weightedsum": "({op} ((1 x) (2 y)) le 4)",
}  # fmt: skip


@pytest.mark.parametrize("alias", sorted(SUGAR_ALIASES))
def test_every_alias_of_sugars_parser_is_accepted(alias: str) -> None:
    word = SUGAR_ALIASES[alias]
    use = _USES.get(word, "({op} x y)")
    assert _constraints(DECLS + use.format(op=alias)) == _constraints(DECLS + use.format(op=word))
