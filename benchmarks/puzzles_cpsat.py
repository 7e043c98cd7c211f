"""Side-by-side benchmark: csp2sat against OR-tools CP-SAT (one worker) on the same puzzle boards.

For each board of the genres named (default: all) prints the end-to-end time
of ``csp2sat puzzle GENRE FILE`` in a fresh process (wall and CPU: user +
system, which the load of a shared machine does not inflate), the in-process
time of the same pipeline, and for the genres with a CP-SAT model here the
time to build and to solve a straightforward model of the same rules with
``num_workers=1`` (CP-SAT's CPU time too), with both answers compared. With
--unique both sides also prove the answer unique: csp2sat with ``--unique``,
CP-SAT by solving the model again with the answer excluded.

The models read the boards through the genres' own readers and state the rules
directly with CP-SAT's constraints (AddAllDifferent, sums, implications,
AddCircuit for Yajilin's loop). CP-SAT has no connectivity constraint, so the
connected genres (Hitori, Heyawake, LITS) use a rooted numbering (an inside
cell other than the root has an inside neighbour with a smaller number) and
Numberlink ordering variables along the lines, as CP-SAT users write them.

OR-tools is not a dependency of csp2sat: ``.venv/bin/pip install ortools`` first.

usage: .venv/bin/python benchmarks/puzzles_cpsat.py [GENRE...] [--unique] [--boards N]
           [--json FILE] [--markdown FILE] [--command 'CMD'] [--no-cpsat]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from csp2sat.generators import (  # noqa: E402
    akari, heyawake, hitori, kakuro, lits, norinori, numberlink, starbattle, sudoku, yajilin,
)
from csp2sat.generators.base import genre, genre_names  # noqa: E402
from csp2sat.generators.boardkit import neighbours, region_cells, runs  # noqa: E402
from csp2sat.generators.run import solve_puzzle  # noqa: E402
from scripts.regen_csp import GENRE_DIRS, puzzle_files  # noqa: E402

CSP2SAT = Path(sys.executable).parent / "csp2sat"  # the installed command of this venv
TIME_LIMIT = 60.0
FRESH_ENV: dict | None = None  # the environment of the fresh processes (None: this one's)


def _grid(model: Any, rows: int, cols: int, lo: int = 0, hi: int = 1) -> dict:
    return {(r, c): model.NewIntVar(lo, hi, f"x{r}_{c}") for r in range(rows) for c in range(cols)}


def _connected(model: Any, x: dict, inside: Callable[[Any], Any], rows: int, cols: int) -> None:
    """Cells with inside(var) true are connected: rooted numbering, as in boardkit.connected_rule."""
    n = rows * cols
    z = {cell: model.NewIntVar(1, n, "") for cell in x}
    root = {cell: model.NewBoolVar("") for cell in x}
    member = {cell: model.NewBoolVar("") for cell in x}
    for cell, var in x.items():
        model.Add(inside(var) == 1).OnlyEnforceIf(member[cell])
        model.Add(inside(var) == 0).OnlyEnforceIf(member[cell].Not())
        model.AddImplication(root[cell], member[cell])
        model.Add(z[cell] == 1).OnlyEnforceIf(root[cell])
        lower = []
        for other in neighbours(*cell, rows, cols):
            b = model.NewBoolVar("")
            model.AddImplication(b, member[other])
            model.Add(z[other] < z[cell]).OnlyEnforceIf(b)
            lower.append(b)
        model.AddBoolOr(lower + [root[cell], member[cell].Not()])
    model.Add(sum(root.values()) <= 1)


def model_sudoku(model: Any, p: sudoku.Sudoku) -> tuple[dict, Callable]:
    x = _grid(model, p.size, p.size, 1, p.size)
    for cell, v in p.givens.items():
        model.Add(x[cell] == v)
    for _, cells in p.houses():
        model.AddAllDifferent([x[c] for c in cells])
    return x, lambda v: [[v[(r, c)] for c in range(p.size)] for r in range(p.size)]


def model_akari(model: Any, p: akari.Akari) -> tuple[dict, Callable]:
    x = {cell: model.NewBoolVar("") for cell in ((r, c) for r in range(p.rows) for c in range(p.cols)) if p.white(*cell)}
    for (r, c), v in p.black.items():
        if v is not None:
            model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols) if n in x) == v)
    seen: dict = {}
    for run in runs(p.white, p.rows, p.cols):
        model.Add(sum(x[c] for c in run) <= 1)
        for cell in run:
            seen.setdefault(cell, set()).update(run)
    for cell, cells in seen.items():
        model.AddBoolOr([x[c] for c in cells])
    return x, lambda v: ["".join("*" if v.get((r, c)) else ch for c, ch in enumerate(line))
                         for r, line in enumerate(p.text_lines())]


def _shade_answer(p: Any) -> Callable:
    return lambda v: ["".join("#" if v[(r, c)] else "." for c in range(p.cols)) for r in range(p.rows)]


def model_hitori(model: Any, p: hitori.Hitori) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for a, b in p.repeats():
        model.Add(x[a] + x[b] >= 1)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return x, _shade_answer(p)


def model_starbattle(model: Any, p: starbattle.StarBattle) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for _, cells in p.lines():
        model.Add(sum(x[c] for c in cells) == p.stars)
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.Add(x[(r, c)] + x[(r, c + 1)] + x[(r + 1, c)] + x[(r + 1, c + 1)] <= 1)
    return x, lambda v: ["".join("*" if v[(r, c)] else "." for c in range(p.cols)) for r in range(p.rows)]


def model_norinori(model: Any, p: norinori.Norinori) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    for cells in region_cells(p.regions):
        model.Add(sum(x[c] for c in cells) == 2)
    for (r, c), var in x.items():
        model.Add(sum(x[n] for n in neighbours(r, c, p.rows, p.cols)) == 1).OnlyEnforceIf(var)
    return x, _shade_answer(p)


def model_heyawake(model: Any, p: heyawake.Heyawake) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    rooms = region_cells(p.rooms)
    for k, v in p.numbers.items():
        if v is not None:
            model.Add(sum(x[c] for c in rooms[k]) == v)
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            if o in x:
                model.Add(x[(r, c)] + x[o] <= 1)
    for run in p.crossings():
        model.Add(sum(x[c] for c in run) >= 1)
    _connected(model, x, lambda var: 1 - var, p.rows, p.cols)
    return x, _shade_answer(p)


def model_kakuro(model: Any, p: kakuro.Kakuro) -> tuple[dict, Callable]:
    x = {(r, c): model.NewIntVar(1, 9, "") for r in range(p.rows) for c in range(p.cols) if p.white(r, c)}
    for run, value in p.runs_with_sums():
        if len(run) > 1:
            model.AddAllDifferent([x[c] for c in run])
        if value:
            model.Add(sum(x[c] for c in run) == value)
    return x, lambda v: kakuro.GENRE.render(p, [[v.get((r, c)) for c in range(p.cols)] for r in range(p.rows)],
                                            "answer").split("\n")[:-1]


def model_lits(model: Any, p: lits.Lits) -> tuple[dict, Callable]:
    x = _grid(model, p.rows, p.cols)
    shape_of: dict = {}  # (region, letter) -> "the region's tetromino has this shape"
    for k, options in enumerate(p.options):
        chosen = [model.NewBoolVar("") for _ in options]
        model.AddExactlyOne(chosen)
        for cell in region_cells(p.regions)[k]:
            model.Add(x[cell] == sum(b for b, (_, placed) in zip(chosen, options) if cell in placed))
        for letter in lits.SHAPES:
            of_shape = [b for b, (s, _) in zip(chosen, options) if s == letter]
            if of_shape:
                shape_of[k, letter] = model.NewBoolVar("")
                model.Add(shape_of[k, letter] == sum(of_shape))
    for (r, c) in x:
        for o in ((r, c + 1), (r + 1, c)):
            a, b = p.regions[r][c], p.regions[o[0]][o[1]] if o in x else None
            if o in x and a != b:
                for letter in lits.SHAPES:
                    if (a, letter) in shape_of and (b, letter) in shape_of:
                        model.AddBoolOr([x[(r, c)].Not(), x[o].Not(), shape_of[a, letter].Not(),
                                         shape_of[b, letter].Not()])
    for r in range(p.rows - 1):
        for c in range(p.cols - 1):
            model.Add(x[(r, c)] + x[(r, c + 1)] + x[(r + 1, c)] + x[(r + 1, c + 1)] <= 3)
    _connected(model, x, lambda var: var, p.rows, p.cols)
    return x, _shade_answer(p)


def _segments_answer(g: Any, p: Any) -> Callable:
    """The answer rows of a segment genre, drawn by the genre's own renderer from the segments set to 1."""
    return lambda v: g.render(p, {s for s, on in v.items() if on}, "answer").split("\n")[:-1]


