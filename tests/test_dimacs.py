"""Tests of csp2sat.dimacs and the encode/decode commands, including a round trip through MiniSat."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from csp2sat.diagnostics import CspError, Exit
from tests.cli_support import run_cli
from csp2sat.dimacs import decode_assignment, printed_answer, read_solver_output

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "tests" / "conformance"


# ---------------------------------------------------------------- solver output


@pytest.mark.parametrize(
    "text",
    [
        "SAT\n1 -2 3 0\n",
        "c comment\ns SATISFIABLE\nv 1 -2\nv 3 0\n",
        "s SATISFIABLE\nv 1 -2 3\nv 0\n",
    ],
)
def test_read_satisfiable_outputs(text: str) -> None:
    result = read_solver_output(text)
    assert result.status == "SATISFIABLE"
    assert result.true_vars == {1, 3}


@pytest.mark.parametrize(
    "text,status", [("UNSAT\n", "UNSATISFIABLE"), ("s UNSATISFIABLE\n", "UNSATISFIABLE"), ("INDET\n", "UNKNOWN")]
)
def test_read_other_verdicts(text: str, status: str) -> None:
    assert read_solver_output(text).status == status


@pytest.mark.parametrize(
    "text,where,words",
    [
        ("SAT\n1 -2 x3 0\n", (2, 6), "x3"),
        ("s SATISFIABLE\nv 1 2 zz 0\n", (2, 7), "zz"),
        ("hello\n", (1, 1), "verdict"),
        ("", (1, 1), "empty"),
        ("SAT\n1 2\n", (0, 0), "not terminated"),
        # a literal and its negation (it was read as true), and literals after the model's 0 (they were read)
        ("s SATISFIABLE\nv 1 -2 3\nv -1 0\n", (3, 3), "variable 1 both values"),
        ("s SATISFIABLE\nv 1 2 0\nv 3 0\n", (3, 3), "after the 0"),
    ],
)
def test_bad_solver_output_is_a_positioned_error(text: str, where: tuple[int, int], words: str) -> None:
    with pytest.raises(CspError) as err:
        read_solver_output(text, "out.txt")
    assert (err.value.line, err.value.col) == where
    assert words in err.value.message
    assert err.value.exit == Exit.SYNTAX


def test_decode_assignment_reads_order_literals() -> None:
    mapping = {
        "int_vars": [
            {"name": "x", "printed": True, "values": [1, 2, 5], "le": [4, 6, True]},
            {"name": "_h", "printed": False, "values": [7], "le": [True]},
        ],
        "bool_vars": [{"name": "x", "key": "bool x", "printed": True, "lit": -9}],
    }
    values = decode_assignment(mapping, {6})  # x <= 1 false, x <= 2 true; literal 9 false
    assert values == {"x": 2, "_h": 7, "bool x": True}
    assert printed_answer(mapping, values) == [("x", 2), ("x", True)]
    assert decode_assignment(mapping, {4, 6, 9})["x"] == 1
    assert decode_assignment(mapping, set())["x"] == 5


# ---------------------------------------------------------------- commands


def _sugar_answer(out: str) -> dict[str, str]:
    return dict(line[2:].split("\t") for line in out.splitlines() if line.startswith("a "))


def _conformance_cases() -> list:
    cases = []
    for folder in ("features", "quirks"):
        expected = json.loads((CONFORMANCE / folder / "expected.json").read_text())
        for name, info in sorted(expected.items()):
            if info["status"] in ("SATISFIABLE", "UNSATISFIABLE", "OPTIMUM FOUND"):
                cases.append(pytest.param(folder, name, info, id=f"{folder}/{name}"))
    return cases


@pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat binary not installed (apt-get install minisat)")
@pytest.mark.parametrize("folder,name,info", _conformance_cases())
def test_round_trip_through_minisat(
    folder: str, name: str, info: dict, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = tmp_path / name
    shutil.copy(CONFORMANCE / folder / name, source)
    cnf, map_file, result = tmp_path / "p.cnf", tmp_path / "p.map", tmp_path / "p.out"
    status, _, err = run_cli(capsys, "encode", str(source), "-o", str(cnf), "--map", str(map_file))
    assert status == 0, err
    assert cnf.read_text().splitlines()[2].startswith("p cnf ")
    subprocess.run(["minisat", "-verb=0", str(cnf), str(result)], capture_output=True, timeout=60)
    status, out, err = run_cli(capsys, "decode", str(map_file), str(result))
    assert status == 0, err
    assert err == ""  # verified against the unchanged source: no warning
    if folder == "quirks":  # informative: the project may deliberately answer differently from Sugar
        assert out.startswith(("s SATISFIABLE\n", "s UNSATISFIABLE\n"))
        return
    if info["status"] == "UNSATISFIABLE":
        assert out == "s UNSATISFIABLE\n"
        return
    assert out.startswith("s SATISFIABLE\n") and out.endswith("\na\n")
    if info["status"] == "SATISFIABLE" and info.get("unique"):
        expected = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in info["solution"].items()}
        assert _sugar_answer(out) == expected


def test_decode_refuses_what_it_cannot_verify(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A changed or vanished source, a map made from stdin, or a partial model: exit 8 unless --no-verify."""
    source = tmp_path / "m.csp"
    text = "(int x 1 3)\n(bool p)\n(= x 2)\n(or p (> x 5))\n"
    source.write_text(text)
    cnf, map_file = tmp_path / "m.cnf", tmp_path / "m.map"
    assert run_cli(capsys, "encode", str(source), "-o", str(cnf), "--map", str(map_file))[0] == 0
    with Solver(bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model = sat.get_model()
    answer = tmp_path / "m.out"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    status, out, err = run_cli(capsys, "decode", str(map_file), str(answer))
    assert (status, err) == (0, "")
    assert out == "s SATISFIABLE\na x\t2\na p\ttrue\na\n"
    source.write_text("(int x 1 3)\n(bool p)\n(= x 3)\n")
    status, out, err = run_cli(capsys, "decode", str(map_file), str(answer))
    assert (status, out) == (Exit.VERIFY, "") and "not the file that was encoded" in err and "--no-verify" in err
    status, out, err = run_cli(capsys, "decode", "--no-verify", str(map_file), str(answer))
    assert status == 0 and out.startswith("s SATISFIABLE\n") and "warning: " in err
    source.unlink()
    status, out, err = run_cli(capsys, "decode", str(map_file), str(answer))
    assert (status, out) == (Exit.VERIFY, "") and "cannot be read" in err
    moved = tmp_path / "moved.csp"
    moved.write_text(text)
    status, out, err = run_cli(capsys, "decode", "--source", str(moved), str(map_file), str(answer))
    assert (status, err) == (0, "") and out.startswith("s SATISFIABLE\n")
    # a model that leaves out a literal the answer needs (truncated output)
    source.write_text("(int x 1 3)\n(int y 1 3)\n(!= x y)\n")
    assert run_cli(capsys, "encode", str(source), "-o", str(cnf), "--map", str(map_file))[0] == 0
    partial = tmp_path / "partial.out"
    partial.write_text("s SATISFIABLE\nv -1 0\n")
    status, out, err = run_cli(capsys, "decode", str(map_file), str(partial))
    assert (status, out) == (Exit.VERIFY, "") and "gives no value to CNF variable" in err
    # --no-verify reads the missing variables as false and still checks the answer (it said "not verified")
    status, out, err = run_cli(capsys, "decode", "--no-verify", str(map_file), str(partial))
    assert "read as false" in err and "not verified" not in err


def test_encode_from_stdin_records_stdin(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"(int x 1 3)\n(= x 2)\n")))
    cnf, map_file = tmp_path / "s.cnf", tmp_path / "s.map"
    status, _, err = run_cli(capsys, "encode", "-", "-o", str(cnf), "--map", str(map_file))
    assert status == 0, err
    assert json.loads(map_file.read_text())["source"]["path"] == "<stdin>"
    assert "c csp2sat encode <stdin>" in cnf.read_text()
    answer = tmp_path / "s.out"
    with Solver(bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        answer.write_text("SAT\n" + " ".join(map(str, sat.get_model())) + " 0\n")
    status, out, err = run_cli(capsys, "decode", str(map_file), str(answer))
    assert status == Exit.VERIFY and "standard input" in err
    source = tmp_path / "s.csp"
    source.write_text("(int x 1 3)\n(= x 2)\n")
    status, out, err = run_cli(capsys, "decode", "--source", str(source), str(map_file), str(answer))
    assert (status, out) == (0, "s SATISFIABLE\na x\t2\na\n"), err


def test_decode_rejects_a_wrong_answer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "m.csp"
    source.write_text("(int x 1 3)\n(int y 1 3)\n(!= x y)\n")
    cnf, map_file = tmp_path / "m.cnf", tmp_path / "m.map"
    assert run_cli(capsys, "encode", str(source), "-o", str(cnf), "--map", str(map_file))[0] == 0
    answer = tmp_path / "m.out"
    nvars = json.loads(map_file.read_text())["cnf"]["vars"]
    answer.write_text("SAT\n" + " ".join(str(v) for v in range(1, nvars + 1)) + " 0\n")  # all true: x = y = 1
    status, out, err = run_cli(capsys, "decode", str(map_file), str(answer))
    assert status == Exit.VERIFY and out == ""
    assert "fails the check" in err


def test_bad_map_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text("{\n  \"format\": \n")
    out = tmp_path / "o.txt"
    out.write_text("UNSAT\n")
    status, _, err = run_cli(capsys, "decode", str(bad), str(out))
    assert status == Exit.SYNTAX and err.startswith(f"{bad}:3:1: error:")
    status, _, err = run_cli(capsys, "decode", str(tmp_path / "none.map"), str(out))
    assert status == Exit.IO and "cannot read" in err


def test_a_model_beyond_the_maps_cnf_is_another_cnfs_output(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "p.csp"
    source.write_text("(int x 1 3)(int y 1 3)(< x y)\n")
    mapping = tmp_path / "p.map"
    assert run_cli(capsys, "encode", str(source), "-o", str(tmp_path / "p.cnf"), "--map", str(mapping))[0] == 0
    out = tmp_path / "o.txt"
    out.write_text("SAT\n99999999 0\n")
    status, _, err = run_cli(capsys, "decode", str(mapping), str(out))
    assert status == Exit.SYNTAX and "sets variable 99999999, but the CNF of this map has" in err, err


def test_log_encoded_variables_round_trip_through_the_map(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Huge domains are log-encoded; the map stores their bits and decode reads them back (PySAT as the external solver)."""
    source = tmp_path / "big.csp"
    source.write_text("(int x 0 1000000)\n(int y 0 1000000)\n(= (+ (* 3 x) (* 5 y)) 2999999)\n(> y 10)\n")
    cnf, mapping = tmp_path / "big.cnf", tmp_path / "big.map"
    status, _, err = run_cli(capsys, "encode", str(source), "-o", str(cnf), "--map", str(mapping))
    assert status == 0, err
    entries = json.loads(mapping.read_text())["int_vars"]
    assert all("bits" in entry and "values" not in entry for entry in entries)
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        model_line = " ".join(str(lit) for lit in sat.get_model())
    output = tmp_path / "solver.out"
    output.write_text(f"s SATISFIABLE\nv {model_line} 0\n")
    status, out, err = run_cli(capsys, "decode", str(mapping), str(output))
    assert status == 0, err
    answer = {k: int(v) for k, v in _sugar_answer(out).items()}
    assert 3 * answer["x"] + 5 * answer["y"] == 2999999 and answer["y"] > 10


@pytest.mark.parametrize(
    "body",
    [
        "{}",
        '"source": null, "int_vars": [], "bool_vars": []',
        '"source": {"path": "x", "sha256": "y"}, "int_vars": [{"name": "x"}], "bool_vars": []',
        '"source": {"path": "x", "sha256": "y"}, "int_vars": [{"name": "x", "printed": true, "values": [1, 2], '
        '"le": [3]}], "bool_vars": []',
        '"source": {"path": "x", "sha256": "y"}, "int_vars": [], "bool_vars": [{"name": "p"}]',
        '"source": {"path": "x", "sha256": "y"}, "int_vars": [], "bool_vars": 7',
    ] + [
        # a well-formed map with one part broken (the sweep's cases: internal errors before)
        '"source": {"path": "x", "sha256": "y"}, "int_vars": [{"name": "x", "printed": true, "values": [1, 2], '
        '"le": [1, true]}], "bool_vars": [{"name": "p", "key": "p", "printed": true, "lit": 2}]' + extra
        for extra in (
            ', "cnf": {"vars": "a", "clauses": 1}', ', "cnf": {"vars": null, "clauses": 1}', ', "cnf": {"vars": 3.5, "clauses": 1}',
            ', "cnf": "x"', ', "cnf": null', ', "cnf": {"vars": 2, "clauses": 1}, "clause_vars": "x"',
            ', "cnf": {"vars": 2, "clauses": 1}, "clause_vars": 1.5', ', "cnf": {"vars": 2, "clauses": 1}, "clause_vars": -5',
            ', "cnf": {"vars": 2, "clauses": 1}, "clause_vars": 3', ', "cnf": {"vars": 2, "clauses": 1}, "objective": "x"',
            ', "cnf": {"vars": 1, "clauses": 1}',  # literal 2 of p beyond the CNF's variables
        )
    ] + ['"source": {"path": "x", "sha256": "y"}, "cnf": {"vars": 2, "clauses": 1}, "int_vars": [], '
         '"bool_vars": [{"name": "p", "key": "p", "printed": true, "lit": 0}]'],
)
def test_a_malformed_map_is_a_syntax_error(body: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text('{"format": "csp2sat-map", "version": 1' + ("" if body == "{}" else ", " + body) + "}")
    answer = tmp_path / "o.txt"
    answer.write_text("SAT\n1 -2 3 0\n")
    status, out, err = run_cli(capsys, "decode", "--no-verify", str(bad), str(answer))
    assert (status, out) == (Exit.SYNTAX, "") and "not a valid csp2sat map" in err, err


def test_map_of_direct_encoded_variables_decodes_every_answer() -> None:
    # -O int=direct: the map lists "x = v" literals ("eq") instead of order literals.
    import csp2sat
    from csp2sat.compiler import compile_model
    from csp2sat.dimacs import build_map, decode_assignment, unassigned
    from csp2sat.evaluator import satisfies

    text = "(int x 1 5)(int y (1 3 7))(bool b)(!= x 3)(or (= x 2) (= y 7) b)(alldifferent x y)"
    model = csp2sat.parse(text)
    compiled = compile_model(model, options={"int": "direct"})
    mapping = build_map(compiled, model, "t.csp", text)
    assert [("eq" in v) for v in mapping["int_vars"]] == [True, True]
    seen = set()
    with Solver("cadical195", bootstrap_with=list(compiled.clauses())) as sat:
        while sat.solve():
            model_lits = sat.get_model()
            true_vars = {lit for lit in model_lits if lit > 0}
            assert not unassigned(mapping, {abs(lit) for lit in model_lits})
            values = decode_assignment(mapping, true_vars)
            assert values == compiled.decode(model_lits)
            assert satisfies(model, values)
            seen.add((values["x"], values["y"], values["b"]))
            sat.add_clause(compiled.block_clause({"x": values["x"], "y": values["y"], "b": values["b"]}))
    expected = {(x, y, b) for x in range(1, 6) for y in (1, 3, 7) for b in (False, True)
                if x != 3 and (x == 2 or y == 7 or b) and x != y}
    assert seen == expected


@pytest.mark.parametrize("options", [["-O", "int=direct"], ["-O", "large=log", "-O", "alldifferent=pairwise"]])
def test_encode_takes_the_encoding_options_and_decode_reads_them_back(
    options: list[str], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`encode -O` changes the CNF (as `solve -O` does); the map says how, so `decode` needs no option."""
    source = tmp_path / "m.csp"
    source.write_text("(int x 1 6)(int y 1 6)(int z 0 300)(alldifferent x y)(!= x 3)(= (+ x y z) 9)(> z 1)\n")
    sizes = []
    for extra in ([], options):
        cnf, mapping = tmp_path / "m.cnf", tmp_path / "m.map"
        status, _, err = run_cli(capsys, "encode", *extra, str(source), "-o", str(cnf), "--map", str(mapping))
        assert status == 0, err
        clauses = CNF(from_file=str(cnf)).clauses
        sizes.append(len(clauses))
        with Solver(name="cadical195", bootstrap_with=clauses) as sat:
            assert sat.solve()
            (tmp_path / "o.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n")
        status, out, err = run_cli(capsys, "decode", str(mapping), str(tmp_path / "o.txt"))
        assert status == 0 and err == "", err
        a = {k: int(v) for k, v in _sugar_answer(out).items()}
        assert a["x"] != a["y"] and a["x"] != 3 and a["x"] + a["y"] + a["z"] == 9 and a["z"] > 1
    assert sizes[0] != sizes[1]  # the option really reached the compiler


def test_encode_rejects_a_bad_encoding_option(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "m.csp"
    source.write_text("(int x 1 3)\n")
    for bad, words in (("int=bogus", "must be one of"), ("nokey", "KEY=VALUE"), ("foo=bar", "unknown encoding option")):
        status, out, err = run_cli(capsys, "encode", "-O", bad, str(source), "-o", str(tmp_path / "c"), "--map",
                                   str(tmp_path / "m"))
        assert (status, out) == (Exit.USAGE, "") and words in err, err


# ---------------------------------------------------------------- writing DIMACS


class _Clauses:
    """Just what `write_cnf` reads of a compiled problem."""

    def __init__(self, clauses: list[list[int]], num_vars: int) -> None:
        from array import array

        self.num_vars = num_vars
        self.num_clauses = len(clauses)
        self._lits = array("i", [lit for clause in clauses for lit in clause + [0]])

    def literal_array(self):
        return self._lits


@pytest.mark.parametrize("table", [True, False])
@pytest.mark.parametrize("chunk", [5, 7, 1 << 16])
def test_write_cnf_writes_one_line_per_clause_whatever_the_chunks(monkeypatch, table: bool, chunk: int) -> None:
    import io
    import random

    from csp2sat import dimacs

    monkeypatch.setattr(dimacs, "WRITE_CHUNK", chunk)  # chunks that end inside clauses and on their 0s
    if not table:
        monkeypatch.setattr(dimacs, "TEXT_TABLE_VARS", 0)  # every literal formatted on its own
    rng = random.Random(chunk)
    clauses = [[rng.choice([-1, 1]) * rng.randint(1, 120) for _ in range(rng.choice([0, 1, 2, 3, 9]))]
               for _ in range(400)]
    clauses[:0] = [[], [], [1]]  # empty clauses first and back to back
    out = io.StringIO()
    highest = dimacs.write_cnf(_Clauses(clauses, 120), out, ["made by a test"])
    expected = "c made by a test\np cnf 120 403\n" + "".join(" ".join(map(str, c + [0])) + "\n" for c in clauses)
    assert out.getvalue() == expected
    assert highest == max(abs(lit) for clause in clauses for lit in clause)


def test_write_cnf_formats_literals_beyond_the_declared_variables() -> None:
    import io

    from csp2sat import dimacs

    out = io.StringIO()  # a table of -3..3 must not be indexed by 5 (it would wrap round to another literal)
    assert dimacs.write_cnf(_Clauses([[1, -5], [3]], 3), out) == 5
    assert out.getvalue() == "p cnf 3 2\n1 -5 0\n3 0\n"
