"""Resource limit between "normalise" and "encode": will the CNF fit in memory?

Before a clause is written, `check_cnf` estimates from the normalised problem
how many clauses and variables each encoder will produce (an upper bound for
the order encoding of sums, exact counts elsewhere), converts that to bytes
with the figures measured in docs/performance.md (`BYTES_PER_CLAUSE`,
`BYTES_PER_VAR`: the clause buffer plus the SAT solver's copy) and, when the
total exceeds the limit, stops with `Exit.LIMIT`: how many clauses, which
constraints cost most, and which option would help. A run then never swaps
the machine to death.

The limit is process-wide: `set_limit(MB)` (the ``--memory-limit`` option), by
default what the system reports available (``MemAvailable`` in /proc/meminfo)
plus what this process already uses, minus a margin; under an address-space
limit (``ulimit -v``) no more than the address space it leaves.
"""

from __future__ import annotations

import os
from typing import Sequence

from csp2sat.diagnostics import CspError, Exit
from csp2sat.encoders.alldifferent import choose_method

# Measured peak memory after loading into CaDiCaL, per clause and per CNF variable (docs/performance.md).
BYTES_PER_CLAUSE = 200
BYTES_PER_VAR = 100
# Peak memory of parsing and checking, per character of source text.
BYTES_PER_CHAR = 80
# Share of the available memory that the default limit allows.
AVAILABLE_SHARE = 0.9

_limit_mb: float | None = None


class MemoryLimitError(CspError):
    """The problem would not fit in the memory limit (`Exit.LIMIT`): refused before the memory is taken."""


def set_limit(mb: float | None) -> None:
    """Set the memory limit in MB for every later compilation (None: the default from the system)."""
    global _limit_mb
    _limit_mb = mb


def _meminfo_mb(key: str) -> float | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _rss_mb() -> float:
    try:
        with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def check_text(size: int, file: str) -> None:
    """Raise `CspError` (`Exit.LIMIT`) when parsing `size` characters would not fit in the memory limit."""
    limit, source = limit_mb()
    if limit is None:
        return
    need = _rss_mb() + size * BYTES_PER_CHAR / 2**20
    if need > limit:
        raise MemoryLimitError(
            f"a file of {size:,} characters needs about {need:,.0f} MB to parse and check, before any encoding; "
            f"the memory limit is {_megabytes(limit)} MB ({source})",
            file=file, exit=Exit.LIMIT, notes=("raise the limit with --memory-limit MB, or split the file",),
        )


def _megabytes(limit: float) -> str:
    """A limit in MB as it was given when small (``--memory-limit 0.5``: 0.5, not 0), else rounded (1,024)."""
    return f"{limit:,.0f}" if limit >= 10 else f"{limit:g}"


def limit_mb() -> tuple[float | None, str]:
    """The limit in MB (None: unknown, no check) and where it comes from.

    By default the smaller of what the system has available and what the address-space limit
    (``ulimit -v``, ``prlimit --as``) leaves this process: past the latter, the SAT solver's
    allocations fail inside C++ (an abort, exit 127 or 134, with no message of ours).
    """
    if _limit_mb is not None:
        return _limit_mb, "--memory-limit"
    rss = _rss_mb()
    limits = []
    available = _meminfo_mb("MemAvailable")
    if available is not None:
        limits.append((rss + AVAILABLE_SHARE * available, f"{AVAILABLE_SHARE:.0%} of the memory available"))
    headroom = _address_space_left_mb()
    if headroom is not None:
        limits.append((rss + AVAILABLE_SHARE * headroom, f"{AVAILABLE_SHARE:.0%} of what the address-space limit "
                                                          "(ulimit -v) leaves"))
    if not limits:
        return None, ""
    return min(limits)


