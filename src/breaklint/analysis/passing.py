"""What a class's methods hand one another (an autograd Function's `forward` its `backward` too, through
`ctx`), and what `getattr(module, name)` may hand over: the parameter of a helper method that each of its calls in
the class passes the same module of the instance (`self._run(self.rnn, x)`, or `self._layer(cell, x)`
in a loop over `self.cells`), so that calling the parameter (`cell(x)`) runs what that attribute holds.
Asked by the attributes pre-pass (`Attributes.scan_class`) once a class's attributes are known; the
scopes layer seeds each method's parameters with it (`Scopes.visit_FunctionDef`).
"""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from .summary import ClassInfo
from .syntax import dotted, iter_statements, self_attribute, stepped
from .walk import find

# how many methods deep a module is followed as it is handed on (`forward` to `_layer` to `_apply`)
DEPTH = 3


def handed_attributes(node: cst.ClassDef, info: ClassInfo,
                      aliases: Collection[str]) -> dict[str, dict[str, str]]:
    """method -> {parameter: attribute of `self`} for the parameters that every call of the method in
    the class hands the same attribute (`self.rnn`), an element of it (a loop's `cell` over
    `self.cells`, `enumerate` and `zip` included), or a parameter of the caller handed one in turn;
    a call that hands anything else, or hides what it hands behind `*args`, leaves the parameter
    unknown. Callers outside the class are not seen: the parameter holds at least what the class
    hands it."""
    methods = {stmt.name.value: stmt for stmt in node.body.body if type(stmt) is cst.FunctionDef}
    calls = [(name, callee, call) for name, fn in methods.items() for call in find(fn.body, cst.Call)
             if (callee := _own_method(call.func, methods)) is not None]
    if not calls:
        return {}
    loops = {name: _loop_elements(methods[name], info, aliases) for name in {caller for caller, _, _ in calls}}
    resolved: dict[str, dict[str, str]] = {}
    for _ in range(DEPTH):
        seen: dict[str, dict[str, set[str | None]]] = {}
        for caller, callee, call in calls:
            order = _positional(methods[callee])
            handed = seen.setdefault(callee, {})
            if any(arg.star for arg in call.args):
                for param in order:
                    handed.setdefault(param, set()).add(None)
                continue
            for i, arg in enumerate(call.args):
                param = arg.keyword.value if arg.keyword is not None else order[i] if i < len(order) else None
                if param is not None:
                    handed.setdefault(param, set()).add(_handed(arg.value, loops[caller], resolved.get(caller, {}),
                                                                info))
        found = {m: {p: next(iter(attrs)) for p, attrs in params.items() if len(attrs) == 1 and None not in attrs}
                 for m, params in seen.items()}
        if found == resolved:
            break
        resolved = found
    return {m: params for m, params in resolved.items() if params}


def _own_method(func: cst.BaseExpression, methods: dict[str, cst.FunctionDef]) -> str | None:
    """The method of the class a call `self.<method>(...)` runs."""
    name = self_attribute(func)
    return name if name in methods else None


def _positional(fn: cst.FunctionDef) -> list[str]:
    """The parameters a call of the method through `self` fills by position (the instance's left out,
    unless the method is static)."""
    names = [p.name.value for p in [*fn.params.posonly_params, *fn.params.params]]
    static = any(dotted(d.decorator) == "staticmethod" for d in fn.decorators)
    return names if static else names[1:]


def _loop_elements(fn: cst.FunctionDef, info: ClassInfo, aliases: Collection[str]) -> dict[str, str]:
    """The loop variables of a method that step through a module container of `self`, and their
    attribute (`for i, (cell, rate) in enumerate(zip(self.cells, self.rates))`: "cell" -> "cells")."""
    out: dict[str, str] = {}
    for loop in find(fn.body, cst.For):
        for name, source in stepped(loop.target, loop.iter, aliases):
            attr = self_attribute(source)
            if attr is not None and info.holds_object(attr):
                out[name.value] = attr
    return out


def _handed(value: cst.BaseExpression, loops: dict[str, str], params: dict[str, str], info: ClassInfo) -> str | None:
    """The attribute of `self` an argument hands over: `self.rnn`, a loop's element of `self.cells`, or
    a parameter of the caller handed one; None for anything else."""
    if (attr := self_attribute(value)) is not None:
        return attr if info.holds_object(attr) else None
    if type(value) is cst.Name:
        return loops.get(value.value) or params.get(value.value)
    return None


