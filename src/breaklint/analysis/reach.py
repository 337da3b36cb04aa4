"""The tree level: which functions torch.compile traces, and what their symbolic values hold.

Works on `ModuleSummary`s only, never on syntax trees; what the tree's names and classes are it
asks of `Tree` (hierarchy.py). `Reach` follows every edge compile
follows (methods of the own class and overrides in subclasses, `super()`, submodules and helper
objects held in attributes, functions held in attributes or tables, module-level functions,
constructors; a method of an attribute whose class an annotation declares, and its overrides in
the tree's subclasses of that class; the methods of what a factory function or a property returns,
and the `__enter__`/`__exit__` of a context manager of the tree), starting from each module's
`forward` and every compiled function; the validators of a pydantic model built in reached code
start a walk of their own (pydantic calls them, and dynamo traces each as a frame of its own). `Values`
then resolves symbolic values: a parameter holds what the reached call sites pass (joined), a
call returns what its callee returns (a helper that returns what it was handed, `default(val, d)`,
what that one call passes).
"""

from __future__ import annotations

from collections import deque

from .handing import Handing
from .hierarchy import TOO_BROAD, is_protocol
from .summary import CallRef, FunctionInfo, ModuleSummary
from .values import (ASSUMED, TENSOR, UNKNOWN, Val, elem, field, item, join, op, override, param, record_of, ret,
                     returned_by)


