"""The edit applier: applies fixes to a file's text (overlapping edits wait for the next round, a
result that does not parse is rolled back fix by fix), and reads and writes sources atomically,
keeping encoding, line endings and permissions. Asked by `--fix`, `--diff` and the tests.
"""

from __future__ import annotations

import codecs
import difflib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from ..finding import Edit, Finding, Fix
from ..source import decode_source, line_starts


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


def unified_diff(change: FileFix, label: str) -> str:
    return "".join(difflib.unified_diff(change.before.splitlines(keepends=True),
                                        change.after.splitlines(keepends=True),
                                        fromfile=f"a/{label}", tofile=f"b/{label}"))
