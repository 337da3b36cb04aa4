"""The calls down a chain of attributes, for reach: a method of what an attribute of an attribute of `self`
holds (`self.modules.optim.zero_grad()`), or of what an attribute of a parameter annotated with a class holds
(`traj.states.sink()` of `traj: Trajectories`); reach follows each down the classes the attributes hold or
declare (`reach._chain_targets`). `typed_class` is the walk's (`Scopes.typed_class`): what a name's annotation
declares."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from .syntax import dotted, self_path

TypedClass = Callable[[str], "str | None"]


def chain_call(func: cst.BaseExpression, in_class: bool, typed_class: TypedClass) -> list[tuple[str, str]]:
    """A method of an attribute of an attribute (or deeper) of `self` (`self.modules.optim.zero_grad()`: a
    "chaincall" edge, "modules.optim:zero_grad"), or of an attribute (or deeper) of a parameter annotated with a
    class (`traj.states.sink()` of `traj: Trajectories`: a "typedcall", "<the class>|states:sink"), which reach
    follows down the classes the attributes hold or their annotations declare; [] for anything else."""
    if type(func) is not cst.Attribute:
        return []
    path = self_path(func.value) if in_class else []
    if len(path) >= 2:
        return [("chaincall", f"{'.'.join(path)}:{func.attr.value}")]
    chain = typed_chain(typed_class, func.value)
    return [("typedcall", f"{chain}:{func.attr.value}")] if chain is not None else []


def typed_receiver(ctx, receiver: cst.BaseExpression) -> str | None:
    """What a "typedcall" on `receiver` names before the method: the class a parameter's annotation names
    (`states` of `states: States`: "States"), or that class and the attributes read down from it (`traj.states`
    of `traj: Traj`: "Traj|states"); None for any other receiver, and for a parameter declared a torch class."""
    declared = ctx.typed_class(receiver.value) if type(receiver) is cst.Name else None
    if declared is not None:
        return None if declared.startswith("torch.") else declared  # (`model: nn.Module`: the callers tell)
    return typed_chain(ctx.typed_class, receiver)


def typed_chain(typed_class: TypedClass, value: cst.BaseExpression) -> str | None:
    """`traj.states` (or deeper) of a parameter annotated with a class, as a "typedcall" names it before the
    method: "Traj|states"; of a local that stands for one (`states = traj.states`, then `states.t`),
    "Traj|states.t"; None for anything else."""
    root, _, names = (dotted(value) or "").partition(".")
    declared = typed_class(root) if names else None
    if declared is None or declared.startswith("torch."):
        return None
    return f"{declared}{'.' if '|' in declared else '|'}{names}"


def typed_attribute(ctx, value: cst.BaseExpression) -> bool:
    """`traj.states` (or deeper) of a parameter annotated with a class: what the class's attributes hold or
    declare tells what a method or property of it runs (`chain_call`)."""
    return typed_chain(ctx.typed_class, value) is not None
