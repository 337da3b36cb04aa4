"""The pre-commit hook, installed and run by pre-commit itself on a throwaway repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_pre_commit_try_repo(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    repo = tmp_path / "work"
    repo.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "model.py").write_text(dedent("""
        import torch

        @torch.compile
        def f(x):
            return x * x.sum().item()
    """))
    (repo / "clean.py").write_text("import torch\n\n@torch.compile\ndef g(x):\n    return x + 1\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    hook_repo = _snapshot_of_checkout(tmp_path / "breaklint", env)
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "breaklint", "--verbose"]
    bad = subprocess.run([*cmd, "--files", "model.py", "clean.py"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=900)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "model.py:6:16: BL101" in bad.stdout
    good = subprocess.run([*cmd, "--files", "clean.py"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def _snapshot_of_checkout(dest: Path, env: dict) -> Path:
    """This checkout as it is on disk (committed or not), committed into a fresh repository."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=ROOT, capture_output=True, check=False)
    files = [f for f in listed.stdout.decode().split("\0") if f] if listed.returncode == 0 else []
    if not files:  # not a git checkout: take the files the package needs
        files = [str(p.relative_to(ROOT)) for d in ("src", "rules") for p in (ROOT / d).rglob("*") if p.is_file()]
        files += ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml"]
    for name in files:
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    subprocess.run(["git", "add", "."], cwd=dest, check=True)
    subprocess.run(["git", "commit", "-qm", "snapshot"], cwd=dest, check=True, env=env)
    return dest
