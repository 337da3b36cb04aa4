"""Evaluation: an expression to its abstract value (`values.Val`), from literals, names, attributes,
calls (torch's API, tensor methods, builtins, whose plain rules `call_values.py` holds; this file's
functions and methods: symbolic where the tree decides), subscripts, operators and comprehensions.
Asked by rules (`ctx.value(node)`, `ctx.tensor_requirement(node)`), by the bindings and by the summary.
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .call_values import (
    builtin_value, einops_value, einx_value, kept_dtype, logical, moves_only, numpy_value, tensor_method_value,
    torch_value
)
from .literals import integer
from .instances import built_classes, instance_calls, own_methods
from .object_calls import object_method_value
from .syntax import call_arguments, dotted, name_pattern, self_call, string_index
from .values import Val
from .vocabulary import (
    _LITERAL_KINDS, _NAME_CONSTANTS, BOOL_METHODS, CASTS, DEVICE_MOVES, EINOPS_SEQUENCE, EINOPS_TENSOR, FILLED,
    NON_TENSOR_ATTRS, NUMPY_ARRAY_TRICKS, NUMPY_NOT_ARRAYS, NUMPY_TRICK_NAMES, RECEIVER_KIND_METHODS,
    RESULT_FIELDS, SHAPE_METHODS, SPARSE_CLASS_MODULES, SPARSE_KEEPING_ATTRS, TENSOR_ATTRS, TENSOR_ONLY_METHODS
)


# `x, w = ctx.saved_tensors` in a `torch.autograd.Function`: tensors, how many not known
SAVED_TENSORS = V.Val("seq", parts=(V.ASSUMED_TENSOR,))


class Evaluation:
    """An expression to its abstract value.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether the expression is known, in this file alone, to hold a tensor."""
        return self.value(node).is_tensor

    def tensor_requirement(self, node: cst.BaseExpression) -> Val | None:
        """None when the expression is not known to hold a tensor; else its value: concrete
        (a tensor) or symbolic (a tensor if the tree level resolves it to one)."""
        value = self.value(node)
        if value.is_tensor or value.symbolic:
            return value
        return None

    def literal_value(self, node: cst.BaseExpression) -> Val | None:
        # Dispatch on the exact node type: libcst's node classes are final, and isinstance against
        # their abstract bases goes through ABCMeta, a hot spot of the walk.
        kind = type(node)
        literal = _LITERAL_KINDS.get(kind)
        if literal is not None:
            return literal
        if kind is cst.Name:
            return _NAME_CONSTANTS.get(node.value)
        if kind is cst.UnaryOperation and type(node.operator) is cst.Minus:
            return self.literal_value(node.expression)
        if kind is cst.Tuple or kind is cst.List:
            parts = [self.literal_value(el.value) for el in node.elements]
            return V.seq([p or V.UNKNOWN for p in parts])
        return None

    def value(self, node: cst.BaseExpression) -> Val:
        """What an expression holds, in terms of this file's facts (symbolic where the tree decides)."""
        try:
            return self._value(node)
        except RecursionError:
            return V.UNKNOWN

    def _value(self, node: cst.BaseExpression) -> Val:
        kind = type(node)
        if kind is cst.Name:
            literal = _NAME_CONSTANTS.get(node.value)
            if literal is not None:
                return literal
            scope = self._scopes[-1] if self._scopes else None
            if scope is not None and node.value in scope.values:
                return scope.values[node.value]
            return self.globals.get(node.value, V.UNKNOWN)
        if kind is cst.Attribute:
            return self._attribute_value(node)
        if kind is cst.NamedExpr:  # `(m := x.max()) > 0`: what it binds
            return self._value(node.value)
        if kind is cst.Call:
            return self._call_value(node)
        literal = self.literal_value(node) if kind is not cst.Tuple and kind is not cst.List else None
        if literal is not None:
            return literal
        if kind is cst.Subscript:
            return _subscript_value(self, node)
        if type(node) is cst.BinaryOperation:
            return _binary_value(self, node)
        if type(node) is cst.UnaryOperation:
            inner = self.value(node.expression)
            if type(node.operator) is cst.Not:
                return V.op(inner, comparison=True)
            if type(node.operator) is cst.BitInvert and inner.bool_shaped:
                return V.op(inner, comparison=True)
            if type(node.operator) is cst.BitInvert and inner.symbolic:
                return V.same_kind(inner)  # `~mask` of a mask the tree decides: of bools exactly when it is
            return V.op(inner)
        if type(node) is cst.Comparison:
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in node.comparisons):
                return V.BOOL
            operands = [self.value(node.left), *(self.value(c.comparator) for c in node.comparisons)]
            # a tensor never equals a str or None (a `None` a loop rebinds holds it the first time round only)
            if any(v.kind in ("str", "none") and v != V.CARRIED_NONE for v in operands):
                return V.BOOL
            return V.op(*operands, comparison=True)
        if type(node) is cst.BooleanOperation:
            # Every operand but the last is tested for truth, and the result is one of them:
            # for a test, it holds a tensor as soon as one operand does. The right operand runs
            # only where the left one is true (`and`) or false (`or`); never, under compile, after
            # `not is_compiling() and` or `is_compiling() or`, whose left operand is then the result.
            if self.compile_value(node.left) is (type(node.operator) is not cst.And):
                return V.BOOL
            self._narrow(node.left, type(node.operator) is cst.And)
            try:
                right = self.value(node.right)
            finally:
                self._unnarrow()
            return V.op(self.value(node.left), right, comparison=True)
        if type(node) is cst.IfExp:
            return V.join(self.value(node.body), self.value(node.orelse))
        if type(node) in (cst.Tuple, cst.List):
            star = next((i for i, el in enumerate(node.elements) if type(el) is cst.StarredElement), None)
            if star is not None:  # `(target, *tensors)`: the elements before the star are known
                return V.seq([self.value(el.value) for el in node.elements[:star]], open_end=True)
            return V.seq([self.value(el.value) for el in node.elements])
        if type(node) is cst.Dict:
            keys, vals = [], []
            for el in node.elements:
                if type(el) is not cst.DictElement or type(el.key) is not cst.SimpleString:
                    return V.Val("dict")
                keys.append(el.key.evaluated_value)
                vals.append(self.value(el.value))
            return V.dict_of(keys, vals)
        if type(node) in (cst.ListComp, cst.GeneratorExp):
            element = self._comprehension_element(node)
            if V.holds_tensor(element):  # (a generator: what iterating it gives)
                return V.seq([element])
        if type(node) in (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp, cst.Set, cst.Lambda):
            return V.Val("seq") if type(node) is cst.ListComp else V.OBJECT
        return V.UNKNOWN

    def _comprehension_element(self, node: cst.ListComp | cst.GeneratorExp) -> Val:
        """What each element of `[e for t in it]` holds: `e` with `t` bound to an element of `it`, for
        the moment, as the walk binds it inside the comprehension (plain-name targets only)."""
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            if not _plain_target(comp.target):
                return V.UNKNOWN
            comp = comp.inner_for_in
        if not self._scopes:
            return V.UNKNOWN
        self._enter_comprehension(node)
        try:
            return self.value(node.elt)
        finally:
            self._leave_comprehension()

    def _attribute_value(self, node: cst.Attribute) -> Val:
        attr = node.attr.value
        if attr == "shape":
            return V.SIZE
        if attr in NON_TENSOR_ATTRS:
            return V.BOOL if attr in ("is_cuda", "requires_grad", "is_leaf", "training") else V.OBJECT
        self_attr = self._self_attr(node)
        cls = self.class_info()
        if self_attr is not None and self._scopes and (narrowed := self._scopes[-1].values.get(f"self.{self_attr}")):
            return narrowed  # inside `if isinstance(self.value, list):` (narrowing.py)
        if self_attr is not None and cls is not None:
            if self_attr in cls.sparse_attrs:
                return V.SPARSE
            if self_attr in cls.tensor_attrs:
                return V.TENSOR
            if self_attr in cls.submodules:
                return V.Val("object", ref=cls.submodules[self_attr])
            if self_attr in cls.callables:  # functions; or what a call returned, which the tree decides
                returned = V.returned_by(cls.callables[self_attr])
                if len(cls.callables[self_attr]) == 1 and self_attr in cls.returned_calls:
                    return cls.returned_calls[self_attr]  # that one call, with what it passed
                return V.join(*returned) if returned else V.OBJECT
            if self_attr in cls.attr_values:
                return cls.attr_values[self_attr]
            if self_attr in cls.properties:  # what the getter returns (or an override's, in a subclass)
                return V.ret("property", self_attr, cls.qualname)
            if any(not b.startswith("torch.") for b in cls.bases):
                # set by a base class of the tree (its `__init__`, a property of it): the tree decides
                return V.attribute(V.Val("object", ref=cls.qualname), self_attr)
            return V.UNKNOWN
        if attr == "saved_tensors":
            return SAVED_TENSORS
        base = self.value(node.value)
        if attr in RESULT_FIELDS and (field := _result_field(base)) is not None:
            return field
        if attr in TENSOR_ATTRS:
            if attr in SPARSE_KEEPING_ATTRS and (base.is_sparse or base.symbolic):  # `left_interp_t.mT`
                return V.SPARSE if base.is_sparse else V.sparse_when_all([base])
            return V.TENSOR if base.is_tensor else (V.op(base) if base.symbolic else V.UNKNOWN)
        if not base.is_tensor and (base.kind == "dict" or base.symbolic or (base.kind == "object" and base.ref)):
            return V.attribute(base, attr)  # `out.boxes` of a record (records.py), `self.sched.timesteps`
        qual = self.qualify(node)
        if qual is not None and qual.startswith("torch.") and not qual.startswith("torch.nn."):
            return V.OBJECT  # torch.float16, torch.device, ...
        return V.UNKNOWN

    def _call_value(self, node: cst.Call) -> Val:
        func = node.func
        name = self.qualify(func)
        if name in CASTS and len(node.args) == 2:
            return _cast_value(self, node)
        if name is not None and name.startswith("torch."):
            return _torch_call_value(self, name, node)
        if name is not None and name.startswith("numpy.") and not name.startswith(NUMPY_NOT_ARRAYS):
            return numpy_value(name, node, self.value)
        if name is not None and (record := self.record_value(name, node)) is not None:
            return record
        if name in EINOPS_TENSOR or name in EINOPS_SEQUENCE or name == "einops.pack":
            return einops_value(name, node, self.value)
        if name is not None and name.startswith("einx.") and name.count(".") == 1:
            return einx_value(name, node, self.value)
        if type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].bound:
            # `closure = sf.closure` then `closure(x)`: what the bound method returns
            cls = self.class_info()
            return V.join(*(V.ret(kind, target, cls.qualname if cls else None)
                            for kind, target in self._scopes[-1].bound[func.value]))
        if type(func) is cst.Name and self._scopes and (returned := self._scopes[-1].nested_returns.get(func.value)):
            return V.join(*returned)  # `pos(x)` of a function nested in this one: what its returns give
        if type(func) is cst.Name and func.value not in self.aliases:
            if func.value == "getattr" and node.args and self.qualify(node.args[0].value) in SPARSE_CLASS_MODULES:
                return V.SPARSE_CLASS  # `cls = getattr(torch.sparse, type_name)`
            if func.value == "getattr" and len(node.args) == 2 and self._self_attr(node) is None \
                    and type(node.args[0].value) is cst.Name and node.args[0].value.value == "self" \
                    and (cls := self.class_info()) is not None and (pattern := name_pattern(node.args[1].value)) \
                    in cls.tensor_attrs and pattern not in cls.attr_values:
                return V.TENSOR  # `getattr(self, f"indices_{s}")` of buffers registered as `f"indices_{s}"` only
            if self.value(func) == V.SPARSE_CLASS:
                return V.SPARSE  # `cls(indices, values, size)`
            builtin = builtin_value(func.value, node, self.value, self._attribute_value)
            if builtin is not None:
                return builtin
        if type(func) is cst.Attribute:
            method = func.attr.value
            receiver = func.value
            cls = self.class_info()
            built = built_classes(self._scopes[-1].made if self._scopes else None, self.built_from, receiver)
            if built and own_methods(self.summary.classes, built, method):  # `solver.t(sigma)`, not `x.t()`
                return instance_calls(built, method, cls)
            base = self.value(receiver)
            known = tensor_method_value(method, base, node)
            if known is not None:
                return known
            if base.kind == "dict" and base.parts and method in ("values", "items") and not node.args:
                # `for name, loss in losses.items():`: each value the dict holds (keys are strings)
                held = V.join(*base.parts)
                return V.seq([held if method == "values" else V.seq([V.STR, held])])
            keeps = method in SHAPE_METHODS or method in DEVICE_MOVES or method == "to" and moves_only(node)
            keeps_dtype = keeps and base.bool_shaped
            if base.symbolic and base.kind not in ("op", "cmp") and keeps:
                # `valid(x).flatten()`, `mask.to(x.device)`: what the receiver holds, a tensor of bools if it is one
                return V.same_kind(base, guess=method in TENSOR_ONLY_METHODS)
            if base.symbolic and method in RECEIVER_KIND_METHODS:
                # a tensor method on a value the tree decides: a tensor if the receiver is one
                result = V.method_result(base, comparison=method in BOOL_METHODS or keeps_dtype,
                                         guess=method in TENSOR_ONLY_METHODS)
                if base.kind == "ret" and base.ref == "paramcall" and method in TENSOR_ONLY_METHODS:
                    # on what a function the code was handed returned (`norm(y).abs()`): a tensor
                    # assumed where the tree cannot tell what that function gives
                    return V.join(result, V.tensor(method in BOOL_METHODS, known=False))
                return result
            if self.is_module_ref(func):
                return _module_call(self, func)
            if base.kind == "unknown" and method in TENSOR_ONLY_METHODS and _guessable(self, receiver):
                # a guess from the method's name alone: assumed, never known
                return V.guessed_tensor(method in BOOL_METHODS)
            return object_method_value(self, node, method, built, name)
        if type(func) is cst.Subscript and self.is_module_ref(func):
            return V.TENSOR
        if type(func) is cst.Call and (returned := self.returned_by(func)) is not None:
            return _factory_call_value(self, node, returned)
        if type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].modules:
            return V.TENSOR
        cls = self.class_info()
        if (method := self_call(func, cls and cls.methods)) is not None:
            # `scores, boxes = self(x)`: what the class's forward (or `__call__`) returns
            return V.ret("self", method, cls.qualname)
        attr = self._self_attr(func)
        if attr is None and type(func) is cst.Name and self._scopes:
            attr = self._scopes[-1].held.get(func.value)
        if attr is not None and cls is not None:
            return V.ret("selfattr", attr, cls.qualname)
        if (param := self._parameter(func)) is not None:  # `fun(x)`, a function the callers hand over
            handed = V.ret("paramcall", f"{self.function.qualname}#{param}:", cls.qualname if cls else None)
            return V.with_arguments(handed, call_arguments(node, self.value))
        if name is not None and not self._is_local(dotted(func) or name):  # the name as written: `m = valid(x)`
            # in module `m` leaves `valid(x)` (qualified `m.valid`) a call of the module's function
            return V.with_arguments(V.ret("name", name, cls.qualname if cls else None), call_arguments(node, self.value))
        return V.UNKNOWN

    def is_bool_tensor(self, node: cst.BaseExpression) -> bool:
        return self.value(node).is_bool_tensor


