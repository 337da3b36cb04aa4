"""Findings that only the whole tree shows, by file (`tree_candidates`): calls of functions excluded from
compilation, TorchScript or numba functions, pydantic models and optimizers built, recurrent modules reached
through attributes, custom operators without a fake; and the placing of any tree-level finding as a
candidate of the file its function is in (`placed`)."""

from __future__ import annotations

from pathlib import Path

from . import calibration
from .analysis.hierarchy import RNN_MODULES
from .analysis.recurrent_walks import recurrent_walks
from .analysis.reach import Reach, locked_cache_reads
from .analysis.summary import NOT_CALLS, CallRef, Candidate
from .analysis.values import Val
from .analyze import FileResult
from .finding import Finding
from .registry import CATALOG, rule_info
from .source import compiled_modules


def tree_candidates(reach: Reach, results: list[FileResult],
                     python: tuple[int, int]) -> dict[Path, list[Candidate]]:
    """Findings that only the whole tree shows, by file: a call of a function excluded from
    compilation (BL410), a pydantic model built (BL411: its base may be in another file), a static method of
    an autograd Function compiled with TorchScript (BL411), a function numba compiles (BL411), an optimizer
    deriving from one of torch's (BL451), a call
    of an attribute holding a recurrent module that a constructor call elsewhere handed over
    (`Encoder(rnn_layer=nn.LSTM)`, then `self.rnn = rnn_layer(...)`: BL413), of one of the tree's classes
    deriving from one (`class LSTM(RNN, nn.LSTM)`, in any file: BL413) or of one a base class builds, or a
    walk over the modules of an object that reaches a recurrent one (`next(module.parameters())` of a class
    registering its LSTM first, whichever file walks it: BL413), and, for code that runs
    on Python 3.11 or older, the first read of a `functools.cached_property` (BL439); and a call of a
    custom operator the tree defines with nothing dynamo can run on fake tensors (BL441)."""
    found: list[tuple[str, CallRef, str, str, tuple[str, ...]]] = []  # caller, call, code, message, unless
    for caller, call, target in reach.disabled_calls:
        short = target.rsplit(".", 1)[-1]
        found.append((caller, call, "BL410", f"call to `{short}`, which is excluded from compilation "
                                             "(`torch.compiler.disable`): dynamo breaks the graph around it", ()))
    for caller, call, target in reach.script_calls:
        owner, _, short = target.rpartition(".")
        found.append((caller, call, "BL411", f"`{owner.rsplit('.', 1)[-1]}.{short}` is a TorchScript function kept as a "
                      "static method of an autograd Function: dynamo reads it off the class as the compiled script, "
                      "which it cannot trace, and breaks the graph at the call (a script function kept anywhere "
                      "else it inlines)", ()))
    for target, edges in reach.callers.items():
        if check := reach.functions[target].type_check:
            found.extend((caller, call, "BL447", _type_check_message(reach, target, check), ())
                         for caller, call, _ in edges if call.kind not in NOT_CALLS)
    for caller, call, target in reach.numba_calls:
        found.append((caller, call, "BL411", f"`{target.rsplit('.', 1)[-1]}` is compiled by numba (`@numba.jit`): "
                      "dynamo cannot call into the dispatcher numba makes of it, and breaks the graph at the call",
                      ()))
    for caller, call, built, base in reach.optimizer_builds:
        short = built.rsplit(".", 1)[-1]
        found.append((caller, call, "BL451", f"`{short}(...)` makes an optimizer deriving from `{base}` in compiled "
                      "code: torch's optimizer constructor sets attributes on it that dynamo does not trace, and the "
                      "graph breaks at the call", ()))
    for caller, call, model in reach.pydantic_builds:
        short = model.rsplit(".", 1)[-1]
        found.append((caller, call, "BL411", f"`{short}(...)` builds a pydantic model: pydantic validates "
                      "it in pydantic-core, a compiled extension dynamo cannot trace, and breaks the "
                      "graph to run it (its validators are then traced as frames of their own)", ()))
    found.extend(_recurrent_touches(reach))
    compiled = compiled_modules({r.path: r.module for r in results if r.summary is not None})
    for caller in sorted(reach.reached) if compiled else ():
        for call in reach.functions[caller].calls:
            owner = call.target.rpartition(".")[0] if call.kind == "name" else ""
            if owner in compiled:
                found.append((caller, call, "BL411", f"`{call.target.rpartition('.')[2]}` comes from `{owner}`, a "
                              "compiled extension module (no Python source beside it): dynamo cannot trace it, and "
                              "breaks the graph at the call", ()))
    if python < calibration.PYTHON_BOUND["BL439"]:
        for caller, read, getter in locked_cache_reads(reach):
            owner, _, name = getter.rpartition(".")
            found.append((caller, read, "BL439", f"`{name}` is a `functools.cached_property` of "
                          f"`{owner.rsplit('.', 1)[-1]}`: on Python 3.11 and older its first read enters the "
                          "property's lock (an `RLock`), a context manager dynamo cannot enter, and breaks the "
                          f"graph (the code's Python: {python[0]}.{python[1]}, see `target-python`)", ()))
    return placed([(caller, (call.line, call.col, call.end_line, call.end_col), code, message, unless, None)
                    for caller, call, code, message, unless in found]
                   + [(caller, span, "BL441", message, (), None)
                      for caller, span, message in _fakeless_op_calls(reach, results)]
                   + [(caller, span, "BL413", message, ("allow_rnn",), None)
                      for caller, span, message in recurrent_walks(reach)],
                   results)


