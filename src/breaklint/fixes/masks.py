"""Rewrites of data-dependent selections (BL301, BL302): reductions and writes through a boolean
mask as `torch.where`, `torch.unique` feeding only whole tests, and the first or last position
where a condition holds as `argmax`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..analysis.literals import integer
from ..analysis.walk import find
from ..finding import Fix
from .edit import replace, sole_statement, text_of, torch_name, wrapped


if TYPE_CHECKING:
    from ..analysis.context import FileContext
    from ..analysis.values import Val


def _mask(ctx: "FileContext", node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The mask of `x[mask]`: one index, a bool tensor."""
    if not (type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index):
        return None
    mask = node.slice[0].slice.value
    return mask if ctx.value(mask).bool_shaped and ctx.tensor_requirement(mask) is not None else None


def _unmasked(ctx: "FileContext", value: cst.BaseExpression, mask: str
              ) -> tuple[cst.BaseExpression, list[cst.Subscript]] | None:
    """`value` with each read `y[mask]` (this mask's text) written `y`, and those reads; None when
    it reads any other value not known to be a plain number: a tensor read whole has the
    selection's shape, not the whole tensor's."""
    reads = [s for s in find(value, cst.Subscript) if _mask(ctx, s) is not None
             and text_of(ctx, _mask(ctx, s)) == mask]
    inside = {id(n) for r in reads for n in find(r, (cst.Name, cst.Attribute))}
    # a function's or method's own name; a method's receiver is a value like any other
    callees = {id(n) for c in find(value, cst.Call)
               for n in ([c.func, c.func.attr] if type(c.func) is cst.Attribute else [c.func])}
    attrs = {id(a.attr) for a in find(value, cst.Attribute)}
    # `x.dtype`, `x.device`: what is read is not the tensor's elements
    described = {id(n) for a in find(value, cst.Attribute) if ctx.value(a).not_tensor and id(a) not in callees
                 for n in find(a.value, (cst.Name, cst.Attribute, cst.Subscript))}
    for leaf in find(value, (cst.Name, cst.Attribute, cst.Subscript)):
        if id(leaf) in inside or id(leaf) in callees or id(leaf) in attrs or id(leaf) in described or leaf in reads:
            continue
        if type(leaf) is cst.Subscript and _mask(ctx, leaf) is not None:
            return None  # a read through another mask
        if type(leaf) in (cst.Name, cst.Attribute) and not ctx.value(leaf).not_tensor \
                and not (type(leaf) is cst.Name and leaf.value in ctx.aliases):  # `torch`, `F`
            return None  # a tensor, or not known not to be one
    return value.visit(_Unmask({id(r) for r in reads})), reads


class _Unmask(cst.CSTTransformer):
    def __init__(self, reads: set[int]) -> None:
        super().__init__()
        self.reads = reads

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if id(original_node) not in self.reads:
            return updated_node
        return updated_node.value.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar) \
            if updated_node.lpar else updated_node.value


def masked_write(ctx: "FileContext", target: cst.BaseExpression, op: cst.BaseAugOp | None,
                 value: cst.BaseExpression) -> tuple[Fix, list[cst.Subscript]] | None:
    """`x[mask] = f(y[mask], 2)` -> `x.copy_(torch.where(mask, f(y, 2), x))`; `x[mask] += v` likewise.

    For the masked reads of the statement. Offered when every tensor the value reads is read
    through the same mask. Unsafe: `f` is computed on every element (what it gives outside the
    mask is dropped), and the mask must have the shape of `x`: a mask over `x`'s leading
    dimensions broadcasts against its trailing ones instead.
    """
    mask_node = _mask(ctx, target)
    if mask_node is None:
        return None
    torch = torch_name(ctx)
    small = sole_statement(ctx)
    if type(small) is cst.Assign:
        own = small.targets[0].target if len(small.targets) == 1 else None
    else:
        own = small.target if type(small) is cst.AugAssign else None
    if torch is None or mask_node is None or own is not target or type(target.value) not in (cst.Name,
                                                                                             cst.Attribute):
        return None
    mask = text_of(ctx, mask_node)
    found = _unmasked(ctx, value, mask)
    if found is None or (op is None and not found[1]):
        return None
    new, reads = found
    x = text_of(ctx, target.value)
    code = cst.Module([]).code_for_node(new)
    if op is not None:
        operator = cst.Module([]).code_for_node(op).replace("=", "").strip()
        code = f"{x} {operator} {wrapped(new, code)}"
        reads = [target, *reads]
    fix = replace(ctx, small, f"{x}.copy_({torch}.where({mask}, {code}, {x}))",
                  f"assign through `{torch}.where(mask, ...)` instead of reading through the mask", safe=False)
    return fix, reads


