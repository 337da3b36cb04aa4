"""The static pass: one parse and one batched walk per file, then reach over the tree.

Per file (in worker processes when there are many, cached by content), the
walk runs every rule and records *candidate* findings, each tagged with the
function it sits in, plus the file's part of the call graph. Then, for the
whole tree, `reach` decides which functions torch.compile traces, and only
their candidates become findings.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import hashlib
import os
import re
import subprocess
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from . import __version__, cache, suppress
from .config import Config
from .finding import Finding
from .analysis.reach import Reach, Values
from .registry import CATALOG, ENGINE_CODES, rule_info
from .source import decode_source, line_starts, module_name_for, relative_posix, source_lines
from .analysis.summary import Candidate, ModuleSummary

if TYPE_CHECKING:
    import libcst as cst

    from .analysis.context import FileContext

# libcst, the context and the rules are imported by the first file that is walked: a warm run (every
# file from the cache), `--version` and the reports never pay for them.

# A file that mentions none of these cannot hold code that torch.compile traces
# (or a helper it calls into) in a way any rule can see; it is not parsed.
GATE_WORDS = ("torch", "forward", "Module", "compile", "Tensor", ".item(", ".tolist(", ".nonzero(")
# Worker processes pay for themselves once there are this many bytes to analyze (about half a second
# of parsing and walking on one core; a forked worker starts in a few milliseconds).
PARALLEL_BYTES = 128 * 1024


@dataclass
class FileResult:
    path: Path
    module: str
    summary: ModuleSummary | None = None
    candidates: list[Candidate] = field(default_factory=list)
    suppressions: list[tuple[int, frozenset[str] | None, str]] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    skipped: bool = False  # gated out or `breaklint: skip-file`
    digest: str = ""  # sha256 of the bytes that were checked; fixes apply only to those


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[Path]
    errors: list[Finding]  # BL001/BL003: files that could not be fully checked
    reached: set[str] = field(default_factory=set)
    digests: dict[Path, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # paths that gave nothing to lint, and why

    @property
    def all(self) -> list[Finding]:
        return sorted([*self.findings, *self.errors], key=Finding.sort_key)


def _engine_finding(code: str, path: Path, message: str, line: int = 1, col: int = 0) -> Finding:
    name, kind, _ = ENGINE_CODES[code]
    return Finding(code=code, kind=kind, message=message, suggestion="", path=path,
                   line=line, col=col, end_line=line, end_col=col)


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
    if suppress.skips_file(text) or not any(word in text for word in GATE_WORDS):
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


_LIBCST_AT = re.compile(r"error at (\d+):(\d+)")


class _Unparsable(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


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
    from .analysis.walk import BatchedWalk
    from .rules import load_rules

    pieces = _pieces(text) if len(text) >= PIECES_FROM else None
    with _memory_turn(max(len(piece) for _, piece in pieces[1]) if pieces else len(text)):
        outline = _parse(pieces[0], path, 1, quiet=True) if pieces else None
        ctx = FileContext(path, module, source_lines(text), None)
        rules = [cls(ctx) for cls in load_rules().values()]
        walker = BatchedWalk([ctx, *rules], without=() if suppress.may_suppress(text) else ("visit_Comment",))
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


def _parse(text: str, path: Path, first_line: int, quiet: bool = False) -> cst.Module | None:
    """libcst's tree of `text`, which starts at line `first_line` of the file. A text Python compiled
    but libcst cannot parse raises _Unparsable (or gives None, when `quiet`)."""
    import libcst as cst

    try:
        return cst.parse_module(text)
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:  # Python compiled the file: this is a limit of libcst's parser
        if quiet:
            return None
        detail = " ".join(getattr(exc, "message", str(exc)).split())
        where = _LIBCST_AT.search(detail)  # its own "error at L:C" is more exact than raw_line
        line = int(where[1]) if where else (getattr(exc, "raw_line", 1) or 1)
        col = int(where[2]) if where else max(getattr(exc, "raw_column", 0), 0)
        line += first_line - 1
        raise _Unparsable(_engine_finding(
            "BL004", path, f"could not analyze: Python accepts this file, but libcst's parser cannot read "
                           f"line {line}, column {col + 1}", line, col)) from None


# A syntax tree takes about 600 bytes of memory per byte of source (a 400 KB file, 240 MB). A file this
# large is parsed and walked a few module-level statements at a time, each piece about PIECE_BYTES
# (more when one statement is longer), so that only one piece's tree is alive at once.
PIECES_FROM = 128 * 1024
PIECE_BYTES = 32 * 1024


def _first_line(stmt: ast.stmt) -> int:
    """The line a statement starts at, its decorators included."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


