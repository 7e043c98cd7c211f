"""Tests of csp2sat.parallel: cube-split counts and answers equal the sequential ones; the portfolio's verdicts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from csp2sat.checker import check
from csp2sat.compiler import compile_model
from csp2sat.enumerate import open_space
from csp2sat.parallel import parallel_count, parallel_enumerate, portfolio_solve
from csp2sat.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent

# 5*5*3 assignments, hidden _h: answers are (x, y) pairs with x <= y + _h for some _h (projected once each).
HIDDEN = "(int x 1 5)\n(int y 1 5)\n(int _h 0 2)\n(<= x (+ y _h))\n(bool p)\n(iff p (< x y))\n"


def _compiled(text: str):
    model = check(parse_text(text))
    return model, compile_model(model)


def _sequential(text: str) -> list[tuple]:
    model, compiled = _compiled(text)
    with open_space(compiled, model) as space:
        return [tuple(a.values()) for a in space.solutions()]


def test_parallel_answers_equal_sequential_answers_without_duplicates() -> None:
    model, compiled = _compiled(HIDDEN)
    expected = _sequential(HIDDEN)
    # Brute force: x <= y + 2 over 1..5 x 1..5.
    assert len(expected) == len({(x, y) for x in range(1, 6) for y in range(1, 6) if x <= y + 2}) == 22
    # A tiny budget makes every task hand its leftover cubes back: the redistribution path is exercised.
    found = [
        tuple(a.values())
        for batch in parallel_enumerate(compiled, model, 2, budget=0.0)
        for a in batch
    ]
    assert len(found) == len(set(found)) == 22
    assert set(found) == set(expected)
    assert parallel_count(compiled, model, 2, budget=0.0) == 22
    limited = [a for batch in parallel_enumerate(compiled, model, 2, limit=5, budget=0.0) for a in batch]
    assert len(limited) == 5


@pytest.mark.slow
def test_parallel_count_of_a_pentomino_box_equals_the_sequential_count() -> None:
    model, compiled = _compiled((ROOT / "csp" / "pentomino" / "box_3x20.csp").read_text())
    assert parallel_count(compiled, model, 2, budget=0.5) == 8


def test_parallel_enumeration_ranges_over_optimal_answers_only() -> None:
    text = "(int x 0 3)\n(int y 0 3)\n(>= (+ x y) 2)\n(objective minimize x)\n"
    model, compiled = _compiled(text)
    found = {tuple(a.values()) for batch in parallel_enumerate(compiled, model, 2, budget=0.0) for a in batch}
    assert found == {(0, 2), (0, 3)}


def test_unsatisfiable_problem_has_no_answers_in_parallel() -> None:
    model, compiled = _compiled("(int x 1 3)\n(> x 3)\n")
    assert parallel_count(compiled, model, 2) == 0


def test_dask_local_cluster_gives_the_local_count() -> None:
    distributed = pytest.importorskip("distributed")
    model, compiled = _compiled(HIDDEN)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        answers = [a for batch in parallel_enumerate(compiled, model, 2, scheduler=cluster, budget=0.0) for a in batch]
    assert len(answers) == len({tuple(a.values()) for a in answers}) == 22


@pytest.mark.parametrize(
    "text,status,objective",
    [
        ("(int x 1 3)\n(> x 3)\n", "UNSATISFIABLE", None),
        ("(int x 1 3)\n(> x 2)\n", "SATISFIABLE", None),
        ("(int x 0 40)\n(int y 0 40)\n(>= (+ x (* 2 y)) 37)\n(int s 0 80)\n(= s (+ x y))\n(objective minimize s)\n", "OPTIMUM FOUND", 19),
        ("(int x 0 40)\n(int y 0 40)\n(<= (+ x (* 2 y)) 37)\n(int s 0 80)\n(= s (+ x y))\n(objective maximize s)\n", "OPTIMUM FOUND", 37),
    ],
)
def test_portfolio_verdicts(text: str, status: str, objective: int | None) -> None:
    model, compiled = _compiled(text)
    seen = []
    result = portfolio_solve(model, compiled, 2, on_answer=lambda values, shown: seen.append(shown))
    assert result.status == status
    assert result.winner in ("cadical195", "glucose4")
    if objective is not None:
        assert result.objective == objective
        improving = [s[0] for s in seen]
        assert improving == sorted(improving, reverse=model.objective.sense == "minimize")
        assert len(improving) == len(set(improving))
    if status == "SATISFIABLE":
        assert result.values["x"] == 3


@pytest.mark.parametrize("sense, bound, optimum", [("minimize", "(>= (+ x y) 70)", 61), ("maximize", "(<= (+ x y) 22)", 13)])
def test_portfolio_starts_from_the_objectives_best_values_as_plain_solving(sense: str, bound: str, optimum: int) -> None:
    """`solve -j N` compiles as plain solving does (`compile_for_search`): with ``shrink=on`` the first CNF holds
    only the best quarter of the objective's values, which has no answer here; every racer re-encodes for the
    rest and the ranks they share (over the declared domain, holes included) still order the answers."""
    from csp2sat.solver import compile_for_search

    text = f"(int x (0 3 5 (7 99)))\n(int y 0 9)\n(>= y 9)\n{bound}\n(<= x 61)\n(!= x 60)\n(>= x 13)\n(objective {sense} x)\n"
    model = check(parse_text(text))
    compiled = compile_for_search(model, {"shrink": "on"})
    assert compiled.objective_window is not None and optimum not in compiled.domain_values("x")
    seen: list[int] = []
    result = portfolio_solve(model, compiled, 2, on_answer=lambda values, shown: seen.append(shown[0]))
    assert (result.status, result.objective) == ("OPTIMUM FOUND", optimum) and seen[-1] == optimum


def test_objective_ranks_count_the_declared_values_better_than_it() -> None:
    from csp2sat.parallel import objective_rank

    for sense in ("minimize", "maximize"):
        model = check(parse_text(f"(int x (-5 (-2 1) 4 (9 12)))\n(objective {sense} x)\n"))
        values = sorted(model.int_vars["x"].domain.values(), reverse=sense == "maximize")
        assert [objective_rank(model)(v) for v in values] == list(range(len(values)))


def _cli(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("csp2sat")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd="/", timeout=300)


def test_cli_propagate_enumeration(tmp_path: Path) -> None:
    """The installed command with -O enumerate=propagate: --count, --all and -n as with the default, -j 2 too,
    and a --timeout that stops it prints s UNKNOWN with the partial count."""
    path = tmp_path / "hidden.csp"
    path.write_text(HIDDEN)
    option = ["-O", "enumerate=propagate"]
    assert _cli("solve", "--count", *option, str(path)).stdout == "c SOLUTIONS 22\n"
    assert _cli("solve", "--count", "-j", "2", *option, str(path)).stdout == "c SOLUTIONS 22\n"

    def answers(out: str) -> list[str]:
        assert out.startswith("s SATISFIABLE\n")
        return out[len("s SATISFIABLE\n"):].split("a\n")[:-1]  # each answer's lines end with a lone "a"

    mine = answers(_cli("solve", "--all", *option, str(path)).stdout)
    assert len(mine) == len(set(mine)) == 22 and set(mine) == set(answers(_cli("solve", "--all", str(path)).stdout))
    assert _cli("solve", "-n", "3", *option, str(path)).stdout.count("a\n") == 3
    loose = tmp_path / "loose.csp"
    loose.write_text("".join(f"(int x{i} 0 9)\n" for i in range(7)) + "(alldifferent x0 x1 x2 x3 x4 x5)\n")
    out = _cli("solve", "--count", "--timeout", "1", *option, str(loose)).stdout
    assert out.startswith("s UNKNOWN\nc SOLUTIONS AT LEAST ") and int(out.split()[-1]) > 0


def test_cli_count_and_all_with_jobs(tmp_path: Path) -> None:
    path = tmp_path / "hidden.csp"
    path.write_text(HIDDEN)
    assert _cli("solve", "--count", "-j", "2", str(path)).stdout == "c SOLUTIONS 22\n"
    out = _cli("solve", "--all", "--jobs", "2", str(path)).stdout
    assert out.startswith("s SATISFIABLE\n") and out.endswith("c SOLUTIONS 22\n")
    assert out.count("\na\n") == 22
    assert _cli("solve", "-n", "3", "-j", "2", str(path)).stdout.endswith("c stopped at the limit -n 3\nc SOLUTIONS AT LEAST 3\n")
    assert _cli("solve", "-n", "30", "-j", "2", str(path)).stdout.endswith("\nc SOLUTIONS 22\n")  # all found before the limit


def test_cli_portfolio(tmp_path: Path) -> None:
    path = tmp_path / "opt.csp"
    path.write_text("(int x 0 40)\n(int y 0 40)\n(>= (+ x (* 2 y)) 37)\n(int s 0 80)\n(= s (+ x y))\n(objective minimize s)\n")
    out = _cli("solve", "--jobs", "2", str(path)).stdout
    assert out.startswith("s SATISFIABLE\n")
    last = out.rsplit("\no ", 1)[1].splitlines()  # the last (optimal) answer: any of them, racers differ
    assert last[0] == "19" and last[-2:] == ["a", "s OPTIMUM FOUND"] and out.endswith("s OPTIMUM FOUND\n")
    x, y, s = (int(line.split("\t")[1]) for line in last[1:4])
    assert x + 2 * y >= 37 and s == x + y == 19
    assert _cli("solve", "-j", "2", str(tmp_path / "nope.csp")).returncode != 0
    # -v: the stages and the size of the CNF the racers share, then the race's line
    err = _cli("solve", "-v", "--jobs", "2", str(path)).stderr
    assert re.search(r"^c parse +[\d.]+ s\nc normalise +[\d.]+ s\nc encode +[\d.]+ s\n"
                     r"c size +3 int vars, 0 bool vars, 0 aux int vars, 0 aux bool vars, [\d,]+ CNF vars, [\d,]+ CNF clauses\n"
                     r"c portfolio of 2: compile [\d.]+ s, winner \w+$", err, re.M), err


def test_cli_portfolio_stopped_by_the_time_limit_ends_as_plain_solving(tmp_path: Path) -> None:
    """`solve -j 2 --timeout T -v` on an optimisation that takes longer: the best answer, then the line plain
    solving writes, and -v's stage and size lines (they were missing when the race was stopped)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from families import golomb

    path = tmp_path / "golomb-10.csp"  # first answers in about a second, the optimum in minutes
    path.write_text(golomb(10))
    proc = _cli("solve", "-j", "2", "-v", "--timeout", "6", str(path))
    assert proc.returncode == 0
    assert re.search(r"\nc stopped before the optimum was proven; best objective \d+\n$", proc.stdout), proc.stdout[-300:]
    assert "c stopped by the time limit" in proc.stderr
    assert re.search(r"^c size .* CNF clauses\nc portfolio of 2: compile [\d.]+ s, winner none \(stopped\)$", proc.stderr, re.M)


