"""Tests of csp2sat.explain and `csp2sat explain`: the explanations are UNSAT and minimal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pysat.solvers import Solver

from csp2sat.diagnostics import CspError, Exit
from csp2sat.explain import minimise_core
from tests.cli_support import run_cli

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "tests" / "conformance"


def test_minimise_core_on_a_plain_cnf() -> None:
    # Selectors 10..14 guard unit clauses x1, -x1, x2, -x2 (two independent conflicts) and a free one.
    clauses = [[-10, 1], [-11, -1], [-12, 2], [-13, -2], [-14, 3]]
    with Solver(name="cadical195", bootstrap_with=clauses) as sat:
        assert not sat.solve(assumptions=[10, 11, 12, 13, 14])
        core = minimise_core(sat, [10, 11, 12, 13, 14])
        assert sorted(core) in ([10, 11], [12, 13])
        assert not sat.solve(assumptions=core)


def _pipeline():  # type: ignore[no-untyped-def]
    from csp2sat import checker, compiler, parser

    return parser.parse_text, checker.check, compiler.compile_model


def _assert_minimal(model, parts, widen: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Checked on a fresh solver: the parts together are UNSAT, and every proper subset is SAT."""
    from csp2sat.explain import relax

    _, _, compile_model = _pipeline()
    relaxed, _ = relax(model, widen)
    compiled = compile_model(relaxed, selectors=True)
    chosen = [compiled.selectors[p.index] for p in parts]
    with Solver(name="minisat22") as sat:
        compiled.load(sat)
        assert not sat.solve(assumptions=chosen)
        for i in range(len(chosen)):
            # Dropping any one member (the others stay assumed, the rest of the file is relaxed) is SAT.
            assert sat.solve(assumptions=chosen[:i] + chosen[i + 1 :]), parts[i]


def _explain(text: str, widen: bool = True, file: str = "<string>"):  # type: ignore[no-untyped-def]
    from csp2sat.explain import explain

    parse_text, check, _ = _pipeline()
    model = check(parse_text(text, file=file))
    return model, explain(model, widen=widen)


def _unsat_files() -> list:
    cases = []
    for folder in ("features", "quirks"):
        expected = json.loads((CONFORMANCE / folder / "expected.json").read_text())
        for name, info in sorted(expected.items()):
            # (alldifferent) is true for us (docs/quirks.md), so that quirk file is satisfiable here.
            if info["status"] == "UNSATISFIABLE" and name != "alldifferent_no_arguments.csp":
                cases.append(pytest.param(folder, name, id=f"{folder}/{name}"))
    return cases


@pytest.mark.parametrize("folder,name", _unsat_files())
def test_conformance_unsat_files_get_minimal_explanations(folder: str, name: str) -> None:
    path = CONFORMANCE / folder / name
    model, result = _explain(path.read_text(), file=str(path))
    assert not result.satisfiable
    source_lines = path.read_text().splitlines()
    for part in result.parts:
        assert part.file == str(path)
        assert " ".join(source_lines[part.line - 1].split()).startswith(part.text)
    _assert_minimal(model, result.parts)


def test_declaration_is_part_of_the_explanation() -> None:
    model, result = _explain("(int x 1 3)\n(int y 1 3)\n(> y 0)\n(> x 3)\n")
    assert [(p.kind, p.line, p.text) for p in result.parts] == [
        ("declaration", 1, "(int x 1 3)"),
        ("constraint", 4, "(> x 3)"),
    ]


@pytest.mark.parametrize("text, lines", [
    # Products and folded constants reach beyond every constant written: the widening must cover them,
    # or the declaration the conflict needs is left out (z = 16 satisfies the three constraints).
    ("(int x 0 5)\n(int y 0 5)\n(int z 0 5)\n(= z (* x y))\n(>= x 4)\n(>= y 4)\n", [3, 4, 5, 6]),
    ("(int x 0 3)\n(= x (* 10 10))\n", [1, 2]),
    ("(int x 0 3)\n(int y 0 3)\n(= x (* 8 y))\n(> y 2)\n", [1, 3, 4]),
])
def test_declarations_needed_beyond_the_constants_are_listed(text: str, lines: list[int]) -> None:
    import csp2sat

    model, result = _explain(text)
    assert [p.line for p in result.parts] == lines
    _assert_minimal(model, result.parts)
    # The claim itself, checked apart from the widening: the listed lines alone, every variable whose
    # declaration is not listed free over -1000..1000, have no solution.
    source = text.splitlines()
    listed = {p.line for p in result.parts}
    kept = [f"(int {name} -1000 1000)" for name, var in model.int_vars.items() if var.line not in listed]
    kept += [source[line - 1] for line in sorted(listed)]
    assert csp2sat.solve("\n".join(kept) + "\n").status == "UNSATISFIABLE"


