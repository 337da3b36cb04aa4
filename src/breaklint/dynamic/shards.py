"""Spreading `breaklint explain` over a CI matrix or a cluster: which targets shard K of N runs, and the
shard files that `breaklint merge` joins into the report one run over every target would write.

A shard is a stable slice of the target list: round robin by position, or, given the targets' recorded
durations, a greedy balance by time (the longest first, each to the shard with the least so far).
Either way every target is in exactly one shard, whatever N is, and the slice depends only on the list,
N and the durations. A shard's JSON report carries a `shard` object with the whole target list and its
targets' raw reports (the worker's own data, plain JSON), so that a merge can rebuild every report in
the list's order and render it as the unsharded run does. Nothing read here is ever evaluated.
"""

from __future__ import annotations

import json
from pathlib import Path

from .explain import TargetReport

FORMAT = 1


class ShardError(Exception):
    """A shard file that cannot be merged, or a bad `--shard` or `--durations`."""


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` -> (K, N), 1 <= K <= N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ShardError(f"--shard {text!r}: expected K/N, as in 1/4") from None
    if not 1 <= k <= n:
        raise ShardError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def read_durations(path: Path) -> dict[str, float]:
    """Seconds per target, from a JSON object `{target: seconds}` or from an earlier `explain --format
    json` report (its `targets[].seconds`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ShardError(f"--durations {path}: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("targets"), list):
        data = {t.get("target"): t.get("seconds") for t in data["targets"] if isinstance(t, dict)}
    if not isinstance(data, dict):
        raise ShardError(f"--durations {path}: expected an object of seconds per target, or an explain report")
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def slice_of(targets: list[str], k: int, n: int, durations: dict[str, float] | None = None) -> list[str]:
    """The targets of shard `k` of `n`, in the list's order."""
    if not durations:
        return [t for i, t in enumerate(targets) if i % n == k - 1]
    known = [durations[t] for t in targets if t in durations]
    typical = sum(known) / len(known) if known else 1.0  # a target never timed counts as a typical one
    loads = [0.0] * n
    owner: dict[int, int] = {}
    for i in sorted(range(len(targets)), key=lambda i: (-durations.get(targets[i], typical), i)):
        shard = min(range(n), key=lambda s: (loads[s], s))
        owner[i] = shard
        loads[shard] += durations.get(targets[i], typical)
    return [t for i, t in enumerate(targets) if owner[i] == k - 1]


def shard_data(k: int, n: int, targets: list[str], paths: list[Path], what_if: bool,
               reports: list[TargetReport], runs: dict[str, list[TargetReport]]) -> dict:
    """The `shard` object of a shard's JSON report."""
    return {"format": FORMAT, "index": k, "of": n, "targets": targets, "paths": [p.as_posix() for p in paths],
            "what_if": what_if, "reports": [_plain(r) for r in reports],
            "runs": {setting: [_plain(r) for r in rs] for setting, rs in runs.items()}}


def _plain(report: TargetReport) -> dict:
    return {"target": report.target, "ok": report.ok, "error": report.error, "data": report.data,
            "seconds": report.seconds}


def _report(data: object, where: str) -> TargetReport:
    if not (isinstance(data, dict) and isinstance(data.get("target"), str) and isinstance(data.get("ok"), bool)
            and isinstance(data.get("error", ""), str) and isinstance(data.get("data", {}), dict)
            and isinstance(data.get("seconds", 0.0), (int, float))):
        raise ShardError(f"{where}: not a target report")
    return TargetReport(data["target"], data["ok"], data.get("error", ""), data.get("data", {}),
                        float(data.get("seconds", 0.0)))


def merge_shards(files: list[Path]) -> tuple[list[str], list[Path], bool, list[TargetReport],
                                             dict[str, list[TargetReport]]]:
    """Join shard files (in any order): the target list, the paths, whether `--what-if` ran, and every
    target's report (and what-if runs) in the list's order, as one unsharded run gives them."""
    shards = []
    for path in files:
        try:
            shard = json.loads(path.read_text(encoding="utf-8")).get("shard")
        except (OSError, ValueError, AttributeError) as exc:
            raise ShardError(f"{path}: not a shard's JSON report ({exc})") from None
        if not isinstance(shard, dict) or shard.get("format") != FORMAT:
            raise ShardError(f"{path}: not a shard's JSON report (run `breaklint explain --shard K/N --format json`)")
        shards.append((path, shard))
    first = shards[0][1]
    n, targets = first.get("of"), first.get("targets")
    if not (isinstance(n, int) and isinstance(targets, list) and all(isinstance(t, str) for t in targets)):
        raise ShardError(f"{shards[0][0]}: a shard without its target list")
    seen: dict[int, Path] = {}
    for path, shard in shards:
        if (shard.get("of"), shard.get("targets"), shard.get("paths"), shard.get("what_if")) != \
                (n, targets, first.get("paths"), first.get("what_if")):
            raise ShardError(f"{path}: a shard of another run (other targets, N, paths or --what-if)")
        index = shard.get("index")
        if index in seen:
            raise ShardError(f"{path}: shard {index}/{n} again (also {seen[index]})")
        seen[index] = path
    missing = sorted(set(range(1, n + 1)) - set(seen))
    if missing:
        raise ShardError(f"shards {', '.join(f'{k}/{n}' for k in missing)} missing")
    by_target: dict[str, TargetReport] = {}
    runs: dict[str, dict[str, TargetReport]] = {}
    for path, shard in shards:
        for raw in shard.get("reports", []):
            report = _report(raw, str(path))
            by_target[report.target] = report
        for setting, raws in (shard.get("runs") or {}).items():
            for raw in raws:
                report = _report(raw, str(path))
                runs.setdefault(setting, {})[report.target] = report
    absent = [t for t in targets if t not in by_target]
    if absent:
        raise ShardError(f"no shard holds the report of {absent[0]}")
    ordered_runs = {setting: [got[t] for t in targets if t in got] for setting, got in runs.items()}
    return (targets, [Path(p) for p in first.get("paths", ["."])], bool(first.get("what_if")),
            [by_target[t] for t in targets], ordered_runs)
