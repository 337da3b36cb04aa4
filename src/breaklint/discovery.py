"""Which files to lint: Python files under the paths named, minus excluded and git-ignored ones (a
file named explicitly is always linted).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .config import Config
from .source import relative_posix


def discover(paths: list[Path], config: Config, notes: list[str] | None = None) -> list[Path]:
    """Python files under the paths, minus excluded and git-ignored ones.

    A file named explicitly is linted even when an exclude pattern or .gitignore covers it, as ruff
    and flake8 do. A path that is neither a file nor a directory (a broken link, a symlink loop) is
    kept, so that reading it reports why. `notes` receives a line for each named directory that gives
    no file to lint, saying why."""
    named: list[Path] = []
    under: dict[Path, list[Path]] = {}
    for path in paths:
        if not path.is_dir():
            named.append(path)
            continue
        # Patterns apply below the project root, or below the directory named
        # when it lies outside the root, never to the folders above it.
        anchor = config.root if _is_within(path, config.root) else path
        found = under.setdefault(path, [])
        # The walk root's path relative to the anchor is resolved once; below it, paths are joined as
        # the walk gives them (it does not enter linked folders).
        top = _rel(path, anchor)
        top = "" if top == "." else top + "/"
        for dirpath, dirnames, filenames in os.walk(path):
            base = Path(dirpath)
            inner = os.path.relpath(dirpath, path)
            prefix = top if inner == "." else f"{top}{Path(inner).as_posix()}/"
            dirnames[:] = sorted(d for d in dirnames if not config.is_excluded(prefix + d))
            for name in sorted(filenames):
                if name.endswith(".py") and not config.is_excluded(prefix + name):
                    found.append(base / name)
    ignored = git_ignored([f for files in under.values() for f in files]) if config.respect_gitignore else set()
    out = list(named)
    for path, files in under.items():
        kept = [f for f in files if f not in ignored]
        out.extend(kept)
        if notes is None or kept:
            continue
        if files:
            notes.append(f"{path}: all {len(files)} Python file{'s' * (len(files) != 1)} here are ignored by git; "
                         f"name them, or set `respect-gitignore = false` in [tool.breaklint]")
        else:
            notes.append(f"{path}: no Python files to check here (none, or all excluded by `exclude`)")
    return list(dict.fromkeys(out))


def _is_within(path: Path, root: Path) -> bool:
    try:
        _real(path).relative_to(_real(root))
    except ValueError:
        return False
    return True


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))  # unlike Path.resolve, never raises on a symlink loop


def _rel(path: Path, root: Path) -> str:
    return relative_posix(path, root) or path.as_posix()


def git_ignored(paths: list[Path]) -> set[Path]:
    """The paths that git ignores, asked of the repository holding the first one (absolute paths, so
    that git's working directory does not change what a relative path means)."""
    if not paths:
        return set()
    absolute = {str(p.absolute()): p for p in paths}
    first = paths[0].absolute().parent
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="\0".join(absolute).encode(),
            capture_output=True, timeout=30, cwd=first if first.exists() else None,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):
        return set()  # not a git repository, or git could not answer
    return {absolute[p] for p in proc.stdout.decode(errors="surrogateescape").split("\0") if p in absolute}
