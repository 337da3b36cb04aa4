"""A graph-break budget for CI: what each target's graphs and breaks were, and whether a run got worse.

`breaklint explain TARGETS --write-baseline breaks.json` records, per target, the graph count, the
break count and the break sites (file relative to the project root, line, GB type).
`breaklint explain TARGETS --baseline breaks.json` fails (exit 1) only when a target gets worse: more
graphs, more breaks, or a break at a site the budget does not hold. Fewer is fine, and is said, so
that the budget can be tightened. The file is JSON, read as data and checked field by field.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..source import relative_posix

FORMAT = 1
KIND = "graph-break-budget"

Site = tuple[str, int, str]  # file (relative to the root, POSIX), line, GB type ("" when unnamed)


class BudgetError(Exception):
    """A budget file that cannot be read or does not have the shape breaklint writes."""


@dataclass
class TargetBudget:
    graphs: int
    breaks: int
    sites: list[Site] = field(default_factory=list)


@dataclass
class Verdict:
    target: str
    worse: bool
    lines: list[str]  # what changed, for people


def _relative(filename: str, root: Path) -> str:
    # outside the project (torch itself): kept absolute
    return relative_posix(filename, root) or Path(os.path.realpath(filename)).as_posix()


def _within(root: Path):
    base = os.path.realpath(root).rstrip(os.sep) + os.sep
    return lambda filename: os.path.realpath(filename).startswith(base)


def observed(data: dict, root: Path) -> tuple[TargetBudget, list[dict]]:
    """A target's report as a budget, and its breaks (each with its site), in the report's order."""
    from ..dynamic.explain import Break

    sites, breaks = [], []
    inside = _within(root)
    for brk in data.get("breaks", []):
        frames = [(f, int(n)) for f, n in brk.get("frames", [])]
        at = Break(brk.get("reason", ""), brk.get("gb_type"), frames).site(inside) or (frames[-1] if frames else None)
        site = (_relative(at[0], root), at[1], brk.get("gb_type") or "") if at else ("", 0, brk.get("gb_type") or "")
        sites.append(site)
        breaks.append({**brk, "site": site})
    return TargetBudget(graphs=int(data.get("graphs", 0)), breaks=len(breaks), sites=sorted(sites)), breaks


def write(path: Path, reports: list, root: Path) -> int:
    """Record every target that ran; returns how many."""
    targets = {}
    for rep in reports:
        if rep.ok:
            budget, _ = observed(rep.data, root)
            targets[rep.target] = {"graphs": budget.graphs, "breaks": budget.breaks,
                                   "sites": [{"file": f, "line": n, "gb_type": gb} for f, n, gb in budget.sites]}
    payload = {"tool": "breaklint", "kind": KIND, "format": FORMAT, "targets": dict(sorted(targets.items()))}
    try:
        path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BudgetError(f"cannot write budget {path}: {exc.strerror or exc}") from None
    return len(targets)


def read(path: Path) -> dict[str, TargetBudget]:
    from .baseline import read_json

    payload = read_json(path, "budget", BudgetError)
    if not isinstance(payload, dict) or payload.get("kind") != KIND or payload.get("format") != FORMAT:
        raise BudgetError(f"{path} is not a graph-break budget of this breaklint (format {FORMAT}); "
                          f"record it again with `--write-baseline`")
    targets = payload.get("targets")
    if not isinstance(targets, dict):
        raise BudgetError(f"budget {path}: `targets` must be an object")
    out = {}
    for name, entry in targets.items():
        try:
            sites = [(s["file"], s["line"], s["gb_type"]) for s in entry["sites"]]
            graphs, breaks = entry["graphs"], entry["breaks"]
        except (KeyError, TypeError):
            raise BudgetError(f"budget {path}: target {name!r} needs graphs, breaks and sites "
                              f"(each with file, line and gb_type)") from None
        if not (all(isinstance(f, str) and type(n) is int and isinstance(gb, str) for f, n, gb in sites)
                and type(graphs) is int and type(breaks) is int):
            raise BudgetError(f"budget {path}: target {name!r} has a field of the wrong type")
        out[name] = TargetBudget(graphs=graphs, breaks=breaks, sites=sorted(sites))
    return out


def compare(budget: dict[str, TargetBudget], reports: list, root: Path) -> list[Verdict]:
    """Each target that ran against its budget (a target with none is held to no breaks at all)."""
    from ..dynamic.explain import describe_gb

    verdicts = []
    for rep in reports:
        if not rep.ok:
            continue
        now, breaks = observed(rep.data, root)
        was = budget.get(rep.target)
        lines = []
        if was is None:
            lines.append("no budget recorded for this target: held to no graph breaks")
            was = TargetBudget(graphs=1, breaks=0)
        new_sites = Counter(now.sites) - Counter(was.sites)
        worse = now.graphs > was.graphs or now.breaks > was.breaks or bool(new_sites)
        if now.graphs != was.graphs or now.breaks != was.breaks:
            lines.append(f"{was.graphs} -> {now.graphs} graphs, {was.breaks} -> {now.breaks} breaks")
        shown = Counter()
        for brk in breaks:
            site = brk["site"]
            if shown[site] < new_sites[site]:
                shown[site] += 1
                info = describe_gb(brk.get("gb_type"))
                where = f"{site[0]}:{site[1]}" if site[0] else "(no frame in the project)"
                name = brk.get("gb_name") or info.get("gb_name") or ""
                lines.append(f"new break at {where}: {site[2] or 'graph break'} {name}".rstrip())
                lines.append(f"    reason: {' '.join((brk.get('reason') or '').split())[:300]}")
                for hint in (brk.get("hints") or info.get("hints") or [])[:2]:
                    lines.append(f"    hint: {hint}")
        if not worse and (now.graphs < was.graphs or now.breaks < was.breaks):
            lines.append("better than the budget: record it with `--write-baseline` to keep it that way")
        verdicts.append(Verdict(target=rep.target, worse=worse, lines=lines))
    return verdicts
