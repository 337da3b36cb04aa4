"""Branches on tensors rewritten as selections (BL201, BL202): `torch.where(c, a, b)` for conditional
expressions, `if`/`else` assigning names and `if c: return a`; `torch.logical_and/or/not` for
`and`, `or` and `not` used as values. Asked by the control-flow rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..analysis.walk import find
from ..finding import Edit, Fix
from .conditions import guarded_condition, tensor_condition
from .edit import _fold, own_line_indent, replace, sole_statement, text_of, torch_name
from .guards import REPORT_ONLY, _diagnostic


if TYPE_CHECKING:
    from ..analysis.context import FileContext


def _names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in find(node, cst.Name)}


def _branch(ctx: "FileContext", suite: cst.BaseSuite) -> tuple[list[tuple[str, cst.BaseExpression]],
                                                               list[tuple[cst.Call, bool]]] | None:
    """A branch made of `name = value` lines and reporting calls: (assignments in order, reports).
    None also when a report reads a name assigned before it in the branch (the reports move
    before the assignments)."""
    if type(suite) is not cst.IndentedBlock:
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
        if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1
                and type(stmt.body[0]) is cst.Assign):
            return None
        assign = stmt.body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            return None
        assigns.append((assign.targets[0].target.value, assign.value))
    return assigns, reports


def _selectable(ctx: "FileContext", value: cst.BaseExpression) -> bool:
    """A value `torch.where` can take: not known to be something other than a tensor or a number."""
    val = ctx.value(value)
    return not val.not_tensor or val.kind in ("number", "bool")


def _has_hash(ctx: "FileContext", node: cst.If | cst.IfExp) -> bool:
    """Whether `node` may hold a comment: one of its leading lines is one, it has parentheses of its own
    (their whitespace lies outside its span), or its span's lines hold a `#` (a comment, or a string
    with one). Else a search of its whitespace for a comment is spared."""
    if getattr(node, "lpar", ()) or any(line.comment is not None for line in getattr(node, "leading_lines", ())):
        return True
    return ctx.mentions(node, ("#",))


def _comments(ctx: "FileContext", node: cst.CSTNode) -> list[cst.Comment]:
    """The comments in `node`'s subtree (searched only where its lines may hold one)."""
    return list(find(node, cst.Comment)) if _has_hash(ctx, node) else []


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
    title = f"select with `{torch}.where(cond, a, b)` instead of branching"
    # (the search for comments, of the whole subtree, comes after the cheaper reasons for no fix)
    if type(node) is cst.IfExp:
        cond = tensor_condition(ctx, node.test, torch)
        if cond is None or _comments(ctx, node) or not (_selectable(ctx, node.body) and _selectable(ctx, node.orelse)):
            return None
        content = f"{torch}.where({cond}, {text_of(ctx, node.body)}, {text_of(ctx, node.orelse)})"
        return replace(ctx, node, content, title, safe=False)
    split = guarded_condition(ctx, node.test, torch)
    if split is None or type(node.orelse) is cst.If or type(node.body) is not cst.IndentedBlock:
        return None
    guard, cond, _ = split
    comments = _comments(ctx, node)
    # The comment on the `if` line moves to the first new line, and those inside the test stay in it
    # where the test is kept whole; any other comment would be lost: no fix.
    header = node.body.header.comment
    in_test = {id(c) for c in find(node.test, cst.Comment)} if comments else set()  # (the test's are the node's)
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

    if type(node) is cst.IfExp:
        small = sole_statement(ctx)
        if not (type(small) is cst.Assign and small.value is node and len(small.targets) == 1
                and type(small.targets[0].target) is cst.Name):
            return set()
        return set() if tensor(node.body) and tensor(node.orelse) else {small.targets[0].target.value}
    sides = [node.body, *([node.orelse.body] if type(node.orelse) is cst.Else else [])]
    values: dict[str, list[cst.BaseExpression | None]] = {}
    for side in sides:
        for stmt in getattr(side, "body", ()):
            small = stmt.body[0] if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 else None
            target = small.targets[0].target if type(small) is cst.Assign and len(small.targets) == 1 else None
            if type(target) is cst.Name:
                values.setdefault(target.value, []).append(small.value)
    # a side that does not assign the name keeps its old value, whose type is not known here
    return {name for name, found in values.items() if len(found) < 2 or not all(map(tensor, found))}


_TESTS = (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf)


def tested_after(ctx: "FileContext", function: cst.FunctionDef, names: set[str], line: int) -> bool:
    """Whether one of `names` is read in an `if`/`while`/`assert` test after `line`: were it a tensor
    there, the break would move to that test instead of going away."""
    if not ctx.lines_mention(line + 1, ctx.positions.span(function)[2], tuple(names)):
        return False  # (none of them is written after `line`)
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
    if node.orelse is not None or len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine \
            or len(body[0].body) != 1 or type(body[0].body[0]) is not cst.Return or body[0].body[0].value is None:
        return None
    after = ctx.next_statement(node)
    if not (type(after) is cst.SimpleStatementLine and len(after.body) == 1 and type(after.body[0]) is cst.Return
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
    name = "logical_and" if type(ops[0]) is cst.And else "logical_or"
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
