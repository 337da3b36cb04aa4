"""The tree level's values: what the symbolic values of the reached functions hold. A parameter holds
what the reached call sites pass (joined), a call returns what its callee returns (a helper that
returns what it was handed, `default(val, d)`, what that one call passes); what a compile root was
handed from outside the tree is taken to be a tensor. Works over `Reach` (reach.py), never on
syntax trees.
"""

from __future__ import annotations

from collections.abc import Callable

from .hierarchy import TENSOR_BASES
from .reach import Reach
from .summary import CallRef, FunctionInfo
from .values import (ASSUMED, ASSUMED_TENSOR, GUESSED_TENSOR, NUMPY_ARRAY, NUMPY_RESULTS, NUMPY_TAKING_ARRAYS, OPEN,
                     SPARSE, TENSOR, UNKNOWN, Val, elem, field, guessed_tensor, item, join, op, override, param,
                     record_of, ret, returned_by, tensor)


# What a compile root's unannotated parameter is taken to hold: an assumed tensor (values.py), told
# apart from one that the code shows, and from what is computed from it, so that a callee's own use
# of the parameter itself can overrule the guess.
ASSUMED_PARAMETER = Val("tensor", ref=ASSUMED, name="parameter")
# how many times a question whose answer met a cycle is asked again, the cycle closing on the last answers
ROUNDS = 3


