"""BL2xx: Python control flow that depends on a tensor's value."""

from __future__ import annotations

import libcst as cst

from ..finding import Fix
from ..fixes.checks import check_to_assert
from ..fixes.conditions import tensor_operands
from ..fixes.guards import reports_only
from ..fixes.where import branch_to_where, logical_chain, logical_not, retyped_names, tested_after
from ..analysis import values as V
from ..analysis.walk import find
from .base import Rule, register
from ._util import CAPTURE_SCALARS, builtin_name, keyword, maybe_tensor, method_call

BRANCH_SUGGESTION = (
    "compute both results and pick with `torch.where(cond, a, b)`, make the code branchless "
    "(e.g. `torch.clamp`, `torch.nan_to_num`), or use `torch.cond(pred, true_fn, false_fn, operands)`"
)


# what a function must say for a number read from a tensor to be looked for in it
READS = (".item()", "float(", "int(")
ASSERT_SUGGESTION = (
    "give the assert a constant message (dynamo then checks it on the device with `torch._assert_async`), "
    "or check it outside the compiled region"
)


@register
class DataDependentBranch(Rule):
    CODE = "BL201"
    PRECISION = "medium"
    NAME = "data-dependent-branch"
    KIND = "break"
    MESSAGE = ("an `if`, `while`, conditional expression, `assert` with a computed message or `torch._assert` "
               "tests a tensor's value")
    SUGGESTION = BRANCH_SUGGESTION
    GB_TYPES = ("GB0170", "GB7000", "GB0033")  # GB0033: `torch._assert` reads the value as an operator

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function being walked: (candidate index, names, last line) of `torch.where` fixes that
        # make names tensors; each stands only if no later test reads those names
        self._pending: list[list[tuple[int, set[str], int]]] = []
        # per function: names holding a number read from a tensor (`s = t.item()`, `n = int(t)`), with
        # the tensor's value; with `capture_scalar_outputs` dynamo traces the read, and a test of the
        # number is where it breaks
        self._captured: list[dict[str, V.Val] | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._pending.append([])
        self._captured.append({} if self.ctx.mentions(node, READS) else None)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not (self._captured and self._captured[-1] is not None and self.ctx.active()):
            return
        value = self._captured_value(node.value)
        for target in node.targets:
            if type(target.target) is cst.Name:
                if value is not None:
                    self._captured[-1][target.target.value] = value
                else:
                    self._captured[-1].pop(target.target.value, None)

    def _captured_value(self, expr: cst.BaseExpression) -> V.Val | None:
        """What the tensors read into Python numbers in `expr` hold (`t.item()`, `float(t)`,
        `int(t)`, or a name holding such a number), or None where it reads none."""
        if not self._captured[-1] and not self.ctx.mentions(expr, ("item", "float", "int")):
            return None  # no name holds such a number yet, and no call here reads one
        found: list[V.Val] = []
        # a name counts only once one holds such a number: until then, the calls alone
        for node in [expr, *find(expr, (cst.Call, cst.Name) if self._captured[-1] else cst.Call)]:
            if type(node) is cst.Name and node.value in self._captured[-1]:
                found.append(self._captured[-1][node.value])
            elif type(node) is cst.Call:
                call = method_call(node)
                if call and call[1] == "item" and not node.args and maybe_tensor(self.ctx, call[0]):
                    req = self.ctx.tensor_requirement(call[0])
                elif builtin_name(self.ctx, node) in ("float", "int") and len(node.args) == 1:
                    req = self.ctx.tensor_requirement(node.args[0].value)
                else:
                    continue
                if req is not None:
                    found.append(req)
        return V.op(*found) if found else None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._captured.pop()
        for index, names, line in self._pending.pop():
            if tested_after(self.ctx, original_node, names, line):
                self.withdraw_fix(index)

    def _where(self, owner: cst.If | cst.IfExp) -> Fix | None:
        fix = branch_to_where(self.ctx, owner)
        if fix is not None and self._pending:
            names = retyped_names(self.ctx, owner)
            if names:
                self._pending[-1].append((len(self.ctx.candidates), names, self.ctx.positions.span(owner)[2]))
        return fix

    def _check(self, test: cst.BaseExpression, what: str, owner: cst.If | cst.IfExp | None = None,
               detail: str = "", suggestion: str | None = None) -> None:
        if not self.ctx.active():
            return
        requires = self.ctx.tensor_requirement(test)
        if requires is None and detail:
            return
        if requires is None:
            if not (self._captured and self._captured[-1] is not None):
                return
            captured = self._captured_value(test)
            if captured is not None:
                self.report(test, f"{what} on `{self.ctx.source(test)}`, a number read from a tensor: dynamo "
                                  "traces the read but cannot branch on the number", requires=captured,
                            test=test, only_with=(CAPTURE_SCALARS,))
            return
        text = self.ctx.source(test)
        if self.ctx.in_loop and _returns_at_once(owner):
            # dynamo looks for the loop in the code after the break up to the first `return` only
            message = (f"{what} on tensor value `{text}` inside a loop{detail}: dynamo breaks the graph here; the "
                       "branch returns at once, so it finds no loop to give up on and resumes after the break")
        elif self.ctx.in_loop:
            message = (f"{what} on tensor value `{text}` inside a loop{detail}: dynamo cannot split a graph "
                       "in a loop and runs the whole function eagerly")
        elif detail:
            message = f"{what} on tensor value `{text}`{detail}: dynamo breaks the graph to evaluate it"
        else:
            message = f"{what} on tensor value `{text}`: dynamo cannot trace both branches"
        fix = None
        if type(owner) is cst.If:
            fix = check_to_assert(self.ctx, owner) or self._where(owner)
        elif owner is not None:
            fix = self._where(owner)
        # a rewrite that computes with the test (`torch.where`, `_assert_async`) runs only on known
        # tensors; one that only guards reporting code needs none
        needs = tensor_operands(self.ctx, test) if fix is not None and not reports_only(fix) else ()
        self.report(test, message, suggestion, fix=fix,
                    requires=requires, test=test, fix_needs=needs)

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test, "`if`", node)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test, "`while`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test, "conditional expression", node)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._check(node.test, "comprehension `if`")

    def visit_Assert(self, node: cst.Assert) -> None:
        # dynamo turns `assert t` into `torch._assert_async` when the message is absent or a constant
        # string; a message built at run time (`.format(...)`, an f-string, a name) breaks the graph
        if node.msg is not None and not _constant_string(node.msg):
            self._check(node.test, "`assert`", detail=" with a message built at run time", suggestion=ASSERT_SUGGESTION)
        elif type(node.test) is cst.Comparison and len(node.test.comparisons) > 1:
            self._chained(node.test)

    def _chained(self, test: cst.Comparison) -> None:
        """`assert 0 < t <= 1`: Python takes the truth of each comparison but the last to go on to the
        next (as `and` does), so a tensor there breaks whatever the message; the last one is the
        assert's own test, which dynamo checks on the device."""
        if not self.ctx.active():
            return
        operands = [test.left, *(c.comparator for c in test.comparisons)]
        for i, comparison in enumerate(test.comparisons[:-1]):
            if type(comparison.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
                continue
            needs = [r for r in map(self.ctx.tensor_requirement, operands[i:i + 2]) if r is not None]
            if needs:
                sign = cst.Module([]).code_for_node(comparison.operator).strip()
                first = f"{self.ctx.source(operands[i])} {sign} {self.ctx.source(operands[i + 1])}"
                self.report(test, f"`assert` on the chained comparison `{self.ctx.source(test)}`: Python takes the "
                                  f"truth of the tensor comparison `{first}` to go on, and dynamo breaks the graph "
                                  "to read it", "split it into one `assert` per comparison, or combine them with "
                                  "`&`: `assert (lo < t) & (t <= hi)`", requires=V.op(*needs, comparison=True))
                return

    def visit_Call(self, node: cst.Call) -> None:
        # `torch._assert(cond, msg)` is a function: it takes the truth of `cond` in Python (a tensor's
        # value), where an `assert` statement becomes `torch._assert_async`
        if node.args and node.args[0].keyword is None and self.ctx.qualify(node.func) == "torch._assert":
            self._check(node.args[0].value, "`torch._assert`", detail=", which reads it in Python",
                        suggestion=TORCH_ASSERT_SUGGESTION)


TORCH_ASSERT_SUGGESTION = (
    "use `torch._assert_async(cond)`, or an `assert` statement with a constant message (dynamo checks either "
    "on the device), or check it outside the compiled region"
)


def _constant_string(node: cst.BaseExpression) -> bool:
    """A string the compiler folds into one constant: literals, implicitly or `+`-concatenated."""
    if type(node) is cst.SimpleString:
        return True
    if type(node) is cst.ConcatenatedString:
        return _constant_string(node.left) and _constant_string(node.right)
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Add:
        return _constant_string(node.left) and _constant_string(node.right)
    return False


# builtins that iterate what they are handed
_ITERATING = frozenset({"list", "tuple", "set", "dict", "iter", "next", "sorted", "enumerate", "zip", "map",
                        "filter"})


def _tensor_in_tuple(part: V.Val, depth: int = 0) -> V.Val | None:
    """A tensor (or a value the tree decides) among the elements of a tuple or list, at any depth."""
    if part.kind != "seq" or depth >= V.MAX_DEPTH:
        return None
    for inner in part.parts:
        found = inner if inner.is_tensor or inner.symbolic else _tensor_in_tuple(inner, depth + 1)
        if found is not None:
            return found
    return None


@register
class DataDependentBoolOp(Rule):
    CODE = "BL202"
    PRECISION = "medium"
    NAME = "data-dependent-bool-op"
    KIND = "break"
    MESSAGE = ("`and`, `or`, `not`, `in`, `any()`, `all()`, `sorted()` (or `min()`/`max()` with a tensor `key`), "
               "`itertools.groupby` needs the truth value of a tensor")
    SUGGESTION = (
        "use the element-wise tensor operators `&`, `|`, `~` (or `torch.logical_and/or/not`) "
        "and keep the result a tensor"
    )
    # GB0207: `sorted()` of tensors; GB0059 and GB0193: `sorted()`, `min()` and `max()` with a tensor key;
    # GB0124: `v in t`; GB0152: `itertools.groupby` with tensor keys; GB0811: iterating the groupby object
    # such a call built
    GB_TYPES = ("GB0170", "GB0033", "GB0207", "GB0059", "GB0193", "GB0124", "GB0152", "GB0811")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._inner: set[cst.BooleanOperation] = set()
        # per function: names bound to an `itertools.groupby` call reported here, with what the report
        # required and its line; the call being assigned, with its name
        self._groups: list[dict[str, tuple[V.Val, int]]] = [{}]
        self._assigned: dict[cst.Call, str] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._groups.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._groups.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if type(target.target) is cst.Name:
                self._groups[-1].pop(target.target.value, None)  # bound anew
        if len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
                and type(node.value) is cst.Call and self.ctx.qualify(node.value.func) == "itertools.groupby":
            self._assigned[node.value] = node.targets[0].target.value

    def visit_For(self, node: cst.For) -> None:
        self._iterated(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter)

    def _iterated(self, node: cst.BaseExpression) -> None:
        """Iterating the object a breaking `groupby` call built (`groups = groupby(...)`, then `for _, g in
        groups:`): that call ran eagerly, and dynamo cannot iterate the `itertools.groupby` object it made
        (GB0811, "missing tp_iter")."""
        if type(node) is not cst.Name or node.value not in self._groups[-1] or not self.ctx.active():
            return
        requires, line = self._groups[-1][node.value]
        self.report(node, f"`{node.value}` is the `itertools.groupby` object built at line {line}, whose call breaks "
                          "the graph and runs eagerly: dynamo cannot iterate that object, and breaks again here",
                    "group a sorted tensor with `torch.unique_consecutive(..., return_counts=True)` and keep "
                    "tensors", requires=requires)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a and b or c` nests to the left; handle the chain once, at its top. Every operand but
        # the last is tested for truth.
        if node in self._inner or not self.ctx.active() or node in self.ctx.condition_parts:
            return
        operands: list[tuple[cst.BaseExpression, cst.BaseBooleanOp]] = []
        cur: cst.BaseExpression = node
        while type(cur) is cst.BooleanOperation and (cur is node or not cur.lpar):
            self._inner.add(cur)
            operands.insert(0, (cur.right, cur.operator))
            cur = cur.left
        operands.insert(0, (cur, operands[0][1]))
        fix = logical_chain(self.ctx, node, [operand for operand, _ in operands], [op for _, op in operands[1:]])
        for (operand, _), (_, op) in zip(operands[:-1], operands[1:]):
            # A parenthesized chain among the operands is checked as a chain of its own.
            requires = None if type(operand) is cst.BooleanOperation else self.ctx.tensor_requirement(operand)
            if requires is not None:
                word = "and" if type(op) is cst.And else "or"
                self.report(operand, f"`{word}` needs the truth value of tensor `{self.ctx.source(operand)}`",
                            requires=requires, fix=fix,
                            fix_needs=tuple(self.ctx.tensor_requirement(o) for o, _ in operands))
                fix = None  # one fix for the chain

    def visit_Call(self, node: cst.Call) -> None:
        """The builtins `any()` and `all()` test each element for truth: of a tensor (`any(x > 0)`), or
        of a list or generator of tensor tests (`all([a.isfinite().all(), b > 0])`); `sorted()` tests
        the comparisons of its elements (without a `key`)."""
        name = builtin_name(self.ctx, node)
        if self.ctx.qualify(node.func) == "itertools.groupby":
            self._grouped(node)
            return
        if name in _ITERATING:
            for arg in node.args:
                if arg.keyword is None:
                    self._iterated(arg.value)
        if name in ("sorted", "min", "max") and (key := keyword(node, "key")) is not None:
            self._ordered_by_key(node, name, key.value)
            return
        if name not in ("any", "all", "sorted") or len(node.args) != 1 or node.args[0].keyword \
                or node.args[0].star or not self.ctx.active():
            return
        arg = node.args[0].value
        value = self.ctx.value(arg)
        if name == "sorted":
            parts = value.parts if value.kind == "seq" else (V.elem(value),) if value.is_tensor else ()
            requires = next((p for p in parts if p.is_tensor or p.symbolic), None)
            if requires is not None:
                self.report(node, f"`{self.ctx.source(node)}` compares tensors to order them, which needs the "
                                  "truth value of each comparison (`torch.sort` keeps tensors)", requires=requires)
            elif (requires := next(filter(None, map(_tensor_in_tuple, parts)), None)) is not None:
                self.report(node, f"`{self.ctx.source(node)}` orders tuples that hold tensors (`d.items()` of a dict "
                                  "of tensors, `(score, t)` pairs): dynamo up to torch 2.13 sorts only constants, "
                                  "even where the first elements differ (sort by a key of numbers or strings: "
                                  "`key=lambda kv: kv[0]`)", requires=requires)
            return
        # a bare parameter is only a guess at a tensor, and one handed to `any()` is usually a list
        requires = value if _tensor_beyond_guess(value) else None
        if requires is None and value.kind == "seq":
            requires = next((p for p in value.parts if p.is_tensor or p.symbolic), None)
        if requires is not None:
            keep = f"torch.stack([...]).{name}()" if value.kind == "seq" else f"({self.ctx.source(arg)}).{name}()"
            self.report(node, f"`{name}()` needs the truth value of each element of `{self.ctx.source(arg)}` "
                              f"(`{keep}` keeps a tensor)", requires=requires)

    def _grouped(self, node: cst.Call) -> None:
        """`itertools.groupby(x)` over a tensor, or `groupby(range(n), key=lambda i: t[order[i]])`: each
        key is compared with the one before (`==`, tested for truth); tensor keys break."""
        if not self.ctx.active() or not node.args or node.args[0].keyword or node.args[0].star:
            return
        key = keyword(node, "key") or (node.args[1] if len(node.args) > 1 and not node.args[1].keyword else None)
        held = self.ctx.value(node.args[0].value)
        if key is None:
            if held.kind == "param":  # a bare parameter is only a guess at a tensor
                return
            requires = V.elem(held)
        elif type(key.value) is cst.Lambda:
            requires = self.ctx.lambda_value(key.value, V.elem(held))
        else:
            return
        if _tensor_beyond_guess(requires):
            what = f"the tensors its `key` computes (`{self.ctx.source(key.value.body)}`)" if key else "tensor elements"
            self.report(node, f"`itertools.groupby` compares {what} to group them, which needs the truth value "
                              "of each comparison", requires=requires)
            if node in self._assigned:
                self._groups[-1][self._assigned[node]] = (requires, self.ctx.positions[node].start.line)

    def _ordered_by_key(self, node: cst.Call, name: str, key: cst.BaseExpression) -> None:
        """`sorted(dets, key=lambda d: d[4])`, `max(rows, key=lambda r: r.sum())`: the keys are compared
        to order the elements, each comparison tested for truth; a tensor key breaks."""
        positional = [a for a in node.args if a.keyword is None]
        if type(key) is not cst.Lambda or len(positional) != 1 or positional[0].star or not self.ctx.active():
            return
        held = self.ctx.value(positional[0].value)
        if held.kind == "param":  # a bare parameter is only a guess at a tensor
            return
        element = V.elem(held)
        requires = self.ctx.lambda_value(key, element)
        if _tensor_beyond_guess(requires):
            self.report(node, f"`{name}()` compares the tensors its `key` computes (`{self.ctx.source(key.body)}`), "
                              "which needs the truth value of each comparison (`torch.sort` or "
                              f"`torch.arg{'sort' if name == 'sorted' else name}` keeps tensors)", requires=requires)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """`t in values`: a tensor compared with each element of a list or tuple, each answer tested;
        `v in t`: whether a tensor holds a value, read as a Python bool."""
        if not self.ctx.active() or len(node.comparisons) != 1 \
                or type(node.comparisons[0].operator) not in (cst.In, cst.NotIn):
            return
        container = node.comparisons[0].comparator
        held = self.ctx.value(container)
        if _tensor_beyond_guess(held) and self.ctx.value(node.left).kind != "str":
            self.report(node, f"`{self.ctx.source(node)}` asks whether tensor `{self.ctx.source(container)}` holds "
                              "a value, which reads the answer as a Python bool (`(t == v).any()` keeps a tensor)",
                        requires=held)
            return
        if held.kind != "seq" and type(container) not in (cst.List, cst.Tuple, cst.Set):
            return
        requires = self.ctx.tensor_requirement(node.left)
        parts = held.parts if held.kind == "seq" else ()
        if requires is None or any(p.kind == "str" for p in parts):
            return  # a tensor is never looked up among strings: `mode in ("train", "eval")`
        if not any(p.is_tensor or p.symbolic for p in parts) and requires.kind == "param":
            return  # a bare parameter looked up among numbers is only a guess at a tensor
        self.report(node, f"`{self.ctx.source(node)}` tests tensor `{self.ctx.source(node.left)}` for equality "
                          "with each element, which needs the truth value of each answer", requires=requires)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if not (self.ctx.active() and type(node.operator) is cst.Not and node not in self.ctx.condition_parts):
            return
        requires = self.ctx.tensor_requirement(node.expression)
        if requires is not None:
            self.report(node, f"`not` needs the truth value of tensor `{self.ctx.source(node.expression)}`",
                        requires=requires, fix=logical_not(self.ctx, node), fix_needs=(requires,))


def _tensor_beyond_guess(value: V.Val) -> bool:
    """A tensor, or a value the tree decides that is more than a bare parameter (which is only a
    guess at a tensor)."""
    return value.is_tensor or (value.symbolic and value.kind != "param")


def _returns_at_once(owner: cst.If | cst.IfExp | None) -> bool:
    """An `if` whose body begins with a `return`: the code right after its test returns before any jump
    back to the top of a loop."""
    if type(owner) is not cst.If:
        return False
    first = owner.body.body[0]  # a statement of an indented block, or a small one of `if c: return x`
    if type(first) is cst.SimpleStatementLine:
        first = first.body[0]
    return type(first) is cst.Return
