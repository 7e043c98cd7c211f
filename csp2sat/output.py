"""Output stage: answers written exactly as Sugar writes them.

``s SATISFIABLE``, then ``a NAME<TAB>VALUE`` for every printed integer variable
in definition order, then the printed Booleans as ``true``/``false``, then a
lone ``a``; ``o N`` before each improved answer of an optimisation; ``s
OPTIMUM FOUND`` / ``s UNSATISFIABLE`` / ``s UNKNOWN``. Names starting with
``_`` are not printed. Comment lines start with ``c``.
"""

from __future__ import annotations

from typing import Iterable, Mapping, TextIO, Union

from csp2sat.syntax import Model


def format_value(value: Union[int, bool]) -> str:
    """A value as Sugar prints it: integers in decimal, Booleans as true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_pairs(out: TextIO, pairs: Iterable[tuple[str, Union[int, bool]]]) -> None:
    """One answer block from (name, value) pairs already in Sugar's order, then the lone ``a``."""
    out.write("".join(f"a {name}\t{format_value(value)}\n" for name, value in pairs) + "a\n")


def answer_pairs(model: Model, values: Mapping[str, Union[int, bool]]) -> list[tuple[str, Union[int, bool]]]:
    """The printed variables of one answer as (name, value): ints in definition order, then bools."""
    pairs: list[tuple[str, Union[int, bool]]] = [(var.name, values[var.name]) for var in model.printed_int_vars()]
    pairs += [(var.name, values[model.bool_key(var.name)]) for var in model.printed_bool_vars()]
    return pairs


def write_answer(out: TextIO, model: Model, values: Mapping[str, Union[int, bool]]) -> None:
    """Write one answer block of `model` to `out`."""
    write_pairs(out, answer_pairs(model, values))


def objective_line(objective_values: tuple[int, ...]) -> str:
    """Sugar's ``o`` line: the values of every variable named in the objective."""
    return "o " + " ".join(str(v) for v in objective_values)


def status_line(status: str) -> str:
    """Sugar's ``s`` line."""
    return f"s {status}"


def stats_lines(stats: Mapping[str, object]) -> list[str]:
    """``c`` comment lines with the time and size of each stage, for ``-v``."""
    order = [
        ("parse_s", "parse"),
        ("normalise_s", "normalise"),
        ("encode_s", "encode"),
        ("load_s", "load"),
        ("solve_s", "solve"),
    ]
    lines = []
    for key, label in order:
        if key in stats:
            lines.append(f"c {label:<10} {float(stats[key]):8.3f} s")
            if key == "normalise_s" and stats.get("normalise_passes", 1) > 1:
                lines[-1] += "  (twice: again over the domains that bounds propagation narrowed)"
    sizes = []
    for key, label in [
        ("int_vars", "int vars"),
        ("bool_vars", "bool vars"),
        ("aux_int_vars", "aux int vars"),
        ("aux_bool_vars", "aux bool vars"),
        ("cnf_vars", "CNF vars"),
        ("cnf_clauses", "CNF clauses"),
        ("sat_calls", "SAT calls"),
    ]:
        if key in stats:
            sizes.append(f"{stats[key]:,} {label}")
    if sizes:
        lines.append("c size       " + ", ".join(sizes))
    if "solver" in stats:  # how the search ran: -O satmode= and, with an objective, -O objective=
        search = [str(stats["solver"])] + ([f"satmode {stats['sat_mode']}"] if "sat_mode" in stats else [])
        if "objective_strategy" in stats:
            strategy = f"objective {stats['objective_strategy']}"
            if stats.get("probes_out_of_budget"):
                strategy += f" ({stats['probes_out_of_budget']} probes out of budget)"
            search.append(strategy)
        if "conflicts" in stats:
            search.append(f"{stats['conflicts']:,} conflicts")
        lines.append("c search     " + ", ".join(search))
    if stats.get("shrinks"):  # the objective search re-encoded with a narrowed objective domain
        lines.append(f"c re-encode  {float(stats.get('shrink_s', 0.0)):8.3f} s  ({stats['shrinks']} times, "
                     f"last CNF {stats.get('cnf_clauses_last', 0):,} clauses)")
    if stats.get("symmetry_constraints"):
        lines.append(f"c symmetry   {stats['symmetry_constraints']:,} value-precedence constraints")
    return lines
