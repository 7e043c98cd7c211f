"""`csp2sat batch` on Dask: the same records from the local pool, a `distributed.LocalCluster` and a
`dask scheduler` + `dask worker` pair started as processes, equal to solving each file directly;
time-outs, memory limits, crashes and hangs recorded while the batch goes on; --resume.

Sizes are kept small so that the module runs in well under a minute on two shared cores; the
whole of data/ (every puzzle, every genre) runs in the `slow` group.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import csp2sat  # noqa: E402
from cli_support import run_cli, stop_process  # noqa: E402
from csp2sat import batch  # noqa: E402
from csp2sat.diagnostics import CspError  # noqa: E402
from csp2sat.sandbox import run_isolated  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
CONFORMANCE = Path(__file__).resolve().parent / "conformance"
VOLATILE = ("times", "peak_mb", "wall_s")


def _cells(path: Path) -> int:
    match = re.search(r"_(\d+)x(\d+)", path.stem)
    return int(match.group(1)) * int(match.group(2)) if match else 10**6


# The small boards of every genre but pentomino (whose boxes take ~0.5 s each; the whole of
# data/ runs in the slow test).
SMALL_PUZZLES = sorted(
    p for p in DATA.glob("*/*.txt")
    if p.name not in batch.NOT_PUZZLES and not p.name.endswith(".solution.txt") and _cells(p) <= 49
)
CONFORMANCE_DIRS = [CONFORMANCE / "features", CONFORMANCE / "errors", CONFORMANCE / "quirks"]


def stable(rec: dict) -> dict:
    """A record without its timings and memory (which differ from run to run)."""
    return {k: v for k, v in rec.items() if k not in VOLATILE}


def by_file(text: str) -> dict[str, dict]:
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    table = {rec["file"]: stable(rec) for rec in records}
    assert len(table) == len(records), "a task was recorded twice"
    return table


def direct(path: str) -> dict:
    """What solving the file directly (no batch, no Dask) gives, in the record's terms."""
    p = Path(path)
    if p.suffix == ".csp":
        try:
            result = csp2sat.solve(csp2sat.parse(path))
        except CspError as err:
            return {"status": "error", "exit": int(err.exit), "error": str(err)}
        return {"status": result.status, "objective": result.objective, "answer": result.values}
    from csp2sat.generators.base import genre
    from csp2sat.generators.run import solve_puzzle

    g = genre(p.parent.name)
    puzzle = g.read(p.read_text(encoding="utf-8"))
    run = solve_puzzle(g, puzzle, file=path)
    return {"status": "SATISFIABLE" if run.solution is not None else "UNSATISFIABLE",
            "answer": g.render(puzzle, run.solution, "answer") if run.solution is not None else None}


def check_against_direct(records: dict[str, dict]) -> None:
    for file, rec in records.items():
        want = direct(file)
        got = {k: rec[k] for k in want}
        assert got == want, file


def _expected_status() -> dict[str, str]:
    """File -> status recorded from Sugar 2.3.3 (features, errors) as an independent cross-check."""
    table = {}
    for folder in ("features", "errors"):
        data = json.loads((CONFORMANCE / folder / "expected.json").read_text(encoding="utf-8"))
        for name, rec in data.items():
            table[os.path.normpath(CONFORMANCE / folder / name)] = "error" if rec["status"] == "ERROR" else rec["status"]
    return table


@pytest.fixture(scope="module")
def local_records(tmp_path_factory) -> dict[str, dict]:
    """The batch of every conformance file and the small puzzles, on the default local pool."""
    out = tmp_path_factory.mktemp("local") / "results.jsonl"
    status = _main_status("batch", *map(str, CONFORMANCE_DIRS), *map(str, SMALL_PUZZLES),
                          "--jobs", "2", "-o", str(out), "-q")
    assert status == 1  # the errors/ folder: bad input recorded as status "error"
    return by_file(out.read_text(encoding="utf-8"))


def _main_status(*argv: str) -> int:
    from csp2sat.cli import main

    return int(main(list(argv)))