class Reach(Handing):
    """Which functions torch.compile traces, over every summary in the tree."""

    def __init__(self, summaries: list[ModuleSummary], module_bases: list[str],
                 entry_points: list[str] | None = None) -> None:
        super().__init__(summaries, module_bases)
        self.entry_points = list(entry_points or [])
        self.entries = [e for s in summaries for e in s.entries]
        self.disabled_calls: list[tuple[str, CallRef, str]] = []  # caller, call, disabled callee
        self.pydantic_builds: list[tuple[str, CallRef, str]] = []  # caller, call, pydantic model built
        # (caller, id(call), callee) of the edges to methods found by name alone (`Tree.protocol`): a
        # callee's break says nothing of whether that call breaks
        self.loose: set[tuple[str, int, str]] = set()
        self.reached = self._compute()

    # ------------------------------------------------------------------ the walk
    def roots(self) -> list[str]:
        roots: list[str] = []
        for qual in self.classes:
            if self.is_module_class(qual):
                for name in ("forward", "__call__"):  # a module may wrap its call in `__call__`
                    if name in self.classes[qual].methods:
                        roots.append(f"{qual}.{name}")
        roots += [q for q, f in self.functions.items() if f.compiled]
        if self.entry_points:
            import fnmatch

            patterns = [p for p in self.entry_points if any(c in p for c in "*?[")]
            exact = {self.canonical(p) for p in self.entry_points if p not in patterns}
            for qual in [*self.functions, *self.classes]:
                if qual in exact or any(fnmatch.fnmatchcase(qual, p) for p in patterns):
                    self.entries.append(qual)
        for entry in map(self.canonical, self.entries):
            if entry in self.functions:
                roots.append(entry)
            elif entry in self.classes:
                call = self.method(entry, "forward") or self.method(entry, "__call__")
                if call:
                    roots.append(call)
        return roots

    def _compute(self) -> set[str]:
        reached: set[str] = set()
        # ordered as found, not hashed: the walk's order decides each callee's list of callers, which
        # the value resolution joins in order, so a set here made results vary with PYTHONHASHSEED
        self.root_set = dict.fromkeys(r for r in self.roots() if r in self.functions)
        queue = deque(r for r in self.root_set if not self.functions[r].disabled)
        edges: set[tuple[str, int, str]] = set()
        # calls of what a parameter holds (`sde.f(t, y)`): what they run depends on the callers
        # found so far, so they are followed again once the walk has found every caller
        late: list[tuple[str, CallRef]] = []
        while True:
            while queue:
                qual = queue.popleft()
                if qual in reached:
                    continue
                reached.add(qual)
                fn = self.functions[qual]
                for call in fn.calls:
                    if call.kind == "paramcall":
                        late.append((qual, call))
                    self._follow(qual, call, edges, queue)
                    if call.kind == "name" and self.is_pydantic_model(model := self.canonical(call.target)):
                        # building a pydantic model breaks (an opaque extension, BL411): its validators,
                        # called from pydantic-core, are then traced as frames of their own
                        self.pydantic_builds.append((qual, call, model))
                        for validator in self.validators(model):
                            self.root_set.setdefault(validator)
                            queue.append(validator)
                for attr in fn.reads if fn.cls else ():
                    self._follow(qual, CallRef("property", attr, 0, 0, 0, 0), edges, queue)
            for qual, call in late:
                self._follow(qual, call, edges, queue)
            if not queue:  # a parameter still handed nothing the tree knows: its methods of that name
                for qual, call in late:
                    method = call.target.rpartition(":")[2]
                    if is_protocol(method) and not self.targets(self.functions[qual].cls, call):
                        self._follow(qual, call, edges, queue, self.protocol(method))
            if not queue:
                return reached

    def _follow(self, qual: str, call: CallRef, edges: set[tuple[str, int, str]], queue: deque[str],
                found: list[tuple[str, int]] | None = None) -> None:
        """Walk the edges of `call`: what `targets` finds, or `found`, methods by name alone
        (`Tree.protocol`), whose edges are kept in `loose` too."""
        loose = found is not None or call.kind == "duck"
        if found is None:
            found = self.protocol(call.target) if call.kind == "duck" else self.targets(self.functions[qual].cls, call)
        for target, offset in found:
            if target not in self.functions or (qual, id(call), target) in edges:
                continue
            edges.add((qual, id(call), target))
            if loose:
                self.loose.add((qual, id(call), target))
            self.callers.setdefault(target, []).append((qual, call, offset))
            if self.functions[target].disabled:
                if call.kind != "property":  # a read has no call to report
                    self.disabled_calls.append((qual, call, target))
            else:
                queue.append(target)

    def targets(self, cls: str | None, call: CallRef) -> list[tuple[str, int]]:
        """The functions a call may run, each with the number of leading parameters bound by it
        (1 for a method called on an instance, `self`). For `self.method(...)`, the overrides
        of `method` in subclasses too: a base class's forward that calls `self.apply_transform(...)`
        reaches every subclass's `apply_transform`."""
        out: list[tuple[str, int]] = []
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
        if call.kind == "typedcall":
            declared, _, method = call.target.rpartition(":")
            return self._dispatch(self.canonical(declared), method)
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
                init = self.method(target, "__init__") if call.kind == "name" else None
                return [(init, 1)] if init else []
            owner, _, attr = target.rpartition(".")
            if attr == "apply" and owner in self.classes and self.is_autograd_function(owner):
                # `Clip.apply(x)` runs `Clip.forward(ctx, x)`: dynamo traces it
                forward = self.method(owner, "forward")
                return [(forward, 1)] if forward else []
            if target not in self.functions and call.kind == "name":
                return self._instance_targets(target) or [(target, 0)]
            fn = self.functions.get(target)
            # `Base.make(x)` of a classmethod binds `cls` first
            return [(target, 1 if fn and fn.cls and fn.params[:1] == ["cls"] and not fn.is_static else 0)]
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
            if not out:  # an attribute that a base class's constructor stores what its callers hand over
                out.extend(self.calling(self.handed(cls, call.target)))
            return out
        if call.kind == "property":  # `self.scale` read: the getter of a property, or of its overrides
            found = [self.method(cls, call.target), *self.overrides(cls, call.target)]
            return [(f, 1) for f in found if f is not None and f in self.functions and self.functions[f].is_property]
        if call.kind == "super":
            first = self.method(cls, call.target, skip_self=True)
            return [(first, 1)] if first else []
        if call.kind == "selfattr":
            held = self.attribute_class(cls, call.target)
            for method in self.attribute_methods(cls, call.target):  # `self.fn = getattr(self, ...)`
                out.extend(self.targets(cls, CallRef("self", method, call.line, call.col, call.end_line, call.end_col)))
            if held in self.classes and (run := self.call_method(held)):
                out.append((run, 1))  # an instance built in it: its forward or __call__
            # what else it holds, called: a function, an instance, a class (`noise_cls = Noise`: built)
            out.extend(self.calling(self.attribute_callables(cls, call.target)))
            out.extend(self.calling(self.handed(cls, call.target)))
            return out
        if call.kind == "attrcall":
            attr, _, name = call.target.partition(".")
            held = self.attribute_class(cls, attr) or self.attribute_class(cls, attr, declared=True)
            if held is not None:
                out.extend(self._dispatch(held, name))
            out.extend(self.calling(self.attribute_callables(cls, attr), name))  # `self.sampler.sample()`
            out.extend(self.calling(self._property_returns(self.method(cls, attr)), name))  # `self.helper.sample()`
            out.extend(self.calling(self.handed(cls, attr), name))
            return out
        return out

    def _property_returns(self, method: str | None) -> list[str]:
        """What the getter `method` returns, if it is a property: the functions, classes and instances
        (`Handing.calling` runs them)."""
        getter = self.functions.get(method or "")
        return getter.returns_functions if getter is not None and getter.is_property else []

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


