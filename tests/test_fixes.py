"""Fixes: applied safely, idempotent, shown by --diff, and proven by dynamo to remove the break."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import libcst as cst
import pytest

from breaklint import autofix
from breaklint.fixes import apply as applier
from breaklint.dynamic.calibrate import load_module, static_findings
from breaklint.config import Config
from breaklint.engine import lint_source
from breaklint.finding import Edit, Fix

from conftest import FIXTURES, ROOT, SNAPSHOTS, run_cli

FIXABLE = sorted({p for p in FIXTURES.glob("BL*.py") for f in static_findings(p) if f.fix is not None})
SAFE_CODES = {"BL102", "BL401", "BL402", "BL403", "BL415", "BL417", "BL438", "BL453"}
MIXED_CODES = {"BL301"}  # a safe fix in one form, an unsafe one in another
UNSAFE_CODES = {"BL101", "BL103", "BL201", "BL202", "BL302", "BL404", "BL405", "BL416", "BL425"}
VARYING = {"BL404", "BL405"}  # fixtures whose outputs hold a clock reading or a random draw


def _fix(line, col, end_line, end_col, content, safe=True) -> Fix:
    return Fix("t", (Edit(line, col, end_line, end_col, content),), safe)


def _fixed(source: str, unsafe: bool = True) -> tuple[str, list[Fix]]:
    findings = lint_source(source, Path("m.py"), Config(select=["ALL"]))
    return applier.apply(source, [f.fix for f in findings if f.fix and (f.fix.safe or unsafe)])


# ---------------------------------------------------------------------- which rules fix, and how
def test_fixable_rules_and_their_safety() -> None:
    by_code: dict[str, set[bool]] = {}
    for path in FIXABLE:
        for f in static_findings(path):
            if f.fix is not None:
                by_code.setdefault(f.code, set()).add(f.fix.safe)
    assert {c for c, s in by_code.items() if s == {True}} == SAFE_CODES
    assert {c for c, s in by_code.items() if s == {False}} == UNSAFE_CODES
    assert {c for c, s in by_code.items() if s == {True, False}} == MIXED_CODES


@pytest.mark.parametrize("path", FIXABLE, ids=lambda p: p.stem)
def test_fixed_fixture_matches_snapshot(path: Path, update_snapshots: bool) -> None:
    new, applied = _fixed(path.read_text(encoding="utf-8"))
    assert applied
    cst.parse_module(new)
    snapshot = SNAPSHOTS / "fix" / f"{path.stem}.out.py"
    if update_snapshots:
        snapshot.parent.mkdir(exist_ok=True)
        snapshot.write_text(new, encoding="utf-8")
    assert new == snapshot.read_text(encoding="utf-8")
    again, more = _fixed(new)
    assert more == [] and again == new, "a second round must change nothing"


def test_guard_keeps_comments_and_multiline_calls() -> None:
    source = ('import torch\n\n@torch.compile\ndef f(x):\n    # before\n    print(\n        "a",  # inner\n'
              '        x.shape,\n    )  # after\n    return x\n')
    new, applied = _fixed(source)
    assert len(applied) == 1
    assert new == ('import torch\n\n@torch.compile\ndef f(x):\n    # before\n'
                   '    if not torch.compiler.is_compiling():\n        print(\n        "a",  # inner\n'
                   '        x.shape,\n    )  # after\n    return x\n')


def test_no_guard_where_the_call_is_not_a_statement_of_its_own() -> None:
    for body in ("    y = print(x)\n", "    print(x); y = 1\n", "    if x.shape[0]: print(x)\n"):
        source = f"import torch\n\n@torch.compile\ndef f(x):\n{body}    return x\n"
        findings = [f for f in lint_source(source, Path("m.py")) if f.code == "BL401"]
        assert findings and all(f.fix is None for f in findings), body


def test_no_guard_without_a_torch_module_name() -> None:
    source = "from torch import compile\n\n@compile\ndef f(x):\n    print(x)\n    return x\n"
    [finding] = lint_source(source, Path("m.py"))
    assert finding.code == "BL401" and finding.fix is None


def test_guard_uses_the_torch_alias_and_tab_indents() -> None:
    source = "import torch as T\n\n@T.compile\ndef f(x):\n\tprint(x)\n\treturn x\n"
    new, _ = _fixed(source)
    assert "\tif not T.compiler.is_compiling():\n\t\tprint(x)\n" in new


def test_branch_fix_keeps_header_comment_and_skips_other_comments() -> None:
    base = "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n{}    return x\n"
    new, _ = _fixed(base.format("    if x.sum() > 0:  # why\n        x = x + 1\n    else:\n        x = x - 1\n"))
    assert "    x = torch.where(x.sum() > 0, x + 1, x - 1)  # why\n" in new
    kept = base.format("    if x.sum() > 0:\n        # keep me\n        x = x + 1\n")
    assert _fixed(kept) == (kept, [])
    two = base.format("    if x.sum() > 0:\n        x = x + 1\n        y = 2\n")
    assert _fixed(two) == (two, [])


def test_a_parenthesized_test_keeps_its_parentheses() -> None:
    base = "import torch\nimport warnings\n\n@torch.compile\ndef f(x: torch.Tensor):\n{}    return x\n"
    # the test's own parentheses lie outside its position: without them the lines are no expression
    source = base.format("    if (\n        (x > 1).any()  # big\n        or (x < -1).any()\n    ):\n"
                         "        warnings.warn(f\"out of range: {x.dtype}\")\n")
    new, applied = _fixed(source)
    assert len(applied) == 1
    assert new == base.format("    if not torch.compiler.is_compiling():\n        if (\n"
                              "            (x > 1).any()  # big\n            or (x < -1).any()\n        ):\n"
                              "            warnings.warn(f\"out of range: {x.dtype}\")\n")
    # the where form rewrites the test: a comment in it would be lost
    kept = base.format("    if ((x > 1).any()  # big\n            or (x < -1).any()):\n        x = x + 1\n")
    assert _fixed(kept) == (kept, [])
    # parentheses around one operand are kept too
    one = base.format("    y = (x + 1) if ((x.sum()\n                    > 0)) else x\n")
    assert "torch.where(((x.sum()\n                    > 0)), (x + 1), x)" in _fixed(one)[0]


def test_unique_is_dropped_only_where_every_use_tests_every_element() -> None:
    base = "import torch\n\n@torch.compile\ndef f(x, other, k: int = 3):\n    u = torch.unique(x)\n{}"
    for body in ("    return torch.any((u != 0) & (u != k))\n", "    a = (u >= 0).all()\n    return a, u.max()\n"):
        new, applied = _fixed(base.format(body), unsafe=False)
        assert len(applied) == 1 and "    u = x\n" in new, body
    for body in ("    return len(u)\n", "    return (u != other).all()\n", "    return u + 1\n",
                 "    u = u + 1\n    return u.any()\n", "    return torch.any(u @ u)\n",
                 "    print(u)\n    return (u > 0).all()\n"):
        source = base.format(body)
        found = [f for f in lint_source(source, Path("m.py")) if f.code == "BL301"]
        assert found and all(f.fix is None for f in found), body
    returned = base.replace("torch.unique(x)", "torch.unique(x, return_counts=True)").format(
        "    return (u[0] > 0).all()\n")
    assert all(f.fix is None for f in lint_source(returned, Path("m.py")))


def test_a_zero_d_index_from_argmax_is_flagged_and_kept_a_tensor() -> None:
    base = "import torch\n\n@torch.compile\ndef f(x: torch.Tensor, y: torch.Tensor):\n{}"
    source = base.format("    i = torch.argmin(x.abs())\n    return x[i] + y[x.argmax()] + y[i + 1]\n")
    found = [f for f in lint_source(source, Path("m.py")) if f.code == "BL103"]
    assert [(f.line, f.col) for f in found] == [(6, 13), (6, 20), (6, 36)]
    new, _ = _fixed(source)
    assert ("return x[i.unsqueeze(0)].squeeze(0) + y[x.argmax().unsqueeze(0)].squeeze(0)"
            " + y[(i + 1).unsqueeze(0)].squeeze(0)") in new
    # one position where a condition holds is 0-d too
    lookup = base.format("    i = (x == y).nonzero(as_tuple=True)[0][0]\n    return x[i + 1]\n")
    assert [f.line for f in lint_source(lookup, Path("m.py")) if f.code == "BL103"] == [6]
    # along a dimension or reassigned: no finding
    for body in ("    i = x.argmax(dim=0)\n    return x[i]\n", "    i = x.argmax()\n    i = i + y\n    return x[i]\n"):
        assert not [f for f in lint_source(base.format(body), Path("m.py")) if f.code == "BL103"], body
    # written to: the store reads the index as a Python int too (dynamo breaks there); no fix
    stored = [f for f in lint_source(base.format("    i = x.argmax()\n    x[i] = 0\n    return x\n"), Path("m.py"))
              if f.code == "BL103"]
    assert [(f.line, f.col, f.fix) for f in stored] == [(6, 6, None)]


def test_no_where_fix_that_moves_the_break_to_a_later_test() -> None:
    base = "import torch\n\n@torch.compile\ndef f(s: torch.Tensor, x):\n    s = s * 1\n{}    return x * (g + 1)\n"
    # `g` was a Python number; as a tensor, the later `if g > 0` would break instead
    moved = base.format("    g = 0.5 if s > 0 else 0.0\n    if g > 0:\n        x = x + 1\n")
    assert all(f.fix is None for f in lint_source(moved, Path("m.py")) if f.code == "BL201")
    branch = base.format("    if s > 0:\n        g = 0.5\n    else:\n        g = 0.0\n"
                         "    while g > 1:\n        g = g / 2\n")
    assert all(f.fix is None for f in lint_source(branch, Path("m.py")) if f.code == "BL201")
    # no later test, or both sides already tensors: fixed
    assert "g = torch.where(s > 0, 0.5, 0.0)\n" in _fixed(base.format("    g = 0.5 if s > 0 else 0.0\n"))[0]
    tensors = base.format("    g = s + 1 if s > 0 else s - 1\n    if g > 0:\n        x = x + 1\n")
    assert "g = torch.where(s > 0, s + 1, s - 1)\n" in _fixed(tensors)[0]


def test_masked_write_reads_every_tensor_through_the_mask() -> None:
    base = ("import torch\nimport torch.nn.functional as F\n\n@torch.compile\n"
            "def f(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor):\n    m = a > 0\n{}    return out\n")
    fixed = base.format("    out[m] = F.relu(a[m] / b[m].sqrt()).to(out.dtype)\n")
    assert "    out.copy_(torch.where(m, F.relu(a / b.sqrt()).to(out.dtype), out))\n" in _fixed(fixed)[0]
    # `b` read whole (a method's receiver) has another shape than the selection: no fix
    whole = base.format("    out[m] = (a[m] / b.sqrt()).to(out.dtype)\n")
    assert _fixed(whole) == (whole, [])


# ---------------------------------------------------------------------- applying
def test_overlapping_fixes_wait_for_the_next_round() -> None:
    text = "abcdef\n"
    new, applied = applier.apply(text, [_fix(1, 0, 1, 3, "X"), _fix(1, 2, 1, 5, "Y"), _fix(1, 5, 1, 5, "Z")])
    assert new == "Xde" + "Z" + "f\n" and len(applied) == 2
    # two insertions at one point: only the first
    new, applied = applier.apply(text, [_fix(1, 1, 1, 1, "P"), _fix(1, 1, 1, 1, "Q")])
    assert new == "aPbcdef\n" and len(applied) == 1


def test_a_fix_that_breaks_the_syntax_is_dropped() -> None:
    text = "x = 1\ny = 2\n"
    new, applied = applier.apply(text, [_fix(1, 4, 1, 5, "("), _fix(2, 4, 2, 5, "3")])
    assert new == "x = 1\ny = 3\n" and len(applied) == 1


def test_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"import torch\r\n\r\n@torch.compile\r\ndef f(x):\r\n    print(x)\r\n    return x\r\n")
    proc = run_cli("--fix", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = path.read_bytes()
    assert b"    if not torch.compiler.is_compiling():\n        print(x)\r\n" in data
    cst.parse_module(data.decode())


# ---------------------------------------------------------------------- the command line
@pytest.fixture
def project(tmp_path: Path) -> Path:
    for path in FIXABLE:
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_diff_prints_and_writes_nothing(project: Path) -> None:
    before = {p.name: p.read_bytes() for p in project.glob("*.py")}
    proc = run_cli("--diff", ".", cwd=project)
    assert proc.returncode == 1
    assert "+++ b/BL401.py" in proc.stdout and "if not torch.compiler.is_compiling():" in proc.stdout
    assert "torch.where" not in proc.stdout  # unsafe fixes only with --unsafe-fixes
    assert "Would fix" in proc.stderr
    assert {p.name: p.read_bytes() for p in project.glob("*.py")} == before
    unsafe = run_cli("--diff", "--unsafe-fixes", ".", cwd=project)
    assert unsafe.returncode == 1 and "torch.where" in unsafe.stdout


def test_diff_exits_0_when_there_is_nothing_to_fix(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.nonzero()\n")
    proc = run_cli("--diff", "m.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""


def test_fix_then_relint_and_second_run_changes_nothing(project: Path) -> None:
    os.chmod(project / "BL401.py", 0o640)
    safe = [(p, f) for p in FIXABLE for f in static_findings(p) if f.fix is not None and f.fix.safe]
    proc = run_cli("--fix", ".", cwd=project)
    assert f"Fixed {len(safe)} findings in {len({p for p, _ in safe})} files" in proc.stdout, proc.stdout
    assert "fixable with `--fix --unsafe-fixes`" in proc.stdout or "more with" in proc.stdout
    assert stat.S_IMODE((project / "BL401.py").stat().st_mode) == 0o640
    proc = run_cli("--fix", "--unsafe-fixes", ".", cwd=project)
    assert "Fixed" in proc.stdout and "remaining" in proc.stdout
    snapshot = {p.name: p.read_bytes() for p in project.iterdir() if p.suffix == ".py"}
    again = run_cli("--fix", "--unsafe-fixes", ".", cwd=project)
    assert "Fixed 0 findings" in again.stdout
    assert {p.name: p.read_bytes() for p in project.iterdir() if p.suffix == ".py"} == snapshot
    assert not [p for p in project.iterdir() if p.name.endswith(".tmp")]
    for path in project.glob("*.py"):
        cst.parse_module(path.read_text())


def test_a_file_changed_after_checking_is_not_overwritten(project: Path, monkeypatch) -> None:
    import breaklint.engine as engine

    real = engine.lint

    def lint_then_edit(*args, **kwargs):
        result = real(*args, **kwargs)
        (project / "BL401.py").write_text("# edited by someone else\n")
        return result

    monkeypatch.setattr(autofix, "lint", lint_then_edit)
    run = autofix.run([project / "BL401.py", project / "BL402.py"], Config(root=project), unsafe=False, write=True,
                    use_cache=False)
    assert (project / "BL401.py").read_text() == "# edited by someone else\n"
    assert any("BL401.py: changed on disk" in p for p in run.problems)
    assert "is_compiling" in (project / "BL402.py").read_text()


def test_write_refuses_when_the_file_changed(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 2\n")
    with pytest.raises(applier.ChangedOnDisk):
        applier.write_source(path, "x = 1\n", "x = 3\n")
    assert path.read_text() == "x = 2\n"


def test_fixing_a_real_library_never_breaks_the_syntax(tmp_path: Path) -> None:
    kornia = pytest.importorskip("kornia")
    tree = tmp_path / "kornia"
    shutil.copytree(Path(kornia.__file__).parent, tree, ignore=shutil.ignore_patterns("__pycache__"))
    proc = run_cli("--fix", "--unsafe-fixes", "--no-cache", "kornia", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Fixed " in proc.stdout
    fixed = int(proc.stdout.split("Fixed ")[1].split()[0])
    assert fixed > 0
    for path in tree.rglob("*.py"):
        cst.parse_module(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- proven by dynamo
def _eager_outputs(path: Path) -> list:
    import torch

    torch.manual_seed(0)
    module = load_module(path)
    outputs = []
    for case in module.cases():
        fn, args, kwargs = (*case, {})[:3] if len(case) == 2 else case
        fn = getattr(fn, "_torchdynamo_orig_callable", fn)
        torch.manual_seed(1)
        outputs.append(fn(*args, **kwargs))
    return outputs


@pytest.mark.dynamo
@pytest.mark.parametrize("path", FIXABLE, ids=lambda p: p.stem)
def test_fixes_remove_the_break_and_keep_eager_results(path: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from breaklint.dynamic.calibrate import calibrate

    findings = [f for f in static_findings(path) if f.fix is not None]
    new, applied = applier.apply(path.read_text(encoding="utf-8"), [f.fix for f in findings])
    fixed_path = tmp_path / f"{path.stem}_fixed.py"
    fixed_path.write_text(new, encoding="utf-8")

    before, after = calibrate(path), calibrate(fixed_path)
    fixed_lines = {f.line for f in findings if f.fix in applied}
    assert fixed_lines <= set(before.sites), "each fixed finding was a real break"
    assert len(after.sites) == len(before.sites) - len(fixed_lines), (
        f"dynamo still breaks at {sorted(after.sites)} in the fixed file")

    from torch.utils._pytree import tree_flatten

    safe = all(f.fix.safe for f in findings)
    for old_case, fixed_case in zip(_eager_outputs(path), _eager_outputs(fixed_path), strict=True):
        old_leaves, fixed_leaves = tree_flatten(old_case)[0], tree_flatten(fixed_case)[0]
        assert len(old_leaves) == len(fixed_leaves)
        for old, fixed in zip(map(torch.as_tensor, old_leaves), map(torch.as_tensor, fixed_leaves)):
            if path.stem in VARYING:
                # A clock reading or a random draw: other numbers, the same kind of result.
                assert old.shape == fixed.shape and old.dtype == fixed.dtype and torch.isfinite(fixed).all()
            elif safe:
                assert torch.equal(old, fixed)
            else:
                assert torch.allclose(old, fixed)


def test_fixing_the_examples(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "models", tmp_path / "models")
    diff = run_cli("--diff", "--unsafe-fixes", "models", cwd=tmp_path)
    assert diff.returncode == 1 and "+++ b/models/" in diff.stdout
    first = run_cli("--fix", "--unsafe-fixes", "models", cwd=tmp_path)
    assert "Fixed " in first.stdout and "Fixed 0 " not in first.stdout
    for path in (tmp_path / "models").glob("*.py"):
        cst.parse_module(path.read_text())
    assert run_cli("--diff", "--unsafe-fixes", "models", cwd=tmp_path).returncode == 0


def test_form_feeds_do_not_shift_lines(tmp_path: Path) -> None:
    """str.splitlines ends a line at a form feed; Python and libcst do not."""
    source = "import torch\n\x0c\n@torch.compile\ndef f(x):  \x0c# page\n    print(x)\n    return x\n"
    new, applied = _fixed(source)
    assert len(applied) == 1
    assert new == source.replace("    print(x)\n", "    if not torch.compiler.is_compiling():\n        print(x)\n")


def test_show_fixes_lists_what_was_fixed_per_file_and_code(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "models", tmp_path / "models")
    proc = run_cli("--fix", "--unsafe-fixes", "--show-fixes", "--no-cache", "models", cwd=tmp_path)
    listing = proc.stdout.split("Found ")[1]
    assert "- models/detector.py:\n    1 × BL402 (logging-call)\n" in listing
    assert "- models/transformer.py:\n" in listing
    fixed = int(proc.stdout.split("Fixed ")[1].split()[0])
    assert fixed == sum(int(line.split(" × ")[0]) for line in listing.splitlines() if " × " in line)


def test_an_element_of_a_vector_the_code_makes_one_dimensional_is_a_zero_d_index() -> None:
    # what `torch.arange`, `torch.randperm`, a flattened tensor and their sorts hold, picked by a Python
    # int or iterated: a 0-d tensor, which indexing reads as a Python int (dynamo breaks)
    base = "import torch\n\n@torch.compile\ndef f(x: torch.Tensor, rows: torch.Tensor, k: int):\n{}"
    for body in ("    perm = torch.randperm(8)\n    return x[perm[0]]\n",
                 "    for i in torch.arange(3):\n        x = x + x[i]\n    return x\n",
                 "    order = x.flatten().argsort()\n    for j in range(3):\n        x = x + x[order[j]]\n    return x\n",
                 "    order = x.view(-1).sort()[1]\n    i = 0\n    return x[order[i]]\n",
                 "    keep = torch.where(x > 0)[0]\n    return x[keep[-1]]\n",
                 "    top = x.flatten().topk(2).indices.long()\n    return x[1, top[0]]\n"):
        found = [f for f in lint_source(base.format(body), Path("m.py")) if f.code == "BL103"]
        assert found and "0-d tensor used as an index" in found[-1].message, body
    # rows of a tensor of unknown rank, a slice of a vector, an index bound again: they gather
    for body in ("    return x[rows[0]]\n", "    order = torch.argsort(rows)\n    return x[order[0]]\n",
                 "    perm = torch.randperm(8)\n    return x[perm[1:3]]\n",
                 "    perm = torch.randperm(8)\n    perm = rows\n    return x[perm[0]]\n",
                 "    perm = torch.randperm(8)\n    return x[perm[rows]]\n",
                 "    for i in torch.arange(3).view(3, 1):\n        x = x + x[i]\n    return x\n",
                 "    i = torch.arange(4)[0]\n    for i in range(2):\n        x = x + x[i]\n    return x\n"):
        assert not [f for f in lint_source(base.format(body), Path("m.py")) if f.code == "BL103"], body


def test_a_zero_d_index_of_a_python_list_is_read_as_an_int() -> None:
    base = "import torch\n\n@torch.compile\ndef f(x: torch.Tensor, table):\n{}"
    listed = base.format("    weights = [0.5, 1.0, 2.0]\n    return x * weights[x.argmax()]\n")
    found = [f for f in lint_source(listed, Path("m.py")) if f.code == "BL103"]
    assert [(f.line, f.col) for f in found] == [(6, 23)] and "Python list" in found[0].message
    assert found[0].fix is None
    # an index that is a Python int: quiet
    quiet = base.format("    weights = [0.5, 1.0]\n    return x * weights[0]\n")
    assert not [f for f in lint_source(quiet, Path("m.py")) if f.code == "BL103"]
    # one of unknown rank is read as an int too (a list takes one element's tensor only): no fix
    ranked = base.format("    weights = [0.5, 1.0]\n    return x * weights[x.argmax(dim=0)]\n")
    found = [f for f in lint_source(ranked, Path("m.py")) if f.code == "BL103"]
    assert [(f.line, f.col) for f in found] == [(6, 23)] and "pick an element of the Python list" in found[0].message
    assert found[0].fix is None


def test_questions_to_torchs_runtime_are_reported_where_they_break() -> None:
    source = ("import torch\nfrom torch import nn\n\nclass M(nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n        self.devices = torch.cuda.device_count()\n\n"
              "    def forward(self, x, y):\n"
              "        if torch.cuda.is_available() and torch.backends.cudnn.is_available():\n"
              "            x = x + 1\n"
              "        dtype = torch.promote_types(x.dtype, y.dtype)\n"
              "        if not torch.compiler.is_compiling():\n"
              "            x = x * torch.get_num_threads()\n"
              "        return x.to(torch.result_type(x, y)) * self.devices, x.is_pinned(), dtype\n")
    found = [(f.line, f.code) for f in lint_source(source, Path("m.py"))]
    # asked in `__init__`, `is_available()` and `promote_types` trace, and what only eager code runs: quiet
    assert found == [(10, "BL432"), (15, "BL432"), (15, "BL408")]
    assert all(f.fix is None for f in lint_source(source, Path("m.py")))


def test_covariance_reads_the_data_and_ctc_loss_has_no_shape() -> None:
    base = "import torch\nimport torch.nn.functional as F\n\n@torch.compile\ndef f(x: torch.Tensor, y):\n{}"
    found = lint_source(base.format("    return torch.cov(x) + x.corrcoef() + F.ctc_loss(x, y, [4], [2])\n"),
                        Path("m.py"))
    assert sorted((f.line, f.code) for f in found) == [(6, "BL103"), (6, "BL103"), (6, "BL301")]
    # a centered product, and a `cov` method of an object of the package: quiet
    quiet = ("import torch\n\nclass Stats:\n    def cov(self):\n        return 1.0\n\n@torch.compile\n"
             "def f(x: torch.Tensor):\n    m = x - x.mean(-1, keepdim=True)\n    return m @ m.T * Stats().cov()\n")
    assert not [f for f in lint_source(quiet, Path("m.py")) if f.code in ("BL103", "BL301")]
