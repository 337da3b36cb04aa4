"""The dynamic pass: ask dynamo itself where a model's graph breaks.

torch is imported lazily, here only, so the static pass never needs it.
Each break comes from two sources, merged: `torch._dynamo.explain`'s break
reasons, and the `graph_breaks` logging artifact, which also reports breaks in
frames that dynamo skips whole (a data-dependent `if` inside a loop gives no
graph and no break reason to explain).
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

_GB_URL = re.compile(r"gb/gb(\d{4})\.html", re.I)
_AT = re.compile(r"Graph break (?:\(user stack suppressed[^)]*\) )?in user code at (.+):(\d+)")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$', re.M)


@dataclass
class Break:
    """One graph break dynamo reported."""

    reason: str
    gb_type: str | None  # "GB0170", when the installed torch names it
    frames: list[tuple[str, int]] = field(default_factory=list)  # outermost first

    def site(self, within: Callable[[str], bool]) -> tuple[str, int] | None:
        """The innermost frame for which `within(filename)` holds."""
        for filename, line in reversed(self.frames):
            if within(filename):
                return filename, line
        return None


@cache
def registry() -> dict[str, dict]:
    """The installed torch's graph-break registry: GB code -> its first entry."""
    import torch

    path = Path(torch.__file__).parent / "_dynamo" / "graph_break_registry.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {code: entries[0] for code, entries in data.items() if entries}


def gb_for_reason(reason: str) -> str | None:
    match = _GB_URL.search(reason)
    if match:
        return f"GB{match.group(1)}"
    first = reason.strip().splitlines()[0].strip() if reason.strip() else ""
    for code, entry in registry().items():
        if entry.get("Gb_type") and entry["Gb_type"] == first:
            return code
    return None


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.endswith("__graph_breaks"):
            try:
                self.messages.append(record.getMessage())
            except Exception:  # a broken log record must not end the run
                pass


def _parse_log(message: str) -> Break:
    frames = [(f, int(n)) for f, n, _ in _FRAME.findall(message)]
    at = _AT.search(message)
    if at and (not frames or frames[-1] != (at.group(1), int(at.group(2)))):
        frames.append((at.group(1), int(at.group(2))))
    reason_match = re.search(r"Graph Break Reason:(.*?)(?:\nUser code traceback:|\Z)", message, re.S)
    reason = reason_match.group(1).strip() if reason_match else message.strip()
    return Break(reason=reason, gb_type=gb_for_reason(message), frames=frames)


def collect_breaks(fn: Any, args: tuple = (), kwargs: dict | None = None) -> tuple[list[Break], Any]:
    """Run `fn(*args, **kwargs)` under `torch._dynamo.explain` and return its breaks and the explain output."""
    import torch
    import torch._dynamo as dynamo

    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    collector = _Collector()
    dynamo_logger = logging.getLogger("torch._dynamo")
    dynamo.reset()
    try:
        torch._logging.set_logs(graph_breaks=True)
    except Exception:  # very old torch: explain's reasons only
        pass
    dynamo_logger.addHandler(collector)
    try:
        output = dynamo.explain(fn)(*args, **(kwargs or {}))
    finally:
        dynamo_logger.removeHandler(collector)
        try:
            torch._logging.set_logs()
        except Exception:
            pass
    breaks = [_parse_log(m) for m in collector.messages]
    logged = {b.frames[-1] for b in breaks if b.frames}
    for reason in getattr(output, "break_reasons", []) or []:
        stack = getattr(reason, "user_stack", None) or []
        frames = [(fs.filename, fs.lineno) for fs in stack]
        if frames and frames[-1] in logged:
            continue
        text = getattr(reason, "reason", str(reason))
        breaks.append(Break(reason=text, gb_type=gb_for_reason(text), frames=frames))
    return breaks, output


def in_file(path: Path) -> Callable[[str], bool]:
    target = os.path.realpath(path)
    return lambda filename: os.path.realpath(filename) == target
