"""The facts one file contributes to the tree: functions, classes, calls, candidate findings.

Plain data only (no syntax trees): a file's summary is cached as JSON and crosses process
boundaries; the tree level (`reach.py`) decides what compile reaches and resolves symbolic
values over all summaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..finding import Finding
from .values import UNKNOWN, Val


@dataclass(slots=True)
class CallRef:
    """A call (or reference) from one function to another, resolved at tree level.

    kind: "name" (a dotted name: a function, or a class being constructed), "self" (a method of
    the caller's class), "super", "selfattr" (calling what `self.<target>` holds: a submodule,
    a helper object, a function kept in an attribute), "attrcall" (`self.<attr>.<method>(...)`,
    target "attr.method"), "ref" (a dotted name handed to another call, as in `checkpoint(fn, x)`:
    a function it may run; a class handed over, as in `isinstance(m, Block)`, is not constructed),
    "instcall" (`obj.method(...)` on a local built from a class or a table of classes, or on a
    constructor call, target "class-or-table:method"; "class-or-table:" calls the instance itself,
    `matcher(x)`), "retcall" (`obj.method(...)` on what a call of the tree's function returned,
    `bm = make_noise(s)` then `bm.sample(t)`, target "pkg.make_noise():sample"), "typedcall"
    (`p.method(...)` on a parameter annotated with a class, target "class:method": that class's
    method or an override of it; `p.a.b.method(...)`, "class|a.b:method", on what its attributes hold
    or declare in turn), "duck" (`op._solve(rhs)`, a private method on an object of no
    class the file can tell, target "_solve": reach follows it to the one family of classes that
    defines the name, `Tree.protocol`), "propread" (see `READS`), "wrapper" and "hook" (see
    `UNPLACED`).
    """

    kind: str
    target: str
    line: int
    col: int
    end_line: int
    end_col: int
    args: list[Val] = field(default_factory=list)  # positional arguments
    kwargs: dict[str, Val] = field(default_factory=dict)
    star: bool = False  # `*args` or `**kwargs` was passed: positions after it are unknown
    # the tree's functions and classes an argument hands over, by keyword or by position ("0", "1",
    # ...): a function or class by name (`loss=focal_loss`), an instance as "Class()" (`rpn=RPN(...)`,
    # or a local built so); what a constructor stores in an attribute (`ClassInfo.from_params`)
    passed: dict[str, list[str]] = field(default_factory=dict)
    # the trace-time conditions the call is made under (`if self.training:`), text -> whether it is a
    # half-precision check: what compile needs to reach the callee through this call
    conditions: dict[str, bool] = field(default_factory=dict)
    # made in the function's own straight-line code (`Flow.straight_line`): a break inside the callee
    # leaves dynamo a point just past the call to resume at, if it can rebuild what the call stands on
    straight: bool = False
    # made inside the arguments of a call of a tensor's method (`x.index_select(0, pick(m))`): the span
    # of that call and what its receiver holds (a tensor, or a value the tree decides); dynamo holds the
    # bound method across a break inside this call and cannot call it from the resumed code
    # (`resume.held_methods`)
    held: tuple[int, int, int, int] | None = None
    held_by: Val | None = None
    # made in the element of a generator expression that `sum`, `any` or `all` consumes: the span
    # of that consuming call, where dynamo breaks again after a break inside this call
    # (`resume.consumed_generators`)
    consumed: tuple[int, int, int, int] | None = None


# the builtins dynamo runs as Python functions of its own (its polyfills) when they consume a generator
# expression: it cannot rebuild the generator to resume after a break inside it (`CallRef.consumed`, BL437)
GENERATOR_CONSUMERS = frozenset({"sum", "any", "all"})
# the kinds of `CallRef` that stand for reading an attribute that may be a property: "property"
# (`self.scale`, no position of its own) and "propread" (`dist.mean` on another object, target
# "kind|target" of the edge calling that attribute would have): no call, but its getter runs
READS = ("property", "propread")
# the kinds of `CallRef` with no place in the caller's code: a read of `self.scale` and the wrapper a
# decorator of the tree puts around the caller ("wrapper", target the decorator); a forward hook
# registered on the module runs around its forward ("hook", target the hook function)
UNPLACED = ("property", "wrapper", "hook")
# the kinds of `CallRef` that are not a call written in the caller's code, where a finding about the call
# could stand: the reads and the unplaced edges above
NOT_CALLS = frozenset((*READS, *UNPLACED))


@dataclass(slots=True)
class PatchBlock:
    """`torch._dynamo.config.patch(...)` around code of a function: the lines of a `with` body (0, 0:
    the whole function, as a decorator), the settings it makes (`dynamo_settings.Settings.from_values`
    form), or, for `with helper(...):`, the position of the call whose callee provides them."""

    start: int
    end: int
    settings: dict[str, list[str]] = field(default_factory=dict)
    via_line: int = 0
    via_col: int = 0


@dataclass(slots=True)
class FunctionInfo:
    qualname: str
    cls: str | None
    compiled: bool = False
    disabled: bool = False
    # an operator torch.library makes of it (`@torch.library.custom_op(...)`), or a kernel of one: dynamo
    # calls it as one op and traces none of its code, so reach never enters it
    operator: bool = False
    calls: list[CallRef] = field(default_factory=list)
    # what its `torch.compile(...)` calls compile, as the edges a call of that target would have (`self.step`,
    # a local instance): reach takes the functions they lead to as roots
    compiles: list[CallRef] = field(default_factory=list)
    # its parameters that it hands to torch.compile as they came (`self._func = torch.compile(func)`): what
    # any call of the tree hands it for one is compiled, a root of reach (`Handing.compiled_arguments`)
    compiled_params: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)  # in order, `self` included
    declared: dict[str, Val] = field(default_factory=dict)  # from annotations: call sites cannot change these
    fallback: dict[str, Val] = field(default_factory=dict)  # a default other than None: what it holds
    optional: set[str] = field(default_factory=set)  # unannotated, with a `None` default
    typed: dict[str, str] = field(default_factory=dict)  # annotated with a class by name: that class
    # parameters used as a flag (`if p:`), an integer (a slice bound, `range(p)`) or a string
    # (`p == "euler"`, `p = "euler"`): not tensors when nothing else tells
    scalar_uses: set[str] = field(default_factory=set)
    # parameters compared for equality with another of its parameters (`adjoint_method != method`):
    # one that holds a Python scalar makes the other one too
    scalar_peers: dict[str, list[str]] = field(default_factory=dict)
    returns: Val = UNKNOWN
    is_static: bool = False  # @staticmethod: no bound first parameter
    var_keywords: str = ""  # the name of its `**kwargs` parameter, where it has one
    positional: int = -1  # how many of `params` a call may give by position (the rest are keyword-only); -1: all
    # the functions and classes it returns (`return LOSSES[self.kind]`, `return {"euler": Euler}[m]`):
    # what calling a property's value, or what a call of it returned, runs
    returns_functions: list[str] = field(default_factory=list)
    declared_return: str | None = None  # the class a return annotation names (`-> Op`)
    # what a return annotation says the function gives, where the file reads it (`-> torch.Tensor`): its value where
    # the body's returns tell nothing (`return self._compare(ref)` of a property declared `-> Tensor`)
    declared_result: Val | None = None
    is_property: bool = False
    # a `functools.cached_property`: up to Python 3.11 its first read enters the property's lock
    locked_cache: bool = False
    # beartype checks its calls, and the check of the annotation named here calls what dynamo cannot trace:
    # "sampled:<parameter>" (an item of a list, picked at random) or "array:<parameter>" (a jaxtyping
    # array type's `isinstance`); "return" for the result's annotation; empty where neither
    type_check: str = ""
    # walks over the modules of one of its parameters (`module_walks.py`): (parameter, "all" or "first"
    # (`next(m.parameters())`, which stops at the first parameter), the walk's span)
    module_walks: list[tuple[str, str, int, int, int, int]] = field(default_factory=list)
    # the attributes of `self` it reads: a property among them runs its getter (reach)
    reads: list[str] = field(default_factory=list)
    read_spans: list[tuple[int, int, int, int]] = field(default_factory=list)  # each read's first, as `reads`
    # dynamo settings patched around code of this function, and those it hands out (a function that
    # returns `torch._dynamo.config.patch(...)`, or a context manager that yields under one)
    patches: list[PatchBlock] = field(default_factory=list)
    provides: dict[str, list[str]] = field(default_factory=dict)
    validator: bool = False  # a pydantic validator (`@field_validator(...)`): pydantic calls it
    # the lines of its own loops and `try` bodies: after a break there dynamo has no point to resume
    # the frame at, and runs all of it eagerly (`resume.eager_constructors`); in its loops, by line, each
    # `return` (0), `continue` (1) and jump back at a loop body's end (2): whether dynamo, after a break
    # in a loop, finds the loop (`resume._eager_at`)
    loop_spans: list[tuple[int, int]] = field(default_factory=list)
    try_spans: list[tuple[int, int]] = field(default_factory=list)
    loop_exits: list[tuple[int, int]] = field(default_factory=list)
    # its own outermost list, set and dict comprehensions that break where dynamo compiles them as frames
    # of their own (`frames.comprehension_frame`), each with what that rests on: its `self` being a
    # module, the captured values that may be tensors (neither: it breaks there whatever they are)
    comprehension_frames: list[tuple[tuple[int, int, int, int], bool, tuple[Val, ...]]] = field(default_factory=list)
    # its calls of a custom operator (`torch.ops.mylib.scale(x)`): the op ("mylib::scale") and the call's
    # span, which BL441 reports where the tree defines the op with nothing dynamo can run on fake tensors
    op_calls: list[tuple[str, int, int, int, int]] = field(default_factory=list)
    # the lines of its own `if` branches and exception handlers: code that runs only sometimes
    guarded_spans: list[tuple[int, int]] = field(default_factory=list)
    # an `__init__`: the span of its first statement that uses the instance (`super().__init__()`), where
    # dynamo, compiling the constructor as a frame of its own, meets a module not yet initialized
    init_start: tuple[int, int, int, int] | None = None
    # an `__init__`: its parameters that it stores in the instance (`self.norm = norm`) and whose
    # default is a name (`norm=rms_norm`), with that name qualified: a function held so has no source
    # dynamo can rebuild it from (`resume.eager_frames`)
    stored_defaults: dict[str, str] = field(default_factory=dict)
    # its parameters whose default is a name (`semiring=LogSemiring`), with that name qualified: what
    # the parameter holds where a call leaves it out
    name_defaults: dict[str, str] = field(default_factory=dict)
    # its decorators that name no decorator breaklint knows, qualified as the file names them: one that
    # is a class of the tree with a `__get__` makes it a getter (`hierarchy.Tree`)
    decorators: list[str] = field(default_factory=list)
    # the functions it defines and returns, as (first, last) lines: as a decorator, its wrapper (walked with
    # it) runs wherever what it decorates is called (reach), and only those lines do (`wraps`)
    wrapper_spans: list[tuple[int, int]] = field(default_factory=list)
    # a method with no body of its own (`raise NotImplementedError`, `...`, `@abstractmethod`): what
    # a class of such methods declares, others may provide without deriving from it (`Reach.implementers`)
    abstract: bool = False

    def runs_always(self, line: int) -> bool:
        """Whether a line of the function runs whenever the function does: outside its `if` branches
        and exception handlers."""
        return not within(self.guarded_spans, line)

    def keyword_only(self, name: str) -> bool:
        """Whether parameter `name` comes after `*` or `*args`: a call gives it by keyword or not at all."""
        return 0 <= self.positional <= self.params.index(name)

    @property
    def wraps(self) -> bool:
        """Whether it returns a function it defines (`def cached(fn): def wrapped(...): ...; return wrapped`)."""
        return bool(self.wrapper_spans)


def within(spans: list[tuple[int, int]], line: int) -> bool:
    """Whether a line falls in one of the (first, last) line spans."""
    return any(start <= line <= end for start, end in spans)


def element_of(attr: str) -> str:
    """How `ClassInfo.attr_values` and `Scope.keyed` name an element of `self.<attr>` ("state[]" for
    `self.state[p]`), under whose string keys a class keeps what its methods store there."""
    return f"{attr}[]"


@dataclass(slots=True)
class ClassInfo:
    qualname: str
    bases: list[str]
    methods: set[str] = field(default_factory=set)
    submodules: dict[str, str] = field(default_factory=dict)  # attr -> class dotted name
    tensor_attrs: set[str] = field(default_factory=set)
    # attrs a method stores a sparse tensor in (`self.adj = adj.to_sparse()`, a sparse buffer, a memo of
    # `torch.sparse_coo_tensor(...)`): dynamo cannot take one kept on the object as an input (BL429)
    sparse_attrs: set[str] = field(default_factory=set)
    callables: dict[str, list[str]] = field(default_factory=dict)  # attr -> functions it may hold
    # attr -> what `__init__` put there; "attr['key']" or "attr[]['key']" (`element_of`) -> what the
    # methods stored under that key of the attribute or of its elements (`Names.kept_item`)
    attr_values: dict[str, Val] = field(default_factory=dict)
    # attr -> the call of a function of the package whose result a method stored there, with what it
    # passes (`self.thres = default(thres, size)`): the tree decides that call's value
    returned_calls: dict[str, Val] = field(default_factory=dict)
    # attr -> the class a method's parameter stored there is annotated with (`transform: Transform`)
    declared: dict[str, str] = field(default_factory=dict)
    # attr -> the parameter of `__init__` stored there (`self.loss = loss`), or "param()" for an
    # instance built from it (`self.rnn = rnn_layer(...)`), or "method#param" for one another method
    # (a setter: `def set_processor(self, processor)`) stores: what the callers of that method pass
    # decides what calling the attribute runs
    from_params: dict[str, str] = field(default_factory=dict)
    # attr -> "pkg.Cls.method()" for what a method of the instance returned, stored there
    # (`self.criterion = self.init_criterion()`): what that method, or a subclass's override, returns
    made_by: dict[str, list[str]] = field(default_factory=dict)
    # attr -> the parameter of `__init__` kept there as it came (`self.t_eval = t_eval`), declaring
    # nothing: an instance built in compiled code holds what the constructor call passed
    kept_params: dict[str, str] = field(default_factory=dict)
    properties: set[str] = field(default_factory=set)  # methods decorated `@property` (and the like)
    type_checked: bool = False  # decorated `@beartype`: so is each of its methods
    # a record (a dataclass or named tuple, records.py): its fields in order, with what each declares
    fields: dict[str, Val] = field(default_factory=dict)
    positional: bool = False  # a record built with its fields in order (a named tuple)
    # the functions and methods a method of the class registers as forward hooks, of the module or of
    # a submodule (`self.inner.register_forward_hook(clip)`): they run when its forward is called
    hooks: list[str] = field(default_factory=list)
    # attr -> the call of a library dynamo does not trace that made what it keeps (`scipy.spatial.cKDTree`)
    library_objects: dict[str, str] = field(default_factory=dict)

    def holds_object(self, attr: str) -> bool:
        """Whether `self.<attr>` holds something a call of it, or of its methods, runs: a submodule,
        a callable, or what a constructor was handed."""
        return attr in self.submodules or attr in self.callables or attr in self.from_params


# what a registration hands over (registries.py): what a decorator factory's decorator decorates, and
# what `TABLE[key] = name` stores in a table another module defines
DECORATED = "@"
STORED = "="


@dataclass(slots=True)
class ModuleSummary:
    """What the engine needs of one file to decide what torch.compile reaches."""

    module: str
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    entries: list[str] = field(default_factory=list)  # names passed to torch.compile(...)
    instances: dict[str, str] = field(default_factory=dict)  # module-level var -> class
    function_tables: dict[str, list[str]] = field(default_factory=dict)  # module-level dict/list -> functions
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted name it was imported as
    star_imports: list[str] = field(default_factory=list)  # the modules `from m import *` names
    # `torch._dynamo.config.NAME = ...` outside any patch: the process-wide settings the file makes
    dynamo_config: dict[str, list[str]] = field(default_factory=dict)
    # a class of the package, as the file names it -> argument (a keyword, or "#i" for the i-th
    # positional) -> what the file's calls of it pass there, where that is a tensor or the tree
    # decides it: what a record's field holds when its declaration does not say (values in reach.py)
    builds: dict[str, dict[str, Val]] = field(default_factory=dict)
    # registries (registries.py): a function that stores what it is handed in a module-level table ->
    # [table, "#i" and the parameter's name, or "@" for a decorator factory]; and the file's own
    # module-level calls of any function (a statement, an assignment's value, a decorator) -> what each passes by
    # name ("#i", keyword, "@": decorated)
    registrars: dict[str, list[str]] = field(default_factory=dict)
    registrations: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # custom operators (rules/operators.py): each op the file defines ("mylib::scale") -> how ("custom_op",
    # "library") and the function `@torch.library.custom_op` made it of; the ops it gives an implementation
    # that runs on fake tensors (`register_fake("mylib::scale")`, a Meta or a composite kernel); and the
    # functions whose op it gives one (`@scale.register_fake`)
    operators: dict[str, list[str]] = field(default_factory=dict)
    faked_ops: list[str] = field(default_factory=list)
    faked_functions: list[str] = field(default_factory=list)


# What a candidate's symbolic `requires` must turn out to be, once the tree decides it, for the finding
# to stand (`engine._stands`): a tensor, known or only assumed; a "known" one, shown by the code on one
# path at least (values.py, `Val.shown`), for a value that is usually a Python one (a slice bound passed
# in as a parameter); a "sparse" one (values.SPARSE: what a helper returns); a tensor of "bools" (a
# mask a helper returns or a caller passes); or not a tensor but a "generator" (values.GENERATOR: an
# attribute a base class sets, a parameter).
MustBe = Literal["tensor", "known", "sparse", "bools", "generator"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A finding before the engine knows whether compile reaches its function.

    `requires`, when set, is a symbolic value that must turn out to be a tensor once the whole
    tree is known (a parameter, what a helper returns, ...) for the finding to stand: what kind
    of tensor, `must_be` says. `fix_needs`:
    symbolic values that must turn out to be *known* tensors (values.py) for the finding's fix to
    stand; where one is only assumed, the finding stays and its fix goes."""

    scope: str | None  # qualname of the enclosing top-level function or method
    finding: Finding
    stmt_start: int  # lines of the statement, for suppression comments
    stmt_end: int
    requires: Val | None = None
    fix_needs: tuple[Val, ...] = ()
    # dynamo settings (`dynamo_settings` tokens) under which this is no break, and those that must
    # hold for it to be one
    unless: tuple[str, ...] = ()
    only_with: tuple[str, ...] = ()
    must_be: MustBe = "tensor"


def hide(names: dict[str, Val], bound: dict[str, Val]) -> dict[str, Val | None]:
    """Bind `bound` in a scope's `names` for a while (a lambda's or a nested function's parameters,
    while it is walked): what each of those names held before (None: nothing), for `put_back`."""
    hidden = {name: names.get(name) for name in bound}
    names.update(bound)
    return hidden


def put_back(names: dict[str, Val], hidden: dict[str, Val | None]) -> None:
    """Give each name `hide` (or a comprehension's targets) hid what it held before, or none."""
    for name, old in hidden.items():
        if old is None:
            names.pop(name, None)
        else:
            names[name] = old
