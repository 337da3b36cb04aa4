"""Functions as the walk enters and leaves them: the function's scope (what each local name holds),
its parameters as the summary records them (annotated, defaulted, optional), what it returns or
yields, the names its own imports bind, and whether the code being walked is traced at all
(`ctx.active()`: inside a function, not in a disabled one, not in a branch compile skips). A function
nested in the walked one shares its scope, its parameters bound to what the enclosing function's
calls of it pass; lambdas are in lambdas.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from . import values as V
from .hierarchy import AUTOGRAD_FUNCTIONS
from .methods import MODULE_CONTAINERS
from .summary import ClassInfo, FunctionInfo, hide, put_back
from .syntax import class_like, decorator_callee, dotted, is_stub, is_super_call, method_name, type_checking
from .values import Val
from .walk import find
from .vocabulary import (CHECKPOINTS, COMPILE, COMPILER_FACTORIES, DISABLE, OPERATOR_MAKERS,
                         PROPERTIES, PYDANTIC_VALIDATORS)

KNOWN_DECORATORS = COMPILE | COMPILER_FACTORIES | DISABLE | PROPERTIES | PYDANTIC_VALIDATORS | OPERATOR_MAKERS


@dataclass
class Scope:
    info: FunctionInfo
    values: dict[str, Val] = field(default_factory=dict)  # local name -> what it holds
    modules: set[str] = field(default_factory=set)
    loggers: set[str] = field(default_factory=set)
    returns: list[Val] = field(default_factory=list)
    is_property: bool = False
    generator: bool = False
    held: dict[str, str] = field(default_factory=dict)  # local name -> the `self.<attr>` module it holds
    # local name -> the classes (or module-level tables of classes) it was built from: `solver =
    # SOLVERS[method](...)` then `solver.integrate(t)` runs `integrate` of each
    made: dict[str, list[str]] = field(default_factory=dict)
    # local name -> the functions any of its assignments named: `fn = splines.quadratic` in one
    # branch, `fn = splines.cubic` in the other, then `fn(x)` runs either
    functions: dict[str, list[str]] = field(default_factory=dict)
    # parameter -> the class its annotation names (`sde: BaseSDE`): `sde.f(t, y)` runs that class's
    # `f` or an override in a subclass
    typed: dict[str, str] = field(default_factory=dict)
    # local name -> the call edges of the method it was bound to (`closure = sf.closure`, `step =
    # self.step`): calling the local runs that method
    bound: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # local name -> where what it holds may come from, where that is a choice (`semiring = semiring or
    # self.semiring`, or a parameter bound again under an `if`): ("param", parameter) for what the
    # callers pass, ("attr", attribute) for `self.<attribute>`; calling it, or a method of it, runs
    # what any of them holds
    either: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # local name -> the tuple literal it was bound to (`vector = (np.ndarray, torch.Tensor)`), which
    # an isinstance test may name
    tuples: dict[str, cst.Tuple] = field(default_factory=dict)
    # local name -> the type test it holds (`is_packed = isinstance(input, PackedSequence)`), with what the
    # name tested held then: `if is_packed:` narrows that name while it still holds it
    tests: dict[str, tuple[cst.Call, Val | None]] = field(default_factory=dict)
    # (local, key) -> what the function stored under that string key (`state["step"] = torch.zeros(())`),
    # joined over its stores: a read of the key gives it (an optimizer's state, a cache)
    items: dict[tuple[str, str], Val] = field(default_factory=dict)
    # local name -> the attribute of `self` it holds ("cache": `d = self.cache`) or holds an element of
    # ("state[]": `state = self.state[p]`): a store under a string key is the class's (`Names.kept_item`)
    keyed: dict[str, str] = field(default_factory=dict)
    # the module's meaning of each name a function-level import rebinds (None: it had none), put
    # back when the function ends
    shadowed: dict[str, str | None] = field(default_factory=dict)
    body: cst.BaseSuite | None = None  # the function's statements (where its nested functions are called)
    # per nested function being walked: what its parameters hid of the function's names (None: nothing)
    hidden: list[dict[str, Val | None]] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)  # the names of the nested functions being walked
    # a nested function -> what its `return`s give (`def pos(p): return torch.ge(p, 0.5)`, then `pos(x)`)
    nested_returns: dict[str, list[Val]] = field(default_factory=dict)


class Scopes:
    """Functions and their scopes: the semantic model's bindings half.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    @property
    def function(self) -> FunctionInfo | None:
        return self._scopes[0].info if self._scopes else None

    @property
    def in_loop(self) -> bool:
        return self._loop_depth > 0

    def active(self) -> bool:
        """Inside a function body that compile would trace, were the function reached."""
        return bool(self._scopes) and self._dead_depth == 0 and self._disabled_depth == 0

    def enclosing_active(self) -> bool:
        """`active()` in the function around the nested `def` just entered, whatever its decorators say."""
        return len(self._scopes) > 1 and self._dead_depth == 0 and self._disabled_depth == self._def_disabled[-1]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [self.qualify(decorator_callee(d)) for d in node.decorators]
        disabled = any(d in DISABLE for d in decorators)
        self._def_disabled.append(disabled)
        self._disabled_depth += disabled
        if self._scopes:
            # A nested function is traced with its parent: share the parent's scope; its parameters
            # hold what the parent's calls of it pass, while it is walked
            scope = self._scopes[-1]
            self._scopes.append(scope)
            scope.hidden.append(_bind_nested_params(self, scope, node))
            scope.nested.append(node.name.value)
            scope.nested_returns[node.name.value] = []
            self._qualified = (None, None)  # names changed meaning
            return
        cls = self._classes[-1] if self._classes else None
        qual = f"{self._prefix()}{method_name(node) if cls is not None else node.name.value}"
        info = FunctionInfo(
            qualname=qual,
            cls=cls.qualname if cls else None,
            compiled=any(d in COMPILE or d in COMPILER_FACTORIES for d in decorators),
            disabled=disabled,
        )
        self.summary.functions[qual] = info
        self.declare_return(info, node)
        scope = Scope(info, body=node.body)
        scope.loggers = set(self.loggers)
        info.is_static = "staticmethod" in decorators
        info.abstract = cls is not None and ("abc.abstractmethod" in decorators or is_stub(node))
        info.validator = cls is not None and any(d in PYDANTIC_VALIDATORS for d in decorators)
        scope.is_property = scope.info.is_property = any(d in PROPERTIES for d in decorators)
        info.locked_cache = "functools.cached_property" in decorators
        info.operator = any(d in OPERATOR_MAKERS for d in decorators)
        info.decorators = [d for d in decorators if d and "." in d and d not in KNOWN_DECORATORS]
        if cls is not None and cls.type_checked or any(type_checking(d, self.qualify) for d in node.decorators):
            info.type_check = self.untraceable_check(node)
        # `backward(ctx, *grads)` of a `torch.autograd.Function`: dynamo traces it with the forward that
        # `.apply` runs, handing it the gradients of the outputs, tensors
        gradients = cls is not None and info.is_static and node.name.value == "backward" \
            and any(base in AUTOGRAD_FUNCTIONS for base in cls.bases)
        _note_signature(info, node.params)
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            name = param.name.value
            info.params.append(name)
            if name in ("self", "cls") and cls is not None and not info.is_static:
                scope.values[name] = V.OBJECT
                continue
            typed = self._annotated_class(param)
            if typed is not None:
                scope.typed[name] = info.typed[name] = typed
            declared = self._declared_value(param)
            if declared is None and gradients and len(info.params) > 1:
                declared = V.ASSUMED_TENSOR
            if declared is not None:
                info.declared[name] = declared
                scope.values[name] = declared
                continue
            default = self._default_value(param)
            if default is not None:
                info.fallback[name] = default
            elif param.default is not None:
                info.optional.add(name)
            scope.values[name] = V.param(qual, name)
        for star in (node.params.star_arg, node.params.star_kwarg):
            if type(star) is cst.Param:
                scope.values[star.name.value] = V.OBJECT
        # `def _apply(self, cell, x)` that `self._apply(self.rnn, x)` calls: `cell` holds that module
        scope.held.update(self.handed_modules.get(cls.qualname, {}).get(node.name.value, {}) if cls else {})
        info.name_defaults = self._name_defaults(node)
        if cls is not None and node.name.value == "__init__" and info.params:
            info.init_start = _first_use(self, node, info.params[0])
            info.stored_defaults = _stored_defaults(node, info.params[0], info.name_defaults)
        self._scopes.append(scope)
        self._qualified = (None, None)  # names changed meaning

    def _name_defaults(self, node: cst.FunctionDef) -> dict[str, str]:
        """The parameters whose default is a name (`norm=rms_norm`), or a call of one (`spike_grad=atan()`,
        what it returns: "pkg.atan()"): parameter -> the default, qualified."""
        defaults: dict[str, str | None] = {}
        for p in (*node.params.params, *node.params.kwonly_params):
            if type(p.default) in (cst.Name, cst.Attribute) and dotted(p.default) not in ("None", "True", "False"):
                defaults[p.name.value] = self.qualify(p.default)
            elif type(p.default) is cst.Call and type(p.default.func) in (cst.Name, cst.Attribute) \
                    and (made := self.qualify(p.default.func)) and not made.startswith("torch."):
                defaults[p.name.value] = f"{made}()"
        return {name: held for name, held in defaults.items() if held}

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        scope = self._scopes.pop()
        self._qualified = (None, None)  # names changed meaning
        self._disabled_depth -= self._def_disabled.pop()
        if self._scopes and self._scopes[-1] is scope:  # the end of a nested function: its parameters go
            put_back(scope.values, scope.hidden.pop())
            scope.nested.pop()
        if not self._scopes or self._scopes[-1] is not scope:  # the end of a top-level function
            for name, meaning in scope.shadowed.items():
                if meaning is None:
                    self.aliases.pop(name, None)
                else:
                    self.aliases[name] = meaning
            if scope.generator:
                scope.info.returns = V.OBJECT
            else:
                scope.info.returns = V.join(*scope.returns) if scope.returns else V.NONE
            scope.info.wrapper_spans = [(span[0], span[2]) for span in map(
                self.positions.span, _returned_own_functions(original_node))]

    # An import inside a function (`from scipy.optimize import linear_sum_assignment`, a package's
    # own modules imported late against import cycles) binds its names as a module-level one would,
    # until the function ends (`leave_FunctionDef` puts the module's meanings back).
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names if self._scopes else ():
            full = dotted(alias.name)
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                self._bind_import(alias.asname.name.value, full)
            elif alias.asname is None:
                top = full.split(".")[0]
                self._bind_import(top, top)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not self._scopes or type(node.names) is cst.ImportStar:
            return
        base = self._import_base(node)
        for alias in node.names:
            name = alias.name.value
            local = alias.asname.name.value if alias.asname and type(alias.asname.name) is cst.Name else name
            self._bind_import(local, f"{base}.{name}" if base else name)

    def _bind_import(self, local: str, full: str) -> None:
        scope = self._scopes[-1]
        scope.shadowed.setdefault(local, self.aliases.get(local))
        scope.values.pop(local, None)  # the import rebinds a local of that name
        self.aliases[local] = full
        self._qualified = (None, None)  # names changed meaning

    def visit_Return(self, node: cst.Return) -> None:
        self._note_exit(self.positions.span(node)[0], 0)
        if self._scopes and self._scopes[-1].nested:
            scope = self._scopes[-1]
            scope.nested_returns[scope.nested[-1]].append(self.value(node.value) if node.value else V.NONE)
        if self._scopes and self._nested_depth() == 0:
            scope = self._scopes[-1]
            scope.returns.append(self.value(node.value) if node.value is not None else V.NONE)
            if node.value is not None:
                held = scope.info.returns_functions
                returned = [*self._held_functions(node.value), *self.returned_objects(node.value),
                            *_named_local(scope, node.value)]
                held.extend(f for f in returned if f not in held)

    def visit_Yield(self, node: cst.Yield) -> None:
        if self._scopes and self._nested_depth() == 0:
            self._scopes[-1].generator = True

    def _nested_depth(self) -> int:
        """How many function definitions deep inside the top-level function the walk is."""
        return len(self._def_disabled) - 1

    def _is_local(self, name: str) -> bool:
        head = name.split(".")[0]
        return bool(self._scopes and head in self._scopes[-1].values)

    def is_bound(self, name: str) -> bool:
        """Whether the function being walked has bound `name` by now (a parameter, an assignment)."""
        return bool(self._scopes) and name in self._scopes[-1].values

    def typed_class(self, name: str) -> str | None:
        """The class the annotation of parameter `name` of the function being walked names, while not bound
        again; of a local bound to an attribute of one (`states = traj.states`), "Traj|states" (`typed_chain`)."""
        return self._scopes[-1].typed.get(name) if self._scopes else None

    def module_classes(self, func: cst.BaseExpression) -> list[str]:
        """The classes of the module a call of `func` may run, where the class knows them: `self.rnn`
        (each class its methods build there), `self.layers[i]` or a loop's `layer` over `self.layers`
        (the classes built in the container), `rnn = self.rnn`; a module built in place, `nn.LSTM(4, 4)`;
        a parameter by its annotation (`def directions(rnn: nn.LSTM)`)."""
        if type(func) is cst.Call:
            made = self.qualify(func.func)
            return [made] if made is not None else []
        if type(func) is cst.Name and (typed := self.typed_class(func.value)):
            return [typed]
        cls = self.class_info()
        attr = self._self_attr(func.value if type(func) is cst.Subscript else func)
        if attr is None and type(func) is cst.Name and self._scopes:
            attr = self._scopes[-1].held.get(func.value)
        if attr is None or cls is None:
            return []
        built = [made[:-2] for made in cls.callables.get(attr, ()) if made.endswith("()")]
        if type(func) is cst.Subscript or attr not in cls.submodules:
            return built
        if cls.submodules[attr] in MODULE_CONTAINERS:
            # a local that holds a container holds one of its elements (a loop over it); the container
            # called as a whole (a `Sequential`) runs its elements inside torch's own forward
            return built if type(func) is cst.Name else [cls.submodules[attr]]
        return [cls.submodules[attr], *built]

    def built_from(self, value: cst.BaseExpression) -> list[str]:
        """The classes, or module-level tables of them, that `value` constructs: `Solver(...)`,
        `SOLVERS[name](...)`, or what a parameter holds, called ("@function#param"); reach decides
        which of them are classes of the tree. Of a conditional expression, what either branch builds
        (`ProcA() if fast else ProcB()`)."""
        if type(value) is cst.IfExp:
            return list(dict.fromkeys([*self.built_from(value.body), *self.built_from(value.orelse)]))
        if type(value) is not cst.Call:
            return []
        if type(value.func) is cst.Subscript:
            return self._held_functions(value.func)
        if type(value.func) is cst.Name and self._scopes and self._scopes[-1].functions.get(value.func.value):
            return list(self._scopes[-1].functions[value.func.value])  # `solver = solver_cls(...)`
        if self._scopes and (param := self._parameter(value.func)) is not None:
            # `m = subproblem(x)` of a class the callers hand over: reach looks up what they pass
            return [f"@{self.function.qualname}#{param}"]
        if (attr := self._self_attr(value.func)) is not None and (cls := self.class_info()) is not None:
            if attr == "__class__":  # `self.__class__(*args)`: another instance of the class (or of a subclass)
                return [cls.qualname]
            # `noise = self.noise_cls(shape)` of a class the attribute holds, or one a subclass puts there
            return _built_by_attribute(cls, attr)
        if type(value.func) is cst.Call and self.qualify(value.func.func) == "type" and len(value.func.args) == 1 \
                and type(value.func.args[0].value) is cst.Name and value.func.args[0].value.value == "self" \
                and (cls := self.class_info()) is not None:
            return [cls.qualname]  # `type(self)(*args)`
        name = self.qualify(value.func)
        if name and not name.startswith(("torch.", "logging.")) and class_like(name):
            return [name]
        return []

    def returned_objects(self, value: cst.BaseExpression) -> list[str]:
        """What a `return` hands back that reach can call into: an instance built there or earlier in
        the function ("Class()"; `cls(...)` in a classmethod, one of its own class), or what a call of
        a function of the tree returned (`return make_noise(shape)`: "pkg.make_noise()")."""
        scope = self._scopes[-1]
        if type(value) is cst.IfExp:  # `return E2ELoss(self) if end2end else DetectionLoss(self)`
            return [*self.returned_objects(value.body), *self.returned_objects(value.orelse)]
        if type(value) is cst.Name:
            if value.value in scope.made:
                return [f"{made}()" for made in scope.made[value.value]]
            return self.returned_held(value.value)
        if type(value) is not cst.Call:
            return []
        cls = self.class_info()
        if type(value.func) is cst.Name and value.func.value == "cls" and cls is not None \
                and scope.info.params[:1] == ["cls"] and not scope.info.is_static:
            return [f"{cls.qualname}()"]  # `return cls(f, **options)`
        if made := self.built_from(value):
            return [f"{m}()" for m in made]
        returned = self.returned_by(value)
        return [returned] if returned is not None else []

    def returned_held(self, name: str) -> list[str]:
        """What calls of the tree's functions a local was assigned from (`bm = make_noise(shape)`)."""
        return [held for held in self._scopes[-1].functions.get(name, []) if held.endswith("()")]

    def returned_by(self, value: cst.BaseExpression) -> str | None:
        """`_returned_by`, and `op.transpose(...)` of a local built from one class of the tree here:
        `"pkg.Op.transpose()"`, what that method (or an override) returns."""
        returned = self._returned_by(value)
        if returned is not None or type(value) is not cst.Call or type(value.func) is not cst.Attribute \
                or type(value.func.value) is not cst.Name or not self._scopes:
            return returned
        made = self._scopes[-1].made.get(value.func.value.value, [])
        return f"{made[0]}.{value.func.attr.value}()" if len(made) == 1 and not made[0].startswith("@") else None

    def _returned_by(self, value: cst.BaseExpression) -> str | None:
        """`f(...)` of a function named from the module level (`select(method)`): `"pkg.f()"`, which
        stands for the functions and classes `f` returns (`Reach.expand_table`); `self.make(...)` of a
        method of the instance: `"pkg.Cls.make()"` (an inherited method, or a subclass's override)."""
        if type(value) is not cst.Call or type(value.func) not in (cst.Name, cst.Attribute):
            return None
        cls = self.class_info()
        if cls is not None and (method := self._self_attr(value.func)) is not None and not cls.holds_object(method) \
                and method not in cls.attr_values and method not in cls.tensor_attrs:
            return f"{cls.qualname}.{method}()"  # `self._struct()`: what that method (or an override) returns
        name = dotted(value.func)
        if not name or name.split(".")[0] not in self.aliases or self._is_local(name):
            return None
        qual = self.qualify(value.func)
        if not qual or qual.startswith(("torch.", "math.", "numpy.", "logging.", "builtins.")):
            return None
        return qual + "()"


