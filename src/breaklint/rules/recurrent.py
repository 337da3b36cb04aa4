"""BL413: recurrent modules (`nn.LSTM`, `nn.GRU`, `nn.RNN`) that compiled code runs or reads from,
which dynamo does not trace unless `allow_rnn` is set."""

from __future__ import annotations

import libcst as cst

from ..analysis.hierarchy import RNN_MODULES
from ..analysis.literals import integer
from ..analysis.syntax import is_super_call
from .base import Rule, register
from ._util import ALLOW_RNN

# The recurrent modules, and their base: a parameter annotated with it holds one of them
RECURRENT = RNN_MODULES | {"torch.nn.RNNBase", "torch.nn.modules.rnn.RNNBase"}


@register
class RecurrentModuleCall(Rule):
    CODE = "BL413"
    NAME = "recurrent-module-call"
    KIND = "break"
    MESSAGE = "an `nn.LSTM`, `nn.GRU` or `nn.RNN` module called in compiled code"
    SUGGESTION = (
        "set `torch._dynamo.config.allow_rnn = True` before compiling (dynamo then traces the module), "
        "or compile the layers around the RNN and run the RNN itself eagerly"
    )
    GB_TYPES = ("GB0014",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function: for each block being walked (its body, then the blocks of the `if`s, loops and
        # `with`s inside), whether one of its statements touched a recurrent module already: dynamo
        # gives up on the whole function there, so no later touch in that block runs compiled
        self._blocks: list[list[bool]] = []
        self._classes: dict[str, bool] = {}  # class -> whether it builds a recurrent module in an attribute

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._blocks.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._blocks.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self._blocks:
            self._blocks[-1].append(False)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if self._blocks and self._blocks[-1]:
            self._blocks[-1].pop()

    visit_SimpleStatementSuite = visit_IndentedBlock
    leave_SimpleStatementSuite = leave_IndentedBlock

    def _recurrent(self, module: cst.BaseExpression) -> list[str]:
        """The recurrent classes among those `module` may hold, where a subscript of a list does not
        leave it open which one (`self.layers[0]` of a list that holds other modules too)."""
        classes = self.ctx.module_classes(module)
        recurrent = [made for made in classes if made in RECURRENT]
        if type(module) is cst.Subscript and len(module.slice) == 1 and type(module.slice[0].slice) is cst.Index \
                and integer(module.slice[0].slice.value) is not None and len(recurrent) < len(classes):
            return []
        return recurrent

    def _holds_recurrent(self) -> bool:
        """Whether the class being walked builds a recurrent module in an attribute (a cheap test
        before asking what an attribute's object holds)."""
        cls = self.ctx.class_info()
        if cls is None:
            return False
        if cls.qualname not in self._classes:
            self._classes[cls.qualname] = any(made in RNN_MODULES for made in cls.submodules.values()) or any(
                made[:-2] in RNN_MODULES for held in cls.callables.values() for made in held)
        return self._classes[cls.qualname]

    def _touch(self, node: cst.CSTNode, what: str, recurrent: list[str]) -> None:
        """Report the first touch of a recurrent module in a function: its call, or a method or an
        attribute of it read before (`self.lstm.flatten_parameters()`, `self.rnn.hidden_size`) or the
        module passed on, where dynamo wraps the module and gives up; not one after a touch that every
        run of the block it is in makes first (earlier in the same statement, or in an earlier
        statement of a block around it). `what`: what the node does with the module ("runs")."""
        blocks = self._blocks[-1] if self._blocks else []
        if any(blocks):
            return
        self.report(node, f"`{self.ctx.source(node)}` {what} an `nn.{recurrent[0].rsplit('.', 1)[-1]}`: dynamo does "
                          "not trace recurrent modules and runs the whole function eagerly", unless=(ALLOW_RNN,))
        if blocks:
            blocks[-1] = True

    def visit_Call(self, node: cst.Call) -> None:
        # `self.rnn(h)`, `layer(h)` of a loop over a `ModuleList`, `nn.LSTM(4, 4)(h)`: one class it may run
        if self.ctx.active() and (recurrent := self._recurrent(node.func)):
            self._touch(node, "runs", recurrent)
        elif self.ctx.active() and (recurrent := self._inherited_forward(node.func)):
            self._touch(node, "runs", recurrent)

    def _inherited_forward(self, func: cst.BaseExpression) -> list[str]:
        """`super().forward(x, hx)` in a class deriving from a recurrent module (`class LSTM(nn.LSTM)`):
        the recurrent module's own forward."""
        cls = self.ctx.class_info()
        if cls is None or type(func) is not cst.Attribute or func.attr.value != "forward" \
                or not is_super_call(func.value):
            return []
        return [base for base in cls.bases if base in RECURRENT]

    def visit_Arg(self, node: cst.Arg) -> None:
        # `directions(self.rnn)`: the module is wrapped as it is read, to be passed; one the function was
        # handed (`def _layer(self, cell, x)` passing `cell` on) is wrapped as the call passes it
        function = self.ctx.function
        passed = type(node.value) in (cst.Attribute, cst.Subscript) or (
            type(node.value) is cst.Name and function is not None and node.value.value in function.params)
        if self.ctx.active() and passed and self._holds_recurrent() and (recurrent := self._recurrent(node.value)):
            self._touch(node.value, "passes", recurrent)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # `if self.lstm_critic is not None:`: the module is wrapped as it is read, to be compared
        if not self.ctx.active() or not self._holds_recurrent():
            return
        for side in (node.left, *(target.comparator for target in node.comparisons)):
            if type(side) in (cst.Attribute, cst.Subscript) and (recurrent := self._recurrent(side)):
                self._touch(side, "tests", recurrent)
                return

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # `self.lstm.flatten_parameters()`, `self.rnn.hidden_size`: the module is wrapped as it is read
        if not self.ctx.active() or type(node.value) not in (cst.Attribute, cst.Subscript, cst.Name) \
                or node.value in self.ctx.assign_targets:
            return
        if not self._holds_recurrent() and not (type(node.value) is cst.Name and (
                self.ctx.typed_class(node.value.value) in RECURRENT)):
            return  # neither the class nor the parameter's annotation holds a recurrent module
        if recurrent := self._recurrent(node.value):
            self._touch(node, "reads from", recurrent)
