"""Files spread over a process pool, largest first, with large trees analyzed alone; a worker that
dies loses only its own file.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .analyze import FileResult, _analyze_kept
from .diagnostics import _engine_finding
from .memory import ALONE_FROM, Turns, _init_worker


def _schedule(sizes: list[int]) -> list[int]:
    """The order to hand files to the workers: largest first, so that no worker is left with a big file
    at the end, and so that the files that may have to be analyzed alone come while the results held
    by the parent are still few."""
    return sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _analyze_in_pool(work: list[tuple[Path, str, str | None, int]], jobs: int,
                     sizes: list[int]) -> list[FileResult]:
    """Each file's result (in the order of `work`), from `jobs` worker processes, fed the largest files
    first so that no worker is left with a big file at the end. The walk's modules are imported before
    the workers fork, so that each does not import them again. A worker that dies (a crash in native
    code) loses only its own file: the files not yet done are analyzed again, each in a process of its
    own, and one whose process dies again is reported as BL004."""
    from .analysis import context, positions, walk  # noqa: F401 - imported once, inherited by the workers
    from .rules import load_rules

    load_rules()
    order = _schedule(sizes)
    large = any(size >= ALONE_FROM for size in sizes)
    done: dict[int, FileResult] = {}
    try:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(Turns() if large else None,)) as pool:
            chunk = 1 if large else max(1, min(8, len(work) // (jobs * 16)))
            for i, res in zip(order, pool.map(_analyze_kept, [work[i] for i in order], chunksize=chunk)):
                done[i] = res
    except BrokenProcessPool:
        for i in order:
            if i in done:
                continue
            try:
                with ProcessPoolExecutor(max_workers=1) as alone:
                    done[i] = alone.submit(_analyze_kept, work[i]).result()
            except BrokenProcessPool:
                path, module = work[i][0], work[i][1]
                crashed = FileResult(path=path, module=module)
                crashed.errors.append(_engine_finding(
                    "BL004", path, "could not analyze: the process analyzing this file crashed (in native "
                                   "code, most likely libcst's parser)"))
                done[i] = crashed
    return [done[i] for i in range(len(work))]
