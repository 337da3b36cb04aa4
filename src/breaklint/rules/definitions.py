"""BL445: a class made while compiled code runs.

Dynamo cannot run Python's `__build_class__`: a `class` statement in a function it traces breaks the
graph where the class is made ("Invalid call to __build_class__", GB8977), and so does building one
through `dataclasses.make_dataclass` (GB0156) or the functional `typing.NamedTuple("P", [...])`
(GB0007). `collections.namedtuple` traces with its field names given as a list, a string or a dict of
numbers; given a dict of tensors (`namedtuple("Output", results)` over a model's outputs) it breaks
(GB0201), which is left alone here: what a dict holds is not told apart (probed on torch 2.13 and
2.14.1). Met where a helper defines its `torch.autograd.Function` inside the function that uses it.
"""

from __future__ import annotations

import libcst as cst

from .base import register
from .by_name import CallRule


@register
class ClassDefinition(CallRule):
    CODE = "BL445"
    NAME = "class-definition"
    KIND = "break"
    MESSAGE = ("a class made in compiled code: a `class` statement, `dataclasses.make_dataclass` or the "
               "functional `typing.NamedTuple`")
    SUGGESTION = ("define the class once at module level (an autograd `Function`, a record type) and use it in "
                  "the compiled code")
    GB_TYPES = ("GB8977", "GB0156", "GB0007")
    NAMES = frozenset({"dataclasses.make_dataclass", "typing.NamedTuple", "typing_extensions.NamedTuple"})

    def matches(self, node: cst.Call) -> str | None:
        found = super().matches(node)
        if found is None:
            return None
        args = [a for a in node.args if not a.star]
        if found.endswith("NamedTuple") and len(args) < 2 and not any(a.keyword for a in node.args):
            return None  # `NamedTuple("P")` alone makes no fields: not the functional form that breaks
        return found

    def describe(self, node: cst.Call, what: str) -> str:
        return (f"`{self.ctx.source(node)}` makes a class while compiled code runs, which dynamo cannot do: the "
                "graph breaks at the call")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.ctx.active():
            self.report(node.name, f"`class {node.name.value}` is defined inside compiled code: dynamo cannot "
                                   "build a class while it traces, and breaks the graph at the statement")