def _first_use(ctx: Scopes, node: cst.FunctionDef, instance: str) -> tuple[int, int, int, int] | None:
    """The span of the constructor's first statement that uses the instance (names it, or calls
    `super()`); None where that is a compound statement or there is none."""
    for stmt in node.body.body:
        uses = any((type(n) is cst.Name and n.value == instance) or is_super_call(n)
                   for n in find(stmt, (cst.Name, cst.Call)))
        if not uses:
            continue
        if type(stmt) is cst.SimpleStatementLine:
            first = stmt.body[0]
            return ctx.positions.span(first.value if type(first) is cst.Expr else first)
        return None
    return None


def _named_local(scope: Scope, value: cst.BaseExpression) -> list[str]:
    """The functions and classes a returned local was set to by name (`rnn = LSTM` in one branch, `rnn =
    GRU` in another, then `return rnn`)."""
    return [f for f in scope.functions.get(value.value, []) if not f.endswith("()")] if type(value) is cst.Name else []


def _built_by_attribute(cls: ClassInfo, attr: str) -> list[str]:
    """What `self.<attr>(...)` builds: the classes the class puts in the attribute, and "%Class#attr"
    for those a subclass puts there in its stead (`struct = Tree` over `struct = Chain`), which reach
    finds over the whole tree."""
    held = [h for h in cls.callables.get(attr, []) if not h.startswith("self:") and not h.endswith("()")]
    return [*held, f"%{cls.qualname}#{attr}"] if held else []


