"""An `if` on a tensor that only raises, rewritten as `torch._assert_async(cond, msg)` (BL201, and
BL101/BL103 where `.item()` or `bool()` feeds that test): the check stays in the graph.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ..analysis.syntax import dotted
from ..analysis.walk import find
from ..finding import Fix
from .conditions import guarded_condition, tensor_condition, tensor_operands
from .edit import own_line_indent, replace, torch_name


if TYPE_CHECKING:
    from ..analysis.context import FileContext
    from ..analysis.values import Val


def _raise_message(stmt: cst.Raise) -> str | None:
    """The message for `raise E("literal")` (its literal), `raise E(f"...")` (its text, fields elided)
    or `raise E` / `raise E()` ("E raised"), as source text; None for any other computed message."""
    exc = stmt.exc
    if stmt.cause is not None or exc is None:
        return None
    name = dotted(exc.func if type(exc) is cst.Call else exc)
    if type(exc) is not cst.Call or not exc.args:
        return f'"{name} raised"' if name else None
    if len(exc.args) > 1:
        return None
    arg = exc.args[0]
    if arg.keyword is not None or arg.star or type(arg.value) not in (cst.SimpleString, cst.ConcatenatedString,
                                                                      cst.FormattedString):
        return None
    strings = find(arg.value, cst.SimpleString)
    if any("b" in s.prefix.lower() for s in strings):
        return None
    if any(find(arg.value, cst.FormattedString)):
        return _elided(arg.value)
    return cst.Module([]).code_for_node(arg.value)


def _string_pieces(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(node) is cst.ConcatenatedString:
        return _string_pieces(node.left) + _string_pieces(node.right)
    return [node]


def _elided(message: cst.BaseExpression) -> str | None:
    """An f-string message as a plain string, each `{...}` field written `...`: the fields would
    format tensors while tracing, and `_assert_async` takes a constant message."""
    parts: list[str] = []
    for piece in _string_pieces(message):
        if type(piece) is cst.SimpleString and isinstance(piece.evaluated_value, str):
            parts.append(piece.evaluated_value)
        elif type(piece) is cst.FormattedString and "r" not in piece.prefix.lower():
            for part in piece.parts:
                if type(part) is cst.FormattedStringText:
                    text = ast.literal_eval(piece.end + part.value + piece.end)
                    parts.append(text.replace("{{", "{").replace("}}", "}"))
                else:
                    parts.append("...")
        else:
            return None
    return repr("".join(parts))


def check_to_assert(ctx: "FileContext", node: cst.If) -> Fix | None:
    """`if <tensor cond>: raise E("msg")` -> `torch._assert_async(<not cond>, "msg")`.

    dynamo traces `torch._assert_async` as an operator, so the check stays in the graph. Unsafe: the
    failure is a RuntimeError instead of E, and on CUDA it is raised asynchronously (a device-side
    assert, at the next synchronization)."""
    torch = torch_name(ctx)
    if torch is None or node.orelse is not None or type(node.body) is not cst.IndentedBlock:
        return None
    body = node.body.body
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1 \
            or type(body[0].body[0]) is not cst.Raise:
        return None
    header = node.body.header.comment  # moves to the new line; any other comment would be lost: no fix
    if any(c is not header for c in find(node, cst.Comment)):
        return None
    message = _raise_message(body[0].body[0])
    if message is None:
        return None
    split = guarded_condition(ctx, node.test, torch)
    if split is None:
        return None
    guard, fails, test = split
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not and not test.lpar:
        holds = tensor_condition(ctx, test.expression, torch)
    else:
        holds = f"{torch}.logical_not({fails})"
    if holds is None:
        return None
    title = f"check with `{torch}._assert_async(cond, msg)` instead of branching to raise"
    lines = [f"{torch}._assert_async({holds}, {message})"]
    if guard:  # `if P and T: raise`, P not a tensor: P stays a Python test
        indent = own_line_indent(ctx, node)
        if indent is None:
            return None
        lines = [f"if {guard}:", f"{indent}{ctx.indent_unit}{lines[0]}"]
    if header is not None:
        lines[0] += f"  {header.value}"
    return replace(ctx, node, "\n".join(lines), title, safe=False)


def check_of_test(ctx: "FileContext", node: cst.BaseExpression) -> tuple[Fix, tuple[Val, ...]] | None:
    """For `t.item()` or `bool(t)` tested by an `if` that only raises (`if n > 0 and t.item(): raise
    E("msg")`): that `if` as `torch._assert_async`, as `check_to_assert` writes it; with the values of the
    tensors its test hands to torch (`tensor_operands`), which must be known tensors for it to be offered."""
    owner = ctx.tested_if()
    if owner is None or node not in ctx.condition_parts or not any(n is node for n in find(owner.test, cst.Call)):
        return None
    fix = check_to_assert(ctx, owner)
    return (fix, tensor_operands(ctx, owner.test)) if fix is not None else None
