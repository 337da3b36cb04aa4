"""What a class's methods store in `self`, read before its methods are walked: submodules
(`self.head = Head()`), tensors (`self.w = nn.Parameter(...)`, `register_buffer`), functions held in
attributes, the parameter a constructor keeps (`self.t_eval = t_eval`) and the value each attribute
holds (`self.time = time.to(device)`, or what a local bound once, or a method's return, holds). Asked
by the names layer as it registers a class (`Names.visit_ClassDef`), and by the records layer for
class-level attributes (`_classify_attr`).
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .hierarchy import AUTOGRAD_FUNCTIONS
from .call_values import kept_value
from .methods import MODULE_CONTAINERS
from .passing import either_param, handed_attributes, kept_on_ctx
from .summary import ClassInfo
from .syntax import (added, bindings_of, bound_once, built_by, built_call, built_in, call_arguments, class_like,
                     dotted, iter_statements, literal_elements, name_pattern, named_entries, paired, unseeded)
from .walk import find
from .vocabulary import (FORWARD_HOOKS, LIBRARY_OBJECT_PREFIXES, NOT_MODULES, PROPERTIES,
                         RECEIVER_KIND_METHODS, SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS, TORCH_NON_TENSOR,
                         TORCH_NON_TENSOR_PREFIXES, TORCH_OBJECTS, torchaudio_spectral)


class Attributes:
    """The class pre-pass: what each method stores in `self`.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def scan_class(self, node: cst.ClassDef, info: ClassInfo) -> None:
        """What each method of a class stores in `self` (`_scan_self_attrs`), then what the methods
        hand one another of it (`passing.handed_attributes`)."""
        for stmt in node.body.body:
            if type(stmt) is cst.FunctionDef:
                if any(self.qualify(d.decorator) in PROPERTIES for d in stmt.decorators):
                    info.properties.add(stmt.name.value)
                self._scan_self_attrs(stmt, info)
                if stmt.name.value == "forward" and any(b in AUTOGRAD_FUNCTIONS for b in info.bases):
                    kept_on_ctx(stmt, info)
        if info.submodules or info.callables:
            self.handed_modules[info.qualname] = handed_attributes(node, info, self.aliases)

    def _held_methods(self, value: cst.BaseExpression, info: ClassInfo) -> list[str]:
        """The class's own methods an attribute holds, bound to the instance, as "self:name":
        `self._step_train`, `self._a if c else self._b`, `functools.partial(self._finish, k=2)`. A
        data attribute copied to another (`self.other = self.scale`) holds no method."""
        if type(value) is cst.IfExp:
            body, orelse = self._held_methods(value.body, info), self._held_methods(value.orelse, info)
            return body + orelse if body and orelse else []  # (one side something else: left as it was)
        if type(value) is cst.Call:
            wrapped = self.partial_of(value)
            return self._held_methods(wrapped, info) if wrapped is not None else []
        method = self._self_attr(value)
        return [f"self:{method}"] if method is not None and method in info.methods else []

    def _scan_self_attrs(self, fn: cst.FunctionDef, info: ClassInfo) -> None:
        # `self.flag = flag`, with `flag: bool = False` a parameter of the method: what it declares
        params = {p.name.value: p for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]}
        constructor = fn.name.value == "__init__"
        # a parameter `__init__` rebinds is not kept as it came (other methods keep none: not walked)
        rebound = {t.value for stmt in iter_statements(fn.body) if type(stmt) in (cst.Assign, cst.AugAssign,
                                                                                  cst.AnnAssign)
                   for t in ([x.target for x in stmt.targets] if type(stmt) is cst.Assign else [stmt.target])
                   if type(t) is cst.Name} if constructor else set()
        for stmt in iter_statements(fn.body):
            if type(stmt) in (cst.Assign, cst.AnnAssign):
                targets = [t.target for t in stmt.targets] if type(stmt) is cst.Assign else [stmt.target]
                for target, value in paired(targets, stmt.value):
                    attr = self._self_attr(target)
                    if attr is None or value is None:
                        continue
                    bound = self._bound_once(value.value, fn) \
                        if type(value) is cst.Name and value.value not in params and value.value != "self" else None
                    if bound is not None and bound[1] is None:
                        # `x = torch.zeros(n)`, then `self.buf = x`: as `self.buf = torch.zeros(n)`
                        value, bound = bound[0], None
                    if self._makes_sparse(value):
                        info.sparse_attrs.add(attr)
                    instances = _instances_held(self, value)
                    if (method := self.self_getattr(value)) is not None:
                        info.callables.setdefault(attr, []).append(f"self:{method}")
                    elif methods := self._held_methods(value, info):
                        info.callables.setdefault(attr, []).extend(methods)
                    elif type(value) is cst.Call and (held := self._held_functions(value)):
                        info.callables.setdefault(attr, []).extend(held)  # `self.loss = partial(focal, gamma=2)`
                    elif type(value) is cst.IfExp and all(type(b) is cst.Call and _tensor_maker(
                            self.qualify(unseeded(b.func)) or "") for b in (value.body, value.orelse)):
                        info.tensor_attrs.add(attr)  # `torch.mean(v[k:]) if k < n else torch.tensor(0.0)`
                    elif type(value) is cst.IfExp and all(type(b) is cst.Call or dotted(b) == "None"
                                                          for b in (value.body, value.orelse)):
                        # `nn.LSTM(...) if recurrent else nn.Linear(...)` (or `else None`): a module of either
                        # class; where a branch is something else (a parameter), what it holds is not known
                        for built in (value.body, value.orelse):
                            if type(built) is cst.Call:
                                self._classify_attr(attr, built, info, params, modules_only=True, fn=fn)
                    elif type(value) is cst.Call:
                        self._classify_attr(attr, built_call(value), info, params, fn=fn)  # (`Loss().to(d)`: a Loss)
                        maker = self.qualify(built_call(value).func)
                        if maker is not None and (maker.startswith(LIBRARY_OBJECT_PREFIXES) or (
                                torchaudio_spectral(maker) and self.module.split(".")[0] != "torchaudio")):
                            info.library_objects.setdefault(attr, maker)  # `self.tree = cKDTree(points)`
                        if attr not in info.tensor_attrs and attr not in info.submodules \
                                and (helper := self._helper_call(value, params, f"{info.qualname}.{fn.name.value}")):
                            # `self.sampler = build_sampler(cfg)` of this package: what the function returns
                            info.callables.setdefault(attr, []).append(helper[0])
                            info.returned_calls[attr] = helper[1]
                        if constructor and type(value.func) is cst.Name and value.func.value in params:
                            info.from_params.setdefault(attr, f"{value.func.value}()")
                        elif made := _class_returned(self, value.func, fn):
                            # `rnn_class = get_rnn(cell_type)`, then `self.rnn = rnn_class(...)`: an
                            # instance of each class the function returns, or of those a table it is
                            # handed holds (`get_method(name, methods, method)`, `methods = {...}`)
                            held = info.callables.setdefault(attr, [])
                            held.extend(m for m in [f"{made}()", *_handed_entries(self, value.func, fn)] if m not in held)
                        if (method := self._self_attr(value.func)) in info.methods and method not in info.properties:
                            # `self.criterion = self.init_criterion()`: what it, or an override, returns
                            if (made := f"{info.qualname}.{method}()") not in info.made_by.get(attr, ()):
                                info.made_by.setdefault(attr, []).append(made)
                    elif type(value) is cst.Name and value.value in params:
                        param = params[value.value]
                        declared = self._annotated_class(param)
                        if declared:
                            info.declared.setdefault(attr, declared)
                        if constructor:
                            info.from_params.setdefault(attr, value.value)
                        elif fn.name.value not in ("forward", "__call__"):
                            # a setter (`def set_processor(self, processor): self.processor = processor`)
                            info.from_params.setdefault(attr, f"{fn.name.value}#{value.value}")
                        if param.default is not None and (held := self._held_functions(param.default)):
                            # `def __init__(self, loss_fn=focal_loss)`: what the default names is held
                            # unless a caller hands over something else
                            info.callables.setdefault(attr, []).extend(held)
                    elif held := self._held_functions(value) or self.held_in_literal(value):
                        info.callables.setdefault(attr, []).extend(held)
                    elif instances:
                        # `self.transforms = [Flip(), Crop(p)]`: calling an element (in a loop over them,
                        # `self.ops[name](x)`) runs each class's `__call__`, as a `ModuleList`'s does; the
                        # list keeps its value too (records are read from it)
                        info.callables.setdefault(attr, []).extend(instances)
                    if (side := either_param(value, params)) is not None and (declared := self._annotated_class(side)):
                        info.declared.setdefault(attr, declared)  # `actions if actions is not None else env.make()`
                    if attr not in info.tensor_attrs and attr not in info.submodules \
                            and (attr not in info.callables or instances):
                        literal = self.literal_value(value)
                        if literal is None and type(value) is cst.Name and value.value in params:
                            literal = self._declared_value(params[value.value])
                            if literal is None and constructor and value.value not in rebound:
                                info.kept_params[attr] = value.value  # `self.t_eval = t_eval`
                        elif literal is None:
                            # `self.tableau = EULER`; `self.time = time.to(device)`; `self.time = times`
                            method = f"{info.qualname}.{fn.name.value}"
                            literal = self.module_instance(value) or _from_param(
                                value, params, method) or self._returned_local(value, bound, info, method, params)
                        if literal is None:  # `torch.Generator() if rng is None else rng`, `np.prod(rates)`
                            literal = kept_value(self, value, params)
                        literal = literal or V.UNKNOWN
                        old = info.attr_values.get(attr)
                        info.attr_values[attr] = literal if old is None else V.join(old, literal)
            if type(stmt) is cst.Expr and type(stmt.value) is cst.Call:
                self._registered(stmt.value, info, params, fn)
            if type(stmt) in (cst.Expr, cst.Assign) and type(stmt.value) is cst.Call \
                    and type(stmt.value.func) is cst.Attribute and stmt.value.func.attr.value in FORWARD_HOOKS \
                    and stmt.value.args and not stmt.value.args[0].star:
                # `self.register_forward_pre_hook(self._check)`, `self.inner.register_forward_hook(clip)`
                hook = stmt.value.args[0].value
                method = self._self_attr(hook)
                held = [f"{info.qualname}.{method}"] if method is not None else self._held_functions(hook)
                info.hooks.extend(h for h in held if h not in info.hooks)
            elif type(stmt) is cst.Expr and type(stmt.value) is cst.Call:
                _registered_tensors(self, stmt.value, info)

    def _registered(self, call: cst.Call, info: ClassInfo, params: dict[str, cst.Param], fn: cst.FunctionDef) -> None:
        """A module stored without an assignment: `self.add_module("rnn", nn.LSTM(...))` (or
        `register_module`, `setattr(self, "rnn", ...)`) as `self.rnn = nn.LSTM(...)`; and the modules
        added to a container (`self.blocks.append(Block())`, `self.blocks.extend([...])`)."""
        args = [a.value for a in call.args if not a.keyword and not a.star]
        if self._self_attr(call.func) in ("add_module", "register_module") or (
                type(call.func) is cst.Name and call.func.value == "setattr" and "setattr" not in self.aliases
                and args and type(args[0]) is cst.Name and args[0].value == "self" and (args := args[1:])):
            if len(args) == 2 and type(args[0]) is cst.SimpleString and type(args[1]) is cst.Call \
                    and isinstance(name := args[0].evaluated_value, str) and name.isidentifier():
                self._classify_attr(name, args[1], info, params, modules_only=True, fn=fn)
            return
        if type(call.func) is not cst.Attribute or call.func.attr.value not in ("append", "extend") or len(args) != 1:
            return
        container = self._self_attr(call.func.value)
        if info.submodules.get(container) in MODULE_CONTAINERS:
            self._add_elements(container, added(call, fn.body), info, params, fn=fn)

    def _add_elements(self, attr: str, built: list[cst.Call], info: ClassInfo, params: dict[str, cst.Param],
                      bound: dict[str, list[str]] | None = None, fn: cst.FunctionDef | None = None) -> None:
        """Note the classes a container attribute's elements are built from ("Class()"); `bound`: the
        classes a comprehension's target steps through (`[block() for block in BLOCKS]`)."""
        for call in built:
            func = unseeded(call.func)
            held = (bound or {}).get(func.value) if type(func) is cst.Name else None
            for name in held or self._classes_called(func, info, params, fn):
                if _module_class(name) and f"{name}()" not in info.callables.get(attr, ()):
                    info.callables.setdefault(attr, []).append(f"{name}()")

    def _makes_sparse(self, value: cst.BaseExpression) -> bool:
        """`torch.sparse_coo_tensor(...)`, `x.to_sparse()`: a call that surely gives a sparse tensor."""
        if type(value) is not cst.Call:
            return False
        func = value.func
        return self.qualify(func) in SPARSE_CONSTRUCTORS or (
            type(func) is cst.Attribute and func.attr.value in SPARSE_CONVERSIONS)

    def _bound_once(self, local: str, fn: cst.FunctionDef) -> tuple[cst.BaseExpression, int | None] | None:
        """`bound_once` in the method's body (walked for `:=` only where its source holds one)."""
        return bound_once(fn.body, local, walrus=self.mentions(fn.body, (":=",)))

    def _passed(self, call: cst.Call, params: dict[str, cst.Param],
                method: str) -> tuple[list[V.Val], list[tuple[str, V.Val]]] | None:
        """What a call in a method passes, as far as the pre-pass tells: the method's own parameters
        (which the tree decides), literals, and calls of this package's functions with what they
        pass in turn (`check(cast(k))`); None where a `*` or `**` hides it."""
        def value(node: cst.BaseExpression) -> V.Val:
            if type(node) is cst.Name and node.value in params and node.value not in ("self", "cls"):
                return V.param(method, node.value)
            if type(node) is cst.Call and (helper := self._helper_call(node, params, method)):
                return helper[1]
            return self.literal_value(node) or V.UNKNOWN
        return call_arguments(call, value)

    def _helper_call(self, call: cst.Call, params: dict[str, cst.Param], method: str) -> tuple[str, V.Val] | None:
        """A call of a function of this package, made in `method`: ("pkg.f()", what the call returns,
        with what it passes for the tree to decide); None for any other call."""
        returned = self._returned_by(call)
        if returned is None or returned.split(".")[0] != self.module.split(".")[0]:
            return None
        return returned, V.with_arguments(V.ret("name", returned[:-2], None), self._passed(call, params, method))

    def _call_return(self, value: cst.BaseExpression, info: ClassInfo, method: str = "",
                     params: dict[str, cst.Param] | None = None) -> V.Val | None:
        """What a call of a method of the class (`self._count()`), of a function of this package or
        of a parameter of `method` (`closure(x)`, whatever its callers hand over) returns, which the
        tree decides; None for any other expression."""
        if type(value) is not cst.Call:
            return None
        func = value.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            return V.ret("self", func.attr.value, info.qualname)
        if type(func) is cst.Name and params and func.value in params and method:
            return V.ret("paramcall", f"{method}#{func.value}:", info.qualname)
        name = self.qualify(func) if type(func) in (cst.Name, cst.Attribute) else None
        if not name or name.split(".")[0] != self.module.split(".")[0]:
            return None
        return V.ret("name", name, info.qualname)

    def _returned_local(self, value: cst.BaseExpression, bound: tuple[cst.BaseExpression, int | None] | None,
                        info: ClassInfo, method: str = "", params: dict[str, cst.Param] | None = None) -> V.Val | None:
        """`self.time = self._times()`, or `times, counts = self._count()` then `self.time = times`: what
        that call returns, or its element (`bound`: the local's one binding, from `_bound_once`)."""
        if type(value) is not cst.Name:
            return self._call_return(value, info, method, params)
        if bound is None or bound[1] is None:
            return None
        returned = self._call_return(bound[0], info, method, params)
        return None if returned is None else V.elem(returned, bound[1])

    def _classify_attr(self, attr: str, value: cst.Call, info: ClassInfo, params: dict[str, cst.Param] | None = None,
                       modules_only: bool = False, fn: cst.FunctionDef | None = None) -> None:
        for callee in self._classes_called(unseeded(value.func), info, params or {}, fn):
            self._classify_built(attr, callee, value, info, modules_only)
            if callee in MODULE_CONTAINERS:
                # `nn.ModuleList([Head() for _ in range(n)])`, or of a list the method built first:
                # calling an element (`self.heads[i](x)`, a loop over them) runs each class built in it
                bound = {name: held for arg in value.args for name, held in _comprehended(self, arg.value).items()}
                body = fn.body if fn is not None else None
                self._add_elements(attr, built_in(value, body), info, params or {}, bound, fn)

    def _classes_called(self, func: cst.BaseExpression, info: ClassInfo, params: dict[str, cst.Param],
                        fn: cst.FunctionDef | None = None) -> list[str]:
        """What a call of `func` in a method builds, by name: the class (or function) it names; for a
        parameter of the method (`rnn_layer(...)`, `rnn_layer=nn.LSTM`), or an attribute the constructor
        kept it in first (`self.cell = cell`, then `self.cell(...)`), the class its default names, a
        `functools.partial` of one included: what it builds unless a caller hands over another; each
        class of a table (`RECURRENT[kind](...)`, of the module or written in place); `getattr(nn,
        kind.upper())(...)` where the name folds from the parameters' defaults or from what the file's
        constructions pass (`rnn_type = rnn_type.upper()` in the method `fn` first, applied to each); a
        local of `fn` that each of its bindings sets to a class (`cell = nn.GRU` in one branch, `cell =
        nn.LSTM` in another): each of those."""
        kept = self._self_attr(func)
        param = func.value if type(func) is cst.Name else info.from_params.get(kept) if kept is not None else None
        if param in params:
            default = params[param].default
            if type(default) is cst.Call:
                default = self.partial_of(default)
            return [self.qualify(default)] if type(default) in (cst.Name, cst.Attribute) \
                and dotted(default) != "None" else []
        if type(func) is cst.Subscript:
            return _table_entries(self, func.value)
        if type(func) is cst.Call and type(func.func) is cst.Name and func.func.value == "getattr" \
                and "getattr" not in self.aliases and len(func.args) == 2 and not any(a.star for a in func.args):
            owner, arg = func.args[0].value, func.args[1].value
            names = [name] if (name := _folded_name(arg, params)) is not None else _passed_names(
                self.module_node, info.qualname.rsplit(".", 1)[-1], arg.value) if type(arg) is cst.Name else []
            if type(arg) is cst.Name and fn is not None and (case := _recased(self._bound_once(arg.value, fn), arg)):
                names = [getattr(name, case)() for name in names]
            imported = (dotted(owner) or ".").split(".")[0] in self.aliases
            return [f"{self.qualify(owner)}.{name}" for name in names] if imported else []
        if type(func) is cst.Name and fn is not None and (classes := bindings_of(fn.body, func.value)):
            named = [self.qualify(c) if type(c) in (cst.Name, cst.Attribute) else None for c in classes]
            return list(dict.fromkeys(named)) if all(named) else []
        callee = self.qualify(func)
        return [callee] if callee is not None else []

    def _classify_built(self, attr: str, callee: str, value: cst.Call, info: ClassInfo, modules_only: bool) -> None:
        """Note what `self.<attr> = value` stores, `value` a call of `callee`: a tensor of torch's making,
        or an instance of a module class."""
        if modules_only and not _module_class(callee):
            return
        if _tensor_maker(callee):
            info.tensor_attrs.add(attr)
        elif _module_class(callee) and callee not in self.records:  # (a record: a tuple of values)
            held = info.submodules.setdefault(attr, callee)
            if held != callee:  # assigned different classes on different paths: calls reach each
                info.callables.setdefault(attr, []).append(f"{callee}()")


