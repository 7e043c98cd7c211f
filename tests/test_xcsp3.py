"""XCSP3 input: every supported constraint, translated and solved, against brute force.

For each small instance the oracle is brute force over all assignments with
the XML-level checker (`csp2sat.xcsp3_check`), whose semantics are written
independently of the translator (`csp2sat.xcsp3`); csp2sat's answers are all
solutions of the translated model, projected on the XCSP3 variables. The two
sets must be equal: a mistake in either the translator or the checker shows.
Also: errors (exit 5 with the line), the competition output, convert.
"""

from __future__ import annotations

import itertools
import textwrap

import pytest

from cli_support import run_cli
from csp2sat.compiler import compile_model
from csp2sat.diagnostics import CspError, Exit
from csp2sat.enumerate import iter_solutions
from csp2sat.xcsp3 import parse_xcsp3
from csp2sat.xcsp3_check import check_answer, objective_value


def _xml(variables: str, constraints: str, objective: str = "") -> str:
    kind = "COP" if objective else "CSP"
    objs = f"<objectives>{objective}</objectives>" if objective else ""
    return (f'<instance format="XCSP3" type="{kind}">\n<variables>\n{variables}\n</variables>\n'
            f"<constraints>\n{constraints}\n</constraints>\n{objs}\n</instance>\n")


def _brute(translation) -> set[tuple]:
    inst = translation.instance
    ids = list(inst.domains)
    found = set()
    for combo in itertools.product(*(list(inst.domains[x].values()) for x in ids)):
        values = dict(zip(ids, combo))
        if not check_answer(inst, values):
            found.add(combo)
    return found


def _solved(translation) -> set[tuple]:
    model = translation.model
    names = [translation.names[x] for x in translation.instance.domains]
    compiled = compile_model(model)
    model.objective = None  # every solution, not only optimal ones
    return {tuple(a[n] for n in names) for a in iter_solutions(compiled, model, names=names)}


V3 = '<array id="x" size="[3]"> 0..2 </array>'
V4 = '<array id="x" size="[4]"> 0..3 </array>'

