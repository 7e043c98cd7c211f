"""Differential fuzzing against Sugar itself: random small files, solved by csp2sat and by a Sugar command,
both answers judged by brute force.

The files are drawn by the tests' own strategy (`tests/csp_strategies.csp_texts`: every construct of the
language, holed and negative domains, predicates, relations, globals, objectives), reproducibly from
`--seed`. Each is solved by csp2sat (the real command, a fresh process) and by `--sugar` (e.g. Sugar 2.3.3's
perl driver), and enumerated by brute force (`tests/bruteforce.py`). Verdicts:

- ``ok``: both give the brute-force status and optimum, and each printed answer is a solution (an optimal one);
- ``WRONG``: csp2sat's status, optimum or answer disagrees with brute force;
- ``REFUSED``: csp2sat refuses a file Sugar solves;
- ``SUGAR``: Sugar disagrees with brute force and csp2sat does not (a Sugar bug: docs/quirks.md lists those
  found so far, e.g. its mod of a holed negative domain);
- ``SLOW``: csp2sat runs out of time (no answer to judge);
- ``skip``: Sugar refuses the file or runs out of time (its driver loops on some unsatisfiable maximize files).

usage: .venv/bin/python benchmarks/fuzz_sugar.py --sugar 'perl SUGAR/bin/sugar -jar SUGAR/bin/sugar-v2-3-3.jar
           -solver minisat' [--count N] [--seed S] [--timeout S] [--csp2sat COMMAND] [--keep DIR] [--log FILE.jsonl]
Prints every verdict but ok, then a summary; exits 1 if any is WRONG or REFUSED. Needs the test extra
(`pip install -e '.[test]'`: hypothesis) and a Sugar (not a dependency; Sugar 2.3.3 is Java with a perl driver).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def draw_texts(count: int, seed: int) -> list[str]:
    """`count` files (fewer if the strategy runs dry) drawn by `csp_strategies.csp_texts`; `seed` fixes them."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fix_seed

    from csp_strategies import csp_texts

    texts: list[str] = []

    @fix_seed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(csp_texts())
    def collect(text: str) -> None:
        texts.append(text)

    collect()
    return texts


def read_log(out: str) -> dict[str, Any]:
    """Sugar's answer format: the status, the last ``o`` value and the last answer (name -> text of its value)."""
    status, objective, answer, current = None, None, None, None
    for line in out.splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("o "):
            objective = int(line.split()[1])
        elif line.startswith("a"):
            parts = line.split()  # names hold no blanks; Sugar and csp2sat put a tab before the value
            if parts[0] != "a":
                continue
            if len(parts) == 1:  # the lone "a" ends an answer
                answer, current = current or {}, None
            elif len(parts) >= 3:
                current = current if current is not None else {}
                current[parts[1]] = parts[2]
    return {"status": status, "objective": objective, "answer": answer}


def _run(command: list[str], path: Path, timeout: float) -> tuple[dict[str, Any], str, int | None]:
    try:
        done = subprocess.run(command + [str(path)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT", "objective": None, "answer": None}, "", None
    return read_log(done.stdout), done.stdout + done.stderr, done.returncode


def _is_solution(model: Any, answer: dict[str, str] | None, expected: Any) -> bool:
    """Whether a printed answer is one of the brute-force answers (the optimal ones under an objective)."""
    if answer is None:
        return False
    values: dict[str, Any] = {}
    for name, text in answer.items():
        if text in ("true", "false") and name in model.bool_vars:
            values[model.bool_key(name)] = text == "true"
        else:
            try:
                values[name] = int(text)
            except ValueError:
                return False
    try:
        return tuple(values[k] for k in expected.printed) in expected.answers
    except KeyError:
        return False


def judge(text: str, csp2sat: list[str], sugar: list[str], timeout: float, folder: Path) -> dict[str, Any]:
    """Solve `text` with both commands, enumerate it by brute force, and give the verdict (see the module doc)."""
    import csp2sat as api
    from bruteforce import brute_force

    path = folder / "fuzz.csp"
    path.write_text(text, encoding="utf-8")
    model = api.parse(text)
    expected = brute_force(model)
    ours, our_text, our_status = _run(csp2sat, path, timeout)
    theirs, _, _ = _run(sugar, path, timeout)
    record = {"brute": [expected.status, expected.optimum], "csp2sat": [ours["status"], ours["objective"]],
              "sugar": [theirs["status"], theirs["objective"]]}

    def right(got: dict[str, Any]) -> bool:
        if got["status"] != expected.status:
            return False
        if expected.status == "UNSATISFIABLE":
            return True
        return (expected.optimum is None or got["objective"] == expected.optimum) and _is_solution(
            model, got["answer"], expected)

    sugar_answered = theirs["status"] in ("SATISFIABLE", "UNSATISFIABLE", "OPTIMUM FOUND")
    if ours["status"] is None and our_status not in (0, None):
        record["verdict"] = "REFUSED" if sugar_answered else "skip"
        record["csp2sat_output"] = our_text.strip()[:300]
    elif ours["status"] == "TIMEOUT":
        record["verdict"] = "SLOW"
    elif not right(ours):
        record["verdict"] = "WRONG"
    elif not sugar_answered:
        record["verdict"] = "skip"
    else:
        record["verdict"] = "ok" if right(theirs) else "SUGAR"
    return record


def main(argv: list[str] | None = None) -> int:
    """Draw the files, judge each, print the verdicts that are not ok and a summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sugar", required=True, help="the Sugar command (a file name is appended)")
    parser.add_argument("--csp2sat", default=f"{sys.executable} -m csp2sat solve", help="the csp2sat solve command")
    parser.add_argument("--count", type=int, default=200, help="files to draw (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="the drawing's seed (default 1)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per tool and file (default 20)")
    parser.add_argument("--keep", type=Path, help="keep every file that is not ok in this folder")
    parser.add_argument("--log", type=Path, help="one JSON line per file")
    args = parser.parse_args(argv)
    texts = draw_texts(args.count, args.seed)
    tally: dict[str, int] = {}
    log = args.log.open("w", encoding="utf-8") if args.log else None
    with tempfile.TemporaryDirectory() as scratch:
        for number, text in enumerate(texts, 1):
            record = judge(text, shlex.split(args.csp2sat), shlex.split(args.sugar), args.timeout, Path(scratch))
            record["file"] = number
            tally[record["verdict"]] = tally.get(record["verdict"], 0) + 1
            if log:
                log.write(json.dumps(record) + "\n")
            if record["verdict"] != "ok":
                print(json.dumps(record), flush=True)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / f"f{args.seed}_{number}.csp").write_text(text, encoding="utf-8")
    if log:
        log.close()
    print(f"{len(texts)} files: " + ", ".join(f"{n} {v}" for v, n in sorted(tally.items())))
    return 1 if tally.get("WRONG") or tally.get("REFUSED") else 0


if __name__ == "__main__":
    sys.exit(main())
