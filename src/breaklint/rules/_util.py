"""Small helpers shared by the rule families."""

from __future__ import annotations

import libcst as cst

from ..analysis import values as V
from ..analysis.context import FileContext
from ..analysis.syntax import dotted


def method_call(node: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """(receiver, method) for `receiver.method(...)`."""
    if type(node.func) is cst.Attribute:
        return node.func.value, node.func.attr.value
    return None


def call_of(node: cst.BaseExpression, *methods: str) -> bool:
    """Whether `node` calls one of `methods` on a receiver (`t.item()`, `i.clamp(min=0)`)."""
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in methods


def builtin_name(ctx: FileContext, node: cst.Call) -> str | None:
    """The name of a call to a builtin that no import or def shadows."""
    func = ctx.callee(node.func)
    if type(func) is cst.Name and func.value not in ctx.aliases:
        return func.value
    return None


def maybe_tensor(ctx: FileContext, receiver: cst.BaseExpression) -> bool:
    """A receiver that is a tensor, or could be: not a module, literal or `self`."""
    value = ctx.value(receiver)
    if value.is_tensor:
        return True
    if value.not_tensor:
        return False
    if type(receiver) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
                          cst.Integer, cst.Float, cst.List, cst.Dict, cst.Set, cst.Tuple):
        return False
    name = dotted(receiver)
    if name is not None:
        head = name.split(".")[0]
        if head in ("self", "cls") and "." not in name:
            return False
        if head in ctx.aliases:  # an imported module or a function of this file
            return False
    return True


def keyword(node: cst.Call, name: str) -> cst.Arg | None:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(node: cst.Call) -> list[cst.Arg]:
    return [a for a in node.args if a.keyword is None and not a.star]


# The dynamo settings a rule's verdict depends on (`dynamo_settings` tokens), each calibrated by a
# fixture under `fixtures/settings/` that makes the setting and is run under dynamo.
CAPTURE_SCALARS = "capture_scalar_outputs"
CAPTURE_SHAPES = "capture_dynamic_output_shape_ops"
ALLOW_RNN = "allow_rnn"
TRACE_AUTOGRAD = "trace_autograd_ops"


def logging_tokens(*keys: str, reorderable: bool = True) -> tuple[str, ...]:
    """A call of one of `keys` (dotted names) is no break when the project reorders it or ignores it;
    dynamo reorders only plain functions (print, `logging.warning`), never a logger's methods."""
    joined = "|".join(keys)
    ignored = f"ignore_logger_methods={joined}"
    return (f"reorderable_logging_functions={joined}", ignored) if reorderable else (ignored,)


def computed_tensor(value: V.Val) -> bool:
    """A tensor, or what the tree decides that the code computes (arithmetic, a method's result, an
    element, what a helper returns)."""
    return value.is_tensor or (value.symbolic and value.kind in ("op", "elem", "ret"))


def filled_with_tensor(value: V.Val) -> bool:
    """A parameter that the code fills in where the caller passed nothing, with a tensor it computes
    (`if max_len is None: max_len = lengths.max()`): a tensor on that path at least, whatever the
    callers pass."""
    return value.kind == "join" and any(computed_tensor(part) for part in value.parts) \
        and all(computed_tensor(part) or part.kind == "param" for part in value.parts)
