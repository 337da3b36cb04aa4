"""What a method call on an object of the code gives (`self.step(x)`, `solver.t(sigma)` of a class built
here, `states.sink()` of a parameter declared `States`, `traj.states.sink()` of one declared `Traj`, `sde.f(t, y)`
of one the callers hand over): a call the tree level resolves (`resolve.py`), written by the evaluation
(`evaluate.py`) where neither torch's API nor the receiver's value decides it. `ctx` is the evaluation."""

from __future__ import annotations

import libcst as cst

from . import values as V
from .chains import typed_receiver
from .instances import instance_calls
from .syntax import call_arguments, dotted, is_own_class, is_super_call
from .values import Val


def object_method_value(ctx, node: cst.Call, method: str, built: list[str], name: str | None) -> Val:
    """What `receiver.method(...)` gives where the receiver is an object of the code (not a tensor, not a
    module's submodule called): `self`'s method, the method of a class built here, of what a function of the
    tree returned, of the class a parameter's annotation declares (or of what an attribute of it holds), of what
    the callers hand over, or a function of a module imported by name; as a call the tree level resolves."""
    func = node.func
    receiver = func.value
    cls = ctx.class_info()
    if (type(receiver) is cst.Name and receiver.value == "self" or is_own_class(receiver)) and cls is not None:
        return V.ret("self", method, cls.qualname)
    # `sf = Scalar(fun)` then `sf.closure(x)`, or `Scalar(fun).closure(x)`: what the method of the
    # class built returns
    if built:
        return instance_calls(built, method, cls)
    # `mode = get_mode(name)` then `mode.to_corners(b)`, or `get_mode(name).to_corners(b)`: what the
    # method of the object the tree's function returned gives (reach looks the object up)
    returned = (ctx.returned_held(receiver.value) if type(receiver) is cst.Name and ctx._scopes else
                [r] if type(receiver) is cst.Call and (r := ctx.returned_by(receiver)) is not None else [])
    if returned:
        return V.join(*(V.ret("retcall", f"{held}:{method}", cls.qualname if cls else None) for held in returned))
    if is_super_call(receiver) and cls:
        return V.ret("super", method, cls.qualname)
    inner = ctx._self_attr(receiver)
    if inner is not None and cls is not None and (inner in cls.submodules or inner in cls.from_params):
        return V.with_arguments(V.ret("attrcall", f"{inner}.{method}", cls.qualname),  # `self.sde.f(t, y)`
                                call_arguments(node, ctx.value) if inner not in cls.submodules else None)
    if (typed := typed_receiver(ctx, receiver)) is not None:
        # `states.sink()` of `states: States`, `traj.states.sink()` of `traj: Traj`: what the method of the class
        # declared (or of a subclass overriding it) returns, as reach dispatches the call (a "typedcall")
        return V.with_arguments(V.ret("typedcall", f"{typed}:{method}", cls.qualname if cls else None),
                                call_arguments(node, ctx.value))
    if (param := ctx._parameter(receiver)) is not None:
        # `sde.f(t, y)` on what the callers hand over: that method's value (reach decides)
        return V.with_arguments(V.ret("paramcall", f"{ctx.function.qualname}#{param}:{method}",
                                      cls.qualname if cls else None), call_arguments(node, ctx.value))
    written = dotted(func) or ""
    if name is not None and written.split(".")[0] in ctx.aliases and not ctx._is_local(written):
        # `methods.helper(x)` of a module imported by name, `Base.make(x)` of a class
        return V.with_arguments(V.ret("name", name, cls.qualname if cls else None), call_arguments(node, ctx.value))
    return V.UNKNOWN
