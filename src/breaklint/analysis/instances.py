"""What a method of an object a function builds gives (`solver = Solver()`, then `solver.t(sigma)`):
helpers of the evaluation (`evaluate.py`) for calls on an instance of a class of the tree."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from . import values as V
from .summary import ClassInfo
from .values import Val


def built_classes(made: dict[str, list[str]] | None, built_from: Callable[[cst.BaseExpression], list[str]],
                  receiver: cst.BaseExpression) -> list[str] | None:
    """The classes the object a method is called on was built from (`sf` of `sf = Scalar(fun)`, or
    `Scalar(fun)` itself), as the function's scope (`made`, None outside a function) and `built_from`
    name them."""
    if made is None:
        return None
    return made.get(receiver.value) if type(receiver) is cst.Name else \
        built_from(receiver) if type(receiver) is cst.Call else None


def instance_calls(built: list[str], method: str, cls: ClassInfo | None) -> Val:
    """What `method` of an instance of each of `built` returns, called from a method of `cls` (or from
    a function): the tree decides it."""
    return V.join(*(V.ret("instcall", f"{made}:{method}", cls.qualname if cls else None) for made in built))


def own_methods(classes: dict[str, ClassInfo], built: list[str], method: str) -> bool:
    """Whether each class of this file that an object was built from (`solver = Solver()`) defines
    `method`: then `solver.t(sigma)` runs that method, whatever a tensor's method of the name would give.
    Elsewhere a tensor's method is asked first: what `made` holds may be a call of an instance
    (`x = scale(x)` of `scale = Scale(2.0)`) or a function a parameter or a table holds. `classes`: the
    file's."""
    return all(made in classes and method in classes[made].methods for made in built)
