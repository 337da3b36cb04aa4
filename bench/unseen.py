"""What the libraries the analysis was never shown (in neither half of the harness, not reserved)
measure: each case run under dynamo against the static pass on the same tree.

The scripts beside this one (`unseen_torchaudio.py`, `unseen_ultralytics.py`) build the cases and the
entry points a user would compile; `measure` runs each case under dynamo (`collect_breaks`: `explain`
plus the graph-break log), keeps the deepest frame of the library's own code of each break, folds lines
into their statements, and prints which of them the static pass reports. `--src DIR` runs the static
pass of another tree (an older commit's `src`) beside the same dynamo runs; `--sites FILE` keeps what
dynamo said in FILE (JSON) and, where FILE exists, reads it instead of running the cases again.
"""

import ast
import json
import os
import sys
import types
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

SITES = Path(sys.argv[sys.argv.index("--sites") + 1]) if "--sites" in sys.argv else None
SRC = sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv else str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

import torch  # noqa: E402

from breaklint.config import Config  # noqa: E402
from breaklint.dynamic.explain import collect_breaks  # noqa: E402
from breaklint.engine import lint  # noqa: E402

Case = tuple[str, Callable, tuple]


def runnable(cases: Iterable[Case]) -> list[Case]:
    """The cases that run eagerly; each one that raises (an input its library does not take, a package
    missing) is left out, with a line saying why."""
    kept = []
    for name, fn, args in cases:
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - whatever the library raises
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        kept.append((name, fn, args))
    return kept


def modes(name: str, module, args: tuple, run: Callable | None = None) -> list[Case]:
    """A module's cases in training and evaluation mode (`name@train`, `name@eval`); `run(module, *args)` is
    how each calls it, and what of its output it returns (default: `module(*args)`)."""
    call = run or (lambda mod, *a: mod(*a))
    return [(f"{name}@{'train' if t else 'eval'}", lambda *a, mod=module, t=t: call(mod.train(t), *a), args)
            for t in (True, False)]


def entries(module: str, names: list[str]) -> list[str]:
    """Entry points of a library: `module`'s functions, classes or methods `names`, by their dotted names."""
    return [f"{module}.{name}" for name in names]


class _Missing:
    """What a stand-in module's names are (`stand_in`): a class, as some are subclassed at import, that
    raises when used."""

    def __init__(self, *args, **kwargs):
        raise ImportError("a package the library imports for code no case runs is not installed")


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing


def stand_in(modules: Iterable[str]) -> None:
    """Put in place of each of `modules` that is not installed a module whose every name raises when used:
    a library that imports a heavy package at the top for code no case runs then imports."""
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            sys.modules[module] = _StandIn(module)


def measure_each(libraries: dict[str, tuple[Callable[[], list[Case]], list[str]]]) -> None:
    """`measure` for each of several small libraries, each on its own (name -> (what builds its cases, its
    entry points)): its cases seeded alike and kept where they run eagerly, its answers kept in
    `FILE.<library>.json` beside `--sites FILE`."""
    import importlib
    from importlib.metadata import packages_distributions, version

    for lib, (build, entries) in libraries.items():
        def cases(build=build) -> list[Case]:
            torch.manual_seed(0)
            return runnable(build())
        module = importlib.import_module(lib)
        distribution = packages_distributions().get(lib, [lib.replace("_", "-")])[0]  # blitz: blitz-bayesian-pytorch
        path = Path(module.__file__).resolve()  # a package's folder, or a module of one file (tabm.py)
        measure(path.parent if path.name == "__init__.py" else path, cases, entries, f"{distribution} {version(distribution)}",
                None if SITES is None else SITES.with_name(f"{SITES.name}.{lib}.json"))


