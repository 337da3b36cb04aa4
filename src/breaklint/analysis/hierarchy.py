"""The tree's classes and names, over every summary: what a dotted name stands for (following
re-exports), which classes are modules or autograd functions, a class's method resolution order,
methods, subclasses, and what its attributes hold or are declared to hold. `Reach` (reach.py)
asks these questions while it walks the calls.
"""

from __future__ import annotations

import weakref
from collections import deque

from .methods import is_protocol
from .summary import STORED, ClassInfo, FunctionInfo, ModuleSummary

# Bases that say "this is not an nn.Module" even when they come from outside the tree.
PLAIN_BASES = {
    "object", "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError", "KeyError",
    "enum.Enum", "enum.IntEnum", "enum.Flag", "enum.IntFlag", "abc.ABC", "typing.NamedTuple",
    "typing.Generic", "typing.Protocol", "typing.TypedDict", "dict", "list", "tuple", "str", "int",
    "float", "set", "collections.OrderedDict", "collections.namedtuple", "dataclasses.dataclass",
    "Enum", "ABC", "NamedTuple", "Generic", "Protocol", "TypedDict", "OrderedDict",
}
NON_MODULE_PREFIXES = ("typing.", "enum.", "abc.", "collections.", "dataclasses.", "torch.autograd.Function",
                       "torch.utils.", "torch.optim.", "torch.distributions.")
AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
# TorchScript's compiler as a decorator (a static method of an autograd Function made so, reach.py)
JIT_SCRIPT = frozenset({"torch.jit.script", "torch.jit._script.script"})
# numba's compilers as decorators: the function becomes a numba dispatcher, an object whose `__call__` dynamo
# cannot trace (probed on torch 2.11, 2.13 and 2.14.1; 2.14 names it GB4818), so reach enters none of its code
# and each call breaks
NUMBA_JIT = frozenset({"numba.jit", "numba.njit", "numba.vectorize", "numba.guvectorize", "numba.cfunc",
                       "numba.generated_jit", "numba.cuda.jit", "numba.core.decorators.jit",
                       "numba.core.decorators.njit", "numba.np.ufunc.decorators.vectorize",
                       "numba.np.ufunc.decorators.guvectorize"})
