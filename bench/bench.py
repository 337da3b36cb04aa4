"""Time breaklint's static pass next to a bare libcst parse of the same tree.

    python bench/bench.py PATH [PATH...]

Prints one table: files, lines, and seconds for a bare `libcst.parse_module`
of every file, breaklint on one process, on all CPUs, and with a warm cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst

from breaklint.config import Config
from breaklint.engine import discover, lint


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bare_parse(files: list[Path]) -> int:
    parsed = 0
    for path in files:
        try:
            cst.parse_module(path.read_bytes())
            parsed += 1
        except Exception:
            pass
    return parsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=1, help="runs per row; the best is shown")
    args = parser.parse_args()
    config = Config(root=Path.cwd())
    files = discover(args.paths, config)
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    cache_dir = tempfile.mkdtemp(prefix="breaklint-bench-")
    config.cache_dir = cache_dir
    cpus = os.cpu_count() or 1

    def best(fn):
        times = []
        for _ in range(args.repeat):
            t, out = _timed(fn)
            times.append(t)
        return min(times), out

    rows = []
    t_parse, _ = best(lambda: bare_parse(files))
    rows.append(("bare libcst parse (1 process)", t_parse))
    t_one, result = best(lambda: lint(args.paths, config, jobs=1, use_cache=False))
    rows.append(("breaklint, 1 process, no cache", t_one))
    t_all, _ = best(lambda: lint(args.paths, config, jobs=cpus, use_cache=False))
    rows.append((f"breaklint, {cpus} processes, no cache", t_all))
    lint(args.paths, config, jobs=cpus, use_cache=True)  # fill the cache
    t_warm, _ = best(lambda: lint(args.paths, config, jobs=cpus, use_cache=True))
    rows.append(("breaklint, warm cache", t_warm))
    shutil.rmtree(cache_dir, ignore_errors=True)

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(files)} files, {lines} lines; {len(result.findings)} findings; peak RSS {rss:.0f} MiB")
    print(f"{'run':<40} {'seconds':>8} {'x parse':>8} {'lines/s':>9}")
    for name, secs in rows:
        print(f"{name:<40} {secs:>8.2f} {secs / t_parse:>8.2f} {lines / secs:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
