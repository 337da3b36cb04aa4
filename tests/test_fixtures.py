"""Every fixture: the static findings are exactly its `# expect:` markers, and its output matches the snapshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from breaklint.config import Config
from breaklint.dynamic.calibrate import expected_markers, static_findings
from breaklint.registry import all_codes
from breaklint.report import text

from conftest import FIXTURES, SNAPSHOTS

FIXTURE_FILES = sorted(FIXTURES.glob("BL*.py"))
# calibrated where other packages are installed (bench/external/*.py says how); their markers hold statically
EXTERNAL_FILES = sorted((FIXTURES.parent / "bench" / "external").glob("*.py"))


def fixture_findings(path: Path):
    """The static findings of a fixture, for code that runs on Python 3.11, whatever Python runs the
    tests (the fixtures were calibrated under dynamo on 3.11, where BL439's break happens)."""
    return static_findings(path, Config(select=["ALL"], root=path.parent, target_python="3.11"))


@pytest.mark.parametrize("path", FIXTURE_FILES + EXTERNAL_FILES, ids=lambda p: p.stem)
def test_findings_match_markers(path: Path) -> None:
    expected = expected_markers(path.read_text(encoding="utf-8"))
    found = {(f.line, f.code) for f in fixture_findings(path)}
    assert found == expected, f"unexpected: {sorted(found - expected)}; missing: {sorted(expected - found)}"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_snapshot(path: Path, update_snapshots: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES.parent)
    findings = [f.with_path(Path(os.path.relpath(f.path, FIXTURES.parent))) for f in fixture_findings(path)]
    rendered = text.render(findings)
    snapshot = SNAPSHOTS / f"{path.stem}.txt"
    if update_snapshots or not snapshot.exists():
        if not update_snapshots:
            pytest.fail(f"no snapshot {snapshot.name}: run pytest --update-snapshots")
        snapshot.parent.mkdir(exist_ok=True)
        snapshot.write_text(rendered, encoding="utf-8")
    assert rendered == snapshot.read_text(encoding="utf-8")


# BL003 needs a rule bug; BL900 comes only from the dynamic pass (tests/test_dynamic.py).
NO_FIXTURE = {"BL003", "BL900"}


def test_every_rule_has_a_fixture() -> None:
    have = {p.stem.split("_")[0] for p in FIXTURE_FILES}
    missing = [c for c in all_codes() if c not in have and c not in NO_FIXTURE]
    assert not missing, f"rules without a fixture: {missing}"


def test_fixture_markers_cover_every_rule() -> None:
    marked = {code for p in FIXTURE_FILES for _, code in expected_markers(p.read_text(encoding="utf-8"))}
    assert marked >= set(all_codes()) - NO_FIXTURE
