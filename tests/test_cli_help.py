"""--help texts: they teach without the repository (an installed copy has no data/, docs/, tests/),
use the same option names everywhere, and stay in step with what the code accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from csp2sat.cli import COMMAND_MODULES, build_parser
from tests.cli_support import run_cli

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [name.rsplit(".", 1)[1] for name in COMMAND_MODULES]
# Folders and files of the repository that a wheel does not install.
REPOSITORY_ONLY = sorted(
    p.name for p in ROOT.iterdir() if not p.name.startswith(".") and p.name not in ("csp2sat", "encoders", "generators")
)


def _help(capsys: pytest.CaptureFixture, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        run_cli(capsys, *argv, "--help")
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_names_no_file_of_the_repository(command: str, capsys: pytest.CaptureFixture) -> None:
    text = _help(capsys, *([command] if command else []))
    assert "data" in REPOSITORY_ONLY and "docs" in REPOSITORY_ONLY  # the list is what we think it is
    for name in REPOSITORY_ONLY:
        found = re.search(rf"(?<![\w./-]){re.escape(name)}(/|\b)", text) if "." in name else re.search(
            rf"(?<![\w.-]){re.escape(name)}/", text
        )
        assert found is None, f"csp2sat {command} --help points at {name}, which an installed copy lacks"
    assert not re.search(r"\b[\w-]+\.md\b", text), "a help text points at a Markdown file"


def test_every_solver_option_is_spelled_the_same(capsys: pytest.CaptureFixture) -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices  # noqa: SLF001
    with_solver = []
    for name, sub in subparsers.items():
        for action in sub._actions:  # noqa: SLF001
            if action.dest == "solver":
                assert action.option_strings == ["--solver"] and action.metavar == "NAME", name
                with_solver.append(name)
            if action.dest == "output" and action.option_strings:
                assert action.option_strings == ["-o", "--output"], name
            if action.dest == "verify":
                assert action.option_strings == ["--no-verify"], name
    assert {"solve", "explain", "puzzle"} <= set(with_solver)


def test_encoding_options_in_help_match_the_compiler(capsys: pytest.CaptureFixture) -> None:
    from csp2sat.compiler import OPTION_CHOICES

    text = " ".join(_help(capsys, "solve").split())
    for key, values in OPTION_CHOICES.items():
        found = re.search(rf"\b{key}=([\w|]+)", text)
        assert found and set(found.group(1).split("|")) == set(values), key


def test_puzzle_formats_in_help_cover_every_genre(capsys: pytest.CaptureFixture) -> None:
    from csp2sat.commands._puzzles import ANSWER_FORMAT, GENRE_NAMES, PUZZLE_FORMATS

    for genre in GENRE_NAMES:
        assert re.search(rf"^  {genre}\b", PUZZLE_FORMATS, re.M), genre
        assert genre in ANSWER_FORMAT, genre
    for command in ("gen", "draw", "puzzle"):
        assert PUZZLE_FORMATS in _help(capsys, command).replace("\n\n", "\n\n")


def test_typical_use_shows_the_puzzle_commands_too(capsys: pytest.CaptureFixture) -> None:
    text = _help(capsys)
    typical = text[text.index("typical use:") :]
    for command in ("solve", "check", "fmt", "puzzle", "gen"):
        assert f"csp2sat {command} " in typical, command
    for status in range(10):
        if status not in (0,):
            assert f"{status} " in typical[typical.index("exit status") :]
