"""BL408, BL430: a tensor's memory asked for in compiled code (its address, its typed storage, its
storage resized in place), which traced tensors do not have."""

from __future__ import annotations

import libcst as cst

from .base import Rule, register
from ._util import maybe_tensor, method_call


@register
class DataPtrCall(Rule):
    CODE = "BL408"
    NAME = "data-ptr-call"
    KIND = "break"
    MESSAGE = "`.data_ptr()` or `.storage()` asks for real memory, which tracing does not have"
    SUGGESTION = "compare tensors by value or identity outside the compiled region; do not key logic on addresses"
    GB_TYPES = ("GB0055", "GB0088", "GB0208")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] in ("data_ptr", "storage") and not node.args and maybe_tensor(self.ctx, call[0]):
            what = "`.data_ptr()` asks for a real memory address, which tracing does not have" \
                if call[1] == "data_ptr" else \
                "`.storage()` hands out the tensor's typed storage, which tracing does not have"
            self.report(node, f"`{self.ctx.source(node)}`: {what}")


@register
class ResizeCall(Rule):
    CODE = "BL430"
    NAME = "tensor-resize"
    KIND = "break"
    MESSAGE = "`.resize_()` or `.resize_as_()` changes a tensor's storage in place, which dynamo does not trace"
    SUGGESTION = ("make a tensor of the size needed (`torch.empty(size)`, `y.clone()`, `torch.empty_like(y)`) "
                  "instead of resizing one in place")
    GB_TYPES = ("GB0126", "GB0127")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] in ("resize_", "resize_as_") and node.args and maybe_tensor(self.ctx, call[0]):
            self.report(node, f"`{self.ctx.source(node)}` resizes the tensor's storage in place: dynamo does not "
                              f"trace `Tensor.{call[1]}()`")
