from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SNAPSHOTS = ROOT / "tests" / "snapshots"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-snapshots", action="store_true", help="rewrite tests/snapshots from current output")


@pytest.fixture
def update_snapshots(request: pytest.FixtureRequest) -> bool:
    return request.config.getoption("--update-snapshots")


def run_cli(*args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None):
    """Run the installed breaklint command; returns the CompletedProcess. `env` adds to the environment."""
    import os
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "breaklint", *args], cwd=cwd, capture_output=True, text=True,
        input=stdin, timeout=300, env={**os.environ, **env} if env else None,
    )
