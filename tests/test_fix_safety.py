"""A linter must never do harm: fixes that run, numbers read as Python reads them, internal errors that
are never silent."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from textwrap import dedent

import libcst as cst
import pytest

from breaklint import autofix
from breaklint.fixes import apply as applier
from breaklint.config import Config
from breaklint.engine import lint_source
from breaklint.analysis.literals import integer, number

from conftest import FIXTURES, run_cli

# The detection-head shape: per-item results carried in dicts, one field a Python int from `int()`.
HEAD = (FIXTURES / "safety" / "head.py").read_text(encoding="utf-8").split("\n\n\ndef cases", 1)[0]


def _findings(source: str, select: str = "ALL"):
    return lint_source(source, Path("m.py"), Config(select=[select]))


def test_a_fix_is_not_offered_on_an_assumed_tensor() -> None:
    """`r["count"]` is an element of `forward`'s unannotated parameter: the finding stays (a tensor is
    assumed), the `torch.where` rewrite goes (on the Python int it holds at run time it would raise)."""
    found = [f for f in _findings(HEAD) if f.code == "BL201"]
    assert [(f.line, f.fix) for f in found] == [(10, None)]


def test_the_same_test_on_a_known_tensor_keeps_its_fix() -> None:
    known = dedent("""
        import torch
        from torch import nn


        class Pick(nn.Module):
            def forward(self, x: torch.Tensor):
                s = x.sum()
                return x * 2 if s > 0 else x
    """)
    found = [f for f in _findings(known) if f.code == "BL201"]
    assert len(found) == 1 and found[0].fix is not None and "torch.where(s > 0" in found[0].fix.edits[0].content


def test_a_method_name_alone_does_not_make_a_known_tensor() -> None:
    """`v.max()` on a value nothing else tells of is taken for a tensor (the finding), not known as one (no fix)."""
    source = dedent("""
        import torch


        @torch.compile
        def f(x: torch.Tensor, v: "Stats"):
            return x * 2 if v.max() > 0 else x
    """)
    found = [f for f in _findings(source) if f.code == "BL201"]
    assert len(found) == 1 and found[0].fix is None


def test_calling_a_predicate_needs_a_known_tensor() -> None:
    """`dt.is_floating_point` of a `torch.dtype` is a bool: `dt.is_floating_point()` would raise."""
    source = dedent("""
        import torch


        @torch.compile
        def f(x: torch.Tensor, dt):
            return x * 2 if dt.is_floating_point else x


        @torch.compile
        def g(x: torch.Tensor):
            return x * 2 if x.is_floating_point else x
    """)
    found = [(f.line, f.fix is not None) for f in _findings(source) if f.code == "BL416"]
    assert found == [(7, False), (12, True)]


def test_values_carried_in_containers_keep_what_they_were() -> None:
    """`int(...)`, `len(...)`, `.numel()`, `.dim()` and `.size(i)` are Python ints, in a dict or a list too."""
    source = dedent("""
        import torch
        from torch import nn


        class Count(nn.Module):
            def forward(self, x: torch.Tensor):
                res = {"scores": x, "count": int(x.numel()), "n": len(x), "d": x.dim(), "k": x.size(0)}
                pair = [x.sum(), x.numel()]
                a = res["scores"].max() if res["count"] else x
                b = x if res["n"] and res["d"] and res["k"] else x * 2
                return a + b if pair[1] else a
    """)
    assert [f.code for f in _findings(source)] == []


# ---------------------------------------------------------------------- fixes that run
# Small modules, each with `cases()` (`fixtures/safety/`, also run by `bench/fix_check.py --fixtures`): what
# `--fix --unsafe-fixes` makes of them must import, run eagerly and under `torch.compile(backend="eager")`
# without an exception, and give the original's outputs.
RUNNABLE = sorted((FIXTURES / "safety").glob("*.py"))


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _same(a, b) -> bool:
    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return torch.allclose(torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == pytest.approx(b)


@pytest.mark.dynamo
def test_unsafe_fixes_leave_every_module_running_with_equal_outputs(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    original, fixed = tmp_path / "original", tmp_path / "fixed"
    for folder in (original, fixed):
        folder.mkdir()
        for path in RUNNABLE:
            shutil.copy(path, folder / path.name)
    run = autofix.run([fixed], Config(root=fixed, select=["ALL"], respect_gitignore=False), unsafe=True, write=True,
                    use_cache=False)
    assert not run.problems and not run.internal_errors
    # the known tensors were rewritten: the check below runs fixed code, not the original again
    assert {c.path.name for c in run.files} >= {"known.py"}
    assert "torch.where" in (fixed / "known.py").read_text()
    assert len(RUNNABLE) >= 4
    for name in (p.name for p in RUNNABLE):
        before = _load(original / name, f"before_{name[:-3]}")
        after = _load(fixed / name, f"after_{name[:-3]}")
        torch.manual_seed(0)
        originals = before.cases()
        torch.manual_seed(0)  # the same inputs
        for (model, args, *_), (fixed_model, fixed_args, *_) in zip(originals, after.cases()):
            expected = model(*args)
            torch._dynamo.reset()
            for result in (fixed_model(*fixed_args), torch.compile(fixed_model, backend="eager")(*fixed_args)):
                assert _same(result, expected), name


# ---------------------------------------------------------------------- numbers as Python reads them
LITERALS = ["0", "7", "1_000", "0xFFFFFFF", "0XfF", "0o17", "0O7", "0b101", "0B1_0", "10**30",
            "123456789012345678901234567890", "1.5", "1e3", "1_0.5e-2", ".5", "2j", "1.5J", "0_0"]


@pytest.mark.parametrize("text", LITERALS)
def test_every_literal_form_is_read_as_python_reads_it(text: str) -> None:
    node = cst.parse_expression(text)
    expected = eval(text)  # a literal of the list above, nothing else
    if isinstance(node, cst.BinaryOperation):
        assert number(node) is None
        return
    assert number(node) == expected and number(cst.parse_expression(f"-{text}")) == -expected
    assert integer(node) == (expected if type(expected) is int else None)


@pytest.mark.parametrize("text", LITERALS)
def test_no_rule_assumes_the_decimal_form(text: str) -> None:
    source = dedent(f"""
        import torch


        @torch.compile
        def f(x, c):
            a = torch.where(c)[0][{text}]
            b = c.nonzero(as_tuple=True)[0][-{text}]
            t = (x, x)[{text}]
            i = x.argmax() + {text}
            return x[i] + a + b + t[{text}] + x[{text}:] + x.reshape(-1)[-{text}]
    """)
    found = _findings(source)
    assert [f.message for f in found if f.code == "BL003"] == []


# ---------------------------------------------------------------------- internal errors
CRASHING = ("import sys, breaklint.rules.control_flow as m\n"
            "def crash(self, node):\n    raise ValueError('boom')\n"
            "m.DataDependentBranch.visit_If = crash\n"
            "from breaklint.cli import main\nsys.argv[0] = 'breaklint'\nmain()\n")
MODEL = dedent("""
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            print("hi")
            if x.sum() > 0:
                x = x * 2
            return x