class Values:
    """Symbolic values resolved over the reached tree (context-insensitive, cycles are unknown)."""

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self._memo: dict[Val, Val] = {}
        self._busy: set[Val] = set()
        # on a cycle: this round's answers of the values that met it, and the last round's (`resolve`)
        self._provisional: dict[Val, Val] = {}
        self._previous: dict[Val, Val] = {}
        self._cut = False  # the question being answered met a cycle
        self._built: dict[str, list[dict[str, Val]]] | None = None

    def resolve(self, value: Val) -> Val:
        if not value.symbolic:
            return value
        if value in self._memo:
            return self._memo[value]
        if value in self._busy or value in self._provisional:
            # on a cycle (a recursive helper): the answer of the last round, none in the first
            self._cut = True
            return self._provisional.get(value, self._previous.get(value, UNKNOWN))
        result, cut = self._on_cycle(self._answer, value)
        if cut and self._busy:
            self._provisional[value] = result  # for the rest of this round of the outermost question
            return result
        rounds = 0
        while cut and rounds < ROUNDS:
            # the outermost question met a cycle: ask again, the cycle now closing on the last round's
            # answers, until they settle; the answer then no longer hangs on which question came first
            self._previous, self._provisional, self._cut = {**self._provisional, value: result}, {}, False
            again = self._answer(value)
            cut, self._cut, rounds = self._cut and again != result, False, rounds + 1
            result = again
        self._previous, self._provisional = {}, {}
        self._memo[value] = result
        return result

    def _on_cycle(self, ask: Callable[[Val], Val], value: Val) -> tuple[Val, bool]:
        """`ask(value)`, and whether its answer met a cycle; a cycle met counts for the question around
        it too."""
        outer, self._cut = self._cut, False
        result = ask(value)
        cut, self._cut = self._cut, outer or self._cut
        return result, cut

    def _answer(self, value: Val) -> Val:
        self._busy.add(value)
        try:
            result = self._resolve(value)
        finally:
            self._busy.discard(value)
        return UNKNOWN if result.symbolic else result  # what cannot be decided is not a tensor

    def _resolve(self, value: Val) -> Val:
        kind = value.kind
        if value.is_sparse_when_all:  # a product, `torch.cat`, `.mT`: sparse when every operand is
            parts = [self.resolve(p) for p in value.parts]
            return SPARSE if all(p.is_sparse for p in parts) else op(*parts)
        if kind == "op" and value.name in ("keep", "keepguess"):  # `m.flatten()`: what `m` is
            held, on_cycle = self._on_cycle(self.resolve, value.parts[0])
            if held.is_tensor:
                return held
            # a receiver nothing tells of is guessed a tensor, unless what it lacks is a cycle's answer not
            # yet found (`state["mask"] = state["mask"].clone()`): the next round may find it
            guessed = held.kind == "unknown" and value.name == "keepguess" and not on_cycle
            return GUESSED_TENSOR if guessed else op(held)
        if kind == "op" and value.name in NUMPY_RESULTS:  # a NumPy call's result (`np.any(~row_mask)`)
            return _numpy_of([self.resolve(p) for p in value.parts], takes_arrays=value.name == NUMPY_TAKING_ARRAYS)
        if kind in ("op", "cmp"):
            parts = [self.resolve(p) for p in value.parts]
            if value.name == "guess" and all(p.kind == "unknown" for p in parts):
                # a method only tensors have, on what the tree decides nothing of: assumed a tensor
                return guessed_tensor(kind == "cmp")
            return op(*parts, comparison=kind == "cmp")
        if kind == "join" and value.name == "default":
            return override(*(self.resolve(p) for p in value.parts))
        if kind == "join":
            return join(*(self.resolve(p) for p in value.parts))
        if kind == "elem" and _module_result(value.parts[0]):
            # a piece of what a submodule gave (`out["boxes"]`, `scores, mask = self.head(x)`): a tensor
            # where its forward does not tell, as the module's whole result is
            got = self._resolve(Val("elem", name=value.name, owner=value.owner, parts=(_unmoduled(value.parts[0]),)))
            return TENSOR if got.kind == "unknown" else got
        if kind == "elem" and value.name.startswith("."):  # `out.boxes` of a value now decided: a record's field
            base = self.resolve(value.parts[0])
            got = field(base, value.name[1:])
            if got is None and base.kind == "object" and base.ref:
                got = self._member(self.reach.canonical(base.ref), value.name[1:])
            return self.resolve(got) if got is not None else UNKNOWN
        if kind == "elem" and value.name.startswith("'"):  # `d["boxes"]` of a value now decided
            got = self.resolve(item(self.resolve(value.parts[0]), value.name[1:]))
            if got.kind == "unknown" and value.owner:  # `state["mask"]`: else what the class stores there
                cls, _, kept = value.owner.partition("|")
                stored = self._member(self.reach.canonical(cls), kept)
                return self.resolve(stored) if stored is not None else UNKNOWN
            return got
        if kind == "elem" and value.keys and value.parts[0].kind == "ret" \
                and (picked := self._unpacked(value.parts[0], int(value.keys[0]), int(value.name))) is not None:
            return picked
        if kind == "elem":
            index = int(value.name) if value.name.lstrip("-").isdigit() else None
            return self.resolve(elem(self.resolve(value.parts[0]), index))
        if kind == "param":
            return self._param(value.ref, value.name, declared=value.owner != "passed")
        if kind == "ret" and value.parts:  # a call with what it passes: of this call, where that decides
            passed = self._passed_through(value)
            bare = Val("ret", ref=value.ref, name=value.name, owner=value.owner)
            result = self.resolve(passed) if passed is not None else self.resolve(bare)
            if result.kind == "unknown" and value.ref in ("paramcall", "attrcall") and self._handed_in(value):
                return ASSUMED_TENSOR
            return result
        if kind == "ret" and value.ref == "module":  # `self.head(x)`: a tensor, unless its forward tells more
            got = self._returns(_unmoduled(value))
            return TENSOR if got.kind == "unknown" or got.is_tensor and not (got.known_tensor or got.bool_shaped) \
                else got
        if kind == "ret":
            return self._returns(value)
        return UNKNOWN

    def _handed_in(self, value: Val) -> bool:
        """Whether a call of a parameter (`fun(x)`, `sde.f(t, y)`), or of what a constructor kept
        (`self.sde.f(t, y)`), applies what a compile root was
        handed from outside the tree (an objective, a vector field: `Handing.user_supplied`) to a
        tensor: it then gives what the root's inputs are taken to be, a tensor (assumed)."""
        if not any(self.resolve(p).is_tensor for p in value.parts):
            return False
        if value.ref == "attrcall":  # `self.sde.f(t, y)`: the object the constructor kept
            return bool(value.owner) and self.reach.attribute_supplied(value.owner, value.name.partition(".")[0])
        function, _, name = value.name.rpartition(":")[0].partition("#")
        return self.reach.user_supplied(function, name)

    def _passed_through(self, value: Val) -> Val | None:
        """What a call of a function by name returns where the function returns what it was handed
        (`default(val, d)`, `pair(t)`, `x * 2`): its return value with each parameter this call
        passes replaced by the argument. None where that does not apply (a class, several
        targets, a return that uses no parameter)."""
        if (single := _single_function(self.reach, value)) is None:
            return None
        target, offset, fn = single
        if not _uses_params(fn.returns, target):
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

    def _unpacked(self, call: Val, arity: int, index: int) -> Val | None:
        """Element `index` of what a call returns, unpacked into `arity` names (`y, mask = split(x,
        return_mask=True)`), where the function returns a tuple of that length on some paths and
        something else on others (`return y[mask]`): the unpacking takes one of the tuples. None where
        no such choice is made (one target, every return a tuple of that length, or none)."""
        returns = self._passed_through(call) if call.parts else None
        if returns is None:
            if (single := _single_function(self.reach, call)) is None:
                return None
            returns = single[2].returns
        alternatives = returns.parts if returns.kind == "join" else ()
        tuples = [a for a in alternatives if a.kind == "seq" and (len(a.parts) == arity or a.name == OPEN
                                                                   and len(a.parts) <= arity)]
        if not tuples or len(tuples) == len(alternatives) or not -arity <= index < arity:
            return None
        return self.resolve(join(*(elem(t, index) for t in tuples)))

    def _member(self, cls: str, attr: str) -> Val | None:
        """What an instance of the tree's class `cls` keeps in `attr` (`self.sched.timesteps`): a
        tensor its methods store there, a submodule, or the value its constructor sets."""
        for owner in self.reach.mro(cls) if cls in self.reach.classes else ():
            info = self.reach.classes[owner]
            if attr in info.sparse_attrs:
                return SPARSE
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
                held = info.attr_values[attr]  # (unknown: an instance of the class a parameter kept there declares)
                return held if held.kind != "unknown" else _instance_of(self.reach, info.declared.get(attr)) or held
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

    def _param(self, function: str, name: str, declared: bool = True) -> Val:
        fn = self.reach.functions.get(function)
        if fn is None:
            return UNKNOWN
        if declared and name in fn.declared:
            return fn.declared[name]
        known: list[Val] = []
        passed = False
        for _caller, call, offset in self.reach.callers.get(function, []):
            arg = _argument(fn, call, offset, name)
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
        if known or (typed := _instance_of(self.reach, fn.typed.get(name))) is not None:
            # no caller's value: `states: States` is an instance of it; an object from outside its family, one of it
            return join(*(_narrowed(self.reach, k, fn.typed.get(name)) for k in known)) if known else typed
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
        outside = self.reach.called_from_outside(function)
        return ASSUMED_PARAMETER if outside and not self._scalar(function, name) else UNKNOWN

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
                callee = self.reach.functions.get(target) if offset >= 0 else None  # (not a maker of what runs)
                for index, theirs in enumerate(callee.params if callee else ()):
                    key = theirs if theirs in call.kwargs else str(index - offset)  # as `passed_to` keys it
                    if handed in call.passed.get(key, ()) and f"@{target}#{theirs}" not in seen \
                            and self._scalar(target, theirs, seen):
                        return True
        return False

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
            outs.append(_or_declared(self.reach, self.resolve(fn.returns), fn))
        if not outs and call.kind in ("self", "selfattr") and cls and self.reach.attribute_supplied(cls, call.target):
            return ASSUMED_TENSOR  # `self._fun(x)`, `fun` stored by the constructor
        return join(*outs) if outs else UNKNOWN


