"""Lambdas: what a one-parameter `lambda` returns, its parameter bound in the scope for the while
(`lambda_value`: `key=lambda d: d[4]` of `sorted` over tensor rows), and what the parameters of a
lambda that `map` hands the elements of its iterables hold while the lambda is walked
(`map(lambda t: t[t > 0].sum(), xs)`).
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .summary import hide, put_back
from .values import Val


class Lambdas:
    """A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current."""

    def note_mapped(self, call: cst.Call) -> None:
        """`map(lambda t: t[t > 0].sum(), xs)`: while the lambda is walked, its parameters hold an
        element of each iterable (calls.py asks at each call of `map`)."""
        if not call.args or type(fn := call.args[0].value) is not cst.Lambda or any(a.star for a in call.args):
            return
        names = [p.name.value for p in fn.params.params]
        self._mapped[fn] = {name: V.elem(self.value(arg.value)) for name, arg in zip(names, call.args[1:])}

    def enter_lambda(self, node: cst.Lambda) -> None:
        self._lambda_hidden.append(hide(self._scopes[-1].values if self._scopes else {},
                                          self._mapped.pop(node, {})))

    def leave_lambda(self) -> None:
        put_back(self._scopes[-1].values if self._scopes else {}, self._lambda_hidden.pop())

    def lambda_value(self, fn: cst.Lambda, argument: Val) -> Val:
        """What a one-parameter `lambda` returns when handed `argument` (`key=lambda d: d[4]` of
        `sorted` over tensor rows: a tensor); unknown for other lambdas."""
        params = fn.params
        if len(params.params) != 1 or type(params.star_arg) is cst.Param or params.kwonly_params \
                or not self._scopes:
            return V.UNKNOWN
        values = self._scopes[-1].values
        hidden = hide(values, {params.params[0].name.value: argument})
        try:
            return self.value(fn.body)
        finally:
            put_back(values, hidden)
