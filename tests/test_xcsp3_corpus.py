"""The XCSP3 corpus (tests/xcsp3/): csp2sat gives ACE's status and optimum on every instance.

Instances and ACE's answers were made by scripts/xcsp3_corpus.py (PyCSP3
models of classic problems); this test needs neither Java nor PyCSP3. Every
answer is checked twice: against the translated model (inside the solver) and
against the XML constraints (`csp2sat.xcsp3_check`), objective included.
The instances csp2sat needs more than a few seconds for are in the slow group.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from csp2sat.solver import solve
from csp2sat.xcsp3 import read_xcsp3
from csp2sat.xcsp3_check import check_answer

CORPUS = Path(__file__).parent / "xcsp3"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())
# More than ~3 s each on a loaded 2-core machine (knapsack-30 about 7 s).
SLOW = {"knapsack-30", "warehouse-8", "golomb-8", "tsp-11"}


def _params() -> list:
    return [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in sorted(EXPECTED)]


def test_the_corpus_covers_every_supported_constraint() -> None:
    covered = {tag for ref in EXPECTED.values() for tag in ref["constraints"]}
    wanted = {"intension", "extension", "allDifferent", "allEqual", "sum", "count", "nValues", "cardinality", "element",
              "channel", "minimum", "maximum", "ordered", "lex", "regular", "mdd", "noOverlap", "cumulative", "circuit",
              "objective-expression", "objective-sum", "objective-maximum", "objective-nValues"}
    assert wanted <= covered, sorted(wanted - covered)
    assert len(EXPECTED) >= 60


@pytest.mark.parametrize("name", _params())
def test_same_answer_as_ace(name: str) -> None:
    ref = EXPECTED[name]
    translation = read_xcsp3(str(CORPUS / "instances" / f"{name}.xml"))
    result = solve(translation.model, timeout=120)
    assert result.status == ref["status"]
    if result.all_values is None:
        return
    objective = translation.model.objective
    cost = result.all_values[objective.var] if objective is not None else None
    assert cost == ref["optimum"]
    by_id = {x: result.all_values[n] for x, n in translation.names.items()}
    assert check_answer(translation.instance, by_id, cost) == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_convert_gives_a_sugar_file_of_the_same_model(name: str) -> None:
    import io

    from csp2sat.commands._common import parse_model
    from csp2sat.csp_writer import write_model

    model = read_xcsp3(str(CORPUS / "instances" / f"{name}.xml")).model
    text = io.StringIO()
    write_model(model, text, [name])
    sugar = parse_model(text.getvalue(), f"{name}.csp")
    assert [c.formula for c in sugar.constraints] == [c.formula for c in model.constraints]
    assert [(v.name, v.domain) for v in sugar.int_vars.values()] == [(v.name, v.domain) for v in model.int_vars.values()]
    assert [(r.name, r.arity, r.supports, r.tuples) for r in sugar.relations.values()] == [
        (r.name, r.arity, r.supports, r.tuples) for r in model.relations.values()
    ]
    assert (sugar.objective and (sugar.objective.sense, sugar.objective.var)) == (
        model.objective and (model.objective.sense, model.objective.var))
