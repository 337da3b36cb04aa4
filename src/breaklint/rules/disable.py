"""BL442: `torch.compiler.disable` applied inside compiled code.

`torch.compiler.disable` (and `torch._dynamo.disable`) marks a function that dynamo must leave to
eager Python. Applied where it belongs, at module level or on a method, it costs a break at each call
(BL410 finds those calls across the tree). Applied inside a function that compile traces (a nested
`def` under `@torch.compiler.disable`, or `torch.compiler.disable(fn)` called there) it is itself a
call dynamo will not trace: the graph breaks where the function is made, on every call of the
enclosing function, and again where what it made is called. Both are reported here, since only this
function knows the local name that holds the disabled function.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import decorator_callee
from ..analysis.vocabulary import DISABLE
from .base import Rule, register


@register
class DisableInCompiledCode(Rule):
    CODE = "BL442"
    NAME = "disable-in-compiled-code"
    KIND = "break"
    MESSAGE = ("`torch.compiler.disable` applied inside compiled code (on a nested function, or as a call): "
               "dynamo breaks the graph there, and again at each call of the function it disables")
    SUGGESTION = ("define the disabled function once outside the compiled code (at module level, or as a "
                  "method, with what it needs passed as arguments) and call it from there: only the call "
                  "breaks then")
    # GB0007: the call of `torch.compiler.disable()` itself, a function dynamo skips (torch 2.14 gives it
    # types of its own, GB0377 and GB0376 for `torch._dynamo.disable()`, which older registries lack);
    # GB0098: calling what it gave
    GB_TYPES = ("GB0007", "GB0098")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._disabled: list[set[str]] = []  # per function being walked: its local names of disabled functions

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._disabled and self.ctx.enclosing_active():
            for decorator in node.decorators:
                found = decorator.decorator
                if self.ctx.qualify(decorator_callee(decorator)) in DISABLE:
                    self._disabled[-1].add(node.name.value)
                    line = self.ctx.position(found).start.line
                    self.ctx.add_finding(
                        self, found, f"`@{self.ctx.source(found)}` on `{node.name.value}`, a function defined "
                        "inside compiled code: dynamo breaks the graph where it is defined, and again at each "
                        "call of it", self.SUGGESTION, stmt_lines=(line, line))
                    break
        self._disabled.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._disabled.pop()

    def _disables(self, node: cst.BaseExpression) -> bool:
        return type(node) is cst.Call and bool(node.args) and self.ctx.qualify(node.func) in DISABLE

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._disabled and self._disables(node.value) and self.ctx.active():
            self._disabled[-1].update(t.target.value for t in node.targets if type(t.target) is cst.Name)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._disabled or not self.ctx.active():
            return
        if self._disables(node):
            self.report(node, f"`{self.ctx.source(node)}` in compiled code: dynamo does not trace the call that "
                              "makes a disabled function, and breaks the graph there (and again where it is called)")
        elif type(node.func) is cst.Name and node.func.value in self._disabled[-1]:
            self.report(node, f"call to `{node.func.value}`, which this function excludes from compilation "
                              "(`torch.compiler.disable`): dynamo breaks the graph around it")
