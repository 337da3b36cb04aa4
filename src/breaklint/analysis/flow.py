"""The flow of the walk through branches: which code compile skips (`if not is_compiling():`, a file's
own wrappers of the compile checks, the right operand of a short-circuit), the values before and
after an `if` (each branch starts from the values before it; the join comes after), loop and
handler bodies whose bindings may not happen, and the `if` whose test is being walked.
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .syntax import class_like, leaves_block, rebinds
from .vocabulary import COMPILING_HELPERS, FALSE_UNDER_COMPILE, TRUE_UNDER_COMPILE


# A compile check kept in a local (`values.COMPILING`), as `Flow.compile_value` reads it in a test of the name
_HELD_CHECKS = {V.COMPILING: True, V.NOT_COMPILING: False}


class Flow:
    """Branches compile skips, `if` snapshots and joins, loops, handlers, the test being walked.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def compile_value(self, test: cst.BaseExpression) -> bool | None:
        """The value of a condition under torch.compile, when it is known statically."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            inner = self.compile_value(test.expression)
            return None if inner is None else not inner
        if type(test) is cst.Call and not test.args:
            name = self.qualify(test.func)
            # Libraries wrap the check in helpers of the same name (`kornia.core.utils.is_compiling`).
            if name in TRUE_UNDER_COMPILE or (name or "").rsplit(".", 1)[-1] in COMPILING_HELPERS:
                return True
            if name in FALSE_UNDER_COMPILE:
                return False
            if name in self.compile_helpers:
                return self.compile_helpers[name]
        if type(test) is cst.Name and self._scopes:  # `compiling = is_dynamo_compiling()`
            return _HELD_CHECKS.get(self._scopes[-1].values.get(test.value))
        if type(test) is cst.BooleanOperation:
            left, right = self.compile_value(test.left), self.compile_value(test.right)
            if type(test.operator) is cst.And:
                if left is False or right is False:
                    return False
                return True if left and right else None
            if left is True or right is True:
                return True
            return False if left is False and right is False else None
        return None

    # `not is_compiling() and bool(t)`: under compile the right operand is never evaluated.
    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        left = self.compile_value(node.left)
        skipped = left is not None and left == (type(node.operator) is cst.Or)
        self._short_circuits.append(skipped)
        self._dead_depth += skipped
        self._narrow(node.left, type(node.operator) is cst.And)

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self._unnarrow()
        self._dead_depth -= self._short_circuits.pop()

    def visit_If(self, node: cst.If) -> None:
        self._if_guards[node] = self.guard_conditions(node.test)
        self._testing.append(node)
        # [values before the `if`, then the values its body left]
        self._if_frames.append([dict(self._scopes[-1].values)] if self._scopes else None)
        if type(node.orelse) is cst.Else:
            self._if_elses.add(node.orelse)
        value = self.compile_value(node.test)
        if value is True and node.orelse is not None:
            self._dead.add(node.orelse)
        elif value is False:
            self._dead.add(node.body)
        if value is True and leaves_block(node.body) and self._blocks and any(s is node for s in self._blocks[-1].body):
            # `if torch.compiler.is_compiling(): return ...`: under compile the rest of the block never runs
            self._exits.add(node)
        self._mark_condition(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mark_condition(node.test)
        self._narrow(node.test, True)  # libcst walks `body` first, then `test`, then `orelse`

    def visit_IfExp_test(self, node: cst.IfExp) -> None:
        self._unnarrow()
        self._narrowed.append({})

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self._unnarrow()
        self._narrow(node.test, False)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._unnarrow()

    def visit_While(self, node: cst.While) -> None:
        self._mark_condition(node.test)

    def visit_While_body(self, node: cst.While) -> None:
        self._loop_depth += 1
        self._enter_branch()
        self._carry_sentinels(node.body)
        self._note_span("loop_spans", node, node)

    def leave_While_body(self, node: cst.While) -> None:
        self._note_exit(self.positions.span(node.body)[2], 2)
        self._loop_depth -= 1
        self._leave_branch()

    def visit_For_body(self, node: cst.For) -> None:
        self._loop_depth += 1
        self._enter_branch()
        self._carry_sentinels(node.body)
        self._note_span("loop_spans", node, node)

    def leave_For_body(self, node: cst.For) -> None:
        self._note_exit(self.positions.span(node.body)[2], 2)
        self._loop_depth -= 1
        self._leave_branch()

    # Where a break leaves dynamo nothing to resume at right after the call it happened in: the body
    # of a `with`, a whole `try` statement, a lambda (loops count `_loop_depth`; comprehensions and
    # nested functions are known by their own state).
    def visit_With_body(self, node: cst.With) -> None:
        self._trap_depth += 1

    def leave_With_body(self, node: cst.With) -> None:
        self._trap_depth -= 1

    def visit_Try(self, node: cst.Try) -> None:
        self._trap_depth += 1
        self._note_span("try_spans", node.body.body[0], node.body.body[-1])

    def leave_Try(self, original_node: cst.Try) -> None:
        self._trap_depth -= 1

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._trap_depth += 1
        self._note_span("try_spans", node.body.body[0], node.body.body[-1])

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self._trap_depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._trap_depth += 1
        self.enter_lambda(node)  # (lambdas.py: what `map` hands its parameters)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._trap_depth -= 1
        self.leave_lambda()

    def _note_span(self, kind: str, first: cst.CSTNode, last: cst.CSTNode) -> None:
        """Lines of the function's own code (not of a nested function) that a break may cost all of
        (a loop, a `try` body: `FunctionInfo.loop_spans`, `try_spans`) or that run only sometimes (the branches of
        an `if`, a handler: `FunctionInfo.guarded_spans`)."""
        if len(self._scopes) == 1 and not self._comprehensions:
            getattr(self._scopes[0].info, kind).append((self.positions.span(first)[0], self.positions.span(last)[2]))

    def visit_Continue(self, node: cst.Continue) -> None:
        self._note_exit(self.positions.span(node)[0], 1)

    def _note_exit(self, line: int, kind: int) -> None:
        """In a loop of the function's own code, a `return` (0), a `continue` (1) or the jump back at the
        end of a loop body (2), by line (`FunctionInfo.loop_exits`)."""
        if self._loop_depth and len(self._scopes) == 1:
            self._scopes[0].info.loop_exits.append((line, kind))

    @property
    def straight_line(self) -> bool:
        """In the function's own code, under `if`s at most: not inside a loop, `with`, `try`,
        comprehension, lambda or nested function, where dynamo, after a break in a call, would
        have no point just past it to resume the function at."""
        return (self._loop_depth == 0 and self._trap_depth == 0 and not self._comprehensions
                and len(self._scopes) == 1)

    # A name bound inside a loop body, the `else` of a loop or `try`, or a handler may keep the
    # value it had before: `_assign_value` records that value, and past the body the name holds
    # either. (An `if` keeps a snapshot instead: `leave_If`.)
    def _enter_branch(self) -> None:
        self._branch_names.append({})

    def _carry_sentinels(self, body: cst.BaseSuite) -> None:
        if self._scopes:
            _carry_sentinels(self._scopes[-1].values, self._branch_names[-1], body)

    def _leave_branch(self) -> None:
        before = self._branch_names.pop()
        if not self._scopes:
            return
        values = self._scopes[-1].values
        for name, old in before.items():
            new = values.get(name)
            if old is not None and new is not None and new != old:
                values[name] = V.override(old, new)
        self._qualified = (None, None)

    def tested_if(self) -> cst.If | None:
        """The `if` whose test is being walked (before its body)."""
        return self._testing[-1] if self._testing else None

    def visit_If_body(self, node: cst.If) -> None:
        self._guards.append(self._if_guards.get(node, []))
        self._note_span("guarded_spans", node.body.body[0], node)
        if self._testing and self._testing[-1] is node:
            self._testing.pop()
        self._narrow(node.test, True)
        self._filling.append(_tested_none(node.test))

    def leave_If_body(self, node: cst.If) -> None:
        self._guards.pop()
        self._unnarrow()
        self._filling.pop()
        # The `else` (or `elif`) starts again from the values before the `if`.
        frame = self._if_frames[-1]
        if self._scopes and frame is not None:
            frame.append(dict(self._scopes[-1].values))
            self._scopes[-1].values = dict(frame[0])
        self._narrow(node.test, False)

    def leave_If(self, original_node: cst.If) -> None:
        if original_node in self._exits:  # compile leaves the block here
            self._dead_after[-1] += 1
            self._dead_depth += 1
        self._unnarrow()
        frame = self._if_frames.pop()
        if not self._scopes or frame is None or len(frame) < 2:
            return
        if original_node.orelse is None and leaves_block(original_node.body):
            # `if not isinstance(x, torch.Tensor): raise TypeError(...)`: past it, the test was false
            # and the body's values never get here.
            self._apply_type_facts(original_node.test, False)
            self._qualified = (None, None)
            return
        # After the `if`: what either branch left (joined where both bound a name; without an
        # `else`, the body may overrule what the name held before); only the branch compile runs,
        # where the test is a compile check.
        body, rest = frame[1], self._scopes[-1].values
        if original_node.body in self._dead:
            return  # (`rest`, what the other path left, stands)
        if original_node.orelse is not None and original_node.orelse in self._dead:
            self._scopes[-1].values = dict(body)
            return
        self._scopes[-1].values = _merged(body, rest, original_node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self._decorating += 1  # (an object it builds is built where the function is defined: calls.py)

    def leave_Decorator(self, original_node: cst.Decorator) -> None:
        self._decorating -= 1

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        # a `case` of a `match` runs only when its pattern matches, as an `if` branch does
        self._note_span("guarded_spans", node.body.body[0], node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._enter_branch()
        self._note_span("guarded_spans", node.body.body[0], node)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._leave_branch()

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._mark_condition(node.test)

    def _mark_condition(self, test: cst.BaseExpression) -> None:
        self.condition_parts.add(test)
        if type(test) is cst.Name:
            self._note_scalar_use(test)
        if type(test) is cst.BooleanOperation:
            self._mark_condition(test.left)
            self._mark_condition(test.right)
        elif type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            self._mark_condition(test.expression)

    def _enter_maybe_dead(self, node: cst.CSTNode) -> None:
        if node in self._dead:
            self._dead_depth += 1

    def _leave_maybe_dead(self, node: cst.CSTNode) -> None:
        if node in self._dead:
            self._dead_depth -= 1

    # libcst collects visitor methods by their __name__, so aliases would be missed.
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_maybe_dead(node)
        self._blocks.append(node)
        self._dead_after.append(0)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_maybe_dead(original_node)
        self._blocks.pop()
        self._dead_depth -= self._dead_after.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_maybe_dead(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_maybe_dead(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._enter_maybe_dead(node)
        if node not in self._if_elses:  # the `else` of a loop or `try` (an `if`'s is handled there)
            self._enter_branch()

    def leave_Else(self, original_node: cst.Else) -> None:
        self._leave_maybe_dead(original_node)
        if original_node not in self._if_elses:
            self._leave_branch()

    def visit_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None and type(node.orelse) is cst.If:
            self._enter_maybe_dead(node.orelse)

    def leave_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None and type(node.orelse) is cst.If:
            self._leave_maybe_dead(node.orelse)


def _merged(body: dict[str, V.Val], rest: dict[str, V.Val], node: cst.If) -> dict[str, V.Val]:
    """The values past an `if` whose body left `body` and whose other path `rest`: joined where both
    bound a name; without an `else`, the body may overrule what the name held before. `if lock is None:
    lock = threading.Lock()`: what the name holds otherwise (a parameter, what is not known) is of the
    kind filled in, where that is an object of a class, or one a class builds."""
    merged = dict(rest)
    filled = _tested_none(node.test) if node.orelse is None else frozenset()
    for name, value in body.items():
        other = rest.get(name)
        if other is None or other == value:
            merged[name] = value
        elif name in filled and other.kind in ("unknown", "param") and (built := V.built_of(value)) \
                and (value.kind == "object" or class_like(built)):
            merged[name] = value
        else:
            merged[name] = V.override(other, value) if node.orelse is None else V.join(value, other)
    return merged


def _tested_none(test: cst.BaseExpression) -> frozenset[str]:
    """The names an `if` test finds `None` where it holds: `x is None`, and each side of an `or`
    of such tests."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return _tested_none(test.left) | _tested_none(test.right)
    if type(test) is cst.Comparison and type(test.left) is cst.Name and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if type(target.operator) is cst.Is and type(target.comparator) is cst.Name \
                and target.comparator.value == "None":
            return frozenset([test.left.value])
    return frozenset()


def _carry_sentinels(values: dict[str, V.Val], before: dict[str, V.Val | None], body: cst.BaseSuite) -> None:
    """A name that holds `None` before a loop and that the loop body binds (`best = None`, then
    `if best is None or score > best: best = score`) holds, from the second time round, what the
    body bound: at the top of the body it holds `V.CARRIED_NONE`, which a comparison does not take
    for a Python value (and past the body it is joined with `None` as any name the body binds;
    `before` keeps what it held)."""
    for name in [name for name, value in values.items() if value == V.NONE]:
        if rebinds(body, name):
            before.setdefault(name, values[name])
            values[name] = V.CARRIED_NONE
