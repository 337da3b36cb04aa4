"""What torch's calls, a tensor's methods, einops', NumPy's and Python's builtins give, from the call
and the values of its receiver and arguments (`value_of`, the evaluation's own): plain functions that
the evaluation (`evaluate.py`) asks, with no state of the walk."""

from __future__ import annotations

import libcst as cst

from . import values as V
from .optimizer_classes import OPTIMIZER_MODULE
from .syntax import dotted, unseeded
from .values import Val
from .vocabulary import (
    BOOL_FUNCS, BOOL_METHODS, DEVICE_MOVES, EINOPS_SEQUENCE, EINX_BOOL, NON_TENSOR_METHODS, NUMPY_COMPARED_INTO_BOOL,
    NUMPY_FACTORIES, NUMPY_NOT_ARRAYS, NUMPY_SIZED_DRAWS, NUMPY_TAKES_ARRAYS, PADDING, PREDICATE_PREFIXES,
    RESULT_METHODS, SEQUENCE_METHODS, SHAPE_METHODS, SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS, SPARSE_KEEPING,
    SPARSE_PRODUCTS, TENSOR_CLASSES, TORCH_NON_TENSOR, TORCH_NON_TENSOR_PREFIXES, TORCH_OBJECTS, TORCH_SEQUENCE,
    UNREADABLE
)


def tensor_method_value(method: str, base: Val, node: cst.Call) -> Val | None:
    """What `receiver.method(...)` gives where the receiver's value `base` decides it here: a size, a
    number, pieces of a tensor, an array, a sparse tensor, a tensor; None where it does not (a value
    the tree decides, an object of the code)."""
    if method in ("size", "dim", "ndimension", "numel", "nelement", "stride", "element_size",
                  "storage_offset", "__len__", "get_device"):
        if base.is_tensor or base.symbolic or base.kind == "unknown":
            return V.SIZE if method in ("size", "stride") else V.NUMBER
    if method in ("item",):
        return V.NUMBER
    if base == V.GENERATOR and method == "manual_seed":  # `torch.Generator(d).manual_seed(s)`
        return V.GENERATOR
    if method in RESULT_METHODS and (base.is_tensor or base.symbolic):  # `values, indices = x.topk(k)`
        return V.seq([V.tensor(known=base.known_tensor) if base.is_tensor else V.method_result(base)] * 2)
    if method in SEQUENCE_METHODS and (base.is_tensor or base.symbolic):
        # pieces of a tensor: tensors, known or assumed as it is; of a value the tree decides,
        # tensors if it is one
        return V.seq([V.tensor(known=base.known_tensor) if base.is_tensor else V.method_result(base)])
    if method == "numpy" and not node.args and (base.is_tensor or base.symbolic):
        return V.NUMPY_ARRAY  # an array to the code, a tensor to dynamo
    if method in NON_TENSOR_METHODS and not (method == "type" and node.args):
        # `t.type()` names the type; `t.type(torch.float64)` converts, a tensor like the others
        return V.OBJECT if base.is_tensor else V.UNKNOWN
    if (base.is_tensor and method in SPARSE_CONVERSIONS) or (base.is_sparse and method in SPARSE_KEEPING):
        return V.SPARSE
    if base.is_tensor:
        keeps_dtype = (method in SHAPE_METHODS or method in DEVICE_MOVES or method == "to" and moves_only(node)) \
            and base.bool_shaped  # (as in `Evaluation._call_value`)
        return V.BOOL_TENSOR if method in BOOL_METHODS or keeps_dtype or _to_bools(method, node) else V.TENSOR
    return None


def _to_bools(method: str, node: cst.Call) -> bool:
    """`t.to(torch.bool)`, `t.to(device, dtype=torch.bool)`, `t.type(torch.bool)`: a conversion to bools."""
    if method not in ("to", "type"):
        return False
    return any(dotted(a.value) == "torch.bool" for a in node.args
               if a.keyword is None or a.keyword.value in ("dtype", "dst_type"))


def moves_only(node: cst.Call) -> bool:
    """`t.to(x.device)`, `t.to("cuda", non_blocking=True)`: a `to` given a device alone (a string, a
    `.device`, `torch.device(...)`), which keeps the dtype; not one given a dtype or another tensor,
    nor a name that may hold either."""
    def device(arg: cst.Arg) -> bool:
        value = arg.value
        return isinstance(value, (cst.SimpleString, cst.FormattedString)) \
            or type(value) is cst.Attribute and value.attr.value == "device" \
            or type(value) is cst.Call and (dotted(value.func) or "").endswith("device")
    return bool(node.args) and all(device(a) for a in node.args if a.keyword is None or a.keyword.value == "device") \
        and not any(a.keyword is not None and a.keyword.value in ("dtype", "other") or a.star for a in node.args)


