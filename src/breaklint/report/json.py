"""JSON output: a list of findings (schema in the README)."""

from __future__ import annotations

import json

from ..finding import Finding


def render(findings: list[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"
