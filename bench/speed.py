"""How fast is the static pass, against the floor (a bare libcst parse) and against its peers?

    python bench/speed.py                      # kornia, torch_geometric and diffusers, as installed
    python bench/speed.py path/to/tree ...     # any trees
    python bench/speed.py --torch              # also the whole installed torch package (peak RSS)
    python bench/speed.py --peers              # also TorchFix (--select ALL) and flake8, on the same files,
                                               # each alternating with a cold breaklint run

Every row is measured as a user meets it: a fresh `python -m breaklint` process (interpreter start
and imports included), no cache unless the row says warm. Its floor is a fresh process that only
reads and `libcst.parse_module`s the same files on the same number of processes. The two alternate,
`--rounds` times, so that drift on a shared machine falls on both; the table gives each one's
median and their ratio. Peak RSS is the largest sum, over the run, of the resident memory of the
breaklint process and its workers (sampled every 20 ms from /proc); peak PSS the same with each shared
page counted once (what a forked worker inherits counts in every process's RSS).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEFAULT_LIBRARIES = ("kornia", "torch_geometric", "diffusers")
PRECOMMIT_FILES = 10


# ---------------------------------------------------------------------- the floor
def bare_parse(files: list[str], jobs: int) -> None:
    """Read and parse every file with libcst, on `jobs` processes (run in a child of its own)."""
    import libcst as cst

    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(_parse_one, files, chunksize=max(1, len(files) // (jobs * 4))))
    else:
        for path in files:
            _parse_one(path, cst)


def _parse_one(path: str, cst=None) -> bool:
    if cst is None:
        import libcst as cst
    try:
        cst.parse_module(Path(path).read_bytes())
        return True
    except Exception:  # noqa: BLE001 - the floor parses what it can
        return False


# ---------------------------------------------------------------------- measuring a process
def _tree_memory(pid: int) -> tuple[int, int]:
    """Resident bytes of `pid` and all its descendants, summed two ways: RSS (a page shared by several
    processes, such as what a forked worker inherits, counts in each) and PSS (it counts once, split
    among them: the memory the run takes from the machine)."""
    rss = pss = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/statm") as fh:
                rss += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{current}/smaps_rollup") as fh:
                pss += next(int(line.split()[1]) * 1024 for line in fh if line.startswith("Pss:"))
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError, StopIteration):
            continue
    return rss, pss


SOURCE: str | None = None  # --src: run breaklint from this source tree instead of the installed one


def run(cmd: list[str], cwd: Path | None = None) -> tuple[float, tuple[int, int], int]:
    """Wall seconds, peak RSS and PSS (bytes, the process and its children together) and exit code."""
    env = dict(os.environ, PYTHONPATH=SOURCE) if SOURCE and cmd[1:3] == ["-m", "breaklint"] else None
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = (0, 0)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            rss, pss = _tree_memory(proc.pid)
            peak = (max(peak[0], rss), max(peak[1], pss))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode not in (0, 1):
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd[:6])} ...\n{err.decode()[-2000:]}")
    return elapsed, peak, proc.returncode


CONFIG: Path | None = None  # an empty [tool.breaklint] in the work folder: no checkout's pyproject applies


def breaklint_cmd(paths: list[str], jobs: int, cache: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "breaklint", "check", "--quiet", "--exit-zero", "--jobs", str(jobs)]
    cmd += ["--config", str(CONFIG)] if CONFIG else []
    cmd += ["--no-cache"] if cache is None else []
    return [*cmd, *paths]


def floor_cmd(files_list: Path, jobs: int) -> list[str]:
    return [sys.executable, __file__, "--bare-parse", str(files_list), "--jobs", str(jobs)]


# ---------------------------------------------------------------------- the run
def python_files(trees: list[Path], root: Path) -> list[Path]:
    """The files breaklint lints when started in `root` (default excludes applied below each tree)."""
    from breaklint.config import Config
    from breaklint.discovery import discover

    return discover(trees, Config(root=root, respect_gitignore=False))


def precommit_files(files: list[Path], count: int) -> list[Path]:
    """The largest files that define an `nn.Module` subclass: what a change to a model touches."""
    models = [f for f in files if b"nn.Module" in f.read_bytes() and b"def forward" in f.read_bytes()]
    return sorted(models, key=lambda f: f.stat().st_size, reverse=True)[:count]


def side_by_side(label: str, ours: list[str], floor: list[str], rounds: int, env_cwd: Path) -> dict:
    times, floors, peaks, floor_peaks = [], [], [], []
    for _ in range(rounds):
        t, peak, _ = run(ours, env_cwd)
        f, floor_peak, _ = run(floor, env_cwd)
        times.append(t)
        floors.append(f)
        peaks.append(peak)
        floor_peaks.append(floor_peak)
    ours_s, floor_s = statistics.median(times), statistics.median(floors)
    return {"work": label, "breaklint": ours_s, "floor": floor_s, "ratio": ours_s / floor_s,
            "rss": max(p[0] for p in peaks), "floor_rss": max(p[0] for p in floor_peaks),
            "pss": max(p[1] for p in peaks), "floor_pss": max(p[1] for p in floor_peaks)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="processes for the N rows")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side-by-side pair (median shown)")
    parser.add_argument("--torch", action="store_true", help="also lint the installed torch package (RSS)")
    parser.add_argument("--torch-only", action="store_true", help="only the torch package row")
    parser.add_argument("--peers", action="store_true", help="also time TorchFix and flake8 on the same files")
    parser.add_argument("--peer-bin", type=Path, help="where the peers' commands are (TorchFix pins an older "
                                                      "libcst: give it a virtual environment of its own)")
    parser.add_argument("--src", type=Path, help="run breaklint from this source tree (another checkout's src/), "
                                                 "to compare two versions on one machine")
    parser.add_argument("--bare-parse", type=Path, help=argparse.SUPPRESS)  # the floor's own process
    args = parser.parse_args()
    global SOURCE
    SOURCE = str(args.src.resolve()) if args.src else None
    if args.bare_parse:
        bare_parse(args.bare_parse.read_text().splitlines(), args.jobs)
        return 0

    trees = args.trees or [Path(importlib.util.find_spec(name).origin).parent for name in DEFAULT_LIBRARIES
                           if importlib.util.find_spec(name) is not None]
    if not trees:
        sys.exit("no trees given, and none of kornia, torch_geometric, diffusers is installed")
    work = Path(tempfile.mkdtemp(prefix="breaklint-speed-"))
    global CONFIG
    CONFIG = work / "pyproject.toml"
    CONFIG.write_text("[tool.breaklint]\nrespect-gitignore = false\n")
    files = python_files(trees, work)
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    try:
        listing = work / "files.txt"
        listing.write_text("\n".join(str(f) for f in files))
        small = precommit_files(files, PRECOMMIT_FILES)
        small_listing = work / "precommit.txt"
        small_listing.write_text("\n".join(str(f) for f in small))
        small_lines = sum(f.read_bytes().count(b"\n") for f in small)
        tree_args = [str(t) for t in trees]
        rows = []
        for jobs in [] if args.torch_only else sorted({1, args.jobs}):
            rows.append(side_by_side(f"{len(files)} files, no cache, {jobs} process{'es' * (jobs > 1)}",
                                     breaklint_cmd(tree_args, jobs, None), floor_cmd(listing, jobs),
                                     args.rounds, work))
        cold = rows[-1] if rows else {"breaklint": 0.0}
        cache = work / "cache"
        cached = breaklint_cmd(tree_args, args.jobs, str(cache))
        env_root = work / "project"
        env_root.mkdir()
        if not args.torch_only:
            run(cached, env_root)  # fill the cache (.breaklint_cache under the working directory)
            warm = [run(cached, env_root)[0] for _ in range(args.rounds)]
            rows.append({"work": "warm re-run, nothing changed", "breaklint": statistics.median(warm),
                         "floor": cold["breaklint"], "ratio": statistics.median(warm) / cold["breaklint"],
                         "rss": 0, "floor_name": "cold run"})
            rows.append(side_by_side(
                f"pre-commit call: {len(small)} model files ({small_lines:,} lines), no cache",
                breaklint_cmd([str(f) for f in small], args.jobs, None), floor_cmd(small_listing, 1), args.rounds,
                work))
            rows[-1]["floor_name"] = "bare parse, 1 process"
        if (args.torch or args.torch_only) and importlib.util.find_spec("torch") is not None:
            torch_dir = Path(importlib.util.find_spec("torch").origin).parent
            torch_files = python_files([torch_dir], work)
            torch_listing = work / "torch.txt"
            torch_listing.write_text("\n".join(str(f) for f in torch_files))
            rows.append(side_by_side(f"the torch package ({len(torch_files):,} files), no cache, "
                                     f"{args.jobs} processes", breaklint_cmd([str(torch_dir)], args.jobs, None),
                                     floor_cmd(torch_listing, args.jobs), 1, work))
        peers = []
        if args.peers:
            peers = peer_rows(files, tree_args, args.jobs, args.rounds, args.peer_bin, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}; trees: {', '.join(str(t) for t in trees)}")
    print(f"{len(files)} files, {lines:,} lines; median of {args.rounds} alternating rounds\n")
    print("| work | breaklint | floor | floor is | ratio | peak RSS (floor's) | peak PSS (floor's) |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for row in rows:
        floor_name = row.get("floor_name", "bare libcst parse, same processes")
        rss = f"{row['rss'] / 2**20:.0f} MiB ({row['floor_rss'] / 2**20:.0f} MiB)" if row["rss"] else ""
        pss = f"{row['pss'] / 2**20:.0f} MiB ({row['floor_pss'] / 2**20:.0f} MiB)" if row["rss"] else ""
        ratio = f"{row['ratio'] * 100:.1f} %" if row["work"].startswith("warm") else f"{row['ratio']:.2f}x"
        print(f"| {row['work']} | {row['breaklint']:.2f} s | {row['floor']:.2f} s | {floor_name} | {ratio} | {rss} "
              f"| {pss} |")
    if peers:
        print(f"\n| peer, same files, {args.jobs} processes | seconds | breaklint, run beside it | x breaklint |")
        print("| --- | ---: | ---: | ---: |")
        for name, secs, ours in peers:
            print(f"| {name} | {secs:.1f} | {ours:.1f} | {secs / ours:.1f}x |")
    return 0


def peer_rows(files: list[Path], tree_args: list[str], jobs: int, rounds: int, where: Path | None,
              work: Path) -> list[tuple[str, float, float]]:
    """TorchFix (`--select ALL`, libcst-based, its own pool) and flake8 on the same files, each run
    alternating with a cold breaklint run on as many processes: (name, peer's seconds, breaklint's
    seconds), medians of `rounds`."""
    out = []
    listing = [str(f) for f in files]
    for name, cmd in (("TorchFix --select ALL", ["torchfix", "--select", "ALL", "--jobs", str(jobs)]),
                      ("flake8 (pyflakes + pycodestyle)", ["flake8", "--jobs", str(jobs), "--exit-zero"])):
        exe = shutil.which(cmd[0], path=str(where)) if where else shutil.which(cmd[0])
        if exe is None:
            print(f"({cmd[0]} is not installed: pip install {cmd[0]})", file=sys.stderr)
            continue
        peer, ours = [], []
        for _ in range(rounds):
            ours.append(run(breaklint_cmd(tree_args, jobs, None), work)[0])
            start = time.perf_counter()
            subprocess.run([exe, *cmd[1:], *listing], cwd=work, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            peer.append(time.perf_counter() - start)
        out.append((name, statistics.median(peer), statistics.median(ours)))
    return out


if __name__ == "__main__":
    sys.exit(main())
