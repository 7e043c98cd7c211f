"""The side-by-side machinery of benchmarks/families.py (--sugar): answer parsing, CNF headers,
child-process measurement and the report's targets. No Sugar is needed: the report is fed rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import families  # noqa: E402


def test_parse_answer_takes_final_status_and_last_objective():
    out = "c x\ns SATISFIABLE\no 12\na x\t1\na\no 10\na x\t0\na\ns OPTIMUM FOUND\n"
    assert families.parse_answer(out) == ("OPTIMUM FOUND", 10)
    assert families.parse_answer("s UNSATISFIABLE\n") == ("UNSATISFIABLE", None)
    # Sugar's driver prints s UNKNOWN only when nothing was found: that is no answer.
    assert families.parse_answer("c 0\tERROR Exception Syntax error\ns UNKNOWN\n") == ("", None)


def test_dimacs_header_reads_sugars_padded_header(tmp_path):
    cnf = tmp_path / "s.cnf"
    cnf.write_text("p cnf 5111 422046" + " " * 46 + "\n1 -2 0\n")
    assert families.dimacs_header(cnf) == (5111, 422046)
    assert families.dimacs_header(tmp_path / "missing.cnf") is None


def test_cnf_size_of_verbose_reads_grouped_digits():
    line = "c size       25 int vars, 0 bool vars, 1,752 CNF vars, 64,789 CNF clauses, 1 SAT calls\n"
    assert families.cnf_size_of_verbose("c parse 0.1 s\n" + line) == (1752, 64789)
    assert families.cnf_size_of_verbose("c parse 0.1 s\n") is None


def test_measure_counts_the_cpu_of_grandchildren_and_times_out():
    burn = f"{sys.executable} -c \"x = 0\nfor i in range(3_000_000): x += i\""
    m = families.measure(["sh", "-c", f"{burn}; echo s SATISFIABLE"], timeout=60)
    assert m["stdout"].strip() == "s SATISFIABLE" and not m["timed_out"]
    assert m["cpu_s"] > 0.05  # the python grandchild's CPU, waited for by sh
    m = families.measure(["sh", "-c", "sleep 20; echo late"], timeout=0.5)
    assert m["timed_out"] and m["wall_s"] < 10 and m["stdout"] == ""


def _tool(status, wall, clauses, objective=None):
    return {"status": status, "objective": objective, "wall_s": wall, "cpu_s": wall, "peak_mb": 10.0,
            "cnf_vars": 1, "cnf_clauses": clauses}


@pytest.mark.parametrize("ours_wall, met", [(0.1, True), (3.0, False)])
def test_report_states_each_target(ours_wall, met):
    rows = [
        {"name": "a", "csp2sat": _tool("SATISFIABLE", ours_wall, 100), "sugar": _tool("SATISFIABLE", 2.0, 200)},
        {"name": "b", "csp2sat": _tool("OPTIMUM FOUND", 0.1, 300, 7), "sugar": _tool("OPTIMUM FOUND", 1.0, 200, 7)},
        {"name": "c", "csp2sat": _tool("SATISFIABLE", 1.0, 50), "sugar": _tool("TIMEOUT", 60.0, None)},
    ]
    text = families.report({"rows": rows})
    assert ("every instance wall <= Sugar's: met (3/3)" in text) == met
    if not met:
        assert "slower: a (1.50x)" in text
    assert "CNF clauses <= Sugar's: NOT met; larger: b (1.50x)" in text
    total = ours_wall + 0.1
    assert f"ratio {total / 3.0:.3f}" in text  # sums only where both finished
    assert "same status and objective wherever both finished: yes" in text


def test_report_flags_different_answers():
    rows = [{"name": "d", "csp2sat": _tool("OPTIMUM FOUND", 1.0, 10, 5),
             "sugar": _tool("OPTIMUM FOUND", 1.0, 10, 6)}]
    assert "NO: d" in families.report({"rows": rows})


def test_report_does_not_count_both_timing_out_as_slower():
    rows = [{"name": "e", "csp2sat": _tool("TIMEOUT", 60.0, None), "sugar": _tool("TIMEOUT", 60.0, 0)},
            {"name": "f", "csp2sat": _tool("TIMEOUT", 60.0, None), "sugar": _tool("SATISFIABLE", 9.0, 10)}]
    text = families.report({"rows": rows})
    assert "NOT met (0/2; both hit the time-out on 1: e)" in text
    assert "slower: f (csp2sat did not finish)" in text


@pytest.mark.parametrize("k, n, nodes, edges", [(1, 4, 67, 232), (2, 3, 37, 72), (3, 3, 56, 110), (4, 3, 79, 156),
                                                (1, 5, 202, 1227), (2, 4, 149, 541)])
def test_insertion_graphs_have_the_dimacs_sizes(k: int, n: int, nodes: int, edges: int) -> None:
    """The sizes of DIMACS's k-Insertions_n files (COLOR02), which the generator does not read."""
    found_nodes, found_edges = families.insertions_edges(k, n)
    assert (found_nodes, len(set(found_edges))) == (nodes, edges)
    assert all(a != b for a, b in found_edges)


def test_the_smallest_insertion_graph_has_chromatic_number_four() -> None:
    import csp2sat

    nodes, edges = families.insertions_edges(2, 3)
    result = csp2sat.solve(families.colouring("2-Insertions_3", nodes, edges, 5))
    assert (result.status, result.objective) == ("OPTIMUM FOUND", 4)


def test_unseen_members_are_other_files_of_the_same_families() -> None:
    """`--unseen`: no name and no file of the listed instances comes back (a different seed or size each)."""
    listed = dict(families.instances())
    unseen = list(families.unseen_instances())
    assert unseen and not set(name for name, _ in unseen) & set(listed)
    prefixes = {name.split("-")[0] for name in listed}
    assert all(name.split("-")[0] in prefixes for name, _ in unseen)
    small = [(name, gen) for name, gen in unseen if name in ("oss-random-5x5-s501", "gcp-random-40-s401", "nqueens-30")]
    texts = {gen() for _, gen in small}
    assert len(texts) == 3 and not texts & {gen() for name, gen in listed.items() if "oss-random-5x5" in name}


def test_the_second_unseen_set_repeats_no_instance_of_the_others() -> None:
    """`--unseen 2`: new names and new files (no seed or size of the listed instances or of set 1), same families."""
    listed = dict(families.instances())
    first = dict(families.unseen_instances())
    second = dict(families.unseen_instances_2())
    assert second and not set(second) & (set(listed) | set(first))
    prefixes = {name.split("-")[0] for name in listed}
    assert all(name.split("-")[0] in prefixes for name in second)
    small = ["golombRuler-7", "socialGolfer-3-3-4", "oss-random-5x5-s502", "gcp-random-45-s451"]
    texts = {second[name]() for name in small}
    others = {listed[name]() for name in ("golombRuler-8", "socialGolfer-3-2-5", "oss-random-5x5")}
    others.add(first["oss-random-5x5-s501"]())
    assert len(texts) == len(small) and not texts & others
