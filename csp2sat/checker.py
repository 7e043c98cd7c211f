"""Front end, stage 2: check a `SyntaxTree` and resolve it into a `Model` (see `csp2sat.syntax`).

Resolves every name (``sym`` -> ``ivar``/``bvar``/``param``, ``call`` ->
``pcall``/``rcall``), turns domain specifications into `Domain`s, flattens the
list form of ``alldifferent``, and checks arity, types (formula or integer term)
and the constructs Sugar does not support. Every problem is a `CspError` with
the position of the offending node: exit `Exit.SEMANTIC` for names, arity and
types, `Exit.SYNTAX` for an unknown operator, `Exit.UNSUPPORTED` for ``pow`` and
division by anything but a positive constant (or -1). Where Sugar accepts
something odd, the checker accepts it too and adds a warning to
`Model.warnings`; the choices are listed in docs/quirks.md.

Expressions are checked recursively (the code follows the grammar); a file
nested so deeply that Python's stack runs out gets `Exit.LIMIT`.
"""

from __future__ import annotations

from typing import Callable

from csp2sat._gc import gc_paused
from csp2sat.diagnostics import CspError, Diagnostic, Exit
from csp2sat.syntax import (
    COMPARISON_OPS,
    GLOBAL_OPS,
    LOGIC_OPS,
    TERM_OPS,
    BoolDecl,
    BoolVar,
    Constraint,
    ConstraintStmt,
    Domain,
    DomainDecl,
    IntDecl,
    IntVar,
    Model,
    Node,
    Objective,
    ObjectiveDecl,
    Predicate,
    PredicateDecl,
    Relation,
    RelationDecl,
    SyntaxTree,
    fast_constructor,
    make_node,
)

# Made once per declaration and constraint (tens of thousands in generated files): see `fast_constructor`.
_new_int_var = fast_constructor(IntVar)
_new_bool_var = fast_constructor(BoolVar)
_new_constraint = fast_constructor(Constraint)

__all__ = ["check"]

# Sugar's spelling of each canonical operator, for messages.
SPELLING = {
    "not": "not", "and": "and", "or": "or", "imp": "imp", "xor": "xor", "iff": "iff",
    "eq": "=", "ne": "!=", "le": "<=", "lt": "<", "ge": ">=", "gt": ">",
    "add": "+", "sub": "-", "neg": "neg", "mul": "*", "div": "div", "mod": "mod",
    "abs": "abs", "min": "min", "max": "max", "if": "if", "pow": "pow",
}  # fmt: skip

# Exact number of arguments (None: any number).
_ARITY = {
    "not": 1, "and": None, "or": None, "imp": 2, "xor": 2, "iff": 2,
    "eq": 2, "ne": 2, "le": 2, "lt": 2, "ge": 2, "gt": 2,
    "add": None, "neg": 1, "mul": 2, "div": 2, "mod": 2, "abs": 1, "min": 2, "max": 2, "if": 3,
}  # fmt: skip

_DECLARATION_WORDS = {"domain", "int", "bool", "relation", "predicate", "objective"}
_KEYWORDS = (
    set(SPELLING) | set(SPELLING.values()) | GLOBAL_OPS | _DECLARATION_WORDS | {"true", "false", "nil", "wsum"}
)


_DECLARATION_KINDS = {
    IntDecl: "integer variable",
    BoolDecl: "Boolean variable",
    DomainDecl: "domain",
    PredicateDecl: "predicate",
    RelationDecl: "relation",
}


def check(tree: SyntaxTree) -> Model:
    """Check `tree` and return its `Model`; raises `CspError` for the first problem found."""
    checker = _Checker(tree)
    try:
        with gc_paused():
            return checker.run()
    except RecursionError:
        raise CspError(
            "the file is nested too deeply to check", 0, 0, tree.file, Exit.LIMIT
        ) from None
    except CspError as err:
        err.notes += _odd_tokens_of_statement(tree, err.line, err.col)
        raise