_WHOLE_TESTS = frozenset({"any", "all", "max", "min", "amax", "amin"})


_NOT_ELEMENTWISE_OPS = (cst.MatrixMultiply,)


def whole_test_operand(ctx: "FileContext", call: cst.Call) -> cst.BaseExpression | None:
    """E of `torch.any(E)`, `E.all()`, `E.max()`, ...: a reduction over every element that gives the
    same answer for a tensor and for its distinct values."""
    if type(call.func) is cst.Attribute and call.func.attr.value in _WHOLE_TESTS and not call.args:
        return call.func.value
    qual = ctx.qualify(call.func) or ""
    if (qual.startswith("torch.") and qual[6:] in _WHOLE_TESTS and len(call.args) == 1
            and call.args[0].keyword is None and not call.args[0].star):
        return call.args[0].value
    return None


def elementwise_names(ctx: "FileContext", node: cst.BaseExpression) -> list[cst.Name] | None:
    """The names an element-by-element expression reads (comparisons, arithmetic and `~`/`-` of
    names and numbers), when every other leaf is known not to be a tensor; None for anything else."""
    if type(node) is cst.Name:
        return [node]
    if type(node) is cst.Comparison:
        parts = [node.left, *(c.comparator for c in node.comparisons)]
        if any(type(c.operator) in (cst.In, cst.NotIn, cst.Is, cst.IsNot) for c in node.comparisons):
            return None
    elif type(node) is cst.BinaryOperation and not isinstance(node.operator, _NOT_ELEMENTWISE_OPS):
        parts = [node.left, node.right]
    elif type(node) is cst.UnaryOperation and type(node.operator) is not cst.Not:
        parts = [node.expression]
    elif type(node) in (cst.Integer, cst.Float) or ctx.value(node).not_tensor:
        return []
    else:
        return None
    names: list[cst.Name] = []
    for part in parts:
        found = elementwise_names(ctx, part)
        if found is None:
            return None
        names += [n for n in found if not ctx.value(n).not_tensor]
    return names


def unique_to_input(ctx: "FileContext", call: cst.Call) -> tuple[Fix, cst.Name] | None:
    """`u = torch.unique(x)` -> `u = x`, where `u` then only feeds tests over every element
    (`torch.any((u != 0) & (u != 1))`, `u.max()`): the fix, and the name, whose other uses the
    caller checks (`only_whole_tests`).

    Safe: such a test gives the same answer over a tensor's values as over its distinct values,
    and no longer needs a tensor whose length depends on the data.
    """
    small = sole_statement(ctx)
    if not (type(small) is cst.Assign and small.value is call and len(small.targets) == 1
            and type(small.targets[0].target) is cst.Name):
        return None
    if ctx.qualify(call.func) == "torch.unique":
        if not call.args or call.args[0].keyword is not None:
            return None
        source, rest = call.args[0].value, list(call.args[1:])
    elif type(call.func) is cst.Attribute and call.func.attr.value == "unique":
        source, rest = call.func.value, list(call.args)
    else:
        return None
    for arg in rest:  # `sorted=` changes nothing a test sees; `dim=None` is the default
        key = arg.keyword.value if arg.keyword is not None else None
        if arg.star or not (key == "sorted" or key == "dim" and type(arg.value) is cst.Name
                            and arg.value.value == "None"):
            return None
    fix = replace(ctx, call, text_of(ctx, source), "test the tensor itself, not its distinct values "
                  "(a test over every element gives the same answer)", safe=True)
    return fix, small.targets[0].target


def _index_constant(subscript: cst.BaseExpression) -> int | None:
    """`k` for `x[k]` with a literal integer `k` (negative ones too), else None."""
    if not (type(subscript) is cst.Subscript and len(subscript.slice) == 1
            and type(subscript.slice[0].slice) is cst.Index):
        return None
    return integer(subscript.slice[0].slice.value)


def position_lookup(ctx: "FileContext", node: cst.BaseExpression
                    ) -> tuple[cst.Call, cst.BaseExpression, int] | None:
    """(the call, `c`, `k`) for `torch.where(c)[0][k]` or `c.nonzero(as_tuple=True)[0][k]`, a literal
    `k`: one position where `c` holds, a 0-d tensor."""
    which = _index_constant(node)
    inner = node.value if type(node) is cst.Subscript else None
    if which is None or _index_constant(inner) != 0 or type(inner.value) is not cst.Call:
        return None
    cond = positions_of(ctx, inner.value)
    return (inner.value, cond, which) if cond is not None else None


