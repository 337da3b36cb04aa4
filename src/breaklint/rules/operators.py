"""BL441: a custom operator of the tree called in compiled code where it has no implementation dynamo can
run on fake tensors.

Dynamo runs every operator of the graph on fake tensors (shapes and dtypes, no data) to learn what it
gives. An op that torch.library defines with kernels for real devices only (`lib.impl("op", fn, "CPU")`)
has nothing to run there: dynamo breaks the graph at each call (GB0090). One that
`@torch.library.custom_op` makes without `register_fake` fails harder: torch.compile raises. What the
file shows is noted here (the ops it defines, those it gives a fake, a Meta or a composite kernel, the
calls of `torch.ops.<namespace>.<op>`); the engine decides on the whole tree, since an op is often
defined in one file, given its fake in another and called in a third (`tree_findings.tree_candidates`).
Ops the tree does not define (a C++ extension's) are left alone: nothing here tells what they have.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.literals import string
from ..analysis.vocabulary import FAKE_REGISTRARS
from .base import Rule, register
from ._util import keyword, positional

# Dispatch keys whose kernel dynamo can run on fake tensors: a Meta kernel, or a composite one (which
# `torch.library.impl` calls "default")
FAKE_KEYS = frozenset({"meta", "compositeexplicitautograd", "compositeimplicitautograd", "default"})
CUSTOM_OP = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})
# the decorator a custom op's function object gives for its fake (`@scale.register_fake`)
FAKE_METHODS = frozenset({"register_fake", "impl_abstract"})


@register
class CustomOpWithoutFake(Rule):
    CODE = "BL441"
    NAME = "custom-op-without-fake"
    KIND = "break"
    MESSAGE = ("a custom operator the code defines, called in compiled code, with no implementation dynamo can "
               "run on fake tensors (`register_fake`, a Meta or a composite kernel)")
    SUGGESTION = ("register a fake implementation that gives an empty result of the output's shape "
                  "(`@torch.library.register_fake(\"ns::op\")`, or `@op.register_fake` for a "
                  "`torch.library.custom_op`), or a `Meta` kernel")
    GB_TYPES = ("GB0090",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._libraries: dict[str, str] = {}  # module-level name -> the namespace of its `torch.library.Library`
        self._depth = 0  # functions being walked

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1
        if self._depth > 1 or self.ctx.function is None:
            return
        for decorator in node.decorators:
            found = decorator.decorator
            if type(found) is cst.Call and self.ctx.qualify(found.func) in CUSTOM_OP:
                op = string(found.args[0].value) if found.args else None
                if op is not None and "::" in op:
                    self.ctx.summary.operators[op] = ["custom_op", self.ctx.function.qualname]
            elif type(found) is cst.Attribute and found.attr.value in FAKE_METHODS:
                # (a function of this module, or one imported: `qualify` names it as reach does)
                owner = self.ctx.qualify(found.value)
                if owner is not None:
                    self.ctx.summary.faked_functions.append(owner)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        # `lib = torch.library.Library("mylib", "DEF")` at module level: its `define` and `impl` name ops of "mylib"
        value = node.value
        if self._depth or type(value) is not cst.Call or self.ctx.qualify(value.func) != "torch.library.Library" \
                or not value.args or (namespace := string(value.args[0].value)) is None:
            return
        for target in node.targets:
            if type(target.target) is cst.Name:
                self._libraries[target.target.value] = namespace

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in self._libraries \
                and not self._depth:
            self._library_call(self._libraries[func.value.value], func.attr.value, node)
            return
        name = self.ctx.qualify(func) or ""
        args = [a.value for a in positional(node)]
        op = string(args[0]) if args else None
        if name == "torch.library.define" and op is not None and "::" in op:
            self.ctx.summary.operators.setdefault(op, ["library", ""])
        elif name in FAKE_REGISTRARS and op is not None:
            self.ctx.summary.faked_ops.append(op)
        elif name == "torch.library.impl" and op is not None and _fake_key(_argument(node, "types", args, 1)):
            self.ctx.summary.faked_ops.append(op)
        elif name.startswith("torch.ops.") and self.ctx.active() and self.ctx.function is not None:
            # `torch.ops.mylib.scale(x)`, `torch.ops.mylib.scale.default(x)`
            parts = name.split(".")[2:]
            if len(parts) in (2, 3) and parts[0] != "aten":
                line, col, end_line, end_col = self.ctx.positions.span(node)
                self.ctx.function.op_calls.append((f"{parts[0]}::{parts[1]}", line, col, end_line, end_col))

    def _library_call(self, namespace: str, method: str, node: cst.Call) -> None:
        """`lib.define("scale(Tensor x) -> Tensor")`, `lib.impl("scale", fn, "Meta")`, `lib._register_fake(...)`."""
        args = [a.value for a in positional(node)]
        name = string(args[0]) if args else None
        if name is None:
            return
        op = f"{namespace}::{name.split('(')[0].split('.')[0].strip()}"
        key = _argument(node, "dispatch_key", args, 2)
        if method == "define":
            self.ctx.summary.operators.setdefault(op, ["library", ""])
        elif method == "_register_fake" or method == "impl" and (key is None or _fake_key(key)):
            # (no dispatch key, or "": a kernel for every backend, composite, which runs on fake tensors too)
            self.ctx.summary.faked_ops.append(op)


def _argument(node: cst.Call, name: str, args: list[cst.BaseExpression], position: int) -> cst.BaseExpression | None:
    """What a call passes for a parameter: by keyword, else at its place among the positional arguments."""
    given = keyword(node, name)
    return given.value if given is not None else (args[position] if len(args) > position else None)


def _fake_key(node: cst.BaseExpression | None) -> bool:
    """Whether a dispatch key (or a list of them, as `torch.library.impl` takes) runs on fake tensors."""
    if type(node) in (cst.List, cst.Tuple):
        return any(_fake_key(el.value) for el in node.elements)
    key = string(node)
    return key is not None and key.lower() in FAKE_KEYS | {""}