def _sparse_operands(name: str, node: cst.Call, value_of) -> list[Val]:
    """The values of the operands of a product or concatenation that is sparse when they all are
    (`torch.sparse.mm(a, b)`, `torch.cat([a, b])`); empty for any other call."""
    if name in SPARSE_PRODUCTS and len(node.args) == 2:
        return [value_of(arg.value) for arg in node.args]
    if name == "torch.cat" and node.args and type(node.args[0].value) in (cst.List, cst.Tuple):
        elements = node.args[0].value.elements
        if elements and not any(type(e) is cst.StarredElement for e in elements):
            return [value_of(e.value) for e in elements]
    return []


def torch_value(name: str, node: cst.Call, value_of) -> Val:
    """What a call of torch's `name` gives: a tensor, unless torch says otherwise (a generator, a
    sparse tensor, a sequence of tensors, a module, a dtype or a predicate's answer). `value_of` is
    the evaluation of an expression (`Evaluation.value`)."""
    if name in TORCH_OBJECTS:
        return TORCH_OBJECTS[name]
    if name in SPARSE_CONSTRUCTORS:
        return V.SPARSE
    operands = _sparse_operands(name, node, value_of)
    if operands and all(v.is_sparse for v in operands):
        return V.SPARSE
    if operands and all(v.is_sparse or v.symbolic for v in operands):  # `mm(selection, conv_matrix(...))`
        return V.sparse_when_all(operands)
    if name.startswith(OPTIMIZER_MODULE):  # an optimizer or a learning-rate schedule, by its class
        return V.Val("object", ref=name)
    if name.startswith("torch.nn.functional.") or name in TENSOR_CLASSES:
        return V.TENSOR  # `nn.Parameter(t)` and `nn.Buffer(t)` are tensors
    if name in TORCH_SEQUENCE or (name == "torch.where" and len(node.args) == 1):
        return V.seq([V.TENSOR])
    if (name.startswith("torch.nn.") or name in TORCH_NON_TENSOR or name.startswith(TORCH_NON_TENSOR_PREFIXES)
            or name.rsplit(".", 1)[-1].lstrip("_").startswith(PREDICATE_PREFIXES)):
        return V.OBJECT
    return V.BOOL_TENSOR if name in BOOL_FUNCS else V.TENSOR


def _operands(node: cst.Call, value_of) -> list[Val]:
    """The values of a pattern-taking call's positional arguments but its pattern strings (einops, einx)."""
    return [value_of(a.value) for a in node.args if a.keyword is None and not a.star
            and type(a.value) not in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)]


def einops_value(name: str, node: cst.Call, value_of) -> Val:
    """`rearrange(x, "b n d -> b d n")`: a tensor as soon as the tensor handed over is (its pattern is
    a string; `einsum` takes several); `pack` adds the packed shapes, `unpack` gives a list of tensors.
    `value_of` is the evaluation of an expression (`Evaluation.value`)."""
    handed = _operands(node, value_of)
    if name != "einops.einsum":
        handed = handed[:1]  # the tensor (or list of them); the rest are the pattern and sizes
    if name == "einops.pack" and handed:
        return V.seq([V.method_result(V.elem(handed[0])), V.OBJECT])
    result = V.method_result(V.join(*handed)) if handed else V.UNKNOWN
    if any(h.is_tensor for h in handed):
        result = V.tensor(known=any(h.known_tensor for h in handed))
    return V.seq([result]) if name in EINOPS_SEQUENCE else result


def logical(left: Val, right: Val) -> Val:
    """`a & b`, `a | b`, `a ^ b` (or `a &= b`): on a mask and what may be one, or on two values the tree decides
    (`keep & valid` of two helpers' masks), a mask as soon as a side turns out a tensor; else arithmetic."""
    if (left.bool_shaped or right.bool_shaped or left.symbolic and right.symbolic) \
            and not (left.is_tensor and not left.bool_shaped) and not (right.is_tensor and not right.bool_shaped):
        return V.op(left, right, comparison=True)
    return V.op(left, right)


def kept_dtype(name: str, node: cst.Call, value_of) -> Val | None:
    """`torch.triu(mask, 1)`, `torch.flatten(mask)`, `F.pad(mask, [0, 1], value=1.0)`: a torch function
    that keeps its first operand's dtype, given a tensor of bools, or one the tree decides (a parameter
    handed a mask: what that turns out to be); None for anything else."""
    if not (name[len("torch."):] in SHAPE_METHODS or name in PADDING) or not node.args or node.args[0].keyword:
        return None
    operand = value_of(node.args[0].value)
    if operand.bool_shaped:
        return V.BOOL_TENSOR
    return V.same_kind(operand, guess=True) if operand.symbolic else None