def _returned_own_functions(node: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions a function defines and returns (`def cached(fn): def wrapped(...): ...; return
    wrapped`): a decorator whose wrapper runs wherever what it decorates is called."""
    nested = {stmt.name.value: stmt for stmt in node.body.body if type(stmt) is cst.FunctionDef}
    if not nested:
        return []
    returned = {ret.value.value for ret in find(node.body, cst.Return) if type(ret.value) is cst.Name}
    return [fn for name, fn in nested.items() if name in returned]


def _bind_nested_params(ctx: Scopes, scope: Scope, node: cst.FunctionDef) -> dict[str, Val | None]:
    """Bind the parameters of a function nested in the walked one to what the enclosing function's
    calls of it pass, by position or keyword (`body(x * 2)`, `checkpoint(inner, y, n)`, an element of
    each iterable of `map(f, xs)`), joined over those calls; a parameter no such call decides is left
    as it was. The values are read where the nested function is defined, before those calls. What
    each name held before (None: nothing)."""
    params = [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
    name = node.name.value
    passed: dict[str, list[Val]] = {}
    for call in find(scope.body, cst.Call) if params and scope.body is not None else ():
        handed = call.args and type(call.args[0].value) is cst.Name and call.args[0].value.value == name
        mapped = handed and type(call.func) is cst.Name and call.func.value == "map" and "map" not in ctx.aliases
        if type(call.func) is cst.Name and call.func.value == name:
            args = call.args
        elif handed and (mapped or ctx.qualify(call.func) in CHECKPOINTS):
            args = call.args[1:]
        else:
            continue
        if any(arg.star for arg in args):
            continue
        for position, arg in enumerate(args):
            key = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else None
            if key in params:  # `map(f, xs)` hands each element of `xs`
                passed.setdefault(key, []).append(V.elem(ctx.value(arg.value)) if mapped else ctx.value(arg.value))
    return hide(scope.values, {param: V.join(*values) for param, values in passed.items()})


def _stored_defaults(node: cst.FunctionDef, instance: str, defaults: dict[str, str]) -> dict[str, str]:
    """A constructor's parameters whose default is a name (`norm=rms_norm`) and that its own
    statements store in the instance (`self.norm = norm`): parameter -> the default, qualified."""
    if not defaults:
        return {}
    stored = {stmt.value.value for stmt in find(node.body, (cst.Assign,))
              if type(stmt.value) is cst.Name
              and any(type(t.target) is cst.Attribute and dotted(t.target.value) == instance
                      for t in stmt.targets)}
    return {name: held for name, held in defaults.items() if name in stored}


def _note_signature(info: FunctionInfo, params: cst.Parameters) -> None:
    """What a call's arguments are matched against besides the parameters' names: the name of its
    `**kwargs` (what it hands on), and how many parameters come before the keyword-only ones."""
    if type(params.star_kwarg) is cst.Param:
        info.var_keywords = params.star_kwarg.name.value
    if params.kwonly_params:
        info.positional = len(params.posonly_params) + len(params.params)