def _pieces(text: str) -> tuple[str, list[tuple[int, str]]] | None:
    """A large file cut at module-level statements: its outline (every module-level statement, with the
    bodies of defs and classes that take more than one statement replaced by `...`: what the context
    reads of a module before the walk: imports, names, one-line helpers, module-level values), and its
    pieces (the line each starts at, its text). None when it does not cut."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    starts = line_starts(text)

    def offset(line: int) -> int:  # where a 1-based line starts; past the end for the line after the last
        return starts[line - 1] if line <= len(starts) else len(text)

    # pieces: consecutive module-level statements (decorators and the comments above them included)
    cuts, size, previous_end = [1], 0, 0
    for stmt in tree.body:
        first = _first_line(stmt)
        if size >= PIECE_BYTES and first > previous_end:
            cuts.append(previous_end + 1)
            size = 0
        size += offset(stmt.end_lineno + 1) - offset(first)
        previous_end = stmt.end_lineno
    if len(cuts) < 2:
        return None
    # outline: the body lines of each outermost multi-statement def and class give way to one `...`
    hollow: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.end_lineno \
                and node.body[0].lineno > node.lineno and (isinstance(node, ast.ClassDef) or len(node.body) > 1):
            hollow.append((_first_line(node.body[0]), node.end_lineno))
    outline, at = [], 1
    for first, last in sorted(hollow):
        if first < at:
            continue  # inside a body already left out
        line = text[offset(first):offset(first + 1)]
        indent, end = line[:len(line) - len(line.lstrip(" \t\f"))], line[len(line.rstrip("\r\n")):]
        outline += [text[offset(at):offset(first)], indent, "...", end or "\n"]
        at = last + 1
    outline.append(text[offset(at):])
    bounds = [*cuts, len(starts) + 2]
    return "".join(outline), [(a, text[offset(a):offset(b)]) for a, b in zip(bounds, bounds[1:])]


def _from_recursion(exc: BaseException) -> bool:
    """Whether `exc` is, or was raised while unwinding from, a RecursionError (libcst's position
    bookkeeping turns one into a KeyError on the way out)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, RecursionError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _internal_error(path: Path, exc: BaseException) -> Finding:
    try:  # an exception's text may hold a syntax tree: bounded, and never a second failure
        detail = str(exc)
    except Exception:  # noqa: BLE001
        detail = "(no description)"
    if len(detail) > 300:
        detail = detail[:300] + "..."
    return _engine_finding("BL003", path, f"internal error in {_guess_failing_rule(exc)}: "
                                          f"{type(exc).__name__}: {detail}")


def _too_large(path: Path, size: int, limit: int) -> Finding:
    return _engine_finding("BL004", path, f"not analyzed: the file is {size / 2**20:.1f} MiB, above "
                                          f"max-file-size ({limit / 2**20:.1f} MiB); raise `max-file-size` "
                                          f"in [tool.breaklint] to check it")


