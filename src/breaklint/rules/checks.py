"""BL203: torch functions that test their inputs' values in Python (`if torch.any(var < 0): raise ...`) before
they compute, a branch on a tensor that dynamo cannot trace."""

from __future__ import annotations

import libcst as cst

from .base import Rule, register

# Each function (and the loss module that calls it), with the test it makes: read from their source on
# torch 2.13 and 2.14.1, and probed there (GB0033); the other losses of `torch.nn.functional` test nothing
# in Python (their checks, where they have any, run in the kernels)
CHECKED = {
    "torch.nn.functional.gaussian_nll_loss": "whether a variance is negative (`torch.any(var < 0)`)",
}
CHECKING_MODULES = {
    "torch.nn.GaussianNLLLoss": "torch.nn.functional.gaussian_nll_loss",
    "torch.nn.modules.loss.GaussianNLLLoss": "torch.nn.functional.gaussian_nll_loss",
}

# what a file that calls one of them names (the module's name, or the function's)
NAMED = ("GaussianNLLLoss", "gaussian_nll_loss")


@register
class ValueCheckingCall(Rule):
    CODE = "BL203"
    NAME = "value-checking-call"
    KIND = "break"
    MESSAGE = ("a torch function that tests its inputs' values in Python before it computes (`F.gaussian_nll_loss`, "
               "`nn.GaussianNLLLoss`): a branch on a tensor")
    SUGGESTION = ("compute the loss from its formula where it is compiled (for the Gaussian negative log-likelihood, "
                  "`0.5 * (torch.log(var) + (input - target) ** 2 / var)` with `var` clamped to `eps`), or compute "
                  "it outside the compiled code")
    GB_TYPES = ("GB0033",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or type(node.func) not in (cst.Attribute, cst.Name, cst.Call):
            return
        if not self.ctx.file_mentions(NAMED):
            return
        function = self.ctx.qualify(node.func)
        if function not in CHECKED:
            function = next((CHECKING_MODULES[made] for made in self.ctx.module_classes(node.func)
                             if made in CHECKING_MODULES), None)
        if function is None:
            return
        self.report(node, f"`{self.ctx.source(node)}` runs `{function.removeprefix('torch.nn.functional.')}`, which "
                          f"tests in Python {CHECKED[function]} before it computes: the graph breaks at the call")
