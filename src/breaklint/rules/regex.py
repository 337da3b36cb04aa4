"""BL444: what a regular expression gives that dynamo cannot hold.

Dynamo holds a compiled pattern and a match as constants and runs their methods at trace time, keeping
what they return where it is a constant (a string, a number, a tuple of them) or another match
(`PAT.match(s)`, `m.group(1)`, `m.span()`, `re.sub(...)` trace). A dict (`m.groupdict()`) or an
iterator (`PAT.finditer(s)`, `re.finditer(...)`, `PAT.scanner(s)`) is neither, and the graph breaks
at the call (probed on torch 2.13 and 2.14.1: GB0292, GB0007). Version parsing in compiled code
(`match.groupdict()` of a pattern over `torch.__version__`) is where it is met.
"""

from __future__ import annotations

import libcst as cst

from .base import register
from .by_name import CallRule
from ._util import method_call


@register
class RegexResult(CallRule):
    CODE = "BL444"
    NAME = "untraceable-regex-result"
    KIND = "break"
    MESSAGE = ("a regular expression's dict or iterator result (`m.groupdict()`, `pattern.finditer(s)`, "
               "`re.finditer(...)`) in compiled code")
    SUGGESTION = ("take what is needed with `m.group(name)` or `m.groups()` (they trace), loop over "
                  "`pattern.findall(s)`, or parse the string once outside the compiled code (a version "
                  "check at import)")
    GB_TYPES = ("GB0292", "GB0007")
    CALL_METHODS = frozenset({"groupdict", "finditer", "scanner"})
    NAMES = frozenset({"re.finditer"})  # (asked by `CallRules`, as `from re import finditer` is)

    def describe(self, node: cst.Call, what: str) -> str:
        return (f"`{self.ctx.source(node)}` gives an iterator of matches, which dynamo cannot hold: the graph "
                "breaks at the call")

    def on_method_call(self, node: cst.Call) -> None:
        call = method_call(node)
        if call is None or call[1] not in self.CALL_METHODS or not self.ctx.active() \
                or (self.ctx.qualify(node.func) or "").startswith("re.") or self.ctx.value(call[0]).is_tensor:
            return  # (`re.finditer(...)` is `check_call`'s)
        what = "a dict" if call[1] == "groupdict" else "an iterator of matches"
        self.report(node, f"`{self.ctx.source(node)}` gives {what}, which dynamo cannot hold as it holds a "
                          "pattern's other results: the graph breaks at the call")
