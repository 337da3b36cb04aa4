"""BL4xx: calls dynamo cannot put in a graph (modules and autograd: `modules.py`)."""

from __future__ import annotations

import re

import libcst as cst

from ..analysis import values as V
from ..analysis.call_values import sized_draw
from ..analysis.syntax import dotted
from ..analysis.vocabulary import BACKEND_CONTEXTS, LOCK_FACTORIES, NUMPY_FILE_FUNCTIONS, TRUE_UNDER_COMPILE
from ..finding import Fix
from ..fixes.edit import replace, text_of
from ..fixes.guards import clock_outside_compile, guard_statement
from ..fixes.numbers import torch_random
from .base import Rule, register
from .by_name import CallRule
from ._util import builtin_name, keyword, logging_tokens, maybe_tensor, method_call

GUARD = "guard it with `if not torch.compiler.is_compiling():` (dynamo then skips it), or move it out of forward"
LOG_METHODS = {
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "warning_once", "info_once", "warning_advice",
}
# A library's own logger methods named after a level (`info_rank0`, `warning_once`, `error_once`):
# dynamo supports no method of a `logging.Logger`, so any of these on a logger breaks as `info` does.
LEVEL_METHOD = re.compile(r"(?:debug|info|warning|warn|error|exception|critical|fatal)_\w+\Z")
LOGGER_NAMES = {"logger", "log", "LOGGER", "LOG", "_logger", "_log", "_LOGGER", "_LOG", "logging_"}


@register
class PrintCall(CallRule):
    CODE = "BL401"
    NAME = "print-call"
    KIND = "break"
    MESSAGE = "`print` cannot be traced; dynamo breaks the graph to run it"
    SUGGESTION = f"remove the print, or {GUARD}"
    GB_TYPES = ("GB0059", "GB0296")  # GB0296: a reorderable print handed a `torch.Size`
    BUILTINS = frozenset({"print"})
    GUARD_FIX = True

    def settings_for(self, node: cst.Call, what: str) -> tuple[str, ...]:
        # dynamo reorders a print to the graph's end, except one handed a `torch.Size` (`x.shape`)
        sized = any(_size_of(arg.value) for arg in node.args)
        return logging_tokens("print", reorderable=not sized)


@register
class LoggingCall(Rule):
    CODE = "BL402"
    NAME = "logging-call"
    KIND = "break"
    MESSAGE = "a `logging` call cannot be traced; dynamo breaks the graph to run it"
    SUGGESTION = f"{GUARD}; or log outside the compiled region"
    GB_TYPES = ("GB0291", "GB4841", "GB0007")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        call = method_call(node)
        if call is None or (call[1] not in LOG_METHODS and not LEVEL_METHOD.match(call[1])):
            return
        receiver = call[0]
        qual = self.ctx.qualify(node.func)
        name = dotted(receiver)
        if type(receiver) is cst.Name and _own_method(self.ctx, receiver.value, call[1]):
            return  # `log.info_rank0(...)` on an instance of the file's class: the break is inside, reported there
        if (
            (qual is not None and qual.startswith("logging."))
            or (type(receiver) is cst.Call and self.ctx.qualify(receiver.func) == "logging.getLogger")
            or (name is not None and (self.ctx.is_logger(name) or name.split(".")[-1] in LOGGER_NAMES))
        ):
            if qual == f"logging.{call[1]}":  # the module's function: dynamo can reorder it
                unless = logging_tokens(qual)
            else:  # a logger's method: only ignoring it helps
                unless = logging_tokens(*filter(None, [name and f"{name}.{call[1]}"]), f"logging.Logger.{call[1]}",
                                        reorderable=False)
            self.report(node, f"`{self.ctx.source(node)}`: {self.MESSAGE}", fix=guard_statement(self.ctx, node),
                        unless=unless)


def _own_method(ctx, name: str, method: str) -> bool:
    """Whether `name` is a module-level instance of a class this file defines, with a method `method`
    of its own (a logger wrapper whose body the analysis reads: dynamo inlines it)."""
    cls = ctx.summary.classes.get(ctx.summary.instances.get(name, ""))
    return cls is not None and method in cls.methods


def _size_of(node: cst.BaseExpression) -> bool:
    """`x.shape`, `x.size()`: a `torch.Size`."""
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    call = method_call(node) if type(node) is cst.Call else None
    return call is not None and call[1] == "size" and not node.args


