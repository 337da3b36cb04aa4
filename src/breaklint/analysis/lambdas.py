"""Lambdas: what a one-parameter `lambda` returns, its parameter bound in the scope for the while
(`lambda_value`: `key=lambda d: d[4]` of `sorted` over tensor rows), and what the parameters of a
lambda that `map` hands the elements of its iterables hold while the lambda is walked
(`map(lambda t: t[t > 0].sum(), xs)`).
"""

from __future__ import annotations

import libcst as cst

from . import values as V
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
        values = self._scopes[-1].values if self._scopes else {}
        bound = self._mapped.pop(node, {})
        self._lambda_hidden.append({name: values.get(name) for name in bound})
        values.update(bound)

    def leave_lambda(self) -> None:
        values = self._scopes[-1].values if self._scopes else {}
        for name, old in self._lambda_hidden.pop().items():
            if old is None:
                values.pop(name, None)
            else:
                values[name] = old

    def lambda_value(self, fn: cst.Lambda, argument: Val) -> Val:
        """What a one-parameter `lambda` returns when handed `argument` (`key=lambda d: d[4]` of
        `sorted` over tensor rows: a tensor); unknown for other lambdas."""
        params = fn.params
        if len(params.params) != 1 or type(params.star_arg) is cst.Param or params.kwonly_params \
                or not self._scopes:
            return V.UNKNOWN
        values = self._scopes[-1].values
        name = params.params[0].name.value
        hidden = values.get(name)
        values[name] = argument
        try:
            return self.value(fn.body)
        finally:
            if hidden is None:
                values.pop(name, None)
            else:
                values[name] = hidden
