"""The cold ratio of `speed.py`, counted in instructions: a measure that the load of a shared machine does not blur.

    python bench/instructions.py                                  # kornia and torch_geometric, every 6th file
    python bench/instructions.py --src ../old/src --src src       # two checkouts side by side
    python bench/instructions.py path/to/tree ... --every 1       # any trees, every file

Wall-clock ratios move by a tenth from one run to the next on a machine whose other tenants come and
go, which hides a change of a few percent. Here each process runs under valgrind's cachegrind, which
counts the instructions it executes, whatever else the machine runs: the same files give the same
count to within about one percent (two runs of one tree have differed by 0.8 %; what varies was not
traced). The rows are `speed.py`'s one-process cold row: a fresh `python -m breaklint check --jobs 1
--no-cache` on the files (interpreter start and imports included) against a fresh process that only
parses them with libcst (the floor), and their ratio, each with Python's bytecode cache on (as a
user's install has it, whatever `PYTHONDONTWRITEBYTECODE` says here). `--every N` takes every N-th
file of the trees (sorted by path), since cachegrind runs some fifty times slower than the program.
Needs valgrind (`apt-get install valgrind`). Every N-th file is a sample: on kornia and
torch_geometric, over 0fd6868^, the sixth part showed +10.7 % (at 67dca74), every file +12.2 % and
`speed.py`'s seconds +17 % (two small steps later): a result near a limit wants `--every 1` (six
times as long) and `speed.py` as well.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARIES = ("kornia", "torch_geometric")
_COUNT = re.compile(r"I\s+refs:\s+([\d,]+)")


def _ordinal(n: int) -> str:
    """2nd, 3rd, 6th, 11th, 22nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _env(src: Path | None) -> dict[str, str]:
    """The children's environment: bytecode is written and read (an installed breaklint has it, as
    libcst has for the floor), hashing is fixed, and `src` (if given) is what `breaklint` imports."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def instructions(cmd: list[str], src: Path | None, cwd: Path) -> int:
    """The instructions `cmd` executes (its whole process), counted by cachegrind."""
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           *cmd], capture_output=True, text=True, env=_env(src), cwd=cwd)
    found = _COUNT.search(proc.stderr)
    if proc.returncode not in (0, 1) or found is None:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed under valgrind: {proc.stderr[-800:]}")
    return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--src", type=Path, action="append",
                        help="run breaklint from this source tree (repeat to compare checkouts; default: as installed)")
    parser.add_argument("--every", type=int, default=6, help="take every N-th file (default 6)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    trees = args.trees or [Path(importlib.util.find_spec(name).origin).parent for name in LIBRARIES
                           if importlib.util.find_spec(name) is not None]
    if not trees:
        sys.exit("no trees given, and neither kornia nor torch_geometric is installed")
    sys.path.insert(0, str(HERE))
    import speed  # the same files, and the same floor, as the timed bench

    work = Path(tempfile.mkdtemp(prefix="breaklint-instructions-"))
    try:
        config = work / "pyproject.toml"
        config.write_text("[tool.breaklint]\nrespect-gitignore = false\n")
        files = sorted(speed.python_files(trees, work))[::args.every]
        lines = sum(f.read_bytes().count(b"\n") for f in files)
        listing = work / "files.txt"
        listing.write_text("\n".join(str(f) for f in files))
        floor = instructions([sys.executable, str(HERE / "speed.py"), "--bare-parse", str(listing), "--jobs", "1"],
                             None, work)
        sample = "every file" if args.every == 1 else f"every {_ordinal(args.every)} file"
        print(f"trees: {', '.join(map(str, trees))}; {sample}: {len(files)} files, {lines:,} lines")
        print(f"floor (a bare libcst parse, one process): {floor / 1e9:.2f} G instructions\n")
        print("| breaklint from | instructions | ratio to the floor | change |")
        print("| --- | ---: | ---: | ---: |")
        first = None
        for src in args.src or [None]:
            cmd = [sys.executable, "-m", "breaklint", "check", "--quiet", "--exit-zero", "--jobs", "1", "--no-cache",
                   "--config", str(config), *map(str, files)]
            source = src.resolve() if src else None
            subprocess.run(cmd[:-len(files)] + [str(files[0])], env=_env(source), cwd=work, capture_output=True)
            count = instructions(cmd, source, work)  # (the run before compiled the modules it imports)
            first = first or count
            change = f"{100 * (count / first - 1):+.1f} %" if count != first else ""
            print(f"| {src or 'installed'} | {count / 1e9:.2f} G | {count / floor:.2f}x | {change} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
