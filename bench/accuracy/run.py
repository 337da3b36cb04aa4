"""Precision and recall of the static pass on real libraries, judged by dynamo.

    python bench/accuracy/run.py                 # everything (sets up its own venv the first time)
    python bench/accuracy/run.py --libraries kornia,tm --jobs 2
    python bench/accuracy/run.py --static-only   # rescore the recorded runs against the current static pass

The libraries are pinned in `requirements.txt` (torchvision, timm, transformers and the other
libraries of the independent evaluation are never used here). A third of them is held out by a
rule fixed in `cases.py` (`HELD_OUT`): the report gives the studied and the held-out half side by
side, and lists misses and false alarms of the studied half only (`--show-held-out` once a change
is done). A gain that shows on the studied half and not on the held-out one is not a gain. Each case of `cases.py` (a model or
function of a library with random weights and a small input; whole models also in training
mode) runs in a process of its own under
`torch._dynamo.explain` plus the `graph_breaks` log, and eagerly under a line tracer; the reports
are kept under `.cache/accuracy/runs/` and reused until `--rerun`. The static pass then runs over
each library's whole installed source.

Scoring, per distinct statement (a finding anywhere on the statement dynamo names counts):
- a break site is the innermost frame of a dynamo break that lies inside a scored library;
- recall = break sites covered by a static `break` finding / all break sites;
- a false alarm is a static `break` finding on a statement that ran eagerly in some case, where no
  case broke, and whose function dynamo did not abandon: a break inside a loop or a `try` of the
  function, or one after which dynamo says it is "skipping the function and falling back to
  eager" or, where it cannot resume, "skipping the rest of the function", means the rest of the
  frame runs eagerly and is never traced;
- findings on statements no case ran are "unjudged" and only counted;
- a case counts only in its own library's files: its breaks there, and the lines it ran there (a
  held-out library's case that runs a studied library's code says nothing of that library).
Misses are classified: "not reached" when some rule of the break's graph-break type flags the
statement but the static pass judged its function never compiled; "not known to be a tensor" when
such a rule would flag it but the value analysis could not tell that the value it tests is a tensor;
"no rule" otherwise, listed by dynamo's graph-break type.
The library functions that function cases compile are given to the static pass as
`entry-points`, as a user who compiles them from their own code would; modules need nothing.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = ROOT / ".cache" / "accuracy"
RUNS = CACHE / "runs"
# what dynamo says of a break after which it runs the rest of the frame eagerly: at a break it cannot
# handle, and at one it cannot resume from (it compiles up to the last point it can resume at)
_GIVES_UP = ("Skipping the function and falling back to eager", "then skipping the rest of the function")
VENV = CACHE / "venv"


# ---------------------------------------------------------------------- set-up
def ensure_environment(argv: list[str], script: str = __file__) -> None:
    """Re-run `script` inside the harness's venv, making the venv first if needed."""
    if os.environ.get("BREAKLINT_ACCURACY_VENV") == "1":
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"setting up {VENV} (torch 2.13 CPU and the pinned libraries) ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements.txt"),
                        "-e", str(ROOT)], check=True)
    env = {**os.environ, "BREAKLINT_ACCURACY_VENV": "1"}
    os.execve(str(python), [str(python), script, *argv], env)


# ---------------------------------------------------------------------- statements
@cache
def syntax_tree(path: str) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_bytes())
    except (SyntaxError, ValueError, OSError):
        return None


@cache
def statement_index(path: str) -> dict[int, int]:
    """line -> first line of the innermost statement holding it (headers only for compound ones)."""
    tree = syntax_tree(path)
    if tree is None:
        return {}
    index: dict[int, int] = {}

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                end = child.end_lineno or child.lineno
                bodies = [getattr(child, a) for a in ("body", "orelse", "finalbody", "handlers")
                          if isinstance(getattr(child, a, None), list) and getattr(child, a)]
                if bodies and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    end = min(b[0].lineno for b in bodies) - 1
                    end = max(end, child.lineno)
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    end = child.body[0].lineno - 1 if child.body else end
                    end = max(end, child.lineno)
                for line in range(child.lineno, end + 1):
                    index[line] = child.lineno
            visit(child)

    visit(tree)
    return index


