"""The tree level: which functions torch.compile traces.

Works on `ModuleSummary`s only, never on syntax trees; what the tree's names and classes are it
asks of `Tree` (hierarchy.py). `Reach` follows every edge compile
follows (methods of the own class and overrides in subclasses, `super()`, submodules and helper
objects held in attributes, functions held in attributes or tables, module-level functions,
constructors; a method of an attribute whose class an annotation declares, and its overrides in
the tree's subclasses of that class; the methods of what a factory function or a property returns,
and the `__enter__`/`__exit__` of a context manager of the tree; a method called on an attribute
that holds what nothing in the tree tells, such as a registry's build, by its name where one family
of the tree's classes alone defines it and no common object has it), starting from each module's
`forward` and every compiled function; the validators of a pydantic model built in reached code
start a walk of their own (pydantic calls them, and dynamo traces each as a frame of its own).
`Values` (resolve.py) then resolves the symbolic values over what this walk found.
"""

from __future__ import annotations

import fnmatch
from collections import deque

from .handing import RETURNED_WRAPPER, Handing, compiled_arguments
from .hierarchy import AUTOGRAD_FUNCTIONS, JIT_SCRIPT, NUMBA_JIT, PYDANTIC_MODELS, TOO_BROAD, attribute_made, dispatched
from .methods import guessable, is_protocol
from .optimizer_classes import torch_optimizer
from .summary import NOT_CALLS, CallRef, FunctionInfo, ModuleSummary


# The number of leading parameters a call binds where it hands the callee none of its arguments (past
# every parameter): `Clip.apply(x)` runs `Clip.backward(ctx, grad)` with gradients, not with `x`
HANDS_NOTHING = 1 << 16


