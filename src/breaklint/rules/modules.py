"""BL4xx: what compiled code does with modules and autograd: constructors run in compiled code,
parameters built there, gradients taken there (recurrent layers: `recurrent.py`)."""

from __future__ import annotations

import libcst as cst

from ..analysis.optimizer_classes import GRAPH_BREAKING_OPTIMIZERS, OPTIMIZER_BASES, TORCH_OPTIMIZERS
from ..analysis.walk import find
from .base import Rule, register
from ._util import TRACE_AUTOGRAD, keyword, maybe_tensor, method_call

MODULE_CLASS = ("torch.nn.Module", "torch.nn.modules.module.Module")



@register
class ExplicitModuleInit(Rule):
    CODE = "BL418"
    NAME = "explicit-module-init"
    KIND = "break"
    MESSAGE = "`nn.Module.__init__(self)` in a constructor that compiled code runs"
    SUGGESTION = "call `super().__init__()`, which dynamo traces, or build the module once in `__init__` of its owner"
    GB_TYPES = ("GB0007",)

    def visit_Call(self, node: cst.Call) -> None:
        # Dynamo wraps `nn.Module.__init__` in a function it skips: reached directly, as an
        # unbound call, it breaks the graph, and then finds the half-built module uninitialized
        # and runs the whole constructing frame eagerly. `super().__init__()` is traced.
        if not self.ctx.active() or not _unbound_module_init(self.ctx, node):
            return
        self.report(node, f"`{self.ctx.source(node)}` runs `nn.Module.__init__` unbound: dynamo skips it and "
                          "breaks the graph when this constructor runs in compiled code")


