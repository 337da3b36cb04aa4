"""The calls an arithmetic operator makes: `a @ b`, `a + b`, `a * b` run `a.__matmul__(b)`,
`a.__add__(b)`, `a.__mul__(b)` where the class of `a` defines them (a linear operator of the tree, a
semiring, a wrapper of tensors), and dynamo traces that method as it traces any other. The left
operand is told as a call's receiver is (`calls.py`): a local built from a class of the tree, one
annotated with a class, one a function of the tree returned, or an attribute that holds an object;
on a tensor, a number or what the file cannot tell, no call is noted.
"""

from __future__ import annotations

import libcst as cst

from .summary import CallRef
from .syntax import shape_indices

# an arithmetic operator -> the method it runs on its left operand
OPERATOR_METHODS = {
    cst.Add: "__add__", cst.Subtract: "__sub__", cst.Multiply: "__mul__", cst.MatrixMultiply: "__matmul__",
    cst.Divide: "__truediv__", cst.FloorDivide: "__floordiv__", cst.Modulo: "__mod__", cst.Power: "__pow__",
}


class Operators:
    """The operator calls of each function, for reach.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        method = OPERATOR_METHODS.get(type(node.operator))
        if method is None or not self.active():
            return
        if refs := _receiver_refs(self, node.left, method):
            self._note_operator(node, refs, self.value(node.right))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """`boxes[keep]` on an object of the tree's classes runs its `__getitem__` with `keep` (a store,
        `boxes[i] = v`, runs `__setitem__`, not noted)."""
        for dim in shape_indices(node):  # `x.shape[d]`: a parameter indexing a shape is an int
            self._note_scalar_use(dim)
        if not self.active() or node in self.assign_targets:
            return
        refs = _receiver_refs(self, node.value, "__getitem__")
        if any(kind in ("instcall", "attrcall") for kind, _ in refs):
            self._tree_indexed.add(node)
        if refs and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
            self._note_operator(node, refs, self.value(node.slice[0].slice.value))

    def indexes_tree_object(self, node: cst.Subscript) -> bool:
        """Whether the walked subscript `node` (read, in traced code) indexes what surely is an object
        of the tree's classes (built from one here, or an attribute holding one built): `boxes[keep]`
        then runs its `__getitem__`, and no tensor is indexed there. What a function of the tree
        returned is most often a tensor, and an annotation may name a union with one (`Adj`)."""
        return node in self._tree_indexed

    def note_len(self, node: cst.Call) -> None:
        """`len(boxes)` on an object of the tree's classes runs its `__len__` (calls.py asks)."""
        if len(node.args) != 1 or node.args[0].star:
            return
        if refs := _receiver_refs(self, node.args[0].value, "__len__"):
            self._note_operator(node, refs, None)

    def _note_operator(self, node: cst.CSTNode, refs: list[tuple[str, str]], operand) -> None:
        pos = self.positions.span(node)
        conditions = {text: half for level in self._guards for text, half in level}
        self.function.calls.extend(CallRef(kind, target, *pos, args=[operand] if operand is not None else [],
                                           conditions=conditions, straight=self.straight_line) for kind, target in refs)


def _receiver_refs(ctx, receiver: cst.BaseExpression, method: str) -> list[tuple[str, str]]:
    """The call edges of `receiver.<method>(...)` where the receiver is an object the function knows."""
    if type(receiver) is cst.Name:
        scope = ctx._scopes[-1]
        name = receiver.value
        if name in scope.made:  # `op = KroneckerOp(a, b)`, then `op @ x`
            return [("instcall", f"{made}:{method}") for made in scope.made[name]]
        if name in scope.typed:  # `def solve(op: LinearOp, x)`: `op @ x` (not `x: torch.Tensor`)
            declared = scope.typed[name]
            return [] if declared.startswith("torch.") else [("typedcall", f"{declared}:{method}")]
        return [("retcall", f"{held}:{method}") for held in ctx.returned_held(name)]  # `op = make(a)`
    if type(receiver) is cst.Call:  # `Op(a) @ x`, `make(a) + x`
        if built := ctx.built_from(receiver):
            return [("instcall", f"{made}:{method}") for made in built]
        returned = ctx.returned_by(receiver)
        return [("retcall", f"{returned}:{method}")] if returned is not None else []
    attr = ctx._self_attr(receiver)
    cls = ctx.class_info()
    built = cls.submodules.get(attr) if attr is not None and cls is not None else None
    if built is not None and not built.startswith("torch."):
        return [("attrcall", f"{attr}.{method}")]  # `self.kernel @ x` of an instance the constructor built
    return []
