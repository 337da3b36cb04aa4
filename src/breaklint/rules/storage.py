"""BL408, BL430, BL446: a tensor's memory asked for in compiled code (its address, its typed storage,
its offset, whether it is pinned or shared, its storage resized in place), which traced tensors do not
have; and a tensor's `data`, `real` or `imag` assigned, which dynamo cannot do to a traced tensor."""

from __future__ import annotations

import libcst as cst

from .base import Rule, register
from ._util import maybe_tensor, method_call


@register
class DataPtrCall(Rule):
    CODE = "BL408"
    NAME = "data-ptr-call"
    KIND = "break"
    MESSAGE = ("`.data_ptr()`, `.storage()`, `.storage_offset()`, `.is_pinned()` or `.is_shared()` asks for real "
               "memory, which tracing does not have")
    SUGGESTION = "compare tensors by value or identity outside the compiled region; do not key logic on addresses"
    GB_TYPES = ("GB0055", "GB0088", "GB0208")
    # what each asks of the tensor's memory (the last three: "torch.* op returned non-Tensor", GB0208)
    ASKS = {"data_ptr": "a real memory address", "storage": "the tensor's typed storage",
            "storage_offset": "the tensor's offset in its storage", "is_pinned": "whether its memory is pinned",
            "is_shared": "whether its memory is shared"}
    CALL_METHODS = frozenset(ASKS)

    def on_method_call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] in self.ASKS and not node.args and maybe_tensor(self.ctx, call[0]):
            verb = "hands out" if call[1] == "storage" else "asks for"
            self.report(node, f"`{self.ctx.source(node)}`: `.{call[1]}()` {verb} {self.ASKS[call[1]]}, which "
                              "tracing does not have")


@register
class ResizeCall(Rule):
    CODE = "BL430"
    NAME = "tensor-resize"
    KIND = "break"
    MESSAGE = "`.resize_()` or `.resize_as_()` changes a tensor's storage in place, which dynamo does not trace"
    SUGGESTION = ("make a tensor of the size needed (`torch.empty(size)`, `y.clone()`, `torch.empty_like(y)`) "
                  "instead of resizing one in place")
    GB_TYPES = ("GB0126", "GB0127")
    CALL_METHODS = frozenset({"resize_", "resize_as_"})

    def on_method_call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] in self.CALL_METHODS and node.args and maybe_tensor(self.ctx, call[0]):
            self.report(node, f"`{self.ctx.source(node)}` resizes the tensor's storage in place: dynamo does not "
                              f"trace `Tensor.{call[1]}()`")


@register
class TensorAttributeStore(Rule):
    CODE = "BL446"
    NAME = "tensor-attribute-store"
    KIND = "break"
    MESSAGE = "assigning a tensor's `.data`, `.real` or `.imag` (`c.real += 1`, `p.data = v`) in compiled code"
    SUGGESTION = ("build the new tensor instead (`torch.complex(c.real + 1, c.imag)`), or write into it in place "
                  "(`c.real.add_(1)`, `p.copy_(v)` under `torch.no_grad()`)")
    # "Failed to set tensor attribute" (`real`, `imag`), "Failed to mutate tensor data attribute" (`data`)
    GB_TYPES = ("GB0058", "GB0056")
    ATTRIBUTES = frozenset({"data", "real", "imag"})

    def _store(self, target: cst.BaseExpression) -> None:
        if type(target) is not cst.Attribute or target.attr.value not in self.ATTRIBUTES or not self.ctx.active():
            return
        if target.attr.value == "data" and self.ctx._self_attr(target.value) is not None:
            return  # a parameter's or buffer's data (`self.weight.data = ...`): dynamo sets it
        if (requires := self.ctx.tensor_requirement(target.value)) is not None:
            self.report(target, f"`{self.ctx.source(target)}` is assigned: dynamo cannot set a traced tensor's "
                                f"`{target.attr.value}`, and breaks the graph at the statement", requires=requires)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)
