"""What following an installed package costs (`follow`, `--follow`), against the same run without it.

    python bench/follow_cost.py PROJECT PACKAGE [--rounds 3]

PROJECT: a tree to lint (a folder); PACKAGE: an installed package it calls (`torch_geometric`), found on
the path of the interpreter running this script. Every row is a fresh `python -m breaklint` process, as
a user meets it: without `--follow` and without a cache; with `--follow PACKAGE` and without a cache
(the package read in full, once per run); with `--follow PACKAGE` on a warm cache (the package's files
read from it, the run's result not: each warm round first touches the project, so that the run cache
cannot answer). The rows alternate, `--rounds` times; the table gives each one's median wall time and its
ratio to the first row, and how many findings each reported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def run(project: Path, extra: list[str], cache: Path | None) -> tuple[float, int]:
    """(seconds, findings) of one fresh run."""
    args = [sys.executable, "-m", "breaklint", "check", str(project), "--format", "json", "--exit-zero", *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    if cache is None:
        args.append("--no-cache")
    else:
        env["XDG_CACHE_HOME"] = str(cache / "home")
    start = time.perf_counter()
    # run beside the project, not in it: `python -m` puts the working folder first on the path, where a
    # package's own `signal` module would stand in for the standard library's
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=project.parent)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"breaklint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took, len(json.loads(proc.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("package")
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="follow-cost-"))
    try:
        project = work / opts.project.name
        shutil.copytree(opts.project, project, ignore=shutil.ignore_patterns("__pycache__"))
        (work / "pyproject.toml").write_text(f'[tool.breaklint]\ncache-dir = "{work / "cache"}"\n', encoding="utf-8")
        follow = ["--follow", opts.package]
        run(project, follow, work)  # fills the warm rows' cache
        rows: dict[str, list[tuple[float, int]]] = {"no follow, no cache": [], f"--follow {opts.package}, no cache": [],
                                                    f"--follow {opts.package}, warm cache": []}
        first = next(iter(sorted(project.rglob("*.py"))))
        for _ in range(opts.rounds):
            rows["no follow, no cache"].append(run(project, [], None))
            rows[f"--follow {opts.package}, no cache"].append(run(project, follow, None))
            # the run cache keys on the files' bytes: a blank line more makes the run's result fresh
            first.write_text(first.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            rows[f"--follow {opts.package}, warm cache"].append(run(project, follow, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(t for t, _ in rows["no follow, no cache"])
    print(f"$ python bench/follow_cost.py {opts.project} {opts.package} --rounds {opts.rounds}")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {opts.rounds} fresh processes per row")
    print()
    print("| run | wall (s) | ratio | findings |")
    print("| --- | --- | --- | --- |")
    for name, got in rows.items():
        wall = statistics.median(t for t, _ in got)
        print(f"| {name} | {wall:.2f} | {wall / base:.2f}x | {got[-1][1]} |")


if __name__ == "__main__":
    main()
