"""Tensors whose number of dimensions the code shows: 0-d positions and 1-d index vectors.

Indexing reads a 0-d tensor index as a Python int (dynamo breaks: "Data dependent operator"), and a
1-d one gathers (it traces). Which one an index is, the value analysis does not say: it has no
ranks. What the code shows plainly is enough for the common cases: a reduction over every element
(`x.argmax()`, `(x > 0).sum()`), one coordinate of one position of `torch.nonzero(t)`
(`found[i, 1]`), and an element, picked by a Python int or by iterating, of a vector
the code makes 1-d (`torch.arange(n)`, `torch.randperm(n)`, `x.flatten()`, `x.view(-1)`,
`torch.where(c)[0]`, `x.nonzero()[:, 0]`, and their sorts, casts and slices). A tensor of unknown
rank (a parameter, `torch.argsort(y)` of one) is none of these: a row of a 2-d index tensor
(`edge_index[0]`) gathers.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.literals import integer
from ..analysis.syntax import dotted
from ..fixes.masks import position_lookup, positions_of
from ._util import call_of, method_call

INTEGER_CASTS = frozenset({"long", "int", "short", "byte", "char"})
INTEGER_DTYPES = frozenset({"torch.long", "torch.int", "torch.int64", "torch.int32", "torch.int16", "torch.int8",
                            "torch.uint8"})

# Reductions over every element: a 0-d tensor. Of these, indexing only takes an integer one, so one
# used as an index is a count or a position (`x[(x > 0).sum() - 1]`, `x[lengths.max()]`).
WHOLE_REDUCTIONS = frozenset({"argmax", "argmin", "sum", "max", "min", "count_nonzero", "prod"})
TORCH_WHOLE_REDUCTIONS = frozenset(f"torch.{name}" for name in WHOLE_REDUCTIONS)

# torch functions that make a 1-d tensor whatever they are given
VECTOR_FACTORIES = frozenset({"torch.arange", "torch.randperm", "torch.linspace", "torch.logspace"})
# ... and those that flatten what they are given (with no other argument)
FLATTENING = frozenset({"torch.flatten", "torch.ravel", "torch.unique"})
FLATTENING_METHODS = frozenset({"flatten", "ravel", "unique"})
# methods and torch functions that keep a tensor's dimensions (called on a 1-d vector: a 1-d vector)
RANK_KEEPING = frozenset({"argsort", "flip", "clone", "detach", "contiguous", "cpu", "cuda", "to", "type", "long", "int",
                          "short", "byte", "float", "double", "cumsum", "abs", "neg", "clamp", "clamp_min",
                          "clamp_max", "remainder", "fmod", "roll"})
# methods returning a (values, indices) pair of the same dimensions
PAIRED = frozenset({"sort", "topk"})


def integer_cast(node: cst.BaseExpression) -> bool:
    """`t.long()`, `t.int()`, `t.to(torch.int64)`: a tensor the code just made an integer one."""
    call = method_call(node) if type(node) is cst.Call else None
    if call is None:
        return False
    if call[1] in INTEGER_CASTS and not node.args:
        return True
    return call[1] == "to" and len(node.args) == 1 and dotted(node.args[0].value) in INTEGER_DTYPES


def whole_reduction(ctx, node: cst.BaseExpression) -> bool:
    """`torch.argmax(x)`, `x.argmin()`, `(x > 0).sum()`, `lengths.max()` (over every element): a
    0-d tensor; or such a one cast to an integer type (`.long()`)."""
    if type(node) is not cst.Call:
        return False
    if integer_cast(node):
        return whole_reduction(ctx, node.func.value)
    if type(node.func) is cst.Attribute and node.func.attr.value in WHOLE_REDUCTIONS and not node.args \
            and not (ctx.qualify(node.func) or "").startswith("torch."):
        return ctx.tensor_requirement(node.func.value) is not None
    return (ctx.qualify(node.func) in TORCH_WHOLE_REDUCTIONS and len(node.args) == 1
            and node.args[0].keyword is None and not node.args[0].star)


class Ranks:
    """Per function being walked: the names holding a 0-d tensor (a position), those holding a 1-d
    vector, those holding a Python int (a `range` loop's, `i = 0`) and those holding an (n, rank)
    matrix of positions (`torch.nonzero(t)`), each until it is bound again."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._scopes: list[tuple[dict[str, cst.BaseExpression], set[str], set[str], set[str]]] = []

    def enter(self) -> None:
        self._scopes.append(({}, set(), set(), set()))

    def leave(self) -> None:
        self._scopes.pop()

    def bind(self, name: str, value: cst.BaseExpression | None) -> None:
        """`name = value` (`value` None: bound to what the code does not show)."""
        if not self._scopes:
            return
        zero_d, vectors, ints, matrices = self._scopes[-1]
        zero_d.pop(name, None)
        vectors.discard(name)
        ints.discard(name)
        matrices.discard(name)
        if value is None:
            return
        if self.zero_d(value):
            zero_d[name] = value
        elif self.vector(value):
            vectors.add(name)
        elif integer(value) is not None:
            ints.add(name)
        elif _nonzero(self.ctx, value):
            matrices.add(name)

    def iterate(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """`for target in iterable:` each element of a 1-d vector is a 0-d tensor."""
        if not self._scopes:
            return
        names = [target] if type(target) is cst.Name else \
            [e.value for e in target.elements] if type(target) in (cst.Tuple, cst.List) else []
        for name in names:
            if type(name) is cst.Name:
                self.bind(name.value, None)
        if type(target) is cst.Name and self.vector(iterable):
            self._scopes[-1][0][target.value] = iterable
        builtin = iterable.func.value if type(iterable) is cst.Call and type(iterable.func) is cst.Name \
            and self.ctx.qualify(iterable.func) in ("range", "enumerate") else None
        if builtin == "range" and type(target) is cst.Name:
            self._scopes[-1][2].add(target.value)
        elif builtin == "enumerate" and type(target) is cst.Tuple and type(target.elements[0].value) is cst.Name:
            self._scopes[-1][2].add(target.elements[0].value.value)
            # `for k, i in enumerate(order):` of a 1-d vector: each `i` is a 0-d tensor
            if len(target.elements) == 2 and type(target.elements[1].value) is cst.Name and iterable.args \
                    and iterable.args[0].keyword is None and self.vector(iterable.args[0].value):
                self._scopes[-1][0][target.elements[1].value.value] = iterable.args[0].value

    def zero_d(self, node: cst.BaseExpression) -> bool:
        """A 0-d index tensor: a whole-tensor reduction, `torch.where(c)[0][k]`, an element of a 1-d
        vector at a Python int (`order[i]`), a coordinate of a position of `torch.nonzero(t)` at two
        Python ints (`found[i, 1]`), a name holding one, or one plus or minus an integer."""
        if type(node) is cst.Name:
            return bool(self._scopes) and node.value in self._scopes[-1][0]
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
            sides = (node.left, node.right)
            return any(type(s) is cst.Integer for s in sides) and any(self.zero_d(s) for s in sides)
        if integer_cast(node) or call_of(node, "clamp", "clamp_min", "clamp_max", "detach"):
            return self.zero_d(node.func.value)
        if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index \
                and self._python_int(node.slice[0].slice.value) and self.vector(node.value):
            return True
        if type(node) is cst.Subscript and len(node.slice) == 2 and self.matrix(node.value) \
                and all(type(e.slice) is cst.Index and self._python_int(e.slice.value) for e in node.slice):
            return True  # `J[i, 1]` of `J = torch.nonzero(t)`: one coordinate of one position
        return whole_reduction(self.ctx, node) or position_lookup(self.ctx, node) is not None

    def matrix(self, node: cst.BaseExpression) -> bool:
        """An (n, rank) matrix of positions: `torch.nonzero(t)`, `t.nonzero()`, or a name holding one."""
        if type(node) is cst.Name:
            return bool(self._scopes) and node.value in self._scopes[-1][3]
        return _nonzero(self.ctx, node)

    def vector(self, node: cst.BaseExpression) -> bool:
        """A 1-d tensor the code shows: made so (`torch.arange(n)`, `x.flatten()`, `x.view(-1)`,
        `torch.where(c)[0]`, `x.nonzero()[:, 0]`), or kept so from one (`v.argsort()`, `v.sort()[1]`,
        `v.long()`, `v[1:]`, `v + 1`)."""
        if type(node) is cst.Name:
            return bool(self._scopes) and node.value in self._scopes[-1][1]
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract, cst.Multiply):
            sides = (node.left, node.right)
            return any(type(s) is cst.Integer for s in sides) and any(self.vector(s) for s in sides)
        if type(node) is cst.Call:
            return self._vector_call(node)
        if type(node) is cst.Attribute and node.attr.value in ("values", "indices"):
            return type(node.value) is cst.Call and self._pair_of_vector(node.value)
        if type(node) is not cst.Subscript:
            return False
        elements = [e.slice for e in node.slice]
        if len(elements) == 1 and type(elements[0]) is cst.Slice:
            return self.vector(node.value)  # `v[1:]`
        if type(node.value) is not cst.Call:
            return False
        constants = [integer(e.value) if type(e) is cst.Index else None for e in elements]
        if len(elements) == 1 and constants[0] is not None:
            return self._pair_of_vector(node.value) or positions_of(self.ctx, node.value) is not None
        if len(elements) == 2 and type(elements[0]) is cst.Slice and _full(elements[0]) and constants[1] is not None:
            return _nonzero(self.ctx, node.value)  # `x.nonzero()[:, 0]`
        return False

    def _vector_call(self, node: cst.Call) -> bool:
        qual = self.ctx.qualify(node.func)
        if qual in VECTOR_FACTORIES:
            return True
        args = [a for a in node.args if not a.star]
        if qual in FLATTENING:
            return len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
        if qual in ("torch.argsort", "torch.flip", "torch.clone") and args and args[0].keyword is None:
            return self.vector(args[0].value)
        call = method_call(node)
        if call is None or (qual or "").startswith("torch."):
            return False
        receiver, method = call
        if method in FLATTENING_METHODS and not node.args:
            return self.ctx.tensor_requirement(receiver) is not None
        if method in ("view", "reshape") and len(node.args) == 1 and integer(node.args[0].value) == -1:
            return self.ctx.tensor_requirement(receiver) is not None
        if method == "squeeze" and len(node.args) == 1 and integer(node.args[0].value) in (1, -1):
            return _nonzero(self.ctx, receiver)  # `x.nonzero().squeeze(1)`
        return method in RANK_KEEPING and self.vector(receiver)

    def _pair_of_vector(self, node: cst.Call) -> bool:
        """`v.sort()`, `v.topk(k)`, `torch.sort(v)` of a 1-d vector: values and indices, each 1-d."""
        call = method_call(node)
        if self.ctx.qualify(node.func) in ("torch.sort", "torch.topk"):
            return bool(node.args) and node.args[0].keyword is None and self.vector(node.args[0].value)
        return call is not None and call[1] in PAIRED and self.vector(call[0])

    def _python_int(self, node: cst.BaseExpression) -> bool:
        """An index that is a Python int: a literal, a `range` loop's name, or a name bound to a
        literal or that the value analysis holds a number."""
        if integer(node) is not None:
            return True
        return type(node) is cst.Name and (bool(self._scopes) and node.value in self._scopes[-1][2]
                                               or self.ctx.value(node).kind == "number")


def _full(element: cst.Slice) -> bool:
    return element.lower is None and element.upper is None and element.step is None


def _nonzero(ctx, node: cst.BaseExpression) -> bool:
    """`x.nonzero()` or `torch.nonzero(x)`: an (n, rank) matrix of positions."""
    if type(node) is not cst.Call:
        return False
    if ctx.qualify(node.func) == "torch.nonzero":
        return len(node.args) == 1 and node.args[0].keyword is None
    call = method_call(node)
    return call is not None and call[1] == "nonzero" and not node.args and ctx.tensor_requirement(call[0]) is not None