# While compiling, the recursion budget above the caller is this many frames: CPython's compiler then
# gives up on expressions nested beyond about 3x as many levels. libcst's parser takes time
# superlinear in that depth (about 1 s at 1,200 levels, minutes at 10,000) and crashes at 100,000,
# so deeper files are not handed to it.
COMPILE_DEPTH = 400
PYTHON_DEPTH = 1000  # CPython's default recursion limit
DEEP_STACK = 512 * 2**20  # bytes of stack for a walk of a very deep tree
DEEP_RECURSION = 60_000


def python_verdict(text: str, path: Path) -> Finding | None:
    """What CPython's compiler says of `text` (compiled, never run): None when it compiles and is
    shallow enough for the analysis, else the file's one diagnostic."""
    try:
        _compile(text, path, COMPILE_DEPTH)
        return None
    except (RecursionError, MemoryError):
        pass
    except (SyntaxError, ValueError) as exc:
        return _rejected(path, exc)
    try:  # too deep for the analysis; does Python itself compile it (from a fresh interpreter's stack)?
        _compile(text, path, PYTHON_DEPTH)
    except (RecursionError, MemoryError):
        return _engine_finding("BL001", path, "syntax error: nested too deeply for Python's compiler "
                                              "(maximum recursion depth exceeded during compilation)")
    except (SyntaxError, ValueError) as exc:
        return _rejected(path, exc)
    return _engine_finding("BL004", path, f"could not analyze: an expression is nested more than about "
                                          f"{COMPILE_DEPTH * 3:,} levels deep, beyond what the parser handles "
                                          f"in bounded time")


def _rejected(path: Path, exc: SyntaxError | ValueError) -> Finding:
    """BL001 in Python's words (a ValueError: NUL bytes, on some Python versions)."""
    if isinstance(exc, SyntaxError):
        return _engine_finding("BL001", path, f"syntax error: {exc.msg}", exc.lineno or 1,
                               max((exc.offset or 1) - 1, 0))
    return _engine_finding("BL001", path, f"syntax error: {exc}")


# A module-level assignment whose value spans more source than this (a generated table) is walked as
# an empty one: its syntax tree would cost about 500 bytes per byte of source, and module-level values
# are never compiled. Only plain data goes: literals, and attributes of modules brought in with
# `import m` (`torch.float16`). A table that names functions or classes (which reach follows), holds
# a `lambda`, or is `__all__` is kept.
BULKY_VALUE = 64 * 1024
_DATA_NODES = (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.UnaryOp, ast.unaryop, ast.BinOp,
               ast.operator, ast.expr_context, ast.Attribute, ast.Name)


def _plain_data(value: ast.expr, modules: set[str]) -> bool:
    for node in ast.walk(value):
        if not isinstance(node, _DATA_NODES):
            return False
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in modules):
                return False
    names = {id(n) for n in ast.walk(value) if isinstance(n, ast.Name)}
    roots = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            roots.add(id(root))
    return names <= roots  # a bare name is a reference to something else of the program


_TOP_LEVEL = re.compile(r"^[^\s#)\]}]", re.M)  # a line that may start a module-level statement
_TOP_ASSIGN = re.compile(r"[A-Za-z_][\w.]*\s*(?::[^=\n]*)?=(?!=)")


def _may_hold_bulky_value(text: str) -> bool:
    """A cheap look before parsing: an assignment at column 0 followed by more than BULKY_VALUE
    characters before the next line at column 0."""
    starts = [m.start() for m in _TOP_LEVEL.finditer(text)]
    return any(end - start > BULKY_VALUE and _TOP_ASSIGN.match(text, start)
               for start, end in zip(starts, [*starts[1:], len(text)]))