def test_collect_walks_folders_and_names_genres() -> None:
    tasks, skipped = batch.collect([str(DATA / "hashi"), str(CONFORMANCE / "sugar-examples" / "nqueens-8.csp")])
    kinds = {(t.kind, t.genre) for t in tasks}
    assert kinds == {("puzzle", "hashi"), ("csp", None)}
    names = {Path(t.file).name for t in tasks}
    assert "sugar_hashiwokakero-0_7x7.txt" in names and "nqueens-8.csp" in names
    assert not any(n.endswith(".solution.txt") or n == "sources.txt" for n in names)
    assert any(s.endswith("sources.txt") for s in skipped) and any(s.endswith("index.tsv") for s in skipped)
    forced, _ = batch.collect([str(DATA / "hashi")], genre="slitherlink")
    assert {t.genre for t in forced} == {"slitherlink"}
    with pytest.raises(batch.CollectError, match="not a .csp file"):
        batch.collect([str(ROOT / "README.md")])
    with pytest.raises(batch.CollectError, match="no such file"):
        batch.collect([str(ROOT / "no-such-dir")])


def test_local_pool_equals_direct_solving(local_records: dict[str, dict]) -> None:
    expected = _expected_status()
    assert len(local_records) == sum(1 for d in CONFORMANCE_DIRS for _ in d.glob("*.csp")) + len(SMALL_PUZZLES)
    for file, rec in local_records.items():
        if file in expected:
            assert rec["status"] == expected[file], file
        if rec["kind"] == "puzzle":
            assert rec["status"] == "SATISFIABLE" and rec["cnf"]["clauses"] is not None, file
    check_against_direct(local_records)


def test_local_cluster_gives_the_same_records(local_records: dict[str, dict], tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                      worker_dashboard_address="127.0.0.1:0") as cluster:
        out = tmp_path / "cluster.jsonl"
        status = _main_status("batch", *map(str, CONFORMANCE_DIRS), *map(str, SMALL_PUZZLES),
                              "--scheduler", cluster.scheduler_address, "-o", str(out), "-q")
    assert status == 1
    assert by_file(out.read_text(encoding="utf-8")) == local_records


def _wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear within {seconds} s")
        time.sleep(0.1)


