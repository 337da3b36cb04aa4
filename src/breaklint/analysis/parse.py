"""From source text to libcst trees, within bounds: Python's own verdict on the syntax first (BL001 in
Python's words), libcst's parse (BL004 where it cannot read what Python accepts), large files in
pieces of module-level statements, bulky generated data blanked, and very deep trees walked on a
thread with a large stack. Asked by `analyze.py`.
"""

from __future__ import annotations

import ast
import re
import sys
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import _engine_finding
from ..finding import Finding
from ..source import line_starts


if TYPE_CHECKING:
    import libcst as cst


_LIBCST_AT = re.compile(r"error at (\d+):(\d+)")


class _Unparsable(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


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
    bodies of defs and classes that take more than one statement replaced by `...`, but for a function
    that declares a name `global`: what the context reads of a module before the walk: imports, names,
    one-line helpers, module-level values, what a function binds at module level), and its
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
    # outline: the body lines of each outermost multi-statement def and class give way to one `...`,
    # except a module-level function's that binds a module-level name (`global _C`): a module-level fact
    kept = {id(stmt) for stmt in tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(isinstance(inner, ast.Global) for inner in ast.walk(stmt))}
    hollow: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.end_lineno \
                and id(node) not in kept \
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