@cache
def headers(path: str) -> set[int]:
    """First lines of `if`/`elif`/`while` statements."""
    tree = syntax_tree(path)
    if tree is None:
        return set()
    return {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.If, ast.While))}


def is_header(key: tuple[str, int]) -> bool:
    return key[1] in headers(key[0])


def stmt_key(path: str, line: int) -> tuple[str, int]:
    return path, statement_index(path).get(line, line)


@cache
def function_facts(path: str) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Per function: (first line, last line, [line spans of its loops])."""
    tree = syntax_tree(path)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # loops, and try bodies: dynamo cannot resume a frame after a break in either, and
            # runs the rest of it eagerly
            loops = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(node)
                     if isinstance(n, (ast.For, ast.While, ast.AsyncFor))]
            loops += [(n.body[0].lineno, n.body[-1].end_lineno or n.body[-1].lineno) for n in ast.walk(node)
                      if isinstance(n, ast.Try) and n.body]
            out.append((node.lineno, node.end_lineno or node.lineno, loops))
    return out


def innermost_function(path: str, line: int) -> tuple[int, int, list[tuple[int, int]]] | None:
    best = None
    for fn in function_facts(path):
        if fn[0] <= line <= fn[1] and (best is None or fn[0] >= best[0]):
            best = fn
    return best


# ---------------------------------------------------------------------- the dynamic runs
def run_cases(names: list[str], roots: list[str], jobs: int, rerun: bool, timeout: float) -> dict[str, dict]:
    from breaklint.dynamic.explain import run_target

    RUNS.mkdir(parents=True, exist_ok=True)
    import cases

    reports: dict[str, dict] = {}
    todo = []
    # models also run in training mode (dropout, stochastic depth, losses on): "<case>@train"
    runs = [*names, *(f"{n}@train" for n in names if tuple(n.split("__")[:2]) in cases.TRAIN_GROUPS)]
    for name in runs:
        out = RUNS / f"{name}.json"
        if out.exists() and not rerun:
            reports[name] = json.loads(out.read_text(encoding="utf-8"))
        else:
            todo.append(name)

    def one(name: str) -> tuple[str, dict]:
        case, _, mode = name.partition("@")
        report = run_target(f"{HERE / 'cases.py'}:{case}", device="cpu", roots=[Path(r) for r in roots],
                            timeout=timeout, cwd=HERE, max_memory=6144, train=mode == "train")
        data = {"ok": report.ok, "error": report.error, "seconds": round(report.seconds, 1), "data": report.data}
        (RUNS / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
        return name, data

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for i, (name, data) in enumerate(pool.map(one, todo), 1):
            reports[name] = data
            status = "ok" if data["ok"] else f"failed: {data['error'][:90]}"
            print(f"[{i}/{len(todo)} {time.monotonic() - start:5.0f}s] {name}: {status}", file=sys.stderr)
    return reports


# ---------------------------------------------------------------------- the static pass
def static_findings(roots: list[str], entries: list[str]):
    from breaklint.config import Config
    from breaklint.analyze import analyze_source
    from breaklint.engine import lint

    findings = []
    files = []
    reached: set[str] = set()
    lifted: dict[str, dict[str, int]] = {}  # root -> setting -> findings its own dynamo settings removed
    for root in roots:
        config = Config(root=Path(root) if os.path.isdir(root) else Path(root).parent)
        config.entry_points = entries
        # the harness's venv lies in this checkout's git-ignored `.cache/`: lint it all the same
        config.respect_gitignore = False
        result = lint([Path(root)], config, use_cache=False)
        if result.lifted:
            lifted[root] = result.lifted
        reached |= result.reached
        findings.extend(result.findings)
        files.extend(result.files)

    @cache
    def unreached(path: str) -> dict[int, set[str]]:
        """Statement -> why candidates there were dropped: "not reached (CODE)" when their function
        was judged never compiled, "not known to be a tensor (CODE)" when the value analysis could
        not tell the value it needed."""
        from breaklint.source import module_name_for

        p = Path(path)
        res = analyze_source(p.read_bytes(), p, module_name_for(p))
        out: dict[int, set[tuple[str, tuple[str, ...]]]] = defaultdict(set)
        for cand in res.candidates:
            if cand.finding.kind == "break":
                why = "not reached" if cand.scope not in reached else "not known to be a tensor"
                out[stmt_key(path, cand.finding.line)[1]].add((f"{why} ({cand.finding.code})", cand.finding.gb_types))
        return out

    return findings, unreached, lifted


# ---------------------------------------------------------------------- scoring
def score(reports: dict[str, dict], roots: list[str], libs: dict[str, str], entries: list[str],
          held_out: frozenset[str] = frozenset(), show_held_out: bool = False, every_miss: bool = False) -> str:
    """The report. Libraries in `held_out` (package names) are scored apart, and only their totals
    are printed unless `show_held_out`: their findings are not to be read while the analysis
    changes."""
    import cases

    real_roots = [os.path.realpath(r) + os.sep for r in roots]

    def inside(filename: str) -> bool:
        real = os.path.realpath(filename)
        return any(real.startswith(r) or real + os.sep == r for r in real_roots)

    def library_of(path: str) -> str:
        real = os.path.realpath(path)
        for lib, root in libs.items():
            if real == os.path.realpath(root) or real.startswith(os.path.realpath(root) + os.sep):
                return lib
        return "?"

    sites: dict[tuple[str, int], dict] = {}  # statement -> {gb, reason, case}
    stack_lines: set[tuple[str, int]] = set()  # every frame of every break, inside the libraries
    abandoned: set[tuple[str, int]] = set()  # break sites after which dynamo ran the rest of the frame eagerly
    ran: set[tuple[str, int]] = set()
    ok = failed = 0
    for name, rep in sorted(reports.items()):
        if not rep["ok"]:
            failed += 1
            continue
        ok += 1
        data = rep["data"]
        # a case speaks only of its own library's code: a held-out library's case that runs a studied
        # library (torchcde's solvers are torchdiffeq's) would otherwise hand its breaks to the studied
        # half, and the other way round
        own = cases.PACKAGES.get(name.split("__")[0])

        def mine(path: str) -> bool:
            return inside(path) and (own is None or library_of(path) == own)
        for path, lines in data.get("lines_run", {}).items():
            if mine(path):
                for line in lines:
                    ran.add(stmt_key(os.path.realpath(path), line))
        for brk in data.get("breaks", []):
            frames = [(f, n) for f, n in brk["frames"]]
            stack_lines.update((os.path.realpath(f), n) for f, n in frames if mine(f))
            site = next(((os.path.realpath(f), n) for f, n in reversed(frames) if inside(f)), None)
            if site is None or not mine(site[0]):
                continue
            key = stmt_key(*site)
            if any(words in (brk.get("reason") or "") for words in _GIVES_UP):
                abandoned.add(site)
            sites.setdefault(key, {"gb": brk.get("gb_type") or "?", "reason": brk["reason"].splitlines()[0][:100]
                                   if brk["reason"] else "", "case": name, "gb_name": brk.get("gb_name", "")})
    findings, unreached, lifted = static_findings(roots, entries)
    breaks = [f for f in findings if f.kind == "break"]
    by_stmt: dict[tuple[str, int], list] = defaultdict(list)
    for f in breaks:
        by_stmt[stmt_key(os.path.realpath(f.path), f.line)].append(f)

    def shadowed(key: tuple[str, int]) -> bool:
        fn = innermost_function(*key)
        if fn is None:
            return False
        # dynamo said it gave up on the frame at an earlier line of this function
        for (path, line) in abandoned:
            if path == key[0] and fn[0] <= line < key[1]:
                inner = innermost_function(path, line)
                if inner is not None and inner[0] == fn[0]:
                    return True
        # a break in a loop of this function (here or in a callee called from the loop): dynamo
        # then runs the whole frame eagerly and never traces the rest of it
        for (path, line) in stack_lines:
            if path == key[0] and fn[0] <= line <= fn[1] and any(a <= line <= b for a, b in fn[2]):
                inner = innermost_function(path, line)
                if inner is not None and inner[0] == fn[0]:
                    return True
        return False

    per_rule = defaultdict(Counter)
    confirmed_sites = set()
    false_alarms = []
    unjudged = 0
    conditional = 0
    for key, fs in by_stmt.items():
        codes = sorted({f.code for f in fs})
        tally = show_held_out or library_of(key[0]) not in held_out
        if key not in sites and all(getattr(f, "condition", "") != getattr(f, "reached_when", "") for f in fs) \
                and is_header(key):
            # a test whose tensor part runs only when the Python conjuncts before it hold: the
            # line ran, but whether the tensor part did cannot be told (a condition its function is
            # reached under is no reason: if the line ran, that condition held)
            conditional += 1
            for c in codes:
                per_rule[c]["unjudged"] += tally
            continue
        if key in sites:
            confirmed_sites.add(key)
            for c in codes:
                per_rule[c]["confirmed"] += tally
        elif key in ran and not shadowed(key):
            false_alarms.append((key, codes))
            for c in codes:
                per_rule[c]["false"] += tally
        else:
            unjudged += 1
            for c in codes:
                per_rule[c]["unjudged"] += tally
    missed = [k for k in sites if k not in confirmed_sites]

    def readable(key: tuple[str, int]) -> bool:
        return show_held_out or library_of(key[0]) not in held_out
    causes = Counter()
    miss_examples: dict[str, list] = defaultdict(list)
    for key in filter(readable, missed):
        # the dropped candidates of rules that name this break's type (a rule that would report some
        # other break here, such as a parameter's first read, says nothing of this one)
        fired = {why for why, gb_types in unreached(key[0]).get(key[1], set()) if sites[key]["gb"] in gb_types}
        cause = ", ".join(sorted(fired)) if fired else f"no rule: {sites[key]['gb']} {sites[key]['gb_name']}"
        causes[cause] += 1
        miss_examples[cause].append(key)
    for key in missed:
        per_rule["(missed)"]["missed"] += 1

    tp = len(confirmed_sites)
    fp_stmts = len(false_alarms)
    precision = tp / max(tp + fp_stmts, 1)
    recall = tp / max(len(sites), 1)
    out = []
    out.append(f"cases run: {ok} ({failed} could not be built or run eagerly); libraries: "
               + ", ".join(f"{lib} {ver}" for lib, ver in versions(libs).items()))
    out.append(f"break sites (distinct statements): {len(sites)}; static break findings (statements): "
               f"{len(by_stmt)}, of which {unjudged} unjudged (never ran, or ran only after a break in a "
               f"loop of their function) and {conditional} conditional (a test whose tensor part may not have run)")
    out.append("")
    out.append("| library | break sites | confirmed | false alarms | missed | precision | recall |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    halves = {"studied": [lib for lib in libs if lib not in held_out],
              "held out": [lib for lib in libs if lib in held_out]}

    def figures(group: list[str]) -> tuple[int, int, int]:
        s = sum(1 for k in sites if library_of(k[0]) in group)
        c = sum(1 for k in confirmed_sites if library_of(k[0]) in group)
        f = sum(1 for k, _ in false_alarms if library_of(k[0]) in group)
        return s, c, f

    def row(name: str, group: list[str]) -> str:
        s, c, f = figures(group)
        return (f"| {name} | {s} | {c} | {f} | {s - c} | {c / max(c + f, 1):.2f} | {c / max(s, 1):.2f} |")

    for half, members in halves.items():
        if not members:
            continue
        # a held-out library's own row says where its misses are: only its half's totals are printed
        for lib in members if half == "studied" or show_held_out else ():
            out.append(row(lib, [lib]))
        out.append(row(f"**{half}**", members))
    out.append(row("**all**", list(libs)))
    out.append("")
    out.append(f"precision {precision:.3f} ({tp}/{tp + fp_stmts})   recall {recall:.3f} ({tp}/{len(sites)})")
    if halves["held out"]:
        parts = []
        for half, members in halves.items():
            s, c, f = figures(members)
            parts.append(f"{half}: precision {c / max(c + f, 1):.3f} ({c}/{c + f}), recall {c / max(s, 1):.3f} ({c}/{s})")
        rs = [figures(m)[1] / max(figures(m)[0], 1) for m in halves.values()]
        parts.append(f"recall gap {rs[0] - rs[1]:+.3f}")
        out.append("   ".join(parts))
    out.append("")
    shown = "" if show_held_out or not halves["held out"] else " (studied libraries only)"
    out.append(f"per rule{shown}:")
    out.append("| rule | confirmed | false alarms | unjudged | precision |")
    out.append("| --- | --- | --- | --- | --- |")
    for code in sorted(c for c in per_rule if c.startswith("BL")):
        n = per_rule[code]
        judged = n["confirmed"] + n["false"]
        out.append(f"| {code} | {n['confirmed']} | {n['false']} | {n['unjudged']} | "
                   f"{(n['confirmed'] / judged if judged else float('nan')):.2f} |")
    out.append("")
    out.append("findings removed by a library's own dynamo settings (read from its source):")
    for root, counts in sorted(lifted.items()):
        out.append(f"  {os.path.basename(root.rstrip(os.sep))}: "
                   + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))
    if not lifted:
        out.append("  none")
    out.append("")
    out.append(f"misses by cause (count, example){shown}:")
    for cause, n in causes.most_common():
        ex = miss_examples[cause][0]
        out.append(f"  {n:4d}  {cause}  e.g. {rel(ex, libs)}  ({sites[ex]['case']}: {sites[ex]['reason']})")
    if every_miss:
        out.append("")
        out.append(f"every miss{shown}:")
        for cause, keys in sorted(miss_examples.items()):
            for key in sorted(keys):
                out.append(f"  {rel(key, libs)}  {cause}  ({sites[key]['case']}: {sites[key]['reason'][:80]})")
    out.append("")
    out.append(f"false alarms{shown}:")
    for key, codes in sorted(k for k in false_alarms if readable(k[0])):
        out.append(f"  {','.join(codes)}  {rel(key, libs)}")
    return "\n".join(out)


def rel(key: tuple[str, int], libs: dict[str, str]) -> str:
    path, line = key
    for lib, root in libs.items():
        parent = os.path.dirname(os.path.realpath(root))
        if path.startswith(parent + os.sep):
            return f"{os.path.relpath(path, parent)}:{line}"
    return f"{path}:{line}"


def versions(libs: dict[str, str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for lib in libs:
        dist = {"torch_geometric": "torch_geometric", "x_transformers": "x-transformers", "pyro": "pyro-ppl",
                "vector_quantize_pytorch": "vector-quantize-pytorch", "pytorch_tabnet": "pytorch-tabnet",
                "torchcrf": "pytorch-crf", "torch_struct": "torch-struct", "kan": "pykan",
                "torchmin": "pytorch-minimize", "tltorch": "tensorly-torch", "whisper": "openai-whisper"}.get(lib, lib)
        try:
            out[lib] = version(dist)
        except PackageNotFoundError:
            out[lib] = "?"
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--libraries", default="", help="comma-separated keys of cases.LIBRARIES (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rerun", action="store_true", help="run the cases again instead of reusing reports")
    parser.add_argument("--static-only", action="store_true", help="score the recorded runs only")
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--output", type=Path, help="also write the table to this file")
    parser.add_argument("--show-held-out", action="store_true",
                        help="also list the held-out libraries' misses and false alarms (only once a change is done)")
    parser.add_argument("--every-miss", action="store_true", help="list every miss, not one example per cause")
    args = parser.parse_args(argv)
    ensure_environment(argv)
    sys.path.insert(0, str(HERE))
    import importlib.util

    import cases

    wanted = [x for x in args.libraries.split(",") if x] or list(cases.LIBRARIES)
    libs = {}
    for key in wanted:
        package = cases.PACKAGES[key]
        # found, not imported: importing every library in one process lets one change torch under
        # another (torch_geometric's `index_select` overload breaks torchkbnufft's TorchScript)
        spec = importlib.util.find_spec(package)
        if spec.origin in (None, "namespace"):  # a namespace package has a path, not a file
            libs[package] = list(spec.submodule_search_locations)[0]
        elif os.path.basename(spec.origin) == "__init__.py":
            libs[package] = os.path.dirname(spec.origin)
        else:  # a library of one module is that file, not the directory it is installed in
            libs[package] = spec.origin
    roots = list(libs.values())
    if args.static_only:
        reports = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(RUNS.glob("*.json"))
                   if p.stem.split("__")[0] in wanted}
    else:
        reports = run_cases(cases.names(wanted), roots, args.jobs, args.rerun, args.timeout)
    entries = cases.entry_points([n for n, r in reports.items() if r["ok"]])
    held_out = frozenset(cases.PACKAGES[k] for k in cases.HELD_OUT if k in wanted)
    table = score(reports, roots, libs, entries, held_out, args.show_held_out, args.every_miss)
    print(table)
    if args.output:
        args.output.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
