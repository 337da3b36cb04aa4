"""BL439 and BL440: breaks that only some Python releases have, reported for code that runs on one of
them (`Config.python_release`, the `target-python` setting). Found by the engine once it knows the
whole tree: which getter a read runs (`reach.locked_cache_reads`), which frames dynamo runs eagerly
(`resume.eager_comprehensions`)."""

from __future__ import annotations

from .base import Rule, register


@register
class CachedPropertyLock(Rule):
    """Found by the engine once it knows the whole tree (which getter a read runs), and only where the
    code runs on Python 3.11 or older (`target-python`)."""

    CODE = "BL439"
    NAME = "cached-property-lock"
    KIND = "break"
    MESSAGE = "the first read of a `functools.cached_property` in compiled code, on Python 3.11 or older"
    SUGGESTION = (
        "compute the value before compiling (read it once in `__init__` or outside the compiled region), "
        "or make it a plain `@property` over a value the constructor stores; Python 3.12 has no lock here"
    )
    GB_TYPES = ("GB0142",)


@register
class ComprehensionFrame(Rule):
    """Found by the engine once it knows which frames dynamo runs eagerly (a break of theirs, or of
    what they call, inside a loop), and only where the code runs on Python 3.11 or older."""

    CODE = "BL440"
    NAME = "comprehension-frame"
    KIND = "break"
    MESSAGE = ("a list, set or dict comprehension in a function that dynamo runs eagerly, on Python 3.11 or "
               "older: dynamo compiles it as a frame of its own and cannot step the iterator it is handed")
    SUGGESTION = (
        "remove the break that makes dynamo run the function eagerly (the finding names it); or build the "
        "result with a `for` loop, or iterate a tuple (`tuple(xs)`) or `range(len(xs))`, whose iterators "
        "dynamo steps; Python 3.12 inlines comprehensions"
    )
    GB_TYPES = ("GB4347",)