class Reach(Handing):
    """Which functions torch.compile traces, over every summary in the tree."""

    def __init__(self, summaries: list[ModuleSummary], module_bases: list[str],
                 entry_points: list[str] | None = None) -> None:
        super().__init__(summaries, module_bases)
        self.entry_points = list(entry_points or [])
        self.entries = [e for s in summaries for e in s.entries]
        self.disabled_calls: list[tuple[str, CallRef, str]] = []  # caller, call, disabled callee
        self.operator_calls: list[tuple[str, CallRef, str]] = []  # caller, call, an op of torch.library called
        self.script_calls: list[tuple[str, CallRef, str]] = []  # caller, call, a TorchScript function dynamo skips
        self.numba_calls: list[tuple[str, CallRef, str]] = []  # caller, call, a function numba compiles
        self.pydantic_builds: list[tuple[str, CallRef, str]] = []  # caller, call, pydantic model built
        # caller, call, the tree's optimizer class built, the torch optimizer it derives from
        self.optimizer_builds: list[tuple[str, CallRef, str, str]] = []
        # (caller, id(call), callee) of the edges to methods found by name alone (`Tree.protocol`): a
        # callee's break says nothing of whether that call breaks
        self.loose: set[tuple[str, int, str]] = set()
        self.reached = self._compute()
        # the decorators reached only as such: of their code, only the wrapper they return runs in compiled
        # code; their own statements ran when the decorated function was defined
        self.wrapper_only = {q for q in self.reached if self.functions[q].wraps and q not in self.root_set
                             and all(call.kind == "wrapper" for _, call, _ in self.callers.get(q, []))}

    # ------------------------------------------------------------------ the walk
    def roots(self) -> list[str]:
        roots = [f"{qual}.{name}" for qual in self.classes if self.is_module_class(qual)
                 for name in ("forward", "__call__") if name in self.classes[qual].methods]  # (or it wraps its call)
        roots += [q for q, f in self.functions.items() if f.compiled]
        if self.entry_points:
            patterns = [p for p in self.entry_points if is_pattern(p)]
            exact = {self.canonical(p) for p in self.entry_points if p not in patterns}
            matched = [qual for qual in [*self.functions, *self.classes]
                       if qual in exact or any(fnmatch.fnmatchcase(qual, p) for p in patterns)]
            self.entries += matched + sorted(exact.difference(matched))  # (a base's method: resolved below)
        for entry in map(self.canonical, self.entries):
            owner, _, attr = entry.rpartition(".")
            if entry in self.functions:
                roots.append(entry)
            elif entry in self.classes:
                call = self.method(entry, "forward") or self.method(entry, "__call__")
                if call:
                    roots.append(call)
            elif owner in self.classes and (inherited := self.method(owner, attr)):
                roots.append(inherited)  # `torch.compile(Trainer().step)` of a method a base defines
            else:  # a module-level instance (`opt = Opt(...)`), or its method: `torch.compile(opt.step)`
                roots.extend(found for found, _ in self._instance_targets(entry))
        for fn in self.functions.values():  # `torch.compile(self.step)`, of a local instance's method, ...
            roots.extend(found for call in fn.compiles for found, _ in self.targets(fn.cls, call))
        inside, outside = compiled_arguments(self)  # `Wrapper(self.step)`, `maybe_compile(step)`: compiled
        roots.extend(outside)
        self.handed_roots = set(inside).difference(roots)
        roots.extend(inside)
        return roots

    def _compute(self) -> set[str]:
        reached: set[str] = set()
        # ordered as found, not hashed: the walk's order decides each callee's list of callers, which
        # the value resolution joins in order, so a set here made results vary with PYTHONHASHSEED
        self.root_set = dict.fromkeys(r for r in self.roots() if r in self.functions)
        queue = deque(r for r in self.root_set if not (self.functions[r].disabled or self.functions[r].operator))
        edges: set[tuple[str, int, str]] = set()
        # calls of what a parameter holds (`sde.f(t, y)`): what they run depends on the callers
        # found so far, so they are followed again once the walk has found every caller
        late: list[tuple[str, CallRef]] = []
        attribute_calls: list[tuple[str, CallRef]] = []  # `self.head.predict(x)`: guessed by name at the end
        while True:
            while queue:
                qual = queue.popleft()
                if qual in reached:
                    continue
                reached.add(qual)
                fn = self.functions[qual]
                for call in fn.calls:
                    if call.kind == "paramcall" or call.target.startswith("paramcall|"):
                        late.append((qual, call))
                    elif call.kind == "attrcall":
                        attribute_calls.append((qual, call))
                    self._follow(qual, call, edges, queue)
                    if call.kind == "name":
                        _note_build(self, qual, call, queue)
                for attr in fn.reads if fn.cls else ():
                    self._follow(qual, CallRef("property", attr, 0, 0, 0, 0), edges, queue)
                for decorator in fn.decorators:  # `@cached` of the tree: its wrapper runs around each call
                    self._follow(qual, CallRef("wrapper", decorator, 0, 0, 0, 0), edges, queue)
                for hook in _hooks(self, fn.cls) if fn.cls is not None and qual.endswith(".forward") else ():
                    self._follow(qual, CallRef("hook", hook, 0, 0, 0, 0), edges, queue)
            for qual, call in late:
                self._follow(qual, call, edges, queue)
            if not queue:  # a parameter still handed nothing the tree knows: its methods of that name
                for qual, call in late:
                    if call.kind == "propread":
                        continue  # a read of what nothing hands over: no getter of that name by guess
                    method = call.target.rpartition(":")[2]
                    if is_protocol(method) and not self.targets(self.functions[qual].cls, call):
                        self._follow(qual, call, edges, queue, self.protocol(method))
                # an attribute holding what nothing the tree knows stored (`self.head = HEADS.build(cfg)`)
                for qual, call in attribute_calls:
                    attr, _, method = call.target.partition(".")
                    cls = self.functions[qual].cls
                    if guessable(method) and self.holds_unknown(cls, attr) and not self.targets(cls, call):
                        self._follow(qual, call, edges, queue, self.protocol(method))
            if not queue:
                return reached

    def _follow(self, qual: str, call: CallRef, edges: set[tuple[str, int, str]], queue: deque[str],
                found: list[tuple[str, int]] | None = None) -> None:
        """Walk the edges of `call`: what `targets` finds, or `found`, methods by name alone
        (`Tree.protocol`), whose edges are kept in `loose` too."""
        loose = found is not None or call.kind == "duck"
        if found is None:
            found = _found(self, qual, call)
        for target, offset in found:
            if target not in self.functions or (qual, id(call), target) in edges:
                continue
            edges.add((qual, id(call), target))
            if loose:
                self.loose.add((qual, id(call), target))
            if offset == RETURNED_WRAPPER:  # (the made function runs, as a decorator's wrapper: `Handing.calling`)
                made = CallRef("wrapper", target, call.line, call.col, call.end_line, call.end_col)
                self.callers.setdefault(target, []).append((qual, made, 0))
            else:
                self.callers.setdefault(target, []).append((qual, call, offset))
            callee = self.functions[target]
            if (apart := _kept_apart(self, callee)) is not None:  # (an op runs as a node)
                if call.kind not in NOT_CALLS:  # a read has no call to report, nor a wrapper or hook
                    apart.append((qual, call, target))
            else:
                queue.append(target)

    def targets(self, cls: str | None, call: CallRef) -> list[tuple[str, int]]:
        """The functions a call may run, each with the number of leading parameters bound by it
        (1 for a method called on an instance, `self`). For `self.method(...)`, the overrides
        of `method` in subclasses too: a base class's forward that calls `self.apply_transform(...)`
        reaches every subclass's `apply_transform`."""
        out: list[tuple[str, int]] = []
        if call.kind == "wrapper":
            return [(wrapper, 0) for wrapper in self._wrappers(call.target)]
        if call.kind == "hook":  # a forward hook of the module: a function, or a method of the class
            return self.calling([call.target])
        if call.kind == "propread":  # `dist.mean` read: the getter, where the method that edge finds is one
            kind, _, target = call.target.partition("|")
            read = CallRef(kind, target, call.line, call.col, call.end_line, call.end_col)
            return [(f, n) for f, n in self.targets(cls, read) if f in self.functions and self.functions[f].is_property]
        if call.kind == "name" and call.target.endswith("()"):  # what a call returned: each function or class
            if (made := self.canonical(call.target[:-2])) in self.classes:  # an instance called: `matcher(x)`
                run = self.call_method(made)
                return [(run, 1)] if run else []
            for held in self.expand_table(call.target):
                out.extend(self.targets(cls, CallRef("name", held, call.line, call.col, call.end_line, call.end_col)))
            return out
        if call.kind == "name" and self.canonical(call.target) in self.tables:
            for held in self.tables[self.canonical(call.target)]:
                out.extend(self.targets(cls, CallRef("name", held, call.line, call.col, call.end_line, call.end_col)))
            return out
        if call.kind == "paramcall":  # `p.method(...)` or `p(...)` on what the callers hand over for `p`
            where, _, method = call.target.rpartition(":")
            function, _, name = where.partition("#")
            return self.calling(self.passed_to(function, name), method)
        if call.kind == "retcall":  # `bm = make_noise(shape)` then `bm.sample(t)`: on what the call returned
            returned, _, method = call.target.rpartition(":")
            for held in self.expand_table(returned):
                if (instance := self.instance_class(held)) is not None:
                    out.extend(self._dispatch(instance, method))
                elif held in self.classes and (found := self.method(held, method)):
                    out.append((found, 0 if self.functions[found].is_static else 1))  # on the class itself
            return out
        if call.kind == "typedcall":  # `op.solve(x)` of `op: Op`, "Op:solve"; `traj.states.sink()`, "Traj|states:sink"
            return _chain_targets(self, None, call.target)
        if call.kind == "instcall":
            made, _, method = call.target.rpartition(":")
            if made.startswith("@"):  # built from a parameter: each class the callers hand over
                function, _, name = made[1:].partition("#")
                built = [h for h in self.passed_to(function, name) if h in self.classes]
            else:
                built = self.expand_table(made) if not made.startswith("%") else self.attribute_built(made)
            for held in built:
                if held not in self.classes:
                    continue
                found = self.method(held, method) if method else self.call_method(held)  # "Class:": called
                if found:
                    out.append((found, 1))
            return out
        if call.kind in ("name", "ref"):
            target = self.canonical(call.target)
            if target in self.classes:
                # a dataclass with no `__init__` of its own runs the one `dataclasses` writes, which calls
                # its `__post_init__` (of another class, nothing calls it)
                init = (self.method(target, "__init__") or (self.method(target, "__post_init__") if any(
                    self.classes[owner].fields for owner in self.mro(target)) else None)) \
                    if call.kind == "name" else None
                return [(init, 1)] if init else []
            owner, _, attr = target.rpartition(".")
            if attr == "apply" and owner in self.classes and self.base_among(owner, AUTOGRAD_FUNCTIONS):
                # `Clip.apply(x)` runs `Clip.forward(ctx, x)`: dynamo traces it, and `Clip.backward(ctx, g)`
                # where an input needs its gradient (a module's parameters do), which it hands nothing
                forward, backward = self.method(owner, "forward"), self.method(owner, "backward")
                return [(forward, 1)] * bool(forward) + [(backward, HANDS_NOTHING)] * bool(backward)
            if target not in self.functions and owner in self.classes \
                    and (inherited := self.method(owner, attr)) is not None:
                return [(inherited, self.class_binding(inherited))]  # `flags.debug.on()`, `on` of a base
            if target not in self.functions and self.canonical(owner) in self.tables:  # `SOLVERS[m].names()`
                return [found for held in self.expand_table(owner) for found in self.targets(
                    cls, CallRef("name", f"{held}.{attr}", call.line, call.col, call.end_line, call.end_col))]
            if target not in self.functions and call.kind == "name":
                return self._instance_targets(target) or [(target, 0)]
            return [(target, self.class_binding(target))]  # `Base.make(x)` of a classmethod binds `cls` first
        if cls is None:
            return out
        if call.kind == "self" and call.target.endswith("*"):
            return self.methods_named(cls, call.target[:-1])
        if call.kind == "self":
            first = self.method(cls, call.target)
            if first:
                out.append((first, 0 if self.functions.get(first) and self.functions[first].is_static else 1))
                # `self.loss_fn(x)` with `loss_fn` a property returning a function: that function
                out.extend(self.calling(self._property_returns(first)))
            out.extend((found, 1) for found in self.overrides(cls, call.target))
            if not out:  # what a base's constructor kept of its callers', or a method filled in (`self.criterion`)
                out.extend(self.calling([*self.handed(cls, call.target), *attribute_made(self, cls, call.target)]))
            return out
        if call.kind == "setter":  # `self.scale = s`: the setter of a property, or of its overrides
            return [(f, 1) for f in dispatched(self, cls, f"{call.target}.setter") if f is not None]
        if call.kind == "property":  # `self.scale` read: the getter of a property, or of its overrides
            found = dispatched(self, cls, call.target)
            return [(f, 1) for f in found if f is not None and f in self.functions and self.functions[f].is_property]
        if call.kind == "super":  # `super().forward(x)` in a subclass of `nn.Conv1d`: torch's, and its hook
            first = self.method(cls, call.target, skip_self=True) \
                or (self.torch_hook(cls) if call.target == "forward" else None)
            return [(first, 1)] if first else []
        if call.kind == "selfattr":
            held = self.attribute_class(cls, call.target)
            for method in self.attribute_methods(cls, call.target):  # `self.fn = getattr(self, ...)`
                out.extend(self.targets(cls, CallRef("self", method, call.line, call.col, call.end_line, call.end_col)))
            if held in self.classes and (run := self.call_method(held)):
                out.append((run, 1))  # an instance built in it: its forward or __call__
            elif held is None and (declared := self.attribute_class(cls, call.target, declared=True)):
                out.extend(self._declared_dispatch(declared, "forward" if self.is_module_class(declared)  # `net: Net`
                                                   else "__call__"))
            # what else it holds, called: a function, an instance, a class (`noise_cls = Noise`: built)
            out.extend(self.calling(self.attribute_callables(cls, call.target)))
            out.extend(self.calling(self.handed(cls, call.target)))
            return out
        if call.kind == "chaincall":  # `self.modules.optim.zero_grad()`
            return _chain_targets(self, cls, call.target)
        if call.kind == "attrcall":
            attr, _, name = call.target.partition(".")
            held = self.attribute_class(cls, attr)
            if held is not None:
                out.extend(self._dispatch(held, name))
            elif (held := self.attribute_class(cls, attr, declared=True)) is not None:
                out.extend(self._declared_dispatch(held, name))
            else:  # a base class's method, on an attribute its subclasses set: `self` may be any of them
                for built, declared in _subclass_attributes(self, cls, attr):
                    out.extend(self._declared_dispatch(declared, name) if built is None
                               else self._dispatch(built, name))
            out.extend(self.calling(self.attribute_callables(cls, attr), name))  # `self.sampler.sample()`
            out.extend(self.calling(self._property_returns(self.method(cls, attr)), name))  # `self.helper.sample()`
            out.extend(self.calling(self.handed(cls, attr), name))
            return out
        return out

    def _wrappers(self, decorator: str, depth: int = 3) -> list[str]:
        """The functions of the tree that make the wrapper a decorator puts around what it decorates:
        the decorator itself where it returns a function it defines, else those of what it returns a
        call of (`def cached(method): return _cached(method)`)."""
        fn = self.functions.get(name := self.canonical(decorator))
        if fn is None:
            return []
        if fn.wraps:
            return [name]
        if depth == 0:
            return []
        return [w for held in fn.returns_functions if held.endswith("()") for w in self._wrappers(held[:-2], depth - 1)]

    def _property_returns(self, method: str | None) -> list[str]:
        """What the getter `method` returns, if it is a property: the functions, classes and instances
        (`Handing.calling` runs them)."""
        getter = self.functions.get(method or "")
        return getter.returns_functions if getter is not None and getter.is_property else []

    def _declared_dispatch(self, declared: str, name: str) -> list[tuple[str, int]]:
        """`x.name(...)` on a value only declared of class `declared` (an annotation): what `_dispatch`
        finds, and the method of each class that provides the interface without deriving from it
        (`implementers`)."""
        return [found for cls in (declared, *self.implementers(declared)) for found in self._dispatch(cls, name)]

    def _dispatch(self, held: str, name: str) -> list[tuple[str, int]]:
        """`x.name(...)` on an instance of class `held`: its `name`, and, since `x` may hold an
        instance of any subclass (`transform: Transform`, then `self.transform.call_and_ladj(x)`),
        each override of `name` in the tree's subclasses of `held`."""
        out: list[tuple[str, int]] = []
        if held in self.classes:
            method = self.method(held, name)
            if method:
                out.append((method, 1))
        if held not in TOO_BROAD:
            out.extend((found, 1) for found in self.overrides(held, name))
        return out


