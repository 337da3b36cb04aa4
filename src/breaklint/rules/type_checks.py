"""BL447: calls, in compiled code, of a function beartype checks with an annotation whose check dynamo
cannot trace. Found by the engine once it knows the whole tree (the function may be in another file):
see `FunctionInfo.type_check`."""

from __future__ import annotations

from .base import Rule, register


@register
class UntraceableTypeCheck(Rule):
    """Probed on torch 2.13 and 2.14.1 (beartype 0.23) and calibrated in fixtures/BL447.py: beartype's
    wrapper checks a list or sequence of items by one item picked with `random.getrandbits`, a builtin
    dynamo skips (GB0007), whether or not the call passes that argument; a jaxtyping array type's check is
    a custom `isinstance` on a tensor (torch 2.14 breaks; 2.13 traces it on fake tensors, where it
    fails, and the compiled call raises). A tensor, an optional tensor, a dict or a tuple of fixed
    length trace. The wrapped function itself is then traced as a frame of its own."""

    CODE = "BL447"
    NAME = "untraceable-type-check"
    KIND = "break"
    MESSAGE = ("a call of a function beartype checks (`@beartype`, on it or its class, or "
               "`@jaxtyped(typechecker=beartype)`) where the check of an annotation runs what dynamo cannot "
               "trace: a `list[T]` or `Sequence[T]` (one item picked at random), a jaxtyping array type")
    SUGGESTION = ("check types outside the compiled code: leave the decorator off the functions compiled code "
                  "calls (or turn beartype off there, `@beartype(conf=BeartypeConf(strategy=BeartypeStrategy.O0))`), "
                  "or annotate with a plain `Tensor` or a tuple of fixed length")
    # torch 2.14 names the jaxtyping check's break GB2736 ("builtin isinstance() with custom type check on
    # tensor"), which older registries lack
    GB_TYPES = ("GB0007",)
