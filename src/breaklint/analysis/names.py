"""The semantic model of a file: its imports and what each local name stands for (`qualify`),
its classes with their bases, methods and attributes (`self.head = Head()`, `self.w = nn.Parameter(...)`,
functions held in attributes), and the module-level facts reach needs (instances, tables of functions,
loggers). Asked by every layer and rule that resolves a name (`ctx.qualify(node)`, `ctx.class_info()`).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from . import values as V
from .summary import ClassInfo
from .syntax import dotted, iter_statements
from .vocabulary import (GENERATORS, NOT_MODULES, PROPERTIES, RECEIVER_KIND_METHODS, TORCH_NON_TENSOR,
                         TORCH_NON_TENSOR_PREFIXES)


class Names:
    """Imports, qualified names and classes: the semantic model's names half.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def visit_Module(self, node: cst.Module) -> None:
        self.indent_unit = node.default_indent
        for stmt in iter_statements(node):
            if isinstance(stmt, cst.Import):
                for alias in stmt.names:
                    full = dotted(alias.name)
                    if alias.asname is not None:
                        self.aliases[alias.asname.name.value] = full
                    else:
                        top = full.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
                base = self._import_base(stmt)
                for alias in stmt.names:
                    name = alias.name.value
                    local = alias.asname.name.value if alias.asname else name
                    self.aliases[local] = f"{base}.{name}" if base else name
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.aliases.setdefault(stmt.name.value, f"{self.module}.{stmt.name.value}")
        self.scan_records(node)
        # Module-level helpers that only wrap the compile checks (`def _tracing(): return
        # torch.compiler.is_compiling() or torch.jit.is_tracing()`) decide branches as they do.
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef) and len(stmt.body.body) == 1:
                only = stmt.body.body[0]
                if isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1 \
                        and isinstance(only.body[0], cst.Return) and only.body[0].value is not None:
                    value = self.compile_value(only.body[0].value)
                    if value is not None:
                        self.compile_helpers[f"{self.module}.{stmt.name.value}"] = value
        self.summary.imports = {k: v for k, v in self.aliases.items()
                                if v and v != f"{self.module}.{k}" and "." in v and not v.startswith("torch.")}
        for stmt in iter_statements(node):
            if isinstance(stmt, cst.Assign) and isinstance(stmt.value, (cst.Dict, cst.List, cst.Tuple)):
                elements = [el.value for el in stmt.value.elements if isinstance(el, (cst.DictElement, cst.Element))]
                held = [self.aliases[e.value] for e in elements if isinstance(e, cst.Name) and e.value in self.aliases]
                if held:
                    for target in stmt.targets:
                        if isinstance(target.target, cst.Name):
                            self.summary.function_tables[target.target.value] = held
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
                name = stmt.targets[0].target.value
                if isinstance(stmt.value, cst.Call) and self.qualify(_unseeded(stmt.value.func)) in GENERATORS:
                    value = V.GENERATOR  # `RNG = torch.Generator().manual_seed(0)`
                elif isinstance(stmt.value, cst.Call):
                    made = self.qualify(stmt.value.func)
                    value = self.record_value(made or "", stmt.value) \
                        or (V.Val("object", ref=made) if made and not made.startswith("torch.") else V.UNKNOWN)
                else:
                    value = self.literal_value(stmt.value) or V.UNKNOWN
                old = self.globals.get(name)
                self.globals[name] = value if old is None else V.join(old, value)
            if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call):
                callee = self.qualify(stmt.value.func)
                for target in stmt.targets:
                    if not isinstance(target.target, cst.Name):
                        continue
                    name = target.target.value
                    if callee == "logging.getLogger":
                        self.loggers.add(name)
                    elif callee and not callee.startswith(("torch.", "logging.")) \
                            and callee.split(".")[-1][:1].isupper():
                        # a module-level object (`helper = Helper()`): calls of its methods reach them
                        self.summary.instances[name] = callee

    def _import_base(self, node: cst.ImportFrom) -> str:
        base = dotted(node.module) if node.module is not None else ""
        if not node.relative:
            return base or ""
        package = self.module.split(".")
        if self.path.stem != "__init__":
            package = package[:-1]
        depth = len(node.relative) - 1
        if depth:
            package = package[:-depth] if depth <= len(package) else []
        return ".".join([*package, base] if base else package)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Resolve a name chain through the module's imports: `nn.Module` -> `torch.nn.Module`."""
        # Every rule that looks at a call asks about its callee in turn, at the same point of the
        # walk: the last answer is kept for the next question about the same node.
        if node is self._qualified[0]:
            return self._qualified[1]
        name = dotted(node)
        if name is None:
            full = None
        else:
            head, _, rest = name.partition(".")
            if self._scopes and head in self._scopes[-1].values:
                full = None  # a local variable, not the imported name
            else:
                full = self.aliases.get(head, head)
                full = f"{full}.{rest}" if rest else full
        self._qualified = (node, full)
        return full

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qual = f"{self._prefix()}{node.name.value}"
        # a generic base is its class: `Controller[State]` is `Controller`, `Generic[T]` is `Generic`
        bases = [self.qualify(arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value) or ""
                 for arg in node.bases if arg.keyword is None]
        info = ClassInfo(qualname=qual, bases=[b for b in bases if b])
        fields = self.records.get(qual)
        if fields is None:
            fields = self.class_fields(node, qual)
        if fields is not None:
            info.fields = fields
            info.positional = qual in self.positional
        else:
            self.class_attributes(node, info)
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                info.methods.add(stmt.name.value)
                if any(self.qualify(d.decorator) in PROPERTIES for d in stmt.decorators):
                    info.properties.add(stmt.name.value)
                self._scan_self_attrs(stmt, info)
        self.summary.classes[qual] = info
        self._classes.append(info)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def _prefix(self) -> str:
        return ".".join([self.module, *[c.qualname.rsplit(".", 1)[-1] for c in self._classes[-1:]]]) + "." \
            if self._classes else f"{self.module}."

    def _scan_self_attrs(self, fn: cst.FunctionDef, info: ClassInfo) -> None:
        # `self.flag = flag`, with `flag: bool = False` a parameter of the method: what it declares
        params = {p.name.value: p for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]}
        constructor = fn.name.value == "__init__"
        # a parameter `__init__` rebinds is not kept as it came (other methods keep none: not walked)
        rebound = {t.value for stmt in iter_statements(fn.body) if isinstance(stmt, (cst.Assign, cst.AugAssign,
                                                                                     cst.AnnAssign))
                   for t in ([x.target for x in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target])
                   if isinstance(t, cst.Name)} if constructor else set()
        for stmt in iter_statements(fn.body):
            if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
                value = stmt.value
                for target in targets:
                    attr = self._self_attr(target)
                    if attr is None or value is None:
                        continue
                    if isinstance(value, cst.Name) and value.value not in params and value.value != "self" \
                            and (bound := self._bound_once(value.value, fn)) is not None and bound[1] is None:
                        value = bound[0]  # `x = torch.zeros(n)`, then `self.buf = x`: as `self.buf = torch.zeros(n)`
                    if (method := self.self_getattr(value)) is not None:
                        info.callables.setdefault(attr, []).append(f"self:{method}")
                    elif isinstance(value, cst.Call):
                        self._classify_attr(attr, value, info, params)
                        if attr not in info.tensor_attrs and attr not in info.submodules \
                                and (returned := self._returned_by(value)) is not None \
                                and returned.split(".")[0] == self.module.split(".")[0]:
                            # `self.sampler = build_sampler(cfg)` of this package: what the function returns
                            info.callables.setdefault(attr, []).append(returned)
                        if constructor and isinstance(value.func, cst.Name) and value.func.value in params:
                            info.from_params.setdefault(attr, f"{value.func.value}()")
                    elif isinstance(value, cst.Name) and value.value in params:
                        param = params[value.value]
                        declared = self._annotated_class(param)
                        if declared:
                            info.declared.setdefault(attr, declared)
                        if constructor:
                            info.from_params.setdefault(attr, value.value)
                        if param.default is not None and (held := self._held_functions(param.default)):
                            # `def __init__(self, loss_fn=focal_loss)`: what the default names is held
                            # unless a caller hands over something else
                            info.callables.setdefault(attr, []).extend(held)
                    elif held := self._held_functions(value) or self.held_in_literal(value):
                        info.callables.setdefault(attr, []).extend(held)
                    if attr not in info.tensor_attrs and attr not in info.submodules and attr not in info.callables:
                        literal = self.literal_value(value)
                        if literal is None and isinstance(value, cst.Name) and value.value in params:
                            literal = self._declared_value(params[value.value])
                            if literal is None and constructor and value.value not in rebound:
                                info.kept_params[attr] = value.value  # `self.t_eval = t_eval`
                        elif literal is None:
                            # `self.tableau = EULER`; `self.time = time.to(device)`; `self.time = times`
                            literal = self.module_instance(value) or _from_param(
                                value, params, f"{info.qualname}.{fn.name.value}") or self._returned_local(
                                value, fn, info)
                        literal = literal or V.UNKNOWN
                        old = info.attr_values.get(attr)
                        info.attr_values[attr] = literal if old is None else V.join(old, literal)
            elif isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) \
                    and self._self_attr(stmt.value.func) in ("register_buffer", "register_parameter"):
                args = stmt.value.args
                if args and isinstance(args[0].value, cst.SimpleString):
                    info.tensor_attrs.add(args[0].value.evaluated_value)

    def _bound_once(self, local: str, fn: cst.FunctionDef) -> tuple[cst.BaseExpression, int | None] | None:
        """The expression a local of the method is bound to, where the method binds it once, by an
        assignment: (value, None) for `x = value`, (value, i) for the i-th name of `a, x = value`."""
        found: list[tuple[cst.BaseExpression | None, int | None]] = []
        for stmt in iter_statements(fn.body):
            for target, rhs in _bindings(stmt):
                if isinstance(target, cst.Name) and target.value == local:
                    found.append((rhs, None))
                elif isinstance(target, (cst.Tuple, cst.List)) and any(
                        isinstance(e.value, cst.Name) and e.value.value == local for e in target.elements):
                    parts = target.elements
                    starred = any(isinstance(e, cst.StarredElement) for e in parts)
                    found.append((None if starred else rhs, next(
                        i for i, e in enumerate(parts) if isinstance(e.value, cst.Name) and e.value.value == local)))
        if len(found) != 1 or found[0][0] is None:
            return None
        if m.findall(fn.body, m.NamedExpr(target=m.Name(local))):  # `(x := ...)` binds it too
            return None
        return found[0][0], found[0][1]

    def _call_return(self, value: cst.BaseExpression, info: ClassInfo) -> V.Val | None:
        """What a call of a method of the class (`self._count()`) or of a function of this package
        returns, which the tree decides; None for any other expression."""
        if not isinstance(value, cst.Call):
            return None
        func = value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return V.ret("self", func.attr.value, info.qualname)
        name = self.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if not name or name.split(".")[0] != self.module.split(".")[0]:
            return None
        return V.ret("name", name, info.qualname)

    def _returned_local(self, value: cst.BaseExpression, fn: cst.FunctionDef, info: ClassInfo) -> V.Val | None:
        """`self.time = self._times()`, or `times, counts = self._count()` then `self.time = times`: what
        that call returns, or its element (a local bound once so)."""
        if not isinstance(value, cst.Name):
            return self._call_return(value, info)
        bound = self._bound_once(value.value, fn)
        if bound is None or bound[1] is None:
            return None
        returned = self._call_return(bound[0], info)
        return None if returned is None else V.elem(returned, bound[1])

    def module_instance(self, node: cst.BaseExpression) -> V.Val | None:
        """`HEUN`, a module-level object of the file built from a class: an instance of that class."""
        if isinstance(node, cst.Name) and node.value in self.summary.instances:
            return V.Val("object", ref=self.summary.instances[node.value])
        return None

    def _held_functions(self, value: cst.BaseExpression) -> list[str]:
        """Functions an attribute may hold: `fn`, `TABLE[key]` (a module-level table of functions),
        `a if c else b`."""
        if isinstance(value, cst.IfExp):
            return self._held_functions(value.body) + self._held_functions(value.orelse)
        if isinstance(value, cst.Subscript) and isinstance(value.value, (cst.Dict, cst.List, cst.Tuple)):
            # `{"euler": Euler, "rk4": RK4}[method]`: each function or class the literal holds
            return [f for f in self.held_in_literal(value.value) if not f.startswith("self:")]
        if isinstance(value, cst.Subscript):
            name = dotted(value.value)
            if name in self.summary.function_tables:
                return [f"{self.module}.{name}"]
            qual = self.qualify(value.value) if name else None
            return [qual] if qual and qual != name else []
        if isinstance(value, (cst.Name, cst.Attribute)):
            name = dotted(value)
            head = (name or "").split(".")[0]
            if name and head in self.aliases and head != "self":
                qual = self.qualify(value)
                if qual and not qual.startswith(("torch.", "math.", "numpy.", "operator.")):
                    return [qual]
        return []

    def held_in_literal(self, value: cst.BaseExpression) -> list[str]:
        """What a dict, list or tuple literal of callables holds: `{"boxes": self.loss_boxes}` (a method
        of the instance, as "self:loss_boxes") or `[focal_loss, dice_loss]` (functions)."""
        if not isinstance(value, (cst.Dict, cst.List, cst.Tuple)):
            return []
        out: list[str] = []
        for el in value.elements:
            if not isinstance(el, (cst.DictElement, cst.Element)):
                continue
            method = self._self_attr(el.value)
            out.extend([f"self:{method}"] if method is not None else self._held_functions(el.value))
        return out

    def self_getattr(self, node: cst.BaseExpression) -> str | None:
        """`getattr(self, "name")` -> "name"; `getattr(self, f"_run_{mode}")` or `getattr(self,
        "_run_" + mode)` -> "_run_*", the methods whose name starts so; else None."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "getattr"
                and len(node.args) >= 2 and isinstance(node.args[0].value, cst.Name)
                and node.args[0].value.value == "self" and "getattr" not in self.aliases):
            return None
        name = node.args[1].value
        if isinstance(name, cst.SimpleString):
            text = name.evaluated_value
            return text if isinstance(text, str) and text.isidentifier() else None
        if isinstance(name, cst.BinaryOperation) and isinstance(name.operator, cst.Add):
            name = name.left
            prefix = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        elif isinstance(name, cst.FormattedString) and name.parts and isinstance(name.parts[0], cst.FormattedStringText):
            prefix = name.parts[0].value
        else:
            prefix = None
        return f"{prefix}*" if isinstance(prefix, str) and len(prefix) > 1 and prefix.isidentifier() else None

    def _classify_attr(self, attr: str, value: cst.Call, info: ClassInfo,
                       params: dict[str, cst.Param] | None = None) -> None:
        func = _unseeded(value.func)
        if isinstance(func, cst.Name) and params and func.value in params:
            # `self.rnn = rnn_layer(...)` with `rnn_layer=nn.LSTM` a parameter of the method: a
            # class handed in, built here; what the default names is what it builds unless told
            default = params[func.value].default
            if not isinstance(default, (cst.Name, cst.Attribute)) or dotted(default) == "None":
                return
            func = default
        callee = self.qualify(func)
        if callee is None:
            return
        if callee in ("torch.nn.Parameter", "torch.nn.Buffer") or (
            callee.startswith("torch.") and not callee.startswith("torch.nn.") and callee not in GENERATORS
            and callee not in TORCH_NON_TENSOR and not callee.startswith(TORCH_NON_TENSOR_PREFIXES)
        ):
            info.tensor_attrs.add(attr)
        elif callee not in NOT_MODULES and callee.split(".")[-1][:1].isupper():
            held = info.submodules.setdefault(attr, callee)
            if held != callee:  # assigned different classes on different paths: calls reach each
                info.callables.setdefault(attr, []).append(f"{callee}()")

    def _self_attr(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            return node.attr.value
        return None

    def is_logger(self, name: str) -> bool:
        """A name bound to `logging.getLogger(...)`, at module level or in the current function."""
        return name in self.loggers or bool(self._scopes and name in self._scopes[-1].loggers)

    def class_info(self) -> ClassInfo | None:
        return self._classes[-1] if self._classes else None

    def is_module_ref(self, node: cst.BaseExpression) -> bool:
        """`self.encoder`, `self.blocks[i]`, a loop variable over `self.blocks`."""
        cls = self.class_info()
        attr = self._self_attr(node)
        if attr is not None:
            return bool(cls and attr in cls.submodules)
        if isinstance(node, cst.Subscript):
            return self.is_module_ref(node.value)
        if isinstance(node, cst.Name) and self._scopes:
            return node.value in self._scopes[-1].modules
        return False


def _unseeded(func: cst.BaseExpression) -> cst.BaseExpression:
    """The callee that makes a generator seeded on the spot: `torch.Generator` of
    `torch.Generator(device).manual_seed(seed)`; any other callee as it is."""
    while isinstance(func, cst.Attribute) and func.attr.value == "manual_seed" and isinstance(func.value, cst.Call):
        func = func.value.func
    return func


def _from_param(value: cst.BaseExpression, params: dict[str, cst.Param], method: str) -> V.Val | None:
    """`time.to(self.device)`, `x.detach()`, `scores.float()` with the receiver a parameter of the
    method that stores it: a tensor exactly when what the callers pass is one (the tree decides)."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Name) and value.func.value.value in params
            and value.func.value.value not in ("self", "cls")):
        return None
    if value.func.attr.value not in RECEIVER_KIND_METHODS:
        return None
    return V.method_result(V.param(method, value.func.value.value))


def _bindings(stmt: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """(target, value) of each binding a statement makes of its own (an assignment, a loop target, a
    `with ... as`, an `except ... as`, a `def`, an import); value None where the statement binds no
    single expression."""
    if isinstance(stmt, cst.Assign):
        return [(t.target, stmt.value) for t in stmt.targets]
    if isinstance(stmt, cst.AnnAssign):
        return [(stmt.target, stmt.value)]
    if isinstance(stmt, cst.AugAssign):
        return [(stmt.target, None)]
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [(stmt.name, None)]
    if isinstance(stmt, (cst.Import, cst.ImportFrom)) and not isinstance(stmt.names, cst.ImportStar):
        return [(a.asname.name if a.asname else cst.Name(dotted(a.name).split(".")[0]), None) for a in stmt.names]
    if isinstance(stmt, cst.For):
        return [(stmt.target, None)]
    if isinstance(stmt, cst.With):
        return [(item.asname.name, None) for item in stmt.items if item.asname is not None]
    if isinstance(stmt, cst.Try):
        return [(h.name.name, None) for h in stmt.handlers if h.name is not None]
    return []
