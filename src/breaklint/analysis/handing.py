"""What calls hand over, for reach (reach.py): the tree's functions, classes and instances passed
to a constructor and stored in an attribute (`self.head = head`), or passed to a function for a
parameter it calls (`sde.f(t, y)`); and the trace-time conditions the calls to a function are made
under (`self.training`), which its findings then name; and the classes that provide an interface a
parameter is annotated with, without deriving from it (`implementers`).
"""

from __future__ import annotations

from collections import deque

from .hierarchy import RNN_MODULES, TOO_BROAD, Tree
from .summary import CallRef, FunctionInfo, ModuleSummary


# The offset `Handing.calling` gives a function reached as the maker of the function called: one that defines a
# function and returns it (`def make_tau(variant): def tau(p, t): ...; return tau`), whose call was handed over or
# kept (`super().__init__(make_tau("b"))`, `self.act = make_act(kind)`): only that inner function runs there, as a
# decorator's wrapper does, so reach records the edge as a "wrapper" one
RETURNED_WRAPPER = -1


class Handing(Tree):
    """The tree's calls as they hand things over; `Reach` walks them and fills `callers`."""

    def __init__(self, summaries: list[ModuleSummary], module_bases: list[str]) -> None:
        super().__init__(summaries, module_bases)
        # callee -> the reached calls that resolve to it: (caller, call, offset of bound `self`)
        self.callers: dict[str, list[tuple[str, CallRef, int]]] = {}
        self.reached: set[str] = set()
        self.root_set: dict[str, None] = {}  # the roots found, in order (a set would order the walk by hash)
        # the roots found only as what the tree hands a function compiling its parameter (`compiled_arguments`):
        # the tree's own code calls them, through what compile returned, with what it has
        self.handed_roots: set[str] = set()
        self._built: dict[str, list[tuple[CallRef, int]]] | None = None
        self._setter_methods: set[str] | None = None  # `_setters`
        self._compilers: list[str] | None = None  # `compilers`
        self._implementers: dict[str, list[str]] = {}  # interface class -> `implementers`

    def targets(self, cls: str | None, call: CallRef) -> list[tuple[str, int]]:
        """The functions a call may run (`Reach.targets`)."""
        raise NotImplementedError

    def implementers(self, cls: str) -> list[str]:
        """The tree's classes that provide what interface `cls` declares without deriving from it: where
        `cls` defines two or more methods (dunders aside) and none has a body of its own (`raise
        NotImplementedError`, `...`, `@abstractmethod`), each other class, outside its family, that has
        a method of every one of those names. A parameter annotated `cls` may hold one of those as well
        (`controller: StepSizeController` handed an `IntegralController` that declares no base)."""
        if cls not in self._implementers:
            self._implementers[cls] = self._find_implementers(cls)
        return self._implementers[cls]

    def _find_implementers(self, cls: str) -> list[str]:
        info = self.classes.get(cls)
        if info is None or cls in TOO_BROAD:
            return []
        declared = {m for m in info.methods if not m.startswith("__")}
        if len(declared) < 2 or not all(self.functions[q].abstract for m in declared
                                        if (q := f"{cls}.{m}") in self.functions):
            return []
        family = {cls, *self.mro(cls), *self.subclasses(cls)}
        return [other for other in sorted(self.classes) if other not in family
                and all(self.method(other, m) for m in declared)]

    def handed(self, cls: str, attr: str, seen: set[str] | None = None) -> list[str]:
        """What the callers of a constructor hand over for the parameter it stores in `attr`
        (`ClassInfo.from_params`): functions and classes by name, instances as "Class()"; a class
        the constructor builds itself from the parameter (`self.rnn = rnn_layer(...)`) as its instance."""
        stored = self._stored_param(cls, attr)
        if stored is None:
            return []
        init, spec = stored
        held = self.passed_to(init, spec.removesuffix("()"), seen)
        if not spec.endswith("()"):
            return held
        # a class handed over and built by the constructor: an instance of it
        return [f"{h}()" for h in held if not h.endswith("()") and handed_method(h) is None]

    def _stored_param(self, cls: str, attr: str) -> tuple[str, str] | None:
        """(the constructor, its parameter as `ClassInfo.from_params` names it) that `attr` of an
        instance of `cls` keeps, from the class or the nearest base that stores it; None if none does."""
        for owner in self.mro(cls):
            spec = self.classes[owner].from_params.get(attr)
            if spec is not None:
                method, _, param = spec.rpartition("#")  # "set_processor#processor": a setter's
                return f"{owner}.{method or '__init__'}", param
        return None

    def _sites(self, function: str) -> list[tuple[CallRef, int]]:
        """The calls that run `function`, with the parameters each binds first: the reached ones, and
        for a constructor or a setter every call of the tree (modules are built, and their parts set,
        outside compiled code)."""
        sites = [(call, offset) for _, call, offset in self.callers.get(function, [])]
        if function.endswith(".__init__") or function in self._setters() or function in self.compilers():
            sites += self._constructions().get(function, [])
        return sites

    def compilers(self) -> list[str]:
        """The functions that hand a parameter of theirs to torch.compile (`FunctionInfo.compiled_params`)."""
        if self._compilers is None:
            self._compilers = [qual for qual, fn in self.functions.items() if fn.compiled_params]
        return self._compilers

    def passed_to(self, function: str, name: str, seen: set[str] | None = None) -> list[str]:
        """What the calls of `function` hand over for its parameter `name` (`CallRef.passed`), a
        parameter handed on (`"@f#p"`) followed to its own callers. A constructor counts every call
        of the tree, reached or not (modules are built outside compiled code); other functions, the
        reached calls."""
        fn, seen = self.functions.get(function), set() if seen is None else seen
        if fn is None or f"{function}#{name}" in seen or name not in fn.params and not (
                name.startswith("**") and fn.var_keywords):
            return []
        seen.add(f"{function}#{name}")  # (once per question: a hand-over met again adds nothing new)
        sites = self._sites(function)
        out: list[str] = []
        if name in fn.name_defaults and not (sites and all(_passes(fn, call, offset, name) for call, offset in sites)):
            out.append(fn.name_defaults[name])  # `def run(x, semiring=LogSemiring)` called without it
        for call, offset in sites:
            for held in _handed_for(fn, call, offset, name):
                if held.startswith("@"):
                    where, _, param = held[1:].partition("#")
                    more = self.passed_to(where, param, seen)
                elif held.startswith("%") and held.endswith("()"):  # an instance of what the attribute holds
                    more = [f"{made}()" for made in self.attribute_built(held[:-2])]
                elif held.startswith("%"):
                    owner, _, attr = held[1:].partition("#")
                    more = self.attribute_held(owner, attr, seen)
                else:
                    more = [held]
                out.extend(h for h in more if h not in out)
        return out

    def handed_for(self, function: str, call: CallRef, offset: int, name: str) -> list[str]:
        """What one call of `function` hands over for its parameter `name` (`CallRef.passed`)."""
        fn = self.functions[function]
        return _handed_for(fn, call, offset, name) if name in fn.params and _passes(fn, call, offset, name) else []

    def user_supplied(self, function: str, name: str, seen: set[str] | None = None) -> bool:
        """Whether parameter `name` of `function` may hold what a compile root was handed from outside
        the tree (an objective, a vector field): a root's parameter that no call of the tree gives,
        or one that a call hands down from such a parameter (`"@f#p"`)."""
        fn, seen = self.functions.get(function), set() if seen is None else seen
        if fn is None or name not in fn.params or f"{function}#{name}" in seen:
            return False
        seen.add(f"{function}#{name}")
        sites = self._sites(function)
        if not sites:
            return self.called_from_outside(function)
        for call, offset in sites:
            for held in _handed_for(fn, call, offset, name):
                where, _, param = held[1:].partition("#")
                if held.startswith("@") and self.user_supplied(where, param, seen):  # the caller's, handed down
                    return True
        return False

    def called_from_outside(self, function: str) -> bool:
        """Whether `function` is a root whose arguments come from outside the tree (a module's forward, an entry
        point, `torch.compile(self.step)`), not only one the tree hands a compiling wrapper and then calls itself."""
        return function in self.root_set and function not in self.handed_roots

    def attribute_supplied(self, cls: str, attr: str) -> bool:
        """Whether the attribute holds what the constructor was handed for a parameter that may hold
        what a compile root was handed from outside the tree (`user_supplied`)."""
        stored = self._stored_param(cls, attr)
        return stored is not None and not stored[1].endswith("()") and self.user_supplied(*stored)

    def attribute_held(self, cls: str, attr: str, seen: set[str] | None = None) -> list[str]:
        """What attribute `attr` of an instance of `cls` holds, handed over as an argument
        (`Solve.apply(self.solver, x)`): the instance built in it, or of the class its annotation
        names (`solver: Solver`, which dispatch widens to the subclasses), and the functions,
        classes and instances stored in it or handed to the constructor for it."""
        seen = set() if seen is None else seen
        if cls not in self.classes or f"%{cls}#{attr}" in seen:
            return []
        seen.add(f"%{cls}#{attr}")
        out: list[str] = []
        for made in (self.attribute_class(cls, attr), self.attribute_class(cls, attr, declared=True)):
            if made in self.classes and f"{made}()" not in out:
                out.append(f"{made}()")
        for held in [*self.attribute_callables(cls, attr), *self.handed(cls, attr, seen)]:
            if held not in out:
                out.append(held)
        if not out and self.method(cls, attr) is not None:  # a method, bound (`super().__init__(self.initial_state)`)
            out.append(f"{cls}():{attr}")
        for owner in self.mro(cls):  # a recurrent module built there (`self.rnn = nn.LSTM(...)`), for BL413
            info = self.classes[owner]
            for made in [info.submodules.get(attr), *(c[:-2] for c in info.callables.get(attr, ()) if c[-2:] == "()")]:
                if made and self.canonical(made) in RNN_MODULES and f"{self.canonical(made)}()" not in out:
                    out.append(f"{self.canonical(made)}()")
        return out

    def attribute_built(self, held: str) -> list[str]:
        """The tree's classes that "%Class#attr" (`self.<attr>(...)` in a method of `Class`) builds:
        those the class, its bases or its subclasses put in the attribute."""
        owner, _, attr = held[1:].partition("#")
        if owner not in self.classes:
            return []
        return [c for c in self.attribute_callables(owner, attr) if c in self.classes]

    def instance_class(self, held: str) -> str | None:
        """The tree's class of an instance handed over ("Class()"); None for anything else."""
        if not held.endswith("()"):
            return None
        cls = self.canonical(held[:-2])
        return cls if cls in self.classes else None

    def calling(self, held: list[str], method: str = "") -> list[tuple[str, int]]:
        """What `x.method(...)` runs (`x(...)` with no method) where `x` holds one of the things
        handed over: an instance's `method` and its overrides (calling it: its forward or
        `__call__`); a function or class by name, called: the function, or the class's constructor
        (a "f()" for what `f` returns)."""
        out: list[tuple[str, int]] = []
        for one in held:
            if not method and (bound := handed_method(one)) is not None:  # `closure(x)`, `sf.closure` handed over
                if (cls := self.instance_class(bound[0])) is not None:
                    out.extend(self._dispatch(cls, bound[1]))
                continue
            instance = self.instance_class(one)
            if instance is not None:
                if method:
                    out.extend(self._dispatch(instance, method))
                elif run := self.call_method(instance):
                    out.append((run, 1))
                continue
            if method and one in self.classes:  # `semiring.sum(x)` on a class handed over: its static or class method
                if (found := self.method(one, method)) is not None and found in self.functions:
                    out.append((found, self.class_binding(found)))
                continue
            if one.endswith("()"):  # what a call returned: each instance among it, and a function the callee made
                out.extend(self.calling([h for h in self.expand_table(one) if h.endswith("()")], method))
                if not method and self.canonical(one[:-2]) in self.functions:
                    wrapper = CallRef("wrapper", one[:-2], 0, 0, 0, 0)
                    out.extend((made, RETURNED_WRAPPER) for made, _ in self.targets(None, wrapper))
            for target in self.expand_table(one) if not method else ():
                if target in self.functions:
                    out.append((target, 0))
                elif target in self.classes and (init := self.method(target, "__init__")):
                    out.append((init, 1))  # a class called: its constructor runs
                elif target.endswith(".apply"):  # `return ScanFn.apply`: that autograd function runs
                    out.extend(self.targets(None, CallRef("name", target, 0, 0, 0, 0)))
        return out

    def _dispatch(self, held: str, name: str) -> list[tuple[str, int]]:
        """The methods `x.name(...)` runs on an instance of class `held` (`Reach._dispatch`)."""
        raise NotImplementedError

    def _constructions(self) -> dict[str, list[tuple[CallRef, int]]]:
        """Each constructor (`Class.__init__`), setter and function compiling a parameter (`compilers`) ->
        the tree's calls that run it and hand over a function, class or instance of the tree, with the
        number of parameters they bind first."""
        if self._built is None:
            self._built = {}
            setters = {*self._setters(), *self.compilers()}
            names = {setter.rpartition(".")[2] for setter in setters}
            for fn in self.functions.values():
                for call in fn.calls:
                    if not call.passed or not (call.kind in ("name", "super", "paramcall")
                                               or call.kind == "self" and call.target in names):
                        continue
                    for target, offset in self.targets(fn.cls, call):
                        if target.endswith(".__init__") or target in setters:
                            self._built.setdefault(target, []).append((call, offset))
        return self._built

    def _setters(self) -> set[str]:
        """The methods that store a parameter in an attribute, other than constructors
        (`ClassInfo.from_params`: `self.set_processor(p)`, then `self.processor(x)` runs what `p` held)."""
        if self._setter_methods is None:
            self._setter_methods = {f"{qual}.{spec.partition('#')[0]}" for qual, info in self.classes.items()
                                    for spec in info.from_params.values() if "#" in spec}
        return self._setter_methods

    def reached_when(self) -> dict[str, tuple[dict[str, bool], str]]:
        """The reached functions that compile reaches only under trace-time conditions (a loss called
        under `if self.training:`): for each, those conditions (text -> whether it is a half-precision
        check) and the function whose calls they guard. A function also reached with no condition, or
        under different ones on different paths, is not in it."""
        outgoing: dict[str, list[tuple[str, CallRef]]] = {}
        for callee, sites in self.callers.items():
            for caller, call, _ in sites:
                outgoing.setdefault(caller, []).append((callee, call))
        free: set[str] = set()
        queue = deque(r for r in self.root_set if r in self.reached)
        while queue:  # reached on some path with no condition
            qual = queue.popleft()
            if qual not in free:
                free.add(qual)
                queue.extend(t for t, call in outgoing.get(qual, []) if not call.conditions and t in self.reached)
        when: dict[str, tuple[dict[str, bool], str]] = {}
        mixed: set[str] = set()
        conditional = [q for q in sorted(self.reached) if q not in free]
        for _ in range(8):  # settles in as many rounds as the longest chain of conditional calls
            changed = False
            for target in conditional:
                if target in mixed:
                    continue
                options: list[tuple[dict[str, bool], str]] = []
                from_mixed = False
                for caller, call, _ in self.callers.get(target, []):
                    if caller in free:
                        options.append((dict(call.conditions), caller))
                    elif caller in when:
                        outer, via = when[caller]
                        options.append(({**outer, **call.conditions}, via))
                    from_mixed = from_mixed or caller in mixed
                if from_mixed or any(conds != options[0][0] for conds, _ in options):
                    mixed.add(target)  # different conditions on different paths: none to name
                    when.pop(target, None)
                    changed = True
                elif options and when.get(target) != options[0]:
                    when[target] = options[0]
                    changed = True
            if not changed:
                break
        return when