@cache
def statements(path: str) -> dict[int, int]:
    """Line -> first line of the innermost simple statement holding it (a call over several lines is one),
    or of the compound statement whose header holds it (an `if (` whose test spans lines), as the
    harness folds them (bench/accuracy/run.py)."""
    out: dict[int, int] = {}
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        end = node.end_lineno or node.lineno
        if hasattr(node, "body"):  # the header: up to the line before its first body statement
            end = max(node.lineno, min(b[0].lineno for b in (node.body, getattr(node, "orelse", None),
                                                             getattr(node, "handlers", None)) if b) - 1)
        for line in range(node.lineno, end + 1):
            out.setdefault(line, node.lineno)
    return out


def _run(root: Path, cases: Callable[[], Iterable[Case]]) -> tuple[dict[tuple[str, int], set[str]], list[str]]:
    """The statements of `root` dynamo broke on, each with "graph-break type|case", and the cases
    dynamo could not compile."""
    torch.manual_seed(0)
    sites: dict[tuple[str, int], set[str]] = {}
    failed = []
    for name, fn, args in cases():
        torch._dynamo.reset()
        try:
            breaks, _ = collect_breaks(fn, args, {})
        except Exception as e:  # a case dynamo cannot compile at all says nothing of breaks
            failed.append(f"{name}: {type(e).__name__}")
            continue
        for b in breaks:
            inner = [f for f in b.frames if str(root) in os.path.realpath(f[0])]
            if inner:
                path, line = os.path.realpath(inner[-1][0]), inner[-1][1]
                sites.setdefault((path, statements(path).get(line, line)), set()).add(f"{b.gb_type}|{name}")
    return sites, failed


def measure(root: Path, cases: Callable[[], Iterable[Case]], entry_points: list[str], versions: str,
            kept_in: Path | None = SITES, follow: Iterable[str] = ()) -> None:
    """Run every case `cases()` builds under dynamo, lint `root`, and print the statements dynamo broke on that the
    static pass reports and those it misses. `kept_in`: where dynamo's answers are kept (`--sites`; a script
    measuring several libraries keeps each one's beside it). `follow`: the installed packages the library calls
    that a user would have the static pass follow (its `follow` setting; with `--no-follow`, none)."""
    if kept_in is not None and kept_in.exists():
        kept = json.loads(kept_in.read_text(encoding="utf-8"))
        sites = {}
        for path, line, why in kept["sites"]:  # folded again: a file kept by an older fold holds raw header lines
            sites.setdefault((path, statements(path).get(line, line)), set()).update(why)
        failed = kept["failed"]
    else:
        sites, failed = _run(root, cases)
    if kept_in is not None and not kept_in.exists():
        kept_in.write_text(json.dumps({"sites": [[p, n, sorted(w)] for (p, n), w in sorted(sites.items())],
                                       "failed": failed}), encoding="utf-8")
    config = Config(root=root.parent)
    config.entry_points = entry_points
    config.respect_gitignore = False
    config.follow = [] if "--no-follow" in sys.argv else list(follow)
    findings = lint([root], config, use_cache=False).findings
    found, hazards = (
        {(os.path.realpath(f.path), statements(os.path.realpath(f.path)).get(f.line, f.line))
         for f in findings if f.kind == kind} for kind in ("break", "hazard"))
    hit = sorted(k for k in sites if k in found)
    print(f"breaklint from {SRC}; torch {torch.__version__}, {versions}, Python {sys.version.split()[0]}, "
          f"{'cuda' if torch.cuda.is_available() else 'cpu'}")
    print(f"statements dynamo broke on: {len(sites)}; reported by the static pass: {len(hit)}")
    print(f"statements with a static break finding: {len(found)}")
    if missed_hazards := [k for k in sites if k not in found and k in hazards]:
        print(f"missed statements with a static hazard finding (a break that may happen there): {len(missed_hazards)}")
    print("missed:")
    for key in sorted(k for k in sites if k not in found):
        print(f"  {os.path.relpath(key[0], root.parent)}:{key[1]}  {sorted(sites[key])[0]}")
    if failed:
        print("cases dynamo could not compile:", ", ".join(failed))
