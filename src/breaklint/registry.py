"""What every code is, without importing the rules (or libcst): the catalog, the engine's codes, the docs.

Asked by the CLI, the configuration, the reports and the rules' base class. The rule classes
(`breaklint.rules.*`) are the source of truth; `_catalog.py` is generated from them
(`python -m breaklint.rules`) so that a warm run, `--version` and the reports never pay for importing
libcst. A test fails when the two disagree. This module imports nothing of the rules: they import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ._catalog import CATALOG

__all__ = ["CATALOG", "ENGINE_CODES", "RuleInfo", "all_codes", "code_info", "rule_info"]

# Codes the engine itself emits: they are not visitors, but select/ignore,
# suppressions, reports and `breaklint rule` treat them like any other code.
ENGINE_CODES = {
    "BL001": ("parse-error", "error", "The file could not be decoded or parsed"),
    "BL002": ("unused-suppression", "notice", "A suppression comment matches no finding"),
    "BL003": ("internal-error", "error", "A rule raised while checking the file"),
    "BL004": ("not-analyzed", "error", "Python accepts the file, but breaklint could not analyze it"),
    "BL900": ("dynamo-graph-break", "break", "Dynamo broke the graph where the static pass predicted nothing"),
}



class RuleInfo(NamedTuple):
    code: str
    name: str
    kind: str
    message: str
    suggestion: str
    gb_types: tuple[str, ...]
    default_enabled: bool
    precision: str


def rule_info(code: str) -> RuleInfo:
    """A rule's metadata (KeyError for an engine code or an unknown one)."""
    return RuleInfo(code, *CATALOG[code])


def rule_codes() -> list[str]:
    return sorted(CATALOG)


def all_codes() -> list[str]:
    return sorted([*CATALOG, *ENGINE_CODES])


def code_info(code: str) -> tuple[str, str, str]:
    """(name, kind, short description) for any code, rule or engine."""
    if code in ENGINE_CODES:
        return ENGINE_CODES[code]
    info = rule_info(code)
    return info.name, info.kind, info.message


def docs_dir() -> Path:
    """Where the rule docs are: inside the wheel, or `rules/` of a source checkout."""
    packaged = Path(__file__).with_name("_docs")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"


def rule_doc(code: str) -> str:
    path = docs_dir() / f"{code}.md"
    return path.read_text(encoding="utf-8")


def doc_section(code: str, heading: str) -> str:
    """The text under `## heading` in a rule's doc, without the heading ('' if absent)."""
    doc = rule_doc(code)
    marker = f"## {heading}\n"
    if marker not in doc:
        return ""
    body = doc.split(marker, 1)[1]
    return body.split("\n## ", 1)[0].strip()