def _passes(fn: FunctionInfo, call: CallRef, offset: int, name: str) -> bool:
    """Whether `call` of `fn` gives parameter `name` an argument (by keyword, by position unless it is
    keyword-only, or maybe through `*args`)."""
    return call.star or name in call.kwargs or not fn.keyword_only(name) \
        and fn.params.index(name) - offset < len(call.args)


def _handed_for(fn: FunctionInfo, call: CallRef, offset: int, name: str) -> list[str]:
    """What `call` of `fn` hands over for parameter `name` (`CallRef.passed`), by keyword or position; a
    parameter the call does not name, where it hands on its caller's `**kwargs` (`Module(dim, **kwargs)`),
    is what that caller's callers hand over by keyword ("@caller#**name")."""
    if name.startswith("**"):  # a keyword landing in `fn`'s own `**kwargs`
        return call.passed.get(name[2:], []) if name[2:] in call.kwargs else _forwarded(call, name[2:])
    if name in call.kwargs:
        return call.passed.get(name, [])
    index = fn.params.index(name) - offset
    positional = index < len(call.args) and not fn.keyword_only(name)
    return call.passed.get(str(index), []) if positional else _forwarded(call, name)


def _forwarded(call: CallRef, name: str) -> list[str]:
    return [f"{held}{name}" for held in call.passed.get("**", ())]


