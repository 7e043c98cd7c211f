"""The memory limit (csp2sat.memory): the CNF is estimated before it is built, and a run that
would not fit stops with exit status 6 and says why, instead of swapping the machine."""

from __future__ import annotations

from pathlib import Path

import pytest

import csp2sat
from csp2sat import memory
from csp2sat.compiler import compile_model
from csp2sat.encoders.alldifferent import PAIRWISE_LIMIT
from csp2sat.normalise import normalise
from tests.cli_support import run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "conformance" / "sugar-examples"


@pytest.fixture(autouse=True)
def _default_limit():
    yield
    memory.set_limit(None)


def _many_small_sums(n: int) -> str:
    return "".join(f"(int a{i} 0 100)(int b{i} 0 100)(int c{i} 0 100)(or (<= (+ a{i} b{i}) 150) (>= (- c{i} a{i}) 7))\n"
                   for i in range(n))


def test_a_cnf_too_large_for_the_limit_stops_with_exit_6(tmp_path: Path, capsys) -> None:
    path = tmp_path / "big.csp"
    path.write_text(_many_small_sums(3000), encoding="utf-8")
    # The limit counts this process's own memory, which grows as the test session runs.
    limit = f"{memory._rss_mb() + 60:.0f}"
    status, out, err = run_cli(capsys, "solve", "--memory-limit", limit, str(path))
    assert status == 6 and out == ""
    assert "the CNF would have about" in err and "clauses" in err and f"memory limit is {int(limit):,} MB" in err
    assert "line 1:" in err and "-O large=log" in err and "--memory-limit" in err


@pytest.mark.parametrize("command", ["encode", "explain"])
def test_every_compiling_command_takes_the_limit(tmp_path: Path, capsys, command: str) -> None:
    path = tmp_path / "big.csp"
    path.write_text(_many_small_sums(3000), encoding="utf-8")
    extra = ["-o", str(tmp_path / "x.cnf"), "--map", str(tmp_path / "x.map")] if command == "encode" else []
    limit = f"{memory._rss_mb() + 60:.0f}"
    status, _, err = run_cli(capsys, command, "--memory-limit", limit, *extra, str(path))
    assert status == 6, err
    assert f"memory limit is {int(limit):,} MB" in err


def test_puzzle_takes_the_limit(capsys) -> None:
    board = next(p for p in sorted((ROOT / "data" / "shikaku").glob("*.txt")) if "solution" not in p.name)
    status, _, err = run_cli(capsys, "puzzle", "shikaku", str(board), "--memory-limit", "1")
    assert status == 6 and "memory limit is 1 MB" in err
    # the notes name lines of the generated CSP, not of the puzzle file
    assert all(line.startswith(f"{board} (generated CSP): ") for line in err.splitlines() if line), err


def test_a_huge_file_is_refused_before_parsing(tmp_path: Path, capsys) -> None:
    path = tmp_path / "huge.csp"
    path.write_text("(int x 0 100)\n" + "(<= x 50)\n" * 200_000, encoding="utf-8")
    status, _, err = run_cli(capsys, "solve", "--memory-limit", f"{memory._rss_mb() + 5:.0f}", str(path))
    assert status == 6 and "to parse and check" in err


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "lots"])
def test_a_bad_limit_is_a_usage_error(capsys, value: str) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "solve", "--memory-limit", value, str(EXAMPLES / "nqueens-8.csp"))
    assert exc.value.code == 2


def test_within_the_limit_the_answer_is_unchanged(capsys) -> None:
    status, out, _ = run_cli(capsys, "solve", "--memory-limit", "2000", str(EXAMPLES / "nqueens-8.csp"))
    assert status == 0 and out.startswith("s SATISFIABLE")


@pytest.mark.parametrize("name", ["golombRuler-8", "jss-ft10", "knightTour-5", "socialGolfer-3-2-5", "nqueens-200"])
def test_the_estimate_is_an_upper_bound_within_a_small_factor(name: str) -> None:
    model = csp2sat.parse((EXAMPLES / f"{name}.csp").read_text(encoding="utf-8"))
    compiled = compile_model(model)
    normal = normalise(model, cardinality=True)
    is_log = [False] * normal.num_ints
    clauses, _, _ = memory.estimate(normal, is_log, "auto", PAIRWISE_LIMIT)
    assert compiled.num_clauses <= clauses <= 2.5 * compiled.num_clauses


def _latin_square(n: int, values: int) -> str:
    cells = [[f"x{r}_{c}" for c in range(n)] for r in range(n)]
    text = "".join(f"(int {x} 1 {values})\n" for row in cells for x in row)
    text += "".join("(alldifferent " + " ".join(row) + ")\n" for row in cells)
    return text + "".join("(alldifferent " + " ".join(col) + ")\n" for col in zip(*cells))


@pytest.mark.parametrize("values, tip", [(70, True), (60, False)])
def test_the_alldifferent_tip_names_value_wise_only_where_it_is_not_chosen(tmp_path: Path, capsys, values: int,
                                                                            tip: bool) -> None:
    # 60 terms over 70 values: pairwise (123,900 clauses each), 20x the value-wise size; over 60
    # values the rows and columns are permutations compared with nothing, value-wise already.
    path = tmp_path / "latin.csp"
    path.write_text(_latin_square(60, values), encoding="utf-8")
    limit = f"{memory._rss_mb() + 60:.0f}"
    status, _, err = run_cli(capsys, "solve", "--memory-limit", limit, str(path))
    assert status == 6 and "the CNF would have about" in err
    assert ("-O alldifferent=amo" in err) == tip