def model_numberlink(model: Any, p: numberlink.Numberlink) -> tuple[dict, Callable]:
    """Segments, a pair number per cell (equal along a segment) and an ordering variable per cell: every
    line cell but the pair's first number has a segment to a cell with a smaller one (no stray loops)."""
    pairs = p.pairs()
    pair_of = {cell: pairs.index(value) + 1 for cell, value in p.numbers.items()}
    first = {}
    for cell, k in sorted(pair_of.items()):
        first.setdefault(k, cell)
    x = {s: model.NewBoolVar("") for s in p.segments()}
    at: dict = {}
    for s in x:
        at.setdefault(s[0], []).append(s)
        at.setdefault(s[1], []).append(s)
    n = p.rows * p.cols
    colour = {cell: model.NewIntVar(pair_of.get(cell, 0), pair_of.get(cell, len(pairs)), "") for cell in at}
    order = {cell: model.NewIntVar(0, 0 if first.get(pair_of.get(cell)) == cell else n, "") for cell in at}
    for cell, around in at.items():
        degree = sum(x[s] for s in around)
        if cell in pair_of:
            model.Add(degree == 1)
            used = None
        else:
            used = model.NewBoolVar("")
            model.Add(degree == 2).OnlyEnforceIf(used)
            model.Add(degree == 0).OnlyEnforceIf(used.Not())
            model.Add(colour[cell] >= 1).OnlyEnforceIf(used)
            model.Add(colour[cell] == 0).OnlyEnforceIf(used.Not())
        if first.get(pair_of.get(cell)) == cell:
            continue
        lower = []
        for s in around:
            other = s[0] if s[1] == cell else s[1]
            b = model.NewBoolVar("")
            model.AddImplication(b, x[s])
            model.Add(order[other] < order[cell]).OnlyEnforceIf(b)
            lower.append(b)
        model.AddBoolOr(lower + ([used.Not()] if used is not None else []))
    for s, var in x.items():
        model.Add(colour[s[0]] == colour[s[1]]).OnlyEnforceIf(var)
    return x, _segments_answer(numberlink.GENRE, p)


