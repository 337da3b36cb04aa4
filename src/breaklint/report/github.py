"""GitHub Actions workflow commands: annotations on the pull request's diff."""

from __future__ import annotations

from ..finding import Finding
from ..registry import code_info

LEVELS = {"break": "warning", "hazard": "notice", "error": "error", "notice": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: list[Finding]) -> str:
    out = []
    for f in findings:
        try:
            name = code_info(f.code)[0]
        except KeyError:
            name = f.code
        props = ",".join([
            f"file={_escape_property(f.path.as_posix())}",
            f"line={f.line}",
            f"col={f.col + 1}",
            f"endLine={f.end_line}",
            f"endColumn={f.end_col + 1}",
            f"title={_escape_property(f'{f.code} {name}')}",
        ])
        message = f.message + (f"\nhelp: {f.suggestion}" if f.suggestion else "")
        out.append(f"::{LEVELS.get(f.kind, 'warning')} {props}::{_escape_data(message)}")
    return "\n".join(out) + ("\n" if out else "")
