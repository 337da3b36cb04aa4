"""The per-file result cache: plain JSON data, validated on load, at names no one else can predict.

A cache lives in the linted tree (`.breaklint_cache/`), and the tree may come from
an untrusted pull request. So an entry is never a format that can execute when
read (no pickle, no marshal, no eval): it is JSON, rebuilt into the engine's
dataclasses field by field from their type hints, and anything that does not
fit them exactly is ignored and recomputed. Entry names are an HMAC of the
file's path, module and bytes under a key kept outside the tree (in the user's
cache directory), so a planted file cannot sit where a lookup would find it,
and a planted entry could not hide a finding even if it were valid data.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import types
from functools import cache
from pathlib import Path
from typing import Any, Callable, Literal, Union, get_args, get_origin, get_type_hints

from ._version import __version__
from .finding import Finding
from .analysis.plain import from_plain, to_plain
from .analysis.values import Val

FORMAT = 154
SUFFIX = ".json"


class Invalid(ValueError):
    """An entry that does not have the shape the engine writes."""


# ---------------------------------------------------------------------- the key
def key_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "breaklint" / "cache-key"


def _stored_key(path: Path) -> bytes | None:
    try:
        data = path.read_bytes().strip()
    except OSError:
        return None
    return data if len(data) >= 32 else None


@cache
def secret() -> bytes:
    """This user's cache key, made on first use. Without a writable home it is per process:
    the cache then never hits across runs, which costs time and nothing else."""
    path = key_file()
    stored = _stored_key(path)
    if stored is not None:
        return stored
    fresh = secrets.token_hex(32).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(fresh)
        return fresh
    except FileExistsError:  # another process made it first: use theirs
        return _stored_key(path) or fresh
    except OSError:
        return fresh


@cache
def _rules_digest() -> bytes:
    """The rules this build has, with their metadata: a rule added or changed between two builds of one
    version must not be answered from an entry the other made."""
    from ._catalog import CATALOG

    return hashlib.sha256(repr(sorted(CATALOG.items())).encode()).digest()


def entry_path(cache_dir: str, path: Path, module: str, data: bytes) -> Path:
    key = _mac(__version__.encode(), str(FORMAT).encode(), _rules_digest(), cache_dir.encode(), str(path).encode(),
               module.encode(), data)
    return Path(cache_dir) / key[:2] / f"{key}{SUFFIX}"


def _mac(*parts: bytes) -> str:
    mac = hmac.new(secret(), digestmod=hashlib.sha256)
    for part in parts:
        mac.update(len(part).to_bytes(8, "big"))
        mac.update(part)
    return mac.hexdigest()


def run_entry_path(cache_dir: str, invocation: list[str]) -> Path:
    """Where the last result of one invocation (its root and paths) is kept: one entry, overwritten."""
    return Path(cache_dir) / "runs" / f"{_mac(b'run', __version__.encode(), *(p.encode() for p in invocation))}{SUFFIX}"


def run_state(file_entries: list[Path], root: str) -> str:
    """What a whole run's result depends on: every file's entry name (its path, module and bytes, the
    version and the configuration) and the project root."""
    return _mac(b"state", root.encode(), *(str(e.name).encode() for e in file_entries))


@dataclasses.dataclass
class RunRecord:
    """A whole run's result, for a re-run in which nothing changed."""

    state: str
    findings: list[Finding]
    errors: list[Finding]
    files: list[Path]
    digests: dict[str, str]
    reached: list[str]
    notes: list[str]  # what the whole run said (entry points naming nothing)


def read_run(entry: Path, state: str) -> RunRecord | None:
    try:
        record = _decode(entry.read_bytes(), RunRecord)
    except (OSError, Invalid):
        return None
    return record if record.state == state else None


