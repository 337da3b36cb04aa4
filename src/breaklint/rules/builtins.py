"""BL452 and BL453: builtins dynamo cannot run in compiled code (code run from a string, raw bytes, the module's
globals), and itertools' combinatorics handed their length by keyword."""

from __future__ import annotations

import libcst as cst

from ..fixes.edit import replace, text_of
from .base import register
from .by_name import CallRule
from ._util import keyword


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
    WHAT = {"eval": "evaluates code from a string", "exec": "runs code from a string",
            "compile": "compiles code from a string", "bytes": "makes a `bytes` object",
            "bytearray": "makes a `bytearray`", "memoryview": "makes a `memoryview`",
            "globals": "reads the module's namespace"}
    BUILTINS = frozenset(WHAT)

    def matches(self, node: cst.Call) -> str | None:
        name = super().matches(node)
        return name if name is not None and not self.ctx.is_bound(name) else None  # (not a local of that name)

    def describe(self, node: cst.Call, what: str) -> str:
        return f"`{self.ctx.source(node)}` {self.WHAT[what]}, which dynamo cannot trace: the graph breaks at the call"


@register
class ItertoolsKeywordLength(CallRule):
    CODE = "BL453"
    NAME = "itertools-keyword-length"
    KIND = "break"
    MESSAGE = "itertools' combinatorics handed their length `r=` by keyword, which dynamo cannot run"
    SUGGESTION = "pass the length by position: `combinations(items, 2)` traces"
    # dynamo runs these through its own stand-ins, which take `r` by position only (probed on torch 2.11 and
    # 2.13: GB0147, and 2.14.1: GB0088, at the call); `itertools.product(..., repeat=n)` traces
    GB_TYPES = ("GB0147", "GB0088")
    # (`combinations_with_replacement` is left out: torch 2.13 has no stand-in for it, whatever it is handed)
    NAMES = frozenset({"itertools.combinations", "itertools.permutations"})

    def matches(self, node: cst.Call) -> str | None:
        name = super().matches(node)
        return name if name is not None and keyword(node, "r") is not None else None

    def fix_for(self, node: cst.Call, what: str):
        args = node.args
        if len(args) != 2 or args[0].keyword is not None or args[0].star or args[1].keyword is None:
            return None
        text = f"{text_of(self.ctx, node.func)}({text_of(self.ctx, args[0].value)}, {text_of(self.ctx, args[1].value)})"
        return replace(self.ctx, node, text, "pass `r` by position", safe=True)

    def describe(self, node: cst.Call, what: str) -> str:
        return (f"`{self.ctx.source(node)}` hands `{what.rpartition('.')[2]}` its length by keyword: dynamo's stand-in "
                "for it takes `r` by position only, and the graph breaks at the call")
