"""Every subcommand on odd inputs and odd outputs: a message and a documented exit status, never a traceback.

Odd inputs: an empty file, a directory, binary bytes, text that is not UTF-8, a
byte-order mark, a missing file, standard input. Odd outputs: a full disk
(/dev/full) and a pipe closed early, both I/O errors (exit 7). The commands run
as a user runs them, in a separate process (``python -m csp2sat``), so the
interpreter's own handling of stdout at exit is tested too.
"""

from __future__ import annotations

import io
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from csp2sat.diagnostics import Exit
from tests.cli_support import run_cli

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "data" / "slitherlink" / "cspuz_4x4.txt"
QUEENS = ROOT / "tests" / "conformance" / "sugar-examples" / "nqueens-8.csp"
DOCUMENTED = {0, 1, 2, 3, 4, 5, 6, 7, 8}  # 9 is an internal error


def run_module(*argv: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m csp2sat ARGV`` in its own process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "csp2sat", *argv], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120
    )


@pytest.fixture(scope="module")
def odd_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("odd")
    files = {
        "empty": b"",
        "binary": bytes(range(256)) * 8,
        "latin1": "(int x 1 3) ; caf\u00e9\n".encode("latin-1"),
        "bom": b"\xef\xbb\xbf(int x 1 3)\n(= x 2)\n",
        "long_line": b"(int x 0 9) " + b"(= x 1) " * 5_000 + b"\n",
        "nul": b"(int x\x00 1 3)\n",
    }
    paths = {}
    for name, data in files.items():
        paths[name] = d / f"{name}.csp"
        paths[name].write_bytes(data)
    paths["directory"] = d / "adir"
    paths["directory"].mkdir()
    paths["missing"] = d / "missing.csp"
    return paths


def _commands(f: str, tmp: Path) -> list[list[str]]:
    return [
        ["solve", f],
        ["solve", "--count", f],
        ["check", f],
        ["fmt", f],
        ["explain", f],
        ["encode", f, "-o", str(tmp / "o.cnf"), "--map", str(tmp / "o.map")],
        ["decode", f, f],
        ["gen", "slitherlink", f],
        ["draw", "slitherlink", f, f],
        ["draw", "slitherlink", str(BOARD), f],
        ["puzzle", "slitherlink", f],
    ]


@pytest.mark.parametrize("kind", ["empty", "binary", "latin1", "bom", "long_line", "nul", "directory", "missing"])
def test_odd_files_get_a_message_never_a_traceback(
    kind: str, odd_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    for argv in _commands(str(odd_files[kind]), tmp_path):
        status, _, err = run_cli(capsys, *argv)
        assert status in DOCUMENTED, (argv, status, err)
        assert "Traceback" not in err and "internal error" not in err, (argv, err)
        if status not in (0, 1):
            assert "error: " in err, (argv, err)


@pytest.mark.parametrize("kind", ["empty", "binary", "latin1", "bom"])
def test_odd_standard_input_gets_a_message_never_a_traceback(
    kind: str, odd_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    data = odd_files[kind].read_bytes()
    for argv in _commands("-", tmp_path):
        if argv[0] == "decode":
            argv = ["decode", str(odd_files["empty"]), "-"]
        if argv[0] == "draw":
            argv = ["draw", "slitherlink", str(BOARD), "-"]
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        status, _, err = run_cli(capsys, *argv)
        assert status in DOCUMENTED and "Traceback" not in err, (argv, status, err)
        assert "-:" not in err and not err.startswith("-"), (argv, err)  # stdin is named <stdin>


def test_not_utf8_is_reported_at_its_position_one_based(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.csp"
    bad.write_bytes(b"(int x 1 3)\n(int \xe9 1 3)\n")
    for argv in (["check", str(bad)], ["solve", str(bad)], ["fmt", str(bad)], ["gen", "slitherlink", str(bad)]):
        status, _, err = run_cli(capsys, *argv)
        assert status == Exit.IO
        # byte 18 of the file (1-based), on line 2 at column 6
        assert err.startswith(f"{bad}:2:6: error: not UTF-8 text: byte 18 of the file is 0xe9"), err


def test_stdin_is_read_as_utf8_and_named_stdin(capsys: pytest.CaptureFixture, monkeypatch) -> None:
    for argv in (["solve", "-"], ["check", "-"], ["fmt", "-"], ["gen", "slitherlink", "-"]):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xff\n"), errors="surrogateescape"))
        status, _, err = run_cli(capsys, *argv)
        assert status == Exit.IO and err.startswith("<stdin>:1:1: error: not UTF-8 text: byte 1"), (argv, err)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"(int x 1 3)\n(= y 1)\n")))
    status, _, err = run_cli(capsys, "solve", "-")
    assert status == Exit.SEMANTIC and err.startswith("<stdin>:2:"), err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1 Z\n")))
    status, _, err = run_cli(capsys, "gen", "slitherlink", "-")
    assert status != 0 and err.startswith("<stdin>:"), err