def _tensor_maker(callee: str) -> bool:
    """Whether a call of `callee` (qualified) makes a tensor: a parameter, a buffer, a torch function."""
    return callee in ("torch.nn.Parameter", "torch.nn.Buffer") or (
        callee.startswith("torch.") and not callee.startswith("torch.nn.") and callee not in TORCH_OBJECTS
        and callee not in TORCH_NON_TENSOR and not callee.startswith(TORCH_NON_TENSOR_PREFIXES))


def _registered_tensors(ctx: Attributes, call: cst.Call, info: ClassInfo) -> None:
    """`self.register_buffer("mean", ...)` (or `register_parameter`): a tensor attribute, a sparse one
    where the call surely makes one. Under a formatted name (`f"indices_{s}"`, `"indices_{}".format(s)`),
    the pattern of the names (`indices_*`), which `getattr(self, f"indices_{s}")` reads back, unless the
    class also `setattr`s names of that pattern, which may then hold something else."""
    args = call.args
    if ctx._self_attr(call.func) in ("register_buffer", "register_parameter") and args:
        if type(args[0].value) is cst.SimpleString:
            info.tensor_attrs.add(args[0].value.evaluated_value)
            if len(args) > 1 and ctx._makes_sparse(args[1].value):
                info.sparse_attrs.add(args[0].value.evaluated_value)
        elif (pattern := name_pattern(args[0].value)) is not None:
            info.tensor_attrs.add(pattern)
    elif type(call.func) is cst.Name and call.func.value == "setattr" and "setattr" not in ctx.aliases \
            and len(args) == 3 and (pattern := name_pattern(args[1].value)) is not None:
        info.attr_values[pattern] = V.UNKNOWN


