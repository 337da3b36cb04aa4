"""BL1xx: a tensor turned into a Python value."""

from __future__ import annotations

import libcst as cst

from ..analysis import values as V
from ..analysis.methods import MODULE_CONTAINERS
from ..analysis.summary import MustBe
from ..analysis.vocabulary import NUMPY_COMPARED_INTO_BOOL
from ..finding import Fix
from ..fixes.checks import check_of_test
from ..fixes.edit import replace, sole_statement, text_of, wrapped
from ..fixes.masks import name_uses
from ..fixes.numbers import SCALED, arange_to_range, math_to_torch, scale_instead
from .base import Rule, register
from ..analysis.walk import find
from .ranks import Ranks, integer_cast
from .scalar_parameters import (COMPARED_INTO_BOOL, READ_TO_CHECK, SCALAR_METHODS, SCALAR_PARAMETERS,
                                SCALAR_SUGGESTIONS, SCALAR_TRACED, SCALE_SUGGESTION, dimension_argument)
from ._util import (CAPTURE_SCALARS, builtin_name, call_of, filled_with_tensor, keyword, maybe_tensor, method_call,
                    positional)

SCALAR_SUGGESTION = (
    "keep the value a tensor (drop the conversion and compute with torch ops); if a Python "
    "number is unavoidable, set `torch._dynamo.config.capture_scalar_outputs = True`"
)


@register
class TensorItem(Rule):
    CODE = "BL101"
    NAME = "tensor-item"
    KIND = "break"
    MESSAGE = "`.item()` copies a tensor value into a Python number"
    SUGGESTION = SCALAR_SUGGESTION
    GB_TYPES = ("GB0124",)

    # Where the number `.item()` gives is needed as a Python value (a conversion, an index, a
    # comparison, a bool test), dropping `.item()` would only move the break: no fix there.
    CONVERSIONS = frozenset({"int", "float", "bool", "complex", "range", "round", "len", "str", "abs"})

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._python_value_depth = 0
        self._operands: dict[int, cst.CSTNode] = {}  # the direct operands of arithmetic with a tensor, by id
        # per function being walked: (candidate index, name) of `name = t.item()` findings whose fix
        # stands only if `name` then only feeds arithmetic
        self._pending: list[list[tuple[int, str, cst.Name]]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._pending.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        for index, name, target in self._pending.pop():
            if not _only_arithmetic(original_node, name, target):
                self.withdraw_fix(index)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.ctx.active():
            # (`_keep_tensor` asks only about `.item()` calls)
            for side in _with_a_tensor(self.ctx, node, lambda side: call_of(side, "item")):
                self._operands[id(side)] = side  # the node is held: its id is never reused

    def _keep_tensor(self, node: cst.Call, receiver: cst.BaseExpression) -> Fix | None:
        """Drop `.item()` where the number only feeds arithmetic: as an operand of arithmetic with a
        tensor (`x * t.item()`), or through a name that is then only an operand (`s = t.item()` ...
        `x + s`). Where it is returned, indexes, is compared or passed on, the number may be needed
        as one: dropping `.item()` would move the break, not remove it."""
        if self._python_value_depth:
            return None
        fix = replace(self.ctx, node, text_of(self.ctx, receiver), "keep the value as a 0-d tensor (drop `.item()`)",
                      safe=False)
        if self._operands.get(id(node)) is node:
            return fix
        small = sole_statement(self.ctx)
        if (type(small) is cst.Assign and small.value is node and len(small.targets) == 1
                and type(small.targets[0].target) is cst.Name and self._pending):
            target = small.targets[0].target
            self._pending[-1].append((len(self.ctx.candidates), target.value, target))
            return fix
        return None

    def _needs_python_value(self, node: cst.Call) -> bool:
        name = builtin_name(self.ctx, node)
        qual = self.ctx.qualify(node.func) or ""
        return name in self.CONVERSIONS or qual.startswith("math.")

    def visit_Call(self, node: cst.Call) -> None:
        if self._needs_python_value(node):
            self._python_value_depth += 1
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] == "item" and not node.args and maybe_tensor(self.ctx, call[0]):
            fix = self._keep_tensor(node, call[0])
            if fix is not None:  # `t` goes on as a tensor: it must be one
                needs = (self.ctx.tensor_requirement(call[0]),)
            else:
                fix, needs = check_of_test(self.ctx, node) or (None, ())
            # with `capture_scalar_outputs` dynamo traces the number; an `if` on it then breaks (BL201)
            self.report(node, f"`{self.ctx.source(node)}` copies a tensor value into a Python number",
                        fix=fix, fix_needs=needs, unless=(CAPTURE_SCALARS,))

    def leave_Call(self, original_node: cst.Call) -> None:
        if self._needs_python_value(original_node):
            self._python_value_depth -= 1

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._python_value_depth += 1

    def leave_Comparison(self, original_node: cst.Comparison) -> None:
        self._python_value_depth -= 1

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._python_value_depth += 1

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        self._python_value_depth -= 1

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        self._python_value_depth += 1

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement) -> None:
        self._python_value_depth -= 1


