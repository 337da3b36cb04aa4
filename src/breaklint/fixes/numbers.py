"""Python numbers that can stay tensors or come from torch (BL102, BL103, BL405): `range` for
`torch.arange(...).tolist()`, `torch.sqrt` for `math.sqrt` of a tensor, torch's generator for
`random.*`; a tensor multiplied in for a number parameter (`alpha=t`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..finding import Fix
from .edit import replace, text_of, torch_name, wrapped


if TYPE_CHECKING:
    from ..analysis.context import FileContext


_RANDOM = {
    "random.random": ("{t}.rand(())", 0),
    "numpy.random.rand": ("{t}.rand(())", 0),
    "numpy.random.random": ("{t}.rand(())", 0),
    "numpy.random.randn": ("{t}.randn(())", 0),
    "random.uniform": ("{t}.empty(()).uniform_({0}, {1})", 2),
    "numpy.random.uniform": ("{t}.empty(()).uniform_({0}, {1})", 2),
    "random.gauss": ("{t}.normal(float({0}), float({1}), ())", 2),
    "random.normalvariate": ("{t}.normal(float({0}), float({1}), ())", 2),
    "numpy.random.normal": ("{t}.normal(float({0}), float({1}), ())", 2),
    "random.randint": ("{t}.randint({0}, ({1}) + 1, ())", 2),
}


def torch_random(ctx: "FileContext", call: cst.Call, name: str) -> Fix | None:
    """`random.random()` -> `torch.rand(())`, `random.uniform(a, b)` -> `torch.empty(()).uniform_(a, b)`, ...

    Unsafe: the number comes from torch's generator (seeded by `torch.manual_seed`, not
    `random.seed`), so the draws differ, and it is a 0-d tensor rather than a Python float: a
    test such as `if torch.rand(()) < p:` is then data-dependent. Offered where the value feeds
    arithmetic, not in an `if` or `while` test (a name it is assigned to may still be tested later:
    dynamo's count shows it).
    """
    torch = torch_name(ctx)
    spec = _RANDOM.get(name)
    stmt = ctx.current_statement()
    if torch is None or spec is None or stmt is None:  # a call in an `if` or `while` test
        return None
    start, end = ctx.statement_lines()
    if not start <= ctx.position(call).start.line <= end:
        return None
    pattern, count = spec
    if len(call.args) != count or any(a.keyword is not None or a.star for a in call.args):
        return None
    args = [text_of(ctx, a.value) for a in call.args]
    return replace(ctx, call, pattern.format(*args, t=torch), f"draw with `{pattern.format(*'ab', t=torch)}`",
                   safe=False)


def _int_expression(ctx: "FileContext", node: cst.BaseExpression) -> bool:
    """An int literal, a `len(...)`, or `+ - * //` of those."""
    if type(node) is cst.Integer:
        return True
    if type(node) is cst.Call:
        return ctx.qualify(node.func) == "len"
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return _int_expression(ctx, node.expression)
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract, cst.Multiply,
                                                                     cst.FloorDivide):
        return _int_expression(ctx, node.left) and _int_expression(ctx, node.right)
    return False


def arange_to_range(ctx: "FileContext", call: cst.Call, tensor: cst.BaseExpression) -> Fix | None:
    """`torch.arange(a, b).tolist()` -> `list(range(a, b))`: the list never needs a tensor.

    Safe when every argument is built from int literals and `len(...)`, where `arange` and `range` give the
    same ints; otherwise unsafe (`arange` also takes floats and tensors, `range` does not).
    """
    if not (type(tensor) is cst.Call and ctx.qualify(tensor.func) == "torch.arange"
            and 1 <= len(tensor.args) <= 3 and all(a.keyword is None and not a.star for a in tensor.args)):
        return None
    ints = all(_int_expression(ctx, a.value) for a in tensor.args)
    if not ints and any(ctx.value(a.value).is_tensor for a in tensor.args):
        return None
    bounds = ", ".join(text_of(ctx, a.value) for a in tensor.args)
    return replace(ctx, call, f"list(range({bounds}))", "build the list with `range`", safe=ints)


_MATH_TO_TORCH = frozenset({
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "erf", "erfc", "isnan", "isinf", "isfinite",
})


def math_to_torch(ctx: "FileContext", call: cst.Call, qual: str) -> Fix | None:
    """`math.sqrt(t)` on a tensor -> `torch.sqrt(t)`: the same function, kept a tensor. Unsafe: the
    result is a 0-d tensor rather than a float (and `floor`/`ceil` keep `t`'s dtype, not int)."""
    torch = torch_name(ctx)
    name = qual.removeprefix("math.")
    if torch is None or name not in _MATH_TO_TORCH or len(call.args) != 1 or call.args[0].keyword \
            or call.args[0].star:
        return None
    return replace(ctx, call, f"{torch}.{name}({text_of(ctx, call.args[0].value)})",
                   f"use `{torch}.{name}`", safe=False)


# The operand that a keyword number scales, by its place among the positional arguments of the
# `torch.*` form: `add(a, b, alpha=s)` is `a + s * b`, `addcmul(a, b, c, value=s)` is `a + s * b * c`.
SCALED = {("torch.add", "alpha"): 1, ("torch.sub", "alpha"): 1, ("torch.addcmul", "value"): 1}


def scale_instead(ctx: "FileContext", call: cst.Call, arg: cst.Arg, op: str, method: bool) -> Fix | None:
    """`torch.add(a, b, alpha=t)` -> `torch.add(a, b * t)` (and `x.add(b, alpha=t)` -> `x.add(b * t)`):
    the tensor scales the operand instead of being read as a number.

    Unsafe: the product keeps `t` in the autograd graph (as a number it took no gradient) and
    follows tensor type promotion, where a Python number did not."""
    place = SCALED.get((op, arg.keyword.value if arg.keyword else ""))
    if place is None or any(a.star for a in call.args):
        return None
    place -= method  # a method's receiver is the `torch.*` form's first argument
    args = [a for a in call.args if a.keyword is None]
    if place >= len(args):
        return None
    operand, scale = args[place].value, arg.value
    parts = []
    for a in call.args:
        if a is arg:
            continue
        text = text_of(ctx, a.value)
        if a.value is operand:
            text = f"{wrapped(operand, text)} * {wrapped(scale, text_of(ctx, scale))}"
        parts.append(f"{a.keyword.value}={text}" if a.keyword else text)
    return replace(ctx, call, f"{text_of(ctx, call.func)}({', '.join(parts)})",
                   f"multiply the operand by `{ctx.source(scale)}` instead", safe=False)
