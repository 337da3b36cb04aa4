"""Numbers and strings written in the source, read as Python reads them; asked by the context, the rules
and the fixes.

Every form Python accepts is valid in code breaklint lints: `0xFF`, `0o17`, `0b101`, `1_000`,
`1e3`, `2j`, and integers of any size. Parsing the text by hand (`int(text)`) gets these wrong;
libcst's `evaluated_value` hands the text to `ast.literal_eval`, as the compiler would.
"""

from __future__ import annotations

import libcst as cst


def number(node: cst.BaseExpression) -> int | float | complex | None:
    """The value of a numeric literal, or of one under unary `-`/`+` (`-1`, `+0x10`); None for
    anything else."""
    sign = 1
    while type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        if type(node.operator) is cst.Minus:
            sign = -sign
        node = node.expression
    if type(node) in (cst.Integer, cst.Float, cst.Imaginary):
        return sign * node.evaluated_value
    return None


def integer(node: cst.BaseExpression) -> int | None:
    """The value of an integer literal (negated or not); None for anything else, floats included."""
    value = number(node)
    return value if type(value) is int else None


def string(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain string literal (`"mylib::op"`, `r"..."`); None for anything else, bytes included."""
    if type(node) is cst.SimpleString:
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
