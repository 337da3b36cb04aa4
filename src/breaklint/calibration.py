"""Which torch releases each rule's break was confirmed on, and what each dynamo setting does to it.

`calibration.json` beside this module is data written by running the rules' fixtures under dynamo,
one torch release at a time (`python -m breaklint.dynamic.calibrate --record
src/breaklint/calibration.json fixtures`): for each rule, how many of the lines its fixture marks
break with no setting and with each supported setting patched in. It is read as JSON, never
executed, and nothing here imports torch.

A finding's verdict for the project's `target-torch`: calibrated releases are ordered, the one
that answers for a target is the newest at or below it (the oldest, for a target older than all).
Where a rule's fixture breaks on no line on that release, its findings are dropped; where
releases differ, the finding says from which release on its break was confirmed.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from .dynamo_settings import release

DATA = Path(__file__).with_name("calibration.json")
# rules whose break only Python releases before this one have (`functools.cached_property`'s lock went
# in 3.12, and 3.12 inlines comprehensions): reported only for code that runs on one (`Config.python_release`), and recorded only by a
# calibration run under one, which the releases recorded under a later Python lack
PYTHON_BOUND: dict[str, tuple[int, int]] = {"BL439": (3, 12), "BL440": (3, 12)}


@cache
def table(path: Path = DATA) -> dict[str, dict]:
    """Calibrated release -> its record, oldest first ({} when the file is missing or broken)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    versions = data.get("versions", {}) if isinstance(data, dict) else {}
    return dict(sorted(versions.items(), key=lambda kv: release(kv[0])))


@cache
def installed_torch() -> str | None:
    """The installed torch's release, from the name of its `torch-X.Y.Z.dist-info` folder on the
    import path (neither torch nor `importlib.metadata`, a twentieth of a cold run, is imported)."""
    import os
    import sys

    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            match = re.fullmatch(r"torch-(\d+\.\d+(?:\.\d+)?)[^-]*\.dist-info", name)
            if match:
                return match.group(1)
    return None


def target_release(configured: str | None, versions: dict[str, dict]) -> str | None:
    """The release findings are for: the configured one, else the installed torch, else the newest
    calibrated."""
    return configured or installed_torch() or (list(versions)[-1] if versions else None)


def answering(target: str, versions: dict[str, dict]) -> str | None:
    """The calibrated release that answers for `target`."""
    if not versions:
        return None
    # by minor release: a patch release does not change what dynamo traces, and `target-torch = "2.14"`
    # means any 2.14.x
    at_or_below = [v for v in versions if release(v)[:2] <= release(target)[:2]]
    return at_or_below[-1] if at_or_below else list(versions)[0]


def counts(code: str, versions: dict[str, dict], setting: str = "none") -> dict[str, tuple[int, int]]:
    """Release -> (lines that broke, lines marked) of the rule's fixture, for those that recorded it."""
    out = {}
    for version, record in versions.items():
        row = record.get("rules", {}).get(code, {}).get(setting)
        if isinstance(row, list) and len(row) == 2 and row[1]:
            out[version] = (int(row[0]), int(row[1]))
    return out


def verdict(code: str, target: str | None, versions: dict[str, dict]) -> tuple[bool, str]:
    """(whether the rule's findings stand on `target`, what the finding should say about releases)."""
    rows = counts(code, versions)
    if target is None or not rows:
        return True, ""
    at = answering(target, {v: versions[v] for v in rows})
    broke, marked = rows[at]
    if broke == 0:
        return False, ""
    if all(b == m for b, m in rows.values()):
        return True, ""  # the same on every calibrated release: nothing to say
    if broke == marked:  # full here: say from which release on, and until which one
        order = list(rows)
        i = j = order.index(at)
        while i > 0 and rows[order[i - 1]][0] == rows[order[i - 1]][1]:
            i -= 1
        while j + 1 < len(order) and rows[order[j + 1]][0] == rows[order[j + 1]][1]:
            j += 1
        since = order[i] if i > 0 else None
        until = order[j + 1] if j + 1 < len(order) else None
        if until is None:
            return True, f"breaks on torch >= {since}"
        b, m = rows[until]
        later = f"torch {until} traces it" if b == 0 else f"on torch {until}, {b} of the rule's {m} calibration cases break"
        return True, (f"breaks on torch >= {since}; " if since else "") + later
    return True, f"on torch {at}, {broke} of the rule's {marked} calibration cases break"


def markdown(versions: dict[str, dict] | None = None) -> str:
    """The README's calibration table: for each break rule a setting changes, how many of its
    fixture's lines still break under it, per calibrated torch release (`python -m breaklint.calibration`)."""
    from .dynamo_settings import SUPPORTED
    from .registry import rule_codes, rule_info

    versions = table() if versions is None else versions
    names = list(versions)
    header = ["rule", "setting", *[f"torch {v}" for v in names]]
    rows = [header, ["---"] * len(header)]
    quiet = []
    for code in rule_codes():
        if rule_info(code).kind != "break":
            continue
        base = [counts(code, versions).get(v) for v in names]
        changed = [s for s in SUPPORTED if [counts(code, versions, s).get(v) for v in names] != base]
        if not changed and len({b for b in base}) == 1 and base[0] and base[0][0] == base[0][1]:
            quiet.append(code)  # every line breaks on every release, whatever the settings
            continue
        for setting in ("none", *SUPPORTED):
            cells = [counts(code, versions, setting).get(v) for v in names]
            if setting != "none" and cells == base:
                continue  # the setting changes nothing for this rule
            shown = [f"{c[0]} of {c[1]}" if c else "not run" for c in cells]
            rows.append([f"{code} {rule_info(code).name}" if setting == "none" else "",
                         "(none)" if setting == "none" else f"`{setting}`", *shown])
    if quiet:
        rows.append([f"{len(quiet)} other rules ({quiet[0]} ... {quiet[-1]})", "(none) or any", *["all" for _ in names]])
    return "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
