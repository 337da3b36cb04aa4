"""Measure the static pass against dynamo: which predicted breaks are real, which were missed.

A calibration file is a Python module with a zero-argument `cases()` that
returns `(callable, args)` or `(callable, args, kwargs)` tuples, the same
shape the dynamic pass takes. Lines may carry `# expect: BL101[, BL2..]`.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..engine import combine, analyze_source
from ..finding import Finding

_EXPECT = re.compile(r"expect:\s*((?:BL\d{3}\s*,?\s*)+)")


def expected_markers(source: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        if "#" not in line:
            continue
        match = _EXPECT.search(line[line.index("#"):])
        if match:
            for code in re.findall(r"BL\d{3}", match.group(1)):
                out.add((lineno, code))
    return out


def static_findings(path: Path, config: Config | None = None) -> list[Finding]:
    config = config or Config(select=["ALL"], root=path.parent)
    result = combine([analyze_source(path.read_bytes(), path, path.stem)], config)
    return result.all


def load_module(path: Path):
    name = f"_breaklint_calibration_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Calibration:
    path: Path
    static: list[Finding]
    sites: dict[int, set[str]] = field(default_factory=dict)  # line -> GB types dynamo reported there

    def break_lines(self) -> set[int]:
        return {f.line for f in self.static if f.kind == "break"}

    @property
    def true_positives(self) -> set[int]:
        return self.break_lines() & set(self.sites)

    @property
    def false_positives(self) -> set[int]:
        return self.break_lines() - set(self.sites)

    @property
    def misses(self) -> set[int]:
        return set(self.sites) - self.break_lines()


def calibrate(path: Path) -> Calibration:
    from .explain import collect_breaks, in_file

    module = load_module(path)
    within = in_file(path)
    cal = Calibration(path=path, static=[f for f in static_findings(path) if f.kind in ("break", "hazard")])
    for case in module.cases():
        fn, args, kwargs = (*case, {})[:3] if len(case) == 2 else case
        breaks, _ = collect_breaks(fn, args, kwargs)
        for brk in breaks:
            site = brk.site(within)
            if site is not None:
                cal.sites.setdefault(site[1], set()).add(brk.gb_type or "?")
    return cal


def main(argv: list[str] | None = None) -> int:
    """Print a table of true positives, false alarms and misses per file."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    files = []
    for p in args.paths:
        files.extend(sorted(p.glob("*.py")) if p.is_dir() else [p])
    total = [0, 0, 0]
    print(f"{'file':<28} {'predicted':>9} {'confirmed':>9} {'false':>6} {'missed':>6}")
    for path in files:
        if "def cases(" not in path.read_text(encoding="utf-8", errors="replace"):
            continue
        cal = calibrate(path)
        tp, fp, fn = len(cal.true_positives), len(cal.false_positives), len(cal.misses)
        total = [total[0] + tp, total[1] + fp, total[2] + fn]
        print(f"{path.name:<28} {len(cal.break_lines()):>9} {tp:>9} {fp:>6} {fn:>6}")
    tp, fp, fn = total
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"{'total':<28} {tp + fp:>9} {tp:>9} {fp:>6} {fn:>6}")
    print(f"precision {precision:.3f}  recall {recall:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
