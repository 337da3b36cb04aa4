"""`breaklint explain --what-if`: breaks that vanish under a dynamo setting instead of a rewrite.

Each target runs once more per setting (in a process of its own, as always), with the setting on and
eager and compiled outputs compared. Per target and setting: which break sites disappear, which
appear, and whether the outputs still agree; the one line to add when the setting pays.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# torch._dynamo.config settings that trade a break for a graph that handles the value symbolically,
# and the GB types (the registry's) whose breaks they are meant to remove.
REMEDIES: dict[str, tuple[str, ...]] = {
    "capture_scalar_outputs": ("GB0124",),  # .item() and friends
    "capture_dynamic_output_shape_ops": ("GB0036",),  # nonzero, boolean masks, unique
}


@dataclass
class Outcome:
    target: str
    setting: str
    before: int
    after: int
    removed: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, GB type)
    added: list[tuple[str, int, str]] = field(default_factory=list)
    outputs_agree: bool | None = None
    error: str = ""

    @property
    def pays(self) -> bool:
        return bool(self.removed) and not self.added and self.outputs_agree is True and not self.error

    @property
    def line(self) -> str:
        return f"torch._dynamo.config.{self.setting} = True"


def _sites(data: dict, root: Path) -> list[tuple[str, int, str]]:
    from ..adopt.budget import observed

    return observed(data, root)[0].sites


def compare(reports: list, runs: dict[str, list], root: Path) -> list[Outcome]:
    """`reports`: the targets' plain runs; `runs`: per setting, the same targets' runs with it on."""
    from collections import Counter

    outcomes = []
    for index, base in enumerate(reports):
        if not base.ok:
            continue
        before = _sites(base.data, root)
        for setting, with_setting in runs.items():
            rep = with_setting[index]
            if not rep.ok:
                outcomes.append(Outcome(base.target, setting, len(before), 0, error=rep.error))
                continue
            after = _sites(rep.data, root)
            removed = sorted((Counter(before) - Counter(after)).elements())
            added = sorted((Counter(after) - Counter(before)).elements())
            outcomes.append(Outcome(base.target, setting, len(before), len(after), removed, added,
                                    rep.data.get("outputs_agree")))
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    rows = ["| target | setting | breaks | sites removed | outputs agree | add |",
            "| --- | --- | ---: | --- | --- | --- |"]
    for o in outcomes:
        removed = ", ".join(f"{f}:{n}" + (f" ({gb})" if gb else "") for f, n, gb in o.removed) or "none"
        if o.added:
            removed += "; new: " + ", ".join(f"{f}:{n}" for f, n, _ in o.added)
        agree = o.error or {True: "yes", False: "no", None: "?"}[o.outputs_agree]
        rows.append(f"| {o.target} | `{o.setting}` | {o.before} -> {o.after} | {removed} | {agree} | "
                    f"{'`' + o.line + '`' if o.pays else ''} |")
    return "\n".join(rows) + "\n"


def resolved_sites(outcomes: list[Outcome]) -> dict[tuple[str, int], str]:
    """(real path, line) -> the setting that removes the break there with outputs unchanged."""
    out = {}
    for o in outcomes:
        if o.pays:
            for file, line, _ in o.removed:
                out[(os.path.realpath(file), line)] = o.setting
    return out
