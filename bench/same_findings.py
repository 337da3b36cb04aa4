"""Are the static pass's findings, fixes included, byte for byte those of another checkout?

    python bench/same_findings.py --before ../old/src                  # the fixtures and the examples
    python bench/same_findings.py --before ../old/src SITE/kornia ...  # and any trees

For a change meant to keep behaviour (a refactoring), lint each tree with every rule and JSON output,
once with this checkout's source and once with the `--before` source (a `git worktree` of the commit
before), each in a fresh process with no cache, gitignore off, and compare the two outputs byte for
byte. Prints one row per tree: findings, fixes, bytes, identical or not; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def findings_json(src: Path, tree: list[Path], cwd: Path, config: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run([sys.executable, "-m", "breaklint", "--no-cache", "--config", str(config), "--select",
                           "ALL", "--format", "json", "--exit-zero", *map(str, tree)],
                          cwd=cwd, env=env, capture_output=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"breaklint from {src} failed on {tree}: {proc.stderr.decode(errors='replace')[-500:]}")
    return proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="more trees (a library's installed package, ...)")
    parser.add_argument("--before", type=Path, required=True, help="the other checkout's src/ folder")
    args = parser.parse_args()
    rows = [("fixtures", [p.relative_to(ROOT) for p in sorted((ROOT / "fixtures").rglob("*.py"))], ROOT),
            ("examples/models", [Path("examples/models")], ROOT)]
    rows += [(tree.name, [Path(tree.name)], tree.resolve().parent) for tree in args.trees]
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "breaklint.toml"  # not the checkout's pyproject: it excludes the fixtures
        config.write_text("respect-gitignore = false\nexclude = []\n", encoding="utf-8")
        print("| tree | findings | fixes | bytes | identical |\n|---|---:|---:|---:|---|")
        for label, tree, cwd in rows:
            after = findings_json(ROOT / "src", tree, cwd, config)
            before = findings_json(args.before.resolve(), tree, cwd, config)
            found = json.loads(after)
            same = after == before
            differ += not same
            print(f"| {label} | {len(found)} | {sum(f['fix'] is not None for f in found)} | {len(after):,} | "
                  f"{'yes' if same else 'NO'} |")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
