"""BL5xx: no graph break, but a cost: host-device syncs and recompiles."""

from __future__ import annotations

import libcst as cst

from ..analysis.syntax import dotted, self_attribute
from ..analysis.walk import find
from .base import Rule, register
from ._util import keyword, method_call, positional

SYNC_CALLS = {"torch.cuda.synchronize", "torch.cuda.current_stream.synchronize", "torch.accelerator.synchronize"}


def _is_device_arg(ctx, arg: cst.BaseExpression) -> str | None:
    """'cpu' or 'device' when the argument of `.to(...)` names a device."""
    if type(arg) is cst.SimpleString:
        text = arg.evaluated_value
        if text == "cpu":
            return "cpu"
        if text.startswith(("cuda", "mps", "xpu", "hpu")):
            return "device"
        return None
    if type(arg) is cst.Call and ctx.qualify(arg.func) == "torch.device":
        first = positional(arg)
        if first and type(first[0].value) is cst.SimpleString and first[0].value.evaluated_value == "cpu":
            return "cpu"
        return "device"
    name = dotted(arg)
    if name is not None and "device" in name.split(".")[-1].lower():
        return "device"
    return None


@register
class DeviceToHostSync(Rule):
    CODE = "BL501"
    NAME = "device-to-host-sync"
    KIND = "hazard"
    MESSAGE = "copying a tensor to the host (or synchronizing) in forward stalls the device"
    SUGGESTION = "keep the tensor on its device for the rest of forward; move results to the host after the call"
    GB_TYPES = ()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        qual = self.ctx.qualify(node.func)
        if qual in SYNC_CALLS:
            self.report(node, f"`{self.ctx.source(node)}` waits for the device to finish all queued work")
            return
        call = method_call(node)
        if call is None or call[1] not in ("cpu", "numpy", "to"):
            return
        requires = self.ctx.tensor_requirement(call[0])
        if requires is None:
            return
        receiver, method = call
        args = positional(node)
        target = keyword(node, "device")
        if method in ("cpu", "numpy") or (
            method == "to" and (
                (args and _is_device_arg(self.ctx, args[0].value) == "cpu")
                or (target is not None and _is_device_arg(self.ctx, target.value) == "cpu")
            )
        ):
            self.report(node, f"`{self.ctx.source(node)}` copies a tensor to the host mid-forward: on a GPU "
                              "this waits for the device", requires=requires)


@register
class HostToDeviceCopy(Rule):
    CODE = "BL502"
    NAME = "host-to-device-copy"
    KIND = "hazard"
    MESSAGE = "moving a tensor to a device inside forward copies it on every call"
    SUGGESTION = (
        "create the tensor on the right device (`device=x.device`), or register it as a buffer "
        "so `model.to(device)` moves it once"
    )
    GB_TYPES = ()
    DEFAULT_ENABLED = False  # frequent and often harmless: opt in with --extend-select BL502
    CALL_METHODS = frozenset({"cuda", "to"})

    def on_method_call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call is None or call[1] not in self.CALL_METHODS:
            return
        requires = self.ctx.tensor_requirement(call[0])
        if requires is None:
            return
        receiver, method = call
        args = positional(node)
        target = keyword(node, "device")
        if method == "cuda" or (
            method == "to" and (
                (args and _is_device_arg(self.ctx, args[0].value) == "device")
                or (target is not None and _is_device_arg(self.ctx, target.value) == "device")
            )
        ):
            self.report(node, f"`{self.ctx.source(node)}` copies a tensor to a device mid-forward", requires=requires)


