"""The engine's own findings about a file (BL001 a file Python rejects or that cannot be read, BL003 an
internal error, BL004 a file not analyzed), and the rule to blame for an internal error.
"""

from __future__ import annotations

from pathlib import Path

from .finding import Finding
from .registry import ENGINE_CODES


def _engine_finding(code: str, path: Path, message: str, line: int = 1, col: int = 0) -> Finding:
    name, kind, _ = ENGINE_CODES[code]
    return Finding(code=code, kind=kind, message=message, suggestion="", path=path,
                   line=line, col=col, end_line=line, end_col=col)


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


def _guess_failing_rule(exc: BaseException) -> str:
    tb = exc.__traceback__
    name = "the analysis"
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "CODE"):
            name = f"{owner.CODE} ({type(owner).__name__})"
        tb = tb.tb_next
    return name
