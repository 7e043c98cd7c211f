"""The Python API as a notebook uses it: what `parse` takes for a path, and clear errors for wrong arguments."""

from __future__ import annotations

import pytest

import csp2sat
from csp2sat.compiler import compile_model
from csp2sat.diagnostics import CspError, Exit
from csp2sat.enumerate import open_space
from csp2sat.evaluator import satisfies, violations

XCSP3 = ('<instance format="XCSP3" type="CSP"><variables><array id="x" size="[2]"> 0..2 </array></variables>'
         "<constraints><intension> lt(x[0],x[1]) </intension></constraints></instance>")


@pytest.mark.parametrize("name", ["missing.xml", "model", "nope.csp", "sub/dir/file"])
def test_a_one_line_string_without_a_parenthesis_is_a_path(name: str, tmp_path, monkeypatch) -> None:
    """It was read as CSP text: 'missing.xml' gave "undefined Boolean variable 'missing.xml'"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CspError) as caught:
        csp2sat.parse(name)
    assert caught.value.exit == Exit.IO and "cannot read" in str(caught.value)


def test_a_directory_is_no_csp_text(tmp_path) -> None:
    with pytest.raises(CspError) as caught:
        csp2sat.parse(str(tmp_path))
    assert caught.value.exit == Exit.IO


def test_texts_stay_texts() -> None:
    assert len(csp2sat.parse("(int x 0 2)").int_vars) == 1
    assert not csp2sat.parse("").int_vars and not csp2sat.parse("; nothing yet").int_vars


def test_an_xcsp3_path_is_translated(tmp_path) -> None:
    path = tmp_path / "m.xml"
    path.write_text(XCSP3)
    model = csp2sat.parse(str(path))
    assert list(model.int_vars) == ["x.0", "x.1"]
    assert csp2sat.solve(str(path)).status == "SATISFIABLE"
    with open_space(compile_model(model), model) as space:
        assert space.count() == 3


def test_all_values_are_what_satisfies_checks() -> None:
    model = csp2sat.parse("(int x 0 3) (int y 0 3) (int _h 0 3) (< x y) (= _h x)")
    result = csp2sat.solve(model)
    assert "_h" not in result.values and satisfies(model, result.all_values)
    assert "all_values" in violations(model, result.values)[0].text


def test_wrong_arguments_are_named() -> None:
    model = csp2sat.parse("(int x 0 3) (int y 0 3) (< x y)")
    compiled = compile_model(model)
    with pytest.raises(TypeError, match="checked Model"):
        compile_model("(int x 0 3)")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a dict"):
        compile_model(model, options=["alldifferent=pairwise"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"\(compiled, model\)"):
        open_space(model, compiled)
    with pytest.raises(ValueError, match="variable a is not in the compiled model"):
        open_space(compiled, csp2sat.parse("(int a 0 3)"))
    with open_space(compiled, model) as space, pytest.raises(TypeError, match="whole number"):
        list(space.solutions(limit="2"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="on_answer"):
        csp2sat.solve(model, on_answer=5)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no integer variable 'zz'"):
        compiled.value_literals("zz", 1)
