"""Beyond Sugar, output/input stage: DIMACS CNF out, external solver answers back in.

`write_cnf` writes the compiled CNF in standard DIMACS (``p cnf V C``) so that
any SAT solver can run it. `build_map` records, for every user variable, how
to read its value from a SAT assignment without recompiling: a Boolean's
literal, and for an integer its domain values with, for each value ``a``, the
order literal of ``x <= a`` (``true`` for the largest value; ``false``
never occurs for a value of the domain), or, for a direct-encoded integer
(``-O int``), its possible values with the literal of ``x = a`` each (``eq``),
or for a log-encoded one its lower bound and bits. The map also records the source
file's path and SHA-256, so `decode` can re-check the answer against the
original constraints with the independent evaluator, and warn when the file
is gone or has changed since encoding.

`read_solver_output` accepts the two common answer formats:

* MiniSat's result file: a first line ``SAT`` / ``UNSAT`` / ``INDET``, then the
  literals of the model ending with ``0``;
* SAT-competition output: ``s SATISFIABLE`` / ``s UNSATISFIABLE`` /
  ``s UNKNOWN``, the model on ``v ...`` lines ending with ``0``, ``c`` comments.

The objective of an optimisation problem is not encoded (a DIMACS file has
no objective): the CNF's models are the problem's feasible solutions.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, TextIO

from csp2sat.diagnostics import STDIN, CspError, Exit, decode_utf8, display_name

MAP_FORMAT = "csp2sat-map"
MAP_VERSION = 1


# A CNF with at most this many variables has its literals' texts looked up in a table of every
# literal's text (`_literal_texts`: ~60 bytes per literal, 30 MB at the limit); above it each
# literal is formatted on its own. (`csp2sat encode` of magicSquare-10x10, 9.8 M clauses: 25.8 s -> 6.6 s.)
TEXT_TABLE_VARS = 1 << 18
# Literals turned into text and written at a time (1 << 20: 2x the peak memory of `encode` on magicSquare-8x8).
WRITE_CHUNK = 1 << 16


def _literal_texts(top: int) -> list[str]:
    """The text of every literal -top..top, indexed by the literal itself (negative ones from the end); 0 ends a clause."""
    return ["0\n"] + [str(v) for v in range(1, top + 1)] + [str(-v) for v in range(top, 0, -1)]


def write_cnf(compiled: Any, out: TextIO, comments: Iterable[str] = ()) -> int:
    """Write the compiled clauses to `out` in DIMACS CNF, with `comments` as ``c`` lines first.

    Returns the highest variable that occurs in a clause: a solver may leave the
    variables above it out of its model (MiniSat does), as they are free.
    """
    for line in comments:
        out.write(f"c {line}\n")
    top = compiled.num_vars
    out.write(f"p cnf {top} {compiled.num_clauses}\n")
    # The buffer is in DIMACS order already (each clause's literals, then 0): a chunk of it is one
    # join of the literals' texts, with 0 written "0\n" and the space after it dropped.
    lits = compiled.literal_array()
    table = _literal_texts(top) if top <= TEXT_TABLE_VARS else None
    highest = 0
    clause_ended = True
    for start in range(0, len(lits), WRITE_CHUNK):
        values = lits[start: start + WRITE_CHUNK].tolist()
        chunk_highest = max(max(values), -min(values))
        highest = max(highest, chunk_highest)
        if table is not None and chunk_highest <= top:
            words = list(map(table.__getitem__, values))
        else:
            words = list(map(str, values))
            for k in [k for k, lit in enumerate(values) if not lit]:
                words[k] = "0\n"
        if not clause_ended:
            out.write(" ")  # the chunk before ended inside a clause
        out.write(" ".join(words).replace("\n ", "\n"))
        clause_ended = values[-1] == 0
    return highest


def sha256_text(text: str) -> str:
    """The hex SHA-256 of `text` encoded as UTF-8 (what the map records of the source)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _lit(literals: list[int]) -> int | bool:
    """A single literal from `value_literals` output: [] means always true."""
    if not literals:
        return True
    if len(literals) != 1:
        raise ValueError("a Boolean variable must be one literal")
    return literals[0]