def _chain_targets(reach: Reach, cls: str | None, target: str) -> list[tuple[str, int]]:
    """What a "chaincall" edge runs (`self.modules.optim.zero_grad()`, "modules.optim:zero_grad" of `cls`), or a
    "typedcall" (`cls` None) on a parameter annotated with a class (`op.solve(x)`, "Op:solve") or an attribute of
    one (`traj.states.sink()`, "Traj|states:sink"): the method on the class each attribute in turn holds (built
    there) or declares (an annotation, a record's field), widened to the subclasses of the last."""
    path, _, method = target.rpartition(":")
    if cls is None:
        declared, _, path = path.partition("|")
        cls = reach.canonical(declared)
    held = [cls]
    for attr in path.split(".") if path else ():
        held = [found for owner in held if (found := reach.attribute_class(owner, attr)
                                            or reach.attribute_class(owner, attr, declared=True)) in reach.classes]
    return [found for owner in held for found in reach._declared_dispatch(owner, method)]


def _subclass_attributes(reach: Reach, cls: str, attr: str) -> list[tuple[str | None, str]]:
    """(class built, or None and the class declared) of what each of `cls`'s subclasses stores in
    `self.<attr>` (`self.transform = Standardize(m)` in a subclass's constructor, which a method of
    the base calls: `self.transform.untransform(y)` in `Model.posterior`), once per class."""
    found: dict[str, str | None] = {}
    for sub in reach.subclasses(cls):
        if (built := reach.attribute_class(sub, attr)) is not None:
            found.setdefault(built, built)
        elif (declared := reach.attribute_class(sub, attr, declared=True)) is not None:
            found.setdefault(declared, None)
    return [(built, held) for held, built in found.items()]