def updated(operator: cst.BaseAugOp, before: Val, value: Val) -> Val:
    """What `name <op>= value` leaves in a name that held `before`: a mask kept by `&=`, `|=`, `^=` (`logical`)."""
    if type(operator) in (cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign):
        return logical(before, value)
    return V.op(before, value)


def einx_value(name: str, node: cst.Call, value_of) -> Val:
    """`einx.less("n, b -> b n", seq, lens)`, `einx.where("b n, b n d, -> b n d", mask, x, 0.0)`: a tensor as
    soon as an operand handed is one (the pattern is a string), of bools for a comparison or a logical
    operation (`EINX_BOOL`); what the operands turn out to be where the tree decides them."""
    handed = _operands(node, value_of)
    if not any(h.is_tensor for h in handed):
        return V.method_result(V.join(*handed)) if handed else V.UNKNOWN
    if name in EINX_BOOL:
        return V.BOOL_TENSOR if any(h.known_tensor for h in handed) else V.ASSUMED_BOOL_TENSOR
    return V.tensor(known=any(h.known_tensor for h in handed))


def builtin_value(name: str, node: cst.Call, value_of, attribute_of) -> Val | None:
    """What a call of a builtin gives (`len`, `min`, `getattr`, `list`, ...); None for other names."""
    args = [value_of(a.value) for a in node.args if a.keyword is None and not a.star]
    if name == "sum" and args:
        # `sum(losses)`, `sum(l * w for l in losses)`: `start` (0) plus each element
        return V.op(V.elem(args[0]), *args[1:])
    if name in ("int", "float", "round", "len", "abs", "sum", "pow", "divmod", "complex", "hash", "ord"):
        if name in ("abs", "pow") and args:
            return V.op(*args)
        return V.NUMBER
    if name in ("min", "max"):
        if len(args) == 1:
            return V.elem(args[0])
        return V.op(*args) if args else V.UNKNOWN
    if name in ("zip", "enumerate") and args and len(args) == len(node.args) and any(map(V.holds_tensor, args)):
        # what iterating gives: a tuple of one element of each (`list(zip(boxes, scores))`)
        firsts = [V.NUMBER, V.elem(args[0])] if name == "enumerate" else [V.elem(a) for a in args]
        return V.seq([V.seq(firsts)])
    if name in ("bool", "isinstance", "hasattr", "callable", "all", "any", "issubclass"):
        return V.BOOL
    if name == "getattr" and len(args) == len(node.args) and (read := _getattr_read(node)) is not None:
        return V.join(attribute_of(read), *args[2:])  # a default is the other value
    if name == "dict" and node.args and all(a.keyword is not None for a in node.args):  # `dict(loss=l)`
        return V.dict_of([a.keyword.value for a in node.args], [value_of(a.value) for a in node.args])
    if name in ("str", "repr", "format", "type", "getattr", "range", "dict", "set", "frozenset", "id",
                "print", "super", "object", "slice", "iter", "next", "reversed", "sorted", "zip",
                "enumerate", "map", "filter"):
        return V.STR if name in ("str", "repr", "format") else V.OBJECT
    if name in ("list", "tuple"):
        if args and args[0].kind == "seq" and args[0].parts:  # `tuple(t * 2 for t in ts)`
            return args[0]
        return V.Val("seq", parts=(V.elem(args[0]),)) if args and (args[0].is_tensor or args[0].symbolic) \
            else V.Val("seq")
    return None