def _mutated_self_attr(ctx, node: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
    """(attr, target) when the statement changes a Python scalar attribute of `self`:
    `self.n += 1`, `self.mode = "eval"`, `self.flag = not self.flag`."""
    if type(node) is cst.AugAssign:
        targets, value = [node.target], node.value
    elif type(node) is cst.Assign:
        targets, value = [t.target for t in node.targets], node.value
    else:
        return None
    for target in targets:
        if (type(target) is cst.Attribute and type(target.value) is cst.Name
                and target.value.value == "self"):
            cls = ctx.class_info()
            attr = target.attr.value
            if cls and (attr in cls.tensor_attrs or attr in cls.submodules):
                continue
            if type(node) is cst.Assign and not _is_python_scalar(ctx, value):
                continue
            if type(node) is cst.AugAssign and ctx.tensor_requirement(value) is not None:
                continue
            return attr, target
    return None


def _is_python_scalar(ctx, value: cst.BaseExpression) -> bool:
    """A number, string, bool or None built from literals and attributes: what dynamo specializes on."""
    if type(value) in (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString):
        return True
    if type(value) is cst.Name:
        return value.value in ("True", "False", "None")
    if type(value) is cst.UnaryOperation:
        return type(value.operator) is cst.Not or _is_python_scalar(ctx, value.expression)
    if type(value) is cst.BinaryOperation and ctx.tensor_requirement(value) is None:
        leaves = [value.left, value.right]
        return all(_is_python_scalar(ctx, leaf) or self_attribute(leaf) for leaf in leaves) and any(
            _is_python_scalar(ctx, leaf) for leaf in leaves)
    return False


def _in_init(ctx) -> bool:
    fn = ctx.function
    return fn is not None and fn.qualname.rsplit(".", 1)[-1] in ("__init__", "__setstate__", "reset_parameters")


@register
class SelfStateMutation(Rule):
    CODE = "BL503"
    NAME = "self-state-mutation"
    KIND = "hazard"
    MESSAGE = "forward changes a Python number, string or bool on the module: dynamo guards on it and recompiles"
    SUGGESTION = (
        "keep per-call state in a tensor buffer (`self.register_buffer(...)`, updated in place), "
        "or update it outside the compiled forward"
    )
    GB_TYPES = ()

    def _check(self, node: cst.CSTNode) -> None:
        if not self.ctx.active() or _in_init(self.ctx):
            return
        hit = _mutated_self_attr(self.ctx, node)
        if hit:
            self.report(hit[1], f"`self.{hit[0]}` is changed in compiled code; each new value can trigger "
                                "a recompile")

    def visit_Assign(self, node: cst.Assign) -> None:
        self._check(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node)


@register
class MutableAttributeBranch(Rule):
    CODE = "BL504"
    PRECISION = "medium"
    NAME = "mutable-attribute-branch"
    KIND = "hazard"
    MESSAGE = "compiled code branches on a module attribute that it also changes: a recompile per value"
    SUGGESTION = (
        "branch on a tensor with `torch.where`/`torch.cond`, or make the attribute a constant "
        "set before compiling"
    )
    GB_TYPES = ()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._classes: list[tuple[set[str], list]] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append((set(), []))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        mutated, tests = self._classes.pop()
        for attr, node, message, scope, lines in tests:
            if attr in mutated:
                self.ctx.add_finding(self, node, message, self.SUGGESTION, scope=scope, stmt_lines=lines)

    def _mutation(self, node: cst.CSTNode) -> None:
        if self._classes and self.ctx.function is not None and not _in_init(self.ctx):
            hit = _mutated_self_attr(self.ctx, node)
            if hit:
                self._classes[-1][0].add(hit[0])

    def visit_Assign(self, node: cst.Assign) -> None:
        self._mutation(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mutation(node)

    def _test(self, test: cst.BaseExpression) -> None:
        if not self._classes or not self.ctx.active() or not self.ctx.mentions(test, ("self",)):
            return
        attrs = _self_attrs(test)
        if not attrs or self.ctx.is_tensor(test):
            return
        for attr_node in attrs:
            attr = attr_node.attr.value
            message = f"branch on `self.{attr}`, which compiled code also changes: each value compiles anew"
            self._classes[-1][1].append(
                (attr, attr_node, message, self.ctx.function.qualname, self.ctx.statement_lines())
            )

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)


def _self_attrs(expr: cst.BaseExpression) -> list[cst.Attribute]:
    """The `self.<attr>` reads in `expr`, last first."""
    found = [node for node in find(expr, cst.Attribute)
             if type(node.value) is cst.Name and node.value.value == "self"]
    found.reverse()
    return found