def locked_cache_reads(reach: Reach) -> list[tuple[str, CallRef, str]]:
    """(caller, read, getter) for the first read, in each reached function, of each
    `functools.cached_property` the tree defines (`self.tokenizer.eot`, `tok.eot` of a parameter
    annotated with the class, `self.width`): up to Python 3.11 that read enters the property's lock,
    a context manager dynamo cannot enter. A later read of the same attribute of the same object in
    the function finds the value the first one stored.

    Dynamo does not resume after that break: it runs the function's call eagerly, and traces none of
    what the function calls from there on (whose reads, run eagerly, store their values too). So the
    reads after one that runs whenever the function does (outside its `if` branches and handlers) are
    not reported, nor those of a function that compiled code reaches only through calls made after it."""
    first: dict[str, list[tuple[CallRef, str]]] = {}
    stops: dict[str, int] = {}  # function -> the line of its first read that runs whenever it does
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        reads = [c for c in fn.calls if c.kind == "propread"]
        if fn.cls:
            reads += [CallRef("property", attr, *span) for attr, span in zip(fn.reads, fn.read_spans)]
        seen: set[str] = set()
        for read in sorted(reads, key=lambda c: (c.line, c.col)):
            getters = [f for f, _ in reach.targets(fn.cls, read) if reach.functions[f].locked_cache]
            if getters and read.target not in seen:
                seen.add(read.target)
                first.setdefault(caller, []).append((read, getters[0]))
                if fn.runs_always(read.line):
                    stops[caller] = read.line
                    break
    if not first:
        return []
    calls: dict[str, list[tuple[int, str]]] = {}
    for callee, edges in reach.callers.items():
        for caller, call, _ in edges:
            calls.setdefault(caller, []).append((call.line, callee))
    traced: set[str] = set()
    queue = deque(r for r in reach.root_set if r in reach.reached)
    while queue:
        qual = queue.popleft()
        if qual in traced:
            continue
        traced.add(qual)
        stop = stops.get(qual)
        # (a read of a property of `self` has no line of its own: it may come before the break)
        queue.extend(callee for line, callee in calls.get(qual, ()) if stop is None or line < stop)
    return [(caller, read, getter) for caller in sorted(first) if caller in traced for read, getter in first[caller]]


