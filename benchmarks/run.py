"""Benchmark of the whole pipeline against Sugar 2.3.3: one command, one table.

Runs the 11 Sugar examples (tests/conformance/sugar-examples) and the largest
board of each puzzle genre (generated from data/ by the genre's generator),
each in its own subprocess so that peak memory (ru_maxrss) is per file, and
records per file: generate (puzzles), parse+check, normalise, encode,
load-into-solver and solve times, CNF variables and clauses, peak memory,
status/objective, and the ratio to Sugar's clauses and total time.
Writes benchmarks/results/latest.json and prints a Markdown table.

usage: .venv/bin/python benchmarks/run.py [--only NAME] [--timeout SECONDS] [--solver NAME] [-O KEY=VALUE]
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "conformance" / "sugar-examples"
RESULTS = ROOT / "benchmarks" / "results"

# Sugar 2.3.3 on the examples: status, objective, CNF vars, CNF clauses, encode s, SAT s, total s.
SUGAR = {
    "arithm-java_cream_solver": ("SATISFIABLE", None, 155, 1_743, 0.26, 0.01, 0.47),
    "gcp-myciel3": ("OPTIMUM FOUND", 4, 75, 225, 0.17, 0.02, 0.42),
    "golombRuler-8": ("OPTIMUM FOUND", 34, 5_111, 422_046, 0.84, 9.43, 11.07),
    "jss-ft10": ("OPTIMUM FOUND", 930, 76_617, 703_313, 1.11, 31.73, 33.98),
    "knightTour-5": ("SATISFIABLE", None, 1_296, 20_510, 0.59, 1.07, 1.87),
    "magicSquare-5x5": ("SATISFIABLE", None, 3_504, 73_717, 0.59, 0.10, 0.92),
    "nqueens-8": ("SATISFIABLE", None, 220, 1_138, 0.25, 0.01, 0.47),
    "nqueens-200": ("SATISFIABLE", None, 159_196, 18_646_098, 10.60, 96.66, 107.74),
    "oss-gp03-01": ("OPTIMUM FOUND", 1168, 11_126, 46_075, 0.59, 0.63, 2.38),
    "socialGolfer-3-2-5": ("SATISFIABLE", None, 810, 2_355, 0.62, 0.01, 0.92),
    "tdsp-C1-1": ("OPTIMUM FOUND", 20, 1_226, 17_631, 1.11, 2.91, 5.43),
}

# The largest board of each genre: (genre, data/ directory, substring of the file name).
PUZZLES = [
    ("shikaku", "shikaku", "20x36"),
    ("slitherlink", "slitherlink", "30x25"),
    ("hashiwokakero", "hashi", "19x41"),
    ("pentomino", "pentomino", "6x10"),
    ("fillmat", "fillmat", "10x10"),
    ("masyu", "masyu", "10x15"),
    ("nurikabe", "nurikabe", "10x18"),
]


def entries() -> list[tuple[str, str, str]]:
    """(name, kind, path) of every benchmark file; kind is "csp" or a genre name."""
    sys.path.insert(0, str(ROOT))
    from scripts.regen_csp import puzzle_files

    found = [(p.stem, "csp", str(p)) for p in sorted(EXAMPLES.glob("*.csp"))]
    for genre_name, directory, size in PUZZLES:
        matches = [p for p in puzzle_files(directory) if size in p.stem]
        if matches:
            found.append((f"{genre_name}-{size}", genre_name, str(matches[0])))
    return found


def worker(kind: str, path: str, options: dict[str, str], solver: str) -> dict:
    """Run one file through the pipeline in this process and return its measurements."""
    sys.path.insert(0, str(ROOT))
    from csp2sat.checker import check
    from csp2sat.parser import parse_text
    from csp2sat.solver import Search, compile_for_search

    row: dict = {"generate_s": 0.0}
    text = Path(path).read_text(encoding="utf-8")
    if kind != "csp":
        from csp2sat.generators.base import genre

        g = genre(kind)
        t0 = time.perf_counter()
        text = g.generate(g.read(text))
        row["generate_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = check(parse_text(text, file=path))
    row["parse_s"] = time.perf_counter() - t0
    compiled = compile_for_search(model, options)
    row["normalise_s"] = compiled.stats["normalise_s"]
    row["encode_s"] = compiled.stats["encode_s"]
    row["cnf_vars"] = compiled.num_vars
    row["cnf_clauses"] = compiled.num_clauses
    search = Search(model, compiled, solver=solver)
    row["load_s"] = search.stats["load_s"]
    result = search.run()
    search.close()
    row["solve_s"] = search.stats["solve_s"]
    row["sat_calls"] = search.stats["sat_calls"]
    row["shrinks"] = search.stats.get("shrinks", 0)
    row["cnf_clauses_last"] = search.stats.get("cnf_clauses_last", compiled.num_clauses)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    row["cpu_s"] = usage.ru_utime + usage.ru_stime
    row["status"] = result.status
    row["objective"] = result.objective
    usage = resource.getrusage(resource.RUSAGE_SELF)
    row["peak_mb"] = usage.ru_maxrss / 1024
    row["cpu_s"] = usage.ru_utime + usage.ru_stime  # unlike wall time, barely depends on the machine's load
    return row


def run_one(name: str, kind: str, path: str, args: argparse.Namespace) -> dict:
    """One file in a subprocess (fresh memory high-water mark; a time-out kills only it)."""
    cmd = [sys.executable, __file__, "--worker", kind, path, "--solver", args.solver]
    for opt in args.encoding:
        cmd += ["-O", opt]
    cpu_limit = getattr(args, "cpu_limit", None)

    def limit_cpu() -> None:  # a CPU-seconds limit (RLIMIT_CPU) is fair on a loaded machine, a wall limit is not
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_limit), int(cpu_limit) + 5))

    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                              preexec_fn=limit_cpu if cpu_limit else None)
    except subprocess.TimeoutExpired:
        return {"name": name, "status": "TIMEOUT", "total_s": args.timeout}
    wall = time.perf_counter() - start
    if cpu_limit and proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"name": name, "status": "CPU LIMIT", "total_s": wall, "cpu_s": float(cpu_limit)}
    if proc.returncode != 0:
        return {"name": name, "status": "ERROR", "error": proc.stderr.strip().splitlines()[-1:], "total_s": wall}
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row["name"] = name
    # End to end as a user sees it: the subprocess wall time includes interpreter start and imports.
    row["total_s"] = wall
    row["before_search_s"] = sum(row[k] for k in ("generate_s", "parse_s", "normalise_s", "encode_s", "load_s"))
    sugar = SUGAR.get(name)
    if sugar:
        row["sugar"] = dict(zip(("status", "objective", "vars", "clauses", "encode_s", "sat_s", "total_s"), sugar))
        row["clause_ratio"] = row["cnf_clauses"] / sugar[3]
        row["time_ratio"] = wall / sugar[6]
        row["agrees"] = row["status"] == sugar[0] and row["objective"] == sugar[1]
    return row


def _fmt(x, spec: str = ".2f") -> str:
    return "" if x is None else format(x, spec)


def table(rows: list[dict]) -> str:
    """The Markdown table of the results."""
    head = ("| file | status | obj | vars | clauses | parse | norm | enc | load | solve | total | peak MB "
            "| clauses/Sugar | time/Sugar |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        gen = r.get("generate_s") or 0.0
        parse = (r.get("parse_s") or 0.0) + gen if "parse_s" in r else None
        lines.append(
            f"| {r['name']} | {r.get('status', '')} | {_fmt(r.get('objective'), '')} | {_fmt(r.get('cnf_vars'), ',')} "
            f"| {_fmt(r.get('cnf_clauses'), ',')} | {_fmt(parse)} | {_fmt(r.get('normalise_s'))} "
            f"| {_fmt(r.get('encode_s'))} | {_fmt(r.get('load_s'))} | {_fmt(r.get('solve_s'))} "
            f"| {_fmt(r.get('total_s'))} | {_fmt(r.get('peak_mb'), '.0f')} "
            f"| {_fmt(r.get('clause_ratio'), '.3f')} | {_fmt(r.get('time_ratio'), '.3f')} |"
        )
    ours = [r for r in rows if "sugar" in r]
    if ours:
        total = sum(r["total_s"] for r in ours)
        sugar = sum(r["sugar"]["total_s"] for r in ours)
        lines.append("")
        lines.append(f"Sugar examples: {total:.2f} s end to end vs Sugar {sugar:.2f} s (ratio {total / sugar:.3f}); "
                     f"answers agree with Sugar on {sum(1 for r in ours if r.get('agrees'))}/{len(ours)}.")
    return "\n".join(lines)


def main() -> int:
    """Run the benchmark (or, with --worker, one file) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only files whose name contains NAME (repeatable)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file (default 300)")
    parser.add_argument("--solver", default="auto", help="PySAT solver name (default auto, as csp2sat solve)")
    parser.add_argument("-O", dest="encoding", action="append", default=[], metavar="KEY=VALUE",
                        help="compiler option, e.g. -O alldifferent=pairwise")
    parser.add_argument("--output", default=str(RESULTS / "latest.json"), help="JSON file to write")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    options = dict(opt.split("=", 1) for opt in args.encoding)
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], options, args.solver)))
        return 0
    rows = []
    for name, kind, path in entries():
        if args.only and not any(o in name for o in args.only):
            continue
        row = run_one(name, kind, path, args)
        rows.append(row)
        print(f"{name}: {row.get('status')} {row.get('total_s', 0):.2f} s", file=sys.stderr, flush=True)
    ran = rows
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    if args.only and output.exists():
        # A partial run updates its own rows and keeps the others, so that the file stays a full table.
        previous = json.loads(output.read_text(encoding="utf-8"))
        if previous.get("options") == options and previous.get("solver") == args.solver:
            fresh = {row["name"]: row for row in rows}
            kept = [fresh.pop(row["name"], row) for row in previous.get("rows", [])]
            rows = kept + list(fresh.values())
    output.write_text(json.dumps({"options": options, "solver": args.solver, "rows": rows}, indent=1) + "\n",
                      encoding="utf-8")
    print(table(ran))
    return 0


if __name__ == "__main__":
    sys.exit(main())