def model_yajilin(model: Any, p: yajilin.Yajilin) -> tuple[dict, Callable]:
    """Segments and the single loop by AddCircuit (an arc per direction of a segment, a skipped cell is
    shaded), shaded cells apart, arrow counts."""
    cells = [(r, c) for r in range(p.rows) for c in range(p.cols) if p.free((r, c))]
    index = {cell: i for i, cell in enumerate(cells)}
    on = {cell: model.NewBoolVar("") for cell in cells}
    x = {s: model.NewBoolVar("") for s in p.segments()}
    arcs = [(index[cell], index[cell], on[cell].Not()) for cell in cells]
    for (a, b), var in x.items():
        forward, backward = model.NewBoolVar(""), model.NewBoolVar("")
        model.Add(forward + backward == var)
        arcs += [(index[a], index[b], forward), (index[b], index[a], backward)]
    model.AddCircuit(arcs)
    for a, b in x:
        model.AddBoolOr([on[a], on[b]])
    for cell, (number, arrow) in p.clues.items():
        if arrow and number is not None:
            model.Add(sum(1 - on[o] for o in p.seen(cell)) == number)
    return x, _segments_answer(yajilin.GENRE, p)


MODELS = {"sudoku": model_sudoku, "akari": model_akari, "hitori": model_hitori, "starbattle": model_starbattle,
          "norinori": model_norinori, "heyawake": model_heyawake, "kakuro": model_kakuro, "lits": model_lits,
          "numberlink": model_numberlink, "yajilin": model_yajilin}


