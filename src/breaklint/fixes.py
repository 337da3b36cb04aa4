"""Mechanical rewrites: built by rules as text edits, applied here.

Rules build a `Fix` while they walk the CST (the helpers below), so `--fix`,
`--diff` and SARIF `fixes` all use the same edits. Applying never corrupts a
file: edits that overlap an earlier fix wait for the next round, and a result
that does not parse is rolled back fix by fix.
"""

from __future__ import annotations

import ast
import codecs
import difflib
import hashlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from .context import dotted
from .literals import integer
from .source import decode_source, line_starts, span_text
from .walk import find
from .finding import Edit, Finding, Fix

if TYPE_CHECKING:
    from .config import Config
    from .context import FileContext
    from .engine import LintResult
    from .values import Val


# ---------------------------------------------------------------------- building fixes (rules)
def torch_name(ctx: "FileContext") -> str | None:
    """The local name bound to the `torch` module (`import torch`, `import torch as t`)."""
    return min((local for local, full in ctx.aliases.items() if full == "torch"), default=None)


def text_of(ctx: "FileContext", node: cst.CSTNode) -> str:
    """The exact source text of a node, its own parentheses included (a position leaves them out:
    `(a\n or b)` without them is not an expression)."""
    pos = ctx.position(node)
    span = (pos.start.line, pos.start.column, pos.end.line, pos.end.column)
    if getattr(node, "lpar", None):
        span = _with_parentheses(ctx.lines, span, len(node.lpar), len(node.rpar))
        if span is None:  # a comment inside the parentheses: the node's own code, parentheses and all
            return cst.Module([]).code_for_node(node)
    return span_text(ctx.lines, *span)


def _with_parentheses(lines: list[str], span: tuple[int, int, int, int], opening: int, closing: int
                      ) -> tuple[int, int, int, int] | None:
    """`span` widened over the parentheses around it: only whitespace, line breaks and more parentheses
    lie between them and the node. None when anything else does (a comment)."""
    line, col, end_line, end_col = span
    while opening:
        if col == 0:
            line -= 1
            if line < 1:
                return None
            col = len(lines[line - 1])
            continue
        col -= 1
        char = lines[line - 1][col]
        if char == "(":
            opening -= 1
        elif not (char.isspace() or char == "\\"):
            return None
    while closing:
        if end_col == len(lines[end_line - 1]):
            end_line += 1
            if end_line > len(lines):
                return None
            end_col = 0
            continue
        char = lines[end_line - 1][end_col]
        end_col += 1
        if char == ")":
            closing -= 1
        elif not char.isspace():
            return None
    return line, col, end_line, end_col


def replace(ctx: "FileContext", node: cst.CSTNode, content: str, title: str, safe: bool) -> Fix:
    pos = ctx.position(node)
    return Fix(title=title, edits=(Edit(pos.start.line, pos.start.column, pos.end.line, pos.end.column,
                                        content),), safe=safe)


def guard_statement(ctx: "FileContext", call: cst.Call) -> Fix | None:
    """Put the statement `call` makes up behind `if not torch.compiler.is_compiling():`.

    Safe: eager runs it as before; dynamo treats the test as constant and skips
    the statement instead of breaking the graph. Offered only when the call is a
    whole statement on lines of its own and `torch` is imported as a module.
    """
    stmt = ctx.current_statement()
    torch = torch_name(ctx)
    if (torch is None or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1
            or not isinstance(stmt.body[0], cst.Expr) or stmt.body[0].value is not call):
        return None
    indent = own_line_indent(ctx, stmt)
    if indent is None:
        return None
    pos = ctx.position(stmt)
    guard = f"if not {torch}.compiler.is_compiling():"
    edit = Edit(pos.start.line, pos.start.column, pos.start.line, pos.start.column,
                f"{guard}\n{indent}{ctx.indent_unit}")
    return Fix(title=f"guard with `{guard}`", edits=(edit,), safe=True)


_NOT_ELEMENTWISE = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


def wrapped(node: cst.BaseExpression, text: str) -> str:
    """`text` (the node's source) in parentheses unless the node binds tighter than any operator."""
    return text if isinstance(node, _ATOMS) or node.lpar else f"({text})"


def _fold(torch: str, name: str, parts: list[str]) -> str:
    """`torch.<name>(torch.<name>(a, b), c)` for parts a, b, c."""
    out = parts[0]
    for more in parts[1:]:
        out = f"{torch}.{name}({out}, {more})"
    return out


