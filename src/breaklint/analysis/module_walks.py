"""Walks over a module's parts (`next(module.parameters())`, `for p in self.parameters()`,
`sum(p.numel() for p in model.parameters())`), as the file pass finds them.

Dynamo inlines `nn.Module.named_modules` as it walks: each submodule it reaches is wrapped, and wrapping
an `nn.LSTM`, `nn.GRU` or `nn.RNN` gives up (GB0014), whatever the walk then does with it. A walk to
the end reaches every submodule; `next(...)` of the parameters stops at the first module that owns
one, so it reaches a recurrent module only where that comes first (`self.lstm` registered before
`self.fc`). The file pass records each walk of a parameter's modules (`FunctionInfo.module_walks`);
`recurrent_walks.py` asks the tree which classes the walked object may be, and what they hold.
"""

from __future__ import annotations

import libcst as cst

from .summary import FunctionInfo

# The methods that walk a module's submodules, and those of them whose first item is a parameter
WALKS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules",
                   "children", "named_children"})
FIRST_PARAMETER = frozenset({"parameters", "named_parameters"})


class ModuleWalks:
    """The file pass's part: each walk over the modules of one of a function's parameters (`self`
    included), whole or to its first parameter."""

    function: FunctionInfo | None

    def leave_Call(self, original_node: cst.Call) -> None:
        fn = self.function
        if fn is None or len(self._scopes) != 1 or not self.active():
            return
        walked = _walked(original_node, fn)
        if walked is not None:
            fn.module_walks.append((walked, "all", *self.positions.span(original_node)))
            return
        # `next(module.parameters())`, `next(iter(self.parameters()))`: the walk before stops at the first item
        if type(original_node.func) is cst.Name and original_node.func.value == "next" and original_node.args:
            inner = original_node.args[0].value
            if type(inner) is cst.Call and type(inner.func) is cst.Name and inner.func.value == "iter" and inner.args:
                inner = inner.args[0].value
            if type(inner) is cst.Call and fn.module_walks and _walked(inner, fn) is not None \
                    and inner.func.attr.value in FIRST_PARAMETER:
                param = fn.module_walks.pop()[0]
                fn.module_walks.append((param, "first", *self.positions.span(original_node)))


def _walked(node: cst.Call, fn: FunctionInfo) -> str | None:
    """The parameter whose modules `node` walks (`module.parameters()`), or None."""
    func = node.func
    if type(func) is cst.Attribute and func.attr.value in WALKS and type(func.value) is cst.Name \
            and func.value.value in fn.params:
        return func.value.value
    return None
