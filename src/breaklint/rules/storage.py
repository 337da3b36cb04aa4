"""BL408, BL430: a tensor's memory asked for in compiled code (its address, its typed storage, its
offset, whether it is pinned or shared, its storage resized in place), which traced tensors do not
have."""

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