def _unwrapped(ctx: "FileContext", node: cst.BaseExpression) -> cst.BaseExpression | None:
    """`t` for `t.item()` or `bool(t)` of a tensor: a Python value, whose truth is `t`'s."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value == "item":
        inner = node.func.value
    elif isinstance(node, cst.Call) and len(node.args) == 1 and ctx.qualify(node.func) == "bool" \
            and not node.args[0].keyword and not node.args[0].star:
        inner = node.args[0].value
    else:
        return None
    return inner if ctx.tensor_requirement(inner) is not None else None


def sole_statement(ctx: "FileContext") -> cst.BaseSmallStatement | None:
    """The small statement being walked, when it is alone on its line (no `;`)."""
    stmt = ctx.current_statement()
    return stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None


def own_line_indent(ctx: "FileContext", node: cst.CSTNode) -> str | None:
    """The indentation of the line a statement starts, or None when other code precedes it there."""
    pos = ctx.position(node)
    indent = ctx.lines[pos.start.line - 1][:pos.start.column]
    return None if indent.strip() else indent


def tensor_condition(ctx: "FileContext", test: cst.BaseExpression, torch: str) -> str | None:
    """`test` written as a bool tensor, for `torch.where` and `torch._assert_async`; None when it cannot be.

    A comparison already is one; `not`, `and` and `or` become `torch.logical_not/and/or` (only when
    every operand is a tensor: Python's `x and y` on a plain bool has no tensor form); any other
    tensor is tested for truth, which is `!= 0`.
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = tensor_condition(ctx, test.expression, torch)
        return None if inner is None else f"{torch}.logical_not({inner})"
    if isinstance(test, cst.BooleanOperation):
        if ctx.tensor_requirement(test.left) is None or ctx.tensor_requirement(test.right) is None:
            return None
        left, right = tensor_condition(ctx, test.left, torch), tensor_condition(ctx, test.right, torch)
        if left is None or right is None:
            return None
        return f"{torch}.logical_{'and' if isinstance(test.operator, cst.And) else 'or'}({left}, {right})"
    inner = _unwrapped(ctx, test)
    if inner is not None:
        return tensor_condition(ctx, inner, torch)
    if ctx.tensor_requirement(test) is None:
        return None
    text = text_of(ctx, test)
    if isinstance(test, cst.Comparison):
        if any(isinstance(c.operator, _NOT_ELEMENTWISE) for c in test.comparisons):
            return None
        if len(test.comparisons) == 1:
            return text
        # `a <= b <= c` is `a <= b and b <= c`: one comparison per pair, and-ed
        left, pairs = test.left, []
        for comp in test.comparisons:
            op = cst.Module([]).code_for_node(comp.operator).strip()
            pairs.append(f"{text_of(ctx, left)} {op} {text_of(ctx, comp.comparator)}")
            left = comp.comparator
        return _fold(torch, "logical_and", pairs)
    if ctx.value(test).bool_shaped:
        return text
    return f"{wrapped(test, text)} != 0"


def tensor_operands(ctx: "FileContext", test: cst.BaseExpression) -> tuple[Val, ...]:
    """The values of the parts of a test that `tensor_condition` hands to torch (a comparison, a
    tensor tested for truth, `t` of `t.item()` and `bool(t)`); Python parts that stay a Python test
    give nothing. A rewrite through them must only be offered where each is a known tensor."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if isinstance(test, cst.BooleanOperation):
        return tensor_operands(ctx, test.left) + tensor_operands(ctx, test.right)
    inner = _unwrapped(ctx, test)
    if inner is not None:
        return tensor_operands(ctx, inner)
    requirement = ctx.tensor_requirement(test)
    return (requirement,) if requirement is not None else ()


REPORT_ONLY = "report only when not compiling"


def reports_only(fix: Fix) -> bool:
    """A fix that puts reporting code behind `not is_compiling()` and computes nothing new."""
    return fix.title.startswith(REPORT_ONLY)


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and not test.lpar:
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _tests_a_tensor(ctx: "FileContext", part: cst.BaseExpression) -> bool:
    """A tensor, `t.item()` or `bool(t)`, or `not` of one."""
    while isinstance(part, cst.UnaryOperation) and isinstance(part.operator, cst.Not):
        part = part.expression
    return ctx.tensor_requirement(part) is not None or _unwrapped(ctx, part) is not None


def guarded_condition(ctx: "FileContext", test: cst.BaseExpression, torch: str
                      ) -> tuple[str | None, str, cst.BaseExpression | None] | None:
    """`P and T`, P not a tensor and T one, as (P's source, T as a bool tensor, T's node when it is one
    operand): P stays a Python test. (None, ..) without such P; None when T is not a tensor."""
    parts = _conjuncts(test)
    guard: list[cst.BaseExpression] = []
    while parts and not _tests_a_tensor(ctx, parts[0]):
        guard.append(parts.pop(0))
    if not parts or (guard and any(isinstance(g, cst.BooleanOperation) and not g.lpar for g in guard)):
        return None
    if not guard:
        cond = tensor_condition(ctx, test, torch)
        return None if cond is None else (None, cond, test)
    conds = [tensor_condition(ctx, p, torch) for p in parts]
    if any(c is None for c in conds):
        return None
    cond = _fold(torch, "logical_and", conds)
    return " and ".join(text_of(ctx, g) for g in guard), cond, parts[0] if len(parts) == 1 else None


def _names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in find(node, cst.Name)}


def _diagnostic(ctx: "FileContext", stmt: cst.BaseStatement) -> tuple[cst.Call, bool] | None:
    """A statement that only reports: a call, its result unused, of `print`, a logger, `warnings`
    (known: True), or a function of a module (not a method of a value) whose arguments are all
    literals (known: False)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.Call)):
        return None
    call = stmt.body[0].value
    qual = ctx.qualify(call.func) or ""
    receiver = dotted(call.func.value) if isinstance(call.func, cst.Attribute) else None
    if (qual == "print" or qual.startswith(("logging.", "warnings."))
            or (receiver is not None and ctx.is_logger(receiver))):
        return call, True
    literal = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float)
    plain = isinstance(call.func, cst.Name) or (receiver is not None and receiver.split(".")[0] in ctx.aliases)
    if plain and call.args and all(isinstance(a.value, literal) or (a.keyword is not None and isinstance(
            a.value, (cst.Name, cst.Attribute)) and not ctx.value(a.value).is_tensor) or (
            isinstance(a.value, (cst.Name, cst.Attribute)) and (dotted(a.value) or "").endswith("Warning"))
            for a in call.args):
        return call, False
    return None


def _branch(ctx: "FileContext", suite: cst.BaseSuite) -> tuple[list[tuple[str, cst.BaseExpression]],
                                                               list[tuple[cst.Call, bool]]] | None:
    """A branch made of `name = value` lines and reporting calls: (assignments in order, reports).
    None also when a report reads a name assigned before it in the branch (the reports move
    before the assignments)."""
    if not isinstance(suite, cst.IndentedBlock):
        return None
    assigns: list[tuple[str, cst.BaseExpression]] = []
    reports: list[tuple[cst.Call, bool]] = []
    for stmt in suite.body:
        report = _diagnostic(ctx, stmt)
        if report is not None:
            if _names(report[0]) & {name for name, _ in assigns}:
                return None
            reports.append(report)
            continue
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign)):
            return None
        assign = stmt.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return None
        assigns.append((assign.targets[0].target.value, assign.value))
    return assigns, reports


def _selectable(ctx: "FileContext", value: cst.BaseExpression) -> bool:
    """A value `torch.where` can take: not known to be something other than a tensor or a number."""
    val = ctx.value(value)
    return not val.not_tensor or val.kind in ("number", "bool")