def without_bulky_data(text: str) -> str:
    """`text` with each bulky module-level value replaced by an empty one of the same kind (`{}`,
    `[]`, `()`) that keeps every line and column: the brackets stand where the value began and
    ended, with blank lines between."""
    if len(text) <= BULKY_VALUE or not _may_hold_bulky_value(text):
        return text
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    modules = {(alias.asname or alias.name).split(".")[0] for stmt in tree.body if isinstance(stmt, ast.Import)
               for alias in stmt.names}
    lines = text.splitlines(keepends=True)
    edits = []
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if value is None or value.end_lineno is None:
            continue
        start, end = value.lineno - 1, value.end_lineno - 1
        if sum(len(lines[i]) for i in range(start, end + 1)) <= BULKY_VALUE:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) or not _plain_data(value, modules):
            continue
        # ast columns count UTF-8 bytes; the text's columns count characters
        first = len(lines[start].encode("utf-8")[:value.col_offset].decode("utf-8", "replace"))
        last = len(lines[end].encode("utf-8")[:value.end_col_offset].decode("utf-8", "replace"))
        opening, closing = {ast.Dict: "{}", ast.List: "[]", ast.ListComp: "[]"}.get(type(value), "()")
        edits.append((start, first, end, last, opening, closing))
    if not edits:
        return text
    for start, first, end, last, opening, closing in reversed(edits):
        if start == end:
            lines[start] = lines[start][:first] + opening + " " * (last - first - 2) + closing + lines[start][last:]
            continue
        head = lines[start][:first] + opening + "\n"
        tail = " " * max(last - 1, 0) + closing + lines[end][last:]
        lines[start:end + 1] = [head, *("\n" for _ in range(end - start - 1)), tail]
    return "".join(lines)


