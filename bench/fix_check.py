"""What `--fix` does to a real library, by dynamo's count.

    python bench/fix_check.py --package torchvision bench/real_models.py:maskrcnn

Copies the installed package, applies `breaklint --fix` (then `--fix --unsafe-fixes`)
to the copy, and runs the targets against the original and each fixed copy: the
graph breaks dynamo reports inside the package, and whether the eager outputs are
unchanged (torch.allclose on every tensor, same structure otherwise). Prints a table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RUNNER = r'''
import importlib.util, json, os, sys, torch
from breaklint._worker import to_device
from breaklint.dynamic import collect_breaks
where, factory, package, out = sys.argv[1:5]
pkg_dir = os.path.dirname(importlib.import_module(package).__file__)
spec = importlib.util.spec_from_file_location("t", where)
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
dev = "cuda" if torch.cuda.is_available() else "cpu"
sites, outputs = set(), []
torch.manual_seed(0)
for i, case in enumerate(getattr(m, factory)()):
    fn, args = to_device(case[0], dev), to_device(case[1], dev)
    with torch.no_grad():  # dynamo first: it must see the first call, lazily built state included
        torch.manual_seed(i)
        breaks, _ = collect_breaks(fn, args, {})
        torch.manual_seed(i)
        outputs.append(fn(*args))
    for b in breaks:
        site = b.site(lambda f: os.path.realpath(f).startswith(os.path.realpath(pkg_dir) + os.sep))
        if site:
            sites.add((os.path.relpath(site[0], pkg_dir), site[1]))
torch.save(outputs, out + ".pt")
json.dump({"dir": pkg_dir, "sites": sorted(sites)}, open(out, "w"))
'''


def run(target: str, package: str, pythonpath: str | None, out: Path) -> dict:
    where, factory = target.rsplit(":", 1)
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", RUNNER, where, factory, package, str(out)], env=env,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{target}: {proc.stderr[-3000:]}")
    return json.loads(out.read_text())


def same(a, b) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and torch.allclose(a.float(), b.float(), atol=1e-5, rtol=1e-4)
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return torch.allclose(torch.as_tensor(a).float().cpu(), torch.as_tensor(b).float().cpu())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        return same(vars(a), vars(b))
    return a == b


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", required=True)
    parser.add_argument("targets", nargs="+")
    args = parser.parse_args()
    source = Path(importlib.util.find_spec(args.package).origin).parent
    print(f"{'target':<34} {'mode':<13} {'fixed':>5} {'files':>5} {'breaks':>6} {'removed':>7} {'outputs':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        copies = {}
        for mode, flags in (("safe", ["--fix"]), ("safe+unsafe", ["--fix", "--unsafe-fixes"])):
            root = tmp / mode
            shutil.copytree(source, root / args.package, ignore=shutil.ignore_patterns("__pycache__"))
            proc = subprocess.run([sys.executable, "-m", "breaklint", *flags, "--no-cache", "--exit-zero",
                                   args.package], cwd=root, capture_output=True, text=True)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("Fixed ")), "Fixed 0 findings in 0 files")
            copies[mode] = (root, int(line.split()[1]), int(line.split()[4]))
        for target in args.targets:
            base = run(target, args.package, None, tmp / "base.json")
            before = torch.load(tmp / "base.json.pt", weights_only=False)
            print(f"{target:<34} {'original':<13} {'':>5} {'':>5} {len(base['sites']):>6} {'':>7} {'':>8}")
            for mode, (root, fixed, files) in copies.items():
                rep = run(target, args.package, str(root), tmp / f"{mode}.json")
                assert rep["dir"].startswith(str(root)), "the fixed copy was not the one imported"
                after = torch.load(tmp / f"{mode}.json.pt", weights_only=False)
                removed = len(set(map(tuple, base["sites"])) - set(map(tuple, rep["sites"])))
                print(f"{'':<34} {mode:<13} {fixed:>5} {files:>5} {len(rep['sites']):>6} {removed:>7} "
                      f"{'same' if same(before, after) else 'CHANGED':>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