def branch_to_where(ctx: "FileContext", node: cst.If | cst.IfExp) -> Fix | None:
    """Select with `torch.where` instead of branching on a tensor.

    - `a if c else b` -> `torch.where(c, a, b)`;
    - an `if`/`else` whose branches assign names (each at most once, from values that read none
      of the names assigned) -> one `y = torch.where(c, a, b)` per name, the side without an
      assignment keeping `y`; statements that only report (`print`, logging, warnings, a
      module's function called with literals) stay, in the original `if`/`else`, behind
      `if not torch.compiler.is_compiling():`, so eager runs report as before;
    - `if c: return a` followed by `return b` -> `return torch.where(c, a, b)`.

    Unsafe: both sides are computed (an error on the side not taken now raises), the result is a
    tensor broadcast from both, and compiled code does not report. An `if` tests one element, so
    the selection is whole: the result equals the taken branch's.
    """
    torch = torch_name(ctx)
    if torch is None:
        return None
    comments = list(find(node, cst.Comment))
    title = f"select with `{torch}.where(cond, a, b)` instead of branching"
    if isinstance(node, cst.IfExp):
        cond = tensor_condition(ctx, node.test, torch)
        if cond is None or comments or not (_selectable(ctx, node.body) and _selectable(ctx, node.orelse)):
            return None
        content = f"{torch}.where({cond}, {text_of(ctx, node.body)}, {text_of(ctx, node.orelse)})"
        return replace(ctx, node, content, title, safe=False)
    split = guarded_condition(ctx, node.test, torch)
    if split is None or isinstance(node.orelse, cst.If) or not isinstance(node.body, cst.IndentedBlock):
        return None
    guard, cond, _ = split
    # The comment on the `if` line moves to the first new line, and those inside the test stay in it
    # where the test is kept whole; any other comment would be lost: no fix.
    header = node.body.header.comment
    in_test = {id(c) for c in find(node.test, cst.Comment)}
    if any(c is not header and id(c) not in in_test for c in comments):
        return None
    returned = _return_pair(ctx, node)
    if returned is not None:
        return None if guard or in_test else _return_fix(ctx, node, torch, cond, returned, header, title)
    then = _branch(ctx, node.body)
    other = _branch(ctx, node.orelse.body) if node.orelse is not None else ([], [])
    if then is None or other is None or not (then[0] or then[1]) or (guard and node.orelse is not None):
        return None
    assigned = [name for name, _ in then[0] + other[0]]
    order = list(dict.fromkeys(assigned))  # the `torch.where` lines, in this order
    if (any(len({n for n, _ in side}) != len(side) for side in (then[0], other[0]))
            or not _same_reads(order, then[0]) or not _same_reads(order, other[0])
            or _names(node.test) & set(order[:-1])  # the test is read again on each line
            # a name one side does not assign keeps its value there: it must have one
            or any(not ctx.is_bound(n) for n in order if n not in dict(then[0]) or n not in dict(other[0]))
            or not all(_selectable(ctx, v) for _, v in then[0] + other[0])):
        return None
    indent = own_line_indent(ctx, node)
    if indent is None:
        return None
    unit = ctx.indent_unit
    lines: list[str] = []
    if then[1] or other[1]:
        lines.append(f"if not {torch}.compiler.is_compiling():")
        lines.append(f"{unit}if {_deeper(ctx, node.test, unit)}:")
        lines += [f"{unit * 2}{_deeper(ctx, c, unit)}" for c, _ in then[1]] or [f"{unit * 2}pass"]
        if other[1]:
            lines.append(f"{unit}else:")
            lines += [f"{unit * 2}{_deeper(ctx, c, unit)}" for c, _ in other[1]]
    then_of, other_of = dict(then[0]), dict(other[0])
    for name in order:
        a = text_of(ctx, then_of[name]) if name in then_of else name
        b = text_of(ctx, other_of[name]) if name in other_of else name
        lines.append(f"{name} = {torch}.where({cond}, {a}, {b})")
    if guard and then[1] and not then[0]:
        guard = None  # a branch that only reports: its test is kept whole, behind the guard
    if in_test and (order or guard):
        return None  # the test is rewritten: its comments would be lost
    if guard:
        lines = [f"if {guard}:", *(f"{unit}{line}" for line in lines)]
    if header is not None:
        lines[0] += f"  {header.value}"
    # A branch that only reports, behind `not is_compiling()`: eager runs it as before, and
    # dynamo skips it. Safe when every call is known to only report (print, logging, warnings).
    safe = not order and all(known for _, known in then[1] + other[1])
    title = title if order else f"{REPORT_ONLY}: `if not {torch}.compiler.is_compiling():`"
    return replace(ctx, node, f"\n{indent}".join(lines), title, safe=safe)


