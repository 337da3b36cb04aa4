"""Mechanical rewrites: built by rules as text edits, applied here.

Rules build a `Fix` while they walk the CST (the helpers below), so `--fix`,
`--diff` and SARIF `fixes` all use the same edits. Applying never corrupts a
file: edits that overlap an earlier fix wait for the next round, and a result
that does not parse is rolled back fix by fix.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from .context import dotted
from .source import decode_source, line_starts, span_text
from .finding import Edit, Finding, Fix

if TYPE_CHECKING:
    from .config import Config
    from .context import FileContext
    from .engine import LintResult


# ---------------------------------------------------------------------- building fixes (rules)
def torch_name(ctx: "FileContext") -> str | None:
    """The local name bound to the `torch` module (`import torch`, `import torch as t`)."""
    for local, full in sorted(ctx.aliases.items()):
        if full == "torch":
            return local
    return None


def text_of(ctx: "FileContext", node: cst.CSTNode) -> str:
    """The exact source text of a node, parentheses included."""
    pos = ctx.position(node)
    return span_text(ctx.lines, pos.start.line, pos.start.column, pos.end.line, pos.end.column)


def replace(ctx: "FileContext", node: cst.CSTNode, content: str, title: str, safe: bool) -> Fix:
    pos = ctx.position(node)
    return Fix(title=title, edits=(Edit(pos.start.line, pos.start.column, pos.end.line, pos.end.column,
                                        content),), safe=safe)


def guard_statement(ctx: "FileContext", call: cst.Call) -> Fix | None:
    """Put the statement `call` makes up behind `if not torch.compiler.is_compiling():`.

    Safe: eager runs it as before; dynamo treats the test as constant and skips
    the statement instead of breaking the graph. Offered only when the call is a
    whole statement on lines of its own and `torch` is imported as a module.
    """
    stmt = ctx.current_statement()
    torch = torch_name(ctx)
    if (torch is None or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1
            or not isinstance(stmt.body[0], cst.Expr) or stmt.body[0].value is not call):
        return None
    pos = ctx.position(stmt)
    indent = ctx.lines[pos.start.line - 1][:pos.start.column]
    if indent.strip():
        return None
    guard = f"if not {torch}.compiler.is_compiling():"
    edit = Edit(pos.start.line, pos.start.column, pos.start.line, pos.start.column,
                f"{guard}\n{indent}{ctx.indent_unit}")
    return Fix(title=f"guard with `{guard}`", edits=(edit,), safe=True)


def _single_assign(block: cst.BaseSuite) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    stmt = block.body[0]
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Assign)):
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value, assign.value


def branch_to_where(ctx: "FileContext", node: cst.If | cst.IfExp) -> Fix | None:
    """`a if c else b` -> `torch.where(c, a, b)`; `if c: y = a [else: y = b]` -> `y = torch.where(c, a, b|y)`.

    Unsafe: both sides are computed, and the result is a tensor broadcast from both.
    """
    torch = torch_name(ctx)
    if torch is None:
        return None
    comments = m.findall(node, m.Comment())
    title = f"select with `{torch}.where(cond, a, b)` instead of branching"
    if isinstance(node, cst.IfExp):
        if comments:
            return None
        content = (f"{torch}.where({text_of(ctx, node.test)}, {text_of(ctx, node.body)}, "
                   f"{text_of(ctx, node.orelse)})")
        return replace(ctx, node, content, title, safe=False)
    then = _single_assign(node.body)
    if then is None:
        return None
    # The comment on the `if` line moves to the new line; any other comment would be lost, so no fix.
    header = node.body.header.comment if isinstance(node.body, cst.IndentedBlock) else None
    if any(c is not header for c in comments):
        return None
    if node.orelse is None:
        otherwise: tuple[str, str] = (then[0], then[0])
    elif isinstance(node.orelse, cst.Else) and (other := _single_assign(node.orelse.body)) is not None:
        otherwise = (other[0], text_of(ctx, other[1]))
    else:
        return None
    if otherwise[0] != then[0]:
        return None
    content = f"{then[0]} = {torch}.where({text_of(ctx, node.test)}, {text_of(ctx, then[1])}, {otherwise[1]})"
    if header is not None:
        content += f"  {header.value}"
    return replace(ctx, node, content, title, safe=False)


def _raise_message(stmt: cst.Raise) -> str | None:
    """The message for `raise E("literal")` (its literal) or `raise E` / `raise E()` ("E raised"), as
    source text; None for a computed message (an f-string would format tensors at trace time)."""
    exc = stmt.exc
    if stmt.cause is not None or exc is None:
        return None
    name = dotted(exc.func if isinstance(exc, cst.Call) else exc)
    if not isinstance(exc, cst.Call) or not exc.args:
        return f'"{name} raised"' if name else None
    if len(exc.args) > 1:
        return None
    arg = exc.args[0]
    if arg.keyword is not None or arg.star or not isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    strings = m.findall(arg.value, m.SimpleString())
    if m.findall(arg.value, m.FormattedString()) or any("b" in s.prefix.lower() for s in strings):
        return None
    return cst.Module([]).code_for_node(arg.value)


def check_to_assert(ctx: "FileContext", node: cst.If) -> Fix | None:
    """`if <tensor cond>: raise E("msg")` -> `torch._assert_async(<not cond>, "msg")`.

    dynamo traces `torch._assert_async` as an operator, so the check stays in the graph. Unsafe: the
    failure is a RuntimeError instead of E, and on CUDA it is raised asynchronously (a device-side
    assert, at the next synchronization)."""
    torch = torch_name(ctx)
    if torch is None or node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    body = node.body.body
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1 \
            or not isinstance(body[0].body[0], cst.Raise):
        return None
    header = node.body.header.comment  # moves to the new line; any other comment would be lost: no fix
    if any(c is not header for c in m.findall(node, m.Comment())):
        return None
    message = _raise_message(body[0].body[0])
    if message is None:
        return None
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        holds = text_of(ctx, test.expression)
    else:
        holds = f"{torch}.logical_not({text_of(ctx, test)})"
    title = f"check with `{torch}._assert_async(cond, msg)` instead of branching to raise"
    content = f"{torch}._assert_async({holds}, {message})" + (f"  {header.value}" if header is not None else "")
    return replace(ctx, node, content, title, safe=False)


# ---------------------------------------------------------------------- applying fixes
def _span(starts: list[int], edit: Edit) -> tuple[int, int]:
    return starts[edit.line - 1] + edit.col, starts[edit.end_line - 1] + edit.end_col


def _conflict(one: tuple[int, int], other: tuple[int, int]) -> bool:
    """Spans that overlap, or an insertion inside or at either end of another span."""
    (a, b), (c, d) = one, other
    if a < d and c < b:
        return True
    return (a == b and c <= a <= d) or (c == d and a <= c <= b)


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def apply(text: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes that do not overlap one another; returns the new text and the fixes applied.

    Positions are those of `text`. Fixes that overlap an earlier one are left for
    a later round (after re-linting), and fixes that would leave the file unparsable
    are dropped.
    """
    starts = line_starts(text)
    chosen: list[tuple[Fix, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    for fix in sorted(fixes, key=lambda f: min((e.line, e.col) for e in f.edits)):
        spans = [(*_span(starts, e), e.content) for e in fix.edits]
        if any(_conflict((a, b), other) for a, b, _ in spans for other in taken):
            continue
        chosen.append((fix, spans))
        taken.extend((a, b) for a, b, _ in spans)

    def build(selected: list[tuple[Fix, list[tuple[int, int, str]]]]) -> str:
        out, last = [], 0
        for a, b, content in sorted((s for _, spans in selected for s in spans), key=lambda s: s[:2]):
            out.append(text[last:a])
            out.append(content)
            last = b
        out.append(text[last:])
        return "".join(out)

    new = build(chosen)
    if not _parses(new):
        kept: list[tuple[Fix, list[tuple[int, int, str]]]] = []
        for item in chosen:
            if _parses(build([*kept, item])):
                kept.append(item)
        chosen, new = kept, build(kept)
    return new, [fix for fix, _ in chosen]


@dataclass
class FileFix:
    path: Path
    before: str
    after: str
    applied: list[Fix]
    codes: list[str] = field(default_factory=list)  # the code of each applied fix's finding, in order


def selected(findings: list[Finding], unsafe: bool) -> dict[Path, list[Fix]]:
    by_path: dict[Path, list[Fix]] = {}
    for f in findings:
        if f.fix is not None and (f.fix.safe or unsafe):
            by_path.setdefault(f.path, []).append(f.fix)
    return by_path


def read_source(path: Path) -> str:
    """The file's text with its own line endings, decoded as Python decodes it (as the lint did)."""
    return decode_source(path.read_bytes())


def encode_source(data: bytes, text: str) -> bytes:
    """`text` in the encoding of the file whose bytes were `data`, its UTF-8 BOM kept."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    return text.encode(encoding)


class ChangedOnDisk(Exception):
    pass


def write_source(path: Path, expected: str, new: str) -> None:
    """Replace the file atomically, keeping its permissions, unless it changed since it was read."""
    data = path.read_bytes()
    if decode_source(data) != expected:
        raise ChangedOnDisk(str(path))
    mode = stat.S_IMODE(path.stat().st_mode)
    payload = encode_source(data, new)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp, mode)
        if read_source(path) != expected:
            raise ChangedOnDisk(str(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class FixRun:
    result: "LintResult"  # the findings left after fixing
    files: list[FileFix]
    fixed: int
    problems: list[str]  # files that could not be fixed, one line each


def run(paths: list[Path], config: "Config", *, unsafe: bool, write: bool, jobs: int | None = None,
        use_cache: bool = True, rounds: int = 8) -> FixRun:
    """Lint, apply fixes, lint again; repeat while fixes that waited on an overlap remain.

    With `write=False` nothing is written and only the first round is computed.
    """
    from .engine import lint

    result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    changes: dict[Path, FileFix] = {}
    problems: list[str] = []
    refused: set[Path] = set()
    fixed = 0
    for _ in range(rounds if write else 1):
        round_applied = 0
        code_of = {id(f.fix): f.code for f in result.all if f.fix is not None}
        for path, fixes in sorted(selected(result.all, unsafe).items()):
            if path in refused:
                continue
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() != result.digests.get(path):
                    raise ChangedOnDisk(str(path))
                before = decode_source(data)
                after, applied = apply(before, fixes)
                if not applied or after == before:
                    continue
                if write:
                    write_source(path, before, after)
            except ChangedOnDisk:
                problems.append(f"{path}: changed on disk while breaklint was running; not fixed")
                refused.add(path)
                continue
            except (OSError, UnicodeError, SyntaxError, LookupError) as exc:
                problems.append(f"{path}: cannot fix: {exc}")
                refused.add(path)
                continue
            entry = changes.setdefault(path, FileFix(path, before, after, []))
            entry.after = after
            entry.applied.extend(applied)
            entry.codes.extend(code_of.get(id(fix), "") for fix in applied)
            round_applied += len(applied)
        fixed += round_applied
        if not write or not round_applied:
            break
        result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    return FixRun(result=result, files=list(changes.values()), fixed=fixed, problems=problems)


def unified_diff(change: FileFix, label: str) -> str:
    return "".join(difflib.unified_diff(change.before.splitlines(keepends=True),
                                        change.after.splitlines(keepends=True),
                                        fromfile=f"a/{label}", tofile=f"b/{label}"))