@pytest.mark.parametrize("method", ["blocking", "propagate"])
def test_parallel_enumeration_equals_sequential_answers(method: str) -> None:
    """-O enumerate=blocking|propagate on 2 workers: value-split items (blocking) or DFS stacks handed back as
    cubes (propagate) go back and forth between the workers, and each answer comes once."""
    model = check(parse_text(HIDDEN))
    compiled = compile_model(model, options={"enumerate": method})
    expected = set(_sequential(HIDDEN))
    found = [tuple(a.values()) for batch in parallel_enumerate(compiled, model, 2, budget=0.0) for a in batch]
    assert len(found) == len(set(found)) == 22 and set(found) == expected
    assert parallel_count(compiled, model, 2, budget=0.0) == 22
    limited = [a for batch in parallel_enumerate(compiled, model, 2, limit=5, budget=0.0) for a in batch]
    assert len(limited) == 5


def test_an_item_a_worker_stopped_in_goes_back_to_that_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its blocking clauses and what was learnt there live on that worker's solver; moving it would lose them
    (measured: pentomino 5x12 classes --count -j 2 96 -> 81 s wall)."""
    import csp2sat.parallel as parallel

    model = check(parse_text(HIDDEN))
    compiled = compile_model(model, options={"enumerate": "blocking"})
    tasks: list[tuple[int, list, list]] = []  # (worker, items given, leftover), in the order submitted
    submit = parallel._Pool.submit

    def recording(self, worker, items, *args):  # type: ignore[no-untyped-def]
        future = submit(self, worker, items, *args)
        record = (worker, [tuple(item[0]) for item in items], [])
        tasks.append(record)
        future.add_done_callback(lambda f: record[2].extend(tuple(i[0]) for i in f.result().leftover))
        return future

    monkeypatch.setattr(parallel._Pool, "submit", recording)
    assert parallel_count(compiled, model, 2, budget=0.0) == 22
    assert len({worker for worker, _, _ in tasks}) == 2
    for n, (worker, _, leftover) in enumerate(tasks):
        if not leftover:
            continue
        stopped = leftover[0]
        later = [w for w, items, _ in tasks[n + 1:] if stopped in items]
        assert set(later) <= {worker}  # (none: the item was split by values when it was its worker's only one)


def test_share_gives_an_idle_worker_every_other_item_of_the_longest_queue() -> None:
    from collections import deque

    from csp2sat.parallel import _share

    items = [([k], [], 0) for k in range(5)]
    queues = [deque(items), deque(), deque([([9], [], 0)])]
    _share(queues, [1, 2], None, 8)
    assert list(queues[0]) == items[0::2] and list(queues[1]) == items[1::2]
    assert list(queues[2]) == [([9], [], 0)]  # an idle worker with items of its own keeps them
    single = [deque([([1], [], 0)]), deque()]
    _share(single, [1], None, 8)  # one item and nothing to split it with: the idle worker waits
    assert [len(q) for q in single] == [1, 0]


def _half_a_result() -> None:
    """In a worker: the first part of a result message (its length says 1,000 bytes, 10 follow), then a long wait."""
    import struct
    import time

    result_queue = sys._getframe(1).f_locals["result_queue"]  # concurrent.futures.process._process_worker's
    os.write(result_queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    time.sleep(60)


def test_killing_workers_in_the_middle_of_a_result_lets_the_executor_shut_down() -> None:
    """A worker killed while writing a result: shutdown(wait=True) hung for ever while the parent held a
    writing end of the result pipe (`solve --all -j 2 --timeout 4` under load, ended by its watchdog)."""
    import concurrent.futures as cf
    import multiprocessing
    import threading
    import time

    from csp2sat.parallel import kill_workers

    executor = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    assert executor.submit(abs, -1).result() == 1  # the worker is up
    executor.submit(_half_a_result)
    time.sleep(1.0)  # the executor is reading the rest of that message by now
    kill_workers(executor)
    closing = threading.Thread(target=lambda: executor.shutdown(wait=True, cancel_futures=True), daemon=True)
    closing.start()
    closing.join(20)
    assert not closing.is_alive(), "the executor's shutdown hangs after its worker was killed"