def retyped_names(ctx: "FileContext", node: cst.If | cst.IfExp) -> set[str]:
    """The names a `torch.where` fix of `node` assigns that were not a tensor on each side before
    (`g = 0.5 if c else 0.0`): after the fix they hold a tensor."""
    def tensor(value: cst.BaseExpression | None) -> bool:  # or a tensor once the tree is known
        return value is not None and ctx.tensor_requirement(value) is not None

    if isinstance(node, cst.IfExp):
        small = sole_statement(ctx)
        if not (isinstance(small, cst.Assign) and small.value is node and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            return set()
        return set() if tensor(node.body) and tensor(node.orelse) else {small.targets[0].target.value}
    sides = [node.body, *([node.orelse.body] if isinstance(node.orelse, cst.Else) else [])]
    values: dict[str, list[cst.BaseExpression | None]] = {}
    for side in sides:
        for stmt in getattr(side, "body", ()):
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            if isinstance(target, cst.Name):
                values.setdefault(target.value, []).append(small.value)
    # a side that does not assign the name keeps its old value, whose type is not known here
    return {name for name, found in values.items() if len(found) < 2 or not all(map(tensor, found))}


_TESTS = (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf)


def tested_after(ctx: "FileContext", function: cst.FunctionDef, names: set[str], line: int) -> bool:
    """Whether one of `names` is read in an `if`/`while`/`assert` test after `line`: were it a tensor
    there, the break would move to that test instead of going away."""
    for node in find(function, _TESTS):
        for name in find(node.test, cst.Name):
            if name.value in names and ctx.positions.span(name)[0] > line:
                return True
    return False


def _deeper(ctx: "FileContext", node: cst.CSTNode, unit: str) -> str:
    """The node's source, its continuation lines one `unit` deeper (kept as they are when a string
    spans lines: its text would change)."""
    text = text_of(ctx, node)
    strings = find(node, (cst.SimpleString, cst.FormattedString))
    if any("\n" in cst.Module([]).code_for_node(s) for s in strings):
        return text
    return text.replace("\n", "\n" + unit)


def _same_reads(order: list[str], side: list[tuple[str, cst.BaseExpression]]) -> bool:
    """Whether each value of a branch, computed on the `torch.where` line of its name, reads the
    same assignments of that branch as it did in the branch: the lines keep the branch's order
    for every name a value reads (a name the branch assigns later is still the old one)."""
    where = {name: i for i, name in enumerate(order)}
    mine = {name: i for i, (name, _) in enumerate(side)}
    for name, value in side:
        for read in _names(value) & mine.keys() - {name}:
            if (where[read] < where[name]) != (mine[read] < mine[name]):
                return False
    return True


def _return_pair(ctx: "FileContext", node: cst.If) -> tuple[cst.BaseExpression, cst.Return] | None:
    """For `if c: return a` followed by `return b` in the same block: (a, that `return b`)."""
    body = node.body.body
    if node.orelse is not None or len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) \
            or len(body[0].body) != 1 or not isinstance(body[0].body[0], cst.Return) or body[0].body[0].value is None:
        return None
    after = ctx.next_statement(node)
    if not (isinstance(after, cst.SimpleStatementLine) and len(after.body) == 1 and isinstance(after.body[0], cst.Return)
            and after.body[0].value is not None and not after.leading_lines and not any(find(after, cst.Comment))):
        return None
    if not (_selectable(ctx, body[0].body[0].value) and _selectable(ctx, after.body[0].value)):
        return None
    return body[0].body[0].value, after.body[0]


def _return_fix(ctx: "FileContext", node: cst.If, torch: str, cond: str, pair: tuple[cst.BaseExpression, cst.Return],
                header: cst.Comment | None, title: str) -> Fix:
    then, after = pair
    start, end = ctx.position(node), ctx.position(after)
    content = f"return {torch}.where({cond}, {text_of(ctx, then)}, {text_of(ctx, after.value)})"
    if header is not None:
        content += f"  {header.value}"
    return Fix(title=title, edits=(Edit(start.start.line, start.start.column, end.end.line, end.end.column,
                                        content),), safe=False)


# One draw of Python's or numpy's random number functions, as a 0-d tensor drawn by torch:
# (torch's function with `{}` for the arguments' source, the positional arguments it takes).
_RANDOM = {
    "random.random": ("{t}.rand(())", 0),
    "numpy.random.rand": ("{t}.rand(())", 0),
    "numpy.random.random": ("{t}.rand(())", 0),
    "numpy.random.randn": ("{t}.randn(())", 0),
    "random.uniform": ("{t}.empty(()).uniform_({0}, {1})", 2),
    "numpy.random.uniform": ("{t}.empty(()).uniform_({0}, {1})", 2),
    "random.gauss": ("{t}.normal(float({0}), float({1}), ())", 2),
    "random.normalvariate": ("{t}.normal(float({0}), float({1}), ())", 2),
    "numpy.random.normal": ("{t}.normal(float({0}), float({1}), ())", 2),
    "random.randint": ("{t}.randint({0}, ({1}) + 1, ())", 2),
}


def torch_random(ctx: "FileContext", call: cst.Call, name: str) -> Fix | None:
    """`random.random()` -> `torch.rand(())`, `random.uniform(a, b)` -> `torch.empty(()).uniform_(a, b)`, ...

    Unsafe: the number comes from torch's generator (seeded by `torch.manual_seed`, not
    `random.seed`), so the draws differ, and it is a 0-d tensor rather than a Python float: a
    test such as `if torch.rand(()) < p:` is then data-dependent. Offered where the value feeds
    arithmetic, not in an `if` or `while` test (a name it is assigned to may still be tested later:
    dynamo's count shows it).
    """
    torch = torch_name(ctx)
    spec = _RANDOM.get(name)
    stmt = ctx.current_statement()
    if torch is None or spec is None or stmt is None:  # a call in an `if` or `while` test
        return None
    start, end = ctx.statement_lines()
    if not start <= ctx.position(call).start.line <= end:
        return None
    pattern, count = spec
    if len(call.args) != count or any(a.keyword is not None or a.star for a in call.args):
        return None
    args = [text_of(ctx, a.value) for a in call.args]
    return replace(ctx, call, pattern.format(*args, t=torch), f"draw with `{pattern.format(*'ab', t=torch)}`",
                   safe=False)