def _address_space_left_mb() -> float | None:
    """MB of address space this process may still map under RLIMIT_AS (None: no limit, or unknown)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, (soft - mapped) / 2**20)


def order_sum_cost(sizes: list[int]) -> int:
    """Upper bound of the clauses of one order-encoded ``Σ aᵢxᵢ ≤ c``: the product of all sizes but the largest."""
    if len(sizes) <= 1:
        return 1
    sizes = sorted(sizes)
    cost = 1
    for s in sizes[:-1]:
        cost *= s
    return cost


def alldiff_sweep(domains: Sequence, offsets: Sequence[int]) -> tuple[int, int, int]:
    """(Σ over values of C(terms taking it, 2), Σ over terms of their domain sizes, distinct values), by a sweep over intervals."""
    events: dict[int, int] = {}
    total = 0
    for dom, o in zip(domains, offsets):
        total += dom.size
        for lo, hi in dom.intervals:
            events[lo + o] = events.get(lo + o, 0) + 1
            events[hi + o + 1] = events.get(hi + o + 1, 0) - 1
    pairs = 0
    values = 0
    depth = 0
    points = sorted(events)
    for a, b in zip(points, points[1:]):
        depth += events[a]
        pairs += (b - a) * depth * (depth - 1) // 2
        values += (b - a) if depth else 0
    return pairs, total, values


def _relational_cost(domains: Sequence, offsets: Sequence[int]) -> tuple[int, int]:
    """(clauses, CNF variables) of the relational alldifferent: two binary differences per overlapping pair."""
    ranges = [(d.lb + o, d.ub + o, d.size) for d, o in zip(domains, offsets)]
    clauses = 0
    chooser_vars = 0
    for i, (lo_i, hi_i, size_i) in enumerate(ranges):
        for lo_j, hi_j, size_j in ranges[i + 1:]:
            if hi_i < lo_j or hi_j < lo_i:
                continue
            clauses += 2 * (order_sum_cost([size_i, size_j]) + 1)
            chooser_vars += 1
    return clauses, chooser_vars


def estimate(normal, is_log: Sequence[bool], alldifferent: str, pairwise_limit: int,
             by_origin: bool = True, compared: Sequence[bool] | None = None) -> tuple[int, int, dict[int, int]]:
    """(clauses, CNF variables, clauses per origin) the encoders will produce at most, roughly.

    Origin -1 collects the definitions of auxiliary variables. With ``by_origin=False``
    the per-origin costs (wanted only to explain a refusal) are left empty. `compared`
    is what the compiler passes the alldifferent encoder (`NormalCSP.compared_variables`).
    """
    if compared is None and normal.alldiffs:
        compared = normal.compared_variables()
    doms = normal.int_domains
    sizes = [1 if lg else d.size for d, lg in zip(doms, is_log)]
    bits = [max(d.size - 1, 1).bit_length() if lg else 0 for d, lg in zip(doms, is_log)]
    clauses = sum(max(s - 2, 0) for s in sizes)
    # A log variable's holes are cut by aligned blocks of values: about two clauses per hole, one per bit above ub.
    clauses += sum(2 * (len(d.intervals) - 1) + b for d, b in zip(doms, bits) if b)
    cnf_vars = normal.num_bools + sum(max(s - 1, 0) for s in sizes) + sum(bits)
    per_origin: dict[int, int] = {}
    for lits, origin in zip(normal.clauses, normal.origins):
        cost = 0
        sums = 0
        for lit in lits:
            # Boolean literals (ints) and bounds on one variable cost nothing beyond the clause itself;
            # most clauses of generated files have only those, so they are passed over first.
            if isinstance(lit, int):
                continue
            vs = lit.vars
            if len(vs) == 1:
                continue
            if any(is_log[v] for v in vs):
                width = sum(bits[v] if is_log[v] else sizes[v] for v in vs)
                cost += 16 * width  # adders and a comparator, ~16 clauses per input bit
                cnf_vars += 3 * width
            elif len(vs) > 3 and len(lits) == 1 and lit.c + sum(a < 0 for a in lit.coefs) == 1:
                cost += 3 * len(vs)  # an at-most-one alone: product (2n + 4√n) or over groups (fewer)
                cnf_vars += len(vs)
            elif len(vs) > 3:  # a count: totalizer
                cost += 2 * len(vs) * min(len(vs), abs(lit.c) + 2)
                cnf_vars += len(vs) * min(len(vs), abs(lit.c) + 2)
            else:
                cost += order_sum_cost([sizes[v] for v in vs])
                sums += 1
        if cost:
            cnf_vars += max(sums - 1, 0)
            clauses += cost
        else:
            clauses += 1
            cost = 1
        if by_origin:
            per_origin[origin] = per_origin.get(origin, 0) + cost
    for ad in normal.alldiffs:
        if any(is_log[v] for v in ad.vars):
            n = len(ad.vars)
            cost = n * (n - 1) * 16 * max(bits[v] for v in ad.vars)
        else:
            domains = [doms[v] for v in ad.vars]
            pairs, total, values = alldiff_sweep(domains, ad.offsets)
            method = choose_method(alldifferent, len(ad.vars), values, pairs, any(compared[v] for v in ad.vars),
                                   pairwise_limit)
            value_wise = method == "amo"
            if method == "relational":
                cost, chooser_vars = _relational_cost(domains, ad.offsets)
                cnf_vars += chooser_vars
            else:
                cost = 6 * total if value_wise else pairs
                cnf_vars += 2 * total if value_wise else 0
        clauses += cost
        if by_origin:
            per_origin[ad.origin] = per_origin.get(ad.origin, 0) + cost
    return clauses, cnf_vars, per_origin


def check_cnf(model, normal, is_log: Sequence[bool], options: dict[str, str], pairwise_limit: int,
              compared: Sequence[bool]) -> int:
    """Raise `CspError` (`Exit.LIMIT`) when the CNF of `normal` would not fit in the memory limit; else the estimated clauses.

    `compared`: the compiler's `NormalCSP.compared_variables`, which chooses the alldifferent encodings.
    """
    limit, source = limit_mb()
    method = options.get("alldifferent", "auto")
    clauses, cnf_vars, _ = estimate(normal, is_log, method, pairwise_limit, by_origin=False, compared=compared)
    if limit is None:
        return clauses
    need = _rss_mb() + (clauses * BYTES_PER_CLAUSE + cnf_vars * BYTES_PER_VAR) / 2**20
    if need <= limit:
        return clauses
    _, _, per_origin = estimate(normal, is_log, method, pairwise_limit, compared=compared)  # again, to name the costly lines
    axioms = sum(max(d.size - 2, 0) for d, lg in zip(normal.int_domains, is_log) if not lg)
    notes = [f"~{axioms:,} clauses ({100 * axioms / max(clauses, 1):.0f}%): the order encoding's axioms "
             f"(one per value of each integer variable)"] if axioms > clauses / 10 else []
    costly = sorted(per_origin.items(), key=lambda kv: -kv[1])[:3]
    for origin, cost in costly:
        share = 100 * cost / max(clauses, 1)
        if origin < 0:
            notes.append(f"~{cost:,} clauses ({share:.0f}%): auxiliary variables (split sums, non-linear terms)")
            continue
        con = model.constraints[origin]
        text = con.text if len(con.text) <= 70 else con.text[:67] + "..."
        notes.append(f"line {con.line}: ~{cost:,} clauses ({share:.0f}%): {text}")
    if len(per_origin) > 3:
        notes.append(f"({len(per_origin):,} constraints in all)")
    notes += _advice(normal, is_log, options, per_origin, clauses, pairwise_limit, compared)
    raise MemoryLimitError(
        f"the CNF would have about {clauses:,} clauses and {cnf_vars:,} variables, needing about {need:,.0f} MB; "
        f"the memory limit is {_megabytes(limit)} MB ({source})",
        file=model.file, exit=Exit.LIMIT, notes=tuple(notes),
    )


def _advice(normal, is_log: Sequence[bool], options: dict[str, str], per_origin: dict[int, int], clauses: int,
            pairwise_limit: int, compared: Sequence[bool]) -> list[str]:
    """Options that would make this CNF smaller."""
    tips = []
    alldiff_cost = sum(per_origin.get(ad.origin, 0) for ad in normal.alldiffs)
    method = options.get("alldifferent", "auto")
    pairwise_worse = False
    for ad in normal.alldiffs:
        if not any(is_log[v] for v in ad.vars):
            pairs, total, values = alldiff_sweep([normal.int_domains[v] for v in ad.vars], ad.offsets)
            chosen = choose_method(method, len(ad.vars), values, pairs, any(compared[v] for v in ad.vars),
                                   pairwise_limit)
            pairwise_worse |= chosen in ("pairwise", "relational") and pairs > 6 * total
    if alldiff_cost > clauses / 3 and pairwise_worse:
        tips.append("try -O alldifferent=amo (alldifferent by values: linear in the domain sizes)")
    big = max((d.size for d, lg in zip(normal.int_domains, is_log) if not lg), default=0)
    if big > 64 and clauses - alldiff_cost > clauses / 3 and options.get("large") != "log":
        tips.append(f"try -O large=log (binary encoding; the largest order-encoded domain has {big:,} values)")
    tips.append("or raise the limit with --memory-limit MB, or make domains smaller")
    return tips
