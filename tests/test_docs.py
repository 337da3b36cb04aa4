"""Rule docs: one per code, the required sections, and examples that behave as they say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from breaklint.config import Config
from breaklint.engine import lint_source
from breaklint.registry import all_codes, docs_dir, rule_doc
from breaklint.rules import load_rules

from conftest import run_cli

REQUIRED = ["## What it does", "## Why is this bad?", "## Example", "## Use instead"]
RULE_CODES = sorted(load_rules())


def _block(doc: str, heading: str) -> str:
    section = doc.split(heading, 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"no python block under {heading}"
    return match.group(1)


@pytest.mark.parametrize("code", all_codes())
def test_doc_has_required_sections(code: str) -> None:
    doc = rule_doc(code)
    assert doc.startswith("# ")
    positions = [doc.find(h) for h in REQUIRED]
    assert all(p >= 0 for p in positions), f"{code}: missing {[h for h, p in zip(REQUIRED, positions) if p < 0]}"
    assert positions == sorted(positions), f"{code}: sections out of order"
    if code in load_rules():
        rule = load_rules()[code]
        assert f"({code})" in doc.splitlines()[0] and rule.NAME in doc.splitlines()[0]
        for gb in rule.GB_TYPES:
            assert gb in doc, f"{code}: References should name {gb}"


@pytest.mark.parametrize("code", RULE_CODES)
def test_example_fires_and_use_instead_does_not(code: str) -> None:
    doc = rule_doc(code)
    config = Config(select=[code], target_python="3.11")  # (BL439 speaks of Python 3.11 and older)
    bad = {f.code for f in lint_source(_block(doc, "## Example"), Path("example.py"), config)}
    good = {f.code for f in lint_source(_block(doc, "## Use instead"), Path("instead.py"), config)}
    assert code in bad, f"{code}: its Example does not fire"
    assert code not in good, f"{code}: its Use instead fires"


def test_no_stray_docs() -> None:
    docs = {p.stem for p in docs_dir().glob("BL*.md")}
    assert docs == set(all_codes())


def test_rule_command_prints_doc() -> None:
    proc = run_cli("rule", "bl101")
    assert proc.returncode == 0
    assert proc.stdout.startswith(rule_doc("BL101"))
    assert proc.stdout[len(rule_doc("BL101")):].startswith("\n## Calibration")


def test_rule_command_unknown_code() -> None:
    proc = run_cli("rule", "BL999")
    assert proc.returncode == 2
    assert "unknown rule code" in proc.stderr


def test_rules_command_lists_every_code() -> None:
    proc = run_cli("rules")
    assert proc.returncode == 0
    listed = [line.split()[0] for line in proc.stdout.splitlines()]
    assert listed == all_codes()
    assert "off by default" in next(l for l in proc.stdout.splitlines() if l.startswith("BL502"))


def test_rules_with_fixes_document_their_safety() -> None:
    from breaklint.dynamic.calibrate import static_findings

    from conftest import FIXTURES

    fixable = {f.code for p in FIXTURES.glob("BL*.py") for f in static_findings(p) if f.fix is not None}
    assert fixable
    for code in sorted(load_rules()):
        doc = rule_doc(code)
        if code in fixable:
            assert "## Fix safety" in doc, f"{code} has a fix but no Fix safety section"
            safe = {f.fix.safe for p in FIXTURES.glob(f"{code}*.py") for f in static_findings(p) if f.fix}
            words = {frozenset({True}): "fix is safe", frozenset({False}): "fix is unsafe"}.get(
                frozenset(safe), "a safe fix (`--fix`) in one form and an unsafe one")
            assert words in doc.split("## Fix safety", 1)[1], f"{code}: Fix safety should say {words!r}"
        else:
            assert "## Fix safety" not in doc, f"{code} documents a fix it does not have"
