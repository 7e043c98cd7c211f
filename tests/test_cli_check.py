"""Command-line tests of `csp2sat check` and `csp2sat fmt`: summaries, errors, exit statuses."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from csp2sat.cli import main
from csp2sat.diagnostics import Exit

CONFORMANCE = Path(__file__).parent / "conformance"


def test_check_summary(capsys: pytest.CaptureFixture) -> None:
    path = CONFORMANCE / "sugar-examples" / "nqueens-8.csp"
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: ok: 8 int, 0 bool, ") and "largest domain 8 (q_1)" in out


def test_check_error_status_and_position(capsys: pytest.CaptureFixture) -> None:
    path = CONFORMANCE / "errors" / "unsupported_pow.csp"
    ok = CONFORMANCE / "features" / "term_abs.csp"
    assert main(["check", str(ok), str(path)]) == Exit.UNSUPPORTED
    captured = capsys.readouterr()
    assert f"{path}:3:4: error:" in captured.err and "pow" in captured.err
    assert "Traceback" not in captured.err


def test_check_refuses_the_domains_solve_refuses(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A domain over the most any encoding takes (2^32 + 1 values) failed `solve` (exit 6) but passed `check`."""
    big, edge = tmp_path / "big.csp", tmp_path / "edge.csp"
    big.write_text("(int y 0 1)\n(int x 1 99999999999999999999999999)\n")
    edge.write_text("(int x 0 4294967296)\n(= x 5)\n")
    assert main(["check", str(edge), str(big)]) == Exit.LIMIT
    captured = capsys.readouterr()
    assert f"{big}:2:1: error: domain of 'x' has 99999999999999999999999999 values; at most 4294967297" in captured.err
    assert f"{edge}: ok:" in captured.out
    assert main(["solve", str(big)]) == Exit.LIMIT


def test_check_warnings_go_to_stderr(capsys: pytest.CaptureFixture) -> None:
    assert main(["check", str(CONFORMANCE / "quirks" / "decimal_number.csp")]) == 0
    captured = capsys.readouterr()
    assert "warning" in captured.err and "2.7" in captured.err and ": ok:" in captured.out


def test_check_stdin_and_unreadable(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("(int x 1 3)\n(= x (+ 1 1)\n"))
    assert main(["check", "-"]) == Exit.SYNTAX
    assert "<stdin>:2:" in capsys.readouterr().err
    assert main(["check", "/nonexistent/file.csp"]) == Exit.IO
    assert "cannot read" in capsys.readouterr().err


def test_fmt_modes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "m.csp"
    path.write_text("(int x 0 9) ; c\n(&&   (= x 1))\n", encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 1
    assert main(["fmt", str(path)]) == 0
    assert capsys.readouterr().out == "(int x 0 9) ; c\n(and (= x 1))\n"
    assert main(["fmt", "-i", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == "(int x 0 9) ; c\n(and (= x 1))\n"
    assert main(["fmt", "--check", str(path)]) == 0
    path.write_text("(int x", encoding="utf-8")
    assert main(["fmt", "-i", str(path)]) == Exit.SYNTAX
    assert path.read_text(encoding="utf-8") == "(int x"
