"""One dynamic-pass target, in a process of its own: `python -m breaklint.dynamic.worker TARGET OUT [options]`.

It builds the target's cases, runs each eagerly under a line tracer (which
lines ran) and under `torch._dynamo.explain` (where dynamo broke), then runs
the cases one after another through one compiled function to see recompiles.
It writes a JSON report to OUT. A failure writes `{"error": {...}}` and exits 3,
so the parent can tell a clean failure from a crash, a hang or a kill.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any


class TargetError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def load_factory(target: str):
    """`path/to/file.py:FACTORY` or `package.module:FACTORY` -> the callable."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise TargetError("usage", f"target {target!r} is not of the form path.py:FACTORY or module:FACTORY")
    if where.endswith(".py") or os.sep in where or "/" in where:
        path = Path(where).resolve()
        if not path.is_file():
            raise TargetError("module-not-found", f"no such file: {where}")
        sys.path.insert(0, str(path.parent))
        module_name = f"_breaklint_target_{path.stem}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:
            raise TargetError("import-failed", f"importing {where} raised {_describe(exc)}") from exc
    else:
        sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            if exc.name and where.startswith(exc.name):
                raise TargetError("module-not-found", f"module not found: {exc.name}") from exc
            raise TargetError("import-failed", f"importing {where} raised {_describe(exc)}") from exc
        except BaseException as exc:
            raise TargetError("import-failed", f"importing {where} raised {_describe(exc)}") from exc
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise TargetError("factory-not-found", f"{where} has no callable {name!r}")
    return factory


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}) (sys.exit)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _out_of_memory(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc)


def normalize_cases(value: Any) -> list[tuple[Any, tuple, dict]]:
    """A case, or a list of cases; a case is (callable, args) or (callable, args, kwargs)."""
    def one(case: Any) -> tuple[Any, tuple, dict]:
        if not isinstance(case, tuple) or len(case) not in (2, 3) or not callable(case[0]):
            raise TargetError("bad-case", "a case must be (callable, args) or (callable, args, kwargs), "
                                          f"got {type(case).__name__}")
        fn, args = case[0], case[1]
        kwargs = case[2] if len(case) == 3 else {}
        if not isinstance(args, (tuple, list)) or not isinstance(kwargs, dict):
            raise TargetError("bad-case", "a case's args must be a tuple and its kwargs a dict")
        return fn, tuple(args), dict(kwargs)

    if isinstance(value, tuple) and len(value) in (2, 3) and callable(value[0]):
        return [one(value)]
    if isinstance(value, (list, tuple)) and value:
        return [one(c) for c in value]
    raise TargetError("bad-case", "the factory returned no cases")


def to_device(value: Any, device: str) -> Any:
    """Modules and tensors, also inside tuples, lists and dicts, moved to `device`; anything else as it is."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, torch.nn.Module):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(to_device(v, device) for v in value)
    if isinstance(value, list):
        return [to_device(v, device) for v in value]
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    return value


def _pristine_copy(fn: Any) -> Any:
    """A deep copy of a module (so running it leaves the original as it was), else `fn` itself."""
    import copy

    import torch

    if not isinstance(fn, torch.nn.Module):
        return fn
    try:
        return copy.deepcopy(fn)
    except Exception:
        return fn


class LineTracer:
    """Records which lines ran in files under the given roots."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = [os.path.realpath(r) for r in roots]
        self.lines: dict[str, set[int]] = {}
        self._wanted: dict[str, str | None] = {}

    def _file(self, filename: str) -> str | None:
        if filename not in self._wanted:
            real = os.path.realpath(filename)
            ok = any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)
            self._wanted[filename] = real if ok else None
        return self._wanted[filename]

    def _global(self, frame, event, arg):
        real = self._file(frame.f_code.co_filename)
        if real is None:
            return None
        lines = self.lines.setdefault(real, set())
        lines.add(frame.f_lineno)

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local
        return local

    @contextlib.contextmanager
    def active(self):
        old = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield
        finally:
            sys.settrace(old)


_RECOMPILE = re.compile(r"Recompiling function (\S+) in (.+):(\d+)")


def recompiles(cases: list[tuple[Any, tuple, dict]]) -> list[dict]:
    """Run the cases in order through one compiled callable each; the recompiles dynamo logged."""
    import torch
    import torch._dynamo as dynamo

    from .explain import captured_log, eager_callable

    dynamo.reset()
    compiled: dict[int, Any] = {}
    with captured_log("recompiles") as messages:
        for fn, args, kwargs in cases:
            eager = eager_callable(fn)
            if id(eager) not in compiled:
                compiled[id(eager)] = torch.compile(eager, backend="eager")
            compiled[id(eager)](*args, **kwargs)
    out = []
    for message in messages:
        match = _RECOMPILE.search(message)
        guards = [line.strip()[2:] for line in message.splitlines() if line.strip().startswith("- ")]
        out.append({
            "function": match.group(1) if match else "?",
            "file": match.group(2) if match else "",
            "line": int(match.group(3)) if match else 0,
            "guards": guards,
        })
    return out