def _odd_tokens_of_statement(tree: SyntaxTree, line: int, col: int) -> tuple[str, ...]:
    """The parser's warnings inside the statement holding (`line`, `col`), as notes of an error there: an odd
    token is often the error's cause (`(= x 1e3)` is `(= x 1 e3)`), and warnings are not printed after an error."""
    if not tree.warnings or line <= 0:
        return ()
    for statement, end in zip(tree.statements, tree.ends):
        if (statement.line, statement.col) <= (line, col) <= end:
            return tuple(f"{w.line}:{w.col}: {w.message}" for w in tree.warnings
                         if (statement.line, statement.col) <= (w.line, w.col) <= end)
    return ()


def _args(n: int) -> str:
    return f"{n} argument" + ("" if n == 1 else "s")


class _Checker:
    """The state of one check: what is declared so far, and the model being built."""

    def __init__(self, tree: SyntaxTree) -> None:
        self.tree = tree
        self.file = tree.file
        self.model = Model(file=tree.file, warnings=list(tree.warnings))
        self.domains: dict[str, Domain] = {}
        # predicates and relations share one name space; the later definition wins
        self.callables: dict[str, Predicate | Relation] = {}
        self.params: dict[str, str] | None = None  # inside a predicate body: name -> kind used
        self.current_predicate = ""
        # predicate -> how each parameter is used in the body: "formula", "term" or "" (unused)
        self.param_kinds: dict[str, tuple[str, ...]] = {}
        self._later: dict[str, tuple[str, int, int]] | None = None

    # ---------------------------------------------------------- helpers

    def error(self, message: str, node: object, exit: Exit = Exit.SEMANTIC) -> CspError:
        return CspError(message, getattr(node, "line", 0), getattr(node, "col", 0), self.file, exit)

    def warn(self, message: str, node: object) -> None:
        self.model.warnings.append(
            Diagnostic(message, getattr(node, "line", 0), getattr(node, "col", 0), self.file, "warning")
        )

    @property
    def later(self) -> dict[str, tuple[str, int, int]]:
        """Every declared name -> (what it is, line, col), to explain a use before the definition.

        Only an error needs it, so it is made on first use rather than for every file.
        """
        if self._later is None:
            names: dict[str, tuple[str, int, int]] = {}
            for stmt in self.tree.statements:
                kind = _DECLARATION_KINDS.get(type(stmt))
                if kind:
                    names.setdefault(stmt.name, (kind, stmt.line, stmt.col))  # type: ignore[union-attr]
            self._later = names
        return self._later

    def _undefined(self, name: str, what: str, node: Node, exit: Exit = Exit.SEMANTIC) -> CspError:
        later = self.later.get(name)
        if later and later[1:] > (node.line, node.col):
            return self.error(f"{later[0]} '{name}' is used before its definition at line {later[1]}", node)
        return self.error(f"undefined {what} '{name}'", node, exit)

    # ---------------------------------------------------------- statements

    def run(self) -> Model:
        handlers: dict[type, Callable] = {
            DomainDecl: self.domain_decl,
            IntDecl: self.int_decl,
            BoolDecl: self.bool_decl,
            RelationDecl: self.relation_decl,
            PredicateDecl: self.predicate_decl,
            ObjectiveDecl: self.objective_decl,
            ConstraintStmt: self.constraint,
        }
        objective: ObjectiveDecl | None = None
        for stmt in self.tree.statements:
            if isinstance(stmt, ObjectiveDecl):
                self.objective_decl(stmt)
                if objective is not None:
                    self.warn(
                        f"a second objective replaces the one at line {objective.line} (as in Sugar)", stmt
                    )
                objective = stmt
            else:
                handlers[type(stmt)](stmt)
        if objective is not None:
            self.model.objective = self.resolve_objective(objective)
        self.check_recursion()
        return self.model

    def domain_of(self, spec: tuple, stmt: DomainDecl | IntDecl) -> Domain:
        kind = spec[0]
        if kind == "bounds":
            lo, hi = spec[1], spec[2]
            if lo > hi:
                raise self.error(f"empty domain: lower bound {lo} is greater than upper bound {hi}", stmt)
            return Domain.range(lo, hi)
        if kind == "value":
            return Domain.range(spec[1], spec[1])
        if kind == "ranges":
            if not spec[1]:
                raise self.error("empty range list: a domain needs at least one value", stmt)
            pieces = []
            for item in spec[1]:
                lo, hi = (item[0], item[0]) if len(item) == 1 else item
                if lo > hi:
                    raise self.error(
                        f"bad range ({lo} {hi}) in the range list: lower bound greater than upper bound", stmt
                    )
                pieces.append((lo, hi))
            return Domain.of(pieces)
        name = spec[1]
        if name not in self.domains:
            raise self._undefined(name, "domain", stmt)  # type: ignore[arg-type]
        return self.domains[name]

    def domain_decl(self, stmt: DomainDecl) -> None:
        if stmt.name in self.domains:
            raise self.error(f"domain '{stmt.name}' is defined twice", stmt)
        self.domains[stmt.name] = self.domain_of(stmt.spec, stmt)

    def int_decl(self, stmt: IntDecl) -> None:
        model = self.model
        if stmt.name in model.int_vars:
            first = model.int_vars[stmt.name]
            raise self.error(f"integer variable '{stmt.name}' is defined twice (first at line {first.line})", stmt)
        domain = self.domain_of(stmt.spec, stmt)
        if stmt.name in model.bool_vars:
            self.warn(f"integer variable '{stmt.name}' has the name of a Boolean variable (allowed, as in Sugar)", stmt)
        model.int_vars[stmt.name] = _new_int_var(stmt.name, domain, stmt.line, stmt.col)

    def bool_decl(self, stmt: BoolDecl) -> None:
        model = self.model
        if stmt.name in model.bool_vars:
            first = model.bool_vars[stmt.name]
            raise self.error(f"Boolean variable '{stmt.name}' is defined twice (first at line {first.line})", stmt)
        if stmt.name in model.int_vars:
            self.warn(f"Boolean variable '{stmt.name}' has the name of an integer variable (allowed, as in Sugar)", stmt)
        if stmt.name in ("true", "false"):
            self.warn(f"Boolean variable '{stmt.name}' can never be used: in a formula '{stmt.name}' is the constant "
                      "(allowed, as in Sugar; it is solved and printed, but nothing constrains it)", stmt)
        model.bool_vars[stmt.name] = _new_bool_var(stmt.name, stmt.line, stmt.col)

    def _redefinition(self, name: str, stmt: object) -> None:
        if name in self.callables:
            first = self.callables[name]
            self.warn(f"'{name}' redefines the one at line {first.line}; the later definition wins (as in Sugar)", stmt)

    def relation_decl(self, stmt: RelationDecl) -> None:
        if stmt.arity < 0:
            raise self.error(f"relation '{stmt.name}' has a negative arity {stmt.arity}", stmt)
        tuples = []
        truncated = False
        for tup in stmt.tuples:
            if len(tup) < stmt.arity:
                raise self.error(
                    f"relation '{stmt.name}' has arity {stmt.arity} but the tuple "
                    f"({' '.join(map(str, tup))}) has {len(tup)} value(s)",
                    stmt,
                )
            truncated = truncated or len(tup) > stmt.arity
            tuples.append(tup[: stmt.arity])
        if truncated:
            self.warn(
                f"relation '{stmt.name}': values beyond its arity {stmt.arity} in tuples are ignored (as in Sugar)", stmt
            )
        self._redefinition(stmt.name, stmt)
        self.model.relations[stmt.name] = Relation(
            stmt.name, stmt.arity, stmt.supports, tuple(tuples), stmt.line, stmt.col
        )
        self.callables[stmt.name] = self.model.relations[stmt.name]

    def predicate_decl(self, stmt: PredicateDecl) -> None:
        seen = set()
        for param in stmt.params:
            if param in seen:
                raise self.error(f"predicate '{stmt.name}' has the parameter '{param}' twice", stmt)
            seen.add(param)
        self.params = {p: "" for p in stmt.params}
        self.current_predicate = stmt.name
        try:
            body = self.formula(stmt.body)
            kinds = dict(self.params)
        finally:
            self.params = None
            self.current_predicate = ""
        self._redefinition(stmt.name, stmt)
        predicate = Predicate(stmt.name, stmt.params, body, stmt.line, stmt.col)
        self.model.predicates[stmt.name] = predicate
        self.callables[stmt.name] = predicate
        self.param_kinds[stmt.name] = tuple(kinds[p] for p in stmt.params)

    def objective_decl(self, stmt: ObjectiveDecl) -> None:
        if stmt.sense not in ("minimize", "maximize"):
            raise self.error(
                f"objective goal must be 'minimize' or 'maximize', not '{stmt.sense}'"
                if stmt.sense
                else "objective needs a goal (minimize or maximize) and a variable",
                stmt,
            )
        if not stmt.names:
            raise self.error(f"objective needs a variable to {stmt.sense}", stmt)
        if len(stmt.names) > 1:
            self.warn(
                f"only '{stmt.names[0]}' is optimised; the other names are only shown (as in Sugar)", stmt
            )

    def resolve_objective(self, stmt: ObjectiveDecl) -> Objective:
        for name in stmt.names:
            if name not in self.model.int_vars:
                what = "a Boolean variable" if name in self.model.bool_vars else "not a defined integer variable"
                raise self.error(f"objective variable '{name}' is {what}", stmt)
        return Objective(stmt.sense, stmt.names[0], stmt.names, stmt.line, stmt.col)

    def constraint(self, stmt: ConstraintStmt) -> None:
        formula = self.formula(stmt.formula)
        self.model.constraints.append(_new_constraint(formula, stmt.line, stmt.col, stmt.text))

    def check_recursion(self) -> None:
        """Predicates calling themselves (possible through a redefinition) cannot be expanded."""
        state: dict[str, int] = {}  # 1 on the path, 2 done
        for start in self.model.predicates:
            if state.get(start):
                continue
            stack = [(start, iter(self._called(start)))]
            state[start] = 1
            while stack:
                name, calls = stack[-1]
                nxt = next(calls, None)
                if nxt is None:
                    state[name] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    pred = self.model.predicates[nxt]
                    raise self.error(f"predicate '{nxt}' is recursive (it calls itself through '{name}')", pred)
                elif not state.get(nxt):
                    state[nxt] = 1
                    stack.append((nxt, iter(self._called(nxt))))

    def _called(self, name: str) -> list[str]:
        body = self.model.predicates[name].body
        return [n.value for n in body.walk() if n.op == "pcall" and n.value in self.model.predicates]  # type: ignore[misc]

    # ---------------------------------------------------------- formulas

    def arity(self, node: Node, expected: int | None = None, minimum: int | None = None) -> None:
        n = len(node.args)
        if (expected is None or n == expected) and (minimum is None or n >= minimum):
            return
        spelled = SPELLING.get(node.op, node.op)
        if expected is not None and n != expected:
            message = f"'{spelled}' takes {_args(expected)}, got {n}"
            if any(a.op == "sym" and a.value == "-" for a in node.args):
                word = next(
                    (b.value for a, b in zip(node.args, node.args[1:]) if a.op == "sym" and a.value == "-"), "x"
                )
                message += f" ('-{word}' is read as '-' and '{word}': write (- {word}))"
            raise self.error(message, node)
        if minimum is not None and n < minimum:
            raise self.error(f"'{spelled}' takes at least {_args(minimum)}, got {n}", node)

    def formula(self, node: Node) -> Node:
        op = node.op
        if op in LOGIC_OPS:
            self.arity(node, _ARITY[op])
            return make_node(op, tuple(self.formula(a) for a in node.args), None, node.line, node.col)
        if op in COMPARISON_OPS:
            self.arity(node, 2)
            left, right = node.args
            if self._is_bool(left) and self._is_bool(right):
                spelled = SPELLING[op]
                raise self.error(
                    f"'{spelled}' compares integers, not Booleans"
                    + (" (use (iff p q))" if op == "eq" else " (use (xor p q))" if op == "ne" else ""),
                    node,
                )
            return make_node(op, (self.term(left), self.term(right)), None, node.line, node.col)
        if op == "sym":
            return self.formula_symbol(node)
        if op in ("true", "false"):
            return node
        if op == "const":
            value = node.value
            self.warn(f"the integer {value} used as a formula means {'true' if value > 0 else 'false'} "  # type: ignore[operator]
                      "(Sugar reads an integer > 0 as true)", node)
            return make_node("true" if value > 0 else "false", (), None, node.line, node.col)  # type: ignore[operator]
        if op == "call":
            return self.call(node)
        if op in GLOBAL_OPS:
            return self.global_constraint(node)
        if op in TERM_OPS:
            raise self.error(
                f"'{SPELLING.get(op, op)}' makes an integer term, not a formula (compare it, e.g. (> T 0))", node
            )
        if op == "list":
            raise self.error("a parenthesised list is not a formula", node)
        if op == "nil":
            raise self.error("'nil' is only allowed in a cumulative task", node)
        raise self.error(f"unexpected '{op}'", node)

    def _is_bool(self, node: Node) -> bool:
        """Whether `node` is clearly a formula where a term is expected (for the (= p q) hint)."""
        if node.op == "sym":
            name = node.value
            if self.params is not None and name in self.params:
                return self.params[name] == "formula"
            return name in self.model.bool_vars and name not in self.model.int_vars
        return node.op in LOGIC_OPS or node.op in COMPARISON_OPS or node.op in ("true", "false")

    def formula_symbol(self, node: Node) -> Node:
        name = node.value
        assert isinstance(name, str)
        if self.params is not None and name in self.params:
            return self.use_param(node, "formula")
        if name in self.model.bool_vars:
            return make_node("bvar", (), name, node.line, node.col)
        if name in self.model.int_vars:
            raise self.error(f"integer variable '{name}' used as a formula (write a comparison, e.g. (> {name} 0))", node)
        if name == "-":
            raise self.error("'-' used as a formula", node)
        raise self._undefined(name, "Boolean variable", node)

    def use_param(self, node: Node, kind: str) -> Node:
        assert self.params is not None
        name = node.value
        used = self.params[name]  # type: ignore[index]
        if used and used != kind:
            raise self.error(
                f"parameter '{name}' of predicate '{self.current_predicate}' is used both as a formula and as an integer term",
                node,
            )
        self.params[name] = kind  # type: ignore[index]
        return make_node("param", (), name, node.line, node.col)

    def call(self, node: Node) -> Node:
        name = node.value
        assert isinstance(name, str)
        target = self.callables.get(name)
        if name == self.current_predicate and (target is None or not isinstance(target, Predicate)):
            raise self.error(f"predicate '{name}' is recursive (it calls itself)", node)
        if target is None:
            raise self.unknown_operator(node)
        if isinstance(target, Predicate):
            kinds = self.param_kinds[name]
            args = node.args
            if len(args) < len(kinds):
                raise self.error(
                    f"predicate '{name}' takes {_args(len(kinds))}, got {len(args)}", node
                )
            if len(args) > len(kinds):
                self.warn(
                    f"predicate '{name}' takes {_args(len(kinds))}, got {len(args)}: the extra ones are ignored (as in Sugar)",
                    node,
                )
                args = args[: len(kinds)]
            # Generated files pass thousands of Boolean variables to predicates: those are made
            # here directly, as `formula_symbol` would make them, without two calls per argument.
            bools = self.model.bool_vars if self.params is None else ()
            checked = tuple(
                make_node("bvar", (), a.value, a.line, a.col) if kind == "formula" and a.op == "sym" and a.value in bools
                else self.formula(a) if kind == "formula" else self.term(a) if kind == "term" else self.any_expr(a)
                for a, kind in zip(args, kinds)
            )
            return make_node("pcall", checked, name, node.line, node.col)
        args = tuple(self.term(a) for a in node.args)
        if len(args) < target.arity:
            raise self.error(f"relation '{name}' has arity {target.arity}, got {_args(len(args))}", node)
        if len(args) > target.arity:
            result = "false" if target.supports else "true"
            self.warn(
                f"relation '{name}' has arity {target.arity}, got {len(args)} arguments: "
                f"no tuple can match, so the call is {result} (as in Sugar)",
                node,
            )
            return make_node(result, (), None, node.line, node.col)
        return make_node("rcall", args, name, node.line, node.col)

    def any_expr(self, node: Node) -> Node:
        """An argument for a parameter its predicate never uses: whichever kind it is."""
        if node.op == "sym" and self.params is not None and node.value in self.params:
            # A parameter of the predicate being defined, passed on unused: this use says nothing of its kind
            # (Sugar substitutes text, so it may still be a formula elsewhere in the body, or a term).
            return make_node("param", (), node.value, node.line, node.col)
        if node.op in LOGIC_OPS or node.op in COMPARISON_OPS or node.op in GLOBAL_OPS or node.op in ("true", "false", "call"):
            return self.formula(node)
        if node.op == "sym" and node.value in self.model.bool_vars and node.value not in self.model.int_vars:
            return self.formula(node)
        return self.term(node)

    def unknown_operator(self, node: Node) -> CspError:
        name = node.value
        assert isinstance(name, str)
        later = self.later.get(name)
        if later and later[0] in ("predicate", "relation") and later[1:] > (node.line, node.col):
            return self.error(f"{later[0]} '{name}' is used before its definition at line {later[1]}", node)
        if name in _DECLARATION_WORDS:
            return self.error(f"'({name} ...)' is a declaration: it is only allowed at the top level", node, Exit.SYNTAX)
        if name.lower() in _KEYWORDS:
            return self.error(
                f"unknown operator '{name}' (keywords are lower case: did you mean '{name.lower()}'?)",
                node,
                Exit.SYNTAX,
            )
        if name in self.model.int_vars or name in self.model.bool_vars:
            return self.error(f"'{name}' is a variable, not an operator, predicate or relation", node, Exit.SYNTAX)
        return self.error(
            f"unknown operator '{name}': not a Sugar operator nor a predicate or relation defined above",
            node,
            Exit.SYNTAX,
        )

    # ---------------------------------------------------------- terms

    def term(self, node: Node) -> Node:
        op = node.op
        if op == "const":
            return node
        if op == "sym":
            return self.term_symbol(node)
        if op in ("add",):
            return make_node(op, tuple(self.term(a) for a in node.args), None, node.line, node.col)
        if op == "sub":
            self.arity(node, minimum=1)
            return make_node(op, tuple(self.term(a) for a in node.args), None, node.line, node.col)
        if op == "neg" and len(node.args) == 2:
            self.warn("(neg a b) is read as (- a b) (as Sugar does)", node)
            return make_node("sub", tuple(self.term(a) for a in node.args), None, node.line, node.col)
        if op == "pow":
            raise self.error("'pow' is not supported (Sugar does not support it either)", node, Exit.UNSUPPORTED)
        if op == "if":
            self.arity(node, 3)
            cond, then, other = node.args
            return make_node("if", (self.formula(cond), self.term(then), self.term(other)), None, node.line, node.col)
        if op in TERM_OPS:
            self.arity(node, _ARITY[op])
            args = tuple(self.term(a) for a in node.args)
            if op in ("div", "mod"):
                self.divisor(node, args[1])
            return make_node(op, args, None, node.line, node.col)
        if op in ("true", "false") or op in LOGIC_OPS or op in COMPARISON_OPS or op in GLOBAL_OPS:
            what = op if op in ("true", "false") else f"'{SPELLING.get(op, op)}'"
            raise self.error(f"{what} is a formula, not an integer term (use (if F 1 0))", node)
        if op == "call":
            if node.value in self.callables:
                raise self.error(f"a call of '{node.value}' is a formula, not an integer term", node)
            raise self.unknown_operator(node)
        if op == "list":
            raise self.error("a parenthesised list is not an integer term", node)
        if op == "nil":
            raise self.error("'nil' is only allowed in a cumulative task", node)
        raise self.error(f"unexpected '{op}'", node)

    def term_symbol(self, node: Node) -> Node:
        name = node.value
        assert isinstance(name, str)
        if self.params is not None and name in self.params:
            return self.use_param(node, "term")
        if name in self.model.int_vars:
            return make_node("ivar", (), name, node.line, node.col)
        if name in self.model.bool_vars:
            raise self.error(f"Boolean variable '{name}' used as an integer (use (if {name} 1 0))", node)
        if name == "-":
            raise self.error("'-' on its own is not a term (write (- x) to negate x)", node)
        raise self._undefined(name, "integer variable", node)

    def divisor(self, node: Node, divisor: Node) -> None:
        spelled = SPELLING[node.op]
        if divisor.op == "param":
            return  # known only once the predicate is called; the compiler checks the expansion
        # Sugar asks only that the divisor's domain have one value: a variable declared (int y 2) will do.
        fixed = {name: var.domain.intervals[0][0] for name in _variables(divisor)
                 if (var := self.model.int_vars[name]).domain.size == 1}
        value = _constant(divisor, fixed)
        if value is None:
            raise self.error(f"'{spelled}' by a variable is not supported: the divisor must be a positive constant", node, Exit.UNSUPPORTED)
        if value == 0:
            raise self.error(f"'{spelled}' by zero", node, Exit.UNSUPPORTED)
        if value < 0 and not (value == -1 and node.op == "div"):
            raise self.error(f"'{spelled}' by the negative constant {value} is not supported: the divisor must be positive", node, Exit.UNSUPPORTED)

    # ---------------------------------------------------------- global constraints

    def as_list(self, node: Node, what: str) -> tuple[Node, ...]:
        if node.op == "list":
            return node.args
        raise self.error(f"expected {what} in parentheses", node)

    def terms(self, node: Node, what: str = "a list of terms") -> Node:
        return make_node("list", tuple(self.term(a) for a in self.as_list(node, what)), None, node.line, node.col)

    def constant(self, node: Node, what: str) -> Node:
        if node.op != "const":
            raise self.error(f"{what} must be an integer constant", node)
        return node

    def global_constraint(self, node: Node) -> Node:
        op = node.op
        line, col = node.line, node.col
        if op == "alldifferent":
            return make_node(op, tuple(self.term(a) for a in self.alldifferent_terms(node)), None, line, col)
        if op == "weightedsum":
            pairs, rhs = node.args
            checked = []
            for pair in self.as_list(pairs, "a list of (coefficient term) pairs"):
                items = self.as_list(pair, "a (coefficient term) pair")
                if len(items) != 2:
                    raise self.error(f"a weightedsum item is (coefficient term), got {len(items)} values", pair)
                checked.append(make_node("list", (self.constant(items[0], "a weightedsum coefficient"), self.term(items[1])), None, pair.line, pair.col))
            return make_node(op, (make_node("list", tuple(checked), None, pairs.line, pairs.col), self.term(rhs)), node.value, line, col)
        if op == "count":
            value, terms, rhs = node.args
            return make_node(op, (self.term(value), self.terms(terms), self.term(rhs)), node.value, line, col)
        if op == "element":
            index, terms, rhs = node.args
            return make_node(op, (self.term(index), self.terms(terms), self.term(rhs)), node.value, line, col)
        if op == "nvalue":
            count, terms = node.args
            return make_node(op, (self.term(count), self.terms(terms)), None, line, col)
        if op in ("lex_less", "lex_lesseq"):
            left, right = (self.terms(a) for a in node.args)
            if len(left.args) != len(right.args):
                raise self.error(f"'{op}' compares vectors of the same length, got {len(left.args)} and {len(right.args)}", node)
            return make_node(op, (left, right), None, line, col)
        if op == "cumulative":
            return self.cumulative(node)
        if op == "disjunctive":
            tasks = []
            for task in self.as_list(node.args[0], "a list of tasks"):
                items = self.as_list(task, "a task (origin duration)")
                if len(items) != 2:
                    raise self.error(f"a disjunctive task is (origin duration), got {len(items)} values", task)
                tasks.append(make_node("list", tuple(self.term(a) for a in items), None, task.line, task.col))
            return make_node(op, (make_node("list", tuple(tasks), None, node.args[0].line, node.args[0].col),), None, line, col)
        # A value and a count, and a cost's weight, may be any term (Sugar passes them on to count and if);
        # a cost's term and value positions i and j are constants.
        if op == "global_cardinality":
            terms, pairs = node.args
            return make_node(op, (self.terms(terms), self.tuples(pairs, 2, "(value count)", 0)), None, line, col)
        # global_cardinality_with_costs
        terms, pairs, costs, cost = node.args
        return make_node(
            op,
            (self.terms(terms), self.tuples(pairs, 2, "(value count)", 0), self.tuples(costs, 3, "(i j w)", 2), self.term(cost)),
            None,
            line,
            col,
        )

    def tuples(self, node: Node, size: int, shape: str, constants: int) -> Node:
        """A list of `size`-lists whose first `constants` items are integer constants."""
        out = []
        for item in self.as_list(node, f"a list of {shape}"):
            values = self.as_list(item, shape)
            if len(values) != size:
                raise self.error(f"expected {shape}, got {len(values)} values", item)
            checked = tuple(
                self.constant(v, f"'{shape}' position {i + 1}") if i < constants else self.term(v) for i, v in enumerate(values)
            )
            out.append(make_node("list", checked, None, item.line, item.col))
        return make_node("list", tuple(out), None, node.line, node.col)

    def alldifferent_terms(self, node: Node) -> tuple[Node, ...]:
        args = node.args
        if len(args) != 1:
            return args
        only = args[0]
        if only.op == "list":
            return only.args
        if only.op == "call" and only.value not in self.callables:
            # (alldifferent (a b c)) reads as a call of a: it is the list form
            return (make_node("sym", (), only.value, only.line, only.col + 1),) + only.args
        if only.op in TERM_OPS:
            self.warn(
                f"(alldifferent ({SPELLING.get(only.op, only.op)} ...)) is read as one term, so it always holds "
                "(Sugar reads it as a list of terms and fails)",
                node,
            )
        return args

    def cumulative(self, node: Node) -> Node:
        tasks_node, limit = node.args
        tasks = []
        for task in self.as_list(tasks_node, "a list of tasks"):
            items = self.as_list(task, "a task (origin duration end height)")
            if len(items) != 4:
                raise self.error(f"a cumulative task is (origin duration end height), got {len(items)} values", task)
            nils = sum(1 for a in items[:3] if a.op == "nil")
            if nils > 1:
                raise self.error("a cumulative task may leave at most one of origin, duration and end as nil", task)
            if items[3].op == "nil":
                raise self.error("the height of a cumulative task cannot be nil", items[3])
            tasks.append(make_node("list", tuple(a if a.op == "nil" else self.term(a) for a in items), None, task.line, task.col))
        return make_node("cumulative", (make_node("list", tuple(tasks), None, tasks_node.line, tasks_node.col), self.term(limit)), None, node.line, node.col)


