"""What a run imports: `--version` and a warm run never pay for libcst; the catalog matches the rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from breaklint import _catalog
from breaklint.registry import rule_info
from breaklint.rules import catalog_source, load_rules

ROOT = Path(__file__).resolve().parents[1]

# Runs the CLI in-process, then prints whether libcst (or sarif-om) was imported.
PROBE = """
import sys
from breaklint.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("IMPORTED", sorted(m for m in ("libcst", "sarif_om") if m in sys.modules), file=sys.stderr)
"""


def _imported(args: list[str], cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("IMPORTED")]
    assert line, proc.stderr
    return line[-1]


def test_a_cold_run_imports_neither_libcst_matchers_nor_importlib_metadata(tmp_path):
    """Importing `libcst.matchers` takes 0.18 s, `importlib.metadata` 0.04 s: together a tenth of a
    pre-commit call on ten large model files."""
    (tmp_path / "model.py").write_text((ROOT / "examples" / "models" / "transformer.py").read_text())
    probe = PROBE.replace('("libcst", "sarif_om")', '("libcst", "libcst.matchers", "importlib.metadata")')
    proc = subprocess.run([sys.executable, "-c", probe, "-q", "--no-cache", "--jobs", "1", "."], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert "BL201" in proc.stdout  # the file was walked, fixes built
    assert proc.stderr.splitlines()[-1] == "IMPORTED ['libcst']"


def test_the_installed_version_is_the_package_version():
    from importlib.metadata import version

    import breaklint

    assert version("breaklint") == breaklint.__version__


def test_catalog_is_generated_from_the_rule_classes():
    assert (Path(_catalog.__file__).read_text(encoding="utf-8") == catalog_source()), \
        "a rule's metadata changed: run `python -m breaklint.rules` to regenerate _catalog.py"
    for code, cls in load_rules().items():
        info = rule_info(code)
        assert (info.name, info.kind, info.default_enabled, info.gb_types) == \
            (cls.NAME, cls.KIND, cls.DEFAULT_ENABLED, tuple(cls.GB_TYPES))


def test_version_and_a_warm_run_do_not_import_libcst(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text((ROOT / "examples" / "models" / "detector.py").read_text())
    assert _imported(["--version"], project) == "IMPORTED []"
    assert _imported(["-q", "."], project) == "IMPORTED ['libcst']"  # cold: the file is walked
    assert _imported(["-q", "."], project) == "IMPORTED []"  # warm: every result from the cache
    assert _imported(["-q", "--no-cache", "."], project) == "IMPORTED ['libcst']"


def test_loading_the_rules_writes_nothing() -> None:
    # `python -m breaklint.rules` regenerates `_catalog.py`; loading the rules must not run it: a run on
    # a read-only install would fail, and one beside another process could see the catalog half written
    code = ("import pathlib\n"
            "def refuse(self, *args, **kwargs):\n"
            "    raise PermissionError(f'wrote {self}')\n"
            "pathlib.Path.write_text = refuse\n"
            "from breaklint.rules import load_rules\n"
            "print(len(load_rules()))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 50