def _instances_held(ctx: Attributes, value: cst.BaseExpression) -> list[str]:
    """"Class()" for each class a list, tuple or dict literal (or a comprehension) builds its
    elements with: `[Flip(), Crop(p)]`, `{"a": LossA()}`, `[Head() for _ in range(n)]`."""
    if type(value) not in (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp):
        return []
    out: list[str] = []
    bound = _comprehended(ctx, value)
    for built in built_by(value):
        held = bound.get(built.func.value) if type(built.func) is cst.Name else None
        for name in held or [ctx.qualify(built.func)]:
            if name and _module_class(name) and f"{name}()" not in out:
                out.append(f"{name}()")
    return out


def _handed_entries(ctx: Attributes, func: cst.BaseExpression, fn: cst.FunctionDef) -> list[str]:
    """"Class()" for each class or function of a literal table (`methods = {"linear": Linear1D, ...}`, a
    local of `fn` bound once) that the call `func` was bound from is handed: what it may pick and return."""
    bound = ctx._bound_once(func.value, fn) if type(func) is cst.Name else None
    if bound is None or bound[1] is not None or type(bound[0]) is not cst.Call:
        return []
    tables = [ctx._bound_once(arg.value.value, fn) for arg in bound[0].args if type(arg.value) is cst.Name]
    return [f"{held}()" for table in tables if table is not None and table[1] is None
            for held in ctx.held_in_literal(table[0]) if not held.startswith("self:")]


