"""Evaluation: an expression to its abstract value (`values.Val`), from literals, names, attributes,
calls (torch's API, tensor methods, builtins, this file's functions and methods: symbolic where
the tree decides), subscripts, operators and comprehensions. Asked by rules (`ctx.value(node)`,
`ctx.tensor_requirement(node)`), by the bindings and by the summary.
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .literals import integer
from .syntax import call_arguments, dotted, is_super_call
from .values import Val
from .vocabulary import (
    _LITERAL_KINDS, _NAME_CONSTANTS, BOOL_FUNCS, BOOL_METHODS, NON_TENSOR_ATTRS, NON_TENSOR_METHODS,
    PREDICATE_PREFIXES, RECEIVER_KIND_METHODS, RESULT_FIELDS, RESULT_METHODS, SEQUENCE_METHODS, SHAPE_METHODS,
    OPTIMIZER_MODULE, TENSOR_ATTRS, TENSOR_ONLY_METHODS, TORCH_NON_TENSOR, NUMPY_NOT_ARRAYS, EINOPS_SEQUENCE,
    EINOPS_TENSOR, GENERATORS, SPARSE_CLASS_MODULES, SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS, SPARSE_KEEPING,
    SPARSE_KEEPING_ATTRS, SPARSE_PRODUCTS, TENSOR_CLASSES, TORCH_NON_TENSOR_PREFIXES, TORCH_SEQUENCE
)


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
        if kind is cst.Call:
            return self._call_value(node)
        literal = self.literal_value(node) if kind is not cst.Tuple and kind is not cst.List else None
        if literal is not None:
            return literal
        if kind is cst.Subscript:
            base = self.value(node.value)
            if base.is_tensor:
                return V.TENSOR
            if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
                index = node.slice[0].slice.value
                if type(index) is cst.SimpleString and type(node.value) is cst.Name and self._scopes \
                        and (node.value.value, index.evaluated_value) in self._scopes[-1].items:
                    # `state["exp_avg"]` where the function stored a value under that key
                    return self._scopes[-1].items[(node.value.value, index.evaluated_value)]
                if type(index) is cst.SimpleString and base.kind in ("dict", "elem", "param", "ret", "join"):
                    key = index.evaluated_value
                    return V.item(base, key if isinstance(key, str) else None)
                number = integer(index)
                if base.kind == "dict" and (number is None or base.name != V.RECORD):
                    return V.item(base, None)
                if number is not None:
                    return V.elem(base, number)
                return V.elem(base)
            if base.kind == "size":
                return V.SIZE  # a slice of a shape
            return V.elem(base) if base.symbolic else V.UNKNOWN
        if type(node) is cst.BinaryOperation:
            left, right = self.value(node.left), self.value(node.right)
            logical = type(node.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor)
            if logical and (left.bool_shaped or right.bool_shaped) and not (left.is_tensor and not left.bool_shaped) \
                    and not (right.is_tensor and not right.bool_shaped):
                return V.op(left, right, comparison=True)
            return V.op(left, right)
        if type(node) is cst.UnaryOperation:
            inner = self.value(node.expression)
            if type(node.operator) is cst.Not:
                return V.op(inner, comparison=True)
            if type(node.operator) is cst.BitInvert and inner.bool_shaped:
                return V.op(inner, comparison=True)
            return V.op(inner)
        if type(node) is cst.Comparison:
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in node.comparisons):
                return V.BOOL
            operands = [self.value(node.left), *(self.value(c.comparator) for c in node.comparisons)]
            if any(v.kind in ("str", "none") for v in operands):  # a tensor never equals a str or None
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
            if any(type(el) is cst.StarredElement for el in node.elements):
                return V.Val("seq")
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
        if name is not None and name.startswith("torch."):
            return torch_value(name, node, self.value)
        if name is not None and name.startswith("numpy.") and not name.startswith(NUMPY_NOT_ARRAYS):
            return numpy_value(node, self.value)
        if name is not None and (record := self.record_value(name, node)) is not None:
            return record
        if name in EINOPS_TENSOR or name in EINOPS_SEQUENCE or name == "einops.pack":
            return einops_value(name, node, self.value)
        if type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].bound:
            # `closure = sf.closure` then `closure(x)`: what the bound method returns
            cls = self.class_info()
            return V.join(*(V.ret(kind, target, cls.qualname if cls else None)
                            for kind, target in self._scopes[-1].bound[func.value]))
        if type(func) is cst.Name and func.value not in self.aliases:
            if func.value == "getattr" and node.args and self.qualify(node.args[0].value) in SPARSE_CLASS_MODULES:
                return V.SPARSE_CLASS  # `cls = getattr(torch.sparse, type_name)`
            if self.value(func) == V.SPARSE_CLASS:
                return V.SPARSE  # `cls(indices, values, size)`
            builtin = builtin_value(func.value, node, self.value, self._attribute_value)
            if builtin is not None:
                return builtin
        if type(func) is cst.Attribute:
            method = func.attr.value
            receiver = func.value
            base = self.value(receiver)
            known = tensor_method_value(method, base, node)
            if known is not None:
                return known
            keeps_dtype = method in SHAPE_METHODS and base.bool_shaped
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
                return V.TENSOR
            if base.kind == "unknown" and method in TENSOR_ONLY_METHODS and self._guessable(receiver):
                # a guess from the method's name alone: assumed, never known
                return V.tensor(method in BOOL_METHODS, known=False)
            cls = self.class_info()
            if type(receiver) is cst.Name and receiver.value == "self" and cls is not None:
                return V.ret("self", method, cls.qualname)
            # `sf = Scalar(fun)` then `sf.closure(x)`, or `Scalar(fun).closure(x)`: what the method of the
            # class built returns
            built = (self._scopes[-1].made.get(receiver.value) if type(receiver) is cst.Name else
                     self.built_from(receiver) if type(receiver) is cst.Call else None) if self._scopes else None
            if built:
                return V.join(*(V.ret("instcall", f"{made}:{method}", cls.qualname if cls else None) for made in built))
            if is_super_call(receiver) and cls:
                return V.ret("super", method, cls.qualname)
            inner = self._self_attr(receiver)
            if inner is not None and cls is not None and (inner in cls.submodules or inner in cls.from_params):
                return V.with_arguments(V.ret("attrcall", f"{inner}.{method}", cls.qualname),  # `self.sde.f(t, y)`
                                        call_arguments(node, self.value) if inner not in cls.submodules else None)
            if (param := self._parameter(receiver)) is not None:
                # `sde.f(t, y)` on what the callers hand over: that method's value (reach decides)
                return V.with_arguments(V.ret("paramcall", f"{self.function.qualname}#{param}:{method}",
                                              cls.qualname if cls else None), call_arguments(node, self.value))
            written = dotted(func) or ""
            if name is not None and written.split(".")[0] in self.aliases and not self._is_local(written):
                # `methods.helper(x)` of a module imported by name, `Base.make(x)` of a class
                return V.with_arguments(V.ret("name", name, cls.qualname if cls else None), call_arguments(node, self.value))
            return V.UNKNOWN
        if type(func) is cst.Subscript and self.is_module_ref(func):
            return V.TENSOR
        if type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].modules:
            return V.TENSOR
        cls = self.class_info()
        attr = self._self_attr(func)
        if attr is None and type(func) is cst.Name and self._scopes:
            attr = self._scopes[-1].held.get(func.value)
        if attr is not None and cls is not None:
            return V.ret("selfattr", attr, cls.qualname)
        if (param := self._parameter(func)) is not None:  # `fun(x)`, a function the callers hand over
            handed = V.ret("paramcall", f"{self.function.qualname}#{param}:", cls.qualname if cls else None)
            return V.with_arguments(handed, call_arguments(node, self.value))
        if name is not None and not self._is_local(name):
            return V.with_arguments(V.ret("name", name, cls.qualname if cls else None), call_arguments(node, self.value))
        return V.UNKNOWN

    def _guessable(self, receiver: cst.BaseExpression) -> bool:
        """Whether a method only tensors have, called on `receiver` of unknown value, tells that it is
        one: a name that is no module, class or function of the file (nor `self`); a field of what a
        module returned, taken for a tensor (`out = self.encoder(x)`, then `out.logits.mean()`: the
        module gave a record); or the result of a function the code was handed (`norm(y).abs()`,
        `norm` a parameter)."""
        kind = type(receiver)
        if kind is cst.Name:
            return self.aliases.get(receiver.value, "") == "" and receiver.value not in ("self", "cls")
        if kind is cst.Attribute:
            return self.value(receiver.value).is_tensor
        return kind is cst.Call and type(receiver.func) is cst.Name and self._is_local(receiver.func.value)

    def is_bool_tensor(self, node: cst.BaseExpression) -> bool:
        return self.value(node).is_bool_tensor


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
        keeps_dtype = method in SHAPE_METHODS and base.bool_shaped
        return V.BOOL_TENSOR if method in BOOL_METHODS or keeps_dtype else V.TENSOR
    return None


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
    if name in GENERATORS:
        return V.GENERATOR
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


def einops_value(name: str, node: cst.Call, value_of) -> Val:
    """`rearrange(x, "b n d -> b d n")`: a tensor as soon as the tensor handed over is (its pattern is
    a string; `einsum` takes several); `pack` adds the packed shapes, `unpack` gives a list of tensors.
    `value_of` is the evaluation of an expression (`Evaluation.value`)."""
    handed = [value_of(a.value) for a in node.args if a.keyword is None and not a.star
              and type(a.value) not in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)]
    if name != "einops.einsum":
        handed = handed[:1]  # the tensor (or list of them); the rest are the pattern and sizes
    if name == "einops.pack" and handed:
        return V.seq([V.method_result(V.elem(handed[0])), V.OBJECT])
    result = V.method_result(V.join(*handed)) if handed else V.UNKNOWN
    if any(h.is_tensor for h in handed):
        result = V.tensor(known=any(h.known_tensor for h in handed))
    return V.seq([result]) if name in EINOPS_SEQUENCE else result


def builtin_value(name: str, node: cst.Call, value_of, attribute_of) -> Val | None:
    """What a call of a builtin gives (`len`, `min`, `getattr`, `list`, ...); None for other names."""
    args = [value_of(a.value) for a in node.args if a.keyword is None and not a.star]
    if name in ("int", "float", "round", "len", "abs", "sum", "pow", "divmod", "complex", "hash", "ord"):
        if name in ("abs", "sum", "pow") and args:
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


def numpy_value(node: cst.Call, value_of) -> Val:
    """A NumPy call under compile: dynamo folds one on Python numbers into a constant
    (`np.ceil(h / 7)`), and runs one given a tensor or a sequence, a shape among them
    (`np.prod(x.shape[1:])`), as torch ops: a tensor to it, an array to the code."""
    for arg in node.args:
        value = arg.value
        if type(value) in (cst.List, cst.Tuple) or value_of(value).is_tensor or _whole_shape(value):
            return V.NUMPY_ARRAY
    return V.UNKNOWN


def _result_field(base: Val) -> Val | None:
    """`.values` or `.indices` of what `torch.max(x, dim)`, `x.topk(k)` or `torch.linalg.eigh` returned:
    a tensor as soon as that is, or holds, one."""
    if base.is_tensor:
        return V.TENSOR
    if base.kind == "seq" and base.parts and all(p.is_tensor or p == base.parts[0] for p in base.parts):
        return base.parts[0] if base.parts[0].symbolic else V.TENSOR
    return None


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


def _plain_target(node: cst.BaseExpression) -> bool:
    """A comprehension target that binds names only: `t`, `(b, s)`, `i, (b, s)`."""
    if type(node) is cst.Name:
        return True
    return type(node) in (cst.Tuple, cst.List) and all(
        type(el) is cst.Element and _plain_target(el.value) for el in node.elements)
