"""The trace-time conditions a finding names: the conjuncts dynamo decides while tracing that must
hold for the code to run (`self.training`, a half-precision dtype check, the Python tests before a
tensor test in `mask is not None and mask.any()`). Asked by `add_finding`.
"""

from __future__ import annotations

import libcst as cst


class Conditions:
    """The trace-time conditions a finding names.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    # A condition is (its text, whether it is a half-precision dtype check).
    def guard_conditions(self, test: cst.BaseExpression) -> list[tuple[str, bool]]:
        """The conjuncts of a test that dynamo decides while tracing and that must hold for the code
        under it to run: `self.training`, a half-precision dtype check."""
        parts, is_and = self._chain(test)
        if not is_and:
            return []
        out = []
        for part in parts:
            if self._self_attr(part) == "training":
                out.append(("self.training", False))
            elif self._is_half_dtype_check(part):
                out.append((self.source(part, limit=80), True))
        return out

    def test_conditions(self, test: cst.BaseExpression) -> list[tuple[str, bool]]:
        """In `a and b and t`, where `t` tests a tensor: the Python-valued conjuncts before it
        (`mask is not None`, `zero_division == "warn"`), which must hold for `t` to be evaluated."""
        parts, is_and = self._chain(test)
        out = []
        for part in parts:
            value = self.value(part)
            if value.is_tensor or value.symbolic:
                break
            if self.compile_value(part) is None:  # `is_compiling()` holds whenever compiled code runs
                out.append(self._operand_condition(part, is_and))
        return out if len(out) < len(parts) else []

    def _operand_condition(self, part: cst.BaseExpression, is_and: bool) -> tuple[str, bool]:
        """What must have come out of an operand before the next one of its chain runs."""
        text = "self.training" if self._self_attr(part) == "training" else self.source(part, limit=80)
        return (text, self._is_half_dtype_check(part)) if is_and else (f"not ({text})", False)

    @staticmethod
    def _chain(test: cst.BaseExpression) -> tuple[list[cst.BaseExpression], bool]:
        """The operands of a top-level `and` (or `or`) chain, in order; and whether it is `and`."""
        if type(test) is not cst.BooleanOperation:
            return [test], True
        is_and = type(test.operator) is cst.And
        parts: list[cst.BaseExpression] = []
        stack = [test]
        while stack:
            cur = stack.pop()
            if type(cur) is cst.BooleanOperation and (type(cur.operator) is cst.And) == is_and:
                stack.extend([cur.right, cur.left])  # `and` and `or` are associative: parentheses change nothing
            else:
                parts.append(cur)
        return parts, is_and

    def _operand_conditions(self, node: cst.CSTNode) -> list[tuple[str, bool]]:
        """For a node inside the test of the `if` being entered: the operands before the one that
        holds it, which must have come out right for it to run (`self.training and random() < p`)."""
        if not self._testing:
            return []
        parts, is_and = self._chain(self._testing[-1].test)
        try:
            where = self.position(node)
        except KeyError:
            return []
        out = []
        for part in parts:
            pos = self.position(part)
            if (pos.start.line, pos.start.column) <= (where.start.line, where.start.column) and \
                    (where.end.line, where.end.column) <= (pos.end.line, pos.end.column):
                return out
            out.append(self._operand_condition(part, is_and))
        return []

    def _is_half_dtype_check(self, node: cst.BaseExpression) -> bool:
        if type(node) is not cst.Comparison or len(node.comparisons) != 1:
            return False
        left, comp = node.left, node.comparisons[0]
        if not (type(left) is cst.Attribute and left.attr.value == "dtype"):
            return False
        right = comp.comparator
        options = [el.value for el in right.elements] if type(right) in (cst.Tuple, cst.List, cst.Set) else [right]
        names = {self.qualify(o) for o in options}
        half = {"torch.float16", "torch.half", "torch.bfloat16"}
        if type(comp.operator) in (cst.Equal, cst.In, cst.Is):
            return bool(names) and names <= half
        return False

    def conditions(self, test: cst.BaseExpression | None = None,
                   node: cst.CSTNode | None = None) -> dict[str, bool]:
        """The trace-time conditions a finding needs, text -> whether it is a half-precision check:
        those of the enclosing `if` bodies, and those of the test reported (`test`) or of the
        operands before `node` in the test being walked."""
        found = [c for level in self._guards for c in level]
        if test is not None:
            found += self.guard_conditions(test) + self.test_conditions(test)
        elif node is not None:
            found += self._operand_conditions(node)
        out: dict[str, bool] = {}
        for text, half in found:
            out[text] = out.get(text, False) or half
        return out
