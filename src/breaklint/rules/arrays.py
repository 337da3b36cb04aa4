"""BL4xx: NumPy code in compiled code, which dynamo runs as torch operations (`torch._numpy`): what
of an array that tracing cannot answer."""

from __future__ import annotations

import libcst as cst

from ..analysis import values as V
from .base import Rule, register


@register
class NdarrayAttribute(Rule):
    CODE = "BL422"
    NAME = "ndarray-attribute"
    KIND = "break"
    MESSAGE = "dynamo traces a NumPy array as a tensor and cannot read its `dtype`, `flags` or `base`"
    SUGGESTION = ("read the dtype of the tensor the array came from (`t.dtype`), or convert with "
                  "`torch.as_tensor(a)` first and ask the tensor")
    GB_TYPES = ("GB0157",)
    ATTRIBUTES = frozenset({"dtype", "flags", "base"})

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in self.ATTRIBUTES or not self.ctx.active():
            return
        value = self.ctx.value(node.value)
        if value.from_numpy or value == V.NDARRAY:
            self.report(node, f"`{self.ctx.source(node)}`: {self.MESSAGE}")
