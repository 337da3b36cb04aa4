"""BL104: a tensor formatted as text (`str()`, `repr()`, `format()`), which reads its values."""

from __future__ import annotations

import libcst as cst

from ._util import builtin_name, positional
from .base import Rule, register


@register
class TensorToString(Rule):
    CODE = "BL104"
    PRECISION = "medium"
    NAME = "tensor-to-string"
    KIND = "break"
    MESSAGE = "`str()` or `repr()` of a tensor formats its values"
    SUGGESTION = (
        "format tensors outside the compiled region, or guard the code with "
        "`if not torch.compiler.is_compiling():`"
    )
    GB_TYPES = ("GB0059",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        name = builtin_name(self.ctx, node)
        if name not in ("str", "repr", "format"):
            return
        args = positional(node)
        requires = self.ctx.tensor_requirement(args[0].value) if args else None
        if requires is not None:
            self.report(node, f"`{self.ctx.source(node)}` formats a tensor's values as text", requires=requires)
