"""Memory turns for the pool's workers: files are analyzed side by side, except one whose tree will be
large, which waits for the others and is analyzed alone; a worker hands freed memory back to the
system after a large tree.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


# The tree of a piece (or of a file walked whole) this large is about 80 MB or more. Pool workers
# analyze such a piece's file alone: the others finish the file they are on, hand their free memory
# back to the system and wait until it is done. Smaller files are analyzed side by side.
ALONE_FROM = 128 * 1024


TRIM_FROM = 32 * 1024  # after a tree this large (20 MB), a worker hands the memory back to the system


_turns: Turns | None = None  # in pool workers


class Turns:
    """Lets the pool's workers analyze files side by side, except one whose tree will be large: that
    one waits until no other file is being analyzed, and no other starts until it is done."""

    def __init__(self) -> None:
        import multiprocessing

        self._changed = multiprocessing.Condition()
        self._running = multiprocessing.RawValue("i", 0)  # files being analyzed
        self._alone = multiprocessing.RawValue("i", 0)  # 1 while a large one waits or is analyzed

    @contextmanager
    def turn(self, alone: bool) -> Iterator[None]:
        changed, running, flag = self._changed, self._running, self._alone
        if flag.value:
            _release_memory()  # before the wait for a large tree elsewhere (outside the lock: it takes time)
        with changed:
            changed.wait_for(lambda: not flag.value)
            if alone:
                flag.value = 1
                changed.wait_for(lambda: not running.value)
            running.value += 1
        try:
            yield
        finally:
            with changed:
                running.value -= 1
                if alone:
                    flag.value = 0
                changed.notify_all()


@contextmanager
def _memory_turn(size: int) -> Iterator[None]:
    """Around the parse and walk of a file whose largest tree is of `size` characters of source."""
    if _turns is None:
        yield
    else:
        with _turns.turn(alone=size >= ALONE_FROM):
            yield
    if size >= TRIM_FROM:
        _release_memory()


def _init_worker(turns: Turns | None) -> None:
    global _turns
    _turns = turns


def _release_memory() -> None:
    """Hand freed heap back to the system (glibc keeps it otherwise, and a worker's size would stay at
    its largest file's for the rest of the run)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


@contextmanager
def results_kept() -> Iterator[None]:
    """Around a run that keeps every file's result until the end: Python's cyclic collector is paused,
    and `collect_young()` after each file frees what that file left in cycles. Left running, the
    collector's full passes rescan every result kept so far (what a large tree keeps grows as the run
    goes, and so does each pass), three in a hundred of a one-process run over a large tree; a young
    pass scans only what the last file left. The collector is as it was afterwards (breaklint may be
    called from a process that has its own settings)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def collect_young() -> None:
    """Free the cycles among the objects made since the last pass (one file's): `ast.literal_eval`'s
    nested functions and other small cycles the analysis leaves. What survives is moved to the oldest
    generation, which no pass of `results_kept` scans again."""
    gc.collect(1)
