"""What `--fix` removes on real libraries, by dynamo's count.

    python bench/fix_check.py tm monai diffusers kornia pyg   # libraries of bench/accuracy/cases.py
    python bench/fix_check.py kornia --cases aug__            # some of one library's cases
    python bench/fix_check.py --fixtures                      # the project's own fixtures

Runs in the accuracy harness's venv (made on first use, see bench/accuracy/run.py). For each library
it copies the installed package twice and applies `breaklint --fix`, then `--fix --unsafe-fixes`, to
the copies, with the accuracy harness's `entry-points` (the functions its function cases compile).
Then it runs every case of the library (models also in training mode, as the harness does) under
`torch._dynamo.explain` against the original, each fixed copy, and the original under each dynamo
setting `breaklint explain --what-if` tries. It counts the break sites inside the package (a line of
a fixed file is mapped back to the original's line it came from) and compares each case's eager
outputs with the original's (same random seed; `torch.allclose` on every tensor). For the settings,
it compares compiled with eager outputs instead, as `--what-if` does.

Prints a table per library and the total.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import linecache
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "accuracy"))

RUNNER = r'''
import json, os, sys, importlib, torch
from torch.utils._pytree import tree_flatten
sys.path.insert(0, sys.argv[1])
import cases
from breaklint.dynamic.worker import normalize_cases, _outputs_agree
from breaklint.dynamic.explain import collect_breaks, eager_callable
package, names, config, compare, out = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
for key, value in config.items():
    setattr(torch._dynamo.config, key, value)
pkg_dir = os.path.realpath(os.path.dirname(importlib.import_module(package).__file__))
report, outputs = {"dir": pkg_dir, "cases": {}}, {}

def plain(value):
    """Outputs as tensors, numbers and strings in lists and dicts (a safe `torch.load`)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if hasattr(value, "__dict__"):
        return {str(k): plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value if isinstance(value, (int, float, bool, str, type(None))) else repr(type(value))

for name in names:
    case_name, _, mode = name.partition("@")
    entry = report["cases"][name] = {"sites": [], "error": None}
    try:
        torch.manual_seed(0)
        (fn, args, kwargs), = normalize_cases(getattr(cases, case_name)())[:1]
        fn = eager_callable(fn)
        if isinstance(fn, torch.nn.Module):
            fn.train(mode == "train")
        grad = torch.enable_grad if mode == "train" else torch.no_grad
        with grad():
            torch.manual_seed(0)
            breaks, _ = collect_breaks(fn, args, kwargs)
            torch.manual_seed(0)
            outputs[name] = plain(fn(*args, **kwargs))
            if compare:
                entry["agree"] = _outputs_agree(fn, args, kwargs)
    except BaseException as exc:
        entry["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        continue
    sites = set()
    for brk in breaks:
        for filename, line in reversed(brk.frames):
            if os.path.realpath(filename).startswith(pkg_dir + os.sep):
                sites.add((os.path.relpath(os.path.realpath(filename), pkg_dir), line))
                break
    entry["sites"] = sorted(sites)
torch.save(outputs, out + ".pt")
with open(out, "w") as fh:
    json.dump(report, fh)
'''

SETTINGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


def case_names(library: str, only: list[str]) -> list[str]:
    import cases

    names = cases.names([library])
    runs = [*names, *(f"{n}@train" for n in names if tuple(n.split("__")[:2]) in cases.TRAIN_GROUPS)]
    return [n for n in runs if not only or any(o in n for o in only)]


def fix_copy(library: str, package: str, names: list[str], root: Path, flags: list[str]) -> str:
    """Copy the package under `root`, fix it there; the summary line breaklint printed."""
    import cases

    source = Path(importlib.util.find_spec(package).origin).parent
    shutil.copytree(source, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    entries = cases.entry_points([n for n in names if "@" not in n])
    (root / "pyproject.toml").write_text("[tool.breaklint]\nentry-points = " + json.dumps(entries) + "\n")
    proc = subprocess.run([sys.executable, "-m", "breaklint", *flags, "--no-cache", "--exit-zero", package],
                          cwd=root, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"breaklint failed on the {library} copy:\n{proc.stderr[-2000:]}")
    return next((ln for ln in proc.stdout.splitlines() if ln.startswith("Fixed ")), "Fixed 0 findings")


def run(package: str, names: list[str], out: Path, pythonpath: Path | None = None,
        config: dict | None = None) -> dict:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(HERE / "accuracy"), package, json.dumps(names),
                           json.dumps(config or {}), "1" if config else "0", str(out)],
                          env=env, capture_output=True, text=True, timeout=3600, cwd=HERE / "accuracy")
    if proc.returncode != 0:
        raise SystemExit(f"{package}: {proc.stderr[-3000:]}")
    report = json.loads(out.read_text())
    import torch

    report["outputs"] = torch.load(f"{out}.pt", weights_only=True)
    return report


def same(a, b) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and torch.allclose(a.float(), b.float(), atol=1e-5, rtol=1e-4, equal_nan=True)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and (a == b or a != a and b != b)


def line_map(before: Path, after: Path) -> dict[int, int]:
    """Line of the fixed file -> the original line it came from (a rewritten line: its statement's first)."""
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    out = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            out[j + 1] = (i1 + (j - j1) if tag == "equal" else i1) + 1
    return out


def sites(report: dict, original: Path | None = None, copy: Path | None = None) -> dict[str, set]:
    """Case -> its break sites, in the original package's lines."""
    maps: dict[str, dict[int, int]] = {}
    out = {}
    for name, entry in report["cases"].items():
        if entry["error"]:
            continue
        found = set()
        for rel, line in entry["sites"]:
            if copy is not None:
                if rel not in maps:
                    maps[rel] = line_map(original / rel, copy / rel)
                line = maps[rel].get(line, line)
            found.add((rel, line))
        out[name] = found
    return out


def library_table(library: str, package: str, names: list[str], tmp: Path, jobs: int) -> list[tuple]:
    original = Path(importlib.util.find_spec(package).origin).parent
    fixed = {"safe": ["--fix"], "safe+unsafe": ["--fix", "--unsafe-fixes"]}
    summary = {mode: fix_copy(library, package, names, tmp / library / mode, flags) for mode, flags in fixed.items()}
    # The original and the fixed copies run every case (a fix must not change any case's outputs);
    # the dynamo settings only matter for the cases that break.
    jobs_list = [("original", None, None)]
    jobs_list += [(mode, tmp / library / mode, None) for mode in fixed]
    settings = [(setting, None, {setting: True}) for setting in SETTINGS]
    settings += [("safe+unsafe, both settings", tmp / library / "safe+unsafe", dict.fromkeys(SETTINGS, True))]

    def one(job, only=names):
        mode, root, config = job
        return mode, run(package, only, tmp / library / f"{mode}.json", root, config)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        reports = dict(pool.map(one, jobs_list))
        breaking = [n for n, e in reports["original"]["cases"].items() if e["sites"]]
        reports.update(pool.map(lambda job: one(job, breaking), settings))
    jobs_list += settings
    base = reports["original"]
    base_sites = sites(base)
    failed = sorted(n for n, e in base["cases"].items() if e["error"])
    for name in failed:
        print(f"  {library}: {name} does not run: {base['cases'][name]['error'][:120]}", file=sys.stderr)
    rows = []
    for mode, root, config in jobs_list:
        rep = reports[mode]
        now = sites(rep, original, root / package if root else None)
        ran = [n for n in base_sites if n in rep["cases"]]  # the settings run only the breaking cases
        broken = sorted(n for n in ran if n not in now)  # ran on the original, raises here
        # Sites are compared over the cases that run both ways; a case that now raises is counted apart.
        before = {(n, s) for n in ran if n in now for s in base_sites[n]}
        after = {(n, s) for n in ran if n in now for s in now[n]}
        if config:
            changed = sorted(n for n in ran if n in now and not rep["cases"][n].get("agree", True))
        else:
            changed = sorted(n for n in ran if n in now and not same(base["outputs"].get(n), rep["outputs"].get(n)))
        unique_before = {s for _, s in before}
        unique_after = {s for _, s in after}
        fixed_line = summary.get(mode) or (summary["safe+unsafe"] if root else "")
        rows.append((library, mode, len(ran), len(unique_before), len(unique_after),
                     len(unique_before - unique_after), len(unique_after - unique_before),
                     len(before), len(after), changed, broken, fixed_line))
        for name in broken:
            print(f"  {library} {mode}: {name} no longer runs: {rep['cases'][name]['error'][:160]}", file=sys.stderr)
        for name in changed:
            print(f"  {library} {mode}: {name}: outputs changed", file=sys.stderr)
        if os.environ.get("FIX_CHECK_VERBOSE"):
            for s in sorted(unique_before - unique_after):
                print(f"  {library} {mode}: removed {s[0]}:{s[1]}", file=sys.stderr)
            for s in sorted(unique_after - unique_before):
                print(f"  {library} {mode}: new {s[0]}:{s[1]}", file=sys.stderr)
            for s in sorted(unique_after & unique_before) if mode == "safe+unsafe" else ():
                text = linecache.getline(str(original / s[0]), s[1]).strip()
                print(f"  {library} {mode}: left {s[0]}:{s[1]}: {text[:100]}", file=sys.stderr)
    return rows


# Fixtures whose outputs hold a clock reading or a random draw: compared by shape and dtype only.
VARYING = {"BL404.py", "BL405.py"}


def _eager_outputs(path: Path, name: str) -> list:
    """Each case of the module at `path`, run eagerly from the same random state; an exception is kept as
    its text (the fixed module must raise no more than the original)."""
    import torch

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        torch.manual_seed(0)
        found = module.cases()
    except Exception as exc:  # the module itself no longer imports: every case fails
        return [f"raised {type(exc).__name__}: {exc}"]
    outputs = []
    for case in found if isinstance(found, list) else [found]:
        fn, args, kwargs = (*case, {})[:3]
        try:
            with torch.no_grad():
                outputs.append(fn(*args, **kwargs))
        except Exception as exc:
            outputs.append(f"raised {type(exc).__name__}: {exc}")
    return outputs


def _shapes(value):
    import torch

    if isinstance(value, torch.Tensor):
        return (tuple(value.shape), value.dtype)
    if isinstance(value, (list, tuple)):
        return [_shapes(v) for v in value]
    return type(value)


def fixtures_table() -> None:
    """The project's fixtures (and the runnable modules of `fixtures/safety/`): break sites dynamo reports
    before and after `--fix` (safe, then safe + unsafe), applied round after round as the CLI does; and
    whether each fixed module still runs eagerly with the original's outputs."""
    from breaklint.fixes import apply as applier
    from breaklint.dynamic.calibrate import calibrate, static_findings

    root = HERE.parent / "fixtures"
    print("| fixtures | run | sites | left | removed | cases that raise | outputs differ |\n|---|---|---|---|---|---|---|")
    totals = {"safe": [0, 0, 0, 0], "safe+unsafe": [0, 0, 0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        # fixtures that run: not engine diagnostics (BL00x), and with cases (a debugger call has none)
        paths = [p for p in [*sorted(root.glob("BL*.py")), *sorted((root / "safety").glob("*.py"))]
                 if not p.name.startswith("BL00") and "def cases(" in p.read_text(encoding="utf-8")]
        for number, path in enumerate(paths):
            before = calibrate(path)
            expected = _eager_outputs(path, f"_fix_check_original_{number}")
            for mode, unsafe in (("safe", False), ("safe+unsafe", True)):
                text, fixed = path.read_text(encoding="utf-8"), Path(tmp) / mode / path.name
                fixed.parent.mkdir(exist_ok=True)
                for _ in range(8):
                    fixed.write_text(text, encoding="utf-8")
                    found = [f.fix for f in static_findings(fixed) if f.fix and (f.fix.safe or unsafe)]
                    new, applied = applier.apply(text, found)
                    if not applied or new == text:
                        break
                    text = new
                fixed.write_text(text, encoding="utf-8")
                after = calibrate(fixed)
                got = _eager_outputs(fixed, f"_fix_check_{mode.replace('+', '_')}_{number}")
                raised = sum(isinstance(g, str) and not isinstance(e, str) for g, e in zip(got, expected))
                raised += max(len(expected) - len(got), 0)
                if path.name in VARYING:
                    differ = sum(_shapes(g) != _shapes(e) for g, e in zip(got, expected) if not isinstance(g, str))
                else:
                    differ = sum(not same(g, e) for g, e in zip(got, expected) if not isinstance(g, str))
                if os.environ.get("FIX_CHECK_VERBOSE") or raised or differ:
                    print(f"  {path.name} {mode}: {len(before.sites)} -> {len(after.sites)} sites, "
                          f"{raised} raise, {differ} differ", file=sys.stderr)
                totals[mode][0] += len(before.sites)
                totals[mode][1] += len(set(before.sites) - set(after.sites))
                totals[mode][2] += raised
                totals[mode][3] += differ
    for mode, (sites_before, removed, raised, differ) in totals.items():
        print(f"| all {len(paths)} | {mode} | {sites_before} | {sites_before - removed} | "
              f"{removed} ({removed / max(sites_before, 1):.0%}) | {raised} | {differ} |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("libraries", nargs="*", help="library keys of bench/accuracy/cases.py (kornia, pyg, tm, ...)")
    parser.add_argument("--cases", action="append", default=[], help="only cases whose name holds this")
    parser.add_argument("--fixtures", action="store_true", help="also the project's fixtures")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.fixtures:
        fixtures_table()
    if not args.libraries:
        return 0
    import cases

    unknown = [lib for lib in args.libraries if lib not in cases.LIBRARIES]
    if unknown:
        parser.error(f"unknown libraries {unknown}; choose from {sorted(cases.LIBRARIES)}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for library in args.libraries:
            names = case_names(library, args.cases)
            done = library_table(library, cases.PACKAGES[library], names, Path(tmp), args.jobs)
            rows += done
            for r in done:  # as each library finishes; the whole table follows at the end
                print(f"{r[0]} {r[1]}: sites {r[3]} -> {r[4]}, removed {r[5]}, new {r[6]}, "
                      f"outputs changed {len(r[9])}, fails {len(r[10])}", file=sys.stderr, flush=True)
    header = ("library", "run", "cases", "sites", "left", "removed", "new", "case-sites", "left",
              "outputs changed", "fails")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} | {r[8]} | "
              f"{len(r[9])} | {len(r[10])} |")
    total = {}
    for r in rows:
        t = total.setdefault(r[1], [0] * 6)
        for i, v in enumerate((r[3], r[4], r[5], r[6], len(r[9]), len(r[10]))):
            t[i] += v
    print("\ntotal over the libraries:")
    print("| run | sites | left | removed | new | outputs changed | fails |\n|---|---|---|---|---|---|---|")
    for mode, t in total.items():
        share = f" ({t[2] / t[0]:.0%})" if t[0] else ""
        print(f"| {mode} | {t[0]} | {t[1]} | {t[2]}{share} | {t[3]} | {t[4]} | {t[5]} |")
    for r in rows:
        if r[11] and r[1] in ("safe", "safe+unsafe"):
            print(f"{r[0]} {r[1]}: {r[11]}")
    return 0


if __name__ == "__main__":
    from run import ensure_environment  # bench/accuracy/run.py: re-run in the harness's venv

    ensure_environment(sys.argv[1:], __file__)
    raise SystemExit(main(sys.argv[1:]))