def _solve(model: Any, cp_model: Any) -> tuple[Any, int, float]:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = TIME_LIMIT
    status = solver.Solve(model)
    return solver, status, solver.UserTime()


def run_cpsat(name: str, puzzle: Any, unique: bool = False) -> dict:
    """Build and solve the CP-SAT model of a board with one worker; with `unique`, build it again with the
    answer excluded and solve that. Seconds (wall) of each step, the answer rows and the verdict."""
    from ortools.sat.python import cp_model

    c0, t0 = time.process_time(), time.perf_counter()
    model = cp_model.CpModel()
    x, answer = MODELS[name](model, puzzle)
    t1 = time.perf_counter()
    solver, status, _ = _solve(model, cp_model)
    t2 = time.perf_counter()
    out: dict = {"build": t1 - t0, "solve": t2 - t1, "cpu": time.process_time() - c0, "answer": None}
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        out["verdict"] = "none" if status == cp_model.INFEASIBLE else "unknown"
        return out
    values = {cell: solver.Value(var) for cell, var in x.items()}
    out["answer"] = answer(values)
    if unique:
        c3, t3 = time.process_time(), time.perf_counter()
        model = cp_model.CpModel()
        x, _ = MODELS[name](model, puzzle)
        differs = []
        for key, var in x.items():
            b = model.NewBoolVar("")
            model.Add(var != values[key]).OnlyEnforceIf(b)
            differs.append(b)
        model.AddBoolOr(differs)
        _, status, _ = _solve(model, cp_model)
        out["unique"] = time.perf_counter() - t3
        out["unique_cpu"] = time.process_time() - c3
        out["verdict"] = ("unique" if status == cp_model.INFEASIBLE else
                          "MULTIPLE" if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else "unknown")
    return out


def run_fresh(genre_name: str, path: Path, unique: bool, csp2sat: list[str]) -> dict:
    """`csp2sat puzzle GENRE FILE` in a fresh process: wall and CPU seconds (user + system), answer rows."""
    command = [*csp2sat, "puzzle", genre_name, str(path), "--format", "answer"] + (["--unique"] if unique else [])
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=FRESH_ENV)
    try:
        stdout, stderr = proc.communicate(timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = usage.ru_utime + usage.ru_stime - run_fresh.cpu_so_far  # type: ignore[attr-defined]
        run_fresh.cpu_so_far = usage.ru_utime + usage.ru_stime  # type: ignore[attr-defined]
        return {"wall": None, "cpu": cpu, "answer": None, "verdict": f"timeout ({TIME_LIMIT:.0f} s wall)"}
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - run_fresh.cpu_so_far  # type: ignore[attr-defined]
    run_fresh.cpu_so_far = usage.ru_utime + usage.ru_stime  # type: ignore[attr-defined]
    verdict = ("unique" if "is unique" in stderr else "MULTIPLE" if "NOT unique" in stderr else
               "none" if proc.returncode == 1 else "" if proc.returncode == 0 else f"exit {proc.returncode}")
    return {"wall": wall, "cpu": cpu, "answer": stdout.split("\n")[:-1] if proc.returncode == 0 else None,
            "verdict": verdict}


run_fresh.cpu_so_far = 0.0  # type: ignore[attr-defined]


def import_cost() -> float:
    """CPU seconds of a fresh Python that imports CP-SAT (least of three): what a CP-SAT script run as its own
    process pays before building a model, to set beside csp2sat's fresh-process figures."""
    best = float("inf")
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "from ortools.sat.python import cp_model"], check=True, env=FRESH_ENV)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    run_fresh.cpu_so_far = after.ru_utime + after.ru_stime  # type: ignore[attr-defined]
    return best