def _module_call(ctx: Evaluation, func: cst.BaseExpression) -> Val:
    """`self.head(x)`: what the submodule's `forward` returns where the tree's class tells more than
    that it is a tensor (a mask, a tuple, a record); a tensor otherwise, as for torch's modules."""
    attr, cls = ctx._self_attr(func), ctx.class_info()
    if attr is None or cls is None or cls.submodules.get(attr, "torch.").startswith("torch."):
        return V.TENSOR
    return V.ret("module", attr, cls.qualname)


def _guessable(ctx: Evaluation, receiver: cst.BaseExpression) -> bool:
    """Whether a method only tensors have, called on `receiver` of unknown value, tells that it is
    one: a name that is no module, class or function of the file (nor `self`); a field of what a
    module returned, taken for a tensor (`out = self.encoder(x)`, then `out.logits.mean()`: the
    module gave a record); or the result of a function the code was handed (`norm(y).abs()`,
    `norm` a parameter)."""
    kind = type(receiver)
    if kind is cst.Name:
        return ctx.aliases.get(receiver.value, "") == "" and receiver.value not in ("self", "cls")
    if kind is cst.Attribute:
        return ctx.value(receiver.value).is_tensor
    return kind is cst.Call and type(receiver.func) is cst.Name and ctx._is_local(receiver.func.value)


