"""Measure the static pass against dynamo: which predicted breaks are real, which were missed.

A calibration file is a Python module with a zero-argument `cases()` that
returns `(callable, args)` or `(callable, args, kwargs)` tuples, the same
shape the dynamic pass takes. Lines may carry `# expect: BL101[, BL2..]`.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..calibration import PYTHON_BOUND
from ..config import Config
from ..dynamo_settings import release
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


def calibrate(path: Path, settings: dict | None = None) -> Calibration:
    """Run the file's cases under dynamo. A fixture may set dynamo settings when imported (those of
    `fixtures/settings/`), and `settings` patches more: either way they hold for this file alone."""
    import torch

    from .explain import collect_breaks, in_file

    config = torch._dynamo.config
    saved = config.get_config_copy()
    try:
        with config.patch(**(settings or {})):
            module = load_module(path)
            within = in_file(path)
            cal = Calibration(path=path, static=[f for f in static_findings(path) if f.kind in ("break", "hazard")])
            torch.manual_seed(0)  # the cases' random inputs are the same on every run
            for case in module.cases():
                fn, args, kwargs = (*case, {})[:3] if len(case) == 2 else case
                try:
                    breaks, _ = collect_breaks(fn, args, kwargs)
                except Exception:  # noqa: BLE001 - dynamo failed to compile it (under a setting, at times)
                    for line in _source_lines(fn):  # it runs no compiled code: as if each line broke
                        cal.sites.setdefault(line, set()).add("error")
                    continue
                for brk in breaks:
                    site = brk.site(within)
                    if site is not None:
                        cal.sites.setdefault(site[1], set()).add(brk.gb_type or "?")
    finally:
        with warnings.catch_warnings():  # reading a deprecated setting warns
            warnings.simplefilter("ignore")
            for name, value in saved.items():  # what the fixture set on import goes with it
                if getattr(config, name) != value:
                    setattr(config, name, value)
        torch._dynamo.reset()
    return cal


def _source_lines(fn) -> range:
    """The lines of a case's function (of a module's forward, for a compiled module)."""
    import inspect

    target = getattr(fn, "_orig_mod", fn)
    if not inspect.isfunction(inspect.unwrap(target)) and not inspect.ismethod(target):
        target = type(target).forward
    try:
        lines, start = inspect.getsourcelines(inspect.unwrap(target))
    except (OSError, TypeError):
        return range(0)
    return range(start, start + len(lines))


# The values each supported setting is calibrated with, when patched around a rule's own fixture.
def setting_values() -> dict[str, object]:
    import logging
    import warnings as warnings_module

    logging_functions = {print, logging.debug, logging.info, logging.warning, logging.error,
                         warnings_module.warn}
    return {
        "capture_scalar_outputs": True,
        "capture_dynamic_output_shape_ops": True,
        "allow_rnn": True,
        "trace_autograd_ops": True,
        "reorderable_logging_functions": logging_functions,
        "ignore_logger_methods": {*logging_functions, logging.Logger.debug, logging.Logger.info,
                                  logging.Logger.warning, logging.Logger.error},
    }


def record(fixtures: Path) -> dict:
    """What dynamo does on the installed torch, for `calibration.json`: for each rule, how many of the
    lines its fixture marks break, with no setting and with each supported setting patched in; for
    each fixture under `settings/`, whether the static pass (reading the setting from the file) and
    dynamo agree line for line."""
    import torch

    from ..registry import rule_codes

    codes = set(rule_codes())
    rules: dict[str, dict[str, list[int]]] = {}
    for path in sorted(fixtures.glob("BL*.py")):
        text = path.read_text(encoding="utf-8")
        if path.stem not in codes or "def cases(" not in text:
            continue
        marked = {line for line, code in expected_markers(text) if code == path.stem}
        bound = PYTHON_BOUND.get(path.stem)
        if not marked or (bound is not None and sys.version_info[:2] >= bound):
            continue  # a rule this Python has no break of: its row would speak of the Python, not of torch
        row = {"none": [len(marked & set(calibrate(path).sites)), len(marked)]}
        for name, value in setting_values().items():
            try:
                sites = calibrate(path, {name: value}).sites
            except Exception:  # noqa: BLE001 - a setting this torch lacks, or a case it makes fail
                continue
            row[name] = [len(marked & set(sites)), len(marked)]
        rules[path.stem] = row
    settings: dict[str, dict] = {}
    for path in sorted((fixtures / "settings").glob("*.py")):
        try:
            cal = calibrate(path)
        except (AttributeError, KeyError, TypeError) as exc:
            settings[path.stem] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        settings[path.stem] = {"dynamo": sorted(cal.sites), "static": sorted(cal.break_lines()),
                               "agree": cal.break_lines() == set(cal.sites)}
    return {"torch": torch.__version__.split("+")[0], "rules": rules, "settings": settings}


def main(argv: list[str] | None = None) -> int:
    """Print a table of true positives, false alarms and misses per file; with `--record FILE`,
    add what the installed torch does on the rules' fixtures to FILE (see `record`)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--record", type=Path, help="the calibration file to add this torch's results to")
    parser.add_argument("--lines", action="store_true", help="list each line the static pass or dynamo names")
    parser.add_argument("--set", action="append", default=[], metavar="SETTING=VALUE",
                        help="a dynamo setting patched around every file (`capture_dynamic_output_shape_ops=True`)")
    args = parser.parse_args(argv)
    settings = {}
    for given in args.set:
        name, _, value = given.partition("=")
        if value not in ("True", "False"):
            parser.error(f"--set {given}: only True or False settings are taken")
        settings[name.strip()] = value == "True"
    if args.record:
        result = record(args.paths[0])
        data = json.loads(args.record.read_text(encoding="utf-8")) if args.record.is_file() else {}
        data.setdefault("versions", {})[result.pop("torch")] = result
        data["versions"] = dict(sorted(data["versions"].items(), key=lambda kv: release(kv[0])))
        args.record.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        print(f"recorded {len(result['rules'])} rules and {len(result['settings'])} settings in {args.record}")
        return 0
    files = []
    for p in args.paths:
        files.extend(sorted(p.glob("*.py")) if p.is_dir() else [p])
    total = [0, 0, 0]
    print(f"{'file':<28} {'predicted':>9} {'confirmed':>9} {'false':>6} {'missed':>6}")
    for path in files:
        if "def cases(" not in path.read_text(encoding="utf-8", errors="replace"):
            continue
        cal = calibrate(path, settings)
        tp, fp, fn = len(cal.true_positives), len(cal.false_positives), len(cal.misses)
        total = [total[0] + tp, total[1] + fp, total[2] + fn]
        print(f"{path.name:<28} {len(cal.break_lines()):>9} {tp:>9} {fp:>6} {fn:>6}")
        if args.lines:
            _print_lines(cal)
    tp, fp, fn = total
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"{'total':<28} {tp + fp:>9} {tp:>9} {fp:>6} {fn:>6}")
    print(f"precision {precision:.3f}  recall {recall:.3f}")
    return 0


def _print_lines(cal: Calibration) -> None:
    """Each line of a file that the static pass reports a break on or dynamo breaks on: the codes of
    the one, the graph-break types of the other, and the line's text."""
    source = cal.path.read_text(encoding="utf-8", errors="replace").splitlines()
    codes: dict[int, set[str]] = {}
    for finding in cal.static:
        if finding.kind == "break":
            codes.setdefault(finding.line, set()).add(finding.code)
    for line in sorted(set(codes) | set(cal.sites)):
        static = ",".join(sorted(codes.get(line, ()))) or "-"
        dynamo = ",".join(sorted(cal.sites.get(line, ()))) or "-"
        print(f"  {line:>5}  static {static:<14} dynamo {dynamo:<14} {source[line - 1].strip()[:60]}")


if __name__ == "__main__":
    raise SystemExit(main())
