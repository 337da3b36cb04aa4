"""Lint large trees of real Python and count what went wrong: no file may give an internal error.

    python bench/robustness.py                      # the standard library, the installed torch, numpy
    python bench/robustness.py path/to/tree ...     # any trees
    python bench/robustness.py --generated 3000     # also that many generated programs per strategy
    python bench/robustness.py --fix                # also as `--fix --unsafe-fixes --diff` would run

Every `.py` file under each tree is linted (gitignore and the default excludes are off, so a
standard library's tests are included). The table gives, per tree: files, internal errors (BL003,
with their causes below), files Python itself rejects (BL001), and files Python accepts that
breaklint did not analyze (BL004, with the reasons), and the time taken. Every rule is on. With `--fix`,
each tree is run as `--fix --unsafe-fixes --diff` runs it: the same lint, then every fix applied in
memory (a fixed text that does not parse is rolled back), and an internal error in applying counts
too.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from breaklint.config import Config
from breaklint.engine import lint


def default_trees() -> list[Path]:
    trees = [Path(sysconfig.get_paths()["stdlib"])]
    for name in ("torch", "numpy"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            trees.append(Path(spec.origin).parent)
    return trees


def reason(message: str) -> str:
    """The kind of a diagnostic, without its file-specific details."""
    message = re.sub(r"line \d+, column \d+", "line L, column C", message)
    message = re.sub(r"\d+(\.\d+)? MiB", "N MiB", message)
    return message.split(" (")[0][:110]


def lint_tree(tree: Path, jobs: int, fix: bool = False
              ) -> tuple[int, collections.Counter, list[str], float, int | None]:
    """Lint the tree with every rule; with `fix`, as `--fix --unsafe-fixes --diff` runs (the same lint,
    then every fix applied in memory and each fixed text parsed). Files, diagnostics by code and reason,
    internal errors (of the lint, or of applying fixes), seconds, and the fixes applied (None without
    `fix`)."""
    from breaklint import autofix

    config = Config(root=tree, exclude=[], respect_gitignore=False, select=["ALL"])
    start = time.perf_counter()
    applied = None
    if fix:
        run = autofix.run([tree], config, unsafe=True, write=False, jobs=jobs, use_cache=False)
        result, problems = run.result, [p for p in run.problems if "BL003" in p]
        applied = sum(len(c.applied) for c in run.files)
    else:
        result, problems = lint([tree], config, jobs=jobs, use_cache=False), []
    elapsed = time.perf_counter() - start
    counts: collections.Counter = collections.Counter()
    internal = list(problems)
    for err in result.errors:
        counts[err.code] += 1
        counts[(err.code, reason(err.message))] += 1
        if err.code == "BL003":
            internal.append(f"{err.path}: {err.message}")
    return len(result.files), counts, internal, elapsed, applied


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--generated", type=int, default=0,
                        help="also run the generated-program tests with this many programs per strategy")
    parser.add_argument("--fix", action="store_true", help="run each tree as --fix --unsafe-fixes --diff")
    args = parser.parse_args()
    trees = args.trees or default_trees()
    print(f"breaklint robustness, Python {sys.version.split()[0]}, {args.jobs} processes")
    print(f"{'tree':<52} {'files':>6} {'BL003':>6} {'BL001':>6} {'BL004':>6} {'time':>8}")
    total_files = total_internal = 0
    details: list[str] = []
    for tree in trees:
        files, counts, internal, elapsed, applied = lint_tree(tree, args.jobs, args.fix)
        total_files += files
        total_internal += len(internal)
        label = str(tree) if len(str(tree)) <= 52 else "..." + str(tree)[-49:]
        print(f"{label:<52} {files:>6} {counts['BL003']:>6} {counts['BL001']:>6} {counts['BL004']:>6} "
              f"{elapsed:>7.1f}s" + (f"  {applied} fixes applied in memory" if applied is not None else ""))
        for key, n in sorted(((k, v) for k, v in counts.items() if isinstance(k, tuple)), key=lambda kv: -kv[1]):
            kind = {"BL001": "Python rejects it too", "BL004": "Python accepts it; not analyzed",
                    "BL003": "internal error"}[key[0]]
            details.append(f"  {tree.name}: {n:>4} x {key[0]} ({kind}): {key[1]}")
        details.extend(f"  {line}" for line in internal)
    print(f"{'all':<52} {total_files:>6} {total_internal:>6}")
    print("\n".join(details))
    status = 1 if total_internal else 0
    if args.generated:
        env = {**os.environ, "BREAKLINT_GENERATED": str(args.generated)}
        test = Path(__file__).resolve().parents[1] / "tests" / "test_robustness.py"
        print(f"\ngenerated programs: {args.generated} per strategy (hypothesmith, tensor-shaped)")
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test),
                               "-k", "generated"], env=env)
        status |= proc.returncode != 0
    return status


if __name__ == "__main__":
    sys.exit(main())
