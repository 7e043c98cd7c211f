"""Running the `csp2sat` command line inside a test, through its real entry point."""

from __future__ import annotations

import pytest

from csp2sat.cli import main


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """Run ``csp2sat ARGV...`` and return (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return int(status), captured.out, captured.err