def _cast_value(ctx: Evaluation, node: cst.Call) -> Val:
    """`cast(torch.Tensor, p(step))`: what the code declares the value to be; where a string or the
    annotation says nothing, the value itself."""
    first, second = node.args
    if first.keyword or first.star or second.keyword or second.star:
        return V.UNKNOWN
    declared = ctx.annotation_value(first.value) if type(first.value) is not cst.SimpleString else V.UNKNOWN
    return declared if declared.kind != "unknown" else ctx.value(second.value)


def _factory_call_value(ctx: Evaluation, node: cst.Call, returned: str) -> Val:
    """`schedule()(step)`: what the function the tree's factory returns gives (reach resolves it)."""
    cls = ctx.class_info()
    return V.with_arguments(V.ret("name", returned, cls.qualname if cls else None), call_arguments(node, ctx.value))


def _subscript_value(ctx: Evaluation, node: cst.Subscript) -> Val:
    """What `base[index]` holds: an element of a tensor, of a sequence or a dict (a key the function,
    or the class, stored under), a slice of a shape."""
    if (type(node.value) is cst.Attribute and node.value.attr.value in NUMPY_TRICK_NAMES
            and ctx.qualify(node.value) in NUMPY_ARRAY_TRICKS):
        return V.NUMPY_MADE  # `np.ogrid[-m:m + 1, -n:n + 1]`, `np.r_[a, 0, b]`: arrays NumPy makes
    base = ctx.value(node.value)
    if base.from_numpy:
        return base  # an element or a part of a NumPy array: an array (no torch.Tensor, whatever dynamo makes of it)
    if base.is_tensor:  # (indexing keeps the dtype: `xc[i]` of a mask is one, of image `i`)
        return V.BOOL_TENSOR if base.is_bool_tensor else V.TENSOR
    if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        index, key = node.slice[0].slice.value, string_index(node)
        if key is not None and type(node.value) is cst.Name and ctx._scopes \
                and (node.value.value, key) in ctx._scopes[-1].items:
            # `state["exp_avg"]` where the function stored a value under that key
            return ctx._scopes[-1].items[(node.value.value, key)]
        if type(index) is cst.SimpleString and base.kind in ("unknown", "dict", "elem", "param", "ret", "join"):
            got = V.item(base, key) if base.kind != "unknown" else V.UNKNOWN
            if (got.kind == "unknown" and base.kind in ("unknown", "dict") or got.symbolic) \
                    and (kept := ctx.kept_item(node)) is not None and (cls := ctx.class_info()) is not None:
                # `state["mask"]` on `self.state[p]`, a key of `self.cache = {}` that no literal holds:
                # what the class's methods store there (the tree decides); where the tree may tell what
                # the attribute itself holds there (a base class of the tree sets it), that first
                if got.kind == "elem":
                    return V.Val("elem", name=got.name, owner=f"{cls.qualname}|{kept}", parts=got.parts)
                return V.attribute(V.Val("object", ref=cls.qualname), kept)
            if base.kind != "unknown":
                return got
        number = integer(index)
        if base.kind == "dict" and (number is None or base.name != V.RECORD):
            return V.item(base, None)
        if number is not None:
            return V.elem(base, number)
        return V.elem(base)
    if base.kind == "size":
        return V.SIZE  # a slice of a shape
    if base.kind == "seq" and base.parts and len(node.slice) == 1:
        # `dims[1:-1]`: a list or tuple of the same elements, which of them and how many not known
        return V.Val("seq", parts=(V.join(*base.parts),))
    if len(node.slice) > 1 and any(type(e.slice) is cst.Slice for e in node.slice) and (
            base.symbolic or base.kind == "unknown"):
        # `pred[:, 4:]`: only an array takes a slice beside another index; where nothing else tells,
        # a tensor is guessed, as of a method only tensors have (`pred.amax(1)`)
        return V.same_kind(base, guess=True)
    return V.elem(base) if base.symbolic else V.UNKNOWN


