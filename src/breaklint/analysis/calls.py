"""The file's part of the call graph: every call made in a function (to a method of `self`, a
submodule, `super()`, a function of this or another module), with the values of its arguments, and
(`compiling.py`) the functions and modules passed to `torch.compile`. Reach (`reach.py`) decides over these.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from .chains import chain_call, typed_attribute
from .compiling import compiled_target, note_compiled
from .methods import MODULE_CONTAINERS, guessable, is_protocol
from .passing import ctx_attribute, module_members
from .summary import GENERATOR_CONSUMERS, CallRef, FunctionInfo
from .syntax import (class_like, container_elements, is_own_class, is_super_call, self_call, self_path,
                     torch_module_class, torch_modules_built)
from .values import Val, join
from .vocabulary import TYPE_TESTS, number_arguments


class Calls:
    """The calls each function makes, for reach.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualify(node.func)
        if name == "map":
            self.note_mapped(node)  # `map(lambda t: ..., xs)`: what its parameters hold (lambdas.py)
        if (target := compiled_target(self, node, name)) is not None:
            note_compiled(self, node, target)
        for number in number_arguments(node, name):  # `range(n)`, `torch.zeros(n, d)`, `x.view(b, -1)`: numbers
            self._note_scalar_use(number)
        # a call of a class of the package (a record's build, which reach reads fields from)
        klass = name if name is not None and "." in name and class_like(name) \
            and name.split(".")[0] == self.module.split(".")[0] else None
        # `@Locked()` builds its object where the function is defined (`@temp_cwd()`'s generator wraps each call)
        if not self.active() or self._decorating and name is not None and class_like(name):
            if klass:
                self._note_build(node, klass, *_argument_values(node, self.value)[:2])
            return
        fn, pos = self.function, self.positions.span(node)
        self.called.add(node.func)
        if name == "len":
            self.note_len(node)  # `len(boxes)` of an object of the tree's classes (operators.py)
        refs = self._call_refs(node.func, name)
        args: list[Val] = []
        kwargs: dict[str, Val] = {}
        passed: dict[str, list[str]] = {}
        star = False
        if refs or klass:
            args, kwargs, star = _argument_values(node, self.value)
        if klass:
            self._note_build(node, klass, args, kwargs)
        if refs:
            passed = _passed(self, node, fn)
        conditions = {text: half for level in self._guards for text, half in level} if refs else {}
        straight = bool(refs) and self.straight_line
        held, held_by = self._held_method(node, refs)
        consumed = _consumed_by(self, node, name, pos, bool(refs))
        calls = [CallRef(kind, target, *pos,
                         args=args or _NONE_PASSED, kwargs=kwargs or _NONE_NAMED, star=star,
                         passed=passed or _NONE_NAMED, conditions=conditions or _NONE_NAMED,
                         straight=straight, held=held, held_by=held_by, consumed=consumed)
                 for kind, target in refs]
        # Functions and bound methods handed to other calls (checkpoint, map, ...) are reached too;
        # what a type test is handed (`isinstance(m, Block)`, `hasattr(self, "fn")`) is not run.
        handed = node.args if name not in TYPE_TESTS else ()
        for arg in handed:
            arg_attr = self._self_attr(arg.value)
            target = None
            if arg_attr is not None:
                target = ("self", arg_attr)
            elif type(arg.value) is cst.Name and arg.value.value in self.aliases:
                target = ("ref", self.aliases[arg.value.value])
            elif type(arg.value) is cst.Name and arg.value.value in self._scopes[-1].bound:
                # `evaluate = sf.evaluate` then `line_search(evaluate, x)`: the method may run there
                calls.extend(CallRef(kind, bound, *pos, star=True)
                             for kind, bound in self._scopes[-1].bound[arg.value.value])
            if target is not None:
                calls.append(CallRef(target[0], target[1], *pos, star=True))
        fn.calls.extend(calls)

    def _held_method(self, node: cst.Call, refs: list) -> tuple[tuple[int, int, int, int] | None, Val | None]:
        """For a call of the tree's functions (`refs`), the span and receiver of the innermost method call
        (`x.add(...)`, on what may be a tensor) in whose arguments it is; `node` joins those calls."""
        span, stack, found = self.positions.span(node), self._method_args, (None, None)
        while stack and stack[-1][1] < span[:2]:  # walked past those arguments (the walk is in source order)
            stack.pop()
        for start, _, outer, receiver in reversed(stack) if refs else ():
            if start <= span[:2]:
                value = self.value(receiver)
                found = (outer, value) if value.is_tensor or value.symbolic else found
                break
        if type(node.func) is cst.Attribute and node.args and not node.func.attr.value.startswith("__"):
            first, last = self.positions.span(node.args[0]), self.positions.span(node.args[-1])
            stack.append((first[:2], last[2:], span, node.func.value))
        return found

    def _call_refs(self, func: cst.BaseExpression, name: str | None) -> list[tuple[str, str]]:
        """The call edges of calling `func` (`name`: what it qualifies to): (kind, target) as `CallRef`
        says."""
        fn = self.function
        refs: list[tuple[str, str]] = []
        if type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].bound:
            return list(self._scopes[-1].bound[func.value])  # `closure = sf.closure` then `closure(x)`
        cls = self.class_info()
        attr = self._self_attr(func)
        if attr is not None:
            held = cls is not None and cls.holds_object(attr)
            refs.append(("selfattr" if held else "self", attr))
        elif (method := self_call(func, cls and cls.methods)) is not None:
            refs.append(("self", method))  # `self(x)`: the class's `__call__`, or a module's `forward`
        elif type(func) is cst.Attribute and is_super_call(func.value):
            refs.append(("super", func.attr.value))
        elif type(func) is cst.Attribute and is_own_class(func.value):
            refs.append(("self", func.attr.value))  # `type(self).count(x)`: a static or class method
        elif type(func) is cst.Attribute and self._self_attr(func.value) is not None:
            refs.append(("attrcall", f"{self._self_attr(func.value)}.{func.attr.value}"))
        elif type(func) is cst.Subscript and self.is_module_ref(func):
            inner = self._self_attr(func.value)
            if inner:
                refs.append(("selfattr", inner))
        elif (either := _either(self, func)) is not None:
            refs.extend(either)
        elif type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].held:
            refs.append(("selfattr", self._scopes[-1].held[func.value]))
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and self._scopes \
                and func.value.value in self._scopes[-1].held:
            # `control = self.control` then `control.adapt(y)`: `self.control.adapt(y)`
            refs.append(("attrcall", f"{self._scopes[-1].held[func.value.value]}.{func.attr.value}"))
        elif type(func) is cst.Name and self._scopes and self._scopes[-1].functions.get(func.value):
            refs.extend(_held_ref(f) for f in self._scopes[-1].functions[func.value])
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and self._scopes \
                and (held := [f for f in self._scopes[-1].functions.get(func.value.value, ())
                              if not f.startswith("self:") and not f.endswith(")")]):
            # `func = Solve` then `func.apply(x)`: the same name of each class or function it holds
            refs.extend(("name", f"{f}.{func.attr.value}") for f in held)
        elif type(func) is cst.Subscript and (inner := self._self_attr(func.value)) is not None \
                and cls is not None and inner in cls.callables:
            refs.append(("selfattr", inner))  # `self.loss_map[name](...)`: each method or function it holds
        elif type(func) is cst.Subscript and type(func.value) is cst.Name and self._scopes \
                and self._scopes[-1].functions.get(func.value.value):
            refs.extend(_held_ref(f) for f in self._scopes[-1].functions[func.value.value])  # `loss_map[name](...)`
        elif type(func) is cst.Name and self._scopes and func.value in self._scopes[-1].made:
            # `matcher = Matcher(cost)` then `matcher(x)`: its `__call__` (a module's `forward`) runs
            refs.extend(("instcall", f"{made}:") for made in self._scopes[-1].made[func.value])
        elif type(func) is cst.Call and (built := self.built_from(func)):
            refs.extend(("instcall", f"{made}:") for made in built)  # `Loss(weight)(x, y)`
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and self._scopes \
                and func.value.value in self._scopes[-1].made:
            refs.extend(("instcall", f"{made}:{func.attr.value}") for made in self._scopes[-1].made[func.value.value])
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and self._scopes \
                and func.value.value in self._scopes[-1].typed:
            refs.append(("typedcall", f"{self._scopes[-1].typed[func.value.value]}:{func.attr.value}"))
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and self._scopes \
                and (returned := self.returned_held(func.value.value)):
            # `bm = make_noise(shape)` then `bm.sample(t)`: the method of what the call returned
            refs.extend(("retcall", f"{held}:{func.attr.value}") for held in returned)
        elif type(func) is cst.Attribute and (kept := ctx_attribute(self, func.value)) is not None:
            refs.append(("attrcall", f"{kept}.{func.attr.value}"))  # `block.backward_pass(...)` over `ctx.blocks`
        elif (param := _parameter_held(self, func.value if type(func) is cst.Attribute else func)) is not None:
            # `sde.f(t, y)`, `fn(x)` on a parameter, or `block.step(x)` on an element of one: what the callers hand over
            refs.append(("paramcall", f"{param}:{func.attr.value if type(func) is cst.Attribute else ''}"))
        elif (method := self.self_getattr(func)) is not None:
            refs.append(("self", method))  # `getattr(self, "name")(...)`; a "prefix*" for each match
        elif type(func) is cst.Attribute and type(func.value) is cst.Call \
                and (built := self.built_from(func.value)):
            # `Euler(dt).integrate(y)`: the constructor runs (its own call) and then the method
            refs.extend(("instcall", f"{made}:{func.attr.value}") for made in built)
        elif type(func) is cst.Attribute and (returned := self.returned_by(func.value)) is not None:
            refs.append(("retcall", f"{returned}:{func.attr.value}"))  # `make_noise(shape).sample(t)`
        elif type(func) is cst.Subscript and (held := self._held_functions(func)):
            refs.extend(("name", h) for h in held)  # `TABLE[key](...)`: each function or class of the table
        elif type(func) is cst.Attribute and type(func.value) is cst.Subscript \
                and (held := self._held_functions(func.value)):
            # `SOLVERS[method].valid_callbacks()`: that method of each class of the table
            refs.extend(("name", f"{h}.{func.attr.value}") for h in held)
        elif name is not None:
            if name.split(".")[0] in self.summary.instances:  # `helper.method(...)`, a module-level object
                name = f"{self.module}.{name}"
            refs.append(("name", name))
        elif type(func) is cst.Attribute and (is_protocol(func.attr.value) or guessable(func.attr.value)
                                              and _deep_self_attribute(func.value)):
            # `op._solve(rhs)` on an object nothing here names; `self.model.head.predict(x)`
            refs.append(("duck", func.attr.value))
        return refs + chain_call(func, cls is not None, self.typed_class)

    def bound_method(self, value: cst.BaseExpression) -> list[tuple[str, str]]:
        """What calling a local bound to `value` runs, where `value` is a method of an object the
        function knows (`closure = sf.closure` on an instance built here, `step = self.step`,
        `f = self.solver.step`): the edges the call `value(...)` would have; else []."""
        if type(value) is not cst.Attribute or self._self_attr(value.value) is None \
                and type(value.value) is not cst.Name:
            return []
        if type(value.value) is cst.Name and value.value.value == "self":
            cls = self.class_info()
            if cls is None or value.attr.value not in cls.methods:
                return []  # `x = self.weight`: a value, not a method
        refs = self._call_refs(value, self.qualify(value))
        return [r for r in refs if r[0] != "name"]  # a module's function is followed by name already

    def _note_build(self, node: cst.Call, name: str, args: list[Val], kwargs: dict[str, Val]) -> None:
        """A call of a class of the package, anywhere in the file (a module-level table of records
        too): what it passes that is a tensor or that the tree decides, by keyword or position (up to
        a `*args`, past which nothing is noted)."""
        passed = self.summary.builds.get(name)
        unpacked = next((i for i, arg in enumerate(node.args) if arg.star == "*"), len(node.args))
        noted = {arg.keyword.value for arg in node.args[:unpacked] if arg.keyword is not None}
        for key, value in [*((f"#{i}", v) for i, v in enumerate(args)), *kwargs.items()]:
            if not key.startswith("#") and key not in noted:
                continue
            if not (value.is_tensor or value.symbolic or (value.kind in ("seq", "dict") and value.parts)):
                continue
            if passed is None:
                passed = self.summary.builds[name] = {}
            old = passed.get(key)
            passed[key] = value if old is None or old == value else join(old, value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        """`with Timer():`, `with timer:` of an instance of the tree's class: its `__enter__` and
        `__exit__` run under compile."""
        if not self.active():
            return
        item = node.item
        refs: list[tuple[str, str]] = []
        if type(item) is cst.Call and (built := self.built_from(item)):
            refs = [("instcall", f"{made}:{method}") for made in built for method in ("__enter__", "__exit__")]
        elif type(item) is cst.Call and (returned := self._returned_by(item)) is not None:
            refs = [("retcall", f"{returned}:{method}") for method in ("__enter__", "__exit__")]
        elif type(item) is cst.Name and self._scopes and item.value in self._scopes[-1].made:
            refs = [("instcall", f"{made}:{method}") for made in self._scopes[-1].made[item.value]
                    for method in ("__enter__", "__exit__")]
        elif type(item) is cst.Name and self._scopes and (returned := self.returned_held(item.value)):
            refs = [("retcall", f"{held}:{method}") for held in returned for method in ("__enter__", "__exit__")]
        elif (attr := self._self_attr(item)) is not None:
            refs = [("attrcall", f"{attr}.{method}") for method in ("__enter__", "__exit__")]
        if not refs:
            return
        pos = self.positions.span(item)
        self.function.calls.extend(CallRef(kind, target, *pos) for kind, target in refs)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.active():
            return
        # `self.scale`: a property of the class (or of a subclass) runs its getter under compile
        if type(node.value) is cst.Name and node.value.value == "self":
            reads = self.function.reads
            if node.attr.value not in reads:
                reads.append(node.attr.value)
                self.function.read_spans.append(self.positions.span(node))
            if node in self.assign_targets:  # `self.scale = s`: a property's setter, where the class has one
                self.function.calls.append(CallRef("setter", node.attr.value, *self.positions.span(node)))
        elif node not in self.called and node not in self.assign_targets:
            _note_object_read(self, node)

    def handed(self, value: cst.BaseExpression) -> list[str]:
        """The tree's functions and classes an argument hands over (`CallRef.passed`): "Class()" for an instance
        built in the argument or earlier in the function (`rpn = RPN(...)`, then `super().__init__(backbone, rpn)`);
        "@function#param" for a parameter (`self` too) and "%Class#attr" for an attribute of the instance (reach
        resolves these); else the functions and classes it names, or "Class():method" of an instance built here."""
        if type(value) not in (cst.Call, cst.Name, cst.Attribute, cst.IfExp):
            return []  # (a literal, arithmetic, a subscript: what none of the forms below is)
        if type(value) is cst.IfExp:
            return _built_here(self, value)
        if type(value) is cst.Call:
            # else `make_tau(variant)`: "pkg.make_tau()", what it returns (a function it defines, an instance)
            returned = self.returned_by(value)
            return _built_here(self, value) or module_members(self, value) or ([returned] if returned else [])
        fn = self.function
        if (param := self._parameter(value)) is not None or (  # what the callers hand over; `self`: its class's
                type(value) is cst.Name and fn.cls and not fn.is_static and fn.params[:1] == [param := value.value]):
            return [f"@{fn.qualname}#{param}"]
        if (attr := self._self_attr(value)) is not None and self.function.cls is not None:
            return [f"%{self.function.cls}#{attr}"]  # what the instance's attribute holds (reach)
        if type(value) is cst.Name and self._scopes:
            scope = self._scopes[-1]
            if value.value in scope.made:
                return [f"{made}()" for made in scope.made[value.value]]
            if value.value in scope.held and self.function.cls is not None:  # `solver = self.solver`
                return [f"%{self.function.cls}#{scope.held[value.value]}"]
            if value.value in scope.functions:
                return list(scope.functions[value.value]) or self._built_methods(value)
            if elements := _elements(self, value):
                return elements  # `layers = nn.ModuleList([...])`, then `super().__init__(layers)`
        if type(value) in (cst.Name, cst.Attribute):
            qual = self.qualify(value) or ""
            if torch_module_class(qual):
                return [qual]  # a torch module class (`rnn_layer=nn.LSTM`): what the constructor builds
            # else `closure = sf.closure` of an instance built here: "Class():method" (reach checks the method)
            return self._held_functions(value) or self._built_methods(value)
        return []

    def _built_methods(self, value: cst.BaseExpression) -> list[str]:
        """"Class():method" for a bound method of an instance built in this function, handed over as
        it is (`sf.closure`, or a local bound to it): what calling it runs is that method."""
        if type(value) is cst.Name and self._scopes:
            refs = self._scopes[-1].bound.get(value.value, [])
        elif type(value) is cst.Attribute and type(value.value) is cst.Name and self._scopes \
                and value.value.value in self._scopes[-1].made:  # (the one receiver an "instcall" edge has)
            refs = self.bound_method(value)
        else:
            return []
        out: list[str] = []
        for kind, target in refs:
            made, _, method = target.rpartition(":")
            if kind == "instcall" and made and method and f"{made}():{method}" not in out:
                out.append(f"{made}():{method}")
        return out

    def _parameter(self, node: cst.BaseExpression) -> str | None:
        """The parameter a bare name is, while it still holds what the caller passed (unannotated,
        not rebound)."""
        if type(node) is not cst.Name or not self._scopes:
            return None
        fn = self.function
        held = self._scopes[-1].values.get(node.value)
        return node.value if held is not None and held.kind == "param" and held.ref == fn.qualname else None


def _parameter_held(ctx: Calls, node: cst.BaseExpression) -> str | None:
    """"function#parameter" for a bare name that holds what the callers passed for a parameter, or an
    element of it (a loop's variable over it, or over a slice of it: `for block in blocks[::-1]`, a
    container's elements being what it holds to reach); the parameter may be a sibling method's
    (`ctx.blocks` in an autograd Function's `backward` holds what `forward` was handed)."""
    if type(node) is not cst.Name or not ctx._scopes:
        return None
    fn = ctx.function
    held, name = ctx._scopes[-1].values.get(node.value), node.value
    while held is not None and held.kind == "elem" and len(held.parts) == 1 \
            and (held.name == "" or held.name.lstrip("-").isdigit()):
        held = held.parts[0]  # (an element, not an attribute `.layers` or a key `['layers']` of it)
        name = held.name
    if held is None or held.kind != "param":
        return None
    if held.ref == fn.qualname:
        return f"{fn.qualname}#{name}"
    return f"{held.ref}#{held.name}" if fn.cls and held.ref.rpartition(".")[0] == fn.cls else None


def _passed(ctx: Calls, node: cst.Call, fn: FunctionInfo) -> dict[str, list[str]]:
    """What each argument of `node` hands over (`CallRef.passed`), by keyword or position; "**" for the
    caller's own `**kwargs` handed on (`Layer(dim, **kwargs)`): what its callers hand over by keyword."""
    passed: dict[str, list[str]] = {}
    position, after_star = 0, False
    for arg in node.args:
        if arg.star:
            after_star = True
            if arg.star == "**" and type(arg.value) is cst.Name and fn.var_keywords == arg.value.value:
                passed["**"] = [f"@{fn.qualname}#**"]
            continue
        key = arg.keyword.value if arg.keyword is not None else None if after_star else str(position)
        position += arg.keyword is None and not after_star
        if key is not None and (handed := ctx.handed(arg.value)):
            passed[key] = handed
    return passed


def _deep_self_attribute(node: cst.BaseExpression) -> bool:
    """`self.model.head`: an attribute of an attribute (or deeper) of `self`."""
    return len(self_path(node)) >= 2


def _consumed_by(ctx: Calls, node: cst.Call, name: str | None,
                 span: tuple[int, int, int, int], edges: bool) -> tuple[int, int, int, int] | None:
    """The span of the innermost call consuming a generator expression whose element (or condition) holds
    `node`: `sum`, `any`, `all`, or a call with edges (reach keeps those into the tree) handed it; `node` joins
    them when it is one. The generator's outermost iterable runs first, in the caller: not in it."""
    stack, start = ctx._consumers, span[:2]
    while stack and stack[-1][1] < start:  # walked past that generator (the walk is in source order)
        stack.pop()
    found = next((outer for first, last, iter_first, iter_last, outer in reversed(stack)
                  if first <= start <= last and not iter_first <= start <= iter_last), None)
    builtin = name in GENERATOR_CONSUMERS
    for arg in node.args[:1] if builtin else node.args if edges else ():
        if type(arg.value) is cst.GeneratorExp and not arg.star and not (builtin and arg.keyword):
            whole, iterable = ctx.positions.span(arg.value), ctx.positions.span(arg.value.for_in.iter)
            stack.append((whole[:2], whole[2:], iterable[:2], iterable[2:], span))
    return found


def _either(ctx: Calls, func: cst.BaseExpression) -> list[tuple[str, str]] | None:
    """The call edges of calling a local that holds one of several things (`Scope.either`), or a
    method of it: each parameter's (what the callers hand over decides) and each attribute's."""
    local = func.value if type(func) is cst.Attribute else func
    if type(local) is not cst.Name or not ctx._scopes or local.value not in ctx._scopes[-1].either:
        return None
    called = func.attr.value if type(func) is cst.Attribute else ""
    cls = ctx.class_info()
    refs = []
    scope = ctx._scopes[-1]
    for kind, name in scope.either[local.value]:
        if kind == "param":
            refs.append(("paramcall", f"{ctx.function.qualname}#{name}:{called}"))
            if called and name == local.value and name in scope.typed:
                # `if vocab is None: vocab = load()` of `vocab: Vocab | None`: the class declared too
                refs.append(("typedcall", f"{scope.typed[name]}:{called}"))
        elif called:
            refs.append(("attrcall", f"{name}.{called}"))
        else:
            refs.append(("selfattr" if cls is not None and cls.holds_object(name) else "self", name))
    return refs


def _note_object_read(ctx: Calls, node: cst.Attribute) -> None:
    """`dist.mean` on an object the function knows (a local built here or from a factory, a
    parameter, `self.helper`, an attribute of a parameter annotated with a class, `traj.states`): a
    "propread" edge, which reach follows where the attribute is a property of what the object turns out
    to be (its getter runs under compile)."""
    value = node.value
    if type(value) is cst.Name:
        scope = ctx._scopes[-1]
        name = value.value
        if not (name in scope.made or name in scope.typed or name in scope.held
                or ctx.returned_held(name) or ctx._parameter(value) is not None):
            return
    elif ctx._self_attr(value) is None and not typed_attribute(ctx, value):
        return
    attr = node.attr.value
    if attr in TENSOR_ATTRIBUTES or attr.startswith("__") and attr.endswith("__"):
        return  # what every tensor has (`x.shape`), or Python's own (`fn.__name__`): no getter of the tree
    fn = ctx.function
    pos = ctx.positions.span(node)
    for kind, target in ctx._call_refs(node, None):
        if kind not in OBJECT_CALLS:
            continue
        ref = f"{kind}|{target}"
        if (fn.qualname, ref) not in ctx.object_reads:  # the first read of it in the function stands for all
            ctx.object_reads.add((fn.qualname, ref))
            fn.calls.append(CallRef("propread", ref, *pos))


# attributes every tensor has: read on a parameter or an annotated value, they are the tensor's own
TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "T", "mT", "H", "mH", "data", "grad",
                               "requires_grad", "is_cuda", "is_sparse", "layout", "real", "imag", "grad_fn",
                               "is_leaf"})


