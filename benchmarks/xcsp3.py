"""csp2sat against ACE on the XCSP3 corpus (tests/xcsp3/), side by side, wall time on this machine.

Each instance is solved by the installed ``csp2sat solve`` command and by ACE
(the jar bundled with PyCSP3, run with ``java -jar``), one run each, one after
the other; both times include process start-up (Python, the JVM). The table
shows both statuses and optima; a row where they disagree, or where csp2sat
disagrees with the status stored in tests/xcsp3/expected.json, is marked.

    .venv/bin/python benchmarks/xcsp3.py                 # both solvers (needs pycsp3 and Java)
    .venv/bin/python benchmarks/xcsp3.py --stored-ace    # ACE's times as stored with the corpus
    .venv/bin/python benchmarks/xcsp3.py golomb rcpsp    # instances whose name starts so
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "xcsp3"


def csp2sat_command() -> list[str]:
    exe = Path(sys.executable).with_name("csp2sat")
    return [str(exe)] if exe.exists() else [shutil.which("csp2sat") or "csp2sat"]


def parse_answer(text: str) -> tuple[str, int | None]:
    status, best = "UNKNOWN", None
    for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("o "):
            best = int(line[2:].split()[0])
    return status, best


def run(cmd: list[str], timeout: float) -> tuple[str, int | None, float]:
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30).stdout
    except subprocess.TimeoutExpired:
        out = ""
    status, best = parse_answer(out)
    return status, best, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prefix", nargs="*", help="only instances whose name starts with one of these")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per instance and solver (default 120)")
    parser.add_argument("--stored-ace", action="store_true", help="do not run ACE; use the times stored with the corpus")
    args = parser.parse_args()
    expected = json.loads((CORPUS / "expected.json").read_text())
    names = [n for n in expected if not args.prefix or any(n.startswith(p) for p in args.prefix)]
    jar = None
    if not args.stored_ace:
        import importlib.util

        spec = importlib.util.find_spec("pycsp3")  # not imported: PyCSP3 reads sys.argv when imported
        if spec is None or spec.origin is None:
            parser.error("pycsp3 is not installed (pip install pycsp3), or use --stored-ace")
        jar = Path(spec.origin).parent / "solvers" / "ace" / "ACE-2.6.jar"
    print(f"{'instance':26} {'ACE':>16} {'opt':>6} {'time':>7}   {'csp2sat':>16} {'opt':>6} {'time':>7}")
    totals = [0.0, 0.0]
    bad = 0
    for name in names:
        path = CORPUS / "instances" / f"{name}.xml"
        ref = expected[name]
        if jar is not None:
            a_status, a_best, a_time = run(["java", "-jar", str(jar), str(path), f"-t={int(args.timeout)}s"], args.timeout)
        else:
            a_status, a_best, a_time = ref["status"], ref["optimum"], ref["ace_seconds"]
        if a_status != "OPTIMUM FOUND":
            a_best = None
        c_status, c_best, c_time = run(csp2sat_command() + ["solve", "--timeout", str(args.timeout), str(path)], args.timeout)
        if c_status != "OPTIMUM FOUND":
            c_best = None
        totals[0] += a_time
        totals[1] += c_time
        mark = ""
        if (c_status, c_best) != (ref["status"], ref["optimum"]):
            mark = "  <-- differs from the stored ACE answer"
            bad += 1
        elif (a_status, a_best) != (c_status, c_best):
            mark = "  <-- ACE differs (this run)"
        print(f"{name:26} {a_status:>16} {a_best!s:>6} {a_time:7.2f}   {c_status:>16} {c_best!s:>6} {c_time:7.2f}{mark}", flush=True)
    print(f"{'total (' + str(len(names)) + ' instances)':26} {'':>16} {'':>6} {totals[0]:7.2f}   {'':>16} {'':>6} {totals[1]:7.2f}")
    print(f"{bad} instance(s) where csp2sat differs from the stored reference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
