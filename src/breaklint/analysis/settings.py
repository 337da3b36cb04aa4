"""The dynamo settings a file makes, read from its tree: one more visitor of the batched walk.

- `torch._dynamo.config.NAME = VALUE` (also `|=`, `.add(f)`, `.update({...})`), in a function or at
  module level: process-wide, kept in the summary's `dynamo_config` (not from test files: a test
  sets dynamo's settings for itself, not for the code it tests);
- `torch._dynamo.config.patch(NAME=VALUE)` as a decorator (the function and what it reaches) or in
  a `with` (what the block's calls reach), kept as the function's `PatchBlock`s;
- a function that returns such a patch, or yields inside one (a context manager), `provides` its
  settings; a `with helper(...):` block then holds them, once reach knows the callee.

Only the settings `dynamo_settings.SUPPORTED` names are kept; `analysis/scoping` (tree level)
decides which functions each setting covers. Nothing is evaluated but literals and names.
"""

from __future__ import annotations

import libcst as cst

from ..dynamo_settings import FLAGS, add_values, canonical
from .summary import FunctionInfo, PatchBlock
from .syntax import dotted
from .walk import find

CONFIG = "torch._dynamo.config"
PATCH = f"{CONFIG}.patch"
SET_METHODS = ("add", "update")
# context managers that never hand out dynamo settings: no block is kept for them
FOREIGN = ("torch.", "contextlib.", "warnings.", "open", "threading.", "tempfile.", "unittest.")


def reader_for(ctx) -> "HelperBlocks":
    """The visitor for a file: one that never names dynamo makes no setting, and only its
    `with helper(...):` blocks are kept (a cheaper visitor, with one hook)."""
    return (SettingsReader if any("dynamo" in line for line in ctx.lines) else HelperBlocks)(ctx)