""")


@pytest.mark.parametrize("mode", [
    [], ["--fix"], ["--fix", "--unsafe-fixes"], ["--diff"], ["--fix", "--unsafe-fixes", "--diff"], ["--add-noqa"],
    ["--write-baseline", "base.json"], ["--format", "json"], ["--format", "sarif"], ["--format", "github"],
    ["--statistics"], ["--quiet"], ["--select", "BL401"], ["--ignore", "BL003"], ["--exit-zero"],
])
def test_an_internal_error_is_never_silent(tmp_path: Path, mode: list[str]) -> None:
    """In every mode, the file that met an internal error is named with BL003 and the run exits 2."""
    import subprocess

    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", CRASHING, "--no-cache", *mode, "model.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "BL003" in out and "model.py" in out and "ValueError: boom" in out, out
    if mode == ["--format", "json"]:
        assert any(f["code"] == "BL003" for f in json.loads(proc.stdout))


def test_the_standard_library_file_that_crashed_is_analyzed(tmp_path: Path) -> None:
    """`test_mmap.py`'s `0xFFFFFFF` index made a rule raise; now it is an index like any other."""
    source = dedent("""
        import torch


        @torch.compile
        def f(x):
            m = torch.where(x > 0)[0]
            return m[0xFFFFFFF] + m[0o7] + m[1_0]
    """)
    assert "BL003" not in {f.code for f in _findings(source)}
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    proc = run_cli("--no-cache", "--fix", "--unsafe-fixes", "--diff", "m.py", cwd=tmp_path)
    assert proc.returncode in (0, 1) and "BL003" not in proc.stdout + proc.stderr
