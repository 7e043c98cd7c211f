"""`solve --jobs N --scheduler`: the solver portfolio on a Dask cluster gives the local portfolio's verdicts.

A `distributed.LocalCluster` (two worker processes) serves the in-process tests; one test starts a
real `dask scheduler` + `dask worker` on the loopback address and runs the installed command from
another directory. After every race, no racer process may be left on the workers.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import stop_process

distributed = pytest.importorskip("distributed")

from csp2sat.checker import check  # noqa: E402
from csp2sat.commands._common import read_model  # noqa: E402
from csp2sat.compiler import compile_model  # noqa: E402
from csp2sat.dask_portfolio import portfolio_solve_on_dask, run_racer  # noqa: E402
from csp2sat.evaluator import violations  # noqa: E402
from csp2sat.parallel import portfolio_solve  # noqa: E402
from csp2sat.parser import parse_text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "tests" / "conformance"
# SAT, UNSAT and optimisation files of the conformance corpus that solve in well under a second.
FILES = [
    "features/alldiff_pigeonhole_unsat.csp",
    "features/cumulative_overload_unsat.csp",
    "features/element_basic.csp",
    "features/global_cardinality_basic.csp",
    "sugar-examples/nqueens-8.csp",
    "sugar-examples/gcp-myciel3.csp",
    "sugar-examples/knightTour-5.csp",
]


def _expected(relative: str) -> dict:
    folder, name = relative.split("/")
    return json.loads((CONFORMANCE / folder / "expected.json").read_text())[name]


def _racers(client) -> list[str]:
    """Command lines of the racer processes running under any worker."""
    def children() -> list[str]:
        import psutil

        return [" ".join(p.cmdline()) for p in psutil.Process().children(recursive=True)]

    return [cmd for cmds in client.run(children).values() for cmd in cmds if "csp2sat.dask_portfolio" in cmd]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0", memory_limit=0
    ) as local:
        with distributed.Client(local) as client:
            yield local, client


@pytest.mark.parametrize("relative", FILES)
def test_cluster_portfolio_gives_the_local_verdict(cluster, relative: str) -> None:
    local, client = cluster
    model, _ = read_model(str(CONFORMANCE / relative))
    compiled = compile_model(model)
    expected = _expected(relative)
    mine = portfolio_solve(model, compiled, 2)
    seen: list[tuple] = []
    remote = portfolio_solve_on_dask(
        model, compiled, 2, local, first="cadical195", on_answer=lambda values, shown: seen.append(shown)
    )
    assert remote.status == mine.status == expected["status"]
    assert remote.proven and not remote.errors
    assert remote.winner in ("cadical195", "glucose4")
    if expected["objective"] is not None:
        assert remote.objective == mine.objective == expected["objective"]
        improving = [s[0] for s in seen]  # printed in order, each better than the last
        assert improving == sorted(set(improving), reverse=expected["objective_sense"] == "minimize")
        assert improving[-1] == expected["objective"]
    if remote.values is not None:
        assert violations(model, remote.values) == []  # an independent check of the answer received
    assert _racers(client) == []


def test_racers_stop_at_the_time_limit(cluster) -> None:
    local, client = cluster
    model, _ = read_model(str(CONFORMANCE / "sugar-examples" / "jss-ft10.csp"))
    compiled = compile_model(model)
    start = time.monotonic()
    result = portfolio_solve_on_dask(model, compiled, 2, local, first="cadical195", timeout=2.0)
    assert time.monotonic() - start < 2.0 + 8.0  # the time limit, then the stop (at most STOP_WAIT_S)
    assert not result.proven and result.status in ("UNKNOWN", "SATISFIABLE")
    assert _racers(client) == []


def test_a_failing_racer_is_reported_and_the_other_one_answers(cluster) -> None:
    local, client = cluster
    model = check(parse_text("(int x 0 9)\n(int y 0 9)\n(= (+ x y) 12)\n(objective maximize x)\n"))
    compiled = compile_model(model)
    result = portfolio_solve_on_dask(model, compiled, 2, local, first="no-such-solver")
    assert result.status == "OPTIMUM FOUND" and result.objective == 9
    assert all("no-such-solver" in error for error in result.errors)  # unless the proof came first
    alone = portfolio_solve_on_dask(model, compiled, 1, local, first="no-such-solver")
    assert alone.status == "UNKNOWN" and not alone.proven
    assert len(alone.errors) == 1 and "no-such-solver" in alone.errors[0]
    assert _racers(client) == []


def test_a_racer_process_dying_without_a_verdict_fails_its_task(cluster) -> None:
    _, client = cluster
    token = "csp2sat-portfolio-test-dying"
    distributed.Variable(f"{token}-state", client=client).set((False, 1 << 62, 0))
    future = client.submit(run_racer, b"not a pickle", "cadical195", token, pure=False)
    with pytest.raises(RuntimeError, match="without a verdict"):
        future.result(timeout=60)
    distributed.Variable(f"{token}-state", client=client).delete()


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    command = shutil.which("csp2sat", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the csp2sat command is not installed beside this Python")
    return subprocess.run([command, *args], capture_output=True, text=True, cwd="/", timeout=timeout)


def _ending(out: str) -> tuple[str, list[str]]:
    """The status lines and the last objective line of Sugar's output."""
    lines = out.splitlines()
    return " ".join(line for line in lines if line.startswith("s ")), [line for line in lines if line.startswith("o ")][-1:]


