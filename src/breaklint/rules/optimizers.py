"""BL451: a torch optimizer made in compiled code, whose constructor dynamo cannot trace."""

from __future__ import annotations

import libcst as cst

from ..analysis.optimizer_classes import torch_optimizer
from .base import Rule, register


@register
class OptimizerConstruction(Rule):
    CODE = "BL451"
    NAME = "optimizer-construction"
    KIND = "break"
    MESSAGE = ("a torch optimizer made in compiled code (`torch.optim.Adam([w], lr=0.01)`): its constructor sets "
               "attributes dynamo does not trace")
    SUGGESTION = ("make the optimizer once outside the compiled code (in `__init__`, or before the call) and hand it "
                  "in; for a few steps of gradient descent inside compiled code, write the update out "
                  "(`w = w - lr * grad`, the gradient written out too)")
    # GB0467: `setattr()` on the optimizer, a type dynamo does not support; GB0008 and GB0088 (AdamW, LBFGS,
    # SparseAdam): the frame given up where the constructor raises inside dynamo
    GB_TYPES = ("GB0467", "GB0008", "GB0088")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or type(node.func) not in (cst.Attribute, cst.Name):
            return
        if torch_optimizer(self.ctx.qualify(node.func)):
            self.report(node, f"`{self.ctx.source(node)}` makes a torch optimizer in compiled code: its constructor "
                              "sets attributes on the optimizer that dynamo does not trace, and the graph breaks "
                              "at the call")
