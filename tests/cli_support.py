"""Running the `csp2sat` command line inside a test, through its real entry point."""

from __future__ import annotations

import signal
import subprocess

import pytest

from csp2sat.cli import main


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """Run ``csp2sat ARGV...`` and return (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return int(status), captured.out, captured.err


def stop_process(process: subprocess.Popen) -> None:
    """End a server process a test started: SIGTERM, then SIGKILL if it is still there after 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