def test_dask_scheduler_and_worker_processes(local_records: dict[str, dict], tmp_path: Path) -> None:
    """The README's recipe: `dask scheduler`, `dask worker`, then the installed command from another directory."""
    bin_dir = Path(sys.executable).parent
    dask_cmd = shutil.which("dask", path=str(bin_dir)) or shutil.which("dask")
    command = shutil.which("csp2sat", path=str(bin_dir))
    if dask_cmd is None or command is None:
        pytest.skip("the dask and csp2sat commands are not installed beside this Python")
    scheduler_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen] = []
    log = open(tmp_path / "dask.log", "w")
    try:
        procs.append(subprocess.Popen(
            [dask_cmd, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
             "--scheduler-file", str(scheduler_file)], stdout=log, stderr=log, cwd=tmp_path))
        _wait_for(scheduler_file, 60)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(subprocess.Popen(
            [dask_cmd, "worker", address, "--host", "127.0.0.1", "--nthreads", "2", "--nworkers", "1",
             "--dashboard-address", "127.0.0.1:0"], stdout=log, stderr=log, cwd=tmp_path))
        files = [str(p) for p in SMALL_PUZZLES[::3]] + [str(p) for p in sorted((CONFORMANCE / "features").glob("*.csp"))[::6]]
        files += [str(CONFORMANCE / "errors" / "syntax_missing_paren.csp")]
        done = subprocess.run([command, "batch", *files, "--scheduler", address, "-o", "remote.jsonl"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
    finally:
        for process in reversed(procs):
            stop_process(process)
        log.close()
    assert done.returncode == 1, done.stderr  # the syntax error is recorded as a failed task
    assert "total" in done.stderr and "error" in done.stderr
    remote = by_file((tmp_path / "remote.jsonl").read_text(encoding="utf-8"))
    assert remote == {f: local_records[os.path.normpath(f)] for f in files}


def test_unreachable_scheduler_is_a_usage_error(capsys: pytest.CaptureFixture) -> None:
    status, _, err = run_cli(capsys, "batch", str(CONFORMANCE / "features" / "cmp_eq.csp"),
                             "--scheduler", "tcp://127.0.0.1:9", "-q")
    assert status == 2 and "cannot reach the Dask scheduler" in err


@pytest.mark.parametrize("address", ["garbage", "tcp://", "tcp://localhost:abc", "foo://x:1", "tcp://[::1",
                                     "tcp://localhost:99999", "inproc://x"])
def test_a_malformed_scheduler_address_is_a_usage_error(address: str, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("distributed")
    queens = str(CONFORMANCE / "sugar-examples" / "nqueens-8.csp")
    for argv in (["batch", queens, "-q"], ["solve", "-j", "2", queens], ["solve", "--count", "-j", "2", queens]):
        status, _, err = run_cli(capsys, *argv, "--scheduler", address)
        assert status == 2 and "not a Dask scheduler address" in err, (argv, err)


_GARBAGE_CLIENT_THEN_POOL = """
import gc, sys
from distributed import Client
from csp2sat.batch import PoolError, open_pool

try:
    Client("garbage", timeout=5)  # fails half-built, its loop running: garbage that closes itself when collected
except ValueError:
    pass
if sys.argv[1] == "through-open-pool":
    try:
        open_pool(scheduler="garbage")
    except PoolError:
        pass
    print(sum(type(o).__name__ == "Client" for o in gc.get_objects()))  # none of open_pool's own left
from distributed.utils import LoopRunner

started = LoopRunner._start_unlocked


def start_with_a_collection(self):  # the automatic collector may run anywhere, e.g. here, under Dask's lock
    if gc.isenabled():
        gc.collect()
    started(self)


LoopRunner._start_unlocked = start_with_a_collection
open_pool(jobs=1).close()
print("closed")
"""


@pytest.mark.parametrize("how", ["after-a-raw-client", "through-open-pool"])
def test_garbage_clients_do_not_hang_the_next_pool(how: str) -> None:
    """A failed Dask client collected inside the next pool's start used to deadlock (a CI run hung)."""
    pytest.importorskip("distributed")
    try:
        done = subprocess.run([sys.executable, "-c", _GARBAGE_CLIENT_THEN_POOL, how], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the pool hung while a garbage client closed itself")
    assert done.returncode == 0 and done.stdout.split()[-1] == "closed", done.stderr[-2000:]
    if how == "through-open-pool":
        assert done.stdout.split()[0] == "0", done.stdout  # open_pool collected its own failure and the raw client


def test_resume_skips_lines_that_are_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "r.jsonl"
    out.write_bytes(b"garbage\n\x00\xff\n")
    status, _, err = run_cli(capsys, "batch", str(CONFORMANCE / "features" / "cmp_eq.csp"), "-o", str(out), "--resume")
    assert status == 0 and "2 line(s) are not records" in err
    records, bad = batch.read_results(str(out))
    assert bad == 2 and len(records) == 1


def test_timeout_memory_and_errors_are_recorded_and_the_batch_goes_on(tmp_path: Path) -> None:
    hang = tmp_path / "many.csp"  # 10^12 solutions: compiled at once, counted forever
    hang.write_text("".join(f"(int x{i} 0 9)\n" for i in range(12)))
    good = CONFORMANCE / "features" / "alldiff_args.csp"
    bad = CONFORMANCE / "errors" / "syntax_missing_paren.csp"
    out = tmp_path / "r.jsonl"
    started = time.monotonic()
    status = _main_status("batch", str(hang), str(good), str(bad), str(DATA / "pentomino" / "box_5x12.txt"),
                          "--mode", "count", "--timeout", "1.5", "-o", str(out), "-q")
    assert time.monotonic() - started < 40
    assert status == 1
    recs = {Path(r["file"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert recs["many.csp"]["status"] == "timeout" and "--timeout 1.5 s" in recs["many.csp"]["error"]
    assert recs["many.csp"]["count"] > 0  # the count so far, a lower bound
    assert recs["box_5x12.txt"]["status"] == "timeout"
    assert recs["alldiff_args.csp"]["status"] == "SATISFIABLE" and recs["alldiff_args.csp"]["count"] == 1
    assert recs["syntax_missing_paren.csp"]["status"] == "error" and recs["syntax_missing_paren.csp"]["exit"] == 3
    assert recs["syntax_missing_paren.csp"]["error"].startswith(f"{bad}:3:")

    out2 = tmp_path / "m.jsonl"
    # ~220 MB above start-up to compile and solve (702,863 clauses). The limit counts from the sandbox's address
    # space, and heap the sandbox has mapped but freed is reused by the task without counting, so the limit is
    # well below the need (nqueens-200, ~140 MB when this test was written, now needs under 60 MB one-hot)
    big = CONFORMANCE / "sugar-examples" / "jss-ft10.csp"
    status = _main_status("batch", str(big), str(good), "--memory-limit", "60", "-o", str(out2), "-q")
    assert status == 1
    recs = {Path(r["file"]).name: r for r in map(json.loads, out2.read_text().splitlines())}
    assert recs["jss-ft10.csp"]["status"] == "memory", recs["jss-ft10.csp"]["error"]
    assert "--memory-limit 60 MB" in recs["jss-ft10.csp"]["error"]
    assert recs["alldiff_args.csp"]["status"] == "SATISFIABLE"


# Functions the sandbox runs in the crash and hang tests (imported there by module name).
PROBES = '''
import os, signal, sys, time
def crash(arg): os.abort()
def ignore_sigint(arg):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    time.sleep(arg)
    return "finished"
def answer(arg): return {"twice": 2 * arg}
def leave(arg): os._exit(3)
def starve(arg):
    print("cannot allocate memory for thread-local data: ABORT", file=sys.stderr, flush=True)
    os._exit(127)
'''


def test_sandbox_contains_crashes_and_solvers_that_ignore_the_deadline(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "batch_probes.py").write_text(PROBES)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    preload = ("batch_probes",)  # a sandbox of its own, started with this PYTHONPATH
    crashed = run_isolated("batch_probes:crash", None, preload=preload)
    assert crashed["failure"] == "crash" and "SIGABRT" in crashed["error"]
    left = run_isolated("batch_probes:leave", None, preload=preload)
    assert left["failure"] == "crash" and "status 3" in left["error"]
    started = time.monotonic()
    stuck = run_isolated("batch_probes:ignore_sigint", 60, timeout=0.5, preload=preload)
    assert stuck["failure"] == "timeout" and "killed" in stuck["error"]
    assert time.monotonic() - started < 0.5 + 2 * 2.0 + 5  # deadline + grace, with room for a busy machine
    fine = run_isolated("batch_probes:answer", 21, preload=preload)  # the same sandbox serves on
    assert fine["ok"] and fine["value"] == {"twice": 42} and fine["peak_mb"] > 0
    # under a memory limit a silent abort is most likely a failed allocation in C code, and is recorded so
    guessed = run_isolated("batch_probes:crash", None, memory_mb=4000, preload=preload)
    assert guessed["failure"] == "memory" and "probably" in guessed["error"] and "SIGABRT" in guessed["error"]
    starved = run_isolated("batch_probes:starve", None, memory_mb=4000, preload=preload)  # glibc's loader, seen in CI
    assert starved["failure"] == "memory" and "thread-local" in starved["error"]


def test_an_exception_in_a_task_is_an_internal_error_record() -> None:
    rec = batch.execute(batch.Task("no-such-kind", "x.csp", text=""), batch.Settings())
    assert rec["status"] == "error" and rec["exit"] == 9
    assert rec["error"].startswith("internal error: KeyError") and "Traceback" in rec["error"]


def test_sandbox_ends_its_task_when_the_batch_goes_away(tmp_path: Path) -> None:
    """A sandbox whose parent disappears mid-task (its request pipe closes) kills the task and exits."""
    (tmp_path / "batch_probes.py").write_text(PROBES)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    sandbox = subprocess.Popen([sys.executable, "-m", "csp2sat.sandbox", "batch_probes"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=env, start_new_session=True)
    try:
        request = {"call": "batch_probes:ignore_sigint", "arg": 120, "timeout": None, "memory_mb": None}
        sandbox.stdin.write((json.dumps(request) + "\n").encode())
        sandbox.stdin.flush()
        time.sleep(1.0)
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(sandbox.pid)], capture_output=True, text=True)
        child_pids = [int(p) for p in children.stdout.split()]
        assert len(child_pids) == 1
        sandbox.stdin.close()
        assert sandbox.wait(timeout=10) == 0
        with pytest.raises(ProcessLookupError):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                os.kill(child_pids[0], 0)
                time.sleep(0.05)
    finally:
        if sandbox.poll() is None:
            sandbox.kill()
            sandbox.wait()


def test_resume_runs_only_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    files = [str(p) for p in sorted((CONFORMANCE / "features").glob("cmp_*.csp"))]
    assert len(files) >= 6
    out = tmp_path / "r.jsonl"
    assert run_cli(capsys, "batch", *files[:4], "-o", str(out), "-q")[0] == 0
    lines = out.read_text().splitlines()
    # Lose one record and leave a line cut short, as a Ctrl-C or a full disk would.
    out.write_text("\n".join(lines[:3]) + "\n" + lines[3][:25])
    status, _, err = run_cli(capsys, "batch", *files, "-o", str(out), "--resume")
    assert status == 0
    assert f"{len(files)} tasks, 3 already in {out}; running {len(files) - 3}" in err
    assert "1 line(s) are not records" in err
    records, bad = batch.read_results(str(out))
    assert bad == 1 and sorted(r["file"] for r in records) == sorted(files)
    status, _, err = run_cli(capsys, "batch", *files, "-o", str(out), "--resume")
    assert status == 0 and f"running 0" in err
    status, _, err = run_cli(capsys, "batch", files[0], "--resume")
    assert status == 2 and "--resume needs the results file" in err


def test_modes_on_puzzles_and_csp(tmp_path: Path) -> None:
    multi = DATA / "nurikabe" / "cspuz_6x6_multi.txt"
    unique = DATA / "slitherlink" / "pzprjs_5x5.txt"
    queens = CONFORMANCE / "sugar-examples" / "nqueens-8.csp"
    opt = CONFORMANCE / "features" / "objective_minimize.csp"
    results = {}
    for mode in ("unique", "facts", "count"):
        out = tmp_path / f"{mode}.jsonl"
        files = [multi, unique, opt] + ([queens] if mode != "facts" else [])
        assert _main_status("batch", *map(str, files), "--mode", mode, "-o", str(out), "-q") == 0
        results[mode] = {Path(r["file"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert results["unique"]["cspuz_6x6_multi.txt"]["unique"] is False
    assert results["unique"]["pzprjs_5x5.txt"]["unique"] is True
    assert results["unique"]["nqueens-8.csp"]["unique"] is False
    assert results["count"]["nqueens-8.csp"]["count"] == 92
    assert results["count"]["pzprjs_5x5.txt"]["count"] == 1
    assert results["count"]["cspuz_6x6_multi.txt"]["count"] >= 2
    assert results["count"]["cspuz_6x6_multi.txt"]["classes"] is None  # Nurikabe counts every solution
    assert results["count"]["nqueens-8.csp"]["classes"] is None
    facts = results["facts"]["cspuz_6x6_multi.txt"]["facts"]
    assert None in facts.values() and any(v is not None for v in facts.values())
    assert None not in results["facts"]["pzprjs_5x5.txt"]["facts"].values()
    for mode in ("unique", "facts", "count"):
        assert results[mode]["objective_minimize.csp"]["status"] == "OPTIMUM FOUND"


def test_genre_and_solver_options(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    board = tmp_path / "boards" / "b1.txt"  # a folder that names no genre
    board.parent.mkdir()
    shutil.copy(DATA / "slitherlink" / "pzprjs_5x5.txt", board)
    status, _, err = run_cli(capsys, "batch", str(board.parent))
    assert status == 0 and "0 tasks (1 other file skipped); running 0" in err  # not a puzzle of a known genre
    out = tmp_path / "r.jsonl"
    status, _, _ = run_cli(capsys, "batch", str(board.parent), "--genre", "slitherlink", "--solver", "glucose4",
                           "-o", str(out), "-q")
    rec = json.loads(out.read_text())
    assert status == 0 and rec["genre"] == "slitherlink" and rec["status"] == "SATISFIABLE"
    assert rec["answer"] == direct(str(DATA / "slitherlink" / "pzprjs_5x5.txt"))["answer"]  # unique board
    status, _, err = run_cli(capsys, "batch", str(board), "-q")
    assert status == 2 and "--genre" in err
    status, _, err = run_cli(capsys, "batch", str(board), "--genre", "nosuchgenre", "-q")
    assert status == 2 and "unknown genre" in err
    with pytest.raises(SystemExit) as stop:  # the same --solver option as solve's: an argparse usage error
        run_cli(capsys, "batch", str(board), "--genre", "slitherlink", "--solver", "nosuch", "-q")
    assert stop.value.code == 2 and "unknown SAT solver 'nosuch'" in capsys.readouterr().err


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal (a pseudo-terminal here) the bar shows done, failed, timed out, rate and ETA."""
    import pty

    command = shutil.which("csp2sat", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the csp2sat command is not installed beside this Python")
    files = [str(CONFORMANCE / "features" / "cmp_eq.csp"), str(CONFORMANCE / "errors" / "syntax_missing_paren.csp")]
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child becomes the command
        os.chdir(tmp_path)
        os.execv(command, [command, "batch", *files, "-o", "r.jsonl"])
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        output += data
    _, status = os.waitpid(pid, 0)
    text = output.decode(errors="replace")
    assert os.WEXITSTATUS(status) == 1
    for word in ("2/2", "failed 1", "timed out 0", "tasks/s", "ETA"):
        assert word in text, text


@pytest.mark.slow
def test_every_puzzle_in_data_on_a_local_cluster(tmp_path: Path) -> None:
    from distributed import LocalCluster

    out = tmp_path / "all.jsonl"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                      worker_dashboard_address="127.0.0.1:0") as cluster:
        assert _main_status("batch", str(DATA), "--scheduler", cluster.scheduler_address, "-o", str(out), "-q") == 0
    records = by_file(out.read_text(encoding="utf-8"))
    assert len(records) == len(batch.collect([str(DATA)])[0])
    check_against_direct(records)


def test_url_lists_make_a_task_per_url(tmp_path: Path) -> None:
    urls = tmp_path / "boards.txt"
    urls.write_text("# two boards and two bad URLs\nhttps://puzz.link/p?slither/4/4/dgdh2c7b\n\n"
                    "http://pzv.jp/p.html?bridges/5/5/4g2i3h23k3g1g3g4g3zz\n"
                    "https://puzz.link/p?slither/4/x/dg\nhttps://puzz.link/p?tapa/4/4/g\nnot a url\n", encoding="utf-8")
    for where in (urls, tmp_path):  # named, or found in a folder: a mistyped line does not lose the list's good URLs
        tasks, _ = batch.collect([str(where)])
        assert [(t.kind, t.item, t.genre) for t in tasks] == [
            ("url", 2, "slitherlink"), ("url", 4, "hashiwokakero"), ("url", 5, None), ("url", 6, None), ("url", 7, None)]
    out = tmp_path / "r.jsonl"
    assert _main_status("batch", str(urls), "--mode", "unique", "-o", str(out), "-q") == 1  # three bad URLs
    records = {r["item"]: r for r in map(json.loads, out.read_text().splitlines())}
    slither = (DATA / "slitherlink" / "cspuz_4x4.solution.txt").read_text(encoding="utf-8")
    assert records[2]["unique"] is True and records[2]["answer"].split() == slither.split()
    assert records[4]["status"] == "SATISFIABLE" and records[4]["unique"] is True
    # characters after the last cell are ignored, as pzprjs ignores them, and the record says so
    assert records[2]["warnings"] is None and "'zz' from position 19 is ignored" in records[4]["warnings"][0]
    assert records[5]["status"] == "error" and "height (rows) 'x'" in records[5]["error"]
    assert records[6]["status"] == "error" and "'tapa' is not a genre" in records[6]["error"]
    assert records[7]["status"] == "error" and "'not a url' is not a puzz.link URL" in records[7]["error"]


def test_an_error_in_a_decoded_board_is_not_positioned_in_the_list(tmp_path: Path) -> None:
    urls = tmp_path / "boards.txt"
    urls.write_text("https://puzz.link/p?hashikake/2/1/9\nhttps://puzz.link/p?sudoku/4/4/11k23k3g\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    assert _main_status("batch", str(urls), "-o", str(out), "-q") == 1
    bad, unsolvable = sorted(map(json.loads, out.read_text().splitlines()), key=lambda rec: rec["item"])
    # the list's line 1, then the quoted board line: not "boards.txt:1:1:1:", a column of a line of the list
    assert bad["error"] == f"{urls}:1: error: clue 9 is impossible here (it must be 1..8) (line 1, column 1 of the " \
        "board the URL decodes to: '9.')"
    # the same for a well-formed board without solution (a 1 given twice in a row), recorded UNSATISFIABLE
    assert unsolvable["status"] == "UNSATISFIABLE" and unsolvable["warnings"] == [
        f"{urls}:2: the puzzle has no solution: 1 is given twice in row 0 (line 1, column 3 of the board the URL "
        "decodes to: '1 1 - -')"]


def test_paths_may_follow_options(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`batch a --mode count b c`: argparse alone stopped the paths at the first option ("unrecognized arguments")."""
    files = [str(p) for p in sorted((CONFORMANCE / "features").glob("cmp_*.csp"))[:3]]
    out = tmp_path / "r.jsonl"
    status, _, err = run_cli(capsys, "batch", files[0], "--mode", "count", *files[1:], "-q", "-o", str(out))
    assert status == 0, err
    records, _ = batch.read_results(str(out))
    assert sorted(r["file"] for r in records) == sorted(files)
    assert all(r["mode"] == "count" and r["count"] is not None for r in records)
    with pytest.raises(SystemExit) as usage:
        run_cli(capsys, "batch", files[0], "--mode", "count", "--no-such-option", files[1])
    assert usage.value.code == 2 and "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        run_cli(capsys, "solve", files[0], "-v", files[1])  # one file only: still refused
    assert usage.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_count_mode_records_the_classes_of_a_symmetric_box(tmp_path):
    """A pentomino box is counted by classes of packings up to its symmetries; the record says how many."""
    out = tmp_path / "count.jsonl"
    box = DATA / "pentomino" / "box_3x20.txt"
    assert _main_status("batch", str(box), "--mode", "count", "-o", str(out), "-q") == 0
    (record,) = map(json.loads, out.read_text().splitlines())
    assert (record["count"], record["classes"]) == (8, 2)


def test_a_puzzle_file_that_is_not_utf8_is_reported_at_its_byte(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """batch said Python's codec message; every other command says FILE:LINE:COL and the byte."""
    board = tmp_path / "akari" / "g.txt"
    board.parent.mkdir()
    board.write_bytes(b"\xc4A..\n....\n")
    out = tmp_path / "r.jsonl"
    status, _, _ = run_cli(capsys, "batch", str(tmp_path / "akari"), "-j", "1", "-q", "-o", str(out))
    records, _ = batch.read_results(str(out))
    (rec,) = records
    assert status != 0 and rec["exit"] == 7
    assert rec["error"] == f"{board}:1:1: error: not UTF-8 text: byte 1 of the file is 0xc4"


def test_batch_names_the_module_it_misses(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """Dask installed without rich was reported as 'Dask ... is not installed'."""
    monkeypatch.setitem(sys.modules, "rich", None)  # import rich -> ImportError(name='rich')
    status, _, err = run_cli(capsys, "batch", str(CONFORMANCE / "features" / "cmp_eq.csp"), "-q")
    assert status == 5 and "rich is not installed" in err and "pip install 'csp2sat[dask]'" in err


def test_a_board_its_reader_finds_unsolvable_is_recorded_unsatisfiable(capsys: pytest.CaptureFixture,
                                                                       tmp_path: Path) -> None:
    """Well-formed but without solution (an island that sees no other): UNSATISFIABLE with the reason, not an error;
    from a file and from a URL list alike."""
    (tmp_path / "hashi").mkdir()
    (tmp_path / "hashi" / "one.txt").write_text("4\n")
    (tmp_path / "urls.txt").write_text("https://puzz.link/p?hashi/1/1/4\n")
    out = tmp_path / "out.jsonl"
    status, _, _ = run_cli(capsys, "batch", str(tmp_path / "hashi"), str(tmp_path / "urls.txt"), "--jobs", "1", "-q",
                           "-o", str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert status == 0 and len(records) == 2
    for record in records:
        assert record["status"] == "UNSATISFIABLE" and record["error"] is None
        assert "the puzzle has no solution: island 4 is impossible" in record["warnings"][-1]