def build_map(compiled: Any, model: Any, source_path: str, source_text: str) -> dict:
    """The decoding map of a compiled model (JSON-ready; see the module docstring)."""
    int_vars = []
    for var in model.int_vars.values():
        log = compiled.log_bits(var.name)
        if log is not None:
            # A log-encoded variable (huge domain): its bits, not one literal per value.
            lb, bits = log
            int_vars.append({"name": var.name, "printed": not var.name.startswith("_"), "lb": lb, "bits": bits})
            continue
        eqs = compiled.direct_literals(var.name)
        if eqs is not None:
            # A direct-encoded variable: one literal "x = a" per value it can still take.
            int_vars.append({"name": var.name, "printed": not var.name.startswith("_"),
                             "values": compiled.domain_values(var.name), "eq": eqs})
            continue
        values = list(var.domain.values())
        int_vars.append(
            {
                "name": var.name,
                "printed": not var.name.startswith("_"),
                "values": values,
                "le": [compiled.le_literal(var.name, a) for a in values],
            }
        )
    bool_vars = []
    for var in model.bool_vars.values():
        key = model.bool_key(var.name)
        try:
            lit = _lit(list(compiled.value_literals(key, True)))
        except ValueError:  # the compiler proved the variable false
            lit = False
        bool_vars.append({"name": var.name, "key": key, "printed": not var.name.startswith("_"), "lit": lit})
    return {
        "format": MAP_FORMAT,
        "version": MAP_VERSION,
        "source": {"path": source_path, "sha256": sha256_text(source_text)},
        "cnf": {"vars": compiled.num_vars, "clauses": compiled.num_clauses},
        "objective": None
        if model.objective is None
        else {"sense": model.objective.sense, "var": model.objective.var, "note": "not encoded"},
        "int_vars": int_vars,
        "bool_vars": bool_vars,
    }


def dump_map(mapping: dict, out: TextIO) -> None:
    """Write a map as JSON with one variable per line (readable, and a fraction of the size of indented JSON)."""
    out.write("{\n")
    scalars = [(k, v) for k, v in mapping.items() if k not in ("int_vars", "bool_vars")]
    for key, value in scalars:
        out.write(f" {json.dumps(key)}: {json.dumps(value)},\n")
    for key in ("int_vars", "bool_vars"):
        rows = ",\n".join("  " + json.dumps(var, separators=(",", ":")) for var in mapping[key])
        out.write(f" {json.dumps(key)}: [\n{rows}\n ]{',' if key == 'int_vars' else ''}\n")
    out.write("}\n")


def load_map(path: str) -> dict:
    """Read and check a map file written by `csp2sat encode`."""
    name = display_name(path)
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as err:
        raise CspError(f"cannot read map file: {err.strerror}", file=name, exit=Exit.IO) from None
    text = decode_utf8(data, name)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CspError(f"not a csp2sat map file: {err.msg}", err.lineno, err.colno, name, Exit.SYNTAX) from None
    if not isinstance(data, dict) or data.get("format") != MAP_FORMAT:
        raise CspError("not a csp2sat map file (no \"format\": \"csp2sat-map\")", 1, 1, name, Exit.SYNTAX)
    if data.get("version") != MAP_VERSION:
        raise CspError(f"unsupported map version {data.get('version')!r}", 1, 1, name, Exit.SYNTAX)
    problem = _map_problem(data)
    if problem:
        raise CspError(f"not a valid csp2sat map: {problem}", file=name, exit=Exit.SYNTAX)
    return data