def test_pigeonhole_needs_every_domain_and_the_alldifferent() -> None:
    text = "(int a 1 2)\n(int b 1 2)\n(int c 1 2)\n(int d 0 9)\n(alldifferent a b c)\n(< d 5)\n"
    model, result = _explain(text)
    assert [p.line for p in result.parts] == [1, 2, 3, 5]
    _assert_minimal(model, result.parts)


def test_without_domains_only_constraints_are_listed() -> None:
    text = "(int x 0 5)\n(int y 0 5)\n(< x y)\n(< y x)\n(= x 1)\n"
    model, result = _explain(text, widen=False)
    assert [(p.kind, p.line) for p in result.parts] == [("constraint", 3), ("constraint", 4)]
    _assert_minimal(model, result.parts, widen=False)


def test_satisfiable_file_has_nothing_to_explain() -> None:
    _, result = _explain("(int x 1 3)\n(> x 2)\n")
    assert result.satisfiable and result.parts == []


def test_command_output(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    _pipeline()
    path = tmp_path / "m.csp"
    path.write_text("; a comment\n(int x 1 3)\n(bool p)\n(or p\n    (> x 3)) ; trailing\n(not p)\n")
    status, out, _ = run_cli(capsys, "explain", str(path))
    assert status == 0
    assert out.splitlines()[1:] == [f"{path}:2: (int x 1 3)", f"{path}:4: (or p (> x 3))", f"{path}:6: (not p)"]
    path.write_text("(int x 1 3)\n")
    status, out, _ = run_cli(capsys, "explain", str(path))
    assert status == 0 and "satisfiable" in out
    status, _, err = run_cli(capsys, "explain", str(tmp_path / "missing.csp"))
    assert status == Exit.IO and "missing.csp" in err


def _magic_rows_with_a_clash(n: int) -> str:
    total = n * (n * n + 1) // 2
    text = "".join(f"(int x_{i}_{j} 1 {n * n})\n" for i in range(n) for j in range(n))
    text += "(alldifferent " + " ".join(f"x_{i}_{j}" for i in range(n) for j in range(n)) + ")\n"
    text += "".join("(= (+ " + " ".join(f"x_{i}_{j}" for j in range(n)) + f") {total})\n" for i in range(n))
    return text + "(= x_0_0 1)\n(= x_0_1 1)\n"


def test_domains_are_kept_when_widening_them_would_not_fit(tmp_path: Path) -> None:
    """Widened domains make sums explode (a 9x9 magic square: ~430 M clauses): explain was refused
    where solve answers. Now it explains with the declared domains, and says so."""
    import subprocess
    import sys

    path = tmp_path / "rows.csp"
    path.write_text(_magic_rows_with_a_clash(5))
    expected = [f"{path}:26: (alldifferent", f"{path}:32: (= x_0_0 1)", f"{path}:33: (= x_0_1 1)"]
    for limit, kept in (("150", True), ("20000", False)):
        done = subprocess.run([sys.executable, "-m", "csp2sat", "explain", "--memory-limit", limit, str(path)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert ("declared domains kept fixed" in lines[0]) == kept, lines
        assert [line[:len(want)] for line, want in zip(lines[-3:], expected)] == expected, lines


def test_a_satisfiable_file_is_told_by_solving_it_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The widened, untightened compilation with selectors is only built for an unsatisfiable model:
    200 queens took 20 s (CaDiCaL on the widened CNF) to say 'satisfiable', solving takes well under a second."""
    import csp2sat.explain as explaining

    built = []
    real = explaining.compile_model

    def counting(model, **kwargs):  # type: ignore[no-untyped-def]
        built.append(kwargs.get("selectors", False))
        return real(model, **kwargs)

    monkeypatch.setattr(explaining, "compile_model", counting)
    _, result = _explain("(int x 1 3)\n(int y 1 3)\n(< x y)\n")
    assert result.satisfiable and built == [False]
    _, result = _explain("(int x 1 3)\n(int y 1 3)\n(< x y)\n(< y x)\n")
    assert not result.satisfiable and built == [False, False, True]
