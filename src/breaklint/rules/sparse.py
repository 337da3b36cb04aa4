"""BL429: sparse tensors, which dynamo does not hold."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from ..analysis.vocabulary import SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS
from ..analysis.walk import find
from .base import Rule, register
from ._util import method_call

if TYPE_CHECKING:
    from ..analysis.values import Val


class _Held(NamedTuple):
    """A name bound to a sparse tensor, or to what may be one."""

    line: int  # of the binding
    requires: "Val | None"  # what must be a tensor for it to be made (None: a constructor, surely)
    returned: bool  # what a call of the tree's function returned: `requires` must turn out sparse
    what: str  # how the finding names it
    branches: tuple[tuple[int, bool], ...]  # the `if`s around the binding, and which branch of each


@register
class SparseTensorCreation(Rule):
    CODE = "BL429"
    NAME = "sparse-tensor-creation"
    KIND = "break"
    MESSAGE = "a sparse tensor made in compiled code (`torch.sparse_coo_tensor`, `x.to_sparse()`, ...)"
    SUGGESTION = ("keep the graph dense (`torch.zeros(n, n).index_put_(tuple(idx), values, accumulate=True)`, or "
                  "`index_add_`/`scatter_add` over the edges in place of a sparse matmul), or build the sparse "
                  "tensor outside the compiled code")
    # GB0007: `sparse_coo_tensor` (a builtin dynamo skips); GB0374: the compressed layouts; GB0277: a
    # conversion's sparse result; GB0015: the sparse tensor taken up again after the break
    GB_TYPES = ("GB0007", "GB0374", "GB0277", "GB0015")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function being walked: the names bound to a sparse tensor made there, or to what a call of
        # the tree's function returned
        self._held: list[dict[str, _Held]] = []
        self._ifs: list[cst.If] = []  # the `if` statements being walked, outermost first
        # ids of the names that are no variable (an attribute's name, a keyword), while their function
        # is walked
        self._not_names: set[int] = set()

    def _made(self, node: cst.BaseExpression) -> tuple[str, "Val | None"] | None:
        """(how, what must be a tensor) where `node` makes a sparse tensor, else None."""
        if not isinstance(node, cst.Call):
            return None
        name = self.ctx.qualify(node.func)
        if name in SPARSE_CONSTRUCTORS:
            return f"`{name}` makes a sparse tensor", None
        call = method_call(node)
        if call is None or call[1] not in SPARSE_CONVERSIONS:
            return None
        requires = self.ctx.tensor_requirement(call[0])
        return (f"`.{call[1]}()` gives a sparse tensor", requires) if requires is not None else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._held.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._held.pop()
        if not self._held:
            self._not_names.clear()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        made = self._made(node)
        if made is not None:
            self.report(node, f"{made[0]}: dynamo does not support sparse tensors and breaks the graph here",
                        requires=made[1])

    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(node)

    def leave_If(self, original_node: cst.If) -> None:
        self._ifs.pop()

    def _branches(self, line: int) -> tuple[tuple[int, bool], ...]:
        """For each `if` around a line: which of its branches the line is in (its body or not)."""
        return tuple((id(node), line <= self.ctx.positions.span(node.body)[2]) for node in self._ifs)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._held and self._held[-1]:
            self._not_names.add(id(node.attr))  # `graph.adj` reads no local `adj`

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and self._held and self._held[-1]:
            self._not_names.add(id(node.keyword))  # nor does `f(adj=...)`'s keyword

    def visit_Assign(self, node: cst.Assign) -> None:
        # a name bound again no longer holds the sparse tensor (a use on the right is taken first), unless
        # in another branch of the `if` that made it
        for target in node.targets:
            if isinstance(target.target, cst.Name) and self._held and target.target.value in self._held[-1] \
                    and not self._elsewhere(target.target.value, self.ctx.positions.span(node)[0]):
                for attribute in find(node.value, cst.Attribute):
                    self.visit_Attribute(attribute)
                for arg in find(node.value, cst.Arg):
                    self.visit_Arg(arg)
                for used in find(node.value, cst.Name):
                    self.visit_Name(used)
                self._held[-1].pop(target.target.value, None)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._held or not self.ctx.active():
            return
        made = self._made(original_node.value)
        line = self.ctx.positions.span(original_node)[0]
        if made is not None:
            held = _Held(line, made[1], False, f"the sparse tensor made at line {line}", self._branches(line))
        elif isinstance(original_node.value, cst.Call) and (returned := self._returned(original_node.value)):
            # `m = construct_matrix(...)`: a sparse tensor if the helper returns one (the tree decides)
            held = _Held(line, returned, True, f"the sparse tensor `{self.ctx.source(original_node.value.func)}` "
                                               f"returned at line {line}", self._branches(line))
        else:
            return
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                self._held[-1][target.target.value] = held

    def _returned(self, node: cst.Call) -> "Val | None":
        """What a call of a function the tree decides returns, where that may be a sparse tensor."""
        value = self.ctx.tensor_requirement(node)
        return value if value is not None and value.kind == "ret" else None

    def _elsewhere(self, name: str, line: int) -> bool:
        """Whether a line is in another branch of an `if` whose branch made the sparse tensor `name`
        holds: there the name never holds it."""
        branches = self._held[-1][name].branches
        return bool(set(branches) & {(n, not body) for n, body in self._branches(line)})

    def visit_Name(self, node: cst.Name) -> None:
        if not self._held or node.value not in self._held[-1] or id(node) in self._not_names:
            return
        here = self.ctx.positions.span(node)[0]
        if self._elsewhere(node.value, here):
            return
        held = self._held[-1].pop(node.value)
        if here == held.line or not self.ctx.active() or not set(held.branches) <= set(self._branches(here)):
            # (after an `if` one of whose branches made it, the name holds it only when that branch ran:
            # the break there is reported where it is made)
            return
        self.report(node, f"`{node.value}` holds {held.what}: the code after that break takes it up as an input, "
                          "which dynamo cannot hold, and breaks again here", requires=held.requires,
                    sparse=held.returned)