def module_members(ctx, call: cst.Call) -> list[str]:
    """`getattr(activations, config.bin_function)`: a name of an imported module, by a name the code does
    not show, as "module.*" (each public function and class of the module, if it is one of the tree's:
    `Tree.tables`); [] for any other call. `ctx`: the file's context (its imports, `qualify`, `is_bound`)."""
    if not (type(call.func) is cst.Name and call.func.value == "getattr" and "getattr" not in ctx.aliases
            and len(call.args) == 2 and not any(a.star or a.keyword for a in call.args)
            and type(call.args[1].value) not in (cst.SimpleString, cst.ConcatenatedString)):
        return []
    owner = call.args[0].value
    qual = ctx.qualify(owner) if type(owner) in (cst.Name, cst.Attribute) else None
    head = (dotted(owner) or "").split(".")[0]
    return [f"{qual}.*"] if qual and head in ctx.aliases and not ctx.is_bound(head) \
        and not qual.startswith(("torch.", "numpy.", "math.", "operator.")) else []


def kept_on_ctx(fn: cst.FunctionDef, info: ClassInfo) -> None:
    """`ctx.blocks = blocks` in an autograd Function's `forward(ctx, x, blocks)`: what `.apply`'s callers
    hand over for that parameter is what `backward` finds in `ctx.blocks` (`ClassInfo.from_params`, as a
    setter's: "forward#blocks")."""
    params = [p.name.value for p in [*fn.params.posonly_params, *fn.params.params]]
    if not params:
        return
    for stmt in iter_statements(fn.body):
        if type(stmt) is not cst.Assign or type(stmt.value) is not cst.Name or stmt.value.value not in params[1:]:
            continue
        for target in stmt.targets:
            held = target.target
            if type(held) is cst.Attribute and type(held.value) is cst.Name and held.value.value == params[0]:
                info.from_params.setdefault(held.attr.value, f"forward#{stmt.value.value}")


def ctx_attribute(ctx, node: cst.BaseExpression) -> str | None:
    """The attribute of `ctx` a name holds (or an element of), in a static method of an autograd Function
    whose `forward` keeps a parameter there (`ClassInfo.from_params`): `block` in `for block in
    ctx.blocks[::-1]` -> "blocks" (`kept_on_ctx`). `ctx` here: the file's walk, in that method."""
    fn, cls = ctx.function, ctx.class_info()
    if type(node) is not cst.Name or not ctx._scopes or cls is None or not fn.is_static or not fn.params:
        return None
    held = ctx._scopes[-1].values.get(node.value)
    while held is not None and held.kind == "elem" and len(held.parts) == 1 and not held.name.startswith("."):
        held = held.parts[0]
    if held is None or held.kind != "elem" or not held.name.startswith(".") or len(held.parts) != 1:
        return None
    base, attr = held.parts[0], held.name[1:]
    return attr if base.kind == "param" and base.ref == fn.qualname and base.name == fn.params[0] \
        and cls.from_params.get(attr, "").startswith("forward#") else None


def picked_entry(ctx, value: cst.BaseExpression) -> list[str]:
    """What one entry picked from a table of callables holds: `table[key]` or `table.get(key)` of a local bound to
    a literal of them (`fns = {"equal": self.equal_weights, ...}`), of such a literal written in place, or of a
    module-level table of functions (`TABLE.get(name)`); [] for anything else."""
    if type(value) is cst.Subscript:
        table = value.value
    elif type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value == "get" \
            and 1 <= len(value.args) <= 2 and not any(a.star or a.keyword for a in value.args):
        table = value.func.value
    else:
        return []
    scope = ctx._scopes[-1]
    if type(table) is cst.Name and table.value in scope.functions:
        return list(scope.functions[table.value])
    if type(table) is cst.Dict:
        return ctx.held_in_literal(table)
    if type(table) is cst.Name and table.value in ctx.summary.function_tables and not ctx.is_bound(table.value):
        return [f"{ctx.module}.{table.value}"]
    return []


def either_param(value: cst.BaseExpression, params: dict[str, cst.Param]) -> cst.Param | None:
    """The parameter one side of a conditional expression or an `or` names (`actions if actions is not None else
    env.default_actions()`, `actions or env.default_actions()`), which tells what the other side makes too; None
    for anything else."""
    if type(value) is cst.IfExp:
        sides = (value.body, value.orelse)
    elif type(value) is cst.BooleanOperation and type(value.operator) is cst.Or:
        sides = (value.left, value.right)
    else:
        return None
    return next((params[s.value] for s in sides if type(s) is cst.Name and s.value in params), None)
