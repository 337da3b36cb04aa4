"""A Python test written as a bool tensor (`torch.logical_and/or/not`, `!= 0`), for the rewrites
that select with `torch.where` or check with `torch._assert_async`; and the values of the tensors it
hands to torch, which must be known tensors for such a rewrite to be offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .edit import _fold, _unwrapped, text_of, wrapped


if TYPE_CHECKING:
    from ..analysis.context import FileContext
    from ..analysis.values import Val


_NOT_ELEMENTWISE = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def tensor_condition(ctx: "FileContext", test: cst.BaseExpression, torch: str) -> str | None:
    """`test` written as a bool tensor, for `torch.where` and `torch._assert_async`; None when it cannot be.

    A comparison already is one; `not`, `and` and `or` become `torch.logical_not/and/or` (only when
    every operand is a tensor: Python's `x and y` on a plain bool has no tensor form); any other
    tensor is tested for truth, which is `!= 0`.
    """
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = tensor_condition(ctx, test.expression, torch)
        return None if inner is None else f"{torch}.logical_not({inner})"
    if type(test) is cst.BooleanOperation:
        if ctx.tensor_requirement(test.left) is None or ctx.tensor_requirement(test.right) is None:
            return None
        left, right = tensor_condition(ctx, test.left, torch), tensor_condition(ctx, test.right, torch)
        if left is None or right is None:
            return None
        return f"{torch}.logical_{'and' if type(test.operator) is cst.And else 'or'}({left}, {right})"
    inner = _unwrapped(ctx, test)
    if inner is not None:
        return tensor_condition(ctx, inner, torch)
    if ctx.tensor_requirement(test) is None:
        return None
    text = text_of(ctx, test)
    if type(test) is cst.Comparison:
        if any(isinstance(c.operator, _NOT_ELEMENTWISE) for c in test.comparisons):
            return None
        if len(test.comparisons) == 1:
            return text
        # `a <= b <= c` is `a <= b and b <= c`: one comparison per pair, and-ed
        left, pairs = test.left, []
        for comp in test.comparisons:
            op = cst.Module([]).code_for_node(comp.operator).strip()
            pairs.append(f"{text_of(ctx, left)} {op} {text_of(ctx, comp.comparator)}")
            left = comp.comparator
        return _fold(torch, "logical_and", pairs)
    if ctx.value(test).bool_shaped:
        return text
    return f"{wrapped(test, text)} != 0"


def tensor_operands(ctx: "FileContext", test: cst.BaseExpression) -> tuple[Val, ...]:
    """The values of the parts of a test that `tensor_condition` hands to torch (a comparison, a
    tensor tested for truth, `t` of `t.item()` and `bool(t)`); Python parts that stay a Python test
    give nothing. A rewrite through them must only be offered where each is a known tensor."""
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test = test.expression
    if type(test) is cst.BooleanOperation:
        return tensor_operands(ctx, test.left) + tensor_operands(ctx, test.right)
    inner = _unwrapped(ctx, test)
    if inner is not None:
        return tensor_operands(ctx, inner)
    requirement = ctx.tensor_requirement(test)
    return (requirement,) if requirement is not None else ()


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And and not test.lpar:
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _tests_a_tensor(ctx: "FileContext", part: cst.BaseExpression) -> bool:
    """A tensor, `t.item()` or `bool(t)`, or `not` of one."""
    while type(part) is cst.UnaryOperation and type(part.operator) is cst.Not:
        part = part.expression
    return ctx.tensor_requirement(part) is not None or _unwrapped(ctx, part) is not None


def guarded_condition(ctx: "FileContext", test: cst.BaseExpression, torch: str
                      ) -> tuple[str | None, str, cst.BaseExpression | None] | None:
    """`P and T`, P not a tensor and T one, as (P's source, T as a bool tensor, T's node when it is one
    operand): P stays a Python test. (None, ..) without such P; None when T is not a tensor."""
    parts = _conjuncts(test)
    guard: list[cst.BaseExpression] = []
    while parts and not _tests_a_tensor(ctx, parts[0]):
        guard.append(parts.pop(0))
    if not parts or (guard and any(type(g) is cst.BooleanOperation and not g.lpar for g in guard)):
        return None
    if not guard:
        cond = tensor_condition(ctx, test, torch)
        return None if cond is None else (None, cond, test)
    conds = [tensor_condition(ctx, p, torch) for p in parts]
    if any(c is None for c in conds):
        return None
    cond = _fold(torch, "logical_and", conds)
    return " and ".join(text_of(ctx, g) for g in guard), cond, parts[0] if len(parts) == 1 else None
