"""BL449: an `assert` of an object of a class in compiled code, which dynamo cannot make an assertion of the
graph."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import self_path
from .base import Rule, register


@register
class AssertObject(Rule):
    CODE = "BL449"
    NAME = "assert-object"
    KIND = "break"
    MESSAGE = "`assert` on an object of a class (a module, a helper, a record) in compiled code"
    SUGGESTION = ("assert what you mean to check (`assert helper is not None`, `assert isinstance(helper, Helper)`), "
                  "which dynamo answers while it traces; or move the check out of the compiled code")
    GB_TYPES = ("GB0055",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function: whether a statement of its own body (under no `if`, loop or `with`) broke so already:
        # dynamo falls back to running the whole function eagerly there, so no later one breaks
        self._reported: list[bool] = []
        self._depth: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._reported.append(False)
        self._depth.append(-1)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._reported.pop()
        self._depth.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self._depth:
            self._depth[-1] += 1

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if self._depth:
            self._depth[-1] -= 1

    def visit_Assert(self, node: cst.Assert) -> None:
        # dynamo makes an assertion of the graph of what `assert` tests: an object's truth is nothing it can
        # hand there (probed on torch 2.13 and 2.14.1: a module, a dataclass, an instance of any class, local or
        # kept: GB0055, "skipping the function"); `if obj:` traces, and so do `assert obj is not None`, a
        # Python number, a string, a container or a function
        if not self.ctx.active() or not self._reported or self._reported[-1] \
                or type(node.test) not in (cst.Name, cst.Attribute, cst.Subscript):
            return
        made = self._instance_of(node.test)
        if made is not None:
            self.report(node.test, f"`assert {self.ctx.source(node.test)}` tests the truth of an object of `{made}`: "
                                   "dynamo cannot make it an assertion of the graph, breaks there and runs the "
                                   "whole function eagerly")
            self._reported[-1] = self._depth[-1] <= 0

    def _instance_of(self, test: cst.BaseExpression) -> str | None:
        """The class (its last name) of the instance `test` holds: a module or an object an attribute keeps, a
        module-level instance, what calling a class of the code gave; else None."""
        value = self.ctx.value(test)
        if self.ctx.is_module_ref(test) and (classes := self.ctx.module_classes(test)):
            made = classes[0]
        elif value.kind == "object" and value.ref:
            made = value.ref
        elif value.kind == "ret" and value.ref == "name" and value.name:
            made = value.name  # `scaler = Scaler(3.0)`
        elif (declared := self._declared(test)) is not None:
            made = declared  # `self._modules.alpha_optim`: a field `Optional[OptimizerWrapper]` of `_modules: Modules`
        else:
            return None
        last = made.rsplit(".", 1)[-1]
        # of torch's own objects, a module or an optimizer (not a generator, a device or a dtype, which dynamo models)
        ours = not made.startswith("torch.") or made.startswith(("torch.nn.", "torch.optim."))
        return last if last[:1].isupper() and ours else None

    def _declared(self, test: cst.BaseExpression) -> str | None:
        """The class an attribute of `self` (or an attribute of one, down records and classes of this file)
        declares: a class-level annotation, a record's field, a constructor's parameter annotated and kept."""
        path = self_path(test)
        owner = self.ctx.class_info()
        if not path or owner is None:
            return None
        held = None
        for attr in path:
            if owner is None or (held := owner.declared.get(attr)) is None:
                return None
            owner = self.ctx.summary.classes.get(held)
        return held
