"""Lists a function fills as it goes: `masks = []`, then `masks.append(x[i] > 0)` in a loop.

The binding says only that the local is an empty list; what the list holds comes from the calls that
fill it. After `xs.append(v)`, `xs.insert(i, v)` or `xs.extend(ys)` on a local known to be a list, the
local is a list of unknown length whose every element is what was added (`EACH`), joined over the
additions; so is an attribute a method fills (`self.matrices.append(m)`, `self.matrices = []` set before),
for every method that reads it: `masks[0]`, `for m in masks`, `a, b = masks` read a mask, and `x[masks[0]]` selects by one.
Where the additions disagree on being tensors (`args.append(n)`, then `args.append(x)`), no element is
known (which one a position holds is lost in the join); where one is not known, the list keeps what it
held.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from . import values as V
from .summary import ClassInfo
from .values import Val

EACH = "each"  # (a seq's name) a list of unknown length, each element `parts[0]`

_ADDING = {"append": 0, "insert": 1}  # the methods adding one element, and the argument it is


class Appends:
    """The file pass's part: each local list, or list attribute of `self`, filled by a call on it, as it is filled."""

    _scopes: list  # (Scopes': the functions being walked, each a `scopes.Scope`)
    value: Callable[[cst.BaseExpression], Val]  # (Evaluation's)
    _self_attr: Callable[[cst.BaseExpression], str | None]  # (Names': `self.<attr>` -> "attr")
    class_info: Callable[[], ClassInfo | None]  # (Names': the class being walked)

    def leave_Expr(self, original_node: cst.Expr) -> None:
        call = original_node.value
        if not self._scopes or type(call) is not cst.Call or type(call.func) is not cst.Attribute:
            return
        receiver, method = call.func.value, call.func.attr.value
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if len(args) != len(call.args) or method not in (*_ADDING, "extend"):
            return
        if type(receiver) is cst.Name:
            held, keep = self._scopes[-1].values.get(receiver.value), self._scopes[-1].values
            name = receiver.value
        elif (name := self._self_attr(receiver)) is not None and (cls := self.class_info()) is not None:
            held, keep = cls.attr_values.get(name), cls.attr_values  # what every method sees of `self.<name>`
        else:
            return
        if held is None or held.kind != "seq" or held.name == V.OPEN:
            return
        if method in _ADDING and len(args) == _ADDING[method] + 1:
            keep[name] = filled(held, self.value(args[_ADDING[method]]))
        elif method == "extend" and len(args) == 1:
            keep[name] = filled(held, V.elem(self.value(args[0])))


def filled(held: Val, added: Val) -> Val:
    """A list holding `held`'s elements, `added` added: each element their join. Where some are tensors
    and some not, a list of nothing known; where one is not known, `held` as it was."""
    parts = [*held.parts, added]
    if any(p.kind == "unknown" for p in parts):
        return held
    if len({p.is_tensor for p in parts if p.kind != "none"}) > 1:
        return Val("seq", name=V.OPEN)  # (and stays so: no later addition tells of the earlier ones)
    return Val("seq", name=EACH, parts=(V.join(*parts),))
