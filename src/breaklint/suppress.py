"""Suppression comments: `# breaklint: ignore[BL101,BL2]`, `# noqa: BL101`, `# breaklint: skip-file`.

The comments are collected from the CST during the file's one walk (see
`FileContext.visit_Comment`); a suppression covers the findings of the
statement whose lines it sits on, so it works on multi-line statements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .analysis.summary import Candidate

_IGNORE = re.compile(r"#\s*breaklint\s*:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.I)
_NOQA = re.compile(r"#\s*noqa\b(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*breaklint[ \t]*:[ \t]*skip-file\b", re.M | re.I)


def parse_comment(text: str) -> tuple[frozenset[str] | None, str] | None:
    """(codes, style) for a suppression comment; codes None means every code."""
    match = _IGNORE.search(text)
    if match:
        codes = match.group("codes")
        return (_split(codes) if codes is not None else None, "breaklint")
    match = _NOQA.search(text)
    if match:
        codes = match.group("codes")
        if codes is None:
            return (None, "noqa")
        ours = frozenset(c for c in _split(codes) if c.startswith("BL"))
        return (ours, "noqa") if ours else None
    return None


def _split(codes: str) -> frozenset[str]:
    return frozenset(c.strip().upper() for c in re.split(r"[\s,]+", codes) if c.strip())


_MARKER = re.compile(r"breaklint|noqa", re.I)


def may_suppress(source: str) -> bool:
    """Whether the file could hold a suppression comment at all (when not, its comments are not read)."""
    return _MARKER.search(source) is not None


def skips_file(source: str) -> bool:
    return _SKIP_FILE.search(source) is not None


def _matches(code: str, codes: frozenset[str] | None) -> bool:
    return codes is None or any(code.startswith(c) for c in codes)


def apply(
    candidates: Iterable[Candidate],
    suppressions: list[tuple[int, frozenset[str] | None, str]],
) -> tuple[list[Candidate], list[tuple[int, str, str]]]:
    """Drop suppressed candidates. Returns the kept ones and the unused suppressions
    as (line, code-or-*, style) for the `breaklint: ignore[...]` comments that named codes."""
    by_line: dict[int, list[tuple[frozenset[str] | None, str]]] = {}
    for line, codes, style in suppressions:
        by_line.setdefault(line, []).append((codes, style))
    used: set[tuple[int, str]] = set()
    kept: list[Candidate] = []
    for cand in candidates:
        code = cand.finding.code
        hit = False
        for line in range(cand.stmt_start, cand.stmt_end + 1):
            for codes, _style in by_line.get(line, ()):
                if _matches(code, codes):
                    hit = True
                    for c in codes or ("*",):
                        if _matches(code, frozenset([c])) or c == "*":
                            used.add((line, c))
        if not hit:
            kept.append(cand)
    unused = []
    for line, codes, style in suppressions:
        if codes is None:
            continue
        for c in sorted(codes):
            if (line, c) not in used:
                unused.append((line, c, style))
    return kept, unused
