"""BL413's walks over a module's parts (`module_walks.py`) for the tree: which classes the walked object
may be an instance of, and whether the walk meets a recurrent module they hold before it stops (dynamo
wraps each module a walk reaches, and gives up on a recurrent one). No libcst here: warm runs use it.
"""

from __future__ import annotations

from .hierarchy import PARAMETERLESS_MODULES, RNN_MODULES
from .reach import Reach
from .summary import FunctionInfo


def recurrent_walks(reach: Reach) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """(function, span, message) for each walk in a reached function over the modules of an object
    that reaches a recurrent module on the way: the class of `self`, or of what the calls hand over."""
    out = []
    for qual in sorted(reach.reached):
        fn = reach.functions[qual]
        for param, how, *span in fn.module_walks:
            for cls in _walked_classes(reach, qual, fn, param):
                recurrent = _first_recurrent(reach, cls, how == "first", set())
                if recurrent:
                    name, kind = cls.rsplit(".", 1)[-1], recurrent.rsplit(".", 1)[-1]
                    what = (f"`next(...)` of the parameters of `{name}` reaches its `nn.{kind}` before any module "
                            "that owns a parameter" if how == "first" else
                            f"this walk over the modules of `{name}` reaches the `nn.{kind}` it holds")
                    out.append((qual, tuple(span), f"{what}: dynamo wraps each module a walk reaches, does not "
                                "trace recurrent modules, and breaks the graph there"))
                    break
    return out


def _walked_classes(reach: Reach, qual: str, fn: FunctionInfo, param: str) -> list[str]:
    """The tree's classes the walked object may be an instance of: a method's own class, for `self`;
    else the instances the reached calls hand over (`device_of(self)` in a method: that method's class)."""
    if fn.cls is not None and not fn.is_static and fn.params and param == fn.params[0]:
        return [fn.cls]
    out: list[str] = []
    for caller, call, offset in reach.callers.get(qual, []):
        for held in reach.handed_for(qual, call, offset, param):
            made = _self_of(reach, held) or (held[:-2] if held.endswith("()") else None)
            if made in reach.classes and made not in out:
                out.append(made)
    return out


def _self_of(reach: Reach, held: str) -> str | None:
    """The class of a method whose `self` is handed over ("@pkg.Net.forward#self"), or None."""
    if not held.startswith("@"):
        return None
    where, _, param = held[1:].partition("#")
    fn = reach.functions.get(where)
    return fn.cls if fn is not None and fn.cls and not fn.is_static and fn.params[:1] == [param] else None


def _first_recurrent(reach: Reach, cls: str, first: bool, seen: set[str]) -> str | None:
    """The recurrent module a walk over the modules of an instance of `cls` reaches: any it holds, for a
    whole walk; for one that stops at the first parameter, one the walk meets before any module that
    owns a parameter (None where that is not known: a tensor attribute, a container, a module the tree
    does not define)."""
    if cls in seen:
        return None
    seen.add(cls)
    chain = [c for c in reversed(reach.mro(cls)) if c in reach.classes]
    if first and (any(reach.classes[c].tensor_attrs for c in chain)
                  or sum(bool(reach.classes[c].submodules) for c in chain) > 1):
        return None  # it may own a parameter, which comes first; or whose parts come first is not known
    for owner in chain:
        for made in reach.classes[owner].submodules.values():
            made = reach.canonical(made)
            if made in RNN_MODULES:
                return made
            if made in reach.classes and (base := reach.base_among(made, RNN_MODULES)):
                return base  # the code's own subclass of one
            if made in reach.classes:
                if found := _first_recurrent(reach, made, first, seen):
                    return found
                if first:
                    return None  # the tree's module comes first: its first parameter is not known here
                continue
            if first and made not in PARAMETERLESS_MODULES:
                return None  # a module that owns parameters comes first
    return None