def _int_expression(ctx: "FileContext", node: cst.BaseExpression) -> bool:
    """An int literal, a `len(...)`, or `+ - * //` of those."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Call):
        return ctx.qualify(node.func) == "len"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _int_expression(ctx, node.expression)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                              cst.FloorDivide)):
        return _int_expression(ctx, node.left) and _int_expression(ctx, node.right)
    return False


def arange_to_range(ctx: "FileContext", call: cst.Call, tensor: cst.BaseExpression) -> Fix | None:
    """`torch.arange(a, b).tolist()` -> `list(range(a, b))`: the list never needs a tensor.

    Safe when every argument is built from int literals and `len(...)`, where `arange` and `range` give the
    same ints; otherwise unsafe (`arange` also takes floats and tensors, `range` does not).
    """
    if not (isinstance(tensor, cst.Call) and ctx.qualify(tensor.func) == "torch.arange"
            and 1 <= len(tensor.args) <= 3 and all(a.keyword is None and not a.star for a in tensor.args)):
        return None
    ints = all(_int_expression(ctx, a.value) for a in tensor.args)
    if not ints and any(ctx.value(a.value).is_tensor for a in tensor.args):
        return None
    bounds = ", ".join(text_of(ctx, a.value) for a in tensor.args)
    return replace(ctx, call, f"list(range({bounds}))", "build the list with `range`", safe=ints)


def _mask(ctx: "FileContext", node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The mask of `x[mask]`: one index, a bool tensor."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
        return None
    mask = node.slice[0].slice.value
    return mask if ctx.value(mask).bool_shaped and ctx.tensor_requirement(mask) is not None else None


def _unmasked(ctx: "FileContext", value: cst.BaseExpression, mask: str
              ) -> tuple[cst.BaseExpression, list[cst.Subscript]] | None:
    """`value` with each read `y[mask]` (this mask's text) written `y`, and those reads; None when
    it reads any other value not known to be a plain number: a tensor read whole has the
    selection's shape, not the whole tensor's."""
    reads = [s for s in find(value, cst.Subscript) if _mask(ctx, s) is not None
             and text_of(ctx, _mask(ctx, s)) == mask]
    inside = {id(n) for r in reads for n in find(r, (cst.Name, cst.Attribute))}
    # a function's or method's own name; a method's receiver is a value like any other
    callees = {id(n) for c in find(value, cst.Call)
               for n in ([c.func, c.func.attr] if isinstance(c.func, cst.Attribute) else [c.func])}
    attrs = {id(a.attr) for a in find(value, cst.Attribute)}
    # `x.dtype`, `x.device`: what is read is not the tensor's elements
    described = {id(n) for a in find(value, cst.Attribute) if ctx.value(a).not_tensor and id(a) not in callees
                 for n in find(a.value, (cst.Name, cst.Attribute, cst.Subscript))}
    for leaf in find(value, (cst.Name, cst.Attribute, cst.Subscript)):
        if id(leaf) in inside or id(leaf) in callees or id(leaf) in attrs or id(leaf) in described or leaf in reads:
            continue
        if isinstance(leaf, cst.Subscript) and _mask(ctx, leaf) is not None:
            return None  # a read through another mask
        if isinstance(leaf, (cst.Name, cst.Attribute)) and not ctx.value(leaf).not_tensor \
                and not (isinstance(leaf, cst.Name) and leaf.value in ctx.aliases):  # `torch`, `F`
            return None  # a tensor, or not known not to be one
    return value.visit(_Unmask({id(r) for r in reads})), reads


class _Unmask(cst.CSTTransformer):
    def __init__(self, reads: set[int]) -> None:
        super().__init__()
        self.reads = reads

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if id(original_node) not in self.reads:
            return updated_node
        return updated_node.value.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar) \
            if updated_node.lpar else updated_node.value


def masked_write(ctx: "FileContext", target: cst.BaseExpression, op: cst.BaseAugOp | None,
                 value: cst.BaseExpression) -> tuple[Fix, list[cst.Subscript]] | None:
    """`x[mask] = f(y[mask], 2)` -> `x.copy_(torch.where(mask, f(y, 2), x))`; `x[mask] += v` likewise.

    For the masked reads of the statement. Offered when every tensor the value reads is read
    through the same mask. Unsafe: `f` is computed on every element (what it gives outside the
    mask is dropped), and the mask must have the shape of `x`: a mask over `x`'s leading
    dimensions broadcasts against its trailing ones instead.
    """
    mask_node = _mask(ctx, target)
    if mask_node is None:
        return None
    torch = torch_name(ctx)
    small = sole_statement(ctx)
    if isinstance(small, cst.Assign):
        own = small.targets[0].target if len(small.targets) == 1 else None
    else:
        own = small.target if isinstance(small, cst.AugAssign) else None
    if torch is None or mask_node is None or own is not target or not isinstance(target.value, (cst.Name,
                                                                                                cst.Attribute)):
        return None
    mask = text_of(ctx, mask_node)
    found = _unmasked(ctx, value, mask)
    if found is None or (op is None and not found[1]):
        return None
    new, reads = found
    x = text_of(ctx, target.value)
    code = cst.Module([]).code_for_node(new)
    if op is not None:
        operator = cst.Module([]).code_for_node(op).replace("=", "").strip()
        code = f"{x} {operator} {wrapped(new, code)}"
        reads = [target, *reads]
    fix = replace(ctx, small, f"{x}.copy_({torch}.where({mask}, {code}, {x}))",
                  f"assign through `{torch}.where(mask, ...)` instead of reading through the mask", safe=False)
    return fix, reads


_WHOLE_TESTS = frozenset({"any", "all", "max", "min", "amax", "amin"})
_NOT_ELEMENTWISE = (cst.MatrixMultiply,)


def whole_test_operand(ctx: "FileContext", call: cst.Call) -> cst.BaseExpression | None:
    """E of `torch.any(E)`, `E.all()`, `E.max()`, ...: a reduction over every element that gives the
    same answer for a tensor and for its distinct values."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in _WHOLE_TESTS and not call.args:
        return call.func.value
    qual = ctx.qualify(call.func) or ""
    if (qual.startswith("torch.") and qual[6:] in _WHOLE_TESTS and len(call.args) == 1
            and call.args[0].keyword is None and not call.args[0].star):
        return call.args[0].value
    return None


def elementwise_names(ctx: "FileContext", node: cst.BaseExpression) -> list[cst.Name] | None:
    """The names an element-by-element expression reads (comparisons, arithmetic and `~`/`-` of
    names and numbers), when every other leaf is known not to be a tensor; None for anything else."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, cst.Comparison):
        parts = [node.left, *(c.comparator for c in node.comparisons)]
        if any(isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in node.comparisons):
            return None
    elif isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, _NOT_ELEMENTWISE):
        parts = [node.left, node.right]
    elif isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
        parts = [node.expression]
    elif isinstance(node, (cst.Integer, cst.Float)) or ctx.value(node).not_tensor:
        return []
    else:
        return None
    names: list[cst.Name] = []
    for part in parts:
        found = elementwise_names(ctx, part)
        if found is None:
            return None
        names += [n for n in found if not ctx.value(n).not_tensor]
    return names


def unique_to_input(ctx: "FileContext", call: cst.Call) -> tuple[Fix, cst.Name] | None:
    """`u = torch.unique(x)` -> `u = x`, where `u` then only feeds tests over every element
    (`torch.any((u != 0) & (u != 1))`, `u.max()`): the fix, and the name, whose other uses the
    caller checks (`only_whole_tests`).

    Safe: such a test gives the same answer over a tensor's values as over its distinct values,
    and no longer needs a tensor whose length depends on the data.
    """
    small = sole_statement(ctx)
    if not (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)):
        return None
    if ctx.qualify(call.func) == "torch.unique":
        if not call.args or call.args[0].keyword is not None:
            return None
        source, rest = call.args[0].value, list(call.args[1:])
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "unique":
        source, rest = call.func.value, list(call.args)
    else:
        return None
    for arg in rest:  # `sorted=` changes nothing a test sees; `dim=None` is the default
        key = arg.keyword.value if arg.keyword is not None else None
        if arg.star or not (key == "sorted" or key == "dim" and isinstance(arg.value, cst.Name)
                            and arg.value.value == "None"):
            return None
    fix = replace(ctx, call, text_of(ctx, source), "test the tensor itself, not its distinct values "
                  "(a test over every element gives the same answer)", safe=True)
    return fix, small.targets[0].target


def _index_constant(subscript: cst.BaseExpression) -> int | None:
    """`k` for `x[k]` with a literal integer `k` (negative ones too), else None."""
    if not (isinstance(subscript, cst.Subscript) and len(subscript.slice) == 1
            and isinstance(subscript.slice[0].slice, cst.Index)):
        return None
    return integer(subscript.slice[0].slice.value)


def position_lookup(ctx: "FileContext", node: cst.BaseExpression
                    ) -> tuple[cst.Call, cst.BaseExpression, int] | None:
    """(the call, `c`, `k`) for `torch.where(c)[0][k]` or `c.nonzero(as_tuple=True)[0][k]`, a literal
    `k`: one position where `c` holds, a 0-d tensor."""
    which = _index_constant(node)
    inner = node.value if isinstance(node, cst.Subscript) else None
    if which is None or _index_constant(inner) != 0 or not isinstance(inner.value, cst.Call):
        return None
    call = inner.value
    qual = ctx.qualify(call.func)
    args = [a for a in call.args if a.keyword is None]
    as_tuple = [a for a in call.args if a.keyword is not None and a.keyword.value == "as_tuple"]
    if as_tuple and not (isinstance(as_tuple[0].value, cst.Name) and as_tuple[0].value.value == "True"):
        return None
    if qual == "torch.where" and len(call.args) == 1 and len(args) == 1:
        cond = args[0].value
    elif qual == "torch.nonzero" and len(args) == 1 and len(call.args) == 2 and as_tuple:
        cond = args[0].value
    elif (isinstance(call.func, cst.Attribute) and call.func.attr.value == "nonzero" and not args
          and len(call.args) == 1 and as_tuple and not ctx.is_module_ref(call.func.value)):
        cond = call.func.value
    else:
        return None
    return (call, cond, which) if ctx.tensor_requirement(cond) is not None else None


def first_position(ctx: "FileContext", node: cst.Subscript) -> tuple[cst.Call, Fix] | None:
    """`torch.where(c)[0][0]` (or `c.nonzero(as_tuple=True)[0][0]`) -> `c.int().argmax()`, the first
    position where a 1-d `c` holds; `[0][-1]`, the last -> `(c.shape[0] - 1 - c.int().flip(0).argmax())`.
    The call, and the fix.

    Unsafe: the same 0-d index where `c` has one dimension and holds somewhere; where it holds
    nowhere the original raises an IndexError and this gives a position (0, or the last)."""
    found = position_lookup(ctx, node)
    torch = torch_name(ctx)
    if found is None or found[2] not in (0, -1) or torch is None:
        return None
    call, cond, which = found
    c = wrapped(cond, text_of(ctx, cond))
    if which == 0:
        content, title = f"{c}.int().argmax()", "take the first position with `argmax`"
    else:
        content, title = f"({c}.shape[0] - 1 - {c}.int().flip(0).argmax())", "take the last position with `argmax`"
    return call, replace(ctx, node, content, title, safe=False)


def name_uses(function: cst.FunctionDef, name: str) -> list[cst.Name]:
    """The names in the function that refer to the variable `name`: not `obj.name`, `f(name=...)`
    or `def g(name)`."""
    others: set[int] = set()
    uses = []
    for node in find(function, (cst.Attribute, cst.Arg, cst.Param, cst.Name)):
        if isinstance(node, cst.Attribute):
            others.add(id(node.attr))
        elif isinstance(node, cst.Arg):
            if node.keyword is not None:
                others.add(id(node.keyword))
        elif isinstance(node, cst.Param):
            others.add(id(node.name))
        elif node.value == name:
            uses.append(node)
    return [n for n in uses if id(n) not in others]


def only_whole_tests(function: cst.FunctionDef, name: str, target: cst.Name, tested: set[int]) -> bool:
    """Whether every other use of `name` in the function, an assignment included, is one of the
    `tested` name nodes."""
    return all(n is target or id(n) in tested for n in name_uses(function, name))


_REDUCTIONS = ("sum", "mean")


def masked_reduction(ctx: "FileContext", call: cst.Call) -> tuple[Fix, list[cst.Subscript]] | None:
    """`x[mask].sum()` -> `torch.where(mask, x, 0).sum()`; `.mean()` -> `... .sum() / mask.sum()`.

    Unsafe: the mask must have the shape of `x` (a mask over leading dimensions broadcasts
    against the trailing ones instead), and the sum's dtype follows `torch.where`'s promotion.
    """
    if call.args or not isinstance(call.func, cst.Attribute) or call.func.attr.value not in _REDUCTIONS:
        return None
    torch = torch_name(ctx)
    if torch is None:
        return None
    read = call.func.value
    mask_node = _mask(ctx, read)
    if mask_node is None:
        return None
    mask = text_of(ctx, mask_node)
    total = f"{torch}.where({mask}, {text_of(ctx, read.value)}, 0).sum()"
    content = total if call.func.attr.value == "sum" else f"({total} / {wrapped(mask_node, mask)}.sum())"
    return replace(ctx, call, content, "reduce with `torch.where(mask, x, 0)` instead of selecting",
                   safe=False), [read]


def logical_chain(ctx: "FileContext", node: cst.BooleanOperation, operands: list[cst.BaseExpression],
                  ops: list[cst.BaseBooleanOp]) -> Fix | None:
    """`a and b` (a value, not a test) of bool tensors -> `torch.logical_and(a, b)`; `or` likewise.

    Unsafe: the result is a bool tensor rather than one of the operands (the same value, since
    every operand is a bool tensor), and every operand is computed (no short-circuit). Offered for
    chains of one operator whose operands are all bool tensors (comparisons, `isnan`, `any`, ...)."""
    torch = torch_name(ctx)
    if torch is None or len({type(op) for op in ops}) != 1 or any(find(node, cst.Comment)):
        return None
    if not all(ctx.value(o).bool_shaped and ctx.tensor_requirement(o) is not None for o in operands):
        return None
    name = "logical_and" if isinstance(ops[0], cst.And) else "logical_or"
    text = _fold(torch, name, [text_of(ctx, o) for o in operands])
    return replace(ctx, node, text, f"combine with `{torch}.{name}`", safe=False)


def logical_not(ctx: "FileContext", node: cst.UnaryOperation) -> Fix | None:
    """`not t` (a value, not a test) -> `torch.logical_not(t)`: `t == 0` as a bool tensor, where `not`
    gave a Python bool. Unsafe: the type changes."""
    torch = torch_name(ctx)
    if torch is None or any(find(node, cst.Comment)):
        return None
    return replace(ctx, node, f"{torch}.logical_not({text_of(ctx, node.expression)})",
                   f"negate with `{torch}.logical_not`", safe=False)


_MATH_TO_TORCH = frozenset({
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "erf", "erfc", "isnan", "isinf", "isfinite",
})


def math_to_torch(ctx: "FileContext", call: cst.Call, qual: str) -> Fix | None:
    """`math.sqrt(t)` on a tensor -> `torch.sqrt(t)`: the same function, kept a tensor. Unsafe: the
    result is a 0-d tensor rather than a float (and `floor`/`ceil` keep `t`'s dtype, not int)."""
    torch = torch_name(ctx)
    name = qual.removeprefix("math.")
    if torch is None or name not in _MATH_TO_TORCH or len(call.args) != 1 or call.args[0].keyword \
            or call.args[0].star:
        return None
    return replace(ctx, call, f"{torch}.{name}({text_of(ctx, call.args[0].value)})",
                   f"use `{torch}.{name}`", safe=False)


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


def _raise_message(stmt: cst.Raise) -> str | None:
    """The message for `raise E("literal")` (its literal), `raise E(f"...")` (its text, fields elided)
    or `raise E` / `raise E()` ("E raised"), as source text; None for any other computed message."""
    exc = stmt.exc
    if stmt.cause is not None or exc is None:
        return None
    name = dotted(exc.func if isinstance(exc, cst.Call) else exc)
    if not isinstance(exc, cst.Call) or not exc.args:
        return f'"{name} raised"' if name else None
    if len(exc.args) > 1:
        return None
    arg = exc.args[0]
    if arg.keyword is not None or arg.star or not isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString,
                                                                        cst.FormattedString)):
        return None
    strings = find(arg.value, cst.SimpleString)
    if any("b" in s.prefix.lower() for s in strings):
        return None
    if any(find(arg.value, cst.FormattedString)):
        return _elided(arg.value)
    return cst.Module([]).code_for_node(arg.value)


