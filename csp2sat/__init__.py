"""csp2sat: a Sugar-compatible constraint solver in Python.

Sugar CSP files are parsed (`parse`), compiled by order encoding into CNF and
solved with a PySAT solver (`solve`). The pipeline, one module per stage:
text -> `parser` (syntax tree) -> `checker` (model) -> `normalise`
(clauses over Boolean and linear literals) -> `encoders` (CNF) -> `solver`
(model of the SAT solver) -> answer, checked by `evaluator` before printing.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