def _or_declared(reach: Reach, returned: Val, fn: FunctionInfo) -> Val:
    """What a function gives: what its returns resolve to, or, where they tell nothing, what its return annotation
    says: a value (`-> torch.Tensor`), or an instance of the tree's class it names (`-> States`)."""
    if returned.kind != "unknown":
        return returned
    return fn.declared_result or _instance_of(reach, fn.declared_return) or returned


def _narrowed(reach: Reach, value: Val, declared: str | None) -> Val:
    """What a caller hands a parameter declared of the tree's class `declared`, as the annotation bounds it: an object
    of a class of the tree outside that family (a base's, what a function declared `-> Container` returns; a
    sibling's, that a call dispatched over every subclass handed) is an object of the class declared; an object of
    a subclass or of a class that implements its interface, and any other value, as it is."""
    cls = reach.canonical(declared) if declared else None
    if value.kind == "object" and value.ref in reach.classes and cls in reach.classes and value.ref != cls \
            and cls not in reach.mro(value.ref) and value.ref not in reach.implementers(cls):
        return Val("object", ref=cls)
    return value


def _instance_of(reach: Reach, name: str | None) -> Val | None:
    """An instance of the tree's class `name` (as an annotation writes it), or None where the tree has no such class
    or where it is a tensor (`class PSDMatrix(Tensor)`, a name for type checkers: what the callers hand tells)."""
    cls = reach.canonical(name) if name else None
    if cls not in reach.classes or reach.base_among(cls, TENSOR_BASES):
        return None
    return Val("object", ref=cls)


