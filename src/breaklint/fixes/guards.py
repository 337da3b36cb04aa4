"""Rewrites that put code behind `if not torch.compiler.is_compiling():` (BL401-BL404): eager runs it
as before, compiled code skips it. Also what counts as a statement that only reports (`print`,
logging, `warnings`), which `where.py` keeps behind the same guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..analysis.syntax import dotted
from ..finding import Edit, Fix
from .edit import own_line_indent, replace, text_of, torch_name


if TYPE_CHECKING:
    from ..analysis.context import FileContext


def guard_statement(ctx: "FileContext", call: cst.Call) -> Fix | None:
    """Put the statement `call` makes up behind `if not torch.compiler.is_compiling():`.

    Safe: eager runs it as before; dynamo treats the test as constant and skips
    the statement instead of breaking the graph. Offered only when the call is a
    whole statement on lines of its own and `torch` is imported as a module.
    """
    stmt = ctx.current_statement()
    torch = torch_name(ctx)
    if (torch is None or type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1
            or type(stmt.body[0]) is not cst.Expr or stmt.body[0].value is not call):
        return None
    indent = own_line_indent(ctx, stmt)
    if indent is None:
        return None
    pos = ctx.position(stmt)
    guard = f"if not {torch}.compiler.is_compiling():"
    edit = Edit(pos.start.line, pos.start.column, pos.start.line, pos.start.column,
                f"{guard}\n{indent}{ctx.indent_unit}")
    return Fix(title=f"guard with `{guard}`", edits=(edit,), safe=True)


REPORT_ONLY = "report only when not compiling"


def reports_only(fix: Fix) -> bool:
    """A fix that puts reporting code behind `not is_compiling()` and computes nothing new."""
    return fix.title.startswith(REPORT_ONLY)


def _diagnostic(ctx: "FileContext", stmt: cst.BaseStatement) -> tuple[cst.Call, bool] | None:
    """A statement that only reports: a call, its result unused, of `print`, a logger, `warnings`
    (known: True), or a function of a module (not a method of a value) whose arguments are all
    literals (known: False)."""
    if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Expr
            and type(stmt.body[0].value) is cst.Call):
        return None
    call = stmt.body[0].value
    qual = ctx.qualify(call.func) or ""
    receiver = dotted(call.func.value) if type(call.func) is cst.Attribute else None
    if (qual == "print" or qual.startswith(("logging.", "warnings."))
            or (receiver is not None and ctx.is_logger(receiver))):
        return call, True
    literal = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float)
    plain = type(call.func) is cst.Name or (receiver is not None and receiver.split(".")[0] in ctx.aliases)
    if plain and call.args and all(isinstance(a.value, literal) or (
            a.keyword is not None and type(a.value) in (cst.Name, cst.Attribute)
            and not ctx.value(a.value).is_tensor) or (
            type(a.value) in (cst.Name, cst.Attribute) and (dotted(a.value) or "").endswith("Warning"))
            for a in call.args):
        return call, False
    return None


_CLOCKS = {"time.time": "0.0", "time.perf_counter": "0.0", "time.monotonic": "0.0", "time.process_time": "0.0",
           "time.time_ns": "0", "time.perf_counter_ns": "0", "time.monotonic_ns": "0", "time.process_time_ns": "0"}


def clock_outside_compile(ctx: "FileContext", call: cst.Call, name: str) -> Fix | None:
    """`start = time.perf_counter()` -> `start = (0.0 if torch.compiler.is_compiling() else time.perf_counter())`.

    Eager code reads the clock as before; compiled code gets 0, a constant dynamo traces (a
    reading taken while tracing would be frozen into the graph anyway). Unsafe: compiled code
    sees 0. A call that is a statement of its own (`time.sleep(1)`) is guarded instead (safe)."""
    torch = torch_name(ctx)
    zero = _CLOCKS.get(name)
    if torch is None or zero is None or call.args:
        return None
    return replace(ctx, call, f"({zero} if {torch}.compiler.is_compiling() else {text_of(ctx, call)})",
                   "read the clock only when not compiling", safe=False)
