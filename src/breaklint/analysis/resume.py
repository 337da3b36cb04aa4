"""Breaks that follow from other breaks: where dynamo cannot resume, and what it then runs eagerly.

When a break happens inside a call, dynamo ends the graph at the call and must rebuild, as
ordinary Python values, what the call stands on: the function and its arguments. A bound method
of an object built during tracing (`solver = Solver(...)`, then `solver.integrate(t)`) has no
source to rebuild it from (GB0092, a reconstruction failure). Dynamo then compiles only up to an
earlier point of the function, or none of it, and runs the rest eagerly (`unresumable_calls`).

Code that dynamo runs eagerly has each module constructor it calls compiled as a frame of its own,
on a module not yet initialized (GB0119, `eager_constructors`), and, up to Python 3.11, each list, set
or dict comprehension it runs (GB4347, `eager_comprehensions`). Besides a break inside a loop (one
whose code jumps back before it returns: `_eager_at`) or a `try`, dynamo runs a whole function eagerly
when it cannot rebuild, to resume after a break, an object the function built: one that keeps a
function taken from a parameter's default (`_abandoned`).

This needs the findings, not only the reach: the engine asks once every file's breaks are known.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterator

from .handing import handed_method
from .reach import Reach
from .summary import GENERATOR_CONSUMERS, UNPLACED, CallRef, FunctionInfo, within
from .values import MAX_DEPTH, Val

# the methods a `with` statement runs (a break there is the context manager's, not this one's)
_CONTEXT = ("__enter__", "__exit__")

Breaks = dict[str, list[tuple[int, str]]]  # function -> its own breaks: (line, "path:line"), in order


class Breaking(dict[str, str]):
    """`breaking`'s answer: each function whose call may break the graph, with where one break is
    (`path:line`). `only_for` holds, for a function whose break needs its `self` to be of some
    subclasses, those classes: a base class's method that calls `self.message(...)` breaks only where
    the override it runs does (`RGATConv.message`, not `MixHopConv`'s). Ask `breaks` of a call."""

    def __init__(self) -> None:
        super().__init__()
        self.only_for: dict[str, frozenset[str]] = {}

    def breaks(self, reach: Reach, caller: str, call: CallRef, target: str) -> bool:
        """Whether `target` may break when `caller` runs it through `call`."""
        return target in self and _needs(reach, caller, call, target, self.only_for.get(target)) is not False


_ON_SELF = ("self", "super", "property")  # calls whose receiver is the caller's own `self`


def _needs(reach: Reach, caller: str, call: CallRef, callee: str,
           needs: frozenset[str] | None) -> frozenset[str] | None | bool:
    """What a break of `callee`, which needs its `self` to be of one of `needs` (None: nothing), needs
    of `caller`'s `self` when `caller` runs it through `call`: nothing (None), one of some classes, or
    False where it cannot happen (the caller's class is none of them, nor a base of one). A call of
    `self.m(...)` that runs an override in a subclass of the caller's class needs that subclass."""
    cls = reach.functions[caller].cls
    if call.kind not in _ON_SELF or cls is None:
        return needs
    own = reach.functions[callee].cls
    if own is not None and own != cls and own not in reach.mro(cls):  # an override below the caller's class
        needs = frozenset({own}) if needs is None else frozenset(
            own if n in reach.mro(own) else n for n in needs if n in reach.mro(own) or own in reach.mro(n))
    if needs is None:
        return None
    if any(n in reach.mro(cls) for n in needs):  # the caller's class is one of them, or derives from one
        return None
    below = frozenset(n for n in needs if cls in reach.mro(n))
    return below or False


def breaking(reach: Reach, direct: Breaks, always: bool = False) -> Breaking:
    """Every reached function whose call may break the graph, each with where one break is
    (`path:line`): those with a break of their own (`direct`), and their callers, transitively.
    With `always`, only breaks that happen whenever the function runs: a break of its own outside its
    `if` branches and handlers, or a call made there of a function that breaks so. A break reached
    through a call of `self.m(...)` counts only for the classes whose `m` it is (`Breaking.only_for`)."""
    def runs(qual: str, line: int) -> bool:
        fn = reach.functions.get(qual)
        return not always or (fn is not None and fn.runs_always(line))
    where = Breaking()
    for qual, found in sorted(direct.items()):
        first = next((at for line, at in found if runs(qual, line)), None)
        if first is not None:
            where[qual] = first
    queue = deque(sorted(where))
    while queue:
        callee = queue.popleft()
        for caller, call, _ in reach.callers.get(callee, []):
            # a property read has no line of its own to tell whether it always runs
            placed = call.kind in ("wrapper", "hook") or (call.kind not in UNPLACED and runs(caller, call.line))
            if caller not in reach.reached or (caller, id(call), callee) in reach.loose or (always and not placed):
                continue
            needs = _needs(reach, caller, call, callee, where.only_for.get(callee))
            if needs is False or (caller in where and caller not in where.only_for):
                continue  # it cannot break through this call, or breaks whatever its `self` is
            if caller not in where or needs is None:
                where[caller] = where[callee]
                where.only_for.pop(caller, None)
            elif needs <= where.only_for[caller]:
                continue  # nothing new
            if needs is not None:
                where.only_for[caller] = where.only_for.get(caller, frozenset()) | needs
            queue.append(caller)
    return where


def built_receiver(reach: Reach, call: CallRef) -> bool:
    """`obj.method(...)` on an object built in compiled code: a local bound to a constructor call
    of the tree's class (or of a table of them), a constructor call itself (`Euler(dt).step(y)`),
    or what a call of the tree's function returned where it built the object (`make(k).step(y)`)."""
    made, _, method = call.target.rpartition(":")
    if not method or method in _CONTEXT:
        return False
    if call.kind == "instcall":
        return True
    if call.kind == "retcall":
        held = reach.expand_table(made)
        return bool(held) and all(reach.instance_class(h) is not None for h in held)
    return False


def _built_eagerly(reach: Reach, call: CallRef, sure: Breaking) -> bool:
    """`obj.method(...)` on a local built from the tree's class whose constructor breaks whenever it runs
    (`sure`): dynamo breaks at the constructor call and the code it resumes holds a real object, whose
    bound method it can rebuild."""
    made = call.target.rpartition(":")[0]
    if call.kind != "instcall" or made.startswith(("@", "%")):
        return False
    inits = [reach.method(c, "__init__") for c in reach.expand_table(made) if c in reach.classes]
    return bool(inits) and all(init is not None and init in sure for init in inits)


# the methods a subscript and `len()` run (operators.py): dynamo resumes after a break inside them
# (tests/test_reach_edges.py)
RESUMED_METHODS = (":__getitem__", ".__getitem__", ":__len__", ".__len__")


def unresumable_calls(reach: Reach, where: Breaking, sure: Breaking) -> list[tuple[str, CallRef, str]]:
    """(caller, call, message) for each call, in straight-line code of a reached function, of a
    method that may break the graph (`where`: `breaking`) on an object the function built; on an
    object a method of the tree returned (`op.transpose().solve(y)`), whose class reach can only bound
    by its subclasses' overrides, a method that breaks whenever it runs (`sure`: `breaking` with
    `always`). Past such a call that surely breaks and always runs, dynamo runs the rest of the
    function eagerly: the later calls of the function are not reported."""
    out: list[tuple[str, CallRef, str]] = []
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        eager_from: int | None = None  # the line past which the function runs eagerly
        for call in fn.calls:
            if eager_from is not None and call.line > eager_from:
                continue
            on_built = built_receiver(reach, call) and not _built_eagerly(reach, call, sure)
            # a handed method that breaks (a callee that breaks only through other callers' callables is
            # no evidence: reach does not tell the calls of a function apart)
            handed = [m for m in _handed_bound_methods(reach, call) if m in where] if not on_built else []
            if not call.straight or not (on_built or handed) or call.target.endswith(RESUMED_METHODS):
                continue
            breaks = sure if on_built and _returned_by_method(reach, call) else where
            broken = [t for t, _ in reach.targets(fn.cls, call) if breaks.breaks(reach, caller, call, t)]
            if not broken:
                continue
            short = caller.rsplit(".", 1)[-1]
            if on_built:
                method = call.target.rpartition(":")[2]
                what = f"`{method}` breaks the graph (at `{where[broken[0]]}`) and is called on an object built"
            else:
                what = (f"`{broken[0].rsplit('.', 1)[-1]}` breaks the graph (at `{where[broken[0]]}`) and is handed "
                        f"`{'.'.join(handed[0].rsplit('.', 2)[-2:])}`, a method of an object built")
            out.append((caller, call, f"{what} in this compiled function: dynamo cannot rebuild that bound method "
                                      f"to resume after the call, and runs the rest of `{short}` eagerly (or all "
                                      "of it)"))
            if eager_from is None and broken[0] in sure and fn.runs_always(call.line):
                eager_from = call.end_line
    return out


def consumed_generators(reach: Reach, where: Breaking) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """(caller, span, message) for each `sum(...)`, `any` or `all` over a generator expression whose
    element calls a function that may break the graph (`where`: `breaking`), and each call of a function
    of the tree handed such a generator. Dynamo runs these builtins as Python functions of its own (its
    polyfills) and inlines the tree's functions, and either iterates the generator; to resume after the
    break inside the call it must rebuild the half-consumed generator, which it cannot (GB8335, or GB0091
    where the generator reads a variable of the function): a second break, at the consuming call,
    reported once."""
    return [(caller, span, f"a generator expression whose element calls `{callee}`, which breaks the graph (at "
                           f"`{at}`), consumed here: dynamo cannot rebuild the half-consumed generator to resume "
                           "after that break, and breaks again here")
            for caller, call, span, callee, at in _second_breaks(reach, where, lambda call: call.consumed)
            if _runs_as_python(reach, caller, span)]


def _runs_as_python(reach: Reach, caller: str, span: tuple[int, int, int, int]) -> bool:
    """Whether the call of `caller` at `span` is one dynamo runs as Python code it traces: `sum`, `any`
    or `all`, or a function of the tree (not a builtin or a library's function, which take the
    generator whole)."""
    fn = reach.functions[caller]
    return any((call.line, call.col, call.end_line, call.end_col) == span
               and (call.kind == "name" and call.target in GENERATOR_CONSUMERS
                    or any(target in reach.functions for target, _ in reach.targets(fn.cls, call)))
               for call in fn.calls)


def held_methods(reach: Reach, where: Breaking
                 ) -> list[tuple[str, tuple[int, int, int, int], str, Val | None]]:
    """(caller, span, message, requirement) for each call, in straight-line code of a reached function,
    of a tensor's method whose arguments call a function that may break the graph (`where`: `breaking`):
    `x.index_select(0, pick(m))`. Dynamo loads the bound method before it evaluates the arguments; to
    resume after the break inside `pick` it keeps that method, a builtin, on the stack, and calling it
    from the resumed code is calling a function it skips (GB0007): a second break, at the method call.
    The span is the method call's, reported once; the requirement, None for a receiver the code shows a
    tensor, is what must turn out one (its `held_by`)."""
    def held(call: CallRef) -> tuple[int, int, int, int] | None:
        return call.held if call.held_by is not None and call.straight else None
    return [(caller, span,
             f"a tensor method called with what `{callee}` returns, and `{callee}` breaks the graph (at `{at}`): "
             "dynamo resumes after that break with the bound method on its stack and cannot call it from the "
             "resumed code, a second break here",
             None if call.held_by.is_tensor else call.held_by)
            for caller, call, span, callee, at in _second_breaks(reach, where, held)]


def _second_breaks(reach: Reach, where: Breaking,
                   span_of: Callable[[CallRef], tuple[int, int, int, int] | None]
                   ) -> Iterator[tuple[str, CallRef, tuple[int, int, int, int], str, str]]:
    """(caller, call, span, callee's short name, where it breaks) for the first call of each reached
    function at each span `span_of` gives (None: no such call) whose callee may break (`where`)."""
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        seen: set[tuple[int, int, int, int]] = set()
        for call in fn.calls:
            span = span_of(call)
            if span is None or span in seen or call.kind in UNPLACED:
                continue
            broken = [t for t, _ in reach.targets(fn.cls, call) if where.breaks(reach, caller, call, t)]
            if broken:
                seen.add(span)
                yield caller, call, span, broken[0].rsplit(".", 1)[-1], where[broken[0]]


def _returned_by_method(reach: Reach, call: CallRef) -> bool:
    """`obj.m(...)` on what a method of the tree returned ("pkg.Cls.method():m", the method defined
    in `Cls` or inherited from a base)."""
    made = call.target.rpartition(":")[0]
    return call.kind == "retcall" and made.endswith("()") and made[:-2].rpartition(".")[0] in reach.classes


def _handed_bound_methods(reach: Reach, call: CallRef) -> list[str]:
    """The bound methods of objects built in the calling function that a call hands over
    (`subproblem(x, sf.closure)`), each as the method it runs: dynamo must rebuild them, with the
    callee, to resume after a break inside the call, and it cannot. Not an attribute that holds a
    value (`dataset.max_length`), nor a property."""
    out: list[str] = []
    for held in call.passed.values():
        for one in held:
            bound = handed_method(one)
            cls = reach.instance_class(bound[0]) if bound is not None else None
            found = reach.method(cls, bound[1]) if cls is not None and bound is not None else None
            if found is not None and found in reach.functions and not reach.functions[found].is_property:
                out.append(found)
    return out


def _sure_breaks(reach: Reach, qual: str, direct: Breaks, sure: Breaking,
                 where: Callable[[int], bool] = lambda line: True,
                 always: bool = True) -> Iterator[tuple[int, str, bool]]:
    """(line, `path:line` of the break, whether it is the function's own) for each break of a reached
    function that happens whenever it runs, on a line `where` accepts: its own breaks first, then its
    calls of functions that surely break (`sure`), each in order. With `always` off, its breaks and
    calls in branches as well, and `sure` may hold functions that only may break. Lazy: a caller that
    needs one stops before the callees of the later calls are looked up."""
    fn = reach.functions[qual]
    for line, at in direct.get(qual, []):
        if where(line) and (not always or fn.runs_always(line)):
            yield line, at, True
    for call in fn.calls:
        if call.kind not in UNPLACED and where(call.line) and (not always or fn.runs_always(call.line)):
            broken = [t for t, _ in reach.targets(fn.cls, call) if sure.breaks(reach, qual, call, t)]
            if broken:
                yield call.line, sure[broken[0]], False


def _trapped(reach: Reach, qual: str, direct: Breaks, sure: Breaking, always: bool = True) -> str | None:
    """Where a reached function surely breaks inside one of its own loops or `try` bodies (its own
    break, or one in what a call made there runs), so that dynamo runs the whole frame eagerly
    (`_eager_at`). None if it does not. With `always` off, where it may break there, in a branch or
    not (`sure` then holds the functions that may break: `breaking` without `always`)."""
    fn = reach.functions[qual]
    if not (fn.loop_spans or fn.try_spans):
        return None
    return next((at for _, at, _ in _sure_breaks(reach, qual, direct, sure, lambda line: _eager_at(fn, line),
                                                 always)), None)


def _eager_at(fn: FunctionInfo, line: int) -> bool:
    """Whether a break on a line of the function makes dynamo run all of it eagerly: in a `try` body,
    or in a loop where the code reaches a jump back (a `continue`, the end of a loop body) before a
    `return`. Dynamo looks for a loop around a break in the code after it, up to the first `return`
    (`maybe_has_backedge`): past an `if` that tests a tensor and returns at once it finds none, and
    resumes after the break as it would outside a loop."""
    if within(fn.try_spans, line):
        return True
    if not within(fn.loop_spans, line):
        return False
    after = [exit_ for exit_ in fn.loop_exits if exit_[0] >= line]
    return not after or min(after)[1] != 0


def _abandoned(reach: Reach, qual: str, direct: Breaks, sure: Breaking,
               unresumable: list[tuple[str, CallRef, str]]) -> str | None:
    """Where dynamo gives up on all of a reached function at a break: an object built there before
    the break holds a function that its constructor took from a parameter's default (`norm=rms_norm`,
    then `self.norm = norm`). To resume after the break, dynamo must rebuild the frame's live objects;
    such a function has no source to rebuild it from, so dynamo runs the whole frame eagerly. The
    break is one that happens whenever the function runs (its own, or a call of a function that
    surely breaks), or a call it cannot resume after (`unresumable_calls`). None if there is none."""
    fn = reach.functions[qual]
    # the objects it builds that keep such a function (few functions build any): (line, class, function)
    keeping = [(call.line, init, held) for call in fn.calls if call.kind == "name" and not call.star
               for init, _ in reach.targets(fn.cls, call) if (held := _default_function(reach, init, call))]
    if not keeping:
        return None
    breaks = [(line, f"it breaks the graph on line {line}" + ("" if own else f" (at `{at}`)"))
              for line, at, own in _sure_breaks(reach, qual, direct, sure)]
    breaks += [(call.line, f"it calls `{call.target.rpartition(':')[2]}`, which breaks, on an object it built "
                           f"(line {call.line})")
               for caller, call, _ in unresumable if caller == qual and fn.runs_always(call.line)]
    for line, init, held in keeping:
        later = [b for b in breaks if b[0] > line]
        if later:
            return (f"dynamo runs all of `{_short(reach, qual)}` eagerly: {min(later)[1]}, and the "
                    f"`{init.rsplit('.', 2)[-2]}` built on line {line} keeps `{held}`, a function from a default "
                    "argument that dynamo cannot rebuild to resume")
    return None


def _default_function(reach: Reach, init: str, call: CallRef) -> str | None:
    """The tree's function that a constructor call leaves to a default its `__init__` stores."""
    fn = reach.functions.get(init)
    if fn is None or not init.endswith(".__init__"):
        return None
    for param, default in fn.stored_defaults.items():
        position = fn.params.index(param) - 1  # after `self`
        if param in call.kwargs or position < len(call.args):
            continue
        held = reach.canonical(default)
        if held in reach.functions and reach.functions[held].cls is None:
            return held.rsplit(".", 1)[-1]
    return None


def eager_constructors(reach: Reach, direct: Breaks, sure: Breaking,
                       unresumable: list[tuple[str, CallRef, str]] | None = None,
                       where: Breaking | None = None) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """(constructor, span, message) for each module constructor dynamo compiles as a frame of its own.

    A module built in compiled code has its `__init__` inlined into the graph. Where the building
    frame runs eagerly instead, each module constructor it calls is compiled as a frame of its own,
    whose `self` is a module not yet initialized: dynamo breaks at the constructor's first statement
    that uses it (`super().__init__()`, "Uninitialized nn.Module") and runs that constructor eagerly
    too, so the bases' constructors it calls, and the modules it builds, go the same way. A building
    frame runs eagerly where it breaks inside its own loop or `try` (all of it), where dynamo gives
    up on it at a break because an object it built cannot be rebuilt to resume (all of it,
    `_abandoned`), and where the constructor it calls breaks (that call). A frame runs eagerly as a
    whole only for breaks that happen whenever it runs (`sure`: `breaking` with `always`), not those in
    an `if` branch or a handler; outside such a frame, only constructor calls made whenever their
    caller runs count, and a constructor that breaks only in a branch of its own (`where`: `breaking`)
    is reported as one that may break, naming where. The finding is on a line that runs whenever the
    module is built; one built in a branch of a frame run eagerly says so."""
    out: dict[str, tuple[tuple[int, int, int, int], str] | None] = {}
    queue: deque[str] = deque()

    def report(init: str, why: str) -> None:
        span = reach.functions[init].init_start
        if init in out or span is None:
            return
        queue.append(init)  # that frame is then run eagerly
        if any(line == span[0] for line, _ in direct.get(init, [])):
            out[init] = None  # the statement is reported already, for the break of its own
            return
        cls = init.rsplit(".", 2)[-2]
        out[init] = (span, f"{why}: dynamo compiles `{cls}.__init__` as a frame of its own and breaks the graph "
                           "here, at its first use of a module not yet initialized")

    for caller in sorted(reach.reached):
        trapped = _trapped(reach, caller, direct, sure)
        eager: str | None = None
        if trapped is not None:
            eager = (f"`{_short(reach, caller)}` builds this module and breaks inside a loop or `try` (at `{trapped}`), "
                     "so dynamo runs that function eagerly")
        elif (abandoned := _abandoned(reach, caller, direct, sure, unresumable or [])) is not None:
            eager = abandoned
        for init, line in _module_inits(reach, caller, supers=eager is not None, branches=eager is not None):
            if eager is not None:
                report(init, eager if reach.functions[caller].runs_always(line)
                       else f"{eager} (this module is built on line {line}, in a branch)")
            elif init in sure:
                report(init, f"`{_short(reach, caller)}` builds this module in compiled code and its constructor "
                             f"breaks (at `{sure[init]}`)")
            elif where is not None and init in where:
                report(init, f"`{_short(reach, caller)}` builds this module in compiled code and its constructor "
                             f"may break (at `{where[init]}`, in a branch)")
    while queue:
        frame = queue.popleft()
        for init, _ in _module_inits(reach, frame, supers=True):
            report(init, f"`{_short(reach, frame)}` calls this constructor, and dynamo runs it eagerly")
    return [(init, *found) for init, found in sorted(out.items()) if found is not None]


def _module_inits(reach: Reach, qual: str, supers: bool, branches: bool = False) -> list[tuple[str, int]]:
    """The tree's module constructors a function's calls run whenever it runs (with `branches`, in
    its `if` branches and handlers too), each with the line of the call: the classes it builds, and
    with `supers`, the base's constructor it calls through `super().__init__(...)`."""
    fn = reach.functions[qual]
    found: dict[str, int] = {}
    for call in fn.calls:
        if call.kind in (*UNPLACED, "ref") or (call.kind == "super" and not supers) \
                or not (branches or fn.runs_always(call.line)):
            continue
        for init, _ in reach.targets(fn.cls, call):
            owner = reach.functions[init].cls if init in reach.functions else None
            if init.endswith(".__init__") and owner is not None and reach.is_module_class(owner) \
                    and init not in found:
                found[init] = call.line
    return list(found.items())


def _short(reach: Reach, qual: str) -> str:
    return ".".join(qual.split(".")[-2:]) if reach.functions[qual].cls else qual.rsplit(".", 1)[-1]


def eager_comprehensions(reach: Reach, direct: Breaks, sure: Breaking, where: Breaking,
                         unresumable: list[tuple[str, CallRef, str]],
                         inits: list[tuple[str, tuple[int, int, int, int], str]],
                         resolve: Callable[[Val], Val]) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """(function, span, message) for each comprehension that dynamo compiles as a frame of its own and
    that breaks there, on Python 3.11 and older (BL440): the list, set and dict comprehensions of a
    frame dynamo runs eagerly whose own frame it compiles and cannot step the iterator of
    (`frames.comprehension_frame`; the captured values it rests on are resolved with `resolve`). A
    frame runs eagerly as a whole where it surely breaks inside a loop or `try` of its own, where
    dynamo gives up on it to resume (`_abandoned`), where it is a module constructor compiled as a
    frame of its own (`inits`, from `eager_constructors`), and, the finding says so, where it may break
    inside its loop (in a branch of its own or of what it calls: `where`). Each of its comprehensions
    that runs is a call; one in a branch says so."""
    eager_inits = {init for init, _, _ in inits}
    out: list[tuple[str, tuple[int, int, int, int], str]] = []
    for qual in sorted(reach.reached | eager_inits):
        fn = reach.functions.get(qual)
        if fn is None or not fn.comprehension_frames:
            continue
        module_self = fn.cls is not None and reach.is_module_class(fn.cls)
        frames = [span for span, on_self, captured in fn.comprehension_frames
                  if (not on_self and not captured) or (on_self and module_self)
                  or any(tensor_inside(value, resolve) for value in captured)]
        if not frames:
            continue
        if (trapped := _trapped(reach, qual, direct, sure)) is not None:
            why = f"dynamo runs `{_short(reach, qual)}` eagerly: it breaks inside a loop or `try` (at `{trapped}`)"
        elif (abandoned := _abandoned(reach, qual, direct, sure, unresumable)) is not None:
            why = abandoned
        elif qual in eager_inits:
            why = (f"dynamo runs `{_short(reach, qual)}` eagerly: a constructor it compiles as a frame of its own, "
                   "on a module not yet initialized")
        elif (maybe := _trapped(reach, qual, direct, where, always=False)) is not None:
            why = (f"dynamo runs `{_short(reach, qual)}` eagerly where it breaks inside a loop or `try` (at "
                   f"`{maybe}`, in a branch)")
        else:
            continue
        for span in frames:
            branch = "" if fn.runs_always(span[0]) else " (in a branch)"
            out.append((qual, span, f"{why}; there this comprehension{branch} is a function of its own (Python "
                                    "3.11 and older), which dynamo compiles as a frame and breaks in at once: it "
                                    "cannot step the iterator the comprehension is handed"))
    return out


def tensor_inside(value: Val, resolve: Callable[[Val], Val], depth: int = 0) -> bool:
    """Whether dynamo finds a tensor in `value` (`has_tensor_in_frame`): a tensor, or a list, tuple or
    dict with one among its elements at any depth (`parts = [x, x * 2]`, `{"logits": x}`); a join (two
    branches) when any branch does. Symbolic values are resolved first."""
    value = resolve(value)
    if value.is_tensor:
        return True
    if value.kind not in ("seq", "dict", "join") or depth >= MAX_DEPTH:
        return False
    return any(tensor_inside(part, resolve, depth + 1) for part in value.parts)