# pydantic's model base: building a model validates it in pydantic-core, which dynamo cannot trace
PYDANTIC_MODELS = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
# a class of the tree deriving from this is a tensor (`class PSDMatrix(Tensor)`), not an object of the tree's
TENSOR_BASES = frozenset({"torch.Tensor"})
# Classes too broad for their subclasses' methods to say what an attribute of that class runs.
TOO_BROAD = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "object", "typing.Any"})
# What the forward of torch's own modules calls on `self`, which a subclass may override: `_conv_forward`
# (convolutions), `_output_padding` (transposed ones), `_check_input_dim` (batch and instance norms).
TORCH_FORWARD_HOOKS = ("_conv_forward", "_output_padding", "_check_input_dim")
# The recurrent modules dynamo does not trace unless `allow_rnn` is set (BL413).
RNN_MODULES = frozenset({
    "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN",
    "torch.nn.modules.rnn.LSTM", "torch.nn.modules.rnn.GRU", "torch.nn.modules.rnn.RNN",
})
# torch's modules that own no parameter: a walk to a module's first parameter passes them by (recurrent_walks.py)
PARAMETERLESS_MODULES = frozenset(f"torch.nn.{name}" for name in (
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "ELU", "SELU", "CELU", "LeakyReLU", "Softplus",
    "Softmax", "LogSoftmax", "Hardtanh", "Hardswish", "Hardsigmoid", "Identity", "Flatten", "Unflatten",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "MaxPool1d", "MaxPool2d", "MaxPool3d",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample"))


def _is_torch_module(base: str) -> bool:
    """`torch.nn.Module` and the module classes under `torch.nn` (`nn.Linear`, `torch.nn.modules.loss._Loss`)."""
    if base in ("torch.nn.Module", "torch.nn.modules.module.Module"):
        return True
    if base.startswith("torch.nn.") and not base.startswith(("torch.nn.functional.", "torch.nn.init.",
                                                            "torch.nn.utils.", "torch.nn.parameter.")):
        name = base.rsplit(".", 1)[1]
        return name.lstrip("_")[:1].isupper() and name not in ("Parameter", "ParameterList", "ParameterDict",
                                                               "Buffer", "UninitializedParameter")
    return False


class Tree:
    """The whole tree's classes, functions and names, from the summaries: what a dotted name is
    (following re-exports), a class's bases, methods, subclasses and what its attributes hold."""

    def __init__(self, summaries: list[ModuleSummary], module_bases: list[str]) -> None:
        self.functions: dict[str, FunctionInfo] = {q: f for s in summaries for q, f in s.functions.items()}
        self.classes: dict[str, ClassInfo] = {q: c for s in summaries for q, c in s.classes.items()}
        self.tables: dict[str, list[str]] = {q: t for s in summaries
                                             for q, t in ((f"{s.module}.{k}", v) for k, v in s.function_tables.items())}
        self.module_bases = set(module_bases)
        for s in summaries:  # "module.*": what `getattr(module, name)` of a name the code does not show may give
            self.tables[f"{s.module}.*"] = [q for q in (*s.functions, *s.classes) if q.rpartition(".")[0] == s.module
                                             and not q.rpartition(".")[2].startswith("_")] + [
                f"{s.module}.{k}" for k, v in s.imports.items() if v.startswith(f"{s.module}.") and not k.startswith("_")]
        # names a module imports (a package's `__init__` re-exporting `from .loop import f`)
        self.imported: dict[str, str] = {f"{s.module}.{k}": v for s in summaries for k, v in s.imports.items()}
        # module-level objects -> the class they were made from
        self.instances: dict[str, str] = {f"{s.module}.{k}": v for s in summaries for k, v in s.instances.items()}
        self.modules = {s.module: s.star_imports for s in summaries}  # -> what it imports with `*`
        # a class as some file names it -> what each file's calls of it pass (records' fields)
        self.builds: dict[str, list[dict]] = {}
        self.top_calls: dict[str, list[dict[str, str]]] = {}  # callee -> `registrations` of its module-level calls
        for s in summaries:
            for callee, passed in s.builds.items():
                self.builds.setdefault(callee, []).append(passed)
        self._canonical: dict[str, str] = {}
        self._is_module: dict[str, bool] = {}
        self._children: dict[str, list[str]] | None = None
        self._mro: dict[str, tuple[str, ...]] = {}  # `mro`'s answers
        self._subclasses: dict[str, tuple[str, ...]] = {}  # `subclasses`' answers
        self._overrides: dict[tuple[str, str], tuple[str, ...]] = {}  # `overrides`' answers
        self._named: dict[str, list[str]] | None = None  # method name -> the classes defining it
        self._register(summaries)
        _mark_descriptors(self)

    def _register(self, summaries: list[ModuleSummary]) -> None:
        """Fill each registry table (registries.py) with what the tree's module-level calls of its
        registrar hand over: `register_method("dopri5", Dopri5)` puts `Dopri5` in `METHODS`."""
        registrars = {f"{s.module}.{name}": found for s in summaries for name, found in s.registrars.items()}
        for s in summaries:
            for callee, calls in s.registrations.items():
                name = self.canonical(callee)
                self.top_calls.setdefault(name, []).extend(calls)
                if name in self.tables:  # `METHODS["rk4"] = RK4` in a module importing `METHODS`
                    table, key, param = name, STORED, ""
                elif name in registrars:
                    local, key, param = registrars[name]
                    table = f"{name.rpartition('.')[0]}.{local}"
                else:
                    continue
                for passed in calls:
                    held = passed.get(key) or passed.get(param)
                    if held and held not in self.tables.setdefault(table, []):
                        self.tables[table].append(held)

    def canonical(self, name: str) -> str:
        """The tree's own name for a dotted name, following re-exports: `pkg.utils.f` is
        `pkg.utils.loop.f` when `pkg/utils/__init__.py` does `from .loop import f` (or `import *`).
        A prefix that is a module of the tree names that module, even where its package re-exports a name that
        shadows it (`pkg/__init__.py` doing `from .odeint import odeint`: `pkg.odeint.SOLVERS` is the
        table of module `pkg.odeint`)."""
        if name in self._canonical:
            return self._canonical[name]
        seen = {name}
        cur = name
        for _ in range(8):
            if defines(self, cur):
                break
            nxt = None
            # the longest prefix that a module re-exports, then the rest of the name
            parts = cur.split(".")
            for cut in range(len(parts), 0, -1):
                prefix = ".".join(parts[:cut])
                if cut < len(parts) and prefix in self.modules:
                    continue
                if prefix in self.imported:
                    nxt = ".".join([self.imported[prefix], *parts[cut:]])
                    break
            if (nxt := nxt or _star_exported(self, parts)) is None or nxt in seen:  # `import *` last
                break
            seen.add(nxt)
            cur = nxt
        self._canonical[name] = cur
        return cur

    # ------------------------------------------------------------------ classes
    def is_module_class(self, qual: str, seen: frozenset[str] = frozenset()) -> bool:
        """Derives from `torch.nn.Module` (through the tree, or configured bases); or has a
        `forward` and a base from outside the tree that is not a known plain class (a
        pre-commit run sees only the changed files: `class Block(SomeLayer)` is almost always a module)."""
        if qual in self._is_module:
            return self._is_module[qual]
        if qual in seen:
            return False
        info = self.classes.get(qual)
        result = False
        if info is not None:
            for base in map(self.canonical, info.bases):
                if base in self.module_bases or _is_torch_module(base):
                    result = True
                elif base in self.classes:
                    if self.is_module_class(base, seen | {qual}):
                        result = True
                elif self._outside_base_may_be_module(base) and self.method(qual, "forward"):
                    result = True
        self._is_module[qual] = result
        return result

    def validators(self, qual: str) -> list[str]:
        """The pydantic validators a model of the tree's class `qual` runs when it is built."""
        return [f"{owner}.{name}" for owner in self.mro(qual) for name in sorted(self.classes[owner].methods)
                if (fn := self.functions.get(f"{owner}.{name}")) is not None and fn.validator]

    def base_among(self, qual: str, bases: frozenset[str]) -> str | None:
        """The first of `bases` a class of the tree derives from, through the tree's classes (pydantic's
        `BaseModel`, `torch.autograd.Function`, a recurrent module: `class LSTM(RNN, nn.LSTM)`), or None."""
        return next((base for owner in self.mro(qual) for base in map(self.canonical, self.classes[owner].bases)
                     if base in bases), None) if qual in self.classes else None

    @staticmethod
    def _outside_base_may_be_module(base: str) -> bool:
        if base in PLAIN_BASES or base.startswith(NON_MODULE_PREFIXES):
            return False
        if base.startswith("torch.") and not base.startswith("torch.nn."):
            return False
        return base.rsplit(".", 1)[-1][:1].isupper()

    def mro(self, qual: str) -> tuple[str, ...]:
        """The class and the tree's classes it derives from, nearest first (kept: the classes and what
        `canonical` answers never change once asked)."""
        known = self._mro.get(qual)
        if known is not None:
            return known
        order, queue, seen = [], deque([qual]), set()
        while queue:
            cur = queue.popleft()
            if cur in seen or cur not in self.classes:
                continue
            seen.add(cur)
            order.append(cur)
            queue.extend(self.canonical(b) for b in self.classes[cur].bases)
        self._mro[qual] = found = tuple(order)
        return found

    def method(self, cls: str, name: str, skip_self: bool = False) -> str | None:
        for owner in self.mro(cls)[1 if skip_self else 0:]:
            if name in self.classes[owner].methods:
                return f"{owner}.{name}"
        return None

    def attribute_class(self, cls: str, attr: str, declared: bool = False) -> str | None:
        """The class of what an attribute holds: one built in it (`self.rnn = nn.LSTM(...)`); with
        `declared`, the class the annotation of the parameter stored in it names (`transform: Transform`)."""
        for owner in self.mro(cls):
            info = self.classes[owner]
            target = (info.declared if declared else info.submodules).get(attr)
            if target:
                return self.canonical(target)
        return None

    def overrides(self, cls: str, name: str) -> tuple[str, ...]:
        """The methods called `name` that the tree's subclasses of `cls` define themselves (kept, as `mro`:
        a base with hundreds of subclasses is asked about often)."""
        known = self._overrides.get((cls, name))
        if known is None:
            known = self._overrides[(cls, name)] = tuple(
                f"{sub}.{name}" for sub in self.subclasses(cls) if name in self.classes[sub].methods)
        return known

    def expand_table(self, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """What a name stands for when called: each function or class of a module-level table it
        names (`LOSSES`), each one a function returns (`"pkg.select()"`, what `select` returned), or
        the name itself. An instance stays "Class()": what a class called gives (`"pkg.Noise()"`),
        what a table's entry called gives (`"pkg.SOLVERS()"`, each entry's), and what a call of a
        class returned (`"pkg.select()()"`) is an instance of each class."""
        if name.endswith("()"):
            inner = name[:-2]
            if inner in seen:  # a function returning its own call
                return []
            seen = seen | {inner}
            if inner.endswith("()"):
                return [f"{c}()" for c in self.expand_table(inner, seen) if c in self.classes]
            target = self.canonical(inner)
            if target in self.classes:
                return [f"{target}()"]
            if target in self.tables:  # `SOLVERS[name]()`: what calling each entry gives
                return [n for held in self.tables[target] for n in self.expand_table(f"{held}()", seen)]
            owner, _, method = target.rpartition(".")
            if target not in self.functions and owner in self.classes:  # `self.make()`: inherited, or overridden
                return returned(self, dispatched(self, owner, method), seen)
            return returned(self, [target], seen)
        key = self.canonical(name)
        return [self.canonical(n) for n in self.tables.get(key, [key])]

    def attribute_callables(self, cls: str, attr: str) -> list[str]:
        """The functions and classes an attribute may hold: those `cls` and its bases put there, and,
        since `self` may be an instance of a subclass, those a subclass puts there in its stead
        (`struct = Chain` in a base, `struct = Tree` in a subclass: `self.struct(...)` builds either)."""
        out: list[str] = []
        for owner in [*self.mro(cls), *self.subclasses(cls)]:
            for name in self.classes[owner].callables.get(attr, []):
                if not name.startswith("self:"):
                    out.extend(n for n in self.expand_table(name) if n not in out)
                made = self.functions.get(self.canonical(name[:-2])) if name.endswith("()") else None
                if made is not None and made.wraps and name not in out:
                    out.append(name)  # `self.act = make_act(kind)`: the function `make_act` defines and returns
        return out

    def attribute_methods(self, cls: str, attr: str) -> list[str]:
        """The methods of its own instance an attribute holds (`self.fn = getattr(self, "name")`):
        a name, or "prefix*" for each method whose name starts so."""
        return [name[5:] for owner in self.mro(cls) for name in self.classes[owner].callables.get(attr, [])
                if name.startswith("self:")]

    def methods_named(self, cls: str, prefix: str) -> list[tuple[str, int]]:
        """Each method of `cls` (inherited or its own) and of its subclasses whose name starts with
        `prefix`: what `getattr(self, f"{prefix}{mode}")` may be."""
        out: list[tuple[str, int]] = []
        names = {m for owner in self.mro(cls) for m in self.classes[owner].methods if m.startswith(prefix)}
        for name in sorted(names):
            found = self.method(cls, name)
            if found:
                out.append((found, 1))
        for sub in self.subclasses(cls):
            out.extend((f"{sub}.{m}", 1) for m in sorted(self.classes[sub].methods) if m.startswith(prefix))
        return out

    def _instance_targets(self, target: str) -> list[tuple[str, int]]:
        """`helper.info_rank0(...)` and `helper(...)` with `helper = Helper()` at module level."""
        if target in self.instances:
            held = self.canonical(self.instances[target])
            run = self.call_method(held) if held in self.classes else None
            return [(run, 1)] if run else []
        owner, _, method = target.rpartition(".")
        held = self.instances.get(self.canonical(owner)) if owner else None
        if held is None or self.canonical(held) not in self.classes:
            return []
        found = self.method(self.canonical(held), method)
        return [(found, 1)] if found else []

    def call_method(self, cls: str) -> str | None:
        """What calling an instance runs: `forward` of a module (where that is torch's, the method it
        calls that the class overrides: `torch_hook`), `__call__` of anything else."""
        if self.is_module_class(cls):
            return self.method(cls, "forward") or self.method(cls, "__call__") or self.torch_hook(cls)
        return self.method(cls, "__call__")

    def torch_hook(self, cls: str) -> str | None:
        """`_conv_forward` of `class Conv1d(nn.Conv1d)`: what torch's own forward calls on `self`
        (`TORCH_FORWARD_HOOKS`), as the class or a base of the tree overrides it."""
        return next((found for hook in TORCH_FORWARD_HOOKS if (found := self.method(cls, hook))), None)

    def class_binding(self, qual: str) -> int:
        """The parameters a call of method `qual` on its class binds first: `cls` for a class method
        (`Base.make(x)`), none for a static method or a function."""
        fn = self.functions.get(qual)
        return 1 if fn is not None and fn.cls and fn.params[:1] == ["cls"] and not fn.is_static else 0

    def holds_unknown(self, cls: str, attr: str) -> bool:
        """Whether nothing the tree can tell is kept in `self.<attr>` of `cls`: no instance built there
        (of the tree's class or another), no class declared, no tensor."""
        return not any(attr in info.submodules or attr in info.declared or attr in info.tensor_attrs
                       for info in map(self.classes.get, self.mro(cls)) if info is not None)

    def protocol(self, name: str) -> list[tuple[str, int]]:
        """`x.name(...)` on an object of no class the tree can tell: the tree's methods called `name`,
        where they are one family (each defined in a subclass of the one topmost class that defines
        it: `LinearOperator._solve` and its overrides); none where unrelated classes define it. Reach
        follows these edges; what asks whether a call surely breaks (`targets`) does not."""
        if self._named is None:
            self._named = {}
            for qual, info in self.classes.items():
                for method in info.methods:
                    self._named.setdefault(method, []).append(qual)
        owners = self._named.get(name, [])
        tops = [c for c in owners if not any(b != c and b in owners for b in self.mro(c))]
        if len(tops) != 1:
            return []
        return [(f"{c}.{name}", 1) for c in owners if f"{c}.{name}" in self.functions]

    def subclasses(self, cls: str) -> tuple[str, ...]:
        """The tree's classes deriving from `cls`, nearest first (kept, as `mro`)."""
        known = self._subclasses.get(cls)
        if known is not None:
            return known
        if self._children is None:
            self._children = {}
            for qual, info in self.classes.items():
                for base in info.bases:
                    self._children.setdefault(self.canonical(base), []).append(qual)
        out, queue, seen = [], deque(self._children.get(cls, [])), set()
        while queue:
            cur = queue.popleft()
            if cur in seen:
                continue
            seen.add(cur)
            out.append(cur)
            queue.extend(self._children.get(cur, []))
        self._subclasses[cls] = found = tuple(out)
        return found


def _mark_descriptors(tree: Tree) -> None:
    """A method decorated with a class of the tree that defines `__get__` (a caching
    `lazy_property` of the package's own) is read as an attribute whose getter runs it: a
    property, as `property` itself makes one."""
    for qual, fn in tree.functions.items():
        if fn.is_property or fn.cls is None or fn.cls not in tree.classes:
            continue
        for decorator in fn.decorators:
            made = tree.canonical(decorator)
            if made in tree.classes and "__get__" in tree.classes[made].methods:
                fn.is_property = True
                tree.classes[fn.cls].properties.add(qual.rpartition(".")[2])
                break


def attribute_made(tree: Tree, cls: str, attr: str) -> list[str]:
    """What a method of the instance returned, stored in `self.<attr>` by `cls`, its bases or its
    subclasses (`self.criterion = self.init_criterion()`): what that method, or each override of it in
    the subclasses, returns (a base's `init_criterion` may only raise)."""
    return [n for owner in [*tree.mro(cls), *tree.subclasses(cls)] for made in tree.classes[owner].made_by.get(attr, [])
            for n in returned(tree, dispatched(tree, *made[:-2].rsplit(".", 1)))]


def dispatched(tree: Tree, cls: str, method: str) -> list[str | None]:
    """The methods `self.<method>()` may run on an instance of `cls`: its own or inherited one (None
    where it has none), and each override in its subclasses."""
    return [tree.method(cls, method), *tree.overrides(cls, method)]


def returned(tree: Tree, functions: list[str | None], seen: frozenset[str] = frozenset()) -> list[str]:
    """What calls of the tree's `functions` return, each expanded as `Tree.expand_table` expands it."""
    return [n for f in functions if f in tree.functions
            for held in tree.functions[f].returns_functions for n in tree.expand_table(held, seen)]


def defines(tree: Tree, name: str) -> bool:
    """Whether `name` is a function, class, table or module-level object of the tree, as it names them."""
    return name in tree.functions or name in tree.classes or name in tree.tables or name in tree.instances


def _star_exported(tree: Tree, parts: list[str]) -> str | None:
    """`pkg.utils.f` (as `parts`) where `pkg.utils`, the longest prefix that is a module of the tree,
    does `from .boxes import *` and `pkg.utils.boxes` defines or imports `f` (itself, or through a `*`
    of its own), `f` being no module of the tree: `pkg.utils.boxes.f`, then the rest of the name. A
    name starting with `_` is not exported. A module of the tree that its package's `*` import shadows
    (`pkg/integrate/__init__.py` doing `from .solve_ivp import *`, which binds `solve_ivp` to the function
    of that name after the module) is the function when the name ends there."""
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if module not in tree.modules:
            continue
        if parts[cut].startswith("_") or f"{module}.{parts[cut]}" in tree.modules and cut + 1 < len(parts):
            return None
        found = _star_source(tree, module, parts[cut])
        return ".".join([found, *parts[cut + 1:]]) if found else None
    return None


# per tree: (module, name) -> the star module's name for it (`_star_source`), None where none has it
_STAR_SOURCES: weakref.WeakKeyDictionary[Tree, dict[tuple[str, str], str | None]] = weakref.WeakKeyDictionary()


def _star_source(tree: Tree, module: str, name: str) -> str | None:
    """`star.name` for the first module `module` imports with `*` that defines or imports `name`, or
    imports it with a `*` of its own; each (module, name) asked once per tree (a cycle of stars has none)."""
    known = _STAR_SOURCES.setdefault(tree, {})
    if (module, name) in known:
        return known[module, name]
    known[module, name] = None
    for star in tree.modules.get(module, ()):
        held = f"{star}.{name}"
        if defines(tree, held) or held in tree.imported or _star_source(tree, star, name):
            known[module, name] = held
            break
    return known[module, name]