# What a compile root's unannotated parameter is taken to hold: an assumed tensor (values.py), told
# apart from one that the code shows, and from what is computed from it, so that a callee's own use
# of the parameter itself can overrule the guess.
ASSUMED_PARAMETER = Val("tensor", ref=ASSUMED, name="parameter")


class Values:
    """Symbolic values resolved over the reached tree (context-insensitive, cycles are unknown)."""

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self._memo: dict[Val, Val] = {}
        self._busy: set[Val] = set()
        self._built: dict[str, list[dict[str, Val]]] | None = None

    def resolve(self, value: Val) -> Val:
        if not value.symbolic:
            return value
        if value in self._memo:
            return self._memo[value]
        if value in self._busy:
            return UNKNOWN
        self._busy.add(value)
        try:
            result = self._resolve(value)
        finally:
            self._busy.discard(value)
        if result.symbolic:  # what cannot be decided is not a tensor
            result = UNKNOWN
        self._memo[value] = result
        return result

    def _resolve(self, value: Val) -> Val:
        kind = value.kind
        if kind == "op":
            return op(*(self.resolve(p) for p in value.parts))
        if kind == "cmp":
            return op(*(self.resolve(p) for p in value.parts), comparison=True)
        if kind == "join" and value.name == "default":
            return override(*(self.resolve(p) for p in value.parts))
        if kind == "join":
            return join(*(self.resolve(p) for p in value.parts))
        if kind == "elem" and value.name.startswith("."):  # `out.boxes` of a value now decided: a record's field
            base = self.resolve(value.parts[0])
            got = field(base, value.name[1:])
            if got is None and base.kind == "object" and base.ref:
                got = self._member(self.reach.canonical(base.ref), value.name[1:])
            return self.resolve(got) if got is not None else UNKNOWN
        if kind == "elem" and value.name.startswith("'"):  # `d["boxes"]` of a value now decided
            return self.resolve(item(self.resolve(value.parts[0]), value.name[1:]))
        if kind == "elem":
            index = int(value.name) if value.name.lstrip("-").isdigit() else None
            return self.resolve(elem(self.resolve(value.parts[0]), index))
        if kind == "param":
            return self._param(value.ref, value.name)
        if kind == "ret" and value.parts:  # a call with what it passes: of this call, where that decides
            passed = self._passed_through(value)
            bare = Val("ret", ref=value.ref, name=value.name, owner=value.owner)
            return self.resolve(passed) if passed is not None else self.resolve(bare)
        if kind == "ret":
            return self._returns(value)
        return UNKNOWN

    def _passed_through(self, value: Val) -> Val | None:
        """What a call of a function by name returns where the function returns what it was handed
        (`default(val, d)`, `pair(t)`, `x * 2`): its return value with each parameter this call
        passes replaced by the argument. None where that does not apply (a class, several
        targets, a return that uses no parameter)."""
        call = CallRef(value.ref, value.name, 0, 0, 0, 0)
        if self.reach.canonical(value.name) in self.reach.classes:
            return None
        found = self.reach.targets(value.owner or None, call)
        if len(found) != 1 or found[0][0] not in self.reach.functions:
            return None
        target, offset = found[0]
        fn = self.reach.functions[target]
        if target.endswith(".__init__") or not _uses_params(fn.returns, target):
            return None
        passed: dict[str, Val] = {}
        for key, arg in zip(value.keys, value.parts):
            index = int(key[1:]) + offset if key.startswith("#") else None
            if index is None and key in fn.params:
                passed[key] = arg
            elif index is not None and index < len(fn.params):
                passed[fn.params[index]] = arg
        if fn.returns.kind == "join":
            # `default(mask, self.mask)`: a compile root's parameter is only guessed a tensor, and a
            # helper that picks between it and another value is no evidence that it is one
            passed = {name: UNKNOWN if self.resolve(arg) == ASSUMED_PARAMETER else arg for name, arg in passed.items()}
        return _substitute(fn.returns, target, passed) if passed else None

    def _member(self, cls: str, attr: str) -> Val | None:
        """What an instance of the tree's class `cls` keeps in `attr` (`self.sched.timesteps`): a
        tensor its methods store there, a submodule, or the value its constructor sets."""
        for owner in self.reach.mro(cls) if cls in self.reach.classes else ():
            info = self.reach.classes[owner]
            if attr in info.tensor_attrs:
                return TENSOR
            if attr in info.submodules:
                return Val("object", ref=info.submodules[attr])
            if attr in info.attr_values:
                init = f"{owner}.__init__"
                if info.attr_values[attr].kind == "unknown" and attr in info.kept_params \
                        and self.reach.callers.get(init):
                    # an instance built in compiled code (`Problem(y0, t_eval)`): what the calls passed
                    return param(init, info.kept_params[attr])
                return info.attr_values[attr]
            if len(info.callables.get(attr, ())) == 1 and attr in info.returned_calls:
                return info.returned_calls[attr]  # that one call, with what it passed
            if returned := returned_by(info.callables.get(attr, ())):
                return join(*returned)  # what a call stored there returned (`self.t = make_table()`)
            if attr in info.properties:  # what the getter returns (or an override's)
                return ret("property", attr, cls)
        info = self.reach.classes.get(cls)
        if info is not None and attr in info.fields:  # a record annotated as a parameter's type
            return self._field(cls, info.fields, attr, info.positional)
        return None

    def _field(self, cls: str, fields: dict[str, Val], attr: str, positional: bool) -> Val | None:
        """A field of the tree's record `cls`: what it declares, or else what the tree's builds of
        the record pass for it (`Tableau(alpha=torch.tensor([...]), ...)` in a module-level table),
        by keyword, or by position where the record takes its fields in order."""
        if fields[attr].kind != "unknown":
            return fields[attr]
        if self._built is None:
            self._built = {}
            for callee, passed in self.reach.builds.items():
                self._built.setdefault(self.reach.canonical(callee), []).extend(passed)
        keys = (attr, f"#{list(fields).index(attr)}") if positional else (attr,)
        passed = [build[key] for build in self._built.get(cls, []) for key in keys if key in build]
        return join(*passed) if passed else None

    def _param(self, function: str, name: str) -> Val:
        fn = self.reach.functions.get(function)
        if fn is None:
            return UNKNOWN
        if name in fn.declared:
            return fn.declared[name]
        known: list[Val] = []
        passed = False
        for _caller, call, offset in self.reach.callers.get(function, []):
            arg = self._argument(fn, call, offset, name)
            if arg is None:
                continue
            passed = True
            resolved = self.resolve(arg)
            if resolved == ASSUMED_PARAMETER and name in fn.scalar_uses:
                # a root's parameter passed on to one this function uses as a flag or an integer
                # (`use_cache` handed down to `if use_cache:`): only assumed a tensor, and not one here
                continue
            if resolved.kind != "unknown":
                known.append(resolved)
        if known:
            return join(*known)
        if name in fn.fallback:
            return fn.fallback[name]
        if passed and name in fn.optional:
            # `forward(self, x, flag=None)` that the tree calls with `flag=<something unknown>`: a
            # parameter left out by default is no evidence of a tensor when the tree's own callers
            # pass it something else
            return UNKNOWN
        # What compile is called with: a parameter of `forward` or of a compiled function with no
        # default (or `None`) and no annotation is taken to be a tensor, unless the function uses it
        # as a flag (`if p:`: a tensor of more than one element has no truth value) or as an integer
        # (`x[:p]`, `range(p)`).
        # A parameter handed on to a callee's parameter that is used so (`odeint(..., method=method)`,
        # and `method == "rk4"` in `odeint`) is such a value too.
        return ASSUMED_PARAMETER if function in self.reach.root_set and not self._scalar(function, name) else UNKNOWN

    def _scalar(self, function: str, name: str, seen: set[str] | None = None) -> bool:
        """Whether parameter `name` of `function` is used as a Python scalar: by the function, or by a
        function of the tree it hands the parameter on to (followed on down, each parameter once), or
        it is compared for equality with a parameter that is."""
        fn = self.reach.functions[function]
        if name in fn.scalar_uses:
            return True
        handed = f"@{function}#{name}"
        seen = set() if seen is None else seen
        seen.add(handed)
        for peer in fn.scalar_peers.get(name, ()):  # `adjoint_method != method`, `method` a string
            if f"@{function}#{peer}" not in seen and self._scalar(function, peer, seen):
                return True
        for call in fn.calls:
            if not any(handed in held for held in call.passed.values()):
                continue
            for target, offset in self.reach.targets(fn.cls, call):
                callee = self.reach.functions.get(target)
                for index, theirs in enumerate(callee.params if callee else ()):
                    key = theirs if theirs in call.kwargs else str(index - offset)  # as `passed_to` keys it
                    if handed in call.passed.get(key, ()) and f"@{target}#{theirs}" not in seen \
                            and self._scalar(target, theirs, seen):
                        return True
        return False

    @staticmethod
    def _argument(fn: FunctionInfo, call: CallRef, offset: int, name: str) -> Val | None:
        """What `call` passes for parameter `name` of `fn`; None when it cannot be told."""
        if name in call.kwargs:
            return call.kwargs[name]
        if name not in fn.params:
            return None
        index = fn.params.index(name) - offset
        if index < 0:
            return None
        if index < len(call.args):
            return call.args[index]
        if call.star:
            return None
        return None  # not passed: the default applies, which the fallback already describes

    def _returns(self, value: Val) -> Val:
        call = CallRef(value.ref, value.name, 0, 0, 0, 0)
        cls = value.owner or None
        if call.kind == "name" and (made := self.reach.canonical(call.target)) in self.reach.classes:
            # a constructor gives an instance; a record of another file, its fields (what each
            # declares, or what the tree's builds of it pass)
            info = self.reach.classes[made]
            if not info.fields:
                return Val("object", ref=made)
            return record_of({name: self._field(made, info.fields, name, info.positional) or UNKNOWN
                              for name in info.fields})
        outs = []
        for target, _ in self.reach.targets(cls, call):
            fn = self.reach.functions.get(target)
            if fn is None or target.endswith(".__init__"):
                continue
            outs.append(self.resolve(fn.returns))
        return join(*outs) if outs else UNKNOWN


def _uses_params(value: Val, function: str) -> bool:
    if value.kind == "param":
        return value.ref == function
    return value.kind != "ret" and any(_uses_params(p, function) for p in value.parts)


def _substitute(value: Val, function: str, passed: dict[str, Val]) -> Val:
    """`value` with each parameter of `function` that `passed` names replaced by what was passed."""
    if value.kind == "param":
        return passed.get(value.name, value) if value.ref == function else value
    if value.kind == "ret" or not value.parts:
        return value
    return Val(value.kind, ref=value.ref, name=value.name, owner=value.owner,
               parts=tuple(_substitute(p, function, passed) for p in value.parts), keys=value.keys)