def _compile(text: str, path: Path, depth: int) -> None:
    """Compile to bytecode (which runs nothing), warnings silenced, under a recursion limit `depth`
    frames above the current one (the compiler's own depth budget is about 3x that)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(_stack_depth() + depth)
        try:
            compile(text, str(path), "exec", dont_inherit=True)
        finally:
            sys.setrecursionlimit(old)


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _on_deep_stack(fn, *args):
    """`fn(*args)` on a thread with a large stack and a high recursion limit; its exception re-raised."""
    out: dict[str, object] = {}

    def target() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            out["error"] = exc

    thread = threading.Thread(target=target, name="breaklint-deep-walk", daemon=True)
    old_stack, old_limit = threading.stack_size(DEEP_STACK), sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, DEEP_RECURSION))
    try:
        thread.start()
    finally:
        threading.stack_size(old_stack)
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["value"]


def _guess_failing_rule(exc: BaseException) -> str:
    tb = exc.__traceback__
    name = "the analysis"
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "CODE"):
            name = f"{owner.CODE} ({type(owner).__name__})"
        tb = tb.tb_next
    return name


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


# The tree of a piece (or of a file walked whole) this large is about 80 MB or more. Pool workers
# analyze such a piece's file alone: the others finish the file they are on, hand their free memory
# back to the system and wait until it is done. Smaller files are analyzed side by side.
ALONE_FROM = 128 * 1024
TRIM_FROM = 32 * 1024  # after a tree this large (20 MB), a worker hands the memory back to the system
_turns: Turns | None = None  # in pool workers


class Turns:
    """Lets the pool's workers analyze files side by side, except one whose tree will be large: that
    one waits until no other file is being analyzed, and no other starts until it is done."""

    def __init__(self) -> None:
        import multiprocessing

        self._changed = multiprocessing.Condition()
        self._running = multiprocessing.RawValue("i", 0)  # files being analyzed
        self._alone = multiprocessing.RawValue("i", 0)  # 1 while a large one waits or is analyzed

    @contextmanager
    def turn(self, alone: bool) -> Iterator[None]:
        changed, running, flag = self._changed, self._running, self._alone
        if flag.value:
            _release_memory()  # before the wait for a large tree elsewhere (outside the lock: it takes time)
        with changed:
            changed.wait_for(lambda: not flag.value)
            if alone:
                flag.value = 1
                changed.wait_for(lambda: not running.value)
            running.value += 1
        try:
            yield
        finally:
            with changed:
                running.value -= 1
                if alone:
                    flag.value = 0
                changed.notify_all()


@contextmanager
def _memory_turn(size: int) -> Iterator[None]:
    """Around the parse and walk of a file whose largest tree is of `size` characters of source."""
    if _turns is None:
        yield
    else:
        with _turns.turn(alone=size >= ALONE_FROM):
            yield
    if size >= TRIM_FROM:
        _release_memory()


def _init_worker(turns: Turns | None) -> None:
    global _turns
    _turns = turns


def _release_memory() -> None:
    """Hand freed heap back to the system (glibc keeps it otherwise, and a worker's size would stay at
    its largest file's for the rest of the run)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def _analyze_path(args: tuple[Path, str, str | None, int]) -> FileResult:
    """Read, analyze and cache one file. Never raises: a worker that raised would lose its batch."""
    path, module, cache_dir, max_size = args
    try:
        return _analyze_file(path, module, cache_dir, max_size)
    except Exception as exc:  # pragma: no cover - analyze_source reports its own errors
        result = FileResult(path=path, module=module)
        result.errors.append(_internal_error(path, exc))
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


# ---------------------------------------------------------------------- discovery
def discover(paths: list[Path], config: Config, notes: list[str] | None = None) -> list[Path]:
    """Python files under the paths, minus excluded and git-ignored ones.

    A file named explicitly is linted even when an exclude pattern or .gitignore covers it, as ruff
    and flake8 do. A path that is neither a file nor a directory (a broken link, a symlink loop) is
    kept, so that reading it reports why. `notes` receives a line for each named directory that gives
    no file to lint, saying why."""
    named: list[Path] = []
    under: dict[Path, list[Path]] = {}
    for path in paths:
        if not path.is_dir():
            named.append(path)
            continue
        # Patterns apply below the project root, or below the directory named
        # when it lies outside the root, never to the folders above it.
        anchor = config.root if _is_within(path, config.root) else path
        found = under.setdefault(path, [])
        # The walk root's path relative to the anchor is resolved once; below it, paths are joined as
        # the walk gives them (it does not enter linked folders).
        top = _rel(path, anchor)
        top = "" if top == "." else top + "/"
        for dirpath, dirnames, filenames in os.walk(path):
            base = Path(dirpath)
            inner = os.path.relpath(dirpath, path)
            prefix = top if inner == "." else f"{top}{Path(inner).as_posix()}/"
            dirnames[:] = sorted(d for d in dirnames if not config.is_excluded(prefix + d))
            for name in sorted(filenames):
                if name.endswith(".py") and not config.is_excluded(prefix + name):
                    found.append(base / name)
    ignored = git_ignored([f for files in under.values() for f in files]) if config.respect_gitignore else set()
    out = list(named)
    for path, files in under.items():
        kept = [f for f in files if f not in ignored]
        out.extend(kept)
        if notes is None or kept:
            continue
        if files:
            notes.append(f"{path}: all {len(files)} Python file{'s' * (len(files) != 1)} here are ignored by git; "
                         f"name them, or set `respect-gitignore = false` in [tool.breaklint]")
        else:
            notes.append(f"{path}: no Python files to check here (none, or all excluded by `exclude`)")
    return list(dict.fromkeys(out))


def _is_within(path: Path, root: Path) -> bool:
    try:
        _real(path).relative_to(_real(root))
    except ValueError:
        return False
    return True


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))  # unlike Path.resolve, never raises on a symlink loop


def _rel(path: Path, root: Path) -> str:
    return relative_posix(path, root) or path.as_posix()


def git_ignored(paths: list[Path]) -> set[Path]:
    """The paths that git ignores, asked of the repository holding the first one (absolute paths, so
    that git's working directory does not change what a relative path means)."""
    if not paths:
        return set()
    absolute = {str(p.absolute()): p for p in paths}
    first = paths[0].absolute().parent
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="\0".join(absolute).encode(),
            capture_output=True, timeout=30, cwd=first if first.exists() else None,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):
        return set()  # not a git repository, or git could not answer
    return {absolute[p] for p in proc.stdout.decode(errors="surrogateescape").split("\0") if p in absolute}