def _rows(name: str, answer: Any) -> Any:
    if name == "sudoku" and answer is not None:
        return [" ".join(map(str, row)) for row in answer]
    return answer


def _fmt(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def main() -> int:
    """Time both solvers on the boards of the chosen genres; one line per board, optionally JSON + Markdown."""
    global TIME_LIMIT, FRESH_ENV
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genres", nargs="*", help="genres to run (default: every genre; CP-SAT where it has a model)")
    parser.add_argument("--unique", action="store_true", help="also time the uniqueness check on both sides")
    parser.add_argument("--boards", type=int, default=0,
                        help="at most N boards per genre: the largest N (default: all)")
    parser.add_argument("--command", default=str(CSP2SAT),
                        help="the csp2sat command timed in a fresh process (default: this venv's; e.g. another"
                             " checkout's 'python -m csp2sat', to compare branches)")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                        help=f"seconds (wall-clock) per run on either side (default {TIME_LIMIT:.0f})")
    parser.add_argument("--pycache", type=Path,
                        help="let the fresh processes cache compiled bytecode in this directory (as an installed"
                             " package has it), even where PYTHONDONTWRITEBYTECODE is set; warmed up first")
    parser.add_argument("--no-cpsat", action="store_true", help="time csp2sat only")
    parser.add_argument("--json", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--markdown", type=Path, help="write the table to this Markdown file")
    args = parser.parse_args()
    TIME_LIMIT = args.time_limit
    if args.pycache:
        FRESH_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        FRESH_ENV["PYTHONPYCACHEPREFIX"] = str(args.pycache.resolve())
        for name in args.genres or genre_names():  # every genre's modules compiled once, untimed
            warm = genre(name)
            run_fresh(warm.name, puzzle_files(GENRE_DIRS[warm.name])[0], True, args.command.split())
    rows = []
    imports = None if args.no_cpsat else import_cost()
    if imports is not None:
        print(f"a fresh Python importing CP-SAT: {imports:.3f} s CPU")
    print(f"{'board':36s} {'wall':>6s} {'cpu':>6s} {'inproc':>6s} {'cp-sat':>6s} {'build':>6s}"
          + ("  | unique: wall    cpu  cp-sat" if args.unique else "") + "  answers")
    for name in args.genres or genre_names():
        g = genre(name)
        paths = puzzle_files(GENRE_DIRS[g.name])
        if args.boards:
            paths = sorted(paths, key=lambda q: (-_cells(q), q.name))[:args.boards]
        for path in paths:
            puzzle = g.read(path.read_text(encoding="utf-8"))
            t0 = time.perf_counter()
            run = solve_puzzle(g, puzzle)
            inproc = time.perf_counter() - t0
            fresh = run_fresh(g.name, path, False, args.command.split())
            row: dict = {"genre": g.name, "board": path.stem, "cells": _cells(path),
                         "csp2sat_wall": fresh["wall"], "csp2sat_cpu": fresh["cpu"], "csp2sat_in_process": inproc,
                         "cnf_clauses": run.stats["cnf_clauses"]}
            mine = None if run.solution is None else g.render(puzzle, run.solution, "answer").split("\n")[:-1]
            same = ""
            if g.name in MODELS and not args.no_cpsat:
                theirs = run_cpsat(g.name, puzzle, args.unique)
                row.update(cpsat_build=theirs["build"], cpsat_solve=theirs["solve"], cpsat_cpu=theirs["cpu"])
                answer = _rows(g.name, theirs["answer"])
                same = "both none" if mine is None and answer is None else "same" if mine == answer else "differ"
                row["answers"] = same
            if args.unique:
                fresh_u = run_fresh(g.name, path, True, args.command.split())
                row.update(unique_wall=fresh_u["wall"], unique_cpu=fresh_u["cpu"], unique_verdict=fresh_u["verdict"])
                if g.name in MODELS and not args.no_cpsat:
                    row.update(cpsat_unique=theirs.get("unique"), cpsat_unique_cpu=theirs.get("unique_cpu"),
                               cpsat_verdict=theirs.get("verdict", "none"))
            rows.append(row)
            cp = row.get("cpsat_solve")
            line = (f"{g.name + '/' + path.stem:36s} {_fmt(row['csp2sat_wall'])} {_fmt(row['csp2sat_cpu'])}"
                    f" {inproc:6.3f} {_fmt(cp)} {_fmt(row.get('cpsat_build'))}")
            if args.unique:
                line += (f"  | {_fmt(row['unique_wall'])} {_fmt(row['unique_cpu'])} {_fmt(row.get('cpsat_unique'))}"
                         f" {row['unique_verdict']}/{row.get('cpsat_verdict', '-')}")
            print(line + f"  {same}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": platform.node(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                         time.gmtime()), "time_limit": TIME_LIMIT, "cpsat_import_cpu": imports, "boards": rows}, indent=1) + "\n")
    if args.markdown:
        args.markdown.write_text(_markdown(rows, args.unique, imports))
    return 0