def _string_pieces(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.ConcatenatedString):
        return _string_pieces(node.left) + _string_pieces(node.right)
    return [node]


def _elided(message: cst.BaseExpression) -> str | None:
    """An f-string message as a plain string, each `{...}` field written `...`: the fields would
    format tensors while tracing, and `_assert_async` takes a constant message."""
    parts: list[str] = []
    for piece in _string_pieces(message):
        if isinstance(piece, cst.SimpleString) and isinstance(piece.evaluated_value, str):
            parts.append(piece.evaluated_value)
        elif isinstance(piece, cst.FormattedString) and "r" not in piece.prefix.lower():
            for part in piece.parts:
                if isinstance(part, cst.FormattedStringText):
                    text = ast.literal_eval(piece.end + part.value + piece.end)
                    parts.append(text.replace("{{", "{").replace("}}", "}"))
                else:
                    parts.append("...")
        else:
            return None
    return repr("".join(parts))


def check_to_assert(ctx: "FileContext", node: cst.If) -> Fix | None:
    """`if <tensor cond>: raise E("msg")` -> `torch._assert_async(<not cond>, "msg")`.

    dynamo traces `torch._assert_async` as an operator, so the check stays in the graph. Unsafe: the
    failure is a RuntimeError instead of E, and on CUDA it is raised asynchronously (a device-side
    assert, at the next synchronization)."""
    torch = torch_name(ctx)
    if torch is None or node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    body = node.body.body
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1 \
            or not isinstance(body[0].body[0], cst.Raise):
        return None
    header = node.body.header.comment  # moves to the new line; any other comment would be lost: no fix
    if any(c is not header for c in find(node, cst.Comment)):
        return None
    message = _raise_message(body[0].body[0])
    if message is None:
        return None
    split = guarded_condition(ctx, node.test, torch)
    if split is None:
        return None
    guard, fails, test = split
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        holds = tensor_condition(ctx, test.expression, torch)
    else:
        holds = f"{torch}.logical_not({fails})"
    if holds is None:
        return None
    title = f"check with `{torch}._assert_async(cond, msg)` instead of branching to raise"
    lines = [f"{torch}._assert_async({holds}, {message})"]
    if guard:  # `if P and T: raise`, P not a tensor: P stays a Python test
        indent = own_line_indent(ctx, node)
        if indent is None:
            return None
        lines = [f"if {guard}:", f"{indent}{ctx.indent_unit}{lines[0]}"]
    if header is not None:
        lines[0] += f"  {header.value}"
    return replace(ctx, node, "\n".join(lines), title, safe=False)