# ---------------------------------------------------------------------- the run
def lint(paths: list[Path], config: Config, jobs: int | None = None, use_cache: bool = True) -> LintResult:
    notes: list[str] = []
    files = discover(paths, config, notes)
    cache_dir = None
    if use_cache:
        base = Path(config.cache_dir) if config.cache_dir else config.root / ".breaklint_cache"
        cache_dir = str(base / f"v{__version__}-{config.fingerprint()}")
        _write_gitignore(base)
    # Cache hits are read here: a warm run starts no workers and sends nothing between processes. When
    # no file changed since the same invocation last ran, its whole result is one small entry.
    found = [(p, module_name_for(p)) for p in files]
    limit = config.max_file_size
    entries = [_entry(p, mod, cache_dir, limit) for p, mod in found]
    run_entry = state = None
    if cache_dir is not None and all(entries):
        run_entry = cache.run_entry_path(cache_dir, [str(config.root), *map(str, files)])
        state = cache.run_state(entries, str(config.root))
        record = cache.read_run(run_entry, state)
        if record is not None and record.files == files:
            return LintResult(findings=record.findings, files=record.files, errors=record.errors,
                              reached=set(record.reached), digests={Path(k): v for k, v in record.digests.items()},
                              notes=notes)
    results: list[FileResult | None] = [
        cache.read(entry, FileResult, p, mod) if entry is not None else None
        for entry, (p, mod) in zip(entries, found)]
    work = [(p, mod, cache_dir, limit) for (p, mod), res in zip(found, results) if res is None]
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    sizes = [_size(item[0]) for item in work]
    if jobs > 1 and len(work) > 1 and sum(sizes) >= PARALLEL_BYTES:
        fresh = iter(_analyze_in_pool(work, jobs, sizes))
        results = [res if res is not None else next(fresh) for res in results]
    else:
        results = [res if res is not None else _analyze_path((p, mod, cache_dir, limit))
                   for res, (p, mod) in zip(results, found)]
    result = combine(results, config)
    result.notes = notes
    if run_entry is not None and state is not None:
        record = cache.RunRecord(state=state, findings=result.findings, errors=result.errors, files=result.files,
                                 digests={str(k): v for k, v in result.digests.items()},
                                 reached=sorted(result.reached))
        cache.write_atomic(run_entry, cache.dumps(record))
    return result