def _type_check_message(reach: Reach, target: str, check: str) -> str:
    """BL447's message for a call of `target`, whose annotation `check` ("sampled:mems", "array:return")
    beartype checks with what dynamo cannot trace."""
    kind, _, name = check.partition(":")
    called = ".".join(target.split(".")[-2 if reach.functions[target].cls else -1:])
    what = "its result's annotation" if name == "return" else f"the annotation of `{name}`"
    how = ("a list or sequence of items, of which beartype checks one picked at random (`random.getrandbits`, "
           "which dynamo does not trace)" if kind == "sampled" else
           "a jaxtyping array type, whose `isinstance` check on a tensor dynamo cannot trace")
    return (f"call of `{called}`, which beartype checks: {what} is {how}; the graph breaks "
            "around the call")


def _recurrent_subclass(reach: Reach, cls: str, attr: str) -> tuple[str, str] | None:
    """(class, recurrent base) where `self.<attr>` of `cls` holds an instance of one of the tree's
    classes that derives from `nn.LSTM`, `nn.GRU` or `nn.RNN` (`class LSTM(RNN, nn.LSTM)`), stored
    there by name or built from what a function returns (`rnn_class = get_rnn(cell_type)`)."""
    held = [reach.attribute_class(cls, attr), *(h[:-2] for h in reach.attribute_callables(cls, attr)
                                                if h.endswith("()"))]
    for made in dict.fromkeys(reach.canonical(h) for h in held if h):
        if (base := reach.base_among(made, RNN_MODULES)) is not None:
            return made, base
    return None


# how BL413's findings that only the tree shows end
_EAGER = "dynamo does not trace recurrent modules and runs the whole function eagerly"


def _recurrent_touches(reach: Reach) -> list[tuple[str, CallRef, str, str, tuple[str, ...]]]:
    """BL413's findings that only the tree shows: a call of an attribute holding a recurrent module that a
    constructor call elsewhere handed over (reported at the first read of the attribute in the function,
    where dynamo wraps the module: `isinstance(self.rnn, nn.LSTM)` before the call), of one of the code's
    own subclasses of one, or of one a base class builds."""
    found: list[tuple[str, CallRef, str, str, tuple[str, ...]]] = []
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        subclassed = False  # a recurrent subclass run in this function already: dynamo runs the rest eagerly
        handed_read: set[str] = set()  # the attributes holding a handed recurrent module reported at their read
        for call in fn.calls if fn.cls else ():
            if call.kind == "self" and not subclassed and reach.method(fn.cls, call.target) is None \
                    and (base := _inherited_recurrent(reach, fn.cls, call.target)):
                subclassed = True  # (the file pass sees the attributes its class builds, not its bases')
                found.append((caller, call, "BL413", f"`self.{call.target}(...)` runs an `nn.{base[1].rsplit('.', 1)[-1]}` "
                              f"that the base class `{base[0].rsplit('.', 1)[-1]}` builds: {_EAGER}", ("allow_rnn",)))
            if call.kind != "selfattr":
                continue
            rnn = [h[:-2] for h in reach.handed(fn.cls, call.target) if h.endswith("()") and h[:-2] in RNN_MODULES]
            if rnn and call.target not in handed_read:
                kind = rnn[0].rsplit(".", 1)[-1]
                read = fn.read_spans[fn.reads.index(call.target)] if call.target in fn.reads else None
                if read is not None and read[:2] < (call.line, call.col):  # read before it is called
                    handed_read.add(call.target)
                    found.append((caller, CallRef("read", call.target, *read), "BL413",
                                  f"`self.{call.target}` holds an `nn.{kind}` handed to the constructor, read here "
                                  f"before it is called (dynamo wraps the module as it is read): {_EAGER}",
                                  ("allow_rnn",)))
                else:
                    found.append((caller, call, "BL413", f"`self.{call.target}(...)` runs an `nn.{kind}` handed to "
                                  f"the constructor: {_EAGER}", ("allow_rnn",)))
            elif not subclassed and (made := _recurrent_subclass(reach, fn.cls, call.target)):
                subclassed = True
                found.append((caller, call, "BL413", f"`self.{call.target}(...)` runs `{made[0].rsplit('.', 1)[-1]}`, "
                              f"the code's own subclass of `nn.{made[1].rsplit('.', 1)[-1]}`: {_EAGER}", ("allow_rnn",)))
    return found


