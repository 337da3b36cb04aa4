"""BL434: tensor methods that dynamo does not trace (drawing integers in place, running a Python
function per element, moving storage to shared memory, asking about the storage or inference mode).
BL435: in-place changes of a tensor's shape, strides or storage, which dynamo traces on a tensor the
compiled code made and not on one it was handed."""

from __future__ import annotations

import libcst as cst

from ..analysis.walk import find
from ._util import method_call
from .base import Rule, register

# Probed on torch 2.13 first and calibrated in fixtures/BL434.py. Method -> (the fewest arguments it
# takes, what the message says it does, what to do instead). The other in-place samplers (`uniform_`,
# `normal_`, `bernoulli_`, `exponential_`, `geometric_`, `cauchy_`, `log_normal_`) trace, and so do
# `untyped_storage()`, `element_size()`, `get_device()` and, on a tensor the compiled code made,
# `detach_()` (BL435 has it on one the code was handed).
UNTRACED_METHODS: dict[str, tuple[int, str, str]] = {
    "random_": (0, "draws integers in place (`Tensor.random_`), an op dynamo does not trace",
                "draw with `torch.randint(low, high, x.shape)` or `torch.randint_like(x, low, high)`"),
    "apply_": (1, "runs a Python function on each element, which dynamo cannot put in a graph",
               "write the function with torch ops over the whole tensor"),
    "map_": (2, "runs a Python function on each pair of elements, which dynamo cannot put in a graph",
             "write the function with torch ops over the whole tensors"),
    "map2_": (3, "runs a Python function on each triple of elements, which dynamo cannot put in a graph",
              "write the function with torch ops over the whole tensors"),
    "share_memory_": (0, "moves the tensor's storage to shared memory, which dynamo does not trace",
                      "share the tensor once, before the compiled code runs"),
    "is_set_to": (1, "asks whether two tensors share one storage, which traced tensors do not have",
                  "ask outside the compiled code"),
    "is_inference": (0, "asks whether the tensor was made in inference mode, which dynamo does not trace",
                     "decide outside the compiled code (or make the tensor outside inference mode)"),
    # a Python bool from the tensor's metadata, which dynamo runs as an op and cannot put in a graph
    # ("torch.* op returned non-Tensor"; probed on torch 2.13 and 2.14.1)
    "is_conj": (0, "asks whether the tensor's conjugate bit is set, a Python bool dynamo cannot put in a graph",
                "take the conjugate unconditionally (`x.conj()` is free) or decide outside the compiled code"),
    "is_neg": (0, "asks whether the tensor's negative bit is set, a Python bool dynamo cannot put in a graph",
               "decide outside the compiled code"),
    "is_signed": (0, "asks whether the tensor's dtype is signed through an op dynamo cannot put in a graph",
                  "ask the dtype, which traces: `x.dtype.is_signed`"),
    "is_same_size": (1, "compares two tensors' shapes through an op dynamo cannot put in a graph",
                     "compare the shapes, which traces: `a.shape == b.shape`"),
}


@register
class UntracedTensorMethod(Rule):
    CODE = "BL434"
    NAME = "untraced-tensor-method"
    KIND = "break"
    MESSAGE = ("a tensor method dynamo does not trace: `.random_()`, `.apply_(fn)`, `.map_(other, fn)`, "
               "`.share_memory_()`, `.is_set_to(other)`, `.is_inference()`, `.is_conj()`, `.is_neg()`, "
               "`.is_signed()`, `.is_same_size(other)`")
    SUGGESTION = ("draw with `torch.randint`/`torch.randint_like`, write per-element functions with torch ops, "
                  "and ask about storage or inference mode outside the compiled code")
    GB_TYPES = ("GB0107", "GB0055", "GB0117", "GB0208", "GB0045")
    CALL_METHODS = frozenset(UNTRACED_METHODS)

    def on_method_call(self, node: cst.Call) -> None:
        call = method_call(node)
        if call is None or call[1] not in UNTRACED_METHODS or not self.ctx.active():
            return
        fewest, does, instead = UNTRACED_METHODS[call[1]]
        if len(node.args) < fewest:
            return
        # a tensor, or a value the tree resolves to one: `random_` and `apply_` name methods of other
        # objects too
        requires = self.ctx.tensor_requirement(call[0])
        if requires is None:
            return
        self.report(node, f"`{self.ctx.source(node)}` {does}: {instead}", requires=requires)


