"""The rule base class and the dict of rule classes, filled as each rule module is imported.

A rule asks the file's context (`analysis/context.py`) what an expression holds and where it is. This
module imports neither the context's module (only for type checking) nor the registry of codes: the
check that no rule takes an engine's code (BL0xx, BL900) is `load_rules()`'s, once every rule is in."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, ClassVar, Literal

import libcst as cst

from ..finding import Fix

if TYPE_CHECKING:
    from ..analysis.context import FileContext
    from ..analysis.summary import MustBe
    from ..analysis.values import Val

_CODE = re.compile(r"^BL\d{3}$")

RULES: dict[str, type["Rule"]] = {}


def register(cls: type["Rule"]) -> type["Rule"]:
    code = cls.CODE
    if not _CODE.match(code):
        raise ValueError(f"rule code {code!r} is not of the form BLnnn")
    if code in RULES:
        raise ValueError(f"duplicate rule code {code}: {cls.__name__} and {RULES[code].__name__}")
    RULES[code] = cls
    return cls


class Rule(cst.BatchableCSTVisitor):
    """A rule: one code, one pattern. Instances live for one file only."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    KIND: ClassVar[Literal["break", "hazard"]]
    MESSAGE: ClassVar[str]  # short description; also the SARIF shortDescription
    SUGGESTION: ClassVar[str]
    GB_TYPES: ClassVar[tuple[str, ...]] = ()
    DEFAULT_ENABLED: ClassVar[bool] = True
    # How often a finding is right, in CodeQL's terms (very-high/high/medium/low):
    # "medium" where the rule relies on guessing which names hold tensors.
    PRECISION: ClassVar[str] = "high"
    # A rule that looks only at method calls `x.<name>(...)` of these names: it hooks no `visit_Call`, and
    # `MethodCallRules` (by_name.py) puts those calls to its `on_method_call`.
    CALL_METHODS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, ctx: "FileContext") -> None:
        super().__init__()
        self.ctx = ctx

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        suggestion: str | None = None,
        fix: Fix | None = None,
        requires: "Val | None" = None,
        test: cst.BaseExpression | None = None,
        fix_needs: tuple["Val | None", ...] = (),
        unless: tuple[str, ...] = (),
        only_with: tuple[str, ...] = (),
        must_be: "MustBe" = "tensor",
    ) -> None:
        """Report at `node`. `requires`: the value (from `ctx.tensor_requirement`) that must be a
        tensor for this to break; a symbolic one is decided once the whole tree is known. `test`: the
        condition being reported, whose trace-time conjuncts (`self.training`, a dtype check) the
        finding then names. `fix_needs`: the values of the fix's operands that must be known tensors
        (not only assumed ones) for the fix to be offered: `torch.where(c, ...)` or `t.float()` on a
        Python value would make working code raise. None among them: not a tensor, no fix.
        `unless` / `only_with`: the dynamo settings under which this is no break, or which must hold
        for it to be one (`dynamo_settings` tokens); the engine knows which are in force. `must_be`:
        what kind of tensor a symbolic `requires` must turn out (`summary.MustBe`): a "known" one
        (shown by the code on one path at least), not one only assumed, for a value that is usually a Python one (a slice bound passed in as a
        parameter); a "sparse" one (what a helper returns); a tensor of "bools" (a mask a helper
        returns or a caller passes); a torch "generator" (an attribute a base class sets)."""
        self.ctx.add_finding(self, node, message, suggestion or self.SUGGESTION, fix, requires=requires, test=test,
                             fix_needs=fix_needs, unless=unless, only_with=only_with, must_be=must_be)

    def on_method_call(self, node: cst.Call) -> None:
        """A method call `x.<name>(...)` of compiled code or not (`ctx.active()` tells), `name` one of
        `CALL_METHODS`: what a rule that declares them looks at instead of every call."""
        raise NotImplementedError(f"{type(self).__name__} declares CALL_METHODS but no on_method_call")

    def withdraw_fix(self, index: int) -> None:
        """Drop the fix of the finding reported as `ctx.candidates[index]`: something later in the
        function showed that it would not remove the break (the finding stays)."""
        candidate = self.ctx.candidates[index]
        self.ctx.candidates[index] = dataclasses.replace(
            candidate, finding=dataclasses.replace(candidate.finding, fix=None))