def _hooks(tree: Reach, cls: str) -> list[str]:
    """The forward hooks registered on a module of class `cls` (by it or a base), or, since the
    forward may be inherited, on one of a subclass: they run around its forward."""
    out: list[str] = []
    for qual in (*tree.mro(cls), *tree.subclasses(cls)):
        info = tree.classes.get(qual)
        out.extend(h for h in (info.hooks if info is not None else ()) if h not in out)
    return out


def is_pattern(entry: str) -> bool:
    """Whether a configured entry point is a glob pattern (`mylib.ops.fused_*`), not a dotted name."""
    return any(c in entry for c in "*?[")


def _note_build(tree: Reach, caller: str, call: CallRef, queue: deque[str]) -> None:
    """A call of a class of the tree that breaks where it is built: a pydantic model (an opaque extension
    validates it, BL411; its validators, called from pydantic-core, are then traced as frames of their own,
    roots of reach), or an optimizer deriving from one of torch's (its base's constructor sets attributes
    dynamo does not trace, BL451)."""
    built = tree.canonical(call.target)
    if tree.base_among(built, PYDANTIC_MODELS):
        tree.pydantic_builds.append((caller, call, built))
        for validator in tree.validators(built):
            tree.root_set.setdefault(validator)
            queue.append(validator)
    elif built in tree.classes and (base := next((b for owner in tree.mro(built) for b in map(
            tree.canonical, tree.classes[owner].bases) if torch_optimizer(b)), None)):
        tree.optimizer_builds.append((caller, call, built, base))