def _inherited_recurrent(reach: Reach, cls: str, attr: str) -> tuple[str, str] | None:
    """(base class, recurrent module) where `self.<attr>` of `cls` holds a recurrent module that one of the
    tree's classes it derives from builds (`self.lstm = nn.LSTM(...)` in the base's `__init__`), and `cls`
    itself does not."""
    own = reach.classes[cls]
    if attr in own.submodules or attr in own.callables:
        return None
    for owner in reach.mro(cls)[1:]:
        made = reach.classes[owner].submodules.get(attr)
        if made is not None:
            made = reach.canonical(made)
            return (owner, made) if made in RNN_MODULES else None
    return None


def _fakeless_op_calls(reach: Reach, results: list[FileResult]) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """BL441: the calls, in reached functions, of a custom operator the tree defines and gives nothing
    dynamo can run on fake tensors (rules/operators.py): (caller, span, message). Through
    `torch.ops.<namespace>.<op>`, or a call of the function `@torch.library.custom_op` made the op of."""
    summaries = [r.summary for r in results if r.summary is not None]
    defined = {op: how for s in summaries for op, how in s.operators.items()}
    faked = {op for s in summaries for op in s.faked_ops} | {f for s in summaries for f in s.faked_functions}
    missing = {op: how for op, (how, function) in defined.items() if op not in faked and function not in faked}
    if not missing:
        return []
    of_function = {function: op for op, (how, function) in defined.items() if function}

    def message(op: str, written: str) -> str:
        if missing[op] == "custom_op":
            return (f"`{written}` runs `{op}`, a `torch.library.custom_op` with no fake implementation "
                    "(`register_fake`): torch.compile cannot run it on fake tensors and raises here")
        return (f"`{written}` runs `{op}`, whose kernels are for devices only (no Meta or composite kernel, no "
                "`register_fake`): dynamo cannot run it on fake tensors and breaks the graph here")

    found = []
    for caller in sorted(reach.reached):
        for op, *span in reach.functions[caller].op_calls:
            if op in missing:
                namespace, _, name = op.partition("::")
                found.append((caller, tuple(span), message(op, f"torch.ops.{namespace}.{name}(...)")))
    for caller, call, target in reach.operator_calls:
        op = of_function.get(target)
        if op in missing:
            found.append((caller, (call.line, call.col, call.end_line, call.end_col),
                          message(op, f"{target.rpartition('.')[2]}(...)")))
    return found


def placed(found: list[tuple[str, tuple[int, int, int, int], str, str, tuple[str, ...], Val | None]],
            results: list[FileResult]) -> dict[Path, list[Candidate]]:
    """Tree-level findings (function, span, code, message, settings that lift them, a value that must
    turn out to be a tensor) as candidates of the files their functions are in."""
    by_module = {r.module: r for r in results if r.summary is not None}
    extra: dict[Path, list[Candidate]] = {}
    for caller, (line, col, end_line, end_col), code, message, unless, requires in found:
        module = max((mod for mod in by_module if caller.startswith(mod + ".")), key=len, default=None)
        if module is None or code not in CATALOG:
            continue
        rule = rule_info(code)
        res = by_module[module]
        finding = Finding(code=code, kind=rule.kind, message=message, suggestion=rule.suggestion, path=res.path,
                          line=line, col=col, end_line=end_line, end_col=end_col, gb_types=rule.gb_types)
        extra.setdefault(res.path, []).append(Candidate(caller, finding, line, end_line, requires=requires,
                                                        unless=unless))
    return extra
