"""Whether a comprehension, run as a frame of its own, makes dynamo fail at once (BL440).

Up to Python 3.11 a list, set or dict comprehension is a function of its own that the enclosing code
calls with an iterator over its outermost iterable. Where dynamo traces the enclosing code, it inlines
that call. Where it runs the enclosing frame eagerly instead (`resume.eager_frames`), the call is a new
frame, and dynamo compiles it when the frame looks like torch code (`has_tensor_in_frame`): its code
names a torch or NumPy module, or it captures a tensor or a module from the enclosing function. It then
fails at once: it cannot step the iterator it is handed (a list's, a dict's, `zip`'s, `enumerate`'s:
"Missing tp_iternext"), though a `range`, a tuple or a tensor it can. A generator expression's frame
dynamo never compiles, and Python 3.12 inlines comprehensions (PEP 709).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import libcst as cst

from .summary import FunctionInfo
from .values import Val
from .vocabulary import FRAME_MODULES
from .walk import find

_SCOPES = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)
# what an iterable may be whose iterator dynamo steps when it is handed one
_STEPPED_CALLS = frozenset({"range", "tuple"})


def comprehension_frame(node: cst.ListComp | cst.SetComp | cst.DictComp, fn: FunctionInfo, local: Collection[str],
                        qualify: Callable[[cst.BaseExpression], str | None],
                        value_of: Callable[[cst.BaseExpression], Val]) -> bool | None:
    """For a comprehension of the own code of `fn` (whose names `local` are bound in it): None where,
    run as a frame of its own, it would not break (dynamo would not compile it, or could step its
    iterator); else whether that rests on the function's `self` being a module (True: the tree
    decides) or not (False)."""
    if _stepped(node.for_in.iter, qualify, value_of):
        return None
    own_self = fn.params[0] if fn.cls is not None and fn.params and not fn.is_static else None
    outer_iter = {id(n) for n in find(node.for_in.iter, cst.Name)}
    bound: set[str] = set()
    skipped: set[int] = set(outer_iter)  # names that are no load of the comprehension's own code
    nested: set[int] = set()  # names in nested scopes: captured through them, but not named by this code
    comp: cst.CompFor | None = node.for_in
    while comp is not None:
        bound.update(n.value for n in find(comp.target, cst.Name))
        comp = comp.inner_for_in
    for inner in find(node, (cst.Attribute, cst.Arg, *_SCOPES)):
        if type(inner) is cst.Attribute:
            skipped.add(id(inner.attr))
        elif type(inner) is cst.Arg:
            if inner.keyword is not None:
                skipped.add(id(inner.keyword))
        elif inner is not node:
            nested.update(id(n) for n in find(inner, cst.Name))
    on_self = False
    for name in find(node, cst.Name):
        if id(name) in skipped or name.value in bound:
            continue
        if name.value in local:  # captured from the function
            if name.value == own_self:
                on_self = True
            elif value_of(name).is_tensor:
                return False
        elif id(name) not in nested and qualify(name) in FRAME_MODULES:  # a global torch or NumPy module
            return False
    return True if on_self else None


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
