"""Values as compact plain data: most of what a file's summary holds, they travel in cache entries as
short JSON, a bare kind ("tensor") for the common constants, else [kind, ref, name, owner, [parts],
[keys]]. Reading checks every field: nothing read back is more than these strings and lists."""

from __future__ import annotations

from .values import BOOL, BOOL_TENSOR, CONCRETE, MAX_DEPTH, NONE, NUMBER, OBJECT, SIZE, STR, SYMBOLIC, TENSOR, \
    UNKNOWN, Val

_CONSTANTS = {v.kind: v for v in (TENSOR, BOOL_TENSOR, UNKNOWN, NONE, NUMBER, BOOL, STR, SIZE, OBJECT)}


def to_plain(value: Val) -> str | list:
    if not (value.ref or value.name or value.owner or value.parts or value.keys) and value.kind in _CONSTANTS:
        return value.kind
    return [value.kind, value.ref, value.name, value.owner, [to_plain(p) for p in value.parts], list(value.keys)]


def from_plain(data: object, depth: int = 0) -> Val:
    """The value `to_plain` wrote, or ValueError for anything else."""
    if type(data) is str:
        if data in _CONSTANTS:
            return _CONSTANTS[data]
        raise ValueError(f"unknown value kind {data!r}")
    if type(data) is not list or len(data) != 6 or depth > 4 * MAX_DEPTH:
        raise ValueError("not a value")
    kind, ref, name, owner, parts, keys = data
    if kind not in CONCRETE and kind not in SYMBOLIC:
        raise ValueError(f"unknown value kind {kind!r}")
    if not all(type(x) is str for x in (ref, name, owner)) or type(parts) is not list or type(keys) is not list \
            or not all(type(k) is str for k in keys):
        raise ValueError("not a value")
    return Val(kind, ref, name, owner, tuple(from_plain(p, depth + 1) for p in parts), tuple(keys))