def _schedule(sizes: list[int]) -> list[int]:
    """The order to hand files to the workers: largest first, so that no worker is left with a big file
    at the end, and so that the files that may have to be analyzed alone come while the results held
    by the parent are still few."""
    return sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _analyze_in_pool(work: list[tuple[Path, str, str | None, int]], jobs: int,
                     sizes: list[int]) -> list[FileResult]:
    """Each file's result (in the order of `work`), from `jobs` worker processes, fed the largest files
    first so that no worker is left with a big file at the end. The walk's modules are imported before
    the workers fork, so that each does not import them again. A worker that dies (a crash in native
    code) loses only its own file: the files not yet done are analyzed again, each in a process of its
    own, and one whose process dies again is reported as BL004."""
    from .analysis import context, positions, walk  # noqa: F401 - imported once, inherited by the workers
    from .rules import load_rules

    load_rules()
    order = _schedule(sizes)
    large = any(size >= ALONE_FROM for size in sizes)
    done: dict[int, FileResult] = {}
    try:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(Turns() if large else None,)) as pool:
            chunk = 1 if large else max(1, min(8, len(work) // (jobs * 16)))
            for i, res in zip(order, pool.map(_analyze_path, [work[i] for i in order], chunksize=chunk)):
                done[i] = res
    except BrokenProcessPool:
        for i in order:
            if i in done:
                continue
            try:
                with ProcessPoolExecutor(max_workers=1) as alone:
                    done[i] = alone.submit(_analyze_path, work[i]).result()
            except BrokenProcessPool:
                path, module = work[i][0], work[i][1]
                crashed = FileResult(path=path, module=module)
                crashed.errors.append(_engine_finding(
                    "BL004", path, "could not analyze: the process analyzing this file crashed (in native "
                                   "code, most likely libcst's parser)"))
                done[i] = crashed
    return [done[i] for i in range(len(work))]


def _write_gitignore(base: Path) -> None:
    marker = base / ".gitignore"
    if not marker.exists():
        cache.write_atomic(marker, b"# created by breaklint\n*\n")


def combine(results: list[FileResult], config: Config) -> LintResult:
    summaries = [r.summary for r in results if r.summary is not None]
    reach = Reach(summaries, config.module_bases, config.entry_points)
    values = Values(reach)
    enabled = config.enabled_codes()
    disabled_rule = rule_info("BL410") if "BL410" in CATALOG else None
    extra: dict[Path, list[Candidate]] = {}
    if disabled_rule is not None:
        by_module = {r.module: r for r in results if r.summary is not None}
        for caller, call, target in reach.disabled_calls:
            module = max((mod for mod in by_module if caller.startswith(mod + ".")), key=len, default=None)
            if module is None:
                continue
            res = by_module[module]
            short = target.rsplit(".", 1)[-1]
            finding = Finding(
                code=disabled_rule.code, kind=disabled_rule.kind,
                message=f"call to `{short}`, which is excluded from compilation "
                        f"(`torch.compiler.disable`): dynamo breaks the graph around it",
                suggestion=disabled_rule.suggestion, path=res.path, line=call.line, col=call.col,
                end_line=call.end_line, end_col=call.end_col, gb_types=disabled_rule.gb_types,
            )
            extra.setdefault(res.path, []).append(Candidate(caller, finding, call.line, call.end_line))
    findings: list[Finding] = []
    errors: list[Finding] = []
    for res in results:
        rel = _rel(res.path, config.root)
        file_ignores = config.ignored_for(rel)
        allowed = {c for c in enabled if not any(c.startswith(i) for i in file_ignores)}
        for err in res.errors:
            # an internal error is never silent: no selection or ignore hides that a file went unchecked
            if err.code in allowed or err.code == "BL003":
                errors.append(err)
        seen: set[tuple] = set()
        candidates = []
        for cand in [*res.candidates, *extra.get(res.path, [])]:
            f = cand.finding
            key = (f.code, f.line, f.col, f.end_line, f.end_col)
            if cand.scope in reach.reached and f.code in allowed and key not in seen and (
                    cand.requires is None or values.resolve(cand.requires).is_tensor):
                seen.add(key)
                if f.fix is not None and cand.fix_needs and not all(
                        values.resolve(need).known_tensor for need in cand.fix_needs):
                    # the finding stands on an assumed tensor; its rewrite needs a known one
                    cand = dataclasses.replace(cand, finding=dataclasses.replace(f, fix=None))
                candidates.append(cand)
        kept, unused = suppress.apply(candidates, res.suppressions)
        findings.extend(c.finding for c in kept)
        if "BL002" in allowed:
            for line, code, style in unused:
                if not any(a.startswith(code) for a in allowed):
                    continue
                marker = "breaklint: ignore" if style == "breaklint" else "noqa"
                findings.append(_engine_finding(
                    "BL002", res.path, f"unused suppression `{marker}` for {code}: nothing is reported here",
                    line))
    findings.sort(key=Finding.sort_key)
    errors.sort(key=Finding.sort_key)
    return LintResult(findings=findings, files=[r.path for r in results], errors=errors, reached=reach.reached,
                      digests={r.path: r.digest for r in results if r.digest})


def lint_source(source: str, path: Path = Path("<string>"), config: Config | None = None) -> list[Finding]:
    """Lint one piece of source on its own; handy in tests and editors."""
    config = config or Config()
    result = combine([analyze_source(source, path, path.stem)], config)
    return result.all