def _makes_bools(ctx: Evaluation, name: str, node: cst.Call) -> bool:
    """`torch.zeros(n, dtype=torch.bool)`, `torch.ones_like(x, dtype=bool)`, `torch.full((n,), True)`:
    a torch call that makes a tensor of bools."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return ctx.qualify(arg.value) == "torch.bool" or type(arg.value) is cst.Name \
                and arg.value.value == "bool" and "bool" not in ctx.aliases and not ctx._is_local("bool")
    at = FILLED.get(name)
    fill = next((a.value for i, a in enumerate(node.args) if a.keyword is None and i == at
                 or a.keyword is not None and a.keyword.value == "fill_value"), None) if at is not None else None
    return type(fill) is cst.Name and fill.value in ("True", "False")


def _binary_value(ctx: Evaluation, node: cst.BinaryOperation) -> Val:
    """`a + b`, `m & n`, ...: arithmetic (a tensor as soon as one side is), a logical operator on masks (a
    mask), or two lists or tuples joined."""
    left, right = ctx.value(node.left), ctx.value(node.right)
    if type(node.operator) is cst.Add and left.kind == "seq" == right.kind:
        return _concatenated(left, right)
    if type(node.operator) in LOGICAL_OPERATORS:
        return logical(left, right)
    if type(node.operator) in _ARRAY_ONLY and _sliced(node.left) and _sliced(node.right) \
            and not (left.is_tensor or right.is_tensor):
        # `ptr[1:] - ptr[:-1]`: arithmetic of two slices, which lists, tuples and strings do not have: an
        # array or a tensor, a tensor to dynamo either way
        return V.tensor(known=False)
    return V.op(left, right)


LOGICAL_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor)
# the operators of arithmetic that Python's sequences lack (`+` joins them, `*` repeats them, and `%`
# formats a string with a tuple)
_ARRAY_ONLY = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply)


def _sliced(node: cst.BaseExpression) -> bool:
    """`ptr[1:]`, `x[:, :-1]`: a subscript with a slice among its elements."""
    return type(node) is cst.Subscript and any(type(el.slice) is cst.Slice for el in node.slice)


def _concatenated(left: Val, right: Val) -> Val:
    """`[0, dims[-1]] + dims[1:-1]`: a list or tuple of both sides' elements, in order (unknown past the
    left side's where its length is not known)."""
    if left.name == V.OPEN or len(left.parts) + len(right.parts) > V.MAX_PARTS:
        return V.UNKNOWN
    return V.seq(left.parts + right.parts, open_end=right.name == V.OPEN)


def _torch_call_value(ctx: Evaluation, name: str, node: cst.Call) -> Val:
    """What a call of torch's gives (`torch_value`), of bools where it makes them or keeps an operand's."""
    made = torch_value(name, node, ctx.value)
    if made == V.TENSOR and (kept := kept_dtype(name, node, ctx.value)) is not None:
        return kept
    return V.BOOL_TENSOR if made == V.TENSOR and _makes_bools(ctx, name, node) else made


def _result_field(base: Val) -> Val | None:
    """`.values` or `.indices` of what `torch.max(x, dim)`, `x.topk(k)` or `torch.linalg.eigh` returned:
    a tensor as soon as that is, or holds, one."""
    if base.is_tensor:
        return V.TENSOR
    if base.kind == "seq" and base.parts and all(p.is_tensor or p == base.parts[0] for p in base.parts):
        return base.parts[0] if base.parts[0].symbolic else V.TENSOR
    return None


def _plain_target(node: cst.BaseExpression) -> bool:
    """A comprehension target that binds names only: `t`, `(b, s)`, `i, (b, s)`."""
    if type(node) is cst.Name:
        return True
    return type(node) in (cst.Tuple, cst.List) and all(
        type(el) is cst.Element and _plain_target(el.value) for el in node.elements)
