"""What a function hands to torch.compile: `torch.compile(fn)`, `torch.compile(mode=...)(fn)`,
`torch._dynamo.optimize(...)(fn)`, `model.compile()`; recorded as module-level entries, as the edges a call
of the target would have in a function (`FunctionInfo.compiles`), or as a parameter the function compiles
as it came (`FunctionInfo.compiled_params`: what its callers hand it is compiled). `ctx` is the `Calls` layer
(calls.py) of the file's context.
"""

from __future__ import annotations

import libcst as cst

from .summary import CallRef
from .syntax import dotted
from .vocabulary import COMPILE, COMPILER_FACTORIES


def compiled_target(ctx, node: cst.Call, name: str | None) -> cst.BaseExpression | None:
    """What `node` hands to torch.compile, if it compiles something: `torch.compile(fn, ...)`,
    `torch.compile(mode=...)(fn)` and `torch._dynamo.optimize(...)(fn)`, whose first call makes the
    compiler, and `model.compile()` of an `nn.Module` (`Module.compile` passes the module on). A
    `functools.partial(fn, ...)` compiles `fn`."""
    def positional(call: cst.Call) -> list[cst.Arg]:
        return [a for a in call.args if a.keyword is None and not a.star]

    target: cst.BaseExpression | None = None
    if name in COMPILE:
        given = positional(node) or [a for a in node.args if a.keyword is not None and a.keyword.value == "model"]
        target = given[0].value if given else None
    elif type(node.func) is cst.Call and len(args := positional(node)) == 1:
        maker = ctx.qualify(node.func.func)
        if maker in COMPILER_FACTORIES or maker in COMPILE and not positional(node.func):
            target = args[0].value
    elif type(node.func) is cst.Attribute and node.func.attr.value == "compile" and not positional(node) \
            and type(node.func.value) in (cst.Name, cst.Attribute) and dotted(node.func.value) != "self":
        target = node.func.value  # `model.compile()`: what the receiver turns out to be decides (reach)
    if type(target) is cst.Call and ctx.qualify(target.func) == "functools.partial" and positional(target):
        target = positional(target)[0].value
    return target


def note_compiled(ctx, node: cst.Call, target: cst.BaseExpression) -> None:
    """Record what compiling `target` traces. At module level by name (`Summary.entries`: a function,
    a module class, a module-level instance or a method of one, `Cls(...).method`); in a function
    as the edges a call of `target` there would have (`FunctionInfo.compiles`): `self.step`,
    `self.model`, a local instance or its method (`trainer.train_step`); a parameter of the function as it
    came, as the function's (`FunctionInfo.compiled_params`)."""
    ref, instances = ctx.qualify(target), ctx.summary.instances
    if ref and ref in instances:
        ctx.summary.entries.append(instances[ref])  # `torch.compile(model)`, `model = Model()` above
    elif ref and ref.split(".")[0] in instances:
        ctx.summary.entries.append(f"{ctx.module}.{ref}")  # `torch.compile(opt.step)`
    elif ref:
        ctx.summary.entries.append(ref)
    elif type(target) is cst.Call and (ctor := ctx.qualify(target.func)):
        ctx.summary.entries.append(ctor)  # `torch.compile(Model())`
    elif type(target) is cst.Attribute and type(target.value) is cst.Call \
            and (ctor := ctx.qualify(target.value.func)):
        ctx.summary.entries.append(f"{ctor}.{target.attr.value}")  # `torch.compile(Model().step)`
    if not ctx.active() or ref:
        return  # outside a function, or a name the module knows: its entry says all
    if (param := _unchanged_parameter(ctx, target)) is not None:
        ctx.function.compiled_params.append(param)  # what the callers hand over (reach)
        return
    pos = ctx.positions.span(node)
    # not a method found by its name alone
    ctx.function.compiles.extend(CallRef(kind, to, *pos) for kind, to in ctx._call_refs(target, ref)
                                 if kind not in ("duck", "paramcall"))


def _unchanged_parameter(ctx, node: cst.BaseExpression) -> str | None:
    """The parameter a bare name is while it still holds what the caller handed over, annotated or not."""
    if type(node) is not cst.Name or not ctx._scopes or node.value not in ctx.function.params:
        return None
    held = ctx._scopes[-1].values.get(node.value)
    declared = ctx.function.declared.get(node.value)
    return node.value if ctx._parameter(node) is not None or held is not None and held is declared else None