def _kept_apart(tree: Reach, fn: FunctionInfo) -> list[tuple[str, CallRef, str]] | None:
    """Where reach lists a call of `fn` rather than enter it: a function excluded from compilation, an op of
    torch.library, a TorchScript static method of an autograd Function (`_opaque_script`) or a function numba
    compiles (`@numba.njit`, `@jit(nopython=True)`: a dispatcher dynamo cannot call into, whose code never
    runs under dynamo); None for any other function."""
    if fn.disabled:
        return tree.disabled_calls
    if fn.operator:
        return tree.operator_calls
    if _opaque_script(tree, fn):
        return tree.script_calls
    return tree.numba_calls if any(d in NUMBA_JIT for d in fn.decorators) else None


def _opaque_script(tree: Reach, fn: FunctionInfo) -> bool:
    """A static method of an autograd Function compiled with TorchScript (`@staticmethod @script def
    _forward(x)`, called as `Entmoid15._forward(x)`): dynamo reads it off the class as the script function
    itself, which it skips, where it inlines one kept anywhere else (its Python function)."""
    return fn.is_static and fn.cls is not None and any(d in JIT_SCRIPT for d in fn.decorators) \
        and tree.base_among(fn.cls, AUTOGRAD_FUNCTIONS)


def _found(reach: Reach, qual: str, call: CallRef) -> list[tuple[str, int]]:
    """What `call` in `qual` runs: methods by name alone for a duck call (`Tree.protocol`), else its `targets`; for a
    method called on what a function returned where those tell nothing, the method of the class the function's
    return annotation names and its overrides (`-> VSATensor`, its body `x.as_subclass(cls)`), edges kept in `loose`:
    an annotation naming a base class says the method runs, not that the object was built here to break on."""
    if call.kind == "duck":
        return reach.protocol(call.target)
    found = reach.targets(reach.functions[qual].cls, call)
    returned, _, method = call.target.rpartition(":")
    if found or call.kind != "retcall" or not returned.endswith("()"):
        return found
    fn = reach.functions.get(reach.canonical(returned[:-2]))
    cls = reach.canonical(fn.declared_return) if fn is not None and fn.declared_return else None
    declared = reach._dispatch(cls, method) if cls in reach.classes else []
    reach.loose.update((qual, id(call), target) for target, _ in declared)
    return declared
