"""BL434: tensor methods that dynamo does not trace (drawing integers in place, running a Python
function per element, moving storage to shared memory, asking about the storage or inference mode)."""

from __future__ import annotations

import libcst as cst

from ._util import method_call
from .base import Rule, register

# Probed on torch 2.13 first and calibrated in fixtures/BL434.py. Method -> (the fewest arguments it
# takes, what the message says it does, what to do instead). The other in-place samplers (`uniform_`,
# `normal_`, `bernoulli_`, `exponential_`, `geometric_`, `cauchy_`, `log_normal_`) trace, and so do
# `untyped_storage()`, `element_size()`, `get_device()` and `detach_()`.
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
}


@register
class UntracedTensorMethod(Rule):
    CODE = "BL434"
    NAME = "untraced-tensor-method"
    KIND = "break"
    MESSAGE = ("a tensor method dynamo does not trace: `.random_()`, `.apply_(fn)`, `.map_(other, fn)`, "
               "`.share_memory_()`, `.is_set_to(other)`, `.is_inference()`")
    SUGGESTION = ("draw with `torch.randint`/`torch.randint_like`, write per-element functions with torch ops, "
                  "and ask about storage or inference mode outside the compiled code")
    GB_TYPES = ("GB0107", "GB0055", "GB0117", "GB0208", "GB0045")

    def visit_Call(self, node: cst.Call) -> None:
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