def _module_result(value: Val) -> bool:
    """What calling a submodule gave (`Evaluation._module_call`)."""
    return value.kind == "ret" and value.ref == "module"


def _unmoduled(value: Val) -> Val:
    """A submodule's call as the call of what the attribute holds: what its `forward` returns, bare."""
    return Val("ret", ref="selfattr", name=value.name, owner=value.owner) if _module_result(value) else value


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


def _argument(fn: FunctionInfo, call: CallRef, offset: int, name: str) -> Val | None:
    """What `call` passes for parameter `name` of `fn`; None when it cannot be told."""
    if name in call.kwargs:
        return call.kwargs[name]
    if name not in fn.params:
        return None
    if fn.keyword_only(name):
        return None
    index = fn.params.index(name) - offset
    if index < 0:
        return None
    if index < len(call.args):
        return call.args[index]
    if call.star:
        return None
    return None  # not passed: the default applies, which the fallback already describes


def _single_function(reach: Reach, value: Val) -> tuple[str, int, FunctionInfo] | None:
    """(target, offset of its parameters, its info) of the one function of the tree a call `value`
    runs; None for a class, a constructor, or a call with several targets or none."""
    if reach.canonical(value.name) in reach.classes:
        return None
    found = reach.targets(value.owner or None, CallRef(value.ref, value.name, 0, 0, 0, 0))
    if len(found) != 1 or found[0][0] not in reach.functions or found[0][0].endswith(".__init__"):
        return None
    target, offset = found[0]
    return target, offset, reach.functions[target]


def _numpy_of(operands: list[Val], takes_arrays: bool) -> Val:
    """A NumPy call's result on operands now decided: an array (a tensor to dynamo) of a tensor or a sequence,
    or, for a function that takes arrays, of a shape or of what the tree knows nothing of; else what
    arithmetic on them gives (dynamo folds an elementwise NumPy function of Python numbers into a constant)."""
    if any(p.is_tensor or p.kind == "seq" or (takes_arrays and p.kind in ("size", "unknown")) for p in operands):
        return NUMPY_ARRAY
    return op(*operands)
