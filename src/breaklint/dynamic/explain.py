"""The dynamic pass: ask dynamo itself where a model's graph breaks.

torch is imported lazily, here only, so the static pass never needs it.
Each break comes from two sources, merged: `torch._dynamo.explain`'s break
reasons, and the `graph_breaks` logging artifact, which also reports breaks in
frames that dynamo skips whole (a data-dependent `if` inside a loop gives no
graph and no break reason to explain).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

_GB_URL = re.compile(r"gb/gb(\d{4})\.html", re.I)
_AT = re.compile(r"Graph break (?:\(user stack suppressed[^)]*\) )?in user code at (.+):(\d+)")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$', re.M)


@dataclass
class Break:
    """One graph break dynamo reported."""

    reason: str
    gb_type: str | None  # "GB0170", when the installed torch names it
    frames: list[tuple[str, int]] = field(default_factory=list)  # outermost first

    def site(self, within: Callable[[str], bool]) -> tuple[str, int] | None:
        """The innermost frame for which `within(filename)` holds."""
        for filename, line in reversed(self.frames):
            if within(filename):
                return filename, line
        return None


@cache
def registry() -> dict[str, dict]:
    """The installed torch's graph-break registry: GB code -> its first entry."""
    import torch

    path = Path(torch.__file__).parent / "_dynamo" / "graph_break_registry.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {code: entries[0] for code, entries in data.items() if entries}


def gb_for_reason(reason: str) -> str | None:
    match = _GB_URL.search(reason)
    if match:
        return f"GB{match.group(1)}"
    first = reason.strip().splitlines()[0].strip() if reason.strip() else ""
    for code, entry in registry().items():
        if entry.get("Gb_type") and entry["Gb_type"] == first:
            return code
    return None


class _Collector(logging.Handler):
    def __init__(self, suffix: str) -> None:
        super().__init__(logging.DEBUG)
        self.suffix = suffix
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.endswith(self.suffix):
            try:
                self.messages.append(record.getMessage())
            except Exception:  # a broken log record must not end the run
                pass


@contextlib.contextmanager
def captured_log(artifact: str) -> Iterator[list[str]]:
    """The messages of one `torch._logging` artifact (`graph_breaks`, `recompiles`) while the block runs."""
    import torch

    collector = _Collector(f"__{artifact}")
    dynamo_logger = logging.getLogger("torch._dynamo")
    # a program that turned logging off (`logging.disable(logging.WARNING)`, to quiet a library) would turn off the
    # artifact too, and with it every break only the log names: lifted while the block runs, then put back
    disabled = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    with contextlib.suppress(Exception):  # a torch without this artifact: nothing is captured
        torch._logging.set_logs(**{artifact: True})
    dynamo_logger.addHandler(collector)
    # Dynamo logs the user stack of a break only the first time it sees the same kind of break at
    # the same place in a library (`pydantic`'s `__init__` reached from two calls in one function):
    # the second call's line would go unreported. Every break is logged with its stack here.
    checker = None
    with contextlib.suppress(Exception):
        from torch._dynamo import symbolic_convert

        checker = symbolic_convert.graph_break_dup_warning_checker
        checker.add = lambda key: True  # an instance attribute, removed afterwards
    try:
        yield collector.messages
    finally:
        dynamo_logger.removeHandler(collector)
        if checker is not None:
            with contextlib.suppress(Exception):
                del checker.add
        with contextlib.suppress(Exception):
            torch._logging.set_logs()
        logging.disable(disabled)


def eager_callable(fn: Any) -> Any:
    """What `torch.compile` wrapped: a compiled module's `_orig_mod`, a compiled function's original."""
    return getattr(fn, "_orig_mod", None) or getattr(fn, "_torchdynamo_orig_callable", fn)


def _parse_log(message: str) -> Break:
    frames = [(f, int(n)) for f, n, _ in _FRAME.findall(message)]
    at = _AT.search(message)
    if at and (not frames or frames[-1] != (at.group(1), int(at.group(2)))):
        frames.append((at.group(1), int(at.group(2))))
    reason_match = re.search(r"Graph Break Reason:(.*?)(?:\nUser code traceback:|\Z)", message, re.S)
    reason = reason_match.group(1).strip() if reason_match else message.strip()
    return Break(reason=reason, gb_type=gb_for_reason(message), frames=frames)


