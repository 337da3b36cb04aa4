"""The one type every pass and every reporter exchanges."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

Kind = Literal["break", "hazard", "error", "notice"]
Origin = Literal["static", "dynamic"]


@dataclass(frozen=True)
class Edit:
    """A text replacement: the span [line:col, end_line:end_col) becomes ``content``."""

    line: int
    col: int
    end_line: int
    end_col: int
    content: str


@dataclass(frozen=True)
class Fix:
    """A rewrite of one finding: text edits that do not overlap, all in the finding's file.

    ``safe`` fixes keep eager behaviour exactly (`--fix` applies them); unsafe
    ones may change it and need a human's review (`--unsafe-fixes`).
    """

    title: str
    edits: tuple[Edit, ...]
    safe: bool

    @property
    def applicability(self) -> str:
        return "safe" if self.safe else "unsafe"


@dataclass(frozen=True)
class Finding:
    code: str
    kind: Kind
    message: str
    suggestion: str
    path: Path
    line: int  # 1-based
    col: int  # 0-based, as libcst reports it
    end_line: int
    end_col: int
    origin: Origin = "static"
    status: str | None = None  # confirmed / not-reproduced / not-run / dynamic-only
    fix: Fix | None = None
    gb_types: tuple[str, ...] = field(default=())
    # What dynamo decides while tracing that must hold for this to happen (`self.training`,
    # `x.dtype == torch.float16`); empty when it happens whatever the inputs.
    condition: str = ""
    # The part of `condition` that the calls reaching this code are made under (`self.training` around
    # `self.loss(...)` in forward): compile reaches the function only when it holds.
    reached_when: str = ""
    # The dynamo settings this verdict depends on (`capture_scalar_outputs`, ...): a setting that
    # the project turns on would remove it, or it is a break only because one is on.
    settings: tuple[str, ...] = field(default=())
    # What the calibration says about torch releases where they differ ("breaks on torch >= 2.12")
    torch: str = ""

    def sort_key(self) -> tuple:
        return (str(self.path), self.line, self.col, self.code, self.message)

    def with_path(self, path: Path) -> "Finding":
        return replace(self, path=path)

    def to_dict(self) -> dict:
        return {
            "path": self.path.as_posix(),
            "line": self.line,
            "column": self.col + 1,
            "end_line": self.end_line,
            "end_column": self.end_col + 1,
            "code": self.code,
            "kind": self.kind,
            "message": self.message,
            "suggestion": self.suggestion,
            "origin": self.origin,
            "status": self.status,
            "gb_types": list(self.gb_types),
            "condition": self.condition,
            "reached_when": self.reached_when,
            "settings": list(self.settings),
            "torch": self.torch,
            "fix": None if self.fix is None else {
                "title": self.fix.title,
                "applicability": self.fix.applicability,
                "edits": [{"line": e.line, "column": e.col + 1, "end_line": e.end_line,
                           "end_column": e.end_col + 1, "content": e.content} for e in self.fix.edits],
            },
        }
