"""Sugar's own modes of `csp2sat solve`: ``--max`` (Max-CSP) and ``--competition``/``-c`` output.

`csp2sat.commands.solve` calls `add_arguments` when it builds its parser,
`prepare(args, model)` before solving (Max-CSP softens the model,
`csp2sat.maxcsp`) and `write_answer(args, out, model, values)` for each answer.
Sugar's single-dash spellings (``-max``, ``-competition``) are accepted too.
"""

from __future__ import annotations

import argparse
from typing import Mapping, TextIO, Union

from csp2sat import output
from csp2sat.syntax import Model


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --max and --competition to the `solve` parser."""
    group = parser.add_argument_group("Sugar's modes")
    group.add_argument(
        "--max", "-max", dest="max_csp", action="store_true",
        help="Max-CSP: every constraint soft, minimise the number violated (o N = violations)",
    )
    group.add_argument(
        "-c", "--competition", "-competition", dest="competition", action="store_true",
        help="print each answer as one line 'v VALUE ...' (definition order) instead of 'a' lines",
    )


def prepare(args: argparse.Namespace, model: Model) -> Model:
    """The model to solve: `model` itself, or its Max-CSP version with --max."""
    if getattr(args, "max_csp", False):
        from csp2sat.maxcsp import soften

        return soften(model)
    return model


def write_answer(args: argparse.Namespace, out: TextIO, model: Model, values: Mapping[str, Union[int, bool]]) -> None:
    """One answer: Sugar's ``a`` block, or with --competition its ``v`` line."""
    if getattr(args, "competition", False):
        pairs = output.answer_pairs(model, values)
        out.write("v" + "".join(" " + output.format_value(v) for _, v in pairs) + "\n")
    else:
        output.write_answer(out, model, values)