def test_byte_order_mark_is_ignored(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch) -> None:
    source = tmp_path / "bom.csp"
    source.write_bytes(b"\xef\xbb\xbf(int x 1 3)\n(= x 2)\n")
    assert run_cli(capsys, "solve", str(source)) == (0, "s SATISFIABLE\na x\t2\na\n", "")
    status, out, _ = run_cli(capsys, "check", str(source))
    assert status == 0 and "1 int" in out
    status, out, _ = run_cli(capsys, "fmt", str(source))
    assert (status, out) == (0, "(int x 1 3)\n(= x 2)\n")
    source.write_bytes(b"\xef\xbb\xbf(int x 1 3)\n(= y 2)\n")
    status, _, err = run_cli(capsys, "check", str(source))
    assert status == Exit.SEMANTIC and err.startswith(f"{source}:2:4: error:"), err  # positions unshifted
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf(int x 1 3)\n")))
    assert run_cli(capsys, "check", "-")[0] == 0
    board = tmp_path / "board.txt"
    board.write_bytes(b"\xef\xbb\xbf" + BOARD.read_bytes())
    assert run_cli(capsys, "gen", "slitherlink", str(board))[0] == 0
    from csp2sat import parse

    assert list(parse("\ufeff(int x 1 3)").int_vars) == ["x"]


# ------------------------------------------------------------ output that cannot be written


@pytest.fixture(scope="module")
def board_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A solution log of BOARD, for `draw`."""
    d = tmp_path_factory.mktemp("log")
    assert run_module("gen", "slitherlink", str(BOARD), "-o", str(d / "b.csp")).returncode == 0
    (d / "b.log").write_bytes(run_module("solve", str(d / "b.csp")).stdout)
    return d / "b.log"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [
        ["solve", str(QUEENS)],
        ["solve", "--all", str(QUEENS)],
        ["solve", "--count", str(QUEENS)],
        ["solve", "--unique", str(QUEENS)],
        ["solve", "--facts", str(QUEENS)],
        ["check", str(QUEENS)],
        ["fmt", str(QUEENS)],
        ["explain", str(QUEENS)],
        ["encode", str(QUEENS), "-o", "-", "--map", "MAP"],
        ["encode", str(QUEENS), "-o", "/dev/full", "--map", "MAP"],
        ["encode", str(QUEENS), "-o", "CNF", "--map", "/dev/full"],
        ["gen", "slitherlink", str(BOARD)],
        ["gen", "slitherlink", str(BOARD), "-o", "/dev/full"],
        ["puzzle", "slitherlink", str(BOARD)],
        ["puzzle", "slitherlink", str(BOARD), "-o", "/dev/full"],
        ["draw", "slitherlink", str(BOARD), "LOG"],
        ["draw", "slitherlink", str(BOARD), "LOG", "-o", "/dev/full"],
        ["batch", "-q", str(QUEENS), "-o", "/dev/full"],
        ["convert", str(ROOT / "tests" / "xcsp3" / "instances" / "queens-40.xml"), "-o", "/dev/full"],
        ["--help"],
        ["solve", "--help"],
    ],
    ids=lambda argv: " ".join(a if "/" not in a or a == "/dev/full" else Path(a).name for a in argv),
)
def test_a_full_disk_is_an_io_error(argv: list[str], tmp_path: Path, board_log: Path) -> None:
    argv = [{"MAP": str(tmp_path / "m"), "CNF": str(tmp_path / "c"), "LOG": str(board_log)}.get(a, a) for a in argv]
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "csp2sat", *argv], stdout=full, stderr=subprocess.PIPE, timeout=120,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
    err = proc.stderr.decode()
    assert proc.returncode == Exit.IO, err
    assert "No space left on device" in err and "Traceback" not in err and "internal" not in err, err
    if "-o" in argv and argv[argv.index("-o") + 1] == "/dev/full":
        assert err.startswith("/dev/full: error: cannot write file"), err  # the file named, not "standard output"


def _closed(fd: int):  # type: ignore[no-untyped-def]
    return lambda: os.close(fd)


@pytest.mark.parametrize("argv", [["solve", str(QUEENS)], ["check", str(QUEENS)], ["fmt", str(QUEENS)],
                                  ["puzzle", "slitherlink", str(BOARD)], ["batch", "-q", str(QUEENS)], ["--help"]],
                         ids=lambda argv: argv[0])
def test_a_closed_standard_output_is_an_io_error(argv: list[str]) -> None:
    """Started with stdout closed (`csp2sat solve f.csp >&-`), where Python has no sys.stdout: exit 7 with a
    message, not an internal error."""
    proc = subprocess.run([sys.executable, "-m", "csp2sat", *argv], stderr=subprocess.PIPE, preexec_fn=_closed(1),
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    err = proc.stderr.decode()
    assert proc.returncode == Exit.IO, err
    assert "cannot write the output (standard output): closed when csp2sat started" in err, err
    assert "internal" not in err and "Traceback" not in err, err


def test_a_closed_standard_input_or_error_stream() -> None:
    """No stdin: reading '-' is an I/O error at <stdin>; no stderr: the answer is still written, exit 0."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "csp2sat", "solve", "-"], capture_output=True,
                          preexec_fn=_closed(0), timeout=120, env=env)
    assert proc.returncode == Exit.IO and b"<stdin>: error: cannot read file: closed when" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "csp2sat", "solve", str(QUEENS)], stdout=subprocess.PIPE,
                          preexec_fn=_closed(2), timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith(b"s SATISFIABLE\n")


