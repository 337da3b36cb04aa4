"""BL452: builtins dynamo cannot run in compiled code (code run from a string, raw bytes, the module's globals)."""

from __future__ import annotations

import libcst as cst

from .base import register
from .by_name import CallRule


@register
class UntraceableBuiltin(CallRule):
    CODE = "BL452"
    NAME = "untraceable-builtin"
    KIND = "break"
    MESSAGE = "a builtin dynamo cannot run"
    SUGGESTION = ("run it outside the compiled region (in `__init__`, or before the call): for code in a string, "
                  "call the function it names (`getattr(obj, name)(...)`); for text, keep it as `str` "
                  "(`s.encode()` traces) or turn it into a tensor first")
    GB_TYPES = ("GB0059",)
    # probed on torch 2.11, 2.13 and 2.14.1, each breaking whatever it is handed ("Failed to trace builtin
    # operator"), but `eval` of a bare number (`eval("1.5")`), which dynamo folds; `str.encode`, `bytes.decode`,
    # `locals()`, `vars()`, `hash` and `id` trace; `dir` is left out (of a module it traces on 2.13 and 2.14.1,
    # not on 2.11; of a tensor it breaks)
    BUILTINS = frozenset({"eval", "exec", "compile", "bytes", "bytearray", "memoryview", "globals"})
    WHAT = {"eval": "evaluates code from a string", "exec": "runs code from a string",
            "compile": "compiles code from a string", "bytes": "makes a `bytes` object",
            "bytearray": "makes a `bytearray`", "memoryview": "makes a `memoryview`",
            "globals": "reads the module's namespace"}

    def matches(self, node: cst.Call) -> str | None:
        name = super().matches(node)
        return name if name is not None and not self.ctx.is_bound(name) else None  # (not a local of that name)

    def describe(self, node: cst.Call, what: str) -> str:
        return f"`{self.ctx.source(node)}` {self.WHAT[what]}, which dynamo cannot trace: the graph breaks at the call"