def handed_method(held: str) -> tuple[str, str] | None:
    """("Class()", method) for a bound method of an instance built in compiled code ("Class():method",
    `CallRef.passed`); None for anything else."""
    made, sep, method = held.rpartition("():")
    return (f"{made}()", method) if sep and made and method.isidentifier() else None


def compiled_arguments(tree: Handing) -> tuple[list[str], list[str]]:
    """The functions that torch.compile traces because the tree hands them to a function that compiles its
    parameter (`CudaGraphWrapper(self.compute_grad)` of `self._func = torch.compile(func)`): what runs where
    what each call hands over is called. The calls count whether compile reaches them or not (a wrapper is
    built outside compiled code), as a constructor's do. Two lists: those a function hands over (its own
    code then calls what compile returned), and those the module level hands over or a decorator
    compiles (`step = maybe_compile(train_step)`, `@compile_step`: called from outside, as any
    compiled function is)."""
    inside: list[str] = []
    outside: list[str] = []
    for qual in tree.compilers():
        fn = tree.functions[qual]
        for param in fn.compiled_params:
            inside.extend(found for found, _ in tree.calling(tree.passed_to(qual, param)) if found not in inside)
            # a class called at module level binds `self` first
            owner, _, name = qual.rpartition(".")
            callee, offset = (owner, 1) if name == "__init__" and owner in tree.classes else (qual, 0)
            key = f"#{fn.params.index(param) - offset}"
            held = [h for passed in tree.top_calls.get(callee, []) if (h := passed.get(key) or passed.get(param))]
            outside.extend(found for found, _ in tree.calling(held) if found not in outside)
    for qual, fn in tree.functions.items():  # `@compile_step` on a method: a decorator compiling its first parameter
        for decorator in fn.decorators:
            compiler = tree.functions.get(tree.canonical(decorator))
            if compiler is not None and compiler.params and compiler.params[0] in compiler.compiled_params \
                    and qual not in outside:
                outside.append(qual)
    return inside, outside
