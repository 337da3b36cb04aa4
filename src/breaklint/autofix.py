"""The `--fix` loop: lint, apply the selected fixes to each file, lint again, while fixes that waited
on an overlap remain. Asked by the CLI (`--fix`, `--diff`) and the tests; the edits themselves are
applied by `fixes/apply.py`, and built by the rules from `fixes/`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .engine import LintResult, lint
from .fixes.apply import ChangedOnDisk, FileFix, apply, selected, write_source
from .source import decode_source


if TYPE_CHECKING:
    from .config import Config


@dataclass
class FixRun:
    result: "LintResult"  # the findings left after fixing
    files: list[FileFix]
    fixed: int
    problems: list[str]  # files that could not be fixed, one line each
    internal_errors: int = 0  # files whose fixing raised unexpectedly (named among the problems, BL003)


def run(paths: list[Path], config: "Config", *, unsafe: bool, write: bool, jobs: int | None = None,
        use_cache: bool = True, rounds: int = 8) -> FixRun:
    """Lint, apply fixes, lint again; repeat while fixes that waited on an overlap remain.

    With `write=False` nothing is written and only the first round is computed.
    """
    result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    changes: dict[Path, FileFix] = {}
    problems: list[str] = []
    refused: set[Path] = set()
    fixed = internal = 0
    for _ in range(rounds if write else 1):
        round_applied = 0
        code_of = {id(f.fix): f.code for f in result.all if f.fix is not None}
        for path, fixes in sorted(selected(result.all, unsafe).items()):
            if path in refused:
                continue
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() != result.digests.get(path):
                    raise ChangedOnDisk(str(path))
                before = decode_source(data)
                after, applied = apply(before, fixes)
                if not applied or after == before:
                    continue
                if write:
                    write_source(path, before, after)
            except ChangedOnDisk:
                problems.append(f"{path}: changed on disk while breaklint was running; not fixed")
                refused.add(path)
                continue
            except (OSError, UnicodeError, SyntaxError, LookupError) as exc:
                problems.append(f"{path}: cannot fix: {exc}")
                refused.add(path)
                continue
            except Exception as exc:  # a bug here must not lose the other files' fixes, nor pass unseen
                problems.append(f"{path}: BL003 internal error while applying fixes: {type(exc).__name__}: {exc}")
                refused.add(path)
                internal += 1
                continue
            entry = changes.setdefault(path, FileFix(path, before, after, []))
            entry.after = after
            entry.applied.extend(applied)
            entry.codes.extend(code_of.get(id(fix), "") for fix in applied)
            round_applied += len(applied)
        fixed += round_applied
        if not write or not round_applied:
            break
        result = lint(paths, config, jobs=jobs, use_cache=use_cache)
    return FixRun(result=result, files=list(changes.values()), fixed=fixed, problems=problems,
                  internal_errors=internal)
