"""The semantic model of a file: its imports and what each local name stands for (`qualify`),
its classes with their bases and methods (what the methods store in `self` is `attributes.py`'s), and
the module-level facts reach needs (instances, tables of functions, loggers). Asked by every layer and
rule that resolves a name (`ctx.qualify(node)`, `ctx.class_info()`).
"""

from __future__ import annotations

import libcst as cst

from . import registries
from . import values as V
from .optimizer_classes import OPTIMIZER_MODULE
from .passing import module_members
from .summary import ClassInfo, element_of
from .syntax import (dotted, iter_statements, method_name, named_entries, self_attribute, string_index, type_checking,
                     unseeded)
from .vocabulary import EXTENSION_BUILDERS, TENSORLY_OPT_EINSUM, TORCH_OBJECTS, TRACE_DECORATORS


class Names:
    """Imports, qualified names and classes: the semantic model's names half.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def visit_Module(self, node: cst.Module) -> None:
        self.indent_unit, self.module_node = node.default_indent, node
        for stmt in iter_statements(node):
            if type(stmt) is cst.Import:
                for alias in stmt.names:
                    full = dotted(alias.name)
                    if alias.asname is not None:
                        self.aliases[alias.asname.name.value] = full
                    else:
                        top = full.split(".")[0]
                        self.aliases[top] = top
            elif type(stmt) is cst.ImportFrom and type(stmt.names) is cst.ImportStar:
                self.summary.star_imports.append(self._import_base(stmt))
            elif type(stmt) is cst.ImportFrom:
                base = self._import_base(stmt)
                for alias in stmt.names:
                    name = alias.name.value
                    local = alias.asname.name.value if alias.asname else name
                    self.aliases[local] = f"{base}.{name}" if base else name
            elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
                self.aliases.setdefault(stmt.name.value, f"{self.module}.{stmt.name.value}")
        # `_disable = torch.compiler.disable` (a fallback `def _disable` beside it); `pscan = PScan.apply`, an
        # autograd function's entry (reach runs its `forward`)
        for stmt in iter_statements(node):
            if type(stmt) is cst.Assign and len(stmt.targets) == 1 and type(stmt.targets[0].target) is cst.Name \
                    and type(stmt.value) is cst.Attribute and (meant := self.qualify(stmt.value)) is not None \
                    and (meant in TRACE_DECORATORS
                         or stmt.value.attr.value == "apply" and not meant.startswith("torch.")):
                self.aliases[stmt.targets[0].target.value] = meant
        self.scan_records(node)
        # Module-level helpers that only wrap the compile checks (`def _tracing(): return
        # torch.compiler.is_compiling() or torch.jit.is_tracing()`) decide branches as they do.
        for stmt in node.body:
            if type(stmt) is cst.FunctionDef and len(stmt.body.body) == 1:
                only = stmt.body.body[0]
                if type(only) is cst.SimpleStatementLine and len(only.body) == 1 \
                        and type(only.body[0]) is cst.Return and only.body[0].value is not None:
                    value = self.compile_value(only.body[0].value)
                    if value is not None:
                        self.compile_helpers[f"{self.module}.{stmt.name.value}"] = value
        self.summary.imports = {k: v for k, v in self.aliases.items()
                                if v and v != f"{self.module}.{k}" and "." in v and not v.startswith("torch.")}
        for stmt in iter_statements(node):
            if type(stmt) is cst.Assign and type(stmt.value) in (cst.Dict, cst.List, cst.Tuple):
                held = named_entries(stmt.value, self.aliases, self.qualify)
                if held:
                    for target in stmt.targets:
                        if type(target.target) is cst.Name:
                            self.summary.function_tables[target.target.value] = held
            if type(stmt) is cst.Assign and len(stmt.targets) == 1 and type(stmt.targets[0].target) is cst.Name:
                name = stmt.targets[0].target.value
                if type(stmt.value) is cst.Call \
                        and (kept := TORCH_OBJECTS.get(self.qualify(unseeded(stmt.value.func)) or "")) is not None:
                    value = kept  # `RNG = torch.Generator().manual_seed(0)`, `ENGINE = SobolEngine(d)`
                elif type(stmt.value) is cst.Call:
                    made = self.qualify(stmt.value.func)
                    # an object of the class called, or an optimizer or a schedule of `torch.optim` (BL436); else
                    # what the evaluation tells (`SQRT2 = (2 * torch.ones(1)).sqrt()`: a tensor)
                    of_class = bool(made) and (not made.startswith("torch.") or made.startswith(OPTIMIZER_MODULE))
                    value = self.record_value(made or "", stmt.value) \
                        or (V.Val("object", ref=made) if of_class else self.value(stmt.value))
                else:
                    value = self.literal_value(stmt.value) or V.UNKNOWN
                old = self.globals.get(name)
                self.globals[name] = value if old is None else V.join(old, value)
            if type(stmt) is cst.Assign and type(stmt.value) is cst.Call:
                callee = self.qualify(stmt.value.func)
                for target in stmt.targets:
                    if type(target.target) is not cst.Name:
                        continue
                    name = target.target.value
                    if callee == "logging.getLogger":
                        self.loggers.add(name)
                    elif callee and not callee.startswith(("torch.", "logging.")) \
                            and callee.split(".")[-1][:1].isupper():
                        # a module-level object (`helper = Helper()`): calls of its methods reach them
                        self.summary.instances[name] = callee
        if self.lines_mention(1, len(self.lines), ("cpp_extension",)):  # (most files build no extension)
            self._extensions(node)
        self.opt_einsum_plugin = _opt_einsum_plugin(self, node)
        tables = registries.dict_tables(node)
        self.summary.registrars = registries.registrars(node, tables)
        self.summary.registrations, stored = registries.registrations(node, self.qualify, tables)
        for table, _, _ in self.summary.registrars.values():
            self.summary.function_tables.setdefault(table, [])  # filled at tree level (`Tree._register`)
        for table, held in stored.items():
            self.summary.function_tables.setdefault(table, []).extend(held)

    def _extensions(self, module: cst.Module) -> None:
        """Module-level names bound to what `torch.utils.cpp_extension.load(...)` or `load_inline(...)`
        returns: at module level, or in a module-level function that declares the name `global`
        (`_C = None`, then `global _C; _C = load(name=..., sources=[...])` on first use, the builder
        often imported there)."""
        def bind(stmt: cst.CSTNode, names: frozenset[str] | None, local: dict[str, str]) -> None:
            if type(stmt) is not cst.Assign or type(stmt.value) is not cst.Call:
                return
            func = stmt.value.func
            builder = local.get(func.value) if type(func) is cst.Name and func.value in local else self.qualify(func)
            if builder not in EXTENSION_BUILDERS:
                return
            for target in stmt.targets:
                if type(target.target) is cst.Name and (names is None or target.target.value in names):
                    self.extensions[target.target.value] = builder

        for stmt in iter_statements(module):
            if type(stmt) is not cst.FunctionDef:
                bind(stmt, None, {})
                continue
            inner = list(iter_statements(stmt.body))
            declared = frozenset(n.name.value for s in inner if type(s) is cst.Global for n in s.names)
            if not declared:
                continue
            local = {(alias.asname or alias).name.value: f"{self._import_base(s)}.{alias.name.value}"
                     for s in inner if type(s) is cst.ImportFrom and type(s.names) is not cst.ImportStar
                     for alias in s.names}
            for s in inner:
                bind(s, declared, local)

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
        if self._callee_as is not None and node is self._callee_as[0]:
            return self.qualify(self._callee_as[1])  # a function a local may hold, being asked about (`asking_as`)
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
        bases = [self.qualify(arg.value.value if type(arg.value) is cst.Subscript else arg.value) or ""
                 for arg in node.bases if arg.keyword is None]
        info = ClassInfo(qualname=qual, bases=[b for b in bases if b],
                         type_checked=any(type_checking(d, self.qualify) for d in node.decorators))
        fields = self.records.get(qual)
        if fields is None:
            fields = self.class_fields(node, qual)
        if fields is not None:
            info.fields = fields
            info.positional = qual in self.positional
            self.field_classes(node, info)
        else:
            self.class_attributes(node, info)
        # (all of them before any is scanned: `__init__` may store one defined below it)
        info.methods.update(method_name(stmt) for stmt in node.body.body if type(stmt) is cst.FunctionDef)
        self.scan_class(node, info)
        self.summary.classes[qual] = info
        self._classes.append(info)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def _prefix(self) -> str:
        return ".".join([self.module, *[c.qualname.rsplit(".", 1)[-1] for c in self._classes[-1:]]]) + "." \
            if self._classes else f"{self.module}."

    def module_instance(self, node: cst.BaseExpression) -> V.Val | None:
        """`HEUN`, a module-level object of the file built from a class: an instance of that class."""
        if type(node) is cst.Name and node.value in self.summary.instances:
            return V.Val("object", ref=self.summary.instances[node.value])
        return None

    def _held_functions(self, value: cst.BaseExpression) -> list[str]:
        """Functions an attribute may hold: `fn`, `TABLE[key]` (a module-level table of functions),
        `a if c else b`, `functools.partial(fn, ...)`."""
        if type(value) is cst.IfExp:
            return self._held_functions(value.body) + self._held_functions(value.orelse)
        if type(value) is cst.Call:
            # `functools.partial(focal_loss, gamma=2)`: calling it runs the function it wraps
            wrapped = self.partial_of(value)
            return self._held_functions(wrapped) if wrapped is not None else module_members(self, value)
        if type(value) is cst.Subscript and type(value.value) in (cst.Dict, cst.List, cst.Tuple):
            # `{"euler": Euler, "rk4": RK4}[method]`: each function or class the literal holds
            return [f for f in self.held_in_literal(value.value) if not f.startswith("self:")]
        if type(value) is cst.Subscript:
            name = dotted(value.value)
            if name in self.summary.function_tables:
                return [f"{self.module}.{name}"]
            qual = self.qualify(value.value) if name else None
            return [qual] if qual and qual != name else []
        if type(value) in (cst.Name, cst.Attribute):
            name = dotted(value)
            head = (name or "").split(".")[0]
            if type(value) is cst.Name and name in self.summary.function_tables and not self.is_bound(name):
                return [f"{self.module}.{name}"]  # `{"minimizer": _OPT_METHODS, ...}[kind]`: this module's table
            if name and head in self.aliases and head != "self":
                qual = self.qualify(value)
                if qual and not qual.startswith(("torch.", "math.", "numpy.", "operator.")):
                    return [qual]
        return []

    def partial_of(self, call: cst.Call) -> cst.BaseExpression | None:
        """What `functools.partial(fn, ...)` wraps (`fn`, its first argument, given by position); None
        for another call."""
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star or self.qualify(call.func) != "functools.partial":
            return None
        return first.value

    def held_in_literal(self, value: cst.BaseExpression) -> list[str]:
        """What a dict, list or tuple literal of callables holds: `{"boxes": self.loss_boxes}` (a method
        of the instance, as "self:loss_boxes") or `[focal_loss, dice_loss]` (functions)."""
        if type(value) not in (cst.Dict, cst.List, cst.Tuple):
            return []
        out: list[str] = []
        for el in value.elements:
            if type(el) not in (cst.DictElement, cst.Element):
                continue
            method = self._self_attr(el.value)
            out.extend([f"self:{method}"] if method is not None else self._held_functions(el.value))
        return out

    def self_getattr(self, node: cst.BaseExpression) -> str | None:
        """`getattr(self, "name")` -> "name"; `getattr(self, f"_run_{mode}")` or `getattr(self,
        "_run_" + mode)` -> "_run_*", the methods whose name starts so; else None."""
        if not (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "getattr"
                and len(node.args) >= 2 and type(node.args[0].value) is cst.Name
                and node.args[0].value.value == "self" and "getattr" not in self.aliases):
            return None
        name = node.args[1].value
        if type(name) is cst.SimpleString:
            text = name.evaluated_value
            return text if isinstance(text, str) and text.isidentifier() else None
        if type(name) is cst.BinaryOperation and type(name.operator) is cst.Add:
            name = name.left
            prefix = name.evaluated_value if type(name) is cst.SimpleString else None
        elif type(name) is cst.FormattedString and name.parts and type(name.parts[0]) is cst.FormattedStringText:
            prefix = name.parts[0].value
        else:
            prefix = None
        return f"{prefix}*" if isinstance(prefix, str) and len(prefix) > 1 and prefix.isidentifier() else None

    _self_attr = staticmethod(self_attribute)  # `self.rnn` -> "rnn"

    def kept_item(self, node: cst.Subscript) -> str | None:
        """`self.cache["mask"]`, `self.state[p]["mask"]`, or `state["mask"]` with `state = self.state[p]`
        (`Scope.keyed`): the name under which the class keeps what its methods store there, in
        `ClassInfo.attr_values` ("cache['mask']", "state[]['mask']"), as an optimizer keeps its state;
        None for any other subscript."""
        key = string_index(node)
        if key is None:
            return None
        held = node.value
        if type(held) is cst.Name:
            kept = self._scopes[-1].keyed.get(held.value) if self._scopes else None
        elif type(held) is cst.Subscript:
            kept = element_of(attr) if (attr := self._self_attr(held.value)) is not None else None
        else:
            kept = self._self_attr(held)
        return f"{kept}[{key!r}]" if kept is not None else None

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
        if type(node) is cst.Subscript:
            return self.is_module_ref(node.value)
        if type(node) is cst.Name and self._scopes:
            return node.value in self._scopes[-1].modules
        return False


def _opt_einsum_plugin(ctx: Names, module: cst.Module) -> bool:
    """Whether the module calls `tensorly.plugins.use_opt_einsum()` at import."""
    return ctx.lines_mention(1, len(ctx.lines), ("use_opt_einsum",)) and any(
        type(stmt) is cst.Expr and type(stmt.value) is cst.Call and ctx.qualify(stmt.value.func) == TENSORLY_OPT_EINSUM
        for stmt in iter_statements(module))
