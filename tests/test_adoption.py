"""Adopting breaklint on an existing code base: the baseline and `--add-noqa`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.adopt.baseline import add_noqa_text
from conftest import ROOT, run_cli

EXAMPLES = ROOT / "examples" / "models"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLES, root / "models")
    (root / "pyproject.toml").write_text("[tool.breaklint]\n", encoding="utf-8")
    return root


def codes(proc) -> list[tuple[str, int, str]]:
    return [(Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(proc.stdout)]


def test_a_baseline_hides_todays_findings_and_catches_a_new_one(project: Path) -> None:
    before = run_cli("--format", "json", "--no-cache", "models", cwd=project)
    assert before.returncode == 1 and len(codes(before)) >= 5
    wrote = run_cli("--no-cache", "--write-baseline", "breaks.json", "models", cwd=project)
    assert wrote.returncode == 0, wrote.stderr
    assert f"Wrote {len(codes(before))} findings to the baseline breaks.json." in wrote.stderr
    recorded = json.loads((project / "breaks.json").read_text())
    assert {e["path"] for e in recorded["findings"]} == {"models/detector.py", "models/transformer.py"}

    after = run_cli("--no-cache", "--baseline", "breaks.json", "models", cwd=project)
    assert after.returncode == 0, after.stdout + after.stderr
    assert f"{len(codes(before))} findings in the baseline breaks.json not shown" in after.stderr

    # Lines moved above every finding: still the same findings. One new break: only it is reported.
    model = project / "models" / "transformer.py"
    text = model.read_text()
    changed = text.replace("        return x\n", "        print(x)\n        return x\n", 1)
    model.write_text("# a new header comment\n\n" + changed)
    new = run_cli("--format", "json", "--no-cache", "--baseline", "breaks.json", "models", cwd=project)
    assert new.returncode == 1
    assert [c for _, _, c in codes(new)] == ["BL401"]


def test_fixed_findings_are_reported_as_stale_and_pruned_by_writing_again(project: Path) -> None:
    run_cli("--no-cache", "--write-baseline", "breaks.json", "models", cwd=project)
    detector = project / "models" / "detector.py"
    detector.write_text(detector.read_text().replace('        logger.debug("head output %s", scores.shape)\n', ""))
    proc = run_cli("--no-cache", "--baseline", "breaks.json", "models", cwd=project)
    assert proc.returncode == 0
    assert "1 baseline entry no longer matches (fixed or changed): prune with `--write-baseline" in proc.stderr
    run_cli("--no-cache", "--write-baseline", "breaks.json", "models", cwd=project)
    again = run_cli("--no-cache", "--baseline", "breaks.json", "models", cwd=project)
    assert "no longer match" not in again.stderr


def test_the_baseline_from_the_config_and_portable_across_checkouts(project: Path, tmp_path: Path) -> None:
    run_cli("--no-cache", "--write-baseline", "breaks.json", "models", cwd=project)
    (project / "pyproject.toml").write_text('[tool.breaklint]\nbaseline = "breaks.json"\n', encoding="utf-8")
    moved = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(project, moved)
    proc = run_cli("--no-cache", ".", cwd=moved / "models")  # run from a subdirectory, too
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(("content", "message"), [
    (None, "does not exist; record one with `--write-baseline"),
    ("not json", "is not JSON"),
    ('{"tool": "other", "format": 1, "findings": []}', "was not written by this breaklint"),
    ('{"tool": "breaklint", "format": 1, "findings": [{"code": "BL101"}]}', "must be a list of objects with a"),
])
def test_a_bad_baseline_is_a_usage_error(project: Path, content: str | None, message: str) -> None:
    if content is not None:
        (project / "breaks.json").write_text(content, encoding="utf-8")
    proc = run_cli("--no-cache", "--baseline", "breaks.json", "models", cwd=project)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_add_noqa_silences_every_finding_and_keeps_comments(project: Path) -> None:
    detector = project / "models" / "detector.py"
    detector.write_text(detector.read_text().replace(
        "        kept_boxes = boxes[0][keep]\n", "        kept_boxes = boxes[0][keep]  # only the first image\n"))
    first = run_cli("--format", "json", "--no-cache", "models", cwd=project)
    proc = run_cli("--no-cache", "--add-noqa", "models", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "Added noqa comments to" in proc.stderr
    assert "kept_boxes = boxes[0][keep]  # only the first image  # noqa: BL302" in detector.read_text()
    second = run_cli("--no-cache", "models", cwd=project)
    assert second.returncode == 0, second.stdout
    again = run_cli("--no-cache", "--add-noqa", "models", cwd=project)
    assert "Added noqa comments to 0 lines in 0 files." in again.stderr
    assert len(codes(first)) >= 5


def test_add_noqa_puts_the_comment_where_python_allows_one() -> None:
    text = dedent('''\
        x = a.item()
        y = f("""doc
        more""", t.item())
        z = c.item()  # noqa: BL999
        v = (d.item() +\\
          1)
        q = e.item()  # noqa
        ''')
    out, changed = add_noqa_text(text, {1: {"BL101"}, 2: {"BL101"}, 4: {"BL101", "BL201"}, 5: {"BL101"},
                                        7: {"BL101"}})
    assert changed == 4
    assert out == dedent('''\
        x = a.item()  # noqa: BL101
        y = f("""doc
        more""", t.item())  # noqa: BL101
        z = c.item()  # noqa: BL101, BL201, BL999
        v = (d.item() +\\
          1)  # noqa: BL101
        q = e.item()  # noqa
        ''')
    compile(out, "out.py", "exec")
    crlf, _ = add_noqa_text("x = a.item()\r\ny = 1\r\n", {1: {"BL101"}})
    assert crlf == "x = a.item()  # noqa: BL101\r\ny = 1\r\n"
