"""BL4xx: legacy tensor APIs that dynamo cannot trace."""

from __future__ import annotations

import libcst as cst

from ..fixes.edit import replace, text_of, torch_name
from ._util import maybe_tensor, method_call
from .base import Rule, register


@register
class TensorTypeClass(Rule):
    CODE = "BL425"
    NAME = "tensor-type-class"
    KIND = "break"
    MESSAGE = "`t.type(torch.Tensor)` hands a tensor method the tensor class itself, which dynamo cannot pass on"
    SUGGESTION = ("say the dtype: `t.to(torch.get_default_dtype())` (what `torch.Tensor` stands for), `t.float()` "
                  "or `t.type_as(other)`")
    GB_TYPES = ("GB7489",)
    CALL_METHODS = frozenset({"type"})

    def on_method_call(self, node: cst.Call) -> None:
        call = method_call(node)
        if call is None or call[1] not in self.CALL_METHODS or len(node.args) != 1 or not self.ctx.active():
            return
        arg = node.args[0]
        if arg.star or (arg.keyword is not None and arg.keyword.value != "dtype") \
                or self.ctx.qualify(arg.value) != "torch.Tensor" or not maybe_tensor(self.ctx, call[0]):
            return
        requires = self.ctx.tensor_requirement(call[0])
        if requires is None:
            return
        torch = torch_name(self.ctx)
        fix = replace(self.ctx, node, f"{text_of(self.ctx, call[0])}.to({torch}.get_default_dtype())",
                      f"convert with `.to({torch}.get_default_dtype())`", safe=False) if torch else None
        self.report(node, f"`{self.ctx.source(node)}` hands a tensor method the tensor class itself, which dynamo "
                          "cannot pass on", fix=fix, requires=requires, fix_needs=(requires,))
