"""Check `breaklint explain` against `TORCH_LOGS=graph_breaks`, run on its own, and print a table.

    python bench/dynamic_check.py [--device auto|cpu|cuda] --paths LIBRARY_DIR TARGET...

For each target: breaklint's dynamic report (graphs, breaks, confirmed, missed by
the static pass, false alarms, not run, recompiles), and whether every break
site that torch's own graph-break log names inside LIBRARY_DIR is in that report
at the same file and line. Exits 1 when a site is missing or extra.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path


def torch_logs_sites(target: str, root: Path, device: str) -> set[tuple[str, int]]:
    where, factory = target.rsplit(":", 1)
    code = textwrap.dedent(f'''
        import importlib.util, sys, torch
        from breaklint.dynamic.worker import to_device
        spec = importlib.util.spec_from_file_location("t", {where!r})
        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        dev = {device!r}
        if dev == "auto":
            dev = "cuda" if torch.cuda.is_available() else "cpu"
        for case in m.{factory}():
            fn, args = to_device(case[0], dev), to_device(case[1], dev)
            torch._dynamo.reset()
            with torch.no_grad():
                torch.compile(fn, backend="eager")(*args)
    ''')
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TORCH_LOGS": "graph_breaks"})
    if proc.returncode != 0:
        raise SystemExit(f"{target}: the TORCH_LOGS run failed:\n{proc.stderr[-3000:]}")
    sites = set()
    real_root = os.path.realpath(root)
    for block in proc.stderr.split("Graph break")[1:]:
        frames = re.findall(r'File "([^"]+)", line (\d+)', block) or re.findall(r"user code at (\S+):(\d+)", block)
        inside = [(os.path.realpath(f), int(n)) for f, n in frames
                  if os.path.realpath(f).startswith(real_root + os.sep)]
        if inside:
            sites.add(inside[-1])
    return sites


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=Path, required=True)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--timeout", default="600")
    parser.add_argument("targets", nargs="+")
    args = parser.parse_args()
    header = f"{'target':<34} {'device':<6} {'graphs':>6} {'breaks':>6} {'logs':>5} {'match':>5} " \
             f"{'confirmed':>9} {'missed':>6} {'false':>5} {'not-run':>7} {'recomp':>6} {'secs':>6}"
    rows, ok = [], True
    for target in args.targets:
        proc = subprocess.run([sys.executable, "-m", "breaklint", "explain", target, "--paths", str(args.paths),
                               "--device", args.device, "--timeout", args.timeout, "--format", "json",
                               "--no-cache"], capture_output=True, text=True)
        if proc.returncode == 2 or not proc.stdout.strip():
            rows.append(f"{target:<34} failed: {proc.stderr.strip().splitlines()[-1:]}")
            ok = False
            continue
        report = json.loads(proc.stdout)
        [info] = report["targets"]
        found = {(os.path.realpath(args.paths / f["path"]) if not os.path.isabs(f["path"]) else f["path"], f["line"])
                 for f in report["findings"] if f["status"] in ("confirmed", "dynamic-only")}
        found = {(os.path.realpath(p), line) for p, line in found}
        logs = torch_logs_sites(target, args.paths, args.device)
        s = report["summary"]
        match = "yes" if logs == found else "NO"
        ok &= logs == found
        rows.append(f"{target:<34} {info['device']:<6} {s['graphs']:>6} {s['breaks']:>6} {len(logs):>5} {match:>5} "
                    f"{s['confirmed']:>9} {s['missed']:>6} {s['false_alarms']:>5} {s['not_run']:>7} "
                    f"{len(report['recompiles']):>6} {info['seconds']:>6.1f}")
        if logs != found:
            rows.append(f"    only in TORCH_LOGS: {sorted(logs - found)}")
            rows.append(f"    only in breaklint:  {sorted(found - logs)}")
        for f in report["findings"]:
            if f["status"] in ("dynamic-only", "confirmed", "not-reproduced") and f["kind"] == "break":
                rows.append(f"    {f['status']:<15} {f['path']}:{f['line']} {f['code']} {f['message'][:90]}")
    print(header)
    print("\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