def check_of_test(ctx: "FileContext", node: cst.BaseExpression) -> Fix | None:
    """For `t.item()` or `bool(t)` tested by an `if` that only raises (`if n > 0 and t.item(): raise
    E("msg")`): that `if` as `torch._assert_async`, as `check_to_assert` writes it."""
    owner = ctx.tested_if()
    if owner is None or node not in ctx.condition_parts or not any(n is node for n in find(owner.test, cst.Call)):
        return None
    return check_to_assert(ctx, owner)


# ---------------------------------------------------------------------- applying fixes
def _span(starts: list[int], edit: Edit) -> tuple[int, int]:
    return starts[edit.line - 1] + edit.col, starts[edit.end_line - 1] + edit.end_col


def _conflict(one: tuple[int, int], other: tuple[int, int]) -> bool:
    """Spans that overlap, or an insertion inside or at either end of another span."""
    (a, b), (c, d) = one, other
    if a < d and c < b:
        return True
    return (a == b and c <= a <= d) or (c == d and a <= c <= b)


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def apply(text: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes that do not overlap one another; returns the new text and the fixes applied.

    Positions are those of `text`. Fixes that overlap an earlier one are left for
    a later round (after re-linting), and fixes that would leave the file unparsable
    are dropped.
    """
    starts = line_starts(text)
    chosen: list[tuple[Fix, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    for fix in sorted(fixes, key=lambda f: min((e.line, e.col) for e in f.edits)):
        spans = [(*_span(starts, e), e.content) for e in fix.edits]
        if any(_conflict((a, b), other) for a, b, _ in spans for other in taken):
            continue
        chosen.append((fix, spans))
        taken.extend((a, b) for a, b, _ in spans)

    def build(selected: list[tuple[Fix, list[tuple[int, int, str]]]]) -> str:
        out, last = [], 0
        for a, b, content in sorted((s for _, spans in selected for s in spans), key=lambda s: s[:2]):
            out.append(text[last:a])
            out.append(content)
            last = b
        out.append(text[last:])
        return "".join(out)

    new = build(chosen)
    if not _parses(new):
        kept: list[tuple[Fix, list[tuple[int, int, str]]]] = []
        for item in chosen:
            if _parses(build([*kept, item])):
                kept.append(item)
        chosen, new = kept, build(kept)
    return new, [fix for fix, _ in chosen]


@dataclass
class FileFix:
    path: Path
    before: str
    after: str
    applied: list[Fix]
    codes: list[str] = field(default_factory=list)  # the code of each applied fix's finding, in order


def selected(findings: list[Finding], unsafe: bool) -> dict[Path, list[Fix]]:
    by_path: dict[Path, list[Fix]] = {}
    for f in findings:
        if f.fix is not None and (f.fix.safe or unsafe):
            by_path.setdefault(f.path, []).append(f.fix)
    return by_path


def read_source(path: Path) -> str:
    """The file's text with its own line endings, decoded as Python decodes it (as the lint did)."""
    return decode_source(path.read_bytes())


def encode_source(data: bytes, text: str) -> bytes:
    """`text` in the encoding of the file whose bytes were `data`, its UTF-8 BOM kept."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    return text.encode(encoding)


class ChangedOnDisk(Exception):
    pass


def write_source(path: Path, expected: str, new: str) -> None:
    """Replace the file atomically, keeping its permissions, unless it changed since it was read."""
    data = path.read_bytes()
    if decode_source(data) != expected:
        raise ChangedOnDisk(str(path))
    mode = stat.S_IMODE(path.stat().st_mode)
    payload = encode_source(data, new)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp, mode)
        if read_source(path) != expected:
            raise ChangedOnDisk(str(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class FixRun:
    result: "LintResult"  # the findings left after fixing
    files: list[FileFix]
    fixed: int
    problems: list[str]  # files that could not be fixed, one line each
    internal_errors: int = 0  # files whose fixing raised unexpectedly (named among the problems, BL003)


def run(paths: list[Path], config: "Config", *, unsafe: bool, write: bool, jobs: int | None = None,
        use_cache: bool = True, rounds: int = 8) -> FixRun:
    """Lint, apply fixes, lint again; repeat while fixes that waited on an overlap remain.

    With `write=False` nothing is written and only the first round is computed.
    """
    from .engine import lint

    result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    changes: dict[Path, FileFix] = {}
    problems: list[str] = []
    refused: set[Path] = set()
    fixed = internal = 0
    for _ in range(rounds if write else 1):
        round_applied = 0
        code_of = {id(f.fix): f.code for f in result.all if f.fix is not None}
        for path, fixes in sorted(selected(result.all, unsafe).items()):
            if path in refused:
                continue
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() != result.digests.get(path):
                    raise ChangedOnDisk(str(path))
                before = decode_source(data)
                after, applied = apply(before, fixes)
                if not applied or after == before:
                    continue
                if write:
                    write_source(path, before, after)
            except ChangedOnDisk:
                problems.append(f"{path}: changed on disk while breaklint was running; not fixed")
                refused.add(path)
                continue
            except (OSError, UnicodeError, SyntaxError, LookupError) as exc:
                problems.append(f"{path}: cannot fix: {exc}")
                refused.add(path)
                continue
            except Exception as exc:  # a bug here must not lose the other files' fixes, nor pass unseen
                problems.append(f"{path}: BL003 internal error while applying fixes: {type(exc).__name__}: {exc}")
                refused.add(path)
                internal += 1
                continue
            entry = changes.setdefault(path, FileFix(path, before, after, []))
            entry.after = after
            entry.applied.extend(applied)
            entry.codes.extend(code_of.get(id(fix), "") for fix in applied)
            round_applied += len(applied)
        fixed += round_applied
        if not write or not round_applied:
            break
        result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    return FixRun(result=result, files=list(changes.values()), fixed=fixed, problems=problems,
                  internal_errors=internal)


def unified_diff(change: FileFix, label: str) -> str:
    return "".join(difflib.unified_diff(change.before.splitlines(keepends=True),
                                        change.after.splitlines(keepends=True),
                                        fromfile=f"a/{label}", tofile=f"b/{label}"))
