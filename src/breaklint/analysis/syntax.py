"""What a piece of syntax is, without any context: dotted names, the statements of a block, whether a
suite leaves its block, `super()` calls, what a call passes. Asked by every analysis layer, the rules
and the fixes."""

from __future__ import annotations

from typing import Callable, Iterator, TypeVar

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None for anything that is not a plain name chain."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def string_index(node: cst.Subscript) -> str | None:
    """`x["key"]`: "key"; None for any other subscript (several elements, a slice, an index that is no
    string literal, a bytes literal)."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index \
            or type(index := node.slice[0].slice.value) is not cst.SimpleString:
        return None
    key = index.evaluated_value
    return key if isinstance(key, str) else None


def leaves_block(body: cst.BaseSuite) -> bool:
    """A suite whose last statement returns or raises (or leaves the loop): what follows it in the
    enclosing block runs only when the suite did not."""
    statements = body.body
    if not statements:
        return False
    last = statements[-1]
    if type(last) is cst.SimpleStatementLine:
        return bool(last.body) and type(last.body[-1]) in (cst.Return, cst.Raise, cst.Continue, cst.Break)
    return False


def is_super_call(node: cst.BaseExpression) -> bool:
    """`super()` (with or without arguments)."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "super"


def is_stub(node: cst.FunctionDef) -> bool:
    """A body that only says it is not there: `raise NotImplementedError` (called or not) or `...`,
    after a docstring if any. `pass` is not one: a hook that does nothing on purpose is written so."""
    body = node.body
    if type(body) is not cst.IndentedBlock:
        statements = [body.body]
    else:
        statements = [line.body for line in body.body if type(line) is cst.SimpleStatementLine]
        if len(statements) != len(body.body):
            return False
    small = [stmt for line in statements for stmt in line]
    if small and type(small[0]) is cst.Expr and type(small[0].value) in (cst.SimpleString, cst.ConcatenatedString):
        small = small[1:]
    if len(small) != 1:
        return False
    stmt = small[0]
    if type(stmt) is cst.Expr:
        return type(stmt.value) is cst.Ellipsis
    if type(stmt) is cst.Raise and stmt.exc is not None:
        exc = stmt.exc.func if type(stmt.exc) is cst.Call else stmt.exc
        return type(exc) is cst.Name and exc.value == "NotImplementedError"
    return False


def iter_statements(body: cst.BaseSuite | list) -> Iterator[cst.CSTNode]:
    """Small statements and compound statements of a block, into nested blocks but not defs."""
    stmts = body.body if isinstance(body, (cst.BaseSuite, cst.Module)) else body
    for stmt in stmts:
        if type(stmt) is cst.SimpleStatementLine:
            yield from stmt.body
        elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement):
            yield stmt
            for attr in ("body", "orelse", "finalbody"):
                child = getattr(stmt, attr, None)
                if type(child) is cst.If:
                    yield from iter_statements([child])
                elif type(child) in (cst.Else, cst.Finally):
                    yield from iter_statements(child.body)
                elif isinstance(child, cst.BaseSuite):
                    yield from iter_statements(child)
            for handler in getattr(stmt, "handlers", ()):
                yield from iter_statements(handler.body)


def unseeded(func: cst.BaseExpression) -> cst.BaseExpression:
    """The callee that makes a generator seeded on the spot: `torch.Generator` of
    `torch.Generator(device).manual_seed(seed)`; any other callee as it is."""
    while type(func) is cst.Attribute and func.attr.value == "manual_seed" and type(func.value) is cst.Call:
        func = func.value.func
    return func


T = TypeVar("T")


def call_arguments(call: cst.Call,
                   value: Callable[[cst.BaseExpression], T]) -> tuple[list[T], list[tuple[str, T]]] | None:
    """What a call passes, as `value` reads each argument: (positional, [(keyword, value)]); None
    where a `*` or `**` hides which parameter takes what."""
    if any(arg.star for arg in call.args):
        return None
    return ([value(a.value) for a in call.args if a.keyword is None],
            [(a.keyword.value, value(a.value)) for a in call.args if a.keyword is not None])


def self_call(func: cst.BaseExpression, methods: set[str] | None) -> str | None:
    """The method `self(...)` runs in a method of a class defining `methods`: its `__call__` where the
    class defines one, else `forward` (a module's call runs it; reach finds it in a base class too);
    None for any other call, or outside a class."""
    if methods is None or type(func) is not cst.Name or func.value != "self":
        return None
    return "__call__" if "__call__" in methods else "forward"


def is_own_class(node: cst.BaseExpression) -> bool:
    """Whether `node` is the class of `self`: `type(self)` or `self.__class__` (whose methods,
    `type(self).count(x)`, are those `self.count(x)` runs)."""
    if type(node) is cst.Attribute:
        return node.attr.value == "__class__" and type(node.value) is cst.Name and node.value.value == "self"
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "type" \
        and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
        and type(node.args[0].value) is cst.Name and node.args[0].value.value == "self"


def literal_elements(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The elements of a list or tuple literal, the values of a dict literal; none of anything else."""
    if type(node) not in (cst.List, cst.Tuple, cst.Dict):
        return []
    return [el.value for el in node.elements if type(el) in (cst.Element, cst.DictElement)]


def named_entries(node: cst.BaseExpression, aliases: dict[str, str],
                  qualify: Callable[[cst.BaseExpression], str | None]) -> list[str]:
    """What a dict, list or tuple literal names: each element (a dict's values) that is a name or a
    dotted name the module binds (`Euler`, `nn.LSTM`, `losses.focal`), qualified."""
    return [q for el in literal_elements(node) if (dotted(el) or ".").split(".")[0] in aliases and (q := qualify(el))]