@register
class WarningsCall(CallRule):
    CODE = "BL403"
    NAME = "warnings-call"
    KIND = "break"
    MESSAGE = ("`warnings.warn` and the warning filters (`simplefilter`, `filterwarnings`) are skipped by dynamo; "
               "the graph breaks around them")
    SUGGESTION = f"warn once, or set the filters, outside forward (e.g. in `__init__`), or {GUARD}"
    GB_TYPES = ("GB0007",)
    # `warnings.catch_warnings()` alone traces; setting a filter inside it does not
    NAMES = frozenset({"warnings.warn", "warnings.warn_explicit", "warnings.simplefilter",
                       "warnings.filterwarnings", "warnings.resetwarnings"})
    GUARD_FIX = True

    def settings_for(self, node: cst.Call, what: str) -> tuple[str, ...]:
        return logging_tokens(what)


@register
class TimeCall(CallRule):
    CODE = "BL404"
    NAME = "time-call"
    KIND = "break"
    MESSAGE = "reading the clock cannot be traced; the graph breaks around it"
    SUGGESTION = (f"time the compiled call from outside (or with `torch.profiler`/CUDA events), or {GUARD}")
    GB_TYPES = ("GB0007",)
    NAMES = frozenset({
        "time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.sleep",
        "time.time_ns", "time.perf_counter_ns", "time.monotonic_ns", "time.process_time_ns",
        "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    })

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # `b` of `a if torch.compiler.is_compiling() else b`, by id; the node is held so that its id
        # is never reused by a later node (a file walked in pieces frees each piece's nodes)
        self._eager_only: dict[int, cst.CSTNode] = {}

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if type(node.test) is cst.Call and self.ctx.qualify(node.test.func) in TRUE_UNDER_COMPILE:
            self._eager_only[id(node.orelse)] = node.orelse

    def check_call(self, node: cst.Call) -> None:
        if self._eager_only.get(id(node)) is not node:
            super().check_call(node)

    def fix_for(self, node: cst.Call, what: str) -> Fix | None:
        return guard_statement(self.ctx, node) or clock_outside_compile(self.ctx, node, what)


@register
class PythonRandom(CallRule):
    CODE = "BL405"
    NAME = "python-random"
    KIND = "break"
    MESSAGE = "Python's `random` module and `numpy.random` are skipped by dynamo; the graph breaks around them"
    SUGGESTION = "draw random numbers with torch (`torch.rand`, `torch.randint`, `torch.bernoulli`), which traces"
    # numpy's draws: a data-dependent operator to dynamo; from torch 2.14 a Python draw is traced,
    # and a branch on it is data-dependent branching
    GB_TYPES = ("GB0007", "GB0033", "GB0170")
    PREFIXES = ("random.", "numpy.random.")

    def matches(self, node: cst.Call) -> str | None:
        found = super().matches(node)
        # handed a size, NumPy's draws make an array dynamo traces (`torch._numpy`): where the code reads a
        # number out of it, the rules of tensors' values say so
        return None if found is not None and sized_draw(found, node) else found

    def fix_for(self, node: cst.Call, what: str) -> Fix | None:
        return torch_random(self.ctx, node, what)


@register
class RngStateCall(CallRule):
    CODE = "BL421"
    NAME = "rng-state-call"
    KIND = "break"
    MESSAGE = ("seeding torch's random number generator, reading or setting its state, making a `torch.Generator` "
               "or drawing with one, or making or drawing from a quasi-random `SobolEngine`")
    SUGGESTION = ("seed and make generators outside the compiled region (before the call, or in `__init__`), "
                  "and draw with the torch functions inside it, which trace")
    # GB0055: a generator handed to a random function; GB0008: a quasi-random engine's methods; GB7650: a
    # generator's own methods
    GB_TYPES = ("GB0007", "GB0208", "GB0363", "GB0055", "GB0008", "GB7650")
    # `torch.cuda.manual_seed(_all)` is not here: on a GPU dynamo traces it (on a machine without one
    # it breaks, but that is not where it runs)
    NAMES = frozenset({
        "torch.manual_seed", "torch.random.manual_seed", "torch.initial_seed", "torch.random.initial_seed",
        "torch.get_rng_state", "torch.set_rng_state", "torch.random.get_rng_state", "torch.random.set_rng_state",
        "torch.cuda.get_rng_state", "torch.cuda.set_rng_state", "torch.Generator", "torch._C.Generator",
        "torch.random.fork_rng", "torch.quasirandom.SobolEngine",
    })
    ASK_ALWAYS = True  # `generator=` handed to any call
    # what dynamo skips of a `torch.quasirandom.SobolEngine` (GB0008: the module is skipped whole)
    ENGINE_METHODS = frozenset({"draw", "draw_base2", "fast_forward", "reset"})
    # a `torch.Generator`'s methods, which dynamo does not trace (GB7650); its `device` reads fine
    GENERATOR_METHODS = frozenset({"manual_seed", "seed", "initial_seed", "get_state", "set_state",
                                   "graphsafe_get_state", "graphsafe_set_state", "clone_state", "get_offset",
                                   "set_offset"})

    def matches(self, node: cst.Call) -> str | None:
        found = super().matches(node)
        if found is None and (handed := keyword(node, "generator")) is not None \
                and self.ctx.value(handed.value) == V.GENERATOR:
            return "generator="  # `torch.randn(shape, generator=self.gen)`
        call = method_call(node)
        if found is None and call is not None and call[1] in self.ENGINE_METHODS \
                and self.ctx.value(call[0]) == V.SOBOL_ENGINE:
            return "engine"  # `self.engine.draw(n)`
        if found is None and call is not None and call[1] in self.GENERATOR_METHODS \
                and self.ctx.value(call[0]) == V.GENERATOR:
            return "generator."  # `self.rng.manual_seed(seed)`
        return found

    def check_call(self, node: cst.Call) -> None:
        super().check_call(node)
        handed = keyword(node, "generator")
        if handed is not None and self.matches(node) is None and (value := self.ctx.value(handed.value)).symbolic:
            # `generator=self.rng` of an attribute a base class sets, or a parameter: reported where the tree
            # decides it is a generator
            self.report(node, self.describe(node, "generator="), requires=value, must_be="generator")

    def describe(self, node: cst.Call, what: str) -> str:
        if what == "generator.":
            return (f"`{self.ctx.source(node)}` calls a method of a `torch.Generator`, which dynamo does not "
                    "trace: it breaks the graph to run it")
        if what == "generator=":
            return (f"`{self.ctx.source(node)}` draws with a `torch.Generator`, which dynamo cannot hand to the "
                    "graph: it breaks to run the call eagerly")
        if what.endswith("Generator"):
            return f"`{self.ctx.source(node)}` makes a `torch.Generator`, an object dynamo cannot create mid-graph"
        if what == "engine" or what.endswith("SobolEngine"):
            return (f"`{self.ctx.source(node)}` {'draws from' if what == 'engine' else 'makes'} a quasi-random "
                    "`SobolEngine`: dynamo skips `torch.quasirandom` and breaks the graph to run it")
        return f"`{self.ctx.source(node)}` touches the random number generator's state, which dynamo does not trace"


@register
class CopyCall(CallRule):
    CODE = "BL406"
    NAME = "copy-call"
    KIND = "break"
    MESSAGE = "`copy.deepcopy`/`copy.copy` (and `dataclasses.asdict`/`astuple`, which deep-copy) cannot be traced"
    SUGGESTION = "use `tensor.clone()` for tensors, and build copies of modules or containers outside forward"
    GB_TYPES = ("GB4198", "GB0179", "GB0007")
    # `dataclasses.asdict` and `astuple` deep-copy every field
    NAMES = frozenset({"copy.deepcopy", "copy.copy", "dataclasses.asdict", "dataclasses.astuple"})

    def describe(self, node: cst.Call, what: str) -> str:
        if what.startswith("dataclasses."):
            return f"`{self.ctx.source(node)}` deep-copies each field, which dynamo cannot trace"
        return f"`{self.ctx.source(node)}`: `copy.deepcopy`/`copy.copy` cannot be traced"


@register
class DebuggerCall(CallRule):
    CODE = "BL407"
    NAME = "debugger-call"
    KIND = "break"
    MESSAGE = "a debugger breakpoint cannot be traced"
    SUGGESTION = "remove the breakpoint before compiling; debug with `torch.compiler.set_stance(\"force_eager\")`"
    GB_TYPES = ("GB0059", "GB0007")
    BUILTINS = frozenset({"breakpoint"})
    NAMES = frozenset({
        "pdb.set_trace", "pdb.post_mortem", "pdb.pm", "ipdb.set_trace", "ipdb.post_mortem",
        "pudb.set_trace", "IPython.embed", "code.interact",
    })


@register
class FileIOCall(CallRule):
    CODE = "BL409"
    NAME = "file-io-call"
    KIND = "break"
    MESSAGE = "file or OS I/O cannot be traced"
    SUGGESTION = "do I/O outside the compiled region: load in `__init__`, save after the call"
    GB_TYPES = ("GB0059", "GB0007", "GB0156")  # GB0156: `sys.stdout.write`
    BUILTINS = frozenset({"open", "input", "__import__"})
    NAMES = frozenset({
        "importlib.import_module", "importlib.reload",
        "torch.save", "torch.load", *NUMPY_FILE_FUNCTIONS,
        "os.listdir", "os.makedirs", "os.mkdir", "os.remove", "os.unlink", "os.rename", "os.replace",
        "os.system", "os.stat", "os.walk", "os.scandir", "os.path.exists", "os.path.isfile",
        "os.path.isdir", "os.path.getsize", "os.path.getmtime", "os.path.abspath", "os.getcwd", "os.getpid",
        "os.cpu_count", "io.StringIO", "io.BytesIO",
        "sys.stdout.write", "sys.stderr.write", "sys.stdout.flush", "sys.stderr.flush",
    })
    PREFIXES = ("shutil.", "subprocess.", "pickle.", "json.dump", "json.load", "glob.")


@register
class DisabledFunctionCall(Rule):
    """Found by the engine once it knows the whole tree: see `Reach.disabled_calls`."""

    CODE = "BL410"
    NAME = "disabled-function-call"
    KIND = "break"
    MESSAGE = "a call to a function excluded from compilation with `torch.compiler.disable`"
    SUGGESTION = (
        "if the function only does bookkeeping, call it outside the compiled region; otherwise make "
        "it traceable and drop the decorator, or accept the break deliberately and suppress this finding"
    )
    GB_TYPES = ("GB0098",)


@register
class IntrospectionCall(CallRule):
    CODE = "BL412"
    NAME = "introspection-call"
    KIND = "break"
    MESSAGE = "`id()`, `inspect`, frame or traceback introspection cannot be traced"
    SUGGESTION = "compute such facts outside forward (e.g. in `__init__`) and keep them as attributes"
    GB_TYPES = ("GB0007", "GB0088", "GB0151", "GB0191")
    BUILTINS = frozenset({"id"})
    PREFIXES = ("inspect.", "traceback.", "gc.")
    NAMES = frozenset({"sys._getframe", "sys.exc_info"})

    def matches(self, node: cst.Call) -> str | None:
        what = super().matches(node)
        if what == "id" and not (node.args and maybe_tensor(self.ctx, node.args[0].value)):
            return None
        # dynamo traces `inspect.signature` and the `inspect.is*` predicates
        if what is not None and (what == "inspect.signature" or what.startswith("inspect.is")):
            return None
        return what

    def check_call(self, node: cst.Call) -> None:
        what = self.matches(node)
        if what is None:
            return
        if what != "id":
            super().check_call(node)
            return
        # `id()` of a tensor the graph computes breaks; of one the compiled code was handed (an
        # argument, a parameter or buffer, a gradient, an element of `group["params"]`) dynamo reads
        # the real object's identity, and traces: only a tensor the code is known to make counts
        arg = node.args[0].value
        requires = self.ctx.tensor_requirement(arg)
        if requires is None or type(arg) is not cst.Name or self._handed_parameter(arg, requires):
            return
        self.report(node, self.describe(node, what), requires=requires)

    def _handed_parameter(self, name: cst.Name, value: V.Val) -> bool:
        """A parameter of the function walked that still holds what its caller handed in: unannotated
        (`ctx._parameter`), or holding what its annotation declares."""
        fn = self.ctx.function
        return self.ctx._parameter(name) is not None or (
            fn is not None and name.value in fn.params and fn.declared.get(name.value) == value)


@register
class UntraceableContextManager(Rule):
    CODE = "BL414"
    NAME = "untraceable-context-manager"
    KIND = "break"
    MESSAGE = ("a `with` block over a lock, one of torch's backend switches (`torch.backends.cuda.sdp_kernel`, "
               "`torch.backends.cudnn.flags`, ...) or another context manager dynamo cannot enter")
    SUGGESTION = (
        "take the lock outside the compiled region (around the call to the compiled function), "
        "or move the locked code into a function decorated with `torch.compiler.disable`"
    )
    GB_TYPES = ("GB0142",)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if not self.ctx.active():
            return
        item = node.item
        made = self.ctx.qualify(item.func) if type(item) is cst.Call else None
        held = self.ctx.value(item)
        if made in BACKEND_CONTEXTS:
            self.report(item, f"`with {self.ctx.source(item)}` enters `{made}`, a context manager that sets "
                              "torch's backend flags: dynamo cannot enter it and runs the whole function eagerly",
                        f"use {BACKEND_CONTEXTS[made]}")
        elif (kind := made if made in LOCK_FACTORIES else V.built_of(held)) in LOCK_FACTORIES:
            self.report(item, f"`with {self.ctx.source(item)}` enters a `{kind}`: dynamo cannot trace it and "
                              "runs the whole function eagerly")


@register
class BuiltinPowOnTensor(Rule):
    CODE = "BL415"
    NAME = "builtin-pow-on-tensor"
    KIND = "break"
    MESSAGE = "the builtin `pow()` applied to a tensor"
    SUGGESTION = "write `a ** b` (or `torch.pow(a, b)`), which dynamo traces"
    GB_TYPES = ("GB0059",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or builtin_name(self.ctx, node) != "pow":
            return
        args = [a for a in node.args if a.keyword is None]
        if len(args) != 2 or any(a.star for a in args):
            return
        needs = [n for n in (self.ctx.tensor_requirement(a.value) for a in args) if n is not None]
        if not needs:
            return
        base, exp = (text_of(self.ctx, a.value) for a in args)
        fix = replace(self.ctx, node, f"({base}) ** ({exp})", "write `pow(a, b)` as `a ** b`", safe=True)
        self.report(node, f"`{self.ctx.source(node)}` calls the builtin `pow` on a tensor, which dynamo "
                          "cannot trace", fix=fix, requires=V.op(*needs))


# Tensor methods that read like properties: `x.is_floating_point` without `()` is a bound method.
PREDICATE_METHODS = frozenset({
    "is_floating_point", "is_complex", "is_contiguous", "is_pinned", "is_shared", "is_signed",
    "is_nonzero", "is_inference", "is_set_to", "has_names", "is_coalesced", "dim", "numel", "nelement",
})


@register
class UncalledTensorMethod(Rule):
    CODE = "BL416"
    NAME = "uncalled-tensor-method"
    KIND = "break"
    MESSAGE = "a tensor method tested for truth without being called"
    SUGGESTION = "call it: `x.is_floating_point()`; the bound method itself is always true"
    GB_TYPES = ("GB4841",)

    def _check(self, test: cst.BaseExpression) -> None:
        if not self.ctx.active():
            return
        parts = [test]
        while parts:
            cur = parts.pop()
            if type(cur) is cst.BooleanOperation:
                parts.extend([cur.left, cur.right])
            elif type(cur) is cst.UnaryOperation and type(cur.operator) is cst.Not:
                parts.append(cur.expression)
            elif type(cur) is cst.Attribute and cur.attr.value in PREDICATE_METHODS:
                requires = self.ctx.tensor_requirement(cur.value)
                if requires is not None:
                    self.report(cur, f"`{self.ctx.source(cur)}` is a method of a tensor, not a bool: without `()` "
                                     "it is always true, and dynamo cannot trace testing it",
                                fix=replace(self.ctx, cur, f"{text_of(self.ctx, cur)}()",
                                            "call the method", safe=False),
                                # on a dtype, `is_floating_point` is a bool: calling it would raise
                                requires=requires, fix_needs=(requires,))

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test)


@register
class JitIsinstance(Rule):
    CODE = "BL417"
    NAME = "jit-isinstance"
    KIND = "break"
    MESSAGE = "`torch.jit.isinstance` is skipped by dynamo; the graph breaks at the call"
    SUGGESTION = "use the builtin `isinstance(x, T)`, which dynamo traces (for a plain class it gives the same answer)"
    GB_TYPES = ("GB0007",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or self.ctx.qualify(node.func) != "torch.jit.isinstance":
            return
        args = node.args
        fix = None
        if len(args) == 2 and all(a.keyword is None and not a.star for a in args) \
                and type(args[1].value) in (cst.Name, cst.Attribute) and "isinstance" not in self.ctx.aliases:
            # A plain class: the same answer as the builtin. A generic (`List[int]`) checks the
            # contents, which `isinstance` cannot: no fix.
            fix = replace(self.ctx, node, f"isinstance({text_of(self.ctx, args[0].value)}, "
                                          f"{text_of(self.ctx, args[1].value)})",
                          "use the builtin `isinstance`", safe=True)
        self.report(node, f"`{self.ctx.source(node)}`: {self.MESSAGE}", fix=fix)
