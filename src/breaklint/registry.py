"""The rule registry: a plain dict from code to rule class, filled as rules are imported."""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

import libcst as cst

from .finding import Fix

if TYPE_CHECKING:
    from .context import FileContext
    from .values import Val

RULES: dict[str, type["Rule"]] = {}

# Codes the engine itself emits: they are not visitors, but select/ignore,
# suppressions, reports and `breaklint rule` treat them like any other code.
ENGINE_CODES = {
    "BL001": ("parse-error", "error", "The file could not be decoded or parsed"),
    "BL002": ("unused-suppression", "notice", "A suppression comment matches no finding"),
    "BL003": ("internal-error", "error", "A rule raised while checking the file"),
    "BL004": ("not-analyzed", "error", "Python accepts the file, but breaklint could not analyze it"),
    "BL900": ("dynamo-graph-break", "break", "Dynamo broke the graph where the static pass predicted nothing"),
}

_CODE = re.compile(r"^BL\d{3}$")


def register(cls: type["Rule"]) -> type["Rule"]:
    code = cls.CODE
    if not _CODE.match(code):
        raise ValueError(f"rule code {code!r} is not of the form BLnnn")
    if code in RULES or code in ENGINE_CODES:
        other = RULES.get(code)
        raise ValueError(f"duplicate rule code {code}: {cls.__name__} and {other.__name__ if other else 'engine'}")
    RULES[code] = cls
    return cls


class Rule(cst.BatchableCSTVisitor):
    """A rule: one code, one pattern. Instances live for one file only."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    KIND: ClassVar[Literal["break", "hazard"]]
    MESSAGE: ClassVar[str]  # short description; also the SARIF shortDescription
    SUGGESTION: ClassVar[str]
    GB_TYPES: ClassVar[tuple[str, ...]] = ()
    DEFAULT_ENABLED: ClassVar[bool] = True
    # How often a finding is right, in CodeQL's terms (very-high/high/medium/low):
    # "medium" where the rule relies on guessing which names hold tensors.
    PRECISION: ClassVar[str] = "high"

    def __init__(self, ctx: "FileContext") -> None:
        super().__init__()
        self.ctx = ctx

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        suggestion: str | None = None,
        fix: Fix | None = None,
        requires: "Val | None" = None,
        test: cst.BaseExpression | None = None,
    ) -> None:
        """Report at `node`. `requires`: the value (from `ctx.tensor_requirement`) that must be a
        tensor for this to break; a symbolic one is decided once the whole tree is known. `test`: the
        condition being reported, whose trace-time conjuncts (`self.training`, a dtype check) the
        finding then names."""
        self.ctx.add_finding(self, node, message, suggestion or self.SUGGESTION, fix, requires=requires, test=test)


@cache
def load_rules() -> dict[str, type[Rule]]:
    from . import rules as pkg

    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
    return dict(sorted(RULES.items()))


def all_codes() -> list[str]:
    return sorted([*load_rules(), *ENGINE_CODES])


def code_info(code: str) -> tuple[str, str, str]:
    """(name, kind, short description) for any code, rule or engine."""
    if code in ENGINE_CODES:
        return ENGINE_CODES[code]
    rule = load_rules()[code]
    return rule.NAME, rule.KIND, rule.MESSAGE


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
