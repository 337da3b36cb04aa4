"""Rules that flag a call by the name it resolves to, and the one hook that puts each call to them."""

from __future__ import annotations

from functools import cache

import libcst as cst

from ..finding import Fix
from ..fixes.guards import guard_statement
from .base import Rule
from ._util import builtin_name


class CallRule(Rule):
    """A rule that flags calls by their resolved dotted name. `CallRules` asks it about the calls its
    names may match (it hooks no `visit_Call` of its own)."""

    NAMES: frozenset[str] = frozenset()
    PREFIXES: tuple[str, ...] = ()
    BUILTINS: frozenset[str] = frozenset()
    # Diagnostic output only: skipping it under compile changes nothing eager code sees.
    GUARD_FIX = False
    # `matches` also takes calls that its names do not (a keyword's value): asked about every call
    ASK_ALWAYS = False
    # `matches` also takes calls of a C++ extension's functions (`ctx.extensions`): asked about those
    ASK_EXTENSIONS = False

    def matches(self, node: cst.Call) -> str | None:
        name = builtin_name(self.ctx, node)
        if name is not None and name in self.BUILTINS:
            return name
        qual = self.ctx.qualify(node.func)
        if qual is not None and (qual in self.NAMES or qual.startswith(self.PREFIXES)):
            return qual
        return None

    def check_call(self, node: cst.Call) -> None:
        """A call of compiled code whose names this rule's may match."""
        what = self.matches(node)
        if what is not None:
            self.report(node, self.describe(node, what), fix=self.fix_for(node, what),
                        unless=self.settings_for(node, what))

    def settings_for(self, node: cst.Call, what: str) -> tuple[str, ...]:
        """The dynamo settings under which this call is no break (`dynamo_settings` tokens)."""
        return ()

    def fix_for(self, node: cst.Call, what: str) -> Fix | None:
        return guard_statement(self.ctx, node) if self.GUARD_FIX else None

    def describe(self, node: cst.Call, what: str) -> str:
        return f"`{self.ctx.source(node)}`: {self.MESSAGE}"


class CallRules(cst.BatchableCSTVisitor):
    """The `CallRule`s of one walk behind one `visit_Call`: a call of compiled code is put to the rules
    whose builtins, names or prefixes its name may match (and to those that take any call), in the
    rules' order: a dozen rules, each hooking every call, cost 2 % of a run's instructions."""

    def __init__(self, rules: list[CallRule]) -> None:
        super().__init__()
        self._rules = rules
        self._ctx = rules[0].ctx
        self._always, self._extensions, self._builtins, self._names, self._prefixes, self._any_prefix = \
            _call_index(tuple(type(rule) for rule in rules))
        # per function being walked: its locals bound to a choice of functions -> (those, the choice's text)
        self._choices: list[dict[str, tuple[list[cst.BaseExpression], str]]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._choices.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._choices.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        """`wrapper = tqdm if verbose else identity`: a local bound to a choice of functions (named ones:
        `a if c else b`, `a or b`); any other binding of the name ends it."""
        if not self._choices:
            return
        for target in node.targets:
            if type(target.target) is cst.Name:
                held = _choice(node.value)
                if held and len(node.targets) == 1:
                    self._choices[-1][target.target.value] = (held, self._ctx.source(node.value))
                else:
                    self._choices[-1].pop(target.target.value, None)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self._ctx
        if not ctx.active():
            return
        self._ask(node)
        if type(node.func) is cst.Name and self._choices and node.func.value in self._choices[-1]:
            # a call of a local bound to a choice of functions: asked about each function it may hold
            held, choice = self._choices[-1][node.func.value]
            for function in held:
                with ctx.asking_as(node.func, function, choice):
                    self._ask(node)

    def _ask(self, node: cst.Call) -> None:
        ctx = self._ctx
        asked = set(self._always)
        builtin = builtin_name(ctx, node)
        if builtin is not None:
            asked.update(self._builtins.get(builtin, ()))
        qual = ctx.qualify(node.func)
        if qual is not None:
            asked.update(self._names.get(qual, ()))
            if qual.startswith(self._any_prefix):
                asked.update(i for i, prefixes in self._prefixes if qual.startswith(prefixes))
            if ctx.extensions and qual.partition(".")[0] in ctx.extensions:
                asked.update(self._extensions)
        for i in sorted(asked):
            self._rules[i].check_call(node)


def _choice(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The named functions a choice holds (`tqdm if verbose else identity`, `log or print`; a lambda
    among them is left out), else none: a value that is no choice holds one thing, which `qualify` names."""
    if type(value) not in (cst.IfExp, cst.BooleanOperation) or \
            type(value) is cst.BooleanOperation and type(value.operator) is not cst.Or:
        return []
    found: list[cst.BaseExpression] = []
    for branch in (value.body, value.orelse) if type(value) is cst.IfExp else (value.left, value.right):
        found += _choice(branch) or ([branch] if type(branch) in (cst.Name, cst.Attribute) else [])
    return found


@cache
def _call_index(kinds: tuple[type[CallRule], ...]) -> tuple:
    """For call rules of these classes, in this order (positions into them): those asked about every
    call, those asked about an extension's calls, those by builtin and by name, and the prefixes;
    once per set of classes, not per file."""
    always = tuple(i for i, kind in enumerate(kinds) if kind.ASK_ALWAYS)
    extensions = tuple(i for i, kind in enumerate(kinds) if kind.ASK_EXTENSIONS)
    builtins: dict[str, list[int]] = {}
    names: dict[str, list[int]] = {}
    for i, kind in enumerate(kinds):
        for name in kind.BUILTINS:
            builtins.setdefault(name, []).append(i)
        for name in kind.NAMES:
            names.setdefault(name, []).append(i)
    prefixes = tuple((i, kind.PREFIXES) for i, kind in enumerate(kinds) if kind.PREFIXES)
    return always, extensions, builtins, names, prefixes, tuple(p for _, group in prefixes for p in group)


class MethodCallRules(cst.BatchableCSTVisitor):
    """The rules that look only at method calls of some names (`Rule.CALL_METHODS`: `x.tolist()`,
    `opt.step()`) behind one `visit_Call`: a call `x.<name>(...)` is put to the `on_method_call` of those
    whose names hold `name`, in the rules' order; they are not asked about any other call."""

    def __init__(self, rules: list[Rule]) -> None:
        super().__init__()
        self._by_method: dict[str, list[Rule]] = {}
        for rule in rules:
            for name in rule.CALL_METHODS:
                self._by_method.setdefault(name, []).append(rule)

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Attribute:
            for rule in self._by_method.get(node.func.attr.value, ()):
                rule.on_method_call(node)


def batched(rules: list[Rule]) -> list[cst.BatchableCSTVisitor]:
    """The visitors of a walk with these rules: one `CallRules` where the first call rule stands, which
    asks them about calls, and one `MethodCallRules` where the first rule of `CALL_METHODS` stands; the
    rules stay in the walk for their other hooks (`TimeCall.visit_IfExp`)."""
    out: list[cst.BatchableCSTVisitor] = list(rules)
    for kind, group in ((CallRules, [r for r in rules if isinstance(r, CallRule)]),
                        (MethodCallRules, [r for r in rules if r.CALL_METHODS])):
        if group:
            out.insert(out.index(group[0]), kind(group))
    return out