# ---------------------------------------------------------------------- encoding
def to_data(obj: Any) -> Any:
    """Plain JSON data for a result: dataclasses become lists of their fields, paths strings, sets
    sorted lists, values (`Val`) their compact form."""
    if isinstance(obj, Val):
        return to_plain(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        # a record is the list of its field values, in declaration order (short, and quick to check)
        return [to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(to_data(v) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [to_data(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot cache a {type(obj).__name__}")


@cache
def decoder(hint: Any) -> Callable[[Any], Any]:
    """A function that checks JSON data against `hint` and rebuilds the value, made once per type."""
    if hint is Val:
        def value(data: Any) -> Any:
            try:
                return from_plain(data)
            except ValueError as exc:
                raise Invalid(str(exc)) from None
        return value
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        optional = type(None) in get_args(hint)
        options = [decoder(o) for o in get_args(hint) if o is not type(None)]

        def union(data: Any) -> Any:
            if data is None:
                if optional:
                    return None
                raise Invalid("unexpected null")
            for option in options:
                try:
                    return option(data)
                except Invalid:
                    pass
            raise Invalid("no alternative fits")
        return union
    if origin is Literal:
        allowed = {(type(a), a) for a in get_args(hint)}

        def literal(data: Any) -> Any:
            if (type(data), data) in allowed:
                return data
            raise Invalid("not one of the allowed values")
        return literal
    if origin in (list, set, frozenset):
        (item_hint,) = get_args(hint)
        item = decoder(item_hint)
        make = origin

        def sequence(data: Any) -> Any:
            if type(data) is not list:
                raise Invalid("expected a list")
            return make([item(v) for v in data])
        return sequence
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            each = decoder(args[0])

            def homogeneous(data: Any) -> Any:
                if type(data) is not list:
                    raise Invalid("expected a list")
                return tuple([each(v) for v in data])
            return homogeneous
        parts = [decoder(a) for a in args]

        def fixed(data: Any) -> Any:
            if type(data) is not list or len(data) != len(parts):
                raise Invalid("expected a list of the right length")
            return tuple([p(v) for p, v in zip(parts, data)])
        return fixed
    if origin is dict:
        key_hint, value_hint = get_args(hint)
        if key_hint is not str:
            raise TypeError("only string keys can be cached")
        value = decoder(value_hint)

        def mapping(data: Any) -> Any:
            if type(data) is not dict:
                raise Invalid("expected an object")
            return {k: value(v) for k, v in data.items()}
        return mapping
    if dataclasses.is_dataclass(hint):
        cls = hint
        names = [f.name for f in dataclasses.fields(cls)]
        fields: list[Callable[[Any], Any]] = []  # filled on first use: types may be recursive

        def record(data: Any) -> Any:
            if len(fields) != len(names):
                hints = get_type_hints(cls)
                fields[:] = [decoder(hints[name]) for name in names]
            if type(data) is not list or len(data) != len(fields):
                raise Invalid("expected other fields")
            return cls(*[dec(v) for dec, v in zip(fields, data)])
        return record
    if hint is Path:
        def path(data: Any) -> Any:
            if type(data) is not str:
                raise Invalid("expected a path")
            return Path(data)
        return path
    if hint in (bool, int, str):
        def atom(data: Any) -> Any:
            if type(data) is not hint:
                raise Invalid("expected another type")
            return data
        return atom
    if hint is float:
        def number(data: Any) -> Any:
            if type(data) not in (int, float):
                raise Invalid("expected a number")
            return float(data)
        return number
    if hint is type(None):
        def null(data: Any) -> Any:
            if data is not None:
                raise Invalid("expected null")
            return None
        return null
    raise TypeError(f"cannot cache a value of type {hint!r}")


# ---------------------------------------------------------------------- entries
def dumps(result: Any) -> bytes:
    payload = {"format": FORMAT, "version": __version__, "result": to_data(result)}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _decode(raw: bytes, cls: type) -> Any:
    """The `cls` stored in an entry's bytes, or raise Invalid."""
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise Invalid(f"not JSON: {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT or payload.get("version") != __version__:
        raise Invalid("another format or version")
    try:
        return decoder(cls)(payload.get("result"))
    except RecursionError:
        raise Invalid("nested too deeply") from None


def loads(raw: bytes, cls: type, path: Path, module: str) -> Any:
    """The result stored in `raw`, or raise Invalid. Checks it is for this file."""
    result = _decode(raw, cls)
    if result.path != path or result.module != module:
        raise Invalid("an entry for another file")
    return result


def read(entry: Path, cls: type, path: Path, module: str) -> Any | None:
    """The cached result, or None when the entry is missing or not valid (it is then rebuilt)."""
    try:
        raw = entry.read_bytes()
    except OSError:
        return None
    try:
        return loads(raw, cls, path, module)
    except Invalid:
        return None


def write_atomic(target: Path, payload: bytes) -> None:
    """Write through a temporary file and a rename, so a reader never sees half an entry."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, target)
        except OSError:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # a cache that cannot be written only costs time



def write_gitignore(base: Path) -> None:
    """Keep the cache folder out of git: a `.gitignore` of `*` in it, written once."""
    marker = base / ".gitignore"
    if not marker.exists():
        write_atomic(marker, b"# created by breaklint\n*\n")