def _variables(node: Node) -> list[str]:
    """The integer variables of a checked term."""
    if node.op == "ivar":
        return [node.value]  # type: ignore[list-item]
    return [name for a in node.args for name in _variables(a)]


def _constant(node: Node, fixed: "dict[str, int] | None" = None) -> int | None:
    """The value of a term made of constants only (None if it has a variable or parameter); with `fixed`,
    integer variables named there count as their value (those whose domain has one value)."""
    op = node.op
    if op == "const":
        return node.value  # type: ignore[return-value]
    if op == "ivar":
        return None if fixed is None else fixed.get(node.value)  # type: ignore[arg-type]
    values = [_constant(a, fixed) for a in node.args]
    if not node.args or any(v is None for v in values):
        return None if op not in ("add",) or node.args else 0
    if op == "add":
        return sum(values)  # type: ignore[arg-type]
    if op == "sub":
        return values[0] - sum(values[1:])  # type: ignore[operator]
    if op == "neg":
        return -values[0]  # type: ignore[operator]
    if op == "mul":
        return values[0] * values[1]  # type: ignore[operator]
    if op == "abs":
        return abs(values[0])  # type: ignore[arg-type]
    if op == "min":
        return min(values)  # type: ignore[type-var]
    if op == "max":
        return max(values)  # type: ignore[type-var]
    return None
