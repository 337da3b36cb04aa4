"""Reporters: one module per output format, each turning findings into text."""

from __future__ import annotations

import os
from pathlib import Path

from ..finding import Finding


def display_path(path: Path) -> str:
    """A path relative to the working directory where it lies under it, with forward slashes."""
    try:
        rel = Path(os.path.relpath(os.path.realpath(path), os.path.realpath(Path.cwd())))
    except ValueError:
        return path.as_posix()
    return rel.as_posix() if not rel.as_posix().startswith("../") else path.as_posix()


def relative(findings: list[Finding]) -> list[Finding]:
    return [f.with_path(Path(display_path(f.path))) for f in findings]