def _class_returned(ctx: Attributes, func: cst.BaseExpression, fn: cst.FunctionDef) -> str | None:
    """`rnn_class`, a local of `fn` bound once to a call of a function of this package
    (`get_rnn(cell_type)`): "pkg.get_rnn()", which stands for what that function returns."""
    if type(func) is not cst.Name:
        return None
    bound = ctx._bound_once(func.value, fn)
    if bound is None or bound[1] is not None or type(bound[0]) is not cst.Call:
        return None
    returned = ctx._returned_by(bound[0])
    return returned if returned is not None and returned.split(".")[0] == ctx.module.split(".")[0] else None


def _comprehended(ctx: Attributes, value: cst.BaseExpression) -> dict[str, list[str]]:
    """The classes a comprehension's target steps through, where it builds an instance of each
    (`[c() for c in CRITERIA]`, `{k: cls() for k, cls in HEADS.items()}`): over a table of the module
    (or its `values()` or `items()`), or a literal list of classes. The target's name -> the classes."""
    if type(value) not in (cst.ListComp, cst.GeneratorExp, cst.DictComp) or value.for_in.inner_for_in is not None:
        return {}
    target, it = value.for_in.target, value.for_in.iter
    if type(it) is cst.Call and type(it.func) is cst.Attribute and not it.args \
            and it.func.attr.value in ("values", "items"):
        if it.func.attr.value == "items":
            target = target.elements[1].value if type(target) is cst.Tuple and len(target.elements) == 2 else None
        it = it.func.value
    held = _table_entries(ctx, it) if type(target) is cst.Name and type(it) is not cst.Dict else []
    return {target.value: held} if held else {}


