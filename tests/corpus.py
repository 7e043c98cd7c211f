"""Test helpers for the conformance corpus in `tests/conformance/` (the project's own copy).

Reads the `expected.json` files (keeping duplicate keys, which occur when an
int and a bool share a name), turns an expected solution into the flat value
mapping of a `Model` (Booleans under `model.bool_key`), and completes a
printed answer with values for the hidden `_` variables so that the evaluator
can check it.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Callable

from csp2sat.evaluator import satisfies
from csp2sat.syntax import Model

CONFORMANCE = Path(__file__).parent / "conformance"

# Beyond this many combinations of hidden values a completion is not searched.
MAX_COMPLETIONS = 100_000


def _pairs_hook(pairs: list[tuple[str, object]]) -> dict:
    """Objects as dicts, except solutions with a repeated name: then the pairs list is kept."""
    names = [k for k, _ in pairs]
    if len(names) != len(set(names)):
        return {"__pairs__": pairs}
    return dict(pairs)


def expected(folder: str) -> dict[str, dict]:
    """The `expected.json` of one corpus folder, file name -> record."""
    text = (CONFORMANCE / folder / "expected.json").read_text(encoding="utf-8")
    return json.loads(text, object_pairs_hook=_pairs_hook)


def cases(folder: str, keep: Callable[[dict], bool] = lambda record: True) -> list[tuple[Path, dict]]:
    """(path, record) for every file of `folder` whose record passes `keep`, sorted by name."""
    return [(CONFORMANCE / folder / name, rec) for name, rec in sorted(expected(folder).items()) if keep(rec)]


def solution_values(model: Model, solution: dict) -> dict[str, int | bool]:
    """An expected solution as a flat value mapping of `model` (a bool sharing an int's name -> bool_key)."""
    pairs = solution["__pairs__"] if "__pairs__" in solution else list(solution.items())
    values: dict[str, int | bool] = {}
    for name, value in pairs:
        is_bool = isinstance(value, bool) and name in model.bool_vars
        values[model.bool_key(name) if is_bool else name] = value
    return values


def complete(model: Model, shown: dict[str, int | bool]) -> dict[str, int | bool] | None:
    """`shown` extended with hidden variables so that the model is satisfied, or None if impossible.

    Returns `shown` unchanged (checked) when nothing is hidden.
    """
    keys = list(model.int_vars) + [model.bool_key(b) for b in model.bool_vars]
    hidden = [k for k in keys if k not in shown]
    domains = [list(model.int_vars[k].domain.values()) if k in model.int_vars else [False, True] for k in hidden]
    size = 1
    for d in domains:
        size *= len(d)
    if size > MAX_COMPLETIONS:
        raise ValueError(f"{size} completions of hidden variables {hidden[:5]}...: too many to search")
    for combo in itertools.product(*domains):
        candidate = dict(shown, **dict(zip(hidden, combo)))
        if satisfies(model, candidate):
            return candidate
    return None
