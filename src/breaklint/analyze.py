"""One file through the static pass: read (or take from the cache), parse, and one batched walk
of the file context and every rule, giving its summary and candidate findings. Never raises for bad
input: each problem is one diagnostic for the file.
"""

from __future__ import annotations

import gc
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from . import cache, suppress
from .analysis.parse import (
    PIECES_FROM, _from_recursion, _on_deep_stack, _parse, _pieces, _Unparsable, python_verdict,
    without_bulky_data
)
from .analysis.summary import Candidate, ModuleSummary
from .diagnostics import _engine_finding, _internal_error, _too_large
from .finding import Finding
from .memory import _memory_turn, collect_young
from .source import decode_source, source_lines


if TYPE_CHECKING:
    import libcst as cst

    from .analysis.context import FileContext


@dataclass
class FileResult:
    path: Path
    module: str
    summary: ModuleSummary | None = None
    candidates: list[Candidate] = field(default_factory=list)
    suppressions: list[tuple[int, frozenset[str] | None, str]] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    skipped: bool = False  # `breaklint: skip-file`
    digest: str = ""  # sha256 of the bytes that were checked; fixes apply only to those


def analyze_source(source: bytes | str, path: Path, module: str) -> FileResult:
    """Parse and walk one file. Never raises for bad input: each problem is one diagnostic for the file.

    Python's own compiler (which never runs the code) judges the syntax first, so a syntax error is
    reported in Python's words, and a file that Python accepts but libcst's parser cannot read, or
    that nests too deeply to analyze in bounded time, is BL004 rather than a "syntax error"."""
    result = FileResult(path=path, module=module)
    if isinstance(source, bytes):
        try:
            text = decode_source(source)
        except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
            reason = exc.reason if isinstance(exc, UnicodeDecodeError) else (getattr(exc, "msg", None) or str(exc))
            result.errors.append(_engine_finding("BL001", path, f"cannot decode file: {reason}"))
            return result
    else:
        text = source
    # Every file is parsed, whether or not it names torch: a solver class, a factory or a helper in
    # a file that never does is still run by the compiled code that calls it, and an `__init__.py`
    # of imports alone says where the names its package exports are defined.
    if suppress.skips_file(text):
        result.skipped = True
        return result
    problem = python_verdict(text, path)
    if problem is not None:
        result.errors.append(problem)
        return result
    text = without_bulky_data(text)
    try:
        ctx = _walk(text, path, module)
    except _Unparsable as exc:
        result.errors.append(exc.finding)
        return result
    except MemoryError:
        result.errors.append(_engine_finding("BL004", path, "could not analyze: out of memory"))
        return result
    except Exception as exc:
        if not _from_recursion(exc):  # a bug in a rule must not lose the rest of the run
            result.errors.append(_internal_error(path, exc))
            return result
        # A tree deeper than the default stack allows (a long implicit string concatenation is a
        # right-nested chain in libcst): once more on a thread with a large stack.
        try:
            ctx = _on_deep_stack(_walk, text, path, module)
        except Exception as again:
            result.errors.append(
                _engine_finding("BL004", path, "could not analyze: the file's syntax tree is too deep to walk")
                if isinstance(again, MemoryError) or _from_recursion(again) else _internal_error(path, again))
            return result
    result.summary = ctx.summary
    result.candidates = ctx.candidates
    result.suppressions = ctx.suppressions
    return result


def _walk(text: str, path: Path, module: str) -> FileContext:
    """Parse (libcst) and run the file context and every rule over the tree in one batched walk.

    Python's cyclic garbage collector is paused meanwhile: a syntax tree is a million objects without
    a cycle (freed by reference counting), and collections triggered by building it rescan every
    result kept so far (a fifth of a one-process run over a large tree)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_and_walk(text, path, module)
    finally:
        if was_enabled:
            gc.enable()


def _parse_and_walk(text: str, path: Path, module: str) -> FileContext:
    from .analysis.context import FileContext
    from .analysis.positions import Positions
    from .analysis.settings import reader_for
    from .analysis.walk import BatchedWalk
    from .rules import load_rules
    from .rules.by_name import batched

    pieces = _pieces(text) if len(text) >= PIECES_FROM else None
    with _memory_turn(max(len(piece) for _, piece in pieces[1]) if pieces else len(text)):
        outline = _parse(pieces[0], path, 1, quiet=True) if pieces else None
        ctx = FileContext(path, module, source_lines(text), None)
        rules = batched([cls(ctx) for cls in load_rules().values()])
        walker = BatchedWalk([ctx, reader_for(ctx), *rules], without=() if suppress.may_suppress(text) else ("visit_Comment",))
        if outline is None:  # walked whole
            module_node = _parse(text, path, 1)
            ctx.positions = Positions(module_node)
            walker.walk(module_node)
            return ctx

        def parts() -> Iterator[cst.Module]:
            for first, piece in pieces[1]:
                ctx.positions = None  # the last part's tree is freed before the next is parsed
                part = _parse(piece, path, first)
                ctx.positions = Positions(part, first)
                yield part
                del part

        walker.walk_in_parts(outline, parts())
        return ctx


def _entry(path: Path, module: str, cache_dir: str | None, max_size: int) -> Path | None:
    """The file's cache entry (named by its bytes), or None without a cache or when it cannot be read."""
    if cache_dir is None:
        return None
    try:
        if path.stat().st_size > max_size:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return cache.entry_path(cache_dir, path, module, data)


def _analyze_path(args: tuple[Path, str, str | None, int]) -> FileResult:
    """Read, analyze and cache one file. Never raises: a worker that raised would lose its batch."""
    path, module, cache_dir, max_size = args
    try:
        return _analyze_file(path, module, cache_dir, max_size)
    except Exception as exc:  # pragma: no cover - analyze_source reports its own errors
        result = FileResult(path=path, module=module)
        result.errors.append(_internal_error(path, exc))
        return result


def _analyze_kept(args: tuple[Path, str, str | None, int]) -> FileResult:
    """`_analyze_path` in a run that keeps its results with the collector paused (`memory.results_kept`;
    a pool's workers inherit the pause): what the file left in cycles is freed before the next one."""
    result = _analyze_path(args)
    collect_young()
    return result


def _analyze_file(path: Path, module: str, cache_dir: str | None, max_size: int) -> FileResult:
    result = FileResult(path=path, module=module)
    try:
        size = path.stat().st_size
        if size > max_size:  # not even read: a huge file costs nothing
            result.errors.append(_too_large(path, size, max_size))
            return result
        data = path.read_bytes()
    except OSError as exc:
        result.errors.append(_engine_finding("BL001", path, f"cannot read file: {exc.strerror or exc}"))
        return result
    result = analyze_source(data, path, module)
    result.digest = hashlib.sha256(data).hexdigest()
    if cache_dir is not None:  # `lint` looked the file up (`_entry`) before sending it here
        try:
            entry = cache.dumps(result)
        except (RecursionError, ValueError):  # pragma: no cover - results hold bounded values
            return result
        cache.write_atomic(cache.entry_path(cache_dir, path, module, data), entry)
    return result