def collect_breaks(fn: Any, args: tuple = (), kwargs: dict | None = None) -> tuple[list[Break], Any]:
    """Run `fn(*args, **kwargs)` under `torch._dynamo.explain` and return its breaks and the explain output."""
    import torch._dynamo as dynamo

    fn = eager_callable(fn)
    dynamo.reset()
    with captured_log("graph_breaks") as messages:
        output = dynamo.explain(fn)(*args, **(kwargs or {}))
    breaks = [_parse_log(m) for m in messages]
    # explain repeats what the log said, and (torch 2.11) adds bookkeeping entries such as
    # "comprehension_graph_break" at the call site of a break the log placed deeper. A reason
    # whose innermost frame lies on a logged break's stack is one of those.
    logged = {frame for b in breaks for frame in b.frames}
    for reason in getattr(output, "break_reasons", []) or []:
        stack = getattr(reason, "user_stack", None) or []
        frames = [(fs.filename, fs.lineno) for fs in stack]
        if frames and frames[-1] in logged:
            continue
        text = getattr(reason, "reason", str(reason))
        breaks.append(Break(reason=text, gb_type=gb_for_reason(text), frames=frames))
    return breaks, output


def in_file(path: Path) -> Callable[[str], bool]:
    target = os.path.realpath(path)
    return lambda filename: os.path.realpath(filename) == target


def _clean(text: str) -> str:
    """Registry text can hold the source of an f-string expression; keep the prose."""
    text = re.sub(r'"\s*\+\s*\w+\s*$', '"', text.strip())
    text = re.sub(r'"\s+"', "", text)
    return " ".join(text.strip('"').split())


def describe_gb(gb_type: str | None) -> dict:
    """The registry's name, explanation and hints for a GB code (empty where it has none)."""
    entry = registry().get(gb_type or "", {}) if gb_type else {}
    hints = [" ".join(h.split()) for h in entry.get("Hints", []) or [] if h and h.strip()]
    return {"gb_name": entry.get("Gb_type", ""), "explanation": _clean(entry.get("Explanation", "") or ""),
            "hints": hints}


# ---------------------------------------------------------------------- running targets
@dataclass
class TargetReport:
    target: str
    ok: bool
    error: str = ""  # one line, when not ok
    data: dict = field(default_factory=dict)  # the worker's report
    seconds: float = 0.0


