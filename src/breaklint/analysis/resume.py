"""Calls dynamo cannot resume after: a method that breaks the graph, called on an object that
compiled code built.

When a break happens inside a call, dynamo ends the graph at the call and must rebuild, as
ordinary Python values, what the call stands on: the function and its arguments. A bound method
of an object built during tracing (`solver = Solver(...)`, then `solver.integrate(t)`) has no
source to rebuild it from (GB0092, a reconstruction failure). Dynamo then compiles only up to an
earlier point of the function, or none of it, and runs the rest eagerly.

This needs the findings, not only the reach: the engine asks once every file's breaks are known.
"""

from __future__ import annotations

from collections import deque

from .reach import Reach
from .summary import CallRef

# the methods a `with` statement runs (a break there is the context manager's, not this one's)
_CONTEXT = ("__enter__", "__exit__")

Breaks = dict[str, list[tuple[int, str]]]  # function -> its own breaks: (line, "path:line"), in order


def breaking(reach: Reach, direct: Breaks) -> dict[str, str]:
    """Every reached function whose call may break the graph, each with where one break is
    (`path:line`): those with a break of their own (`direct`), and their callers, transitively."""
    where = {qual: found[0][1] for qual, found in direct.items() if found}
    queue = deque(sorted(direct))
    while queue:
        callee = queue.popleft()
        for caller, _, _ in reach.callers.get(callee, []):
            if caller not in where and caller in reach.reached:
                where[caller] = where[callee]
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


def unresumable_calls(reach: Reach, where: dict[str, str]) -> list[tuple[str, CallRef, str]]:
    """(caller, call, message) for each call, in straight-line code of a reached function, of a
    method that may break the graph (`where`: `breaking`) on an object the function built."""
    out: list[tuple[str, CallRef, str]] = []
    for caller in sorted(reach.reached):
        fn = reach.functions[caller]
        for call in fn.calls:
            if not call.straight or not built_receiver(reach, call):
                continue
            broken = [t for t, _ in reach.targets(fn.cls, call) if t in where]
            if not broken:
                continue
            method = call.target.rpartition(":")[2]
            short = caller.rsplit(".", 1)[-1]
            out.append((caller, call, f"`{method}` breaks the graph (at `{where[broken[0]]}`) and is called on an "
                                      "object built in this compiled function: dynamo cannot rebuild that bound "
                                      f"method to resume after the call, and runs the rest of `{short}` eagerly "
                                      "(or all of it)"))
    return out
