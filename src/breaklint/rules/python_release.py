"""BL439: a break that only some Python releases have, reported for code that runs on one of them
(`Config.python_release`, the `target-python` setting). Found by the engine once it knows the whole
tree (which getter a read runs): `reach.locked_cache_reads`."""

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