def _limit_memory(megabytes: int) -> None:
    """Cap the address space, so runaway memory raises MemoryError here instead of taking the machine."""
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _outputs_agree(fn: Any, args: tuple, kwargs: dict) -> bool:
    """Whether `fn` gives the same outputs eagerly and compiled (graphs run eagerly: `backend="eager"`,
    so only what dynamo captured, and how, can differ), from the same random state."""
    import torch
    from torch.utils._pytree import tree_flatten

    torch._dynamo.reset()
    torch.manual_seed(0)
    expected, _ = tree_flatten(fn(*args, **kwargs))
    torch.manual_seed(0)
    actual, _ = tree_flatten(torch.compile(fn, backend="eager")(*args, **kwargs))
    torch._dynamo.reset()
    if len(expected) != len(actual):
        return False
    for want, got in zip(expected, actual):
        if isinstance(want, torch.Tensor) != isinstance(got, torch.Tensor):
            return False
        if isinstance(want, torch.Tensor):
            if want.shape != got.shape or not torch.allclose(want.float(), got.float(), rtol=1e-4, atol=1e-5,
                                                             equal_nan=True):
                return False
        elif want != got:
            return False
    return True


def run(target: str, device: str, train: bool, roots: list[str], max_memory: int | None = None,
        dynamo_config: dict[str, bool] | None = None, compare_outputs: bool = False) -> dict:
    from .explain import collect_breaks, describe_gb, eager_callable

    try:
        factory = load_factory(target)
    except ImportError as exc:
        raise TargetError("import-failed", _describe(exc)) from exc
    import torch

    for name, value in (dynamo_config or {}).items():  # a remedy being tried (`explain --what-if`)
        if not hasattr(torch._dynamo.config, name):
            raise TargetError("usage", f"torch._dynamo.config has no setting {name!r}")
        setattr(torch._dynamo.config, name, value)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise TargetError("usage", "--device cuda, but torch sees no CUDA device")
    if max_memory and device == "cpu":  # an address-space cap would break CUDA's mappings
        _limit_memory(max_memory)
    try:
        cases = normalize_cases(factory())
    except TargetError:
        raise
    except BaseException as exc:
        kind = "out-of-memory" if _out_of_memory(exc) else "factory-raised"
        raise TargetError(kind, f"the factory raised {_describe(exc)}") from exc
    cases = [(to_device(fn, device), to_device(args, device), to_device(kwargs, device))
             for fn, args, kwargs in cases]
    for fn, _, _ in cases:
        module = eager_callable(fn)
        if isinstance(module, torch.nn.Module):
            module.train(train)
    grad = torch.enable_grad if train else torch.no_grad
    tracer = LineTracer(roots)
    report: dict[str, Any] = {"target": target, "device": device, "torch": torch.__version__,
                              "cases": len(cases), "graphs": 0, "breaks": [], "recompiles": []}
    for index, (fn, args, kwargs) in enumerate(cases):
        try:
            # dynamo must see the model as a first call would (lazily built state, such as
            # torchvision's pooler scales, is part of what breaks), so explain runs first and
            # the line tracer runs on a copy taken before it.
            eager = _pristine_copy(eager_callable(fn))
            with grad():
                breaks, output = collect_breaks(eager_callable(fn), args, kwargs)
                with tracer.active():
                    eager(*args, **kwargs)
        except BaseException as exc:
            kind = "out-of-memory" if _out_of_memory(exc) else "model-raised"
            raise TargetError(kind, f"case {index}: the model raised {_describe(exc)}") from exc
        report["graphs"] += int(getattr(output, "graph_count", 0) or 0)
        if compare_outputs:
            try:
                with grad():
                    agree = _outputs_agree(eager_callable(fn), args, kwargs)
            except BaseException as exc:  # a compiled run that raises does not agree
                report.setdefault("output_errors", []).append(f"case {index}: {_describe(exc)}")
                agree = False
            report["outputs_agree"] = report.get("outputs_agree", True) and agree
        for brk in breaks:
            report["breaks"].append({"case": index, "reason": brk.reason, "gb_type": brk.gb_type,
                                     "frames": brk.frames, **describe_gb(brk.gb_type)})
    if len(cases) > 1:
        try:
            with grad():
                report["recompiles"] = recompiles(cases)
        except BaseException as exc:  # recompiles are extra information; the breaks stand
            report["recompile_error"] = _describe(exc)
    report["lines_run"] = {path: sorted(lines) for path, lines in sorted(tracer.lines.items())}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m breaklint.dynamic.worker")
    parser.add_argument("target")
    parser.add_argument("out", type=Path)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--root", action="append", default=[])
    parser.add_argument("--max-memory", type=int, default=None, help="MiB of address space (CPU runs only)")
    parser.add_argument("--dynamo-config", action="append", default=[], metavar="NAME=true|false",
                        help="set torch._dynamo.config.NAME first")
    parser.add_argument("--compare-outputs", action="store_true", help="check eager and compiled outputs agree")
    args = parser.parse_args(argv)
    settings = {}
    for item in args.dynamo_config:
        name, _, value = item.partition("=")
        settings[name] = value.lower() in ("1", "true", "yes")
    try:
        report = run(args.target, args.device, args.train, args.root or [os.getcwd()], args.max_memory,
                     settings, args.compare_outputs)
        status = 0
    except TargetError as exc:
        report = {"error": {"kind": exc.kind, "message": exc.message}}
        status = 3
    except BaseException as exc:  # a bug here, or something the model did outside a case
        kind = "out-of-memory" if _out_of_memory(exc) else "internal"
        report = {"error": {"kind": kind, "message": _describe(exc), "traceback": traceback.format_exc()}}
        status = 3
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(report), encoding="utf-8")
    os.replace(tmp, args.out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # skip interpreter teardown: user atexit hooks and CUDA shutdown cannot hang us


if __name__ == "__main__":
    main()