# Probed on torch 2.13 first and calibrated in fixtures/BL435.py: each changes a tensor's shape,
# strides or storage in place. On a tensor the compiled code made itself they trace; on one it was
# handed (an argument, a buffer or other tensor kept on the module, a gradient, `.data` of one of
# those) dynamo breaks the graph at the call ("Unsupported function call (delayed)"). A view of such
# a tensor (`x.view(...)`, `x[0]`, `x.detach()`) is a new tensor of the graph, and traces.
INPUT_METADATA_METHODS = frozenset({
    "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_", "as_strided_", "set_", "detach_",
})


@register
class InputMetadataMutation(Rule):
    CODE = "BL435"
    NAME = "input-metadata-mutation"
    KIND = "break"
    MESSAGE = ("an in-place change of shape, strides or storage (`t_()`, `transpose_()`, `squeeze_()`, "
               "`unsqueeze_()`, `as_strided_()`, `set_()`, `detach_()`) on a tensor the compiled code was handed")
    SUGGESTION = ("use the out-of-place form and rebind the name (`x = x.unsqueeze(0)`, `g = g.t()`, "
                  "`x = x.detach()`): it gives a view that traces")
    GB_TYPES = ("GB0148",)
    CALL_METHODS = INPUT_METADATA_METHODS

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function being walked (a nested one shares its parent's): the local names that hold a
        # tensor the compiled code was handed, and the attributes of `self` it has stored so far
        self._inputs: list[set[str]] = []
        self._stored: list[set[str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._inputs:  # a nested function: traced with its parent
            self._inputs.append(self._inputs[-1])
            self._stored.append(self._stored[-1])
            return
        fn = self.ctx.function
        root = fn is not None and (fn.compiled or (fn.cls is not None and node.name.value in ("forward", "__call__")))
        self._inputs.append(set(fn.params) - {"self", "cls"} if root else set())
        self._stored.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._inputs.pop()
        self._stored.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        # on leaving: a call on the right still sees what the name held before (`g = g.t_()`)
        if not self._inputs:
            return
        node = original_node
        handed = self._handed(node.value)
        for target in node.targets:
            name = target.target
            if type(name) is cst.Name:
                if handed:
                    self._inputs[-1].add(name.value)
                else:
                    self._inputs[-1].discard(name.value)
            elif (attr := self.ctx._self_attr(name)) is not None:
                self._stored[-1].add(attr)  # from here on `self.<attr>` holds what this call stored

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if self._inputs and original_node.value is not None and type(original_node.target) is cst.Name:
            if self._handed(original_node.value):
                self._inputs[-1].add(original_node.target.value)
            else:
                self._inputs[-1].discard(original_node.target.value)

    def visit_For(self, node: cst.For) -> None:
        if self._inputs:  # a loop variable holds an element, a view of the graph
            for name in find(node.target, cst.Name):
                self._inputs[-1].discard(name.value)

    def _handed(self, node: cst.BaseExpression) -> bool:
        """Whether `node` holds a tensor the compiled code was handed, not one it made."""
        kind = type(node)
        if kind is cst.Name:
            return node.value in self._inputs[-1]
        if kind is not cst.Attribute:
            return False
        attr = self.ctx._self_attr(node)
        if attr is not None:  # a buffer, parameter or tensor kept on the module, not stored by this call
            return attr not in self._stored[-1] and self.ctx.value(node).is_tensor
        if self.ctx.is_module_ref(node.value):  # `self.to_kv.weight`: a parameter or buffer of a submodule
            return True
        if node.attr.value == "grad":  # a gradient: backward wrote it, outside the graph
            base = self.ctx.value(node.value)
            return base.is_tensor or base.symbolic or base.kind == "unknown"
        return node.attr.value == "data" and self._handed(node.value)

    def on_method_call(self, node: cst.Call) -> None:
        call = method_call(node)
        if call is None or call[1] not in INPUT_METADATA_METHODS or not self._inputs or not self.ctx.active():
            return
        if not self._handed(call[0]):
            return
        receiver = self.ctx.source(call[0])
        args = ", ".join(self.ctx.source(arg.value) for arg in node.args)
        self.report(node, f"`{self.ctx.source(node)}` changes `{receiver}` in place, a tensor the compiled code was "
                          f"handed: dynamo breaks the graph at the call; use `{receiver}.{call[1][:-1]}({args})` "
                          "and rebind the name")