def _with_a_tensor(ctx, node: cst.BinaryOperation, wanted) -> list[cst.BaseExpression]:
    """The operands of arithmetic that are `wanted` (a test of the node) and whose other operand is a
    tensor (evaluated only for those)."""
    return [side for side, other in ((node.left, node.right), (node.right, node.left))
            if wanted(side) and ctx.tensor_requirement(other) is not None]


def _only_arithmetic(function: cst.FunctionDef, name: str, target: cst.Name) -> bool:
    """Whether every other use of `name` in the function is an operand of arithmetic (and nothing
    else assigns it)."""
    operands, assigned = set(), set()
    for node in find(function, (cst.BinaryOperation, cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        if type(node) is cst.BinaryOperation:
            operands.update((id(node.left), id(node.right)))
        else:  # an assignment's target
            assigned.add(id(node.target))
    return all(use is target or (id(use) not in assigned and id(use) in operands)
               for use in name_uses(function, name))


@register
class TensorToList(Rule):
    CODE = "BL102"
    NAME = "tensor-tolist"
    KIND = "break"
    MESSAGE = "`.tolist()` turns a tensor into Python numbers"
    SUGGESTION = ("keep the data in a tensor and index or iterate it with torch ops; a list of Python "
                  "numbers can only be built outside the compiled region")
    GB_TYPES = ("GB0109", "GB0033")
    CALL_METHODS = frozenset({"tolist"})

    def on_method_call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call and call[1] in self.CALL_METHODS and not node.args and maybe_tensor(self.ctx, call[0]):
            # with `capture_scalar_outputs` dynamo traces the list of an integer tensor (not of a float one)
            self.report(node, f"`{self.ctx.source(node)}` turns a tensor into a list of Python numbers",
                        fix=arange_to_range(self.ctx, node, call[0]),
                        unless=(CAPTURE_SCALARS,) if integer_cast(call[0]) else ())


@register
class TensorScalarCast(Rule):
    CODE = "BL103"
    PRECISION = "medium"
    NAME = "tensor-scalar-cast"
    KIND = "break"
    MESSAGE = ("`float()`, `int()`, `bool()`, `is_nonzero()`, `torch.equal`, `torch.allclose`, `math.*` or a torch "
               "op's number or dimension parameter (`alpha=`, `dim=`) applied to a tensor reads its value")
    SUGGESTION = SCALAR_SUGGESTION + "; for `math.*` use the torch function of the same name"
    # GB0170: `bool(t)` with `capture_scalar_outputs`; GB0059: `range(t)`; GB0208: `int()` of a NumPy array
    GB_TYPES = ("GB0124", "GB0033", "GB0170", "GB0059", "GB0208")
    CASTS = {"float": "float", "int": "long"}  # the cast -> the tensor method that keeps it a tensor

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._fixes: dict[cst.Call, Fix] = {}
        self._ranks = Ranks(ctx)  # per function: names holding a 0-d position or a 1-d vector

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """`x * float(t)`: the number only feeds arithmetic with a tensor, so `t` can stay a tensor."""
        if not self.ctx.active():
            return
        for side in _with_a_tensor(self.ctx, node, self._cast):
            inner = side.args[0].value
            if self.ctx.tensor_requirement(inner) is not None:
                method = self.CASTS[builtin_name(self.ctx, side)]
                self._fixes[side] = replace(self.ctx, side, f"{wrapped(inner, text_of(self.ctx, inner))}.{method}()",
                                            f"keep the value a 0-d tensor (`.{method}()`)", safe=False)

    def _cast(self, side: cst.BaseExpression) -> bool:
        """`float(t)`, `int(t)`, ...: one operand, by position."""
        return type(side) is cst.Call and builtin_name(self.ctx, side) in self.CASTS \
            and len(side.args) == 1 and not side.args[0].keyword and not side.args[0].star

    def _checked(self, node: cst.Call) -> bool:
        """`torch.cov(x)`, `torch.corrcoef(x)`, `x.cov()`: torch reads a value of the data to check the
        number of observations left (probed: a data-dependent operator, with or without
        `capture_scalar_outputs`)."""
        qual = self.ctx.qualify(node.func)
        method = _torch_method(self.ctx, node, READ_TO_CHECK)
        requires = self.ctx.tensor_requirement(method[1]) if method is not None else None
        if qual in READ_TO_CHECK:
            name = qual
        elif method is not None and requires is not None:
            name = method[0]
        else:
            return False
        self.report(node, f"`{self.ctx.source(node)}`: `{name}` reads a value of the data to check it, which "
                          "dynamo cannot trace", "compute it with torch ops that keep tensors: "
                          "`(x - x.mean(-1, keepdim=True)) @ (x - x.mean(-1, keepdim=True)).T / (n - 1)`",
                    requires=requires if qual not in READ_TO_CHECK else None)
        return True

    def _equal(self, node: cst.Call) -> bool:
        """`torch.equal(a, b)`, `torch.allclose(a, b)` or `a.equal(b)`, `a.allclose(b)` of tensors: a
        Python bool read from their values (the tolerances that may follow are not operands)."""
        method = _torch_method(self.ctx, node, COMPARED_INTO_BOOL)
        qual = self.ctx.qualify(node.func)
        if qual in NUMPY_COMPARED_INTO_BOOL:  # NumPy's, run as torch's on whatever they are handed (`np.allclose`)
            self.report(node, f"`{self.ctx.source(node)}` compares into a Python bool: dynamo traces NumPy as torch "
                              "ops and reads the result", "compare and keep an array (`np.isclose(a, b).all()`, "
                              "`(a == b).all()`), and test it outside the compiled region")
            return True
        if method is None and qual not in COMPARED_INTO_BOOL:
            return False
        operands = [a.value for a in positional(node)]
        if qual in COMPARED_INTO_BOOL:
            name, operands = COMPARED_INTO_BOOL[qual], operands[:2]
        elif method is not None and operands and maybe_tensor(self.ctx, method[1]):
            name, operands = COMPARED_INTO_BOOL[method[0]], [method[1], operands[0]]
        else:
            return False
        needs = [n for n in map(self.ctx.tensor_requirement, operands) if n is not None]
        if not needs and qual not in COMPARED_INTO_BOOL:
            return False
        # `torch.equal` and `torch.allclose` raise on anything but tensors: no evidence is needed
        requires = V.op(*needs) if needs and qual not in COMPARED_INTO_BOOL else None
        keep = "(a == b).all()" if name == "equal" else "torch.isclose(a, b).all()"
        self.report(node, f"`{self.ctx.source(node)}` compares two tensors into a Python bool: dynamo reads "
                          "their values", f"compare with torch ops and keep a tensor: `{keep}`, and "
                          "test it with `torch.where` or outside the compiled region", requires=requires)
        return True

    def _is_nonzero(self, node: cst.Call) -> bool:
        """`t.is_nonzero()` or `torch.is_nonzero(t)`: `bool(t)` by another name."""
        method = _torch_method(self.ctx, node, ("torch.is_nonzero",))
        if self.ctx.qualify(node.func) == "torch.is_nonzero" and len(node.args) == 1:
            operand = node.args[0].value
        elif method is not None and not node.args:
            operand = method[1]
        else:
            return False
        requires = self.ctx.tensor_requirement(operand)
        if requires is None:
            return False
        self.report(node, f"`{self.ctx.source(node)}` converts a tensor to a Python bool", requires=requires)
        return True

    def _scalar_argument(self, node: cst.Call) -> bool:
        """`torch.add(a, b, alpha=t)`, `F.leaky_relu(x, t)`: a tensor where a torch op takes a Python
        number (a `Scalar`), which dynamo reads as `.item()` would."""
        qual = self.ctx.qualify(node.func) or ""
        method = _torch_method(self.ctx, node, SCALAR_METHODS)
        if qual in SCALAR_PARAMETERS:
            op, params = qual, SCALAR_PARAMETERS[qual]
        elif method is not None and maybe_tensor(self.ctx, method[1]):
            op, params = method[0], SCALAR_PARAMETERS[method[0]]
        else:
            return False
        args = positional(node)
        for param, position in params.items():
            arg = keyword(node, param) or (args[position] if position is not None and position < len(args) else None)
            requires = self.ctx.tensor_requirement(arg.value) if arg is not None else None
            if requires is None:
                continue
            fix = scale_instead(self.ctx, node, arg, op, method=op != qual)
            self.report(arg.value, f"`{self.ctx.source(arg.value)}` is a tensor passed as `{param}` of "
                                   f"`{op.rsplit('.', 1)[-1]}`, which takes a Python number",
                        SCALE_SUGGESTION if (op, param) in SCALED else SCALAR_SUGGESTIONS.get(op, (
                            "pass a Python number, or write the op with tensor arithmetic (`torch.where(x >= 0, x, "
                            "x * t)` for `leaky_relu`)")), requires=requires,
                        fix=fix, fix_needs=(requires,),
                        unless=(f"{CAPTURE_SCALARS}>=2.13",) if (op, param) in SCALAR_TRACED else ())
            return True
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or self._equal(node) or self._is_nonzero(node) or self._scalar_argument(node) \
                or self._checked(node) or dimension_argument(self, node):
            return
        args = positional(node)
        if not args:
            return
        name = builtin_name(self.ctx, node)
        if name == "range":
            self._range_bound(node, args)
            return
        qual = self.ctx.qualify(node.func)
        if not (name in ("float", "int", "bool", "complex") and len(args) == 1 or (qual or "").startswith("math.")):
            return
        needs = [self.ctx.tensor_requirement(a.value) for a in args]
        needs = [n for n in needs if n is not None]
        if not needs:
            return
        # a tensor among the arguments is enough: op() is a tensor as soon as one part is
        requires = V.op(*needs)
        if name in ("float", "int", "bool", "complex"):
            fix, fix_needs = self._fixes.get(node), (requires,)
            if fix is None and name == "bool":
                fix, fix_needs = check_of_test(self.ctx, node) or (None, ())
            # `float(t)` and `int(t)` are traced with `capture_scalar_outputs`; the truth value is not,
            # nor the cast of a NumPy array
            traced = name in self.CASTS and V.NUMPY_ARRAY not in needs
            self.report(node, f"`{self.ctx.source(node)}` converts a tensor to a Python {name}", requires=requires,
                        fix=fix, fix_needs=fix_needs, unless=(CAPTURE_SCALARS,) if traced else ())
            return
        self.report(node, f"`{self.ctx.source(node)}` passes a tensor to `{qual}`, which needs a "
                          "Python number", requires=requires,
                    fix=math_to_torch(self.ctx, node, qual) if len(args) == 1 else None, fix_needs=(requires,))

    def _range_bound(self, node: cst.Call, args: list[cst.Arg]) -> None:
        """`range(n)` with `n` a tensor: dynamo cannot build a range from a tensor, whose value it
        would have to read (a bound resting on a parameter is left alone, as for slices)."""
        for arg in args:
            value, must_be = _int_bound(self.ctx, arg.value)
            if value is not None:
                self.report(node, f"`{self.ctx.source(arg.value)}` is a tensor used as a `range` bound: `range` "
                                  "needs a Python int", requires=value, must_be=must_be)
                return

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._ranks.enter()

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._ranks.leave()

    def visit_Assign(self, node: cst.Assign) -> None:
        """`i = x.argmax()`: `i` holds a 0-d index tensor until it is assigned again (`order =
        torch.arange(n)`: a 1-d vector)."""
        for target in node.targets:
            if type(target.target) is cst.Name:
                self._ranks.bind(target.target.value, node.value if len(node.targets) == 1 else None)

    def visit_For(self, node: cst.For) -> None:
        """`for i in torch.arange(n):` each `i` is a 0-d tensor."""
        self._ranks.iterate(node.target, node.iter)

    def _comprehension(self, node: cst.BaseComp | cst.DictComp) -> None:
        """`[x[i] for i in torch.arange(n)]`: as a loop's (its element is walked before its `for`)."""
        comp = node.for_in
        while comp is not None:
            self._ranks.iterate(comp.target, comp.iter)
            comp = comp.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """`x[i]` with `i = torch.argmin(y)`: indexing reads a 0-d tensor index as a Python int. So
        does `x[b, i]`, `x[:, i]` or `x[i, j]`, where the other elements are ints, names, `:` or `...`
        (a bounded slice beside it traces from torch 2.14, and `None` does), and so does a store
        (`x[i] = 0.0`)."""
        if not self.ctx.active():
            return
        if len(node.slice) > 1:
            self._zero_d_among(node)
            return
        element = node.slice[0].slice
        if type(element) is not cst.Index or element.star:
            return
        index = element.value
        if not self._ranks.zero_d(index):
            self._module_picked(node, index)
            return
        requires = self.ctx.tensor_requirement(node.value)
        if node in self.ctx.assign_targets and requires is not None:
            self._stored_through(index, requires, "x[i.unsqueeze(0)] = v")
            return
        if requires is None:
            if self.ctx.value(node.value).kind == "seq":
                self.report(index, f"`{self.ctx.source(index)}` is a 0-d tensor used to index a Python list or "
                                   "tuple: indexing reads it as a Python int",
                            "index with a Python int the code keeps beside the tensor, or keep the values "
                            "in a tensor and index that", requires=self.ctx.tensor_requirement(index))
            return
        text = wrapped(index, text_of(self.ctx, index))
        fix = replace(self.ctx, node, f"{text_of(self.ctx, node.value)}[{text}.unsqueeze(0)].squeeze(0)",
                      "index with a 1-element tensor (`i.unsqueeze(0)`), then drop that dimension", safe=False)
        self.report(index, f"`{self.ctx.source(index)}` is a 0-d tensor used as an index: indexing reads it "
                           "as a Python int", "index with a 1-element tensor and drop that dimension: "
                           "`x[i.unsqueeze(0)].squeeze(0)`", fix=fix, requires=requires,
                    fix_needs=(requires, self.ctx.tensor_requirement(index)))

    def _module_picked(self, node: cst.Subscript, index: cst.BaseExpression) -> None:
        """`self.resamplers[k]` with `k = torch.randint(0, n, (1,))`: a `ModuleList` or `Sequential` of
        the class, or a Python list, takes its index as a Python int (`operator.index`), whatever the
        tensor's rank (one of more than one element raises): dynamo reads the value, as `.item()`
        does. Only a tensor the code computes counts, not one a parameter is assumed to be."""
        held = node.value
        cls = self.ctx.class_info()
        modules = cls is not None and type(held) is cst.Attribute and type(held.value) is cst.Name \
            and held.value.value == "self" and cls.submodules.get(held.attr.value) in MODULE_CONTAINERS
        if not modules and self.ctx.value(held).kind != "seq":
            return
        requires = self.ctx.tensor_requirement(index)
        if requires is not None:
            what = "a module of" if modules else "an element of the Python list or tuple"
            self.report(index, f"`{self.ctx.source(index)}` is a tensor used to pick {what} "
                               f"`{self.ctx.source(held)}`: the container reads it as a Python int",
                        "pick with a Python int (draw it with `random.randrange` outside the compiled region, or "
                        "keep the count beside the tensor), or run every module and select the result with "
                        "`torch.where`", requires=requires, must_be="known")

    def _zero_d_among(self, node: cst.Subscript) -> None:
        elements = [e.slice for e in node.slice]
        if any(type(e) is cst.Index and e.star for e in elements):
            return
        zero_d = [type(e) is cst.Index and self._ranks.zero_d(e.value) for e in elements]
        if not any(zero_d) or not all(z or _plain_element(e) for z, e in zip(zero_d, elements)):
            return
        index = elements[zero_d.index(True)].value
        requires = self.ctx.tensor_requirement(node.value)
        if requires is None:
            return
        if node in self.ctx.assign_targets:
            self._stored_through(index, requires, "x[b, i.unsqueeze(0)] = v")
            return
        self.report(index, f"`{self.ctx.source(index)}` is a 0-d tensor used as an index: indexing reads it "
                           "as a Python int", "index with a 1-element tensor and drop that dimension: "
                           "`x[b, i.unsqueeze(0)].squeeze(-1)`", requires=requires)

    def _stored_through(self, index: cst.BaseExpression, requires: V.Val, instead: str) -> None:
        self.report(index, f"`{self.ctx.source(index)}` is a 0-d tensor used as an index to store into a tensor: "
                           f"indexing reads it as a Python int", f"store through a 1-element tensor: `{instead}`",
                    requires=requires)

    def visit_Slice(self, node: cst.Slice) -> None:
        """`x[a:b]` reads `a` and `b` as Python ints: a tensor bound breaks as `int()` does."""
        if not self.ctx.active():
            return
        for bound in (node.lower, node.upper, node.step):
            value, must_be = _int_bound(self.ctx, bound) if bound is not None else (None, "tensor")
            if value is not None:
                self.report(bound, f"`{self.ctx.source(bound)}` is a tensor used as a slice bound: slicing "
                                   "reads it as a Python int", requires=value, unless=(CAPTURE_SCALARS,),
                            must_be=must_be)
                return


def _torch_method(ctx, node: cst.Call, names) -> tuple[str, cst.BaseExpression] | None:
    """(`torch.name`, `x`) for `x.name(...)`, the method form of a torch function among `names`, on
    anything but torch itself (`torch.name(...)` is the function form); else None."""
    call = method_call(node)
    if call is None or f"torch.{call[1]}" not in names or (ctx.qualify(node.func) or "").startswith("torch."):
        return None
    return f"torch.{call[1]}", call[0]


def _plain_element(element: cst.BaseSlice) -> bool:
    """An element of a subscript beside which a 0-d index tensor is read as a Python int: an int, a
    name (a loop's position, a count), `:` or `...`."""
    if type(element) is cst.Slice:
        return element.lower is None and element.upper is None and element.step is None
    value = element.value
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        value = value.expression
    return type(value) in (cst.Integer, cst.Ellipsis) or (type(value) is cst.Name and value.value != "None")


def _int_bound(ctx, node: cst.BaseExpression) -> tuple[V.Val | None, MustBe]:
    """What a slice or `range` bound holds, when it is a tensor (or may turn out one): the value
    the finding requires (None otherwise), and what it must turn out (a "known" tensor, or any). A bound
    passed in as a parameter (`x[:n]`, or `box[1]` of a `box` in `boxes`) is usually an int, and a
    compile root's parameter is only assumed a tensor: such a bound counts only where the tree's
    callers pass a tensor the code shows (`paste(masks, boxes.long())`)."""
    value = ctx.value(node)
    if value.is_tensor:
        return value, "tensor"
    if value.symbolic:
        return value, "known" if _mentions_param(value) else "tensor"
    return None, "tensor"


def _mentions_param(value: V.Val) -> bool:
    """Rests on a parameter with nothing but arithmetic (`n`, `n + 1`), not through a tensor method
    (`x.sum()`), which is evidence of a tensor; nor on one the code fills in with a tensor (`filled_with_tensor`)."""
    if value.kind == "param":
        return True
    if value.name in ("method", "guess", "keep", "keepguess") or value.kind == "ret":  # a call's own arguments are not its value
        return False
    return not filled_with_tensor(value) and any(_mentions_param(p) for p in value.parts)