@pytest.fixture(scope="module")
def dask_processes(tmp_path_factory):
    """A `dask scheduler` and a `dask worker` (two threads) on the loopback address: yields the address."""
    dask_cmd = shutil.which("dask", path=str(Path(sys.executable).parent))
    if dask_cmd is None:
        pytest.skip("the dask command is not installed beside this Python")
    where = tmp_path_factory.mktemp("dask")
    scheduler_file = where / "scheduler.json"
    log = open(where / "dask.log", "w")
    procs = [subprocess.Popen(
        [dask_cmd, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
         "--scheduler-file", str(scheduler_file)], stdout=log, stderr=log, cwd=where)]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        procs.append(subprocess.Popen(
            [dask_cmd, "worker", address, "--host", "127.0.0.1", "--nthreads", "2", "--nworkers", "1",
             "--dashboard-address", "127.0.0.1:0"], stdout=log, stderr=log, cwd=where))
        yield address, procs[1]
    finally:
        for process in reversed(procs):
            stop_process(process)
        log.close()


def test_installed_command_on_dask_processes_prints_the_local_endings(dask_processes) -> None:
    address, _ = dask_processes
    for relative in ("features/alldiff_pigeonhole_unsat.csp", "sugar-examples/nqueens-8.csp",
                     "sugar-examples/gcp-myciel3.csp"):
        path = str(CONFORMANCE / relative)
        local = _cli("solve", "-j", "2", path)
        remote = _cli("solve", "-j", "2", "--scheduler", address, path)
        assert remote.returncode == local.returncode == 0, remote.stderr
        assert _ending(remote.stdout) == _ending(local.stdout)
        assert _ending(remote.stdout)[0] == "s " + _expected(relative)["status"] or \
            _ending(remote.stdout)[0] == "s SATISFIABLE s " + _expected(relative)["status"]
    unsat = _cli("solve", "-j", "2", "--scheduler", address, str(CONFORMANCE / FILES[0]))
    assert unsat.stdout == "s UNSATISFIABLE\n"
    xcsp3 = str(ROOT / "tests" / "xcsp3" / "instances" / "golomb-6.xml")  # XCSP3 input races too
    for extra in ((), ("-j", "2"), ("-j", "2", "--scheduler", address)):
        done = _cli("solve", "-v", *extra, xcsp3)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[-3:-1] == ["o 17", "s OPTIMUM FOUND"] and 'cost="17"' in lines[-1]


def test_unreachable_scheduler_is_a_usage_error_at_once() -> None:
    path = str(CONFORMANCE / "sugar-examples" / "nqueens-8.csp")
    for extra in ((), ("--count",)):
        start = time.monotonic()
        done = _cli("solve", "-j", "2", *extra, "--scheduler", "tcp://127.0.0.1:9", path)
        assert done.returncode == 2 and "cannot reach the Dask scheduler" in done.stderr
        assert "Traceback" not in done.stderr and time.monotonic() - start < 20


@pytest.mark.slow
def test_sigterm_and_a_dying_worker_on_dask_processes(dask_processes) -> None:
    """A worker killed mid-search: Dask reruns its racer elsewhere and the search goes on; SIGTERM then
    ends it with the best answer so far, as locally."""
    address, _ = dask_processes
    command = shutil.which("csp2sat", path=str(Path(sys.executable).parent))
    import psutil

    solve = subprocess.Popen([command, "solve", "-j", "2", "--scheduler", address,
                              str(CONFORMANCE / "sugar-examples" / "jss-ft10.csp")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
    try:
        first = solve.stdout.readline()
        assert first == "s SATISFIABLE\n"
        racers = [p for p in psutil.process_iter(["cmdline"]) if "csp2sat.dask_portfolio" in " ".join(p.info["cmdline"] or [])]
        assert racers
        racers[0].parent().kill()  # the Dask worker process (its nanny starts a new one)
        deadline = time.monotonic() + 60
        while True:  # the racers run again on the new worker
            time.sleep(0.5)
            again = [p for p in psutil.process_iter(["cmdline"]) if "csp2sat.dask_portfolio" in " ".join(p.info["cmdline"] or [])]
            if len(again) == 2 and all(p.pid not in {r.pid for r in racers} for p in again):
                break
            assert time.monotonic() < deadline, "the racers did not restart"
        solve.send_signal(signal.SIGTERM)
        out, err = solve.communicate(timeout=30)
    finally:
        if solve.poll() is None:
            solve.kill()
    assert solve.returncode == 0, err
    assert out.rstrip().splitlines()[-1].startswith("c stopped before the optimum was proven; best objective ")
    time.sleep(1.0)
    left = [p for p in psutil.process_iter(["cmdline"]) if "csp2sat.dask_portfolio" in " ".join(p.info["cmdline"] or [])]
    assert left == []