def run_target(target: str, *, device: str = "auto", train: bool = False, timeout: float = 300.0,
               roots: list[Path] | None = None, cwd: Path | None = None,
               max_memory: int | None = None, gpu: str | None = None,
               dynamo_config: dict[str, bool] | None = None, compare_outputs: bool = False) -> TargetReport:
    """Run one target in a subprocess; never raises for anything the target does. `gpu`: the device
    the process may see (`CUDA_VISIBLE_DEVICES`), when targets run in parallel on several GPUs."""
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="breaklint-") as tmp:
        out = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "breaklint.dynamic.worker", target, str(out), "--device", device]
        if train:
            command.append("--train")
        if max_memory:
            command += ["--max-memory", str(max_memory)]
        for root in roots or []:
            command += ["--root", str(Path(root).resolve())]
        for name, value in (dynamo_config or {}).items():
            command += ["--dynamo-config", f"{name}={'true' if value else 'false'}"]
        if compare_outputs:
            command.append("--compare-outputs")
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **({"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {})}
        # Output goes to a file, never a pipe: a target that prints gigabytes costs disk, not memory,
        # and a child process it leaves behind cannot hold a pipe open. The target runs in a session
        # of its own, and the whole group is killed when it ends, so no process outlives it.
        errfile = Path(tmp) / "stderr.txt"
        with open(errfile, "wb") as err:
            proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=err, env=env, start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_group(proc)
        if timed_out:
            return TargetReport(target, False, f"timed out after {timeout:g} s", seconds=time.monotonic() - start)
        elapsed = time.monotonic() - start
        stderr = _tail(errfile)
        data: dict = {}
        if out.exists():
            try:
                data = json.loads(out.read_text(encoding="utf-8"))
            except ValueError:
                data = {}
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = "unknown signal"
        hint = " (out of memory?)" if -proc.returncode == signal.SIGKILL else ""
        return TargetReport(target, False, f"killed by signal {-proc.returncode} ({name}){hint}", seconds=elapsed)
    if "error" in data:
        err = data["error"]
        return TargetReport(target, False, f"{err['kind']}: {err['message']}", data=data, seconds=elapsed)
    if proc.returncode != 0 or not data:
        tail = [line for line in stderr.strip().splitlines() if line.strip()][-1:]
        detail = f": {tail[0].strip()}" if tail else ""
        return TargetReport(target, False, f"exited with status {proc.returncode}{detail}", seconds=elapsed)
    return TargetReport(target, True, data=data, seconds=elapsed)


def visible_gpus() -> list[str]:
    """The GPUs this process may hand out, without importing torch: `CUDA_VISIBLE_DEVICES` when set,
    else the devices the NVIDIA driver lists."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip() and d.strip() != "-1"]
    try:
        return [str(i) for i in range(len(os.listdir("/proc/driver/nvidia/gpus")))]
    except OSError:
        return []


def run_targets(targets: list[str], jobs: int, on_done: Callable[[TargetReport], None] | None = None,
                **options: Any) -> list[TargetReport]:
    """Every target, `jobs` at a time (each in its own process, as `run_target`), in the order given.
    With several GPUs, each of the `jobs` slots gets its own (round robin when there are fewer GPUs)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from queue import Queue

    lock = threading.Lock()  # `on_done` (a progress bar) is called from one thread at a time
    gpus = visible_gpus() if jobs > 1 else []
    slots: Queue = Queue()
    for slot in range(jobs):
        slots.put(gpus[slot % len(gpus)] if gpus else None)

    def one(target: str) -> TargetReport:
        gpu = slots.get()
        try:
            report = run_target(target, gpu=gpu, **options) if gpu is not None else run_target(target, **options)
        finally:
            slots.put(gpu)
        if on_done is not None:
            with lock:
                on_done(report)
        return report

    if jobs <= 1:
        return [one(t) for t in targets]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, targets))