# what a call that passes nothing (or names nothing, hands nothing over, sits under no condition)
# keeps: one shared empty list and dict, which nothing changes (an empty one per edge cost a tenth of
# the edges' memory)
_NONE_PASSED: list = []
_NONE_NAMED: dict = {}

# the edges to a method of an object (not of `self`, nor a module's function): what a read of an
# attribute of such an object runs where that attribute is a property
OBJECT_CALLS = frozenset({"instcall", "typedcall", "retcall", "paramcall", "attrcall"})


def _argument_values(node: cst.Call,
                     value: Callable[[cst.BaseExpression], Val]) -> tuple[list[Val], dict[str, Val], bool]:
    """What a call passes, as `value` tells each argument: the positional arguments before any
    `*args`, the keyword ones, and whether a `*args` or `**kwargs` was there."""
    args: list[Val] = []
    kwargs: dict[str, Val] = {}
    star = False
    for arg in node.args:
        if arg.star:
            star = True
        elif arg.keyword is not None:
            kwargs[arg.keyword.value] = value(arg.value)
        elif not star:
            args.append(value(arg.value))
    return args, kwargs, star


def _held_ref(held: str) -> tuple[str, str]:
    """The call edge to what a local holds: a method of the instance ("self:name") or a function."""
    return ("self", held[5:]) if held.startswith("self:") else ("name", held)


def _built_here(ctx: Calls, value: cst.Call | cst.IfExp) -> list[str]:
    """"Class()" for what an argument builds: the tree's class, `torch.nn`'s, a module container's elements."""
    return [f"{m}()" for m in ctx.built_from(value) or torch_modules_built(value, ctx.qualify)] + _elements(ctx, value)


def _elements(ctx: Calls, value: cst.BaseExpression) -> list[str]:
    """"Class()" for each class a module container built in an argument (or bound to a local handed) holds
    (`super().__init__(nn.ModuleList([Layer() ...]))`): a loop over what keeps it runs their methods."""
    scope = ctx._scopes[-1] if ctx._scopes else None
    if type(value) is cst.Name and (scope is None or (held := scope.values.get(value.value)) is None
                                    or held.kind != "object"):
        return []  # (a local's one binding is looked up only where the local holds an object)
    return [f"{made}()" for built in container_elements(value, scope and scope.body, MODULE_CONTAINERS, ctx.qualify)
            for made in ctx.built_from(built) or torch_modules_built(built, ctx.qualify)]
