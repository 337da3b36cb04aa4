"""Whether a comprehension, run as a frame of its own, makes dynamo fail at once (BL440).

Up to Python 3.11 a list, set or dict comprehension is a function of its own that the enclosing code
calls with an iterator over its outermost iterable. Where dynamo traces the enclosing code, it inlines
that call. Where it runs the enclosing frame eagerly instead (`resume.eager_comprehensions`), the call is a new
frame, and dynamo compiles it when the frame looks like torch code (`has_tensor_in_frame`): its code
names a torch or NumPy module, or it captures from the enclosing function a tensor, a module, or a list,
tuple or dict that holds one (dynamo looks inside those, at any depth). It then
fails at once: it cannot step the iterator it is handed (a list's, a dict's, `zip`'s, `enumerate`'s:
"Missing tp_iternext"), though a `range`, a tuple or a tensor it can. A generator expression's frame
dynamo never compiles, and Python 3.12 inlines comprehensions (PEP 709).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import libcst as cst

from .summary import FunctionInfo
from .resume import tensor_inside
from .values import MAX_PARTS, Val, holds_tensor
from .vocabulary import FRAME_MODULES
from .walk import find

_SCOPES = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)
# what an iterable may be whose iterator dynamo steps when it is handed one
_STEPPED_CALLS = frozenset({"range", "tuple"})


def comprehension_frame(node: cst.ListComp | cst.SetComp | cst.DictComp, fn: FunctionInfo, local: Collection[str],
                        qualify: Callable[[cst.BaseExpression], str | None],
                        value_of: Callable[[cst.BaseExpression], Val]) -> tuple[bool, tuple[Val, ...]] | None:
    """For a comprehension of the own code of `fn` (whose names `local` are bound in it): None where,
    run as a frame of its own, it would not break (dynamo would not compile it, or could step its
    iterator); else what that rests on, for the tree to decide: whether the function's `self` is a
    module, and the values, of the captured names, that may be tensors (a parameter, what a call
    returns, inside a list or not). It breaks if either holds; `(False, ())` is a frame that breaks
    whatever the tree says."""
    if _stepped(node.for_in.iter, qualify, value_of):
        return None
    own_self = fn.params[0] if fn.cls is not None and fn.params and not fn.is_static else None
    bound: set[str] = set()
    comp: cst.CompFor | None = node.for_in
    while comp is not None:
        bound.update(n.value for n in find(comp.target, cst.Name))
        comp = comp.inner_for_in
    # names that are no load of the comprehension's own code (an attribute's, a keyword, the outermost
    # iterable's, evaluated outside), and those of nested scopes (captured through them, not named here);
    # one pass, in which each node comes before its children
    skipped = {id(n) for n in find(node.for_in.iter, cst.Name)}
    nested: set[int] = set()
    on_self = False
    captured: list[Val] = []
    for inner in find(node, (cst.Name, cst.Attribute, cst.Arg, *_SCOPES)):
        kind = type(inner)
        if kind is cst.Attribute:
            skipped.add(id(inner.attr))
        elif kind is cst.Arg:
            if inner.keyword is not None:
                skipped.add(id(inner.keyword))
        elif kind is not cst.Name:
            if inner is not node:
                nested.update(id(n) for n in find(inner, cst.Name))
        elif id(inner) in skipped or inner.value in bound:
            continue
        elif inner.value in local:  # captured from the function
            if inner.value == own_self:
                on_self = True
            elif tensor_inside(held := value_of(inner), _as_is):
                return False, ()  # the file alone shows a tensor in it
            elif holds_tensor(held) and held not in captured:
                captured.append(held)  # one the tree decides, or a list of such
        elif id(inner) not in nested and qualify(inner) in FRAME_MODULES:  # a global torch or NumPy module
            return False, ()
    return (on_self, tuple(captured[:MAX_PARTS])) if on_self or captured else None


def _as_is(value: Val) -> Val:
    return value


def _stepped(node: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], str | None],
             value_of: Callable[[cst.BaseExpression], Val]) -> bool:
    """An iterable whose iterator dynamo steps when handed one: `range(...)`, a tuple, a tensor (its rows),
    a shape."""
    if type(node) is cst.Tuple or (type(node) is cst.Attribute and node.attr.value == "shape"):
        return True
    if type(node) is cst.Call:
        if qualify(node.func) in _STEPPED_CALLS:
            return True
        if type(node.func) is cst.Attribute and node.func.attr.value == "size" and not node.args:
            return True
    return value_of(node).is_tensor