def test_xcsp3_from_standard_input(tmp_path: Path) -> None:
    """`convert -` reads XCSP3 from stdin, plain or compressed, as the file; `solve -` reads Sugar and says where
    XCSP3 goes when it meets XML; `explain -` calls stdin <stdin> throughout."""
    import gzip
    import lzma

    xml = (ROOT / "tests" / "xcsp3" / "instances" / "queens-40.xml").read_bytes()
    by_name = run_module("convert", str(ROOT / "tests" / "xcsp3" / "instances" / "queens-40.xml")).stdout
    for data in (xml, gzip.compress(xml), lzma.compress(xml)):
        proc = run_module("convert", "-", stdin=data)
        assert proc.returncode == 0 and proc.stdout.replace(b"<stdin>", b"X").split(b"\n")[1:] == by_name.split(b"\n")[1:]
        assert proc.stdout.startswith(b"; converted by csp2sat from <stdin>")
    proc = run_module("solve", "-", stdin=xml)
    assert proc.returncode == Exit.SYNTAX and b"note: this looks like XML" in proc.stderr
    out = run_module("explain", "-", stdin=b"(int x 1 3)\n(> x 3)\n").stdout.decode()
    assert out.startswith("c <stdin>: unsatisfiable") and "<stdin>:2: (> x 3)" in out


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_decode_and_fmt_in_place_report_a_full_disk(tmp_path: Path) -> None:
    source = tmp_path / "q.csp"
    source.write_text("(int x 1 3)\n(int y 1 3)\n(!= x y)\n")
    assert run_module("encode", str(source), "-o", str(tmp_path / "q.cnf"), "--map", str(tmp_path / "q.map")).returncode == 0
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(bootstrap_with=CNF(from_file=str(tmp_path / "q.cnf")).clauses) as sat:
        sat.solve()
        (tmp_path / "q.out").write_text("SAT\n" + " ".join(map(str, sat.get_model())) + " 0\n")
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "csp2sat", "decode", str(tmp_path / "q.map"), str(tmp_path / "q.out")],
            stdout=full, stderr=subprocess.PIPE, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
    assert proc.returncode == Exit.IO and b"No space left" in proc.stderr