class HelperBlocks(cst.BatchableCSTVisitor):
    """Walks after `FileContext` (whose function and names it reads) and before the rules: the
    `with helper(...):` blocks, whose helper may hand out a patch."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def _patch_block(self, call: cst.Call, body: cst.BaseSuite, start: int, end: int) -> bool:
        """Record `with patch(...):`; False where `call` is no patch."""
        return False

    def visit_With(self, node: cst.With) -> None:
        fn = self.ctx.function
        start, _, end, _ = self.ctx.positions.span(node.body)
        for item in node.items:
            call = item.item
            if type(call) is not cst.Call or self._patch_block(call, node.body, start, end):
                continue
            if fn is not None and not (self.ctx.qualify(call.func) or "").startswith(FOREIGN):
                line, col, _, _ = self.ctx.positions.span(call)
                fn.patches.append(PatchBlock(start, end, via_line=line, via_col=col))


class SettingsReader(HelperBlocks):
    """The visitor of a file that names dynamo: settings assigned, patched and handed out."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._in_tests = is_test_file(ctx.path)

    def _patch_block(self, call: cst.Call, body: cst.BaseSuite, start: int, end: int) -> bool:
        if not self._is_patch(call):
            return False
        settings = self._patch_settings(call)
        fn = self.ctx.function
        if fn is None:  # a module-level block: a script running compiled code under it
            for setting, values in settings.items():
                self._record(setting, values)
            return True
        fn.patches.append(PatchBlock(start, end, settings))
        if next(find(body, (cst.Yield,)), None) is not None:
            _provide(fn, settings)  # a context manager that yields under the patch
        return True

    # ------------------------------------------------------------------ values
    def _members(self, node: cst.BaseExpression) -> list[str] | None:
        """The functions a set, list or tuple literal (or `set()`) names, as dotted names."""
        if type(node) is cst.Call and dotted(node.func) == "set" and not node.args:
            return []
        if type(node) not in (cst.Set, cst.List, cst.Tuple):
            return None
        out = []
        for el in node.elements:
            if type(el) is not cst.Element:
                return None
            name = self.ctx.qualify(el.value) or dotted(el.value)
            if name is None:
                return None
            out.append(name)
        return out

    def _value(self, setting: str, node: cst.BaseExpression) -> list[str] | None:
        if setting in FLAGS:
            if type(node) is cst.Name and node.value in ("True", "False"):
                return [node.value.lower()]
            return None
        return self._members(node)

    def _patch_settings(self, call: cst.Call) -> dict[str, list[str]]:
        """`patch(a=1)`, `patch({"a": 1})` and `patch("a", 1)`: the supported settings it makes."""
        pairs: list[tuple[str, cst.BaseExpression]] = []
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        for arg in call.args:
            if arg.keyword is not None:
                pairs.append((arg.keyword.value, arg.value))
        if len(positional) == 1 and type(positional[0]) is cst.Dict:
            for el in positional[0].elements:
                if type(el) is cst.DictElement and type(el.key) is cst.SimpleString:
                    pairs.append((el.key.evaluated_value, el.value))
        elif len(positional) == 2 and type(positional[0]) is cst.SimpleString:
            pairs.append((positional[0].evaluated_value, positional[1]))
        out: dict[str, list[str]] = {}
        for name, value in pairs:
            setting = canonical(name) if isinstance(name, str) else None
            if setting is not None:
                parsed = self._value(setting, value)
                if parsed is not None:
                    out[setting] = parsed
        return out

    def _is_patch(self, node: cst.BaseExpression) -> bool:
        return type(node) is cst.Call and self.ctx.qualify(node.func) == PATCH

    def _setting_of(self, target: cst.BaseExpression) -> str | None:
        """`torch._dynamo.config.NAME` -> the supported setting it names."""
        if type(target) is cst.Attribute and self.ctx.qualify(target.value) == CONFIG:
            return canonical(target.attr.value)
        return None

    def _record(self, setting: str, values: list[str], add: bool = False) -> None:
        if self._in_tests:
            return  # a test sets dynamo's settings for itself, not for the code it tests
        held = self.ctx.summary.dynamo_config
        if add or setting in FLAGS:
            add_values(held, setting, values)
        else:
            held[setting] = list(values)

    # ------------------------------------------------------------------ hooks
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            setting = self._setting_of(target.target)
            if setting is not None:
                values = self._value(setting, node.value)
                if values is not None:
                    self._record(setting, values)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        setting = self._setting_of(node.target)
        if setting is not None and setting not in FLAGS and type(node.operator) is cst.BitOrAssign:
            values = self._members(node.value)
            if values is not None:
                self._record(setting, values, add=True)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not (type(call) is cst.Call and type(call.func) is cst.Attribute
                and call.func.attr.value in SET_METHODS and len(call.args) == 1):
            return
        setting = self._setting_of(call.func.value)
        if setting is None or setting in FLAGS:
            return
        arg = call.args[0].value
        values = self._members(arg) if call.func.attr.value == "update" else \
            [self.ctx.qualify(arg) or dotted(arg) or ""]
        if values is not None and all(values):
            self._record(setting, values, add=True)

    def visit_Return(self, node: cst.Return) -> None:
        fn = self.ctx.function
        if fn is not None and node.value is not None and self._is_patch(node.value):
            _provide(fn, self._patch_settings(node.value))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.ctx.function
        if fn is None:
            return
        for decorator in node.decorators:
            if self._is_patch(decorator.decorator):
                settings = self._patch_settings(decorator.decorator)
                if fn.qualname.rsplit(".", 1)[-1] == node.name.value:
                    fn.patches.append(PatchBlock(0, 0, settings))
                else:  # a nested function: its lines
                    start, _, end, _ = self.ctx.positions.span(node)
                    fn.patches.append(PatchBlock(start, end, settings))


def is_test_file(path) -> bool:
    """`test_x.py`, `x_test.py`, `conftest.py`, or a file under a `tests` or `test` folder."""
    parts = [p.lower() for p in getattr(path, "parts", ())]
    if not parts:
        return False
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in ("tests", "test") for p in parts[:-1]))


def _provide(fn: FunctionInfo, settings: dict[str, list[str]]) -> None:
    for setting, values in settings.items():
        add_values(fn.provides, setting, values)