def _table_entries(ctx: Attributes, table: cst.BaseExpression) -> list[str]:
    """The functions and classes a table holds: a module-level one by its name (`RNNS`), or one
    written in place (`{"lstm": nn.LSTM, "gru": nn.GRU}`)."""
    if type(table) is cst.Name and table.value in ctx.summary.function_tables:
        return list(ctx.summary.function_tables[table.value])
    return named_entries(table, ctx.aliases, ctx.qualify)


def _folded_name(node: cst.BaseExpression, params: dict[str, cst.Param]) -> str | None:
    """The name a string expression gives before any call: a literal, a parameter's literal default,
    and `.upper()`, `.lower()` or `.capitalize()` of those (`getattr(nn, rnn_type.upper())`)."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute and not node.args \
            and node.func.attr.value in ("upper", "lower", "capitalize"):
        inner = _folded_name(node.func.value, params)
        return getattr(inner, node.func.attr.value)() if inner is not None else None
    if type(node) is cst.Name and node.value in params:
        node = params[node.value].default
    text = node.evaluated_value if type(node) is cst.SimpleString else None
    return text if isinstance(text, str) and text.isidentifier() else None


def _recased(bound: tuple[cst.BaseExpression, int | None] | None, name: cst.Name) -> str | None:
    """`rnn_type = rnn_type.upper()` (`lower`, `capitalize`), the one binding of a parameter in its
    method: the method applied to it."""
    if bound is None or bound[1] is not None:
        return None
    value = bound[0]
    if type(value) is cst.Call and not value.args and type(value.func) is cst.Attribute \
            and value.func.attr.value in ("upper", "lower", "capitalize") \
            and type(value.func.value) is cst.Name and value.func.value.value == name.value:
        return value.func.attr.value
    return None


def _passed_names(module: cst.Module | None, cls: str, param: str) -> list[str]:
    """The names the file's constructions of class `cls` (by its name) pass for its constructor's
    parameter `param`, each folded as `_folded_name` folds (a literal, or a parameter of the calling
    function with a literal default: `SingleRNN(rnn_type, ...)` in `def __init__(self, rnn_type="LSTM")`);
    a construction that passes its own parameter along where that does not fold (no default: a class
    nothing in the file builds, as a rule) says nothing, and is left out; one that passes anything else
    that does not fold (`pick()`) leaves the class unknown; none unless one passes a name."""
    init = next((d for c in find(module, cst.ClassDef) if c.name.value == cls for d in c.body.body
                 if type(d) is cst.FunctionDef and d.name.value == "__init__"), None) if module is not None else None
    order = [p.name.value for p in [*init.params.posonly_params, *init.params.params]][1:] if init is not None else []
    if param not in order and (init is None or param not in {p.name.value for p in init.params.kwonly_params}):
        return []
    out: set[str] = set()
    for fn in find(module, cst.FunctionDef):
        params = {p.name.value: p for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]}
        for call in find(fn.body, cst.Call):
            if type(call.func) is not cst.Name or call.func.value != cls or any(a.star for a in call.args):
                continue
            positional = [a.value for a in call.args if a.keyword is None]
            given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == param] or (
                [positional[order.index(param)]] if param in order and order.index(param) < len(positional) else [])
            if not given:
                return []
            if (name := _folded_name(given[0], params)) is not None:
                out.add(name)
            elif type(given[0]) is not cst.Name or given[0].value not in params:
                return []  # a name computed there (`pick()`): which class, the file does not say
    return sorted(out)


def _module_class(name: str) -> bool:
    """Whether a call of `name` may build a module: a class (capitalised), not one known to be none."""
    return name not in NOT_MODULES and class_like(name)


def _from_param(value: cst.BaseExpression, params: dict[str, cst.Param], method: str) -> V.Val | None:
    """`time.to(self.device)`, `x.detach()`, `scores.float()` with the receiver a parameter of the
    method that stores it: a tensor exactly when what the callers pass is one (the tree decides)."""
    if not (type(value) is cst.Call and type(value.func) is cst.Attribute
            and type(value.func.value) is cst.Name and value.func.value.value in params
            and value.func.value.value not in ("self", "cls")):
        return None
    if value.func.attr.value not in RECEIVER_KIND_METHODS:
        return None
    return V.method_result(V.param(method, value.func.value.value))
