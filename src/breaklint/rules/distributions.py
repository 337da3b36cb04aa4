"""BL443: a `torch.distributions` distribution built with `validate_args=True` in compiled code.

A distribution that validates its arguments checks them as it is built: it asks
`torch.distributions.constraints` which of its parameters are dependent (`is_dependent`, a helper of
a module dynamo skips) and tests the values (`if not valid.all(): raise ValueError(...)`), a branch on
a tensor; its `log_prob` tests the sample too. Left at its default, the argument lets dynamo trace the
distribution (probed on torch 2.13 and 2.14.1); set to `True`, the graph breaks at the construction.
"""

from __future__ import annotations

import libcst as cst

from .base import register
from .by_name import CallRule
from ._util import keyword


@register
class ValidatedDistribution(CallRule):
    CODE = "BL443"
    NAME = "validated-distribution"
    KIND = "break"
    MESSAGE = ("a `torch.distributions` distribution built with `validate_args=True` in compiled code: its checks "
               "call helpers dynamo skips and test the values, so the graph breaks where it is built")
    SUGGESTION = ("leave `validate_args` at its default in compiled code (or pass `validate_args=False`), and "
                  "validate the parameters in an eager test or before compiling")
    # GB0007: `constraints.is_dependent`, of a module dynamo skips; GB0170: the test of the values
    GB_TYPES = ("GB0007", "GB0170")
    PREFIXES = ("torch.distributions.",)

    def matches(self, node: cst.Call) -> str | None:
        qual = super().matches(node)
        validate = keyword(node, "validate_args")
        if qual is None or validate is None or not qual.rsplit(".", 1)[-1][:1].isupper():
            return None  # (a class of `torch.distributions`, asked to validate)
        return qual if type(validate.value) is cst.Name and validate.value.value == "True" else None

    def describe(self, node: cst.Call, what: str) -> str:
        return (f"`{self.ctx.source(node)}` builds a `{what.rsplit('.', 1)[-1]}` that validates its arguments: "
                "dynamo skips the checks' helpers and cannot branch on their test, so the graph breaks here")