def test_a_pipe_closed_early_is_an_io_error(tmp_path: Path) -> None:
    """`csp2sat solve --all FILE | head -1`: the rest cannot be written; say so, exit 7, no traceback."""
    many = tmp_path / "many.csp"
    many.write_text("(int x 1 1000)\n(int y 1 1000)\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "csp2sat", "solve", "--all", str(many)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"s SATISFIABLE\n"
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == Exit.IO, err
    assert "broken pipe" in err and "Traceback" not in err and "Exception ignored" not in err, err


@pytest.mark.parametrize("folder", ["tests", pytest.param("csp", marks=pytest.mark.slow)])
def test_every_csp_file_of_the_repository_checks_and_formats(folder: str, capsys: pytest.CaptureFixture) -> None:
    """No .csp file in tests/ (or csp/, the generated files, under -m slow) makes check or fmt fail internally."""
    csp_files = sorted(str(p) for p in (ROOT / folder).rglob("*.csp"))
    for argv in (["check", "-q", *csp_files], ["fmt", "--check", *csp_files]):
        status, _, err = run_cli(capsys, *argv)
        assert status in DOCUMENTED and "Traceback" not in err and "internal error" not in err, err[-2000:]


def test_every_puzzle_of_the_repository_generates(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Every puzzle in data/ goes through its generator."""
    puzzles = [
        p for p in sorted((ROOT / "data").glob("*/*.txt"))
        if not p.name.endswith(".solution.txt") and p.name not in ("sources.txt", "pieces.txt", "counts.txt")
    ]
    assert len(puzzles) > 50
    for puzzle in puzzles:
        status, _, err = run_cli(capsys, "gen", puzzle.parent.name, str(puzzle), "-o", str(tmp_path / "p.csp"))
        assert status == 0, (puzzle, err)


# ------------------------------------------------------------ the nesting limit


def _nested(depth: int) -> dict[str, str]:
    """Files whose deepest '(' is at `depth`, in several constructs the later stages recurse through."""
    formula = "p"
    for _ in range(depth):
        formula = f"(not {formula})"
    term = "x"
    for i in range(depth - 1):
        term = f"(+ {term} 1)" if i % 3 == 0 else f"(if p {term} 0)" if i % 3 == 1 else f"(abs {term})"
    logic = "p"
    for i in range(depth):
        logic = f"(or q {logic})" if i % 2 else f"(and {logic} true)"
    body = "x"
    for _ in range(depth - 2):
        body = f"(abs {body})"
    call = "(pr x)"
    for _ in range(depth - 1):
        call = f"(and {call} true)"
    head = "(int x 0 3)\n(bool p)\n(bool q)\n"
    return {
        "not": head + formula + "\n",
        "term": head + f"(>= {term} 0)\n",
        "logic": head + logic + "\n",
        # expanded, the call puts the body's depth on top of the call's
        "predicate": head + f"(predicate (pr y) (>= {body} 0))\n{call}\n",
    }


@pytest.mark.parametrize("construct", ["not", "term", "logic", "predicate"])
def test_every_stage_works_at_the_nesting_limit_and_stops_past_it(
    construct: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from csp2sat.parser import MAX_NESTING

    source = tmp_path / "deep.csp"
    for depth in (MAX_NESTING, MAX_NESTING + 1):
        last = _nested(depth)[construct].splitlines()[-1]
        assert max(last[:i].count("(") - last[:i].count(")") for i in range(len(last) + 1)) == depth
    source.write_text(_nested(MAX_NESTING)[construct])
    for argv in (["check"], ["solve"], ["solve", "--count"], ["fmt"], ["explain"],
                 ["encode", "-o", str(tmp_path / "c"), "--map", str(tmp_path / "m")]):
        status, _, err = run_cli(capsys, *argv, str(source))
        assert status == 0, (argv, err)
    text = _nested(MAX_NESTING + 1)[construct]
    source.write_text(text)
    line = text.count("\n", 0, text.index("\n(", text.index("(bool q)")) + 1) + 1
    for argv in (["check"], ["solve"], ["fmt"], ["fmt", "--check"], ["explain"]):
        status, _, err = run_cli(capsys, *argv, str(source))
        assert status == Exit.LIMIT, (argv, err)
        assert re.match(rf"{re.escape(str(source))}:{line}:\d+: error: nesting too deep: .*at most {MAX_NESTING} deep",
                        err), (argv, err)


# ------------------------------------------------------------ fmt


def test_fmt_does_not_run_several_files_together(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    a, b = tmp_path / "a.csp", tmp_path / "b.csp"
    a.write_text("(int  x 0 9)\n")
    b.write_text("(int  y 0 9)\n")
    status, out, err = run_cli(capsys, "fmt", str(a), str(b))
    assert (status, out) == (Exit.USAGE, "") and "-i" in err and "--check" in err
    assert run_cli(capsys, "fmt", "--check", str(a), str(b))[0] == 1
    assert run_cli(capsys, "fmt", "-i", str(a), str(b))[0] == 0
    assert (a.read_text(), b.read_text()) == ("(int x 0 9)\n", "(int y 0 9)\n")


def test_fmt_never_silently_rewrites_a_token_sugar_reads_oddly(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "odd.csp"
    text = "(int x 0 9)\n(= x 2.7)\n"
    source.write_text(text)
    for argv in (["fmt"], ["fmt", "-i"], ["fmt", "--check"]):
        status, out, err = run_cli(capsys, *argv, str(source))
        assert (status, out) == (Exit.SYNTAX, ""), argv
        assert f"{source}:2:6: warning: '2.7' is not an integer: read as 2" in err and "not formatted" in err
        assert source.read_text() == text


def test_fmt_in_place_on_a_full_disk_is_an_io_error(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch) -> None:
    import builtins
    import errno

    source = tmp_path / "a.csp"
    source.write_text("(int  x 0 9)\n")
    real_open = builtins.open

    def full_disk_open(file, mode="r", *args, **kwargs):
        if "w" in mode:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", full_disk_open)
    status, _, err = run_cli(capsys, "fmt", "-i", str(source))
    assert status == Exit.IO and err.startswith(f"{source}: error: cannot write file: No space left on device"), err


def test_an_unreadable_file_is_an_io_error(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch) -> None:
    """(Permissions do not stop root, so the refusal is simulated where files are opened.)"""
    import builtins
    import errno

    locked = tmp_path / "locked.csp"
    locked.write_text("(int x 1 3)\n")
    real_open = builtins.open

    def guarded_open(file, mode="r", *args, **kwargs):
        if str(file) == str(locked):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    for argv in _commands(str(locked), tmp_path):
        status, _, err = run_cli(capsys, *argv)
        assert status == Exit.IO and "Permission denied" in err, (argv, err)


@pytest.mark.parametrize("command", ["fmt", "gen"])
def test_a_pipe_closed_in_the_middle_of_a_large_output_is_an_io_error(command: str, tmp_path: Path) -> None:
    """`csp2sat fmt big.csp | head -c 10`: CPython's writer dropped the rest of one large write silently (exit 0)."""
    if command == "fmt":
        source = tmp_path / "big.csp"
        source.write_text("".join(f"(int x{i} 1 9)\n" for i in range(25_000)))  # about 400 KB formatted
        argv = ["fmt", str(source)]
    else:
        board = tmp_path / "board.txt"
        board.write_text("\n".join(".2.3" * 8 for _ in range(30)) + "\n")  # a 32x30 Slitherlink board, ~300 KB of CSP
        argv = ["gen", "slitherlink", str(board)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "csp2sat", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == Exit.IO, err
    assert "broken pipe" in err and "Traceback" not in err, err


@pytest.mark.parametrize("argv, message", [
    (["encode", "IN", "-o", "IN", "--map", "M"], "the output IN is also the input IN"),
    (["encode", "IN", "-o", "X", "--map", "X"], "the output X is also the other output X"),
    (["encode", "-", "-o", "-", "--map", "-"], "only one output can go to standard output"),
    (["batch", "IN", "-q", "-o", "IN"], "the output IN is also the input IN"),
    (["gen", "slitherlink", "BOARD", "-o", "BOARD"], "the output BOARD is also the input BOARD"),
    (["puzzle", "slitherlink", "BOARD", "-o", "LINK"], "the output LINK is also the input BOARD"),
    (["url", "slitherlink", "BOARD", "-o", "BOARD"], "the output BOARD is also the input BOARD"),
    (["draw", "slitherlink", "BOARD", "LOG", "-o", "LOG"], "the output LOG is also the input LOG"),
    (["convert", "XML", "-o", "XML"], "the output XML is also the input XML"),
    (["check", "-", "-"], "standard input (-) can be read only once"),
    (["decode", "-", "-"], "standard input (-) can be read only once"),
])
def test_an_output_never_overwrites_an_input_or_another_output(argv: list[str], message: str, tmp_path: Path,
                                                              board_log: Path) -> None:
    """A usage error before anything is written (`encode q.csp -o q.csp` replaced the source, exit 0)."""
    names = {"IN": tmp_path / "q.csp", "BOARD": tmp_path / "b.txt", "LOG": tmp_path / "b.log", "X": tmp_path / "x",
             "M": tmp_path / "m", "LINK": tmp_path / "link.txt", "XML": tmp_path / "q.xml"}
    names["IN"].write_bytes(QUEENS.read_bytes())
    names["BOARD"].write_bytes(BOARD.read_bytes())
    names["LOG"].write_bytes(board_log.read_bytes())
    names["XML"].write_bytes((ROOT / "tests" / "xcsp3" / "instances" / "queens-40.xml").read_bytes())
    names["LINK"].symlink_to(names["BOARD"])
    before = {p: p.read_bytes() for p in names.values() if p.exists()}
    proc = run_module(*[str(names[a]) if a in names else a for a in argv], stdin=QUEENS.read_bytes())
    err = proc.stderr.decode()
    for short, path in names.items():
        err = err.replace(str(path), short)
    assert proc.returncode == Exit.USAGE and message in err, err
    assert {p: p.read_bytes() for p in names.values() if p.exists()} == before and not names["M"].exists()


def test_decode_reads_its_map_from_standard_input(tmp_path: Path) -> None:
    cnf, mapping, answer = tmp_path / "q.cnf", tmp_path / "q.map", tmp_path / "q.out"
    assert run_module("encode", str(QUEENS), "-o", str(cnf), "--map", str(mapping)).returncode == 0
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver("cadical195", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n")
    by_name = run_module("decode", str(mapping), str(answer))
    from_stdin = run_module("decode", "-", str(answer), stdin=mapping.read_bytes())
    assert by_name.returncode == from_stdin.returncode == 0 and from_stdin.stdout == by_name.stdout


def test_the_default_memory_limit_respects_an_address_space_limit(tmp_path: Path) -> None:
    """Under `ulimit -v` the default limit is what that leaves, not what the machine has: the SAT solver's own
    allocations failed inside C++ (exit 127 or an abort, no message) where a refusal up front is exit 6."""
    import resource

    n = 320
    path = tmp_path / "ad.csp"
    path.write_text("".join(f"(int x{i} 1 {n})\n" for i in range(n)) + "(alldifferent " + " ".join(f"x{i}" for i in range(n))
                    + ")\n" + "".join(f"(!= (abs (- x{i} x{i + 1})) 1)\n" for i in range(n - 1)))  # ~3.3 GB

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2500 << 20, 2500 << 20))

    done = subprocess.run([sys.executable, "-m", "csp2sat", "solve", "-O", "alldifferent=pairwise", "--solver", "cadical195",
                           str(path)], capture_output=True, text=True, timeout=120, preexec_fn=limit,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == Exit.LIMIT and "address-space limit" in done.stderr, done.stderr[-500:]


@pytest.mark.parametrize("command", ["check", "solve", "fmt"])
def test_a_number_too_long_to_read_is_a_limit_at_its_place(command: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    # Python converts at most 4,300 digits: the ValueError was an internal error (exit 9)
    path = tmp_path / "long.csp"
    path.write_text("(int x 0 5) ; " + "7" * 5000 + "\n(< x " + "9" * 5000 + ")\n", encoding="utf-8")
    status, _, err = run_cli(capsys, command, str(path))
    assert status == 6 and f"{path}:2:6: error: number of 5,000 digits" in err, err


@pytest.mark.parametrize("genre, text", [("starbattle", "stars {n}\n0 0\n0 0\n"), ("shikaku", "size {n} 2\n- 2\n")])
def test_a_puzzle_number_too_long_to_read_is_an_error(genre: str, text: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "long.txt"
    path.write_text(text.format(n="9" * 5000), encoding="utf-8")
    status, _, err = run_cli(capsys, "puzzle", genre, str(path))
    assert status == 3 and f"{path}:1:1: error:" in err and "internal" not in err, err


@pytest.mark.parametrize("argv, status", [
    (["solve", "NOFILE"], Exit.IO),  # the message about the missing file cannot be written either
    (["solve", "-v", str(QUEENS)], Exit.IO),  # the answer is out, the stage times are lost
    (["check", "NOFILE"], Exit.IO),
    (["puzzle", "slitherlink", "NOFILE"], Exit.IO),
], ids=lambda value: " ".join(Path(a).name for a in value) if isinstance(value, list) else str(value))
def test_a_full_disk_on_standard_error_is_an_io_error(argv: list[str], status: int, tmp_path: Path) -> None:
    # stderr on a full disk: the report of the error failed too, and the process ended with exit 1
    argv = [str(tmp_path / "missing.csp") if a == "NOFILE" else a for a in argv]
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "csp2sat", *argv], stdout=subprocess.DEVNULL, stderr=full,
                              timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == status


def test_lone_carriage_returns_end_lines(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # old Mac line ends: every message was on line 1 (cr.csp:1:30 for line 3)
    path = tmp_path / "cr.csp"
    path.write_bytes(b"(int x 1 3)\r(int y 1 3)\r(= x z)\r")
    status, _, err = run_cli(capsys, "check", str(path))
    assert status == Exit.SEMANTIC and f"{path}:3:6: error: undefined integer variable 'z'" in err, err