def numpy_value(name: str, node: cst.Call, value_of) -> Val:
    """A NumPy call under compile: dynamo folds an elementwise one on Python numbers into a constant
    (`np.ceil(h / 7)`), and runs one given a tensor or a sequence, a shape among them
    (`np.prod(x.shape[1:])`), as torch ops: a tensor to it, an array to the code. One that makes an
    array (`np.arange(n)`, `np.zeros(k)`) makes a tensor to it whatever it is handed, and one that takes
    arrays (`np.any`, `np.asarray`) whatever it is handed but a Python number; one that compares into a
    bool (`np.allclose`) gives a Python bool."""
    if name in NUMPY_FACTORIES or sized_draw(name, node):
        return V.NUMPY_MADE
    if name in NUMPY_COMPARED_INTO_BOOL:
        return V.BOOL  # `np.allclose(a, b)`: a Python bool, read where it is made (BL103)
    for arg in node.args:
        value = arg.value
        if type(value) in (cst.List, cst.Tuple) or value_of(value).is_tensor or _whole_shape(value):
            return V.NUMPY_ARRAY
    if name in NUMPY_TAKES_ARRAYS and node.args and node.args[0].keyword is None \
            and value_of(node.args[0].value).kind not in ("number", "bool", "str", "param"):
        # `np.prod(shift_count)`, `np.any(valid)` of what the code does not show a Python number: a function that
        # takes arrays makes one even of a shape's int (`np.any(h)` breaks; a parameter handed straight in is
        # what its callers pass, decided below)
        return V.NUMPY_ARRAY
    # `np.any(~row_mask)` of what the tree decides (a parameter, a call's result): an array, a tensor to dynamo,
    # where one turns out a tensor or a sequence, or a shape for a function that takes arrays (`np.asarray`,
    # `np.any`); a constant dynamo folds where all are Python numbers (`np.ceil(h / 7)`); unknown where the
    # tree knows nothing of them (`Values.resolve`)
    decided = tuple(dict.fromkeys(v for arg in node.args if arg.keyword is None
                                  and (v := value_of(arg.value)).symbolic))
    if not decided:
        return V.UNKNOWN
    found = Val("op", name=V.NUMPY_TAKING_ARRAYS if name in NUMPY_TAKES_ARRAYS else V.NUMPY_ELEMENTWISE, parts=decided)
    return V.UNKNOWN if found.depth() > V.MAX_DEPTH else found  # too deep to carry, as every value is


def sized_draw(name: str, node: cst.Call) -> bool:
    """`np.random.uniform(0, 1, 2)`, `np.random.rand(3)`: a draw of `numpy.random` handed a size, which
    `torch._numpy` traces into an array of them (`NUMPY_SIZED_DRAWS`); not one without a size (`size=None`
    is none), which gives a Python number."""
    if name not in NUMPY_SIZED_DRAWS:
        return False
    position = NUMPY_SIZED_DRAWS[name]
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if position is None:
        return bool(positional)
    size = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "size"),
                positional[position].value if len(positional) > position else None)
    return size is not None and not (type(size) is cst.Name and size.value == "None")


def _getattr_read(node: cst.Call) -> cst.Attribute | None:
    """`getattr(self, "scale")` (a default or not) as the attribute it reads, `self.scale`."""
    if not 2 <= len(node.args) <= 3 or type(name := node.args[1].value) is not cst.SimpleString:
        return None
    text = name.evaluated_value
    return cst.Attribute(value=node.args[0].value, attr=cst.Name(text)) \
        if isinstance(text, str) and text.isidentifier() else None


def _whole_shape(node: cst.BaseExpression) -> bool:
    """`x.shape`, `x.shape[1:]`, `x.size()`: a shape, not one of its elements."""
    if type(node) is cst.Subscript and all(type(el.slice) is cst.Slice for el in node.slice):
        node = node.value
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    return (type(node) is cst.Call and not node.args and type(node.func) is cst.Attribute
            and node.func.attr.value == "size")


def kept_value(ctx, value: cst.BaseExpression, params: dict[str, cst.Param]) -> Val | None:
    """What a method stores in an attribute where the file tells it and nothing else has: a conditional expression
    of which both sides are told (`either_value`), or an array NumPy makes or reduces into (`self.hop =
    np.prod(rates)`, a NumPy scalar, which dynamo takes for a tensor); None where it cannot tell."""
    if type(value) is cst.IfExp:
        return either_value(ctx, value, params)
    name = (ctx.qualify(value.func) or "") if type(value) is cst.Call else ""
    if not name.startswith("numpy.") or name.startswith(NUMPY_NOT_ARRAYS):
        return None
    made = numpy_value(name, value, lambda arg: ctx.literal_value(arg) or V.UNKNOWN)
    return made if made.is_tensor else None


def either_value(ctx, value: cst.IfExp, params: dict[str, cst.Param]) -> Val | None:
    """What a conditional expression stored in an attribute holds where the file tells both sides: a parameter
    by its annotation, a torch object made (`torch.Generator()`), a literal; None where it cannot tell one."""
    sides: list[Val] = []
    for side in (value.body, value.orelse):
        if type(side) is cst.Name and side.value in params:  # (its annotation: the other side covers `None`)
            annotation = params[side.value].annotation
            held = ctx.annotation_value(annotation.annotation) if annotation is not None else None
            held = None if held is UNREADABLE else held
        elif type(side) is cst.Call:
            held = TORCH_OBJECTS.get(ctx.qualify(unseeded(side.func)) or "")
        else:
            held = ctx.literal_value(side)
        if held is None:
            return None
        sides.append(held)
    return V.join(*sides)
