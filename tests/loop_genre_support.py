"""Test helpers of the genres in this project's own format family: values of a solution file.

The answer formats of data/README.md for Slitherlink and Masyu draw each loop
edge at a fixed character position; Hashiwokakero's lists bridges. These
helpers read such a file back into the edge/bridge variable values the genre
decoders take, so decoders and renderers can be tested without a solver.
"""

from __future__ import annotations


def grid_edge_values(answer: str, rows: int, cols: int, h_cols: int, v_rows: int, v_cols: int) -> dict[str, int]:
    """h_R_C / v_R_C values from a drawing where row 2R, column 2C+1 holds h_R_C ('-') and
    row 2R+1, column 2C holds v_R_C ('|'). `rows` counts the h rows, `h_cols` the h columns."""
    lines = answer.splitlines()

    def at(r: int, c: int) -> str:
        return lines[r][c] if r < len(lines) and c < len(lines[r]) else " "

    values = {f"h_{r}_{c}": int(at(2 * r, 2 * c + 1) == "-") for r in range(rows) for c in range(h_cols)}
    values.update({f"v_{r}_{c}": int(at(2 * r + 1, 2 * c) == "|") for r in range(v_rows) for c in range(v_cols)})
    return values


def bridge_values(answer: str, puzzle) -> dict[str, int]:
    """Bridge variable values from a Hashiwokakero bridge list (``r1 c1 r2 c2 k`` lines)."""
    by_ends = {(b.a, b.b): b.var for b in puzzle.bridges}
    values = {b.var: 0 for b in puzzle.bridges}
    for line in answer.splitlines():
        if line.strip() and not line.startswith("#"):
            r1, c1, r2, c2, k = map(int, line.split())
            values[by_ends[((r1, c1), (r2, c2))]] = k
    return values


def bridge_lines(answer: str) -> list[str]:
    """The bridge lines of a bridge list, sorted (comments and order are not part of the answer)."""
    return sorted(line.strip() for line in answer.splitlines() if line.strip() and not line.startswith("#"))
