"""Calls into the installed packages that the configuration names (`follow = ["torch_geometric"]`).

A model often breaks the graph inside a library it calls: `self.conv(x, edge_index)` runs the
library's `ChebConv.forward`, which picks edges with a boolean mask. Dynamo names the library's line,
under site-packages, with the model's call on the stack; the model's line is the one its author can
change (move the call out of the compiled code, or call something else). For each package `follow`
names, the static pass reads the installed source (it never imports it) with the functions and classes
the linted code calls from compiled code as its entry points, and reports at each such call the
package's break that happens whenever the called function runs, under the code of the rule that found
it. A break in a branch of the package's code depends on the arguments and the package's settings,
which the package's own pass cannot see from there: the call is then a hazard, which says it may break.

`locate` finds the packages, `calls_into` the calls of them, `answers` (in the package's own run) says
which called functions always or may break and where, and `found` turns the answers into findings at the calls.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
from pathlib import Path
from typing import Callable, Collection

from .analysis.reach import Reach
from .analysis.resume import Breaking
from .analysis.summary import CallRef, Candidate
from .analysis.methods import MODULE_CONTAINERS
from .finding import Finding

# what a followed call's finding suggests (the rule's own suggestion is for the package's line)
SUGGESTION = ("the break is inside the installed package: call it outside the compiled code, use a variant "
              "of it that does not break, or raise it with the package's authors")

# name asked of a package -> (where its break is, as "path:line" under the package's folder, the code of
# the rule that found it, its message, and whether it breaks whenever the function runs)
Answers = dict[str, tuple[str, str, str, bool]]


def locate(names: list[str], notes: list[str]) -> dict[str, Path]:
    """Each named package's installed folder (or module file), looked up on the path breaklint runs with,
    without importing it; a note for each one that is not there."""
    found: dict[str, Path] = {}
    for name in names:
        try:
            spec = importlib.machinery.PathFinder.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if locations:
            found[name] = Path(locations[0])
        elif spec is not None and spec.origin and spec.origin.endswith(".py"):
            found[name] = Path(spec.origin)
        else:
            notes.append(f"follow: no installed Python source for `{name}` where breaklint runs; "
                         "its calls are not followed")
    return found


def calls_into(reach: Reach, packages: Collection[str]) -> list[tuple[str, CallRef, list[str]]]:
    """The calls, in the functions compile reaches, of the packages' functions (`to_dense_adj(...)`) and of
    their classes' instances (`self.conv(...)` after `self.conv = ChebConv(...)`, `LaplacianLambdaMax()(data)`,
    a loop over `self.convs = nn.ModuleList([ChebConv(...) ...])` or a `Sequential` of them called):
    (caller, call, the function's dotted name, or each class's followed by "()"). Names the linted tree
    defines are its own; a class's constructor is not followed."""
    out = []
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        for call in fn.calls:
            if call.kind == "name":
                names = [call.target]
            elif call.kind == "instcall" and call.target.endswith(":"):
                names = [f"{call.target[:-1]}()"]
            elif call.kind == "selfattr" and fn.cls is not None:
                names = [f"{held}()" for held in _held_classes(reach, fn.cls, call.target)]
            else:
                continue
            names = [n for n in names if n.partition(".")[0] in packages and n.rpartition(".")[0] not in reach.modules]
            if names:
                out.append((caller, call, names))
    return out


def _held_classes(reach: Reach, cls: str, attr: str) -> list[str]:
    """The classes of what `self.<attr>` holds: the module kept there, or, for a container of modules, the
    classes its elements are built from (a loop over it, or the `Sequential` called, runs each)."""
    held = reach.attribute_class(cls, attr)
    if held not in MODULE_CONTAINERS:
        return [held] if held else []
    return list(dict.fromkeys(made[:-2] for owner in reach.mro(cls)
                              for made in reach.classes[owner].callables.get(attr, [])
                              if made.endswith("()") and not made[:-2].endswith("()")))


def answers(reach: Reach, sure: Breaking, where: Breaking, names: list[str], breaks: dict[str, Finding]) -> Answers:
    """In a package's own run (`names` as `calls_into` gives them, its entry points): each name whose
    function, or whose class's `forward` (`__call__`) for an instance called, breaks whenever it runs
    (`sure`), or else may break, in a branch (`where`), with where and how (`breaks`: "path:line" -> the
    break found there)."""
    out: Answers = {}
    for name in names:
        qual = reach.canonical(name.removesuffix("()"))
        if name.endswith("()"):
            function = reach.method(qual, "forward") or reach.method(qual, "__call__") \
                if qual in reach.classes else None
        else:
            function = qual if qual in reach.functions else None
        for breaking, always in ((sure, True), (where, False)):
            needs = breaking.only_for.get(function)  # a break that needs an override this class may not run
            if function not in breaking or needs is not None and qual not in needs:
                continue
            if (finding := breaks.get(breaking[function])) is not None:
                out[name] = (breaking[function], finding.code, finding.message, always)
                break
    return out


def found(reach: Reach, packages: Collection[str], ask: Callable[[list[str]], Answers]
          ) -> list[tuple[str, tuple[int, int, int, int], str, str, tuple[str, ...], None]]:
    """The findings at the linted tree's calls into the packages, as tree-level findings (see
    `tree_findings.placed`); `ask` runs the packages' own pass on the names called. One whose break is
    in a branch of the package's code says that it may break (`retold` makes it a hazard)."""
    calls = calls_into(reach, packages)
    told = ask(sorted({name for _, _, names in calls for name in names})) if calls else {}
    out = []
    for caller, call, names in calls:
        answered = sorted((n for n in names if n in told), key=lambda n: not told[n][3])  # sure breaks first
        if not answered:
            continue
        name = answered[0]
        at, code, message, always = told[name]
        verb = "breaks" if always else "may break"
        cls = name.removesuffix("()")
        if call.kind == "selfattr" and reach.attribute_class(reach.functions[caller].cls or "", call.target) \
                in MODULE_CONTAINERS:
            what = f"calls an element of `self.{call.target}`, a `{cls}`, whose `forward` {verb}"
        elif call.kind == "selfattr":
            what = f"calls `self.{call.target}`, which holds a `{cls}`, whose `forward` {verb}"
        elif call.kind == "instcall":
            what = f"calls a `{cls}` built here, whose `forward` {verb}"
        else:
            what = f"calls `{name}`, which {verb}"
        when = "whenever it runs" if always else f"{MAY}, depending on what its arguments or settings choose"
        out.append((caller, (call.line, call.col, call.end_line, call.end_col), code,
                    f"this {what} the graph {when}, at {at} of the installed package: {message}", (), None))
    return out


# how a followed call's finding says that the package's break is in a branch of its code
MAY = "in a branch of its code"


def retold(cand: Candidate) -> Candidate:
    """A followed call's candidate, with the suggestion for the call rather than the package's line; a
    hazard where the package's break is in a branch (`found` says so in the message)."""
    f = cand.finding
    kind = "hazard" if f" {MAY}, " in f.message else f.kind
    return dataclasses.replace(cand, finding=dataclasses.replace(f, suggestion=SUGGESTION, kind=kind))
