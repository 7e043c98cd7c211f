"""Sugar's modes of `csp2sat solve`: --max (Max-CSP) and --competition / -c, in both spellings."""

from __future__ import annotations

import itertools

import pytest

from cli_support import run_cli
from csp2sat import parse
from csp2sat.diagnostics import Exit
from csp2sat.evaluator import violations

OVERCONSTRAINED = """\
(int x 1 3)
(int y 1 3)
(int z 0 2)
(bool b)
(< x y) (< y x) (= x 3) (= (+ y z) 5) (imp b (= z 0)) (or (not b) (> x 2)) b
(alldifferent x y z)
"""


def _least_violations(text: str) -> int:
    model = parse(text)
    names = list(model.int_vars)
    best = None
    for combo in itertools.product(*(list(v.domain.values()) for v in model.int_vars.values())):
        for bools in itertools.product((False, True), repeat=len(model.bool_vars)):
            values = dict(zip(names, combo)) | {model.bool_key(b): v for b, v in zip(model.bool_vars, bools)}
            n = len(violations(model, values))
            best = n if best is None else min(best, n)
    return best


@pytest.mark.parametrize("flag", ["--max", "-max"])
def test_max_csp_reaches_the_least_number_of_violations(tmp_path, capsys, flag: str) -> None:
    path = tmp_path / "over.csp"
    path.write_text(OVERCONSTRAINED)
    status, out, err = run_cli(capsys, "solve", flag, str(path))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "s SATISFIABLE" and lines[-1] == "s OPTIMUM FOUND"
    objective = [int(l[2:]) for l in lines if l.startswith("o ")]
    assert objective == sorted(objective, reverse=True)
    best = _least_violations(OVERCONSTRAINED)
    assert objective[-1] == best > 0
    # the last answer violates exactly that many constraints of the original file
    answer = lines[lines.index(f"o {best}") + 1 : -1]
    model = parse(OVERCONSTRAINED)
    values = {}
    for line in answer[:-1]:
        name, value = line[2:].split("\t")
        values[name if name in model.int_vars else model.bool_key(name)] = (
            value == "true" if value in ("true", "false") else int(value))
    assert len(violations(model, values)) == best
    assert not any(name.startswith("_") for name in values)


def _answers_with_their_o_lines(out: str) -> list[tuple[int, list[str]]]:
    """(N, the answer's lines) for every ``o N`` of a Sugar log."""
    found, lines = [], out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("o "):
            end = lines.index("a", i)
            found.append((int(line[2:]), lines[i + 1:end]))
    return found


@pytest.mark.parametrize("text", [
    OVERCONSTRAINED,
    "(int x ((1 3) (10 12)))\n(> x 3)\n(< x 10)\n",  # the first answer found had been printed under 'o 2'
    "(bool p)\np\n(not p)\n",
    "(int a 1 3)\n(int b 1 3)\n(int c 1 3)\n(disjunctive ((a 2) (b 2) (c 2)))\n(= a b)\n(= b c)\n",
])
def test_every_o_line_of_max_csp_counts_the_violations_of_the_answer_under_it(tmp_path, capsys, text) -> None:
    path = tmp_path / "over.csp"
    path.write_text(text)
    status, out, err = run_cli(capsys, "solve", "--max", str(path))
    model = parse(text)
    assert status == 0, err
    for count, answer in _answers_with_their_o_lines(out):
        values = {}
        for line in answer:
            name, value = line[2:].split("\t")
            values[name if name in model.int_vars else model.bool_key(name)] = (
                value == "true" if value in ("true", "false") else int(value))
        assert len(violations(model, values)) == count, out


def test_max_csp_of_a_satisfiable_file_is_zero(tmp_path, capsys) -> None:
    path = tmp_path / "ok.csp"
    path.write_text("(int x 1 3) (int y 1 3) (< x y)\n")
    status, out, _ = run_cli(capsys, "solve", "--max", str(path))
    assert status == 0 and "o 0\n" in out and out.endswith("s OPTIMUM FOUND\n")


