"""`csp2sat solve FILE.xml`: solve an XCSP3 instance and answer in the XCSP3 competition format.

Reads and translates the instance (`csp2sat.xcsp3`), solves the model like a
Sugar file (every answer checked by `csp2sat.evaluator` against the
translated model), checks the answer printed once more against the XML
constraints themselves (`csp2sat.xcsp3_check`, so that a translation bug
cannot hide), and prints ``o``/``s``/``v`` lines (`csp2sat.xcsp3_output`).
An unsupported construct prints ``s UNSUPPORTED`` (as competition entrants
do) besides the positioned error and exit status 5; ``--timeout`` counts
from the start, reading included.
"""

from __future__ import annotations

import argparse
import sys
import time

from csp2sat.diagnostics import CspError, Exit


def run(args: argparse.Namespace, options: dict[str, str]) -> int:
    """Solve the XCSP3 file `args.file`; print the competition format on stdout."""
    from csp2sat import output
    from csp2sat.solver import OPTIMUM, SATISFIABLE, UNKNOWN, interrupt_handled, solve
    from csp2sat.xcsp3 import read_xcsp3
    from csp2sat.xcsp3_check import check_answer
    from csp2sat.xcsp3_output import instantiation

    from csp2sat.commands import solve_modes

    if solve_modes.requested(args) or getattr(args, "max_csp", False) or getattr(args, "competition", False):
        raise CspError(
            "--all, -n, --count, --unique, --facts, --max and --competition are for Sugar files; "
            "XCSP3 input always answers in the XCSP3 competition format (convert it first: csp2sat convert)",
            file="csp2sat", exit=Exit.USAGE,
        )
    out = sys.stdout
    try:  # inside `solve.run`'s watchdog: the time limit covers reading too, as in the competition
        started = time.perf_counter()
        translation = read_xcsp3(args.file)
        parse_s = time.perf_counter() - started
    except KeyboardInterrupt:
        interrupt_handled()
        out.write(output.status_line(UNKNOWN) + "\n")
        out.flush()
        return Exit.OK
    except CspError as err:
        if err.exit == Exit.UNSUPPORTED:  # what a competition entrant says, beside the positioned error
            out.write("s UNSUPPORTED\n")
            out.flush()
        raise
    model, inst = translation.model, translation.instance
    objective = model.objective

    def on_answer(values, objective_values) -> None:
        if objective is not None:
            out.write(f"o {values[objective.var]}\n")
            out.flush()

    if getattr(args, "jobs", 1) > 1 or getattr(args, "scheduler", None):
        status, values, stats = _race(args, model, options, on_answer)
    else:
        result = solve(model, solver=args.solver, verify=args.verify,
                       options=options, on_answer=on_answer)
        status, values, stats = result.status, result.all_values, result.stats
    if values is None:
        out.write(output.status_line(status if status != SATISFIABLE else UNKNOWN) + "\n")
    else:
        by_id = {xid: values[name] for xid, name in translation.names.items()}
        cost = values[objective.var] if objective is not None else None
        if args.verify:
            problems = check_answer(inst, by_id, cost)
            if problems:
                raise CspError(
                    f"internal error: the answer violates {problems[0]} ({len(problems)} problem(s)); "
                    "this is a bug in csp2sat, the answer is withheld",
                    file=inst.file, exit=Exit.VERIFY,
                )
        out.write(output.status_line(OPTIMUM if status == OPTIMUM else SATISFIABLE) + "\n")
        out.write(instantiation(inst, translation.names, values, cost) + "\n")
    out.flush()
    if args.verbose:
        stats = dict(stats)
        stats["parse_s"] = parse_s
        for line in output.stats_lines(stats):
            print(line, file=sys.stderr)
    return Exit.OK


def _race(args: argparse.Namespace, model, options: dict[str, str], on_answer) -> tuple[str, dict | None, dict]:
    """--jobs N / --scheduler: the solver portfolio (locally or on Dask); (status, every value of the best answer, stats).

    Stopped by the time limit, Ctrl-C or SIGTERM, it keeps the best answer so far, as `solve` does.
    """
    from csp2sat.compiler import compile_model
    from csp2sat.solver import SATISFIABLE, UNKNOWN, interrupt_handled

    compiled = compile_model(model, options=options)
    best: dict = {}

    def keep(values, objective_values) -> None:
        best["values"] = values
        on_answer(values, objective_values)

    try:
        if getattr(args, "scheduler", None):
            from csp2sat.dask_portfolio import portfolio_solve_on_dask

            result = portfolio_solve_on_dask(model, compiled, max(args.jobs, 1), args.scheduler,
                                             first=args.solver, verify=args.verify, on_answer=keep)
        else:
            from csp2sat.parallel import portfolio_solve

            result = portfolio_solve(model, compiled, args.jobs, first=args.solver, verify=args.verify, on_answer=keep)
    except KeyboardInterrupt:  # the watchdog of `solve.run`: the workers are stopped already
        interrupt_handled()
        values = best.get("values")
        return (SATISFIABLE if values is not None else UNKNOWN), values, {}
    for error in result.errors:
        print(f"csp2sat: portfolio worker failed: {error}", file=sys.stderr)
    return result.status, result.values if result.values is not None else best.get("values"), {}
