"""A finding's stable identity: what is flagged, not where, so that moving unrelated lines keeps it.

Shared by SARIF's `partialFingerprints` (code scanning matches alerts across commits with it) and by
the baseline (`--write-baseline` / `--baseline`). A fingerprint hashes the code, the file's path
relative to a root, the flagged line and the flagged text (whitespace-normalized), and counts
repeats of the same key in order, so two identical `.item()` lines in one file stay two entries.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path

from .finding import Finding
from .source import decode_source, relative_posix, source_lines, span_text


class Sources:
    """Lines of the files findings point into, read once each (as Python decodes them)."""

    def __init__(self) -> None:
        self._lines: dict[Path, list[str]] = {}

    def lines(self, path: Path) -> list[str]:
        if path not in self._lines:
            try:
                self._lines[path] = source_lines(decode_source(path.read_bytes()))
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                self._lines[path] = []
        return self._lines[path]

    def span(self, f: Finding) -> str:
        return span_text(self.lines(f.path), f.line, f.col, f.end_line, f.end_col)

    def line(self, f: Finding) -> str:
        lines = self.lines(f.path)
        return lines[f.line - 1] if 0 < f.line <= len(lines) else ""


def relative_uri(path: Path, root: Path) -> tuple[str, bool]:
    """`path` as a POSIX path relative to `root` (True), or as a file URI when it lies outside (False)."""
    relative = relative_posix(path, root)
    return (relative, True) if relative is not None else (Path(os.path.realpath(path)).as_uri(), False)


class Fingerprinter:
    """Fingerprints of findings taken in their sort order (`Finding.sort_key`)."""

    def __init__(self, root: Path, sources: Sources | None = None) -> None:
        self.root = root
        self.sources = sources or Sources()
        self._seen: Counter = Counter()

    def __call__(self, f: Finding, uri: str | None = None) -> str:
        uri = uri if uri is not None else relative_uri(f.path, self.root)[0]
        line = " ".join(self.sources.line(f).split())
        span = " ".join(self.sources.span(f).split())
        key = f"{f.code}\0{uri}\0{line}\0{span}"
        self._seen[key] += 1
        digest = hashlib.sha256(f"{key}\0{self._seen[key]}".encode()).hexdigest()[:32]
        return f"{digest}:{self._seen[key]}"


def fingerprints(findings: list[Finding], root: Path) -> list[tuple[Finding, str]]:
    """Every finding with its fingerprint, in sort order."""
    take = Fingerprinter(root)
    return [(f, take(f)) for f in sorted(findings, key=Finding.sort_key)]