def test_max_csp_with_an_objective_is_a_usage_error(tmp_path, capsys) -> None:
    path = tmp_path / "obj.csp"
    path.write_text("(int x 1 3) (int y 1 3) (< x y)\n(objective minimize y)\n")
    status, out, err = run_cli(capsys, "solve", "--max", str(path))
    assert status == Exit.USAGE and out == ""
    assert "obj.csp:2" in err and "objective" in err


@pytest.mark.parametrize("flag", ["-c", "--competition", "-competition"])
def test_competition_output_is_one_v_line_in_definition_order(tmp_path, capsys, flag: str) -> None:
    path = tmp_path / "c.csp"
    path.write_text("(int b 5 5) (int a 1 1) (int _hidden 2 2) (bool p) p (int m 0 9)\n(objective maximize m)\n")
    status, out, err = run_cli(capsys, "solve", flag, str(path))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "s SATISFIABLE" and lines[-3:] == ["o 9", "v 5 1 9 true", "s OPTIMUM FOUND"]
    assert all(line[0] in "sov" for line in lines)


@pytest.mark.parametrize("mode", [["--all"], ["-n", "2"], ["--unique"], ["--all", "-j", "2"]])
def test_competition_output_holds_in_the_enumeration_modes(tmp_path, capsys, mode: list[str]) -> None:
    """-c with --all/-n/--unique: one `v` line per answer (the `a` lines were printed instead)."""
    path = tmp_path / "c.csp"
    path.write_text("(int x 1 3) (bool p) (int _h 0 2) (or p (> x 2))\n")
    status, out, err = run_cli(capsys, "solve", "-c", *mode, str(path))
    assert status == 0, err
    answers = [line for line in out.splitlines() if line.startswith("v ")]
    assert answers and not any(line.startswith("a") for line in out.splitlines()), out
    assert all(len(line.split()) == 3 and line.split()[2] in ("true", "false") for line in answers)
    if mode[0] == "--all":
        assert sorted(answers) == sorted(f"v {x} {str(p).lower()}" for x in (1, 2, 3) for p in (False, True) if p or x > 2)


def test_library_arguments_are_checked_with_clear_errors(tmp_path) -> None:
    """csp2sat.parse/solve as a notebook calls them: wrong types and values are TypeError/ValueError saying what
    is expected (they were internal TypeErrors, or a silent UNKNOWN for timeout=-1 and no limit for nan), and a
    file whose name has a '(' is a file, as the docstring says."""
    import pathlib

    import csp2sat

    bad = [(lambda: csp2sat.parse(b"(int x 0 3)"), TypeError, "not bytes"),
           (lambda: csp2sat.solve(None), TypeError, "not NoneType"),
           (lambda: csp2sat.solve("(int x 0 3)", solver=None), TypeError, "solver"),
           (lambda: csp2sat.solve("(int x 0 3)", timeout="5"), TypeError, "timeout"),
           (lambda: csp2sat.solve("(int x 0 3)", timeout=-1), ValueError, "positive"),
           (lambda: csp2sat.solve("(int x 0 3)", timeout=float("nan")), ValueError, "positive")]
    for call, kind, words in bad:
        with pytest.raises(kind, match=words):
            call()
    odd = tmp_path / "q(1).csp"
    odd.write_text("(int x 0 3) (> x 2)\n")
    assert csp2sat.solve(str(odd)).values == {"x": 3} == csp2sat.solve(pathlib.Path(odd)).values
    assert csp2sat.solve("(int x 0 3) (> x 2)", timeout=5).values == {"x": 3}


def test_library_solving_text_issues_the_parsers_warnings() -> None:
    """The CLI prints the parser's warnings; csp2sat.solve(text) used to drop them (a model silently re-read)."""
    import warnings

    import csp2sat
    from csp2sat.diagnostics import CspWarning

    text = "(int y 0 3) (= y 2.7) (int x 0 3) (objective minimize x) (objective maximize x)"
    with pytest.warns(CspWarning) as caught:
        assert csp2sat.solve(text).objective == 3
    said = [str(w.message) for w in caught]
    assert any("'2.7' is not an integer" in m for m in said) and any("second objective" in m for m in said), said
    assert all(w.filename == __file__ for w in caught)  # pointed at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        csp2sat.solve(csp2sat.parse(text))  # a Model: its warnings are the caller's to read (model.warnings)