AUTOGRAD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
# `torch.autograd.functional`'s derivatives of a Python function: dynamo cannot hand the function to
# them as a graph value ("Failed to convert args/kwargs to proxy"), with or without `trace_autograd_ops`
# (calibrated in fixtures/BL419.py)
AUTOGRAD_FUNCTIONAL = frozenset(f"torch.autograd.functional.{name}"
                                for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"))


@register
class AutogradCall(Rule):
    CODE = "BL419"
    NAME = "autograd-call"
    KIND = "break"
    MESSAGE = ("`torch.autograd.grad`, `torch.autograd.backward`, `.backward()` or a `torch.autograd.functional` "
               "derivative (`jacobian`, `hessian`, `vjp`, ...) in compiled code, or an optimizer's closure called in "
               "its `step`")
    SUGGESTION = ("set `torch._dynamo.config.trace_autograd_ops = True` (dynamo then traces them), or take the "
                  "gradient outside the compiled region")
    GB_TYPES = ("GB9186", "GB0123", "GB8985", "GB0055")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._last_autograd: list[int] = []  # per function: the line of its last autograd call, or 0

    def _autograd(self, node: cst.Call) -> str | None:
        qual = self.ctx.qualify(node.func)
        if qual in AUTOGRAD_CALLS or qual in AUTOGRAD_FUNCTIONAL:
            return qual
        call = method_call(node)
        if call and call[1] == "backward" and maybe_tensor(self.ctx, call[0]):
            return ".backward()"
        return None

    def _steps_closure(self, node: cst.Call) -> bool:
        """`closure()` in an optimizer's `step(self, closure=None)`: the `closure` torch.optim's `step` takes."""
        fn = self.ctx.function
        return type(node.func) is cst.Name and node.func.value == "closure" and fn is not None \
            and fn.cls is not None and fn.qualname.rpartition(".")[2] == "step" and "closure" in fn.params

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        lines = []
        # the line is asked only at a `.requires_grad_()` of this function: a walk of the body only then
        if self.ctx.mentions(node, ("requires_grad_",)):
            lines = [self.ctx.positions.span(call)[0] for call in find(node.body, cst.Call)
                     if type(call) is cst.Call and self._autograd(call) not in (None, *AUTOGRAD_FUNCTIONAL)]
        self._last_autograd.append(max(lines, default=0))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._last_autograd.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        what = self._autograd(node)
        if what in AUTOGRAD_FUNCTIONAL:
            name = what.rpartition(".")[2]
            self.report(node, f"`{self.ctx.source(node)}` takes a derivative with `torch.autograd.functional."
                              f"{name}`: dynamo cannot hand it the Python function and breaks the graph to run it",
                        f"use `torch.func` (`torch.func.jacrev`, `torch.func.hessian`, `torch.func.vjp`, ...), "
                        "which dynamo traces, or take the derivative outside the compiled region")
            return
        if what is not None:
            self.report(node, f"`{self.ctx.source(node)}` runs autograd inside compiled code: with "
                              "`trace_autograd_ops` off dynamo breaks the graph to run it eagerly",
                        unless=(TRACE_AUTOGRAD,))
            return
        if self._steps_closure(node):
            self.report(node, f"`{self.ctx.source(node)}` calls the closure an optimizer's `step` is handed, which "
                              "by torch.optim's protocol evaluates the model again and calls `backward()`: with "
                              "`trace_autograd_ops` off dynamo breaks the graph to run the backward eagerly",
                        unless=(TRACE_AUTOGRAD,))
            return
        call = method_call(node)
        if call and call[1] == "requires_grad_" and self._last_autograd \
                and self.ctx.positions.span(node)[0] < self._last_autograd[-1]:
            # the graph breaks at the autograd call below, and a tensor made to require grad before it
            # would leak out of the first graph: dynamo breaks here too
            # on torch 2.11 this break stays with `trace_autograd_ops` on; on 2.13 it goes (calibration)
            self.report(node, f"`{self.ctx.source(node)}` makes an intermediate require grad before an autograd "
                              "call that breaks the graph: dynamo breaks here too rather than let it leak",
                        unless=(f"{TRACE_AUTOGRAD}>=2.13",))


# torch.nn classes whose constructor makes an `nn.Parameter` with their default arguments (read from
# their `__init__`s and their bases' on torch 2.13); the norms of `AFFINE_FLAGS` only when the flag is
# left on, instance norms only when `affine=True` is passed.
PARAMETER_MODULES = frozenset({
    "AdaptiveLogSoftmaxWithLoss", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "Conv1d", "Conv2d",
    "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Embedding", "EmbeddingBag", "GRU",
    "GRUCell", "GroupNorm", "LSTM", "LSTMCell", "LayerNorm", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyLinear", "Linear", "MultiheadAttention", "PReLU", "RMSNorm", "RNN", "RNNCell",
    "SyncBatchNorm", "Transformer", "TransformerDecoderLayer", "TransformerEncoderLayer",
})
OPTIONAL_PARAMETER_MODULES = frozenset({
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
})
AFFINE_FLAGS = ("affine", "elementwise_affine")
# what a constructor's text must contain to build a parameter, or to call `nn.Module.__init__` unbound
LAYER_WORDS = ("Parameter", "nn.", "Linear", "Conv", "Norm", "Embedding", "LSTM", "GRU", "RNN", "Attention",
               "PReLU", "Transformer", "Module.__init__", "AdaptiveLogSoftmax")


@register
class ParameterConstruction(Rule):
    CODE = "BL420"
    NAME = "parameter-construction"
    KIND = "break"
    MESSAGE = "an `nn.Parameter`, or a layer that makes one (`nn.Linear`, `nn.Conv2d`, ...), built in compiled code"
    SUGGESTION = ("build the layer once, in `__init__` of the module that uses it, and call it in `forward`; "
                  "a loss or a parameter-free module (`nn.MSELoss()`, `nn.Dropout`) may be built in place")
    GB_TYPES = ("GB0264",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function: an `__init__` that calls `nn.Module.__init__(self)` unbound (BL418): dynamo
        # gives up on that frame at the call, and what follows is never traced
        self._unbound_init: list[bool] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        calls = [c for c in find(node.body, cst.Call) if type(c) is cst.Call] \
            if node.name.value == "__init__" and self.ctx.mentions(node, LAYER_WORDS) else []
        self._unbound_init.append(any(_unbound_module_init(self.ctx, c) for c in calls))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._unbound_init.pop()

    def _makes_parameter(self, node: cst.Call) -> str | None:
        qual = self.ctx.qualify(node.func) or ""
        if qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return "nn.Parameter"
        if not qual.startswith("torch.nn."):
            return None
        name = qual.rsplit(".", 1)[-1]
        flags = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        off = any(type(flags.get(f)) is cst.Name and flags[f].value == "False" for f in AFFINE_FLAGS)
        on = any(type(flags.get(f)) is cst.Name and flags[f].value == "True" for f in AFFINE_FLAGS)
        if (name in PARAMETER_MODULES and not off) or (name in OPTIONAL_PARAMETER_MODULES and on):
            return f"nn.{name}"
        return None

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or (self._unbound_init and self._unbound_init[-1]):
            return
        what = self._makes_parameter(node)
        if what is not None:
            self.report(node, f"`{self.ctx.source(node)}` builds an `{what}` in code that compiled code runs: "
                              "dynamo does not trace the `nn.Parameter` constructor and breaks the graph")


def _unbound_module_init(ctx, node: cst.Call) -> bool:
    """`nn.Module.__init__(self)`: the base constructor called unbound."""
    return type(node.func) is cst.Attribute and node.func.attr.value == "__init__" \
        and ctx.qualify(node.func.value) in MODULE_CLASS


# nn.Module methods that add a hook to the module (a handle and a dict entry dynamo cannot make)
HOOK_METHODS = frozenset({
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook", "register_state_dict_pre_hook",
    "register_state_dict_post_hook", "register_load_state_dict_pre_hook", "register_load_state_dict_post_hook",
    "_register_state_dict_hook", "_register_load_state_dict_pre_hook",
})
GLOBAL_HOOKS = frozenset({
    "torch.nn.modules.module.register_module_forward_hook", "torch.nn.modules.module.register_module_forward_pre_hook",
    "torch.nn.modules.module.register_module_full_backward_hook",
    "torch.nn.modules.module.register_module_full_backward_pre_hook",
})


@register
class ModuleHookRegistration(Rule):
    CODE = "BL423"
    NAME = "module-hook-registration"
    KIND = "break"
    MESSAGE = "registering a module hook in compiled code breaks the graph: dynamo cannot build its handle"
    SUGGESTION = ("register the hook once, outside the compiled region (in `__init__` or before compiling), "
                  "and let it check a flag if it must not always run")
    GB_TYPES = ("GB0467", "GB0083", "GB0013")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._handles: list[set[str]] = []  # per function: the names holding a hook's handle

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._handles.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._handles.pop()

    def _registers(self, node: cst.BaseExpression) -> bool:
        if type(node) is not cst.Call:
            return False
        call = method_call(node)
        return bool(call and call[1] in HOOK_METHODS) or self.ctx.qualify(node.func) in GLOBAL_HOOKS

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._handles and self._registers(node.value):
            self._handles[-1].update(t.target.value for t in node.targets if type(t.target) is cst.Name)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        if self._registers(node):
            self.report(node, f"`{self.ctx.source(node)}`: {self.MESSAGE}")
            return
        call = method_call(node)
        if call and call[1] == "remove" and not node.args and type(call[0]) is cst.Name \
                and self._handles and call[0].value in self._handles[-1]:
            # the handle is an object dynamo could not build: removing the hook breaks again
            self.report(node, f"`{self.ctx.source(node)}` removes a hook registered in compiled code: dynamo "
                              "cannot trace the handle either")


@register
class RequiresGradChange(Rule):
    CODE = "BL424"
    NAME = "requires-grad-change"
    KIND = "break"
    MESSAGE = "changing whether a parameter or tensor requires grad in compiled code breaks the graph"
    SUGGESTION = ("set `requires_grad` before compiling (freeze parameters once, outside forward), "
                  "or use `x.detach()` for a value that must not carry gradients")
    GB_TYPES = ("GB0125", "GB0206")
    CALL_METHODS = frozenset({"requires_grad_"})

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.ctx.active():
            return
        for target in node.targets:
            attr = target.target
            if type(attr) is cst.Attribute and attr.attr.value == "requires_grad" \
                    and maybe_tensor(self.ctx, attr.value):
                self.report(target.target, f"`{self.ctx.source(target.target)} = ...`: setting `requires_grad` "
                                           "on a tensor in compiled code breaks the graph")

    def on_method_call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if not call or call[1] not in self.CALL_METHODS:
            return
        receiver = call[0]
        if self.ctx.is_module_ref(receiver) or self._parameter(receiver):
            # a module's parameters, or a parameter: leaves whose flag dynamo cannot change
            self.report(node, f"`{self.ctx.source(node)}`: {self.MESSAGE}")

    def _parameter(self, node: cst.BaseExpression) -> bool:
        attr = self.ctx._self_attr(node)
        cls = self.ctx.class_info()
        return attr is not None and cls is not None and attr in cls.tensor_attrs


@register
class RequiresGradFactory(Rule):
    CODE = "BL428"
    NAME = "requires-grad-factory"
    KIND = "break"
    MESSAGE = "a tensor made by a torch function with `requires_grad=True` in compiled code"
    SUGGESTION = ("make it outside the compiled code (a parameter or buffer set in `__init__`, or an argument), or "
                  "build it from a tensor of the graph with `x.new_zeros(...)`, which traces: a zero loss that still "
                  "back-propagates is `preds.new_zeros((), requires_grad=True)` or `preds.sum() * 0`")
    GB_TYPES = ("GB0225",)

    def visit_Call(self, node: cst.Call) -> None:
        flag = keyword(node, "requires_grad")
        if flag is None or not self.ctx.active():
            return
        value = flag.value
        # `True`, or the module's own training flag (`requires_grad=self.training`: a zero loss that
        # back-propagates in training), which is true whenever the module trains
        training = self.ctx._self_attr(value) == "training"
        if not (training or type(value) is cst.Name and value.value == "True"):
            return
        name = self.ctx.qualify(node.func) or ""
        # `x.new_zeros(...)`, `new_ones`, `new_full` and `new_empty` trace; `x.new_tensor(...)` breaks on
        # torch 2.13 and later only
        if not name.startswith("torch.") or name.count(".") != 1:
            return
        when = " in training (`requires_grad=self.training`)" if training else ""
        self.report(node, f"`{name}` makes a tensor that requires grad{when}: dynamo does not trace a torch function "
                          "creating one with `requires_grad=True`, and breaks the graph here")


@register
class UnresumableMethodCall(Rule):
    """Found by the engine once it knows every file's breaks: see `analysis/resume.py`."""

    CODE = "BL426"
    NAME = "unresumable-method-call"
    KIND = "break"
    MESSAGE = "a method that breaks the graph, called on an object built in the same compiled function"
    SUGGESTION = (
        "build the object once outside the compiled code (in `__init__`, kept as an attribute, or passed in), "
        "or remove the break inside the method"
    )
    GB_TYPES = ("GB0092",)



@register
class HeldTensorMethod(Rule):
    """Found by the engine once it knows every file's breaks: see `analysis/resume.py`."""

    CODE = "BL433"
    NAME = "held-tensor-method"
    KIND = "break"
    MESSAGE = "a tensor's method called with what a function that breaks the graph returns"
    SUGGESTION = (
        "bind the argument to a name first (`idx = pick(m)`, then `x.index_select(0, idx)`), or call the "
        "function form (`torch.index_select(x, 0, pick(m))`); or remove the break inside the function"
    )
    GB_TYPES = ("GB0007",)


@register
class ConsumedGeneratorCall(Rule):
    """Found by the engine once it knows every file's breaks: see `analysis/resume.py`."""

    CODE = "BL437"
    NAME = "consumed-generator-break"
    KIND = "break"
    MESSAGE = ("`sum()`, `any()`, `all()` or a function of the package handed a generator expression whose element calls "
               "a function that breaks the graph")
    SUGGESTION = (
        "build a list first (`sum([loss(p, t) for p, t in pairs])`, or a `for` loop), which dynamo resumes after; "
        "or remove the break inside the function"
    )
    GB_TYPES = ("GB8335", "GB0091")


@register
class EagerModuleConstructor(Rule):
    """Found by the engine once it knows every file's breaks: see `analysis/resume.py`."""

    CODE = "BL427"
    NAME = "uninitialized-module-frame"
    KIND = "break"
    MESSAGE = "a module constructor that dynamo compiles as a frame of its own, on a module not yet initialized"
    SUGGESTION = (
        "build the module once, in `__init__` of its owner, and keep it as an attribute; or remove the break "
        "that makes dynamo run the building code eagerly"
    )
    GB_TYPES = ("GB0119",)


@register
class GradFnRead(Rule):
    CODE = "BL431"
    NAME = "grad-fn-read"
    KIND = "break"
    MESSAGE = "reading `.grad_fn` of a tensor computed in compiled code"
    SUGGESTION = ("test `t.requires_grad` instead (it traces), or take the decision outside the compiled "
                  "region")
    GB_TYPES = ("GB0104",)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "grad_fn" or not self.ctx.active() or not self._computed_here(node.value):
            return
        requires = self.ctx.tensor_requirement(node.value)
        if requires is not None:
            self.report(node, f"`{self.ctx.source(node)}`: dynamo does not trace the `grad_fn` of a tensor the "
                              "graph computes, and breaks the graph here where it requires grad", requires=requires)

    def _computed_here(self, node: cst.BaseExpression) -> bool:
        """Whether the expression is a tensor the compiled function computes: an expression
        (`(x * 2).grad_fn`) or a local it binds; not a parameter (a leaf, or a tensor made before
        the graph) nor an attribute (a module's parameter is a leaf)."""
        if type(node) in (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript):
            return True
        function = self.ctx.function
        return type(node) is cst.Name and function is not None and node.value not in function.params \
            and self.ctx.is_bound(node.value)


# the optimizers whose `step` BL436 reports: torch's that break, and their base as an annotation declares it
STEPPED_OPTIMIZERS = GRAPH_BREAKING_OPTIMIZERS | OPTIMIZER_BASES


@register
class OptimizerStepCall(Rule):
    CODE = "BL436"
    NAME = "optimizer-step-call"
    KIND = "break"
    MESSAGE = ("`step()` of a torch optimizer (`SGD`, `Adam`, `AdamW`, ...) in compiled code: torch breaks the graph "
               "before and after the update on purpose")
    SUGGESTION = ("call `optimizer.step()` after the compiled function returns; or compile it in a function of its "
                  "own (`torch.compile(fullgraph=False)`), which compiles the update between torch's two breaks")
    GB_TYPES = ("GB0025",)
    CALL_METHODS = frozenset({"step"})

    def on_method_call(self, node: cst.Call) -> None:
        if (found := _optimizer_method(self, node, STEPPED_OPTIMIZERS)) is None:
            return
        if found[1] in OPTIMIZER_BASES:  # `base: torch.optim.Optimizer`, handed over: most likely one of torch's
            self.report(node, f"`{self.ctx.source(node)}` steps an optimizer declared `torch.optim.Optimizer`: "
                              "torch's own (`SGD`, `Adam`, `AdamW`, ...) wrap their `step` in "
                              "`torch._dynamo.graph_break()` calls, so the graph breaks there, twice, unless the "
                              "optimizer handed over is `LBFGS`, `SparseAdam`, `Adafactor`, `Muon` or another "
                              "library's")
            return
        self.report(node, f"`{self.ctx.source(node)}` steps a `{found[1]}`, whose `step` torch wraps in "
                          "`torch._dynamo.graph_break()` calls to set the grad mode around the update: the graph "
                          "breaks there, twice")


@register
class OptimizerDisabledMethod(Rule):
    CODE = "BL448"
    NAME = "optimizer-disabled-method"
    KIND = "break"
    MESSAGE = ("`zero_grad()`, `state_dict()`, `load_state_dict()` or `add_param_group()` of a torch optimizer in "
               "compiled code: torch keeps these out of dynamo, which breaks the graph to run them")
    SUGGESTION = ("call `optimizer.zero_grad()` before the compiled function (or set the gradients to None after the "
                  "step, outside it); read or change the optimizer's state outside compiled code")
    GB_TYPES = ("GB0008",)
    CALL_METHODS = frozenset({"zero_grad", "state_dict", "load_state_dict", "add_param_group"})

    def on_method_call(self, node: cst.Call) -> None:
        if (found := _optimizer_method(self, node, TORCH_OPTIMIZERS)) is None:
            return
        self.report(node, f"`{self.ctx.source(node)}` calls `{found[0]}` of a `{found[1]}`, which torch marks "
                          "`torch._disable_dynamo`: dynamo skips the method and breaks the graph to run it")


def _optimizer_method(rule: Rule, node: cst.Call, classes: frozenset[str]) -> tuple[str, str] | None:
    """(method, optimizer class) of a call in compiled code of one of `rule.CALL_METHODS` on an optimizer the
    code makes or declares of one of `classes`; None for any other call."""
    call = method_call(node)
    if call is None or call[1] not in rule.CALL_METHODS or not rule.ctx.active():
        return None
    value = rule.ctx.value(call[0])
    return (call[1], value.ref) if value.kind == "object" and value.ref in classes else None