CASES = {
    "intension": (V3, "<intension> eq(add(x[0],mul(2,x[1])),sub(x[2],1)) </intension>"),
    "intension-logic": (V3, "<intension> or(and(lt(x[0],x[1]),not(eq(x[2],1))),iff(x[0],x[2])) </intension>"),
    "intension-divmod-neg": ('<array id="x" size="[3]"> -4..4 </array>',
                             "<intension> eq(add(div(x[0],3),mod(x[1],-2)),x[2]) </intension>"
                             "<intension> ge(dist(x[0],x[1]),if(gt(x[2],0),2,1)) </intension>"),
    "intension-set-pow": (V3, "<intension> or(in(x[0],set(0,2)),notin(x[1],set(1))) </intension>"
                              "<intension> le(add(pow(x[0],2),sqr(x[1]),abs(neg(x[2]))),6) </intension>"
                              "<intension> xor(eq(x[0],1),x[1],imp(x[2],x[0])) </intension>"),
    "intension-minmax": (V3, "<intension> eq(max(x[0],x[1],x[2]),add(min(x[0],x[1]),1)) </intension>"),
    "extension": (V3, "<extension><list> x[0] x[1] x[2] </list><supports> (0,1,2)(1,*,0)(2,2,*) </supports></extension>"),
    "extension-conflicts": (V3, "<extension><list> x[] </list><conflicts> (0,*,*)(1,1,1)(*,2,0) </conflicts></extension>"
                                "<extension><list> x[1] </list><supports> 0 2 </supports></extension>"),
    "allDifferent": (V3, "<allDifferent> x[] </allDifferent>"),
    "allDifferent-except": (V4, "<allDifferent><list> x[] </list><except> 0 </except></allDifferent>"),
    "allDifferent-lists": (V4, "<allDifferent><list> x[0] x[1] </list><list> x[2] x[3] </list></allDifferent>"
                               "<intension> le(x[0],1) </intension>"),
    "allDifferent-matrix": ('<array id="x" size="[2][2]"> 0..2 </array>', "<allDifferent><matrix> x[][] </matrix></allDifferent>"),
    "allEqual": (V3, "<allEqual> x[] </allEqual>"),
    "sum": (V4, "<sum><list> x[] </list><coeffs> 1 -2 3 1 </coeffs><condition> (ge,4) </condition></sum>"),
    "sum-in-var": (V4, "<sum><list> x[0] x[1] x[2] </list><condition> (eq,x[3]) </condition></sum>"
                       "<sum><list> x[0] x[1] </list><condition> (in,1..2) </condition></sum>"),
    "sum-varcoeffs": (V3, "<sum><list> x[0] x[1] </list><coeffs> x[2] x[2] </coeffs><condition> (le,2) </condition></sum>"),
    "count": (V4, "<count><list> x[] </list><values> 1 2 </values><condition> (eq,2) </condition></count>"),
    "count-var": (V4, "<count><list> x[0] x[1] x[2] </list><values> x[3] </values><condition> (ge,2) </condition></count>"),
    "nValues": (V4, "<nValues><list> x[] </list><condition> (eq,2) </condition></nValues>"),
    "nValues-except": (V4, "<nValues><list> x[] </list><except> 0 </except><condition> (le,1) </condition></nValues>"),
    "cardinality": (V4, "<cardinality><list> x[0] x[1] x[2] </list><values closed=\"true\"> 0 1 3 </values>"
                        "<occurs> x[3] 0..1 1 </occurs></cardinality>"),
    # pycsp3 writes the occurrences of `Cardinality(x, occurrences={0: o[0], 2: o[1]})` as an array reference.
    "cardinality-occurs-array": ('<array id="x" size="[3]"> 0..2 </array><array id="o" size="[2]"> 0..3 </array>',
                                 "<cardinality><list> x[] </list><values> 0 2 </values><occurs> o[] </occurs>"
                                 "</cardinality>"),
    "element": (V4, '<element><list startIndex="1"> x[0] x[1] x[2] </list><index> x[3] </index><value> 2 </value></element>'),
    "element-member": (V3, "<element><list> x[0] x[1] </list><value> x[2] </value></element>"),
    "element-matrix": ('<array id="i" size="[2]"> 0..2 </array><var id="v"> 0..9 </var>',
                       "<element><matrix> (3,1,4)(1,5,9) </matrix><index> i[0] i[1] </index><value> v </value></element>"),
    "channel": (V3, "<channel> x[] </channel>"),
    "channel-two": ('<array id="x" size="[2]"> 0..2 </array><array id="y" size="[3]"> 0..2 </array>',
                    "<channel><list> x[] </list><list> y[] </list></channel>"),
    "channel-value": ('<array id="b" size="[3]"> 0..1 </array><var id="v"> 0..3 </var>',
                      "<channel><list> b[] </list><value> v </value></channel>"),
    "minimum": (V3, "<minimum><list> x[] </list><condition> (eq,1) </condition></minimum>"),
    "maximum": (V3, "<maximum><list> x[] </list><condition> (lt,2) </condition></maximum>"),
    "minimum-index": ('<array id="x" size="[3]"> 0..2 </array><var id="i"> 0..3 </var>',
                      '<minimum><list startIndex="1"> x[] </list><index rank="first"> i </index>'
                      "<condition> (le,1) </condition></minimum>"),
    "maximum-index": ('<array id="x" size="[3]"> 0..2 </array><var id="i"> 0..2 </var>',
                      '<maximum><list> x[] </list><index rank="last"> i </index><condition> (ge,1) </condition></maximum>'
                      '<maximum><list> x[0] x[1] </list><index> i </index><condition> (ne,0) </condition></maximum>'),
    "ordered": (V4, "<ordered><list> x[] </list><operator> le </operator></ordered>"),
    "ordered-lengths": ('<array id="x" size="[3]"> 0..3 </array>', "<ordered><list> x[] </list><lengths> 1 0 </lengths><operator> lt </operator></ordered>"),
    "lex": ('<array id="x" size="[2][2]"> 0..2 </array>', "<lex><list> x[0][] </list><list> x[1][] </list><operator> gt </operator></lex>"),
    "lex-matrix": ('<array id="x" size="[2][2]"> 0..1 </array>', "<lex><matrix> x[][] </matrix><operator> le </operator></lex>"),
    "regular": (V4, "<regular><list> x[] </list><transitions> (a,0,a)(a,1,b)(b,2,b)(b,1,a)(b,3,c)(c,0,c) </transitions>"
                    "<start> a </start><final> b c </final></regular>"),
    "mdd": (V3, "<mdd><list> x[] </list><transitions> (r,0,n1)(r,1,n2)(n1,2,m)(n2,0,m)(n2,1,m)(m,1,t)(m,2,t) </transitions></mdd>"),
    "noOverlap": ('<array id="s" size="[3]"> 0..4 </array>', "<noOverlap><origins> s[] </origins><lengths> 2 0 3 </lengths></noOverlap>"),
    "noOverlap-2d": ('<array id="s" size="[2][2]"> 0..2 </array>',
                     "<noOverlap><origins> (s[0][0],s[0][1])(s[1][0],s[1][1]) </origins><lengths> (2,1)(1,2) </lengths></noOverlap>"),
    "cumulative": ('<array id="s" size="[3]"> 0..3 </array>',
                   "<cumulative><origins> s[] </origins><lengths> 2 1 2 </lengths><heights> 2 1 1 </heights>"
                   "<condition> (le,2) </condition></cumulative>"),
    "circuit": (V4, "<circuit> x[] </circuit>"),
    "circuit-fixed-root": ('<array id="x" size="[4]"><domain for="x[1]"> 0 2 3 </domain><domain for="others"> 0..3 </domain>'
                           "</array>", "<circuit> x[] </circuit>"),
    "circuit-start": ('<array id="x" size="[3]"> 1..3 </array>', '<circuit><list startIndex="1"> x[] </list></circuit>'),
    "instantiation": (V3, "<instantiation><list> x[0] x[2] </list><values> 1 2 </values></instantiation>"),
    "group": (V4, "<group><intension> ne(%0,%1) </intension><args> x[0] x[1] </args><args> x[1] x[2] </args>"
                  "<args> x[2] x[3] </args></group>"),
    "block-slide": (V4, "<block class=\"symmetry\"><slide circular=\"true\"><list> x[] </list>"
                        "<intension> le(%0,%1) </intension></slide></block>"),
    "group-intension-constants": (V4, "<group><intension> ge(%0,add(%1,%2)) </intension><args> x[3] x[0] 1 </args>"
                                      "<args> x[2] x[1] -1 </args></group>"
                                      "<group><intension><function> ne(%0,%1) </function></intension>"
                                      "<args> x[0] 2 </args></group>"),
    "group-extension": (V4, "<group><extension><list> %... </list><supports> (0,1)(1,2)(2,3) </supports></extension>"
                            "<args> x[0] x[1] </args><args> x[2] x[3] </args></group>"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_translation_matches_brute_force(name: str) -> None:
    variables, constraints = CASES[name]
    translation = parse_xcsp3(_xml(variables, constraints), f"{name}.xml")
    expected = _brute(translation)
    assert _solved(translation) == expected
    assert expected or name == "never", "a case without solutions tests little"


OBJECTIVES = {
    "var": '<minimize> x[2] </minimize>',
    "expression": "<maximize> sub(mul(x[0],x[1]),x[2]) </maximize>",
    "sum": '<maximize type="sum"><list> x[] </list><coeffs> 3 -1 2 </coeffs></maximize>',
    "minimum": '<maximize type="minimum"><list> x[] </list></maximize>',
    "maximum": '<minimize type="maximum"><list> x[] </list></minimize>',
    "nValues": '<minimize type="nValues"><list> x[] </list></minimize>',
}


@pytest.mark.parametrize("name", sorted(OBJECTIVES))
def test_objectives_reach_the_brute_force_optimum(name: str, tmp_path, capsys) -> None:
    text = _xml(V3, "<intension> ne(x[0],x[1]) </intension><sum><list> x[] </list><condition> (ge,2) </condition></sum>",
                OBJECTIVES[name])
    translation = parse_xcsp3(text)
    inst = translation.instance
    costs = [objective_value(inst, dict(zip(inst.domains, s))) for s in _brute(translation)]
    best = min(costs) if inst.objectives[0].tag == "minimize" else max(costs)
    path = tmp_path / "obj.xml"
    path.write_text(text)
    status, out, err = run_cli(capsys, "solve", str(path))
    assert status == 0, err
    lines = out.splitlines()
    assert "s OPTIMUM FOUND" in lines
    assert lines[-1].startswith(f'v <instantiation type="solution" cost="{best}">')
    assert [l for l in lines if l.startswith("o ")][-1] == f"o {best}"


def test_competition_output_and_compressed_input(tmp_path, capsys) -> None:
    import gzip
    import lzma

    text = _xml('<array id="x" size="[2][2]"> 0..3 </array><var id="y"> 1 5 </var>',
                "<allDifferent> x[][] y </allDifferent><intension> gt(y,x[1][1]) </intension>")
    for suffix, opener in ((".xml", open), (".xml.gz", gzip.open), (".xml.lzma", lzma.open)):
        path = tmp_path / f"a{suffix}"
        with opener(path, "wt") as f:
            f.write(text)
        status, out, err = run_cli(capsys, "solve", str(path))
        assert status == 0, err
        s, v = out.splitlines()
        assert s == "s SATISFIABLE"
        assert v.startswith('v <instantiation type="solution"> <list> x[][] y </list> <values> ')
        values = [int(t) for t in v.split("<values>")[1].split("</values>")[0].split()]
        assert len(set(values)) == 5 and values[4] > values[3]


@pytest.mark.parametrize("flag", ["--all", "--count", "--max", "-c"])
def test_sugar_only_modes_are_refused_for_xcsp3(tmp_path, capsys, flag: str) -> None:
    path = tmp_path / "m.xml"
    path.write_text(_xml(V3, "<allDifferent> x[] </allDifferent>"))
    status, out, err = run_cli(capsys, "solve", flag, str(path))
    assert status == Exit.USAGE and out == "" and "XCSP3" in err


def test_unsatisfiable(tmp_path, capsys) -> None:
    path = tmp_path / "u.xml"
    path.write_text(_xml(V3, "<allDifferent> x[] </allDifferent><sum><list> x[] </list><condition> (gt,3) </condition></sum>"))
    status, out, _ = run_cli(capsys, "solve", str(path))
    assert (status, out) == (0, "s UNSATISFIABLE\n")


@pytest.mark.parametrize("body, words, exit", [
    ("<intension> eq(div(x[0],x[1]),1) </intension>", "'div' by a variable", Exit.UNSUPPORTED),
    ("<knapsack><list> x[] </list></knapsack>", "<knapsack> is not supported", Exit.UNSUPPORTED),
    ("<intension> eq(x[0],z) </intension>", "undefined variable 'z'", Exit.SEMANTIC),
    ("<allDifferent> x[0] \u00b2 </allDifferent>", "undefined variable '\u00b2'", Exit.SEMANTIC),  # was int('²')
    ("<intension> eq(x[0],1 </intension>", "missing ')'", Exit.SYNTAX),
    ("<minimum><list> x[] </list><index rank=\"middle\"> x[0] </index><condition> (eq,1) </condition></minimum>",
     "rank='middle'", Exit.UNSUPPORTED),
])
def test_errors_name_the_element_and_line(tmp_path, capsys, body: str, words: str, exit: Exit) -> None:
    path = tmp_path / "bad.xml"
    path.write_text(_xml(V3, body))
    status, out, err = run_cli(capsys, "solve", str(path))
    assert status == exit
    assert out == ("s UNSUPPORTED\n" if exit == Exit.UNSUPPORTED else "")
    assert f"bad.xml:6:" in err and words in err


@pytest.mark.parametrize("ident", ["_objective0", "x.1", "2x", "x-y"])
def test_badly_formed_ids_are_refused(tmp_path, capsys, ident: str) -> None:
    """Ids outside XCSP3's letter-then-[_a-zA-Z0-9] form are refused as ACE refuses them: `_objective0` was
    read and met the translation's own objective helper, so a maximisation came out UNSATISFIABLE."""
    path = tmp_path / "ids.xml"
    path.write_text(f'<instance format="XCSP3" type="COP"><variables><var id="{ident}"> 0..3 </var>'
                    '<var id="y"> 0..3 </var></variables><constraints><intension> ge(y,1) </intension></constraints>'
                    f'<objectives><maximize type="sum"><list> {ident} y </list></maximize></objectives></instance>')
    status, out, err = run_cli(capsys, "solve", str(path))
    assert (status, out) == (Exit.SEMANTIC, "")
    assert f"ids.xml:1: error: badly formed id {ident!r}" in err


def test_symbolic_variables_and_bad_xml_are_refused(tmp_path, capsys) -> None:
    path = tmp_path / "sym.xml"
    path.write_text(_xml('<var id="c" type="symbolic"> red green </var>', ""))
    status, _, err = run_cli(capsys, "solve", str(path))
    assert status == Exit.UNSUPPORTED and "symbolic" in err and "sym.xml:3" in err
    path.write_text("<instance><variables></instance>")
    status, _, err = run_cli(capsys, "solve", str(path))
    assert status == Exit.SYNTAX and "not well-formed" in err
    status, _, err = run_cli(capsys, "solve", str(tmp_path / "missing.xml"))
    assert status == Exit.IO


def test_convert_writes_a_sugar_file_with_the_same_model(tmp_path, capsys) -> None:
    from csp2sat.commands._common import read_model

    variables, constraints = CASES["extension"]
    text = _xml(variables, constraints + CASES["regular"][1].replace("x[]", "x[0] x[1] x[2]"), OBJECTIVES["sum"])
    src = tmp_path / "c.xml"
    src.write_text(text)
    status, _, err = run_cli(capsys, "convert", str(src), "-o", str(tmp_path / "c.csp"))
    assert status == 0, err
    sugar, _ = read_model(str(tmp_path / "c.csp"))
    model = parse_xcsp3(text).model
    assert [c.formula for c in sugar.constraints] == [c.formula for c in model.constraints]
    assert {n: v.domain for n, v in sugar.int_vars.items()} == {n: v.domain for n, v in model.int_vars.items()}
    def rel(m):
        return {n: (r.arity, r.supports, r.tuples) for n, r in m.relations.items()}

    assert rel(sugar) == rel(model) and sugar.objective.var == model.objective.var


def test_convert_renames_ids_that_are_words_of_sugar(tmp_path, capsys) -> None:
    """`nil`, `true` and `false` are XCSP3 ids and Sugar words: written as they are, the origin `nil` of a task
    was read as no origin (24 answers instead of 4) and `(= true 2)` was an error."""
    variables = '<var id="nil"> 0..3 </var><var id="e"> 0..5 </var><var id="true"> 0..2 </var><var id="true_"> 1..2 </var>'
    constraints = ("<cumulative><origins> nil </origins><lengths> 2 </lengths><ends> e </ends><heights> 1 </heights>"
                   "<condition> (le,1) </condition></cumulative><intension> eq(true,true_) </intension>")
    src = tmp_path / "k.xml"
    src.write_text(_xml(variables, constraints))
    status, _, err = run_cli(capsys, "convert", str(src), "-o", str(tmp_path / "k.csp"))
    assert status == 0, err
    text = (tmp_path / "k.csp").read_text()
    assert "(int nil_ 0 3)" in text and "(int true__ 0 2)" in text and "(= true__ true_)" in text
    status, out, err = run_cli(capsys, "solve", "--count", str(tmp_path / "k.csp"))
    assert status == 0 and "c SOLUTIONS 8" in out, err  # e = nil + 2 (4 ways) times true = true_ (2 ways)
    assert len(_brute(parse_xcsp3(src.read_text()))) == 8


def test_a_wrong_translation_is_caught_by_the_xml_check(monkeypatch, tmp_path, capsys) -> None:
    """Break the translator on purpose: the answer must be withheld (exit 8), not printed."""
    from csp2sat import xcsp3

    monkeypatch.setattr(xcsp3._Translator, "c_allEqual", lambda self, elem: xcsp3._TRUE)
    path = tmp_path / "w.xml"
    path.write_text(_xml(V3, "<allEqual> x[] </allEqual><intension> ne(x[0],x[1]) </intension>"))
    status, out, err = run_cli(capsys, "solve", str(path))
    assert status == Exit.VERIFY and "s SATISFIABLE" not in out and "allEqual" in err


def test_arrays_with_undefined_cells_are_answered_cell_by_cell(tmp_path, capsys) -> None:
    path = tmp_path / "holes.xml"
    path.write_text(_xml('<array id="x" size="[2][2]"><domain for="x[0][1] x[1][]"> 1..3 </domain></array>',
                         "<allDifferent> x[][] </allDifferent><instantiation><list> x[1][0] </list><values> 3 </values>"
                         "</instantiation>"))
    status, out, err = run_cli(capsys, "solve", str(path))
    assert status == 0, err
    v = out.splitlines()[1]
    assert "<list> x[0][1] x[1][0] x[1][1] </list>" in v
    values = [int(t) for t in v.split("<values>")[1].split("</values>")[0].split()]
    assert values[1] == 3 and sorted(values) == [1, 2, 3]


def test_installed_command_from_another_directory(tmp_path) -> None:
    """As users run it: the console script, another working directory, a compressed file, convert, solve the .csp."""
    import lzma
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("csp2sat")
    cmd = [str(exe)] if exe.exists() else [shutil.which("csp2sat") or "csp2sat"]
    src = Path(__file__).parent / "xcsp3" / "instances" / "golomb-5.xml"
    with lzma.open(tmp_path / "g.xml.lzma", "wt") as f:
        f.write(src.read_text())
    run = subprocess.run(cmd + ["solve", "g.xml.lzma"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-2:][0] == "s OPTIMUM FOUND" and 'cost="11"' in run.stdout
    run = subprocess.run(cmd + ["convert", "g.xml.lzma", "-o", "g.csp"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    run = subprocess.run(cmd + ["solve", "g.csp"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "o 11\n" in run.stdout and run.stdout.endswith("s OPTIMUM FOUND\n")


@pytest.mark.parametrize("command", ["check", "fmt", "explain", "encode"])
def test_a_sugar_only_command_given_an_xcsp3_file_says_what_reads_it(command, tmp_path, capsys) -> None:
    """The note said "XCSP3 is read from a file named FILE.xml" to a file named so."""
    path = tmp_path / "m.xml"
    path.write_text(_xml(V3, "<allDifferent> x[] </allDifferent>"))
    outputs = ["-o", str(tmp_path / "m.cnf"), "--map", str(tmp_path / "m.map")] if command == "encode" else []
    status, _, err = run_cli(capsys, command, *outputs, str(path))
    assert status == Exit.SYNTAX and f"`csp2sat solve {path}` solves it" in err and "csp2sat convert" in err
