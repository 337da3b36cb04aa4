"""Text of the source a rewrite is written from, and the `Fix` it becomes; asked by every builder below.

A fix copies nodes' source text by position (with their own parentheses) and writes a replacement
edit, never a CST node: fixes cross processes and cache entries as plain data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..finding import Edit, Fix
from ..source import span_text


if TYPE_CHECKING:
    from ..analysis.context import FileContext


def torch_name(ctx: "FileContext") -> str | None:
    """The local name bound to the `torch` module (`import torch`, `import torch as t`)."""
    return min((local for local, full in ctx.aliases.items() if full == "torch"), default=None)


def text_of(ctx: "FileContext", node: cst.CSTNode) -> str:
    """The exact source text of a node, its own parentheses included (a position leaves them out:
    `(a\n or b)` without them is not an expression)."""
    pos = ctx.position(node)
    span = (pos.start.line, pos.start.column, pos.end.line, pos.end.column)
    if getattr(node, "lpar", None):
        span = _with_parentheses(ctx.lines, span, len(node.lpar), len(node.rpar))
        if span is None:  # a comment inside the parentheses: the node's own code, parentheses and all
            return cst.Module([]).code_for_node(node)
    return span_text(ctx.lines, *span)


def _with_parentheses(lines: list[str], span: tuple[int, int, int, int], opening: int, closing: int
                      ) -> tuple[int, int, int, int] | None:
    """`span` widened over the parentheses around it: only whitespace, line breaks and more parentheses
    lie between them and the node. None when anything else does (a comment)."""
    line, col, end_line, end_col = span
    while opening:
        if col == 0:
            line -= 1
            if line < 1:
                return None
            col = len(lines[line - 1])
            continue
        col -= 1
        char = lines[line - 1][col]
        if char == "(":
            opening -= 1
        elif not (char.isspace() or char == "\\"):
            return None
    while closing:
        if end_col == len(lines[end_line - 1]):
            end_line += 1
            if end_line > len(lines):
                return None
            end_col = 0
            continue
        char = lines[end_line - 1][end_col]
        end_col += 1
        if char == ")":
            closing -= 1
        elif not char.isspace():
            return None
    return line, col, end_line, end_col


def replace(ctx: "FileContext", node: cst.CSTNode, content: str, title: str, safe: bool) -> Fix:
    pos = ctx.position(node)
    return Fix(title=title, edits=(Edit(pos.start.line, pos.start.column, pos.end.line, pos.end.column,
                                        content),), safe=safe)


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


def wrapped(node: cst.BaseExpression, text: str) -> str:
    """`text` (the node's source) in parentheses unless the node binds tighter than any operator."""
    return text if isinstance(node, _ATOMS) or node.lpar else f"({text})"


def _fold(torch: str, name: str, parts: list[str]) -> str:
    """`torch.<name>(torch.<name>(a, b), c)` for parts a, b, c."""
    out = parts[0]
    for more in parts[1:]:
        out = f"{torch}.{name}({out}, {more})"
    return out


def _unwrapped(ctx: "FileContext", node: cst.BaseExpression) -> cst.BaseExpression | None:
    """`t` for `t.item()` or `bool(t)` of a tensor: a Python value, whose truth is `t`'s."""
    if type(node) is cst.Call and not node.args and type(node.func) is cst.Attribute \
            and node.func.attr.value == "item":
        inner = node.func.value
    elif type(node) is cst.Call and len(node.args) == 1 and ctx.qualify(node.func) == "bool" \
            and not node.args[0].keyword and not node.args[0].star:
        inner = node.args[0].value
    else:
        return None
    return inner if ctx.tensor_requirement(inner) is not None else None


def sole_statement(ctx: "FileContext") -> cst.BaseSmallStatement | None:
    """The small statement being walked, when it is alone on its line (no `;`)."""
    stmt = ctx.current_statement()
    return stmt.body[0] if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 else None


def own_line_indent(ctx: "FileContext", node: cst.CSTNode) -> str | None:
    """The indentation of the line a statement starts, or None when other code precedes it there."""
    pos = ctx.position(node)
    indent = ctx.lines[pos.start.line - 1][:pos.start.column]
    return None if indent.strip() else indent