def _cells(path: Path) -> int:
    """The board's number of cells from its file name (``..._15x15``, ``hexasudoku_16x16``, ``penpa_9x9_2``)."""
    found = re.findall(r"(\d+)x(\d+)", path.stem)
    return int(found[-1][0]) * int(found[-1][1]) if found else 0


def _pair(cpu: float | None, wall: float | None) -> str:
    return "-" if cpu is None else f"{cpu:.2f} ({wall:.2f})" if wall is not None else f"{cpu:.2f}"


def _markdown(rows: list[dict], unique: bool, imports: float | None) -> str:
    """The figures as a Markdown table: CPU seconds first (wall-clock in brackets, inflated by the load)."""
    lines = ["Seconds of CPU (wall-clock in brackets). csp2sat: `csp2sat puzzle GENRE FILE` in a fresh process,"
             " everything included (Python start, generate, compile, solve, check, draw). CP-SAT: build + solve"
             " in an already running Python (one worker)"
             + (f"; a fresh Python importing CP-SAT costs {imports:.2f} s CPU more." if imports is not None else "."),
             ""]
    head = ("| board | CNF clauses | csp2sat | CP-SAT |"
            + (" csp2sat --unique | CP-SAT unique | uniqueness |" if unique else "") + " answers |")
    lines += [head, "|" + "---|" * head.count(" |")]
    for row in rows:
        cp = row.get("cpsat_cpu")
        cells = [f"{row['genre']}/{row['board']}", f"{row['cnf_clauses']:,}",
                 _pair(row["csp2sat_cpu"], row["csp2sat_wall"]),
                 _pair(cp, None if cp is None else row["cpsat_build"] + row["cpsat_solve"])]
        if unique:
            cells += [_pair(row["unique_cpu"], row["unique_wall"]),
                      _pair(row.get("cpsat_unique_cpu"), row.get("cpsat_unique")),
                      row["unique_verdict"] + (f" / {row['cpsat_verdict']}" if "cpsat_verdict" in row else "")]
        cells.append(row.get("answers", "-"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
