"""Human-readable output: `path:line:col: CODE message`, then the suggestion."""

from __future__ import annotations

from collections import Counter

import click

from ..finding import Finding
from ..registry import code_info

KIND_COLOURS = {"break": "red", "hazard": "yellow", "error": "magenta", "notice": "cyan"}


def render(findings: list[Finding], colour: bool = False, show_suggestion: bool = True) -> str:
    out: list[str] = []
    for f in findings:
        where = f"{f.path.as_posix()}:{f.line}:{f.col + 1}:"
        code = f.code
        if colour:
            where = click.style(where, bold=True)
            code = click.style(code, fg=KIND_COLOURS.get(f.kind, "red"), bold=True)
        status = f" [{f.status}]" if f.status else ""
        out.append(f"{where} {code} {f.message}{status}")
        if show_suggestion and f.suggestion:
            hint = f"  help: {f.suggestion}"
            out.append(click.style(hint, dim=True) if colour else hint)
    return "\n".join(out) + ("\n" if out else "")


def summary(findings: list[Finding], files: int) -> str:
    kinds = Counter(f.kind for f in findings)
    if not findings:
        return f"No findings in {files} file{'s' * (files != 1)}."
    parts = [f"{kinds[k]} {k}{'s' * (kinds[k] != 1)}" for k in ("break", "hazard", "error", "notice") if kinds[k]]
    total = len(findings)
    return f"Found {total} finding{'s' * (total != 1)} ({', '.join(parts)}) in {files} file{'s' * (files != 1)}."


def fixable(findings: list[Finding], unsafe: bool) -> str:
    """How many findings `--fix` would fix ('' when none)."""
    safe = sum(1 for f in findings if f.fix is not None and f.fix.safe)
    risky = sum(1 for f in findings if f.fix is not None and not f.fix.safe)
    if unsafe:
        return f"{safe + risky} fixable with `--fix --unsafe-fixes`." if safe + risky else ""
    parts = [f"{safe} fixable with `--fix`"] if safe else []
    if risky:
        parts.append(f"{risky} more with `--fix --unsafe-fixes` (see them first with `--diff --unsafe-fixes`)")
    return "; ".join(parts) + "." if parts else ""


def statistics(findings: list[Finding]) -> str:
    counts = Counter(f.code for f in findings)
    lines = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        name, kind, _ = code_info(code) if _known(code) else (code, "", "")
        lines.append(f"{n:6d}  {code}  {kind:<7} {name}")
    return "\n".join(lines) + ("\n" if lines else "")


def _known(code: str) -> bool:
    try:
        code_info(code)
    except KeyError:
        return False
    return True
