"""isinstance narrowing: `isinstance(x, np.ndarray)`, `torch.is_tensor(x)` and their negations tell
what `x` (a name, or an attribute of `self`) holds in the code they guard (an `if` branch, a
conditional expression's side, the right operand of `and`/`or`, and what follows an `if` that
returns or raises). Asked by the flow layer
and by the evaluation of `and`/`or`.
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .values import Val

# modules whose classes are never tensors (an isinstance test against one of them tells "not a tensor")
NOT_TENSOR_MODULES = ("pathlib.", "collections.", "datetime.", "decimal.", "fractions.", "enum.", "io.", "PIL.")

# an RNN's packed batch, a named tuple: its data and its batch sizes are tensors (the sizes a CPU
# tensor of ints, a tensor to dynamo all the same); the indices may be None
PACKED_SEQUENCES = ("torch.nn.utils.rnn.PackedSequence", "torch.nn.utils.rnn.PackedSequence_")
PACKED = V.record_of({"data": V.TENSOR, "batch_sizes": V.TENSOR, "sorted_indices": V.UNKNOWN,
                      "unsorted_indices": V.UNKNOWN})

# what `isinstance(x, dict)` tells: a dict whose values are those of what the callers pass, where they
# decide `x`; else no tensor
_DICT = Val("dict")


def narrows(old: Val, new: Val) -> bool:
    """Whether a type test's answer `new` replaces what a name holds, `old`, in the code it guards.

    That code runs only where the test holds. A test that it is not a tensor (`isinstance(t, float)`)
    always wins: where `t` is a tensor, the code never runs; a test that tells which object a value
    only known not to be a tensor is (`isinstance(x, np.ndarray)` after an earlier `isinstance(x,
    torch.Tensor)` returned) wins too. A test that it is one wins only over
    what is not known: code testing a float for a tensor never runs either, and judged on a tensor
    it would report breaks that cannot happen. What is known not to be a tensor stays (a sequence
    keeps its elements)."""
    if new.is_tensor:
        return not (old.known_tensor or old.not_tensor)
    if old == V.OBJECT and new.kind == "object" and new.ref:
        return True  # "not a tensor" (`if isinstance(x, Tensor): return ...`) told what it is
    return not old.not_tensor


class Narrowing:
    """isinstance facts applied to names where a test holds, and undone after.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    # `isinstance(x, np.ndarray)` tells what `x` holds where the test is true, `not isinstance(x,
    # torch.Tensor)` where it is false: narrowed while that branch is walked, then back to what it
    # held unless the branch rebound it.
    def _narrow(self, test: cst.BaseExpression, holds: bool) -> None:
        self._narrowed.append(self._apply_type_facts(test, holds))

    def _apply_type_facts(self, test: cst.BaseExpression, holds: bool) -> dict[str, tuple[Val | None, Val]]:
        """Give the names `test` tells of, where it is `holds`, what it says they hold; the names
        changed, each with (what it held, what it holds now)."""
        narrowed: dict[str, tuple[Val | None, Val]] = {}
        if not self._scopes:
            return narrowed
        values = self._scopes[-1].values
        for name, value in self._type_facts(test, holds).items():
            old = values.get(name)
            if old is None and name.startswith("self."):  # an attribute: what it holds outside the test
                old = self._attribute_value(cst.Attribute(cst.Name("self"), cst.Name(name[5:])))
            if value.kind in ("seq", "dict") and not value.parts and old is not None and old.symbolic:
                # `if isinstance(x, (list, tuple)): x = x[0]` (or `x = x["out"]` of a dict) where the
                # callers decide `x`: its elements are what an element of what they pass is (a row of
                # a tensor, a list's item, a dict's value)
                value = Val("seq", parts=(V.elem(old),)) if value.kind == "seq" else V.mapping_of(V.elem(old))
            elif value == _DICT:
                value = V.OBJECT
            if old is None and not name.startswith("self.") and name not in self.aliases \
                    and narrows(V.UNKNOWN, value):
                narrowed[name] = (None, value)  # a parameter of a nested function (it shares its parent's scope)
                values[name] = value
            elif old is not None and narrows(old, value):
                narrowed[name] = (old, value)
                values[name] = value
        if narrowed:
            self._qualified = (None, None)  # names changed meaning
        return narrowed

    def _unnarrow(self) -> None:
        narrowed = self._narrowed.pop()
        if not narrowed or not self._scopes:
            return
        values = self._scopes[-1].values
        for name, (old, new) in narrowed.items():
            if values.get(name) is not new:
                continue  # rebound in the branch
            if name.startswith("self.") or old is None:
                del values[name]  # an attribute reads its class's facts again; a name no binding held
            else:
                values[name] = old
        self._qualified = (None, None)

    def _type_facts(self, test: cst.BaseExpression, holds: bool) -> dict[str, Val]:
        """What names hold where `test` is `holds`, from its isinstance tests."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._type_facts(test.expression, not holds)
        if type(test) is cst.BooleanOperation:
            # `a and b` true: both hold; `a or b` false: neither holds
            if (type(test.operator) is cst.And) == holds:
                return {**self._type_facts(test.left, holds), **self._type_facts(test.right, holds)}
            return {}
        if type(test) is cst.Name:
            test = self._held_test(test.value) or test
        if not (type(test) is cst.Call and test.args):
            return {}
        tested = test.args[0].value
        if type(tested) is cst.Name:
            name = tested.value
        elif (attr := self._self_attr(tested)) is not None:
            name = f"self.{attr}"  # `isinstance(self.value, list)`: kept apart from names (evaluate.py)
        else:
            return {}
        callee = self.qualify(test.func)
        if callee == "torch.is_tensor" and len(test.args) == 1:
            return {name: V.TENSOR if holds else V.OBJECT}
        if callee != "isinstance" or len(test.args) != 2:
            return {}
        kinds = test.args[1].value
        if type(kinds) is cst.Name and self._scopes and kinds.value in self._scopes[-1].tuples:
            kinds = self._scopes[-1].tuples[kinds.value]  # `vector = (np.ndarray, torch.Tensor)` earlier
        types = [el.value for el in kinds.elements] if type(kinds) is cst.Tuple else [kinds]
        held = [self._type_value(t) for t in types]
        if len(held) > 1:
            held = [V.OBJECT if v == _DICT else v for v in held]  # a dict among other types: no tensor
        if holds:
            if all(v is not None for v in held) and any(v.is_tensor for v in held) \
                    and all(v.is_tensor or v == V.NDARRAY for v in held):
                # a tensor or a NumPy array: a tensor to dynamo either way, though not to the code
                return {name: V.tensor(known=False)}
            if all(v is not None for v in held):
                return {name: V.join(*held) if len(held) > 1 else held[0]}
            return {}
        # false: not a tensor, where a tensor type was tested for
        if any(v is not None and v.is_tensor for v in held):
            return {name: V.OBJECT}
        return {}

    def _held_test(self, local: str) -> cst.Call | None:
        """`is_packed = isinstance(input, PackedSequence)` then `if is_packed:`: the test a local holds,
        while the name it tests holds what it held then (`Scope.tests`)."""
        held = self._scopes[-1].tests.get(local) if self._scopes else None
        if held is None or self._scopes[-1].values.get(held[0].args[0].value.value) is not held[1]:
            return None
        return held[0]

    def _type_value(self, node: cst.BaseExpression) -> Val | None:
        """What an instance of the type `node` names holds; None for a type this cannot tell."""
        qual = self.qualify(node) or ""
        if self._is_tensor_annotation(node) or qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return V.TENSOR
        if qual in ("int", "float", "complex", "numbers.Number", "numbers.Real", "numbers.Integral"):
            return V.NUMBER
        if qual == "bool":
            return V.BOOL
        if qual == "numpy.ndarray":
            return V.NDARRAY
        if qual == "dict":
            return _DICT
        if qual in ("str", "bytes", "set", "frozenset", "numpy.generic",
                    "numpy.number", "numpy.integer", "numpy.floating"):
            return V.OBJECT
        if qual in ("list", "tuple"):
            return V.Val("seq")
        if qual in PACKED_SEQUENCES:
            return PACKED
        if qual.startswith(NOT_TENSOR_MODULES):
            return V.OBJECT  # `isinstance(source, (str, int, Path))`: a path is no tensor
        return None
