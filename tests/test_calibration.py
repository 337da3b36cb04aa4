"""Expectations come from dynamo: run every fixture's cases under torch._dynamo.explain.

For each fixture: every line marked with a `break` rule is a line where dynamo
really breaks on the installed torch, every line where dynamo breaks is marked,
no `hazard` line breaks, and dynamo's graph-break type is one the rule names.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from breaklint.calibration import PYTHON_BOUND  # noqa: E402
from breaklint.dynamic.calibrate import calibrate, expected_markers  # noqa: E402
from breaklint.dynamic.explain import registry  # noqa: E402
from breaklint.rules import load_rules  # noqa: E402

from conftest import FIXTURES  # noqa: E402

RUNNABLE = [p for p in sorted(FIXTURES.glob("BL*.py")) if "def cases(" in p.read_text(encoding="utf-8")]
pytestmark = pytest.mark.dynamo


@pytest.mark.parametrize("path", RUNNABLE, ids=lambda p: p.stem)
def test_markers_agree_with_dynamo(path: Path) -> None:
    rules = load_rules()
    markers = expected_markers(path.read_text(encoding="utf-8"))
    # a break only older Pythons have is no break on this one: dynamo must trace those lines here
    break_lines = {line for line, code in markers if code in rules and rules[code].KIND == "break"
                   and (code not in PYTHON_BOUND or sys.version_info[:2] < PYTHON_BOUND[code])}
    hazard_lines = {line for line, code in markers if code in rules and rules[code].KIND == "hazard"}
    cal = calibrate(path)
    assert break_lines == set(cal.sites), (
        f"marked as breaks but dynamo traced them: {sorted(break_lines - set(cal.sites))}; "
        f"dynamo broke but not marked: {sorted(set(cal.sites) - break_lines)}"
    )
    assert not hazard_lines & set(cal.sites), "a hazard line is a real graph break: make it a break rule"
    for line, code in markers:
        if line in cal.sites and code in rules and rules[code].KIND == "break":
            assert cal.sites[line] & set(rules[code].GB_TYPES), (
                f"line {line}: dynamo reported {cal.sites[line]}, {code} names {rules[code].GB_TYPES}"
            )


def test_rule_gb_types_exist_in_installed_registry() -> None:
    known = registry()
    assert len(known) > 100
    for code, rule in load_rules().items():
        for gb in rule.GB_TYPES:
            assert gb in known, f"{code} names {gb}, which torch {torch.__version__} does not know"


def test_a_case_dynamo_cannot_compile_counts_its_lines(tmp_path: Path) -> None:
    """A case whose compile fails (as some do under a setting) runs no compiled code: each of its
    lines counts as a break, and the other cases are still run."""
    fixture = tmp_path / "BL103.py"
    fixture.write_text(
        "import torch\n\n\n"
        "def fails(x):\n"
        "    raise ValueError('no')  # expect: BL103\n\n\n"
        "def fine(x):\n"
        "    return x * 2\n\n\n"
        "def cases():\n"
        "    return [(fails, (torch.ones(2),)), (fine, (torch.ones(2),))]\n",
        encoding="utf-8")
    cal = calibrate(fixture)
    assert set(cal.sites) == {4, 5}
    assert cal.sites[5] == {"error"}


def test_lines_name_each_break_and_a_setting_lifts_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`--lines` lists each line with the static pass's codes and dynamo's break types; `--set` patches a
    dynamo setting around the file, under which the same line traces."""
    from breaklint.dynamic.calibrate import main

    fixture = tmp_path / "BL101.py"
    fixture.write_text(
        "import torch\n\n\n"
        "@torch.compile\n"
        "def scale(x):\n"
        "    return x * x.sum().item()  # expect: BL101\n\n\n"
        "def cases():\n"
        "    return [(scale, (torch.ones(2),))]\n",
        encoding="utf-8")
    assert main(["--lines", str(fixture)]) == 0
    rows = [row.split() for row in capsys.readouterr().out.splitlines() if row.startswith("  ")]
    assert rows == [["6", "static", "BL101", "dynamo", "GB0124", "return", "x", "*", "x.sum().item()", "#",
                     "expect:", "BL101"]]
    assert main(["--lines", "--set", "capture_scalar_outputs=True", str(fixture)]) == 0
    rows = [row.split()[:5] for row in capsys.readouterr().out.splitlines() if row.startswith("  ")]
    assert rows == [["6", "static", "BL101", "dynamo", "-"]]
