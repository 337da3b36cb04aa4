"""BL438: Python's C functions of numbers (`math.prod`, `math.fsum`) handed what dynamo cannot put in
a graph, a generator or an iterator."""

from __future__ import annotations

import libcst as cst

from ..finding import Fix
from ..fixes.edit import replace, text_of
from .base import register
from .by_name import CallRule
from ._util import builtin_name


@register
class MathOfGenerator(CallRule):
    CODE = "BL438"
    NAME = "math-of-generator"
    KIND = "break"
    MESSAGE = "`math.prod()` or `math.fsum()` of a generator or iterator"
    SUGGESTION = "hand it a list (`math.prod([x.shape[d] for d in dims])`), which dynamo traces"
    GB_TYPES = ("GB0055", "GB0092")
    NAMES = frozenset({"math.prod", "math.fsum"})

    def matches(self, node: cst.Call) -> str | None:
        name = super().matches(node)
        first = node.args[0] if node.args else None
        if name is None or first is None or first.keyword is not None or first.star:
            return None
        if type(first.value) is cst.GeneratorExp:
            return name
        if type(first.value) is cst.Call and builtin_name(self.ctx, first.value) in ("map", "filter", "zip"):
            return name
        return None

    def describe(self, node: cst.Call, what: str) -> str:
        handed = "a generator" if type(node.args[0].value) is cst.GeneratorExp else "an iterator"
        return (f"`{self.ctx.source(node)}` hands {handed} to `{what}`, a C function dynamo calls only with "
                "values it can put in the graph: it breaks the graph at the call")

    def fix_for(self, node: cst.Call, what: str) -> Fix | None:
        # the same product or sum of the same values: a list only gathers them before the call does
        first = node.args[0].value
        text = text_of(self.ctx, first)
        if type(first) is cst.GeneratorExp:
            inner = text[1:-1] if first.lpar else text
            return replace(self.ctx, first, f"[{inner}]", "hand it a list comprehension", safe=True)
        return replace(self.ctx, first, f"list({text})", "hand it a list", safe=True)