def _map_problem(data: dict) -> str | None:
    """What is wrong with the structure of a map (edited by hand, truncated, ...), or None."""

    def count(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and x >= 0

    def ints(xs: Any) -> bool:
        return isinstance(xs, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in xs)

    source = data.get("source")
    if not (isinstance(source, dict) and isinstance(source.get("path"), str) and isinstance(source.get("sha256"), str)):
        return '"source" must hold "path" and "sha256"'
    cnf = data.get("cnf")
    if not (isinstance(cnf, dict) and count(cnf.get("vars")) and count(cnf.get("clauses"))):
        return '"cnf" must hold the numbers of "vars" and "clauses"'
    top = cnf["vars"]
    if "clause_vars" in data and not (count(data["clause_vars"]) and data["clause_vars"] <= top):
        return f'"clause_vars" must be a number of variables from 0 to {top} ("cnf" "vars")'
    objective = data.get("objective")
    if objective is not None and not (isinstance(objective, dict) and objective.get("sense") in ("minimize", "maximize")
                                      and isinstance(objective.get("var"), str)):
        return '"objective" must be null or hold "sense" (minimize or maximize) and "var"'

    def literal(x: Any) -> bool:  # a CNF literal of this map's CNF, or True/False (decided by the compiler)
        return isinstance(x, bool) or (isinstance(x, int) and 0 < abs(x) <= top)

    def literals(xs: Any) -> bool:
        return ints(xs) and all(literal(x) for x in xs)
    within = f" (each literal ±1..±{top}, the CNF's variables, or true/false)"
    for key in ("int_vars", "bool_vars"):
        if not isinstance(data.get(key), list) or not all(isinstance(v, dict) for v in data[key]):
            return f'"{key}" must be a list of objects'
    for var in data["int_vars"]:
        name = var.get("name")
        if not isinstance(name, str) or not isinstance(var.get("printed"), bool):
            return f'integer variable {name!r}: needs "name" and "printed"'
        if "bits" in var:
            if not (isinstance(var.get("lb"), int) and literals(var["bits"])):
                return f'integer variable {name!r}: needs "lb" and a list of "bits"{within}'
        elif "eq" in var:
            if not (ints(var.get("values")) and var["values"] and literals(var["eq"]) and len(var["eq"]) == len(var["values"])):
                return f'integer variable {name!r}: needs "values" and one "eq" literal per value{within}'
        elif not (
            ints(var.get("values")) and var["values"] and isinstance(var.get("le"), list)
            and len(var["le"]) == len(var["values"]) and all(literal(x) for x in var["le"])
        ):
            return f'integer variable {name!r}: needs "values" and one "le" literal per value{within}'
    for var in data["bool_vars"]:
        name = var.get("name")
        if not (isinstance(name, str) and isinstance(var.get("key"), str) and isinstance(var.get("printed"), bool)
                and literal(var.get("lit"))):
            return f'Boolean variable {name!r}: needs "name", "key", "printed" and "lit"{within}'
    return None


@dataclass
class SolverOutput:
    """An external solver's verdict and, when satisfiable, its assignment."""

    status: str  # "SATISFIABLE" | "UNSATISFIABLE" | "UNKNOWN"
    true_vars: set[int]
    assigned: set[int] = field(default_factory=set)  # every variable the model gives a value (either sign)


_STATUS = {
    "SAT": "SATISFIABLE",
    "SATISFIABLE": "SATISFIABLE",
    "UNSAT": "UNSATISFIABLE",
    "UNSATISFIABLE": "UNSATISFIABLE",
    "INDET": "UNKNOWN",
    "UNKNOWN": "UNKNOWN",
    "INDETERMINATE": "UNKNOWN",
}


def read_solver_output(text: str, file: str = "<string>") -> SolverOutput:
    """Parse MiniSat or SAT-competition solver output (see the module docstring)."""
    status: str | None = None
    true_vars: set[int] = set()
    assigned: set[int] = set()
    ended = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        words = line.split()
        if status is None:
            head = words[1] if words[0] == "s" and len(words) > 1 else words[0]
            if head not in _STATUS or (words[0] == "s") != (len(words) == 2):
                raise CspError(
                    f"expected a solver verdict (SAT, UNSAT, s SATISFIABLE, ...), found {line[:40]!r}",
                    lineno, 1, file, Exit.SYNTAX,
                )
            status = _STATUS[head]
            continue
        if words[0] == "v":
            words = words[1:]
            col0 = raw.index("v") + 2
        else:
            col0 = len(raw) - len(raw.lstrip()) + 1
        def column(word: str, col0: int = col0, raw: str = raw) -> int:
            return col0 + raw[col0 - 1 :].find(word)

        for word in words:
            try:
                lit = int(word)
            except ValueError:
                raise CspError(f"expected a literal, found {word!r}", lineno, column(word), file, Exit.SYNTAX) from None
            if ended:
                raise CspError(f"literal {lit} after the 0 that ends the model (two models run together?)",
                               lineno, column(word), file, Exit.SYNTAX)
            if lit and abs(lit) in assigned and (lit > 0) != (abs(lit) in true_vars):
                raise CspError(f"the model gives variable {abs(lit)} both values ({lit} and {-lit})",
                               lineno, column(word), file, Exit.SYNTAX)
            if lit == 0:
                ended = True
            else:
                assigned.add(abs(lit))
                if lit > 0:
                    true_vars.add(lit)
    if status is None:
        raise CspError("empty solver output: no SAT/UNSAT verdict", 1, 1, file, Exit.SYNTAX)
    if status == "SATISFIABLE" and not ended:
        raise CspError("the model is not terminated by 0 (truncated solver output?)", 0, 0, file, Exit.SYNTAX)
    return SolverOutput(status, true_vars, assigned)


def _holds(lit: int | bool, true_vars: set[int]) -> bool:
    """The truth of a map literal under the assignment (unlisted variables are false)."""
    if isinstance(lit, bool):
        return lit
    return (abs(lit) in true_vars) == (lit > 0)


def decode_assignment(mapping: dict, true_vars: set[int]) -> dict[str, int | bool]:
    """Values of every variable of the map (bools under their `bool_key`), in definition order."""
    values: dict[str, int | bool] = {}
    for var in mapping["int_vars"]:
        if "bits" in var:  # log encoding: binary digits above the lower bound
            values[var["name"]] = var["lb"] + sum(1 << j for j, bit in enumerate(var["bits"]) if bit in true_vars)
            continue
        if "eq" in var:  # direct encoding: the value whose literal is true
            vals = var["values"]
            values[var["name"]] = next((a for a, eq in zip(vals, var["eq"]) if eq in true_vars), vals[-1])
            continue
        # Order encoding: the value is the smallest a with x <= a true.
        vals = var["values"]
        values[var["name"]] = next((a for a, le in zip(vals, var["le"]) if _holds(le, true_vars)), vals[-1])
    for var in mapping["bool_vars"]:
        values[var["key"]] = _holds(var["lit"], true_vars)
    return values


def unassigned(mapping: dict, assigned: set[int]) -> list[tuple[str, int]]:
    """(variable name, CNF variable) for each literal of the map that the solver's model leaves out.

    Such a model is partial: reading the missing literals as false could
    print values that the solver never chose. Variables above the highest one
    in any clause (``clause_vars``, recorded by ``encode``) are free, so a
    solver may leave them out: they are not missing.
    """
    free_above = mapping.get("clause_vars")
    if free_above is not None:
        assigned = assigned | set(range(free_above + 1, mapping.get("cnf", {}).get("vars", free_above) + 1))
    missing = []
    for var in mapping["int_vars"]:
        for lit in var.get("bits", var.get("eq", var.get("le", []))):
            if not isinstance(lit, bool) and abs(lit) not in assigned:
                missing.append((var["name"], abs(lit)))
    for var in mapping["bool_vars"]:
        lit = var["lit"]
        if not isinstance(lit, bool) and abs(lit) not in assigned:
            missing.append((var["name"], abs(lit)))
    return missing


def printed_answer(mapping: dict, values: dict[str, int | bool]) -> list[tuple[str, int | bool]]:
    """(name, value) of the printed variables, ints then bools, as Sugar prints them."""
    pairs = [(v["name"], values[v["name"]]) for v in mapping["int_vars"] if v["printed"]]
    pairs += [(v["name"], values[v["key"]]) for v in mapping["bool_vars"] if v["printed"]]
    return pairs