def _kill_group(proc) -> None:
    """Kill the target's process group (it and anything it started), then reap the target."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(path: Path, size: int = 64 * 1024) -> str:
    """The last `size` bytes of a file, as text."""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - size))
        return fh.read().decode("utf-8", errors="replace")


# ---------------------------------------------------------------------- merging with the static pass
@dataclass
class Merged:
    findings: list  # list[Finding]: static ones with a status, plus dynamic-only ones
    graphs: int
    breaks: int  # distinct break sites in the scanned files
    recompiles: list[dict]
    outside: int  # breaks whose whole stack lies outside the scanned files


def _line_span(path: Path, line: int) -> tuple[int, int]:
    """The columns of a line's code, without its indentation (dynamo reports lines, not columns)."""
    try:
        from ..source import source_lines

        text = source_lines(path.read_text(encoding="utf-8"))[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return 0, 0
    stripped = text.rstrip()
    return len(stripped) - len(stripped.lstrip()), len(stripped)


def merge(static: list, reports: list[TargetReport], files: list[Path]) -> Merged:
    """Give every static finding a status and turn unpredicted breaks into findings of their own."""
    from dataclasses import replace as _replace

    from ..finding import Finding
    from ..registry import ENGINE_CODES

    real_files = {os.path.realpath(p): p for p in files}
    ran: dict[str, set[int]] = {}
    sites: dict[tuple[str, int], dict] = {}
    graphs, outside, recompiles = 0, 0, []
    for rep in reports:
        if not rep.ok:
            continue
        graphs += rep.data.get("graphs", 0)
        recompiles.extend(rep.data.get("recompiles", []))
        for path, lines in rep.data.get("lines_run", {}).items():
            ran.setdefault(os.path.realpath(path), set()).update(lines)
        for brk in rep.data.get("breaks", []):
            frames = [(filename, int(line)) for filename, line in brk.get("frames", [])]
            site = Break(brk.get("reason", ""), brk.get("gb_type"), frames).site(
                lambda filename: os.path.realpath(filename) in real_files)
            if site is not None:
                site = (os.path.realpath(site[0]), site[1])
            if site is None:
                outside += 1
                continue
            sites.setdefault(site, brk)
    out = []
    claimed: set[tuple[str, int]] = set()
    for f in static:
        if f.kind not in ("break", "hazard"):
            out.append(f)
            continue
        real = os.path.realpath(f.path)
        hit = next(((real, line) for line in range(f.line, f.end_line + 1) if (real, line) in sites), None)
        if hit is not None:
            claimed.add(hit)
            status = "confirmed"
        elif any(line in ran.get(real, ()) for line in range(f.line, f.end_line + 1)):
            status = "not-reproduced"
        else:
            status = "not-run"
        out.append(_replace(f, status=status))
    _, kind, _ = ENGINE_CODES["BL900"]
    for (real, line), brk in sorted(sites.items()):
        if (real, line) in claimed:
            continue
        gb = brk.get("gb_type")
        first = (brk.get("reason") or "graph break").strip().splitlines()[0]
        name = brk.get("gb_name") or first
        suggestion = "; ".join(brk.get("hints") or []) or brk.get("explanation") or ""
        col, end_col = _line_span(real_files[real], line)
        out.append(Finding(
            code="BL900", kind=kind, origin="dynamic", status="dynamic-only",
            message=f"dynamo broke the graph here: {name}" + (f" ({gb})" if gb else ""),
            suggestion=suggestion, path=real_files[real], line=line, col=col, end_line=line, end_col=end_col,
            gb_types=(gb,) if gb else (),
        ))
    return Merged(findings=out, graphs=graphs, breaks=len(sites), recompiles=recompiles, outside=outside)


# ---------------------------------------------------------------------- from tests
class GraphBreakError(AssertionError):
    pass


def assert_no_graph_breaks(fn: Any, *args: Any, max_breaks: int = 0, allowed_sites: Iterable[str] = (),
                           **kwargs: Any) -> None:
    """Fail, with each break's site, reason and hint, if dynamo breaks the graph of `fn(*args, **kwargs)`.

    For a user's test suite::

        from breaklint import assert_no_graph_breaks

        def test_model_compiles_whole():
            assert_no_graph_breaks(MyModel().eval(), torch.randn(2, 3, 224, 224))

        def test_detector_stays_within_its_budget():
            assert_no_graph_breaks(detector, images, max_breaks=1,
                                   allowed_sites=["models/detector.py:88", "ops/boxes.py"])

    `allowed_sites`: breaks whose innermost frame is at one of these (`path:line`, or `path` for any
    line; a path matches the end of the frame's file name) are accepted and not counted. `max_breaks`:
    how many other breaks are tolerated.
    """
    breaks, output = collect_breaks(fn, args, kwargs)
    allowed = [_site_pattern(site) for site in allowed_sites]
    counted = [brk for brk in breaks if not any(_at(brk, pattern) for pattern in allowed)]
    if len(counted) <= max_breaks:
        return
    lines = [f"{len(counted)} graph break{'s' * (len(counted) != 1)} "
             f"({getattr(output, 'graph_count', '?')} graphs"
             + (f"; {len(breaks) - len(counted)} more at allowed sites" if len(counted) != len(breaks) else "")
             + (f"; at most {max_breaks} allowed" if max_breaks else "") + "):"]
    for brk in counted:
        where = f"{brk.frames[-1][0]}:{brk.frames[-1][1]}" if brk.frames else "(no user frame)"
        info = describe_gb(brk.gb_type)
        reason = " ".join(brk.reason.split())
        lines.append(f"  {where}: {brk.gb_type or 'graph break'} {info['gb_name'] or ''}".rstrip())
        lines.append(f"      reason: {reason[:300]}")
        for hint in info["hints"][:2]:
            lines.append(f"      hint: {hint}")
    raise GraphBreakError("\n".join(lines))


def _site_pattern(site: str) -> tuple[str, int | None]:
    path, sep, line = site.rpartition(":")
    if sep and line.isdigit():
        return path.replace("\\", "/"), int(line)
    return site.replace("\\", "/"), None


def _at(brk: Break, pattern: tuple[str, int | None]) -> bool:
    if not brk.frames:
        return False
    filename, line = brk.frames[-1]
    path, want = pattern
    name = filename.replace("\\", "/")
    return (name == path or name.endswith("/" + path.lstrip("/"))) and (want is None or want == line)