def positions_of(ctx: "FileContext", call: cst.Call) -> cst.BaseExpression | None:
    """`c` for `torch.where(c)` (one argument), `torch.nonzero(c, as_tuple=True)` or
    `c.nonzero(as_tuple=True)` of a tensor `c`: a tuple of 1-d vectors, the positions where `c` holds."""
    qual = ctx.qualify(call.func)
    args = [a for a in call.args if a.keyword is None]
    as_tuple = [a for a in call.args if a.keyword is not None and a.keyword.value == "as_tuple"]
    if as_tuple and not (type(as_tuple[0].value) is cst.Name and as_tuple[0].value.value == "True"):
        return None
    if qual == "torch.where" and len(call.args) == 1 and len(args) == 1:
        cond = args[0].value
    elif qual == "torch.nonzero" and len(args) == 1 and len(call.args) == 2 and as_tuple:
        cond = args[0].value
    elif (type(call.func) is cst.Attribute and call.func.attr.value == "nonzero" and not args
          and len(call.args) == 1 and as_tuple and not ctx.is_module_ref(call.func.value)):
        cond = call.func.value
    else:
        return None
    return cond if ctx.tensor_requirement(cond) is not None else None


def first_position(ctx: "FileContext", node: cst.Subscript) -> tuple[cst.Call, Fix, Val] | None:
    """`torch.where(c)[0][0]` (or `c.nonzero(as_tuple=True)[0][0]`) -> `c.int().argmax()`, the first
    position where a 1-d `c` holds; `[0][-1]`, the last -> `(c.shape[0] - 1 - c.int().flip(0).argmax())`.
    The call, the fix, and the value of `c`, which the fix hands to torch.

    Unsafe: the same 0-d index where `c` has one dimension and holds somewhere; where it holds
    nowhere the original raises an IndexError and this gives a position (0, or the last)."""
    found = position_lookup(ctx, node)
    torch = torch_name(ctx)
    if found is None or found[2] not in (0, -1) or torch is None:
        return None
    call, cond, which = found
    c = wrapped(cond, text_of(ctx, cond))
    if which == 0:
        content, title = f"{c}.int().argmax()", "take the first position with `argmax`"
    else:
        content, title = f"({c}.shape[0] - 1 - {c}.int().flip(0).argmax())", "take the last position with `argmax`"
    return call, replace(ctx, node, content, title, safe=False), ctx.tensor_requirement(cond)


def name_uses(function: cst.CSTNode, name: str) -> list[cst.Name]:
    """The names in the function (or any subtree) that refer to the variable `name`, in the order the
    walk meets them: not `obj.name`, `f(name=...)` or `def g(name)`."""
    others: set[int] = set()
    uses = []
    for node in find(function, (cst.Attribute, cst.Arg, cst.Param, cst.Name)):
        if type(node) is cst.Attribute:
            others.add(id(node.attr))
        elif type(node) is cst.Arg:
            if node.keyword is not None:
                others.add(id(node.keyword))
        elif type(node) is cst.Param:
            others.add(id(node.name))
        elif node.value == name:
            uses.append(node)
    return [n for n in uses if id(n) not in others]


def only_whole_tests(function: cst.FunctionDef, name: str, target: cst.Name, tested: set[int]) -> bool:
    """Whether every other use of `name` in the function, an assignment included, is one of the
    `tested` name nodes."""
    return all(n is target or id(n) in tested for n in name_uses(function, name))


_REDUCTIONS = ("sum", "mean")


def masked_reduction(ctx: "FileContext", call: cst.Call) -> tuple[Fix, list[cst.Subscript]] | None:
    """`x[mask].sum()` -> `torch.where(mask, x, 0).sum()`; `.mean()` -> `... .sum() / mask.sum()`.

    Unsafe: the mask must have the shape of `x` (a mask over leading dimensions broadcasts
    against the trailing ones instead), and the sum's dtype follows `torch.where`'s promotion.
    """
    if call.args or type(call.func) is not cst.Attribute or call.func.attr.value not in _REDUCTIONS:
        return None
    torch = torch_name(ctx)
    if torch is None:
        return None
    read = call.func.value
    mask_node = _mask(ctx, read)
    if mask_node is None:
        return None
    mask = text_of(ctx, mask_node)
    total = f"{torch}.where({mask}, {text_of(ctx, read.value)}, 0).sum()"
    content = total if call.func.attr.value == "sum" else f"({total} / {wrapped(mask_node, mask)}.sum())"
    return replace(ctx, call, content, "reduce with `torch.where(mask, x, 0)` instead of selecting",
                   safe=False), [read]
