"""What the code declares of a local: the value an annotated assignment gives its name (`mask: torch.Tensor = x > t`),
and the class it says the name holds an object of (`states: States = pick(s)`, `states = cast(States, s)`), for the
bindings (`bindings.py`; `ctx` is the file's walk)."""

from __future__ import annotations

import libcst as cst

from . import values as V
from .vocabulary import UNREADABLE


def bind_annotated(ctx, node: cst.AnnAssign) -> None:
    """`mask: torch.Tensor = x > t`, `n: int`, `states: States = pick(s)`: the name holds what the annotation says,
    or, where it says a tensor, what the value says of which one; where it names none of those, the value; and a
    name annotated with a class stands for an object of it (`declare_local`)."""
    declared = ctx.annotation_value(node.annotation.annotation)
    if declared is UNREADABLE:
        declared = V.UNKNOWN
    if node.value is not None and declared == V.TENSOR:
        # `mask: torch.Tensor = x > t`: the annotation says a tensor, the value may say which one
        value = ctx.value(node.value)
        ctx._assign_value(node.target, value if value.is_bool_tensor and value.known_tensor else declared)
    elif declared.is_tensor or node.value is None:
        ctx._assign_value(node.target, declared)
    else:
        ctx._assign_value(node.target, ctx.value(node.value))
    declare_local(ctx, node.target.value, node.annotation.annotation)


def declare_local(ctx, name: str, annotation: cst.BaseExpression) -> None:
    """A local the code declares of a class (`states: States = ...`, `states = cast(States, s)`): its calls and
    reads run that class's methods and properties, or an override's, as those of a parameter declared so do
    (`Scope.typed`); a torch class declared says nothing more than the value does."""
    typed = ctx.class_named(annotation)
    if typed is not None and not typed.startswith("torch."):
        ctx._scopes[-1].typed[name] = typed
