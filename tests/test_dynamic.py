"""The dynamic pass: `breaklint explain` against dynamo's own graph-break log."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from breaklint import assert_no_graph_breaks  # noqa: E402
from breaklint.dynamic.explain import GraphBreakError  # noqa: E402

from conftest import ROOT, run_cli  # noqa: E402

pytestmark = pytest.mark.dynamo

MODEL = textwrap.dedent('''
    import numpy as np
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, x, verbose=False):
            x = self.proj(x)
            if verbose:
                print("never runs")
            scale = x.abs().max().item()
            y = pick(*(x,))  # the static pass cannot see what a starred call passes
            for i in range(2):
                if x[0, i] > 0:
                    y = y + 1
            return y * scale


    def pick(t):
        return t[t > 0]


    @torch.compile
    def early(x):
        if x.dim() == 2 and torch.compiler.is_compiling():
            return x * 2
        return x * x.sum().item()


    def cases():
        torch.manual_seed(0)
        return [(Net().eval(), (torch.randn(2, 4),)), (early, (torch.randn(2, 4),))]


    def plain(x):
        return torch.relu(x) * 2


    def shapes():
        return [(plain, (torch.randn(2, 4),)), (plain, (torch.randn(3, 4),)), (plain, (torch.randn(3, 4).double(),))]
''')

LINES = {text.strip(): n for n, text in enumerate(MODEL.splitlines(), 1) if text.strip()}


def line_of(fragment: str) -> int:
    return next(n for text, n in LINES.items() if fragment in text)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dyn")
    (root / "model.py").write_text(MODEL)
    return root


@pytest.fixture(scope="module")
def report(project: Path) -> dict:
    proc = run_cli("explain", "model.py:cases", "--format", "json", "--no-cache", cwd=project)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def torch_logs_sites(folder: Path, stem: str, factory: str = "cases") -> set[tuple[str, int]]:
    """Where `TORCH_LOGS=graph_breaks` says the graph broke, in files of `folder`; run without breaklint."""
    code = textwrap.dedent(f'''
        import sys, torch
        sys.path.insert(0, {str(folder)!r})
        import {stem} as m
        for case in m.{factory}():
            fn, args = case[0], case[1]
            fn = getattr(fn, "_torchdynamo_orig_callable", fn)
            torch._dynamo.reset()
            with torch.no_grad():
                torch.compile(fn, backend="eager")(*args)
    ''')
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TORCH_LOGS": "graph_breaks"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    sites = set()
    for block in proc.stderr.split("Graph break")[1:]:
        frames = re.findall(r'File "([^"]+)", line (\d+)', block) or re.findall(r"user code at (\S+):(\d+)", block)
        inside = [(Path(f).name, int(n)) for f, n in frames if Path(f).resolve().parent == folder.resolve()]
        if inside:
            sites.add(inside[-1])
    return sites


def test_every_torch_logs_break_is_in_the_report(project: Path, report: dict) -> None:
    expected = torch_logs_sites(project, "model")
    assert len(expected) >= 3
    found = {(Path(f["path"]).name, f["line"]) for f in report["findings"]
             if f["status"] in ("confirmed", "dynamic-only")}
    assert expected == found


def test_every_static_finding_gets_a_status(report: dict) -> None:
    by_line = {f["line"]: f for f in report["findings"]}
    assert by_line[line_of("scale = x.abs()")]["status"] == "confirmed"
    assert by_line[line_of('print("never runs")')]["status"] == "not-run"
    assert by_line[line_of("return x * x.sum().item()")]["status"] == "not-reproduced"
    loop = by_line[line_of("if x[0, i] > 0:")]
    assert loop["code"] == "BL201" and loop["status"] == "confirmed"  # seen only through the log
    assert all(f["status"] for f in report["findings"])


def test_unpredicted_breaks_become_dynamic_only_findings(report: dict) -> None:
    [missed] = [f for f in report["findings"] if f["status"] == "dynamic-only"]
    assert missed["code"] == "BL900" and missed["origin"] == "dynamic"
    assert missed["line"] == line_of("return t[t > 0]")
    assert missed["gb_types"] == ["GB0036"]
    assert missed["column"] == 5 and missed["end_column"] > missed["column"]
    assert "GB0036" in missed["message"]


def test_summary_counts(report: dict) -> None:
    summary = report["summary"]
    assert summary["confirmed"] == 2 and summary["missed"] == 1
    assert summary["false_alarms"] == 1 and summary["not_run"] == 1
    assert summary["breaks"] == 3 and summary["graphs"] >= 3
    [target] = report["targets"]
    assert target["ok"] and target["device"] == "cpu" and target["cases"] == 2
    # each break with its reason, GB code, hints and the whole user stack, outermost first
    [item] = [b for b in target["breaks"] if b["gb_type"] == "GB0124"]
    assert "item" in item["reason"].lower() and item["hints"]
    assert item["stack"][-1]["line"] == line_of("scale = x.abs()") and len(item["stack"]) >= 2


def test_recompiles_name_the_failed_guard(project: Path) -> None:
    proc = run_cli("explain", "model.py:shapes", cwd=project)
    assert proc.returncode == 1, proc.stderr  # the static findings of model.py, none of which ran
    assert "recompile of `plain`" in proc.stdout
    assert "size mismatch" in proc.stdout and "dtype mismatch" in proc.stdout
    assert "2 recompiles" in proc.stdout


def test_sarif_carries_status_and_gb_code(project: Path) -> None:
    proc = run_cli("explain", "model.py:cases", "--format", "sarif", "--no-cache", cwd=project)
    log = json.loads(proc.stdout)
    static, dynamic = log["runs"]
    assert dynamic["automationDetails"]["id"] == "breaklint/dynamic/"
    [result] = dynamic["results"]
    assert result["ruleId"] == "BL900" and result["properties"]["status"] == "dynamic-only"
    assert result["properties"]["gb_types"] == ["GB0036"]
    assert {r["properties"]["status"] for r in static["results"]} >= {"confirmed", "not-run", "not-reproduced"}
    import jsonschema

    schema = json.loads((ROOT.parent / "shared" / "sarif" / "sarif-schema-2.1.0.json").read_text())
    assert list(jsonschema.Draft4Validator(schema).iter_errors(log)) == []


FAILING = textwrap.dedent('''
    import os, signal, sys, time
    import torch

    def fine():
        return (lambda x: x + 1, (torch.ones(2),))

    def raises():
        raise ValueError("no weights")

    def model_raises():
        def f(x):
            raise RuntimeError("shape mismatch")
        return (f, (torch.ones(2),))

    def hangs():
        time.sleep(600)

    def exits():
        sys.exit(4)

    def killed():
        os.kill(os.getpid(), signal.SIGKILL)

    def not_cases():
        return 42

    def greedy():
        hoard = [bytearray(1 << 30) for _ in range(64)]
        return (lambda x: x, (torch.ones(2),))
''')


def test_failures_are_one_line_each_and_the_rest_is_kept(tmp_path: Path) -> None:
    (tmp_path / "targets.py").write_text(FAILING)
    (tmp_path / "model.py").write_text(MODEL)
    targets = ["targets.py:raises", "targets.py:model_raises", "targets.py:hangs", "targets.py:exits",
               "targets.py:killed", "targets.py:not_cases", "targets.py:missing", "no_such_module:f",
               "targets.py:greedy", "model.py:cases", "targets.py:fine"]
    proc = run_cli("explain", *targets, "--timeout", "20", "--max-memory", "4096", "--format", "json",
                   cwd=tmp_path)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("breaklint: target ")]
    assert len(errors) == 9, proc.stderr
    text = "\n".join(errors)
    assert "targets.py:raises: factory-raised: the factory raised ValueError: no weights" in text
    assert "model_raises: model-raised: case 0: the model raised RuntimeError: shape mismatch" in text
    assert "targets.py:hangs: timed out after 20 s" in text
    assert "targets.py:exits: factory-raised: the factory raised SystemExit(4)" in text
    assert "targets.py:killed: killed by signal 9 (SIGKILL)" in text
    assert "not_cases: bad-case" in text
    assert "targets.py:missing: factory-not-found" in text
    assert "no_such_module:f: module-not-found: module not found: no_such_module" in text
    assert "targets.py:greedy: out-of-memory: the factory raised MemoryError" in text
    report = json.loads(proc.stdout)
    assert report["summary"]["confirmed"] == 2  # model.py's findings are all still there
    assert [t["ok"] for t in report["targets"]] == [False] * 9 + [True, True]


UNRULY = textwrap.dedent('''
    import os, subprocess, sys
    import torch

    def case():
        return (lambda x: x + 1, (torch.ones(2),))

    def aborts():
        os.abort()

    def floods():
        chunk = "x" * (1 << 20)
        for _ in range(50):
            print(chunk)
            print(chunk, file=sys.stderr)
        return case()

    def orphans():
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(os.environ["ORPHAN_PID"], "w") as fh:
            fh.write(str(child.pid))
        return case()

    def wanders():
        os.chdir("/")
        sys.path.insert(0, "/nonexistent")
        return case()
''')


def test_unruly_targets_are_isolated(tmp_path: Path) -> None:
    """os.abort, 50 MB of output, a child process left running, a changed working directory and
    sys.path: each is that target's own affair, nothing is left behind, and the others still run."""
    import tempfile

    (tmp_path / "unruly.py").write_text(UNRULY)
    (tmp_path / "model.py").write_text(MODEL)
    pid_file = tmp_path / "orphan.pid"
    before = {p.name for p in Path(tempfile.gettempdir()).glob("breaklint-*")}
    targets = ["unruly.py:aborts", "unruly.py:floods", "unruly.py:orphans", "unruly.py:wanders", "model.py:cases"]
    proc = run_cli("explain", *targets, "--timeout", "120", "--format", "json", cwd=tmp_path,
                   env={"ORPHAN_PID": str(pid_file)})
    assert proc.returncode == 2  # one target failed
    errors = [line for line in proc.stderr.splitlines() if line.startswith("breaklint: target ")]
    assert errors == ["breaklint: target unruly.py:aborts: killed by signal 6 (SIGABRT)"], proc.stderr
    report = json.loads(proc.stdout)
    assert [t["ok"] for t in report["targets"]] == [False, True, True, True, True]
    assert report["summary"]["confirmed"] == 2
    orphan = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(orphan, 0)  # the child the target left running was killed with it
    assert {p.name for p in Path(tempfile.gettempdir()).glob("breaklint-*")} <= before


def test_targets_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.breaklint.dynamic]\ntargets = ["model.py:cases"]\ntimeout = 120\ndevice = "cpu"\n')
    proc = run_cli("explain", cwd=tmp_path)
    assert proc.returncode == 1 and "1 target (0 failed)" in proc.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.breaklint.dynamic]\ndevice = "tpu"\n')
    bad = run_cli("explain", cwd=tmp_path)
    assert bad.returncode == 2 and "device must be" in bad.stderr


def test_no_targets_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("explain", cwd=tmp_path)
    assert proc.returncode == 2 and "no targets" in proc.stderr


def test_examples_agree_with_torch_logs() -> None:
    proc = run_cli("explain", "--paths", "examples/models", "--format", "json", "--no-cache",
                   "examples/models/detector.py:cases", "examples/models/transformer.py:cases",
                   "examples/models/clean.py:cases", cwd=ROOT)
    assert proc.stdout, f"exit {proc.returncode}: {proc.stderr[-3000:]}"
    report = json.loads(proc.stdout)
    found = {(Path(f["path"]).name, f["line"]) for f in report["findings"] if f["status"] in ("confirmed", "dynamic-only")}
    expected = set()
    for name in ("detector", "transformer", "clean"):
        expected |= torch_logs_sites(ROOT / "examples" / "models", name)
    assert expected and found == expected
    assert report["summary"]["missed"] == 0 and report["summary"]["false_alarms"] == 0


def test_assert_no_graph_breaks_passes_on_clean_code() -> None:
    assert_no_graph_breaks(torch.nn.Linear(4, 4).eval(), torch.randn(2, 4))


def test_assert_no_graph_breaks_lists_site_reason_and_hint() -> None:
    def f(x):
        x = x * 2
        print("hello")
        return x + 1

    with pytest.raises(GraphBreakError) as info:
        assert_no_graph_breaks(f, torch.randn(2))
    text = str(info.value)
    assert "1 graph break" in text
    assert f"test_dynamic.py:{f.__code__.co_firstlineno + 2}" in text
    assert "GB0059" in text and "reason:" in text


def test_explain_sees_the_first_call_not_a_warmed_up_model(tmp_path: Path) -> None:
    """State built lazily on the first call is traced by dynamo, as in a real first compiled call."""
    (tmp_path / "lazy.py").write_text(textwrap.dedent('''
        import torch
        from torch import nn


        class Lazy(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = None

            def forward(self, x):
                if self.scale is None:
                    self.scale = float(x.abs().max())
                return x * self.scale


        def cases():
            return [(Lazy(), (torch.randn(4),))]
    '''))
    proc = run_cli("explain", "lazy.py:cases", "--format", "json", cwd=tmp_path)
    [finding] = json.loads(proc.stdout)["findings"]
    assert finding["code"] == "BL103" and finding["status"] == "confirmed"


def test_a_break_inside_a_comprehension_has_one_site(tmp_path: Path) -> None:
    (tmp_path / "comp.py").write_text(textwrap.dedent('''
        import torch


        def width(box):
            return int(box[1] - box[0])


        @torch.compile
        def f(boxes):
            sizes = [width(b) for b in boxes]
            return boxes * len(sizes)


        def cases():
            return [(f, (torch.tensor([[0.0, 3.0], [1.0, 5.0]]),))]
    '''))
    proc = run_cli("explain", "comp.py:cases", "--format", "json", cwd=tmp_path)
    report = json.loads(proc.stdout)
    sites = {f["line"] for f in report["findings"] if f["status"] in ("confirmed", "dynamic-only")}
    assert sites == torch_logs_sites_lines(tmp_path, "comp")


def torch_logs_sites_lines(folder: Path, stem: str) -> set[int]:
    return {line for _, line in torch_logs_sites(folder, stem)}


def test_training_mode_from_config_and_flag(tmp_path: Path) -> None:
    (tmp_path / "grad.py").write_text(textwrap.dedent('''
        import torch


        def needs_grad(x):
            if not torch.is_grad_enabled():
                raise RuntimeError("ran without autograd")
            return x + 1


        def cases():
            return [(needs_grad, (torch.ones(2),))]
    '''))
    (tmp_path / "pyproject.toml").write_text('[tool.breaklint.dynamic]\ntrain = true\n')
    assert run_cli("explain", "grad.py:cases", cwd=tmp_path).returncode == 0
    proc = run_cli("explain", "grad.py:cases", "--no-train", cwd=tmp_path)
    assert proc.returncode == 2 and "ran without autograd" in proc.stderr


def test_assert_no_graph_breaks_with_a_budget() -> None:
    def f(x):
        x = x * 2
        print("hello")
        return x + 1

    here = f"tests/test_dynamic.py:{f.__code__.co_firstlineno + 2}"
    assert_no_graph_breaks(f, torch.randn(2), max_breaks=1)
    assert_no_graph_breaks(f, torch.randn(2), allowed_sites=[here])
    assert_no_graph_breaks(f, torch.randn(2), allowed_sites=["test_dynamic.py"])
    with pytest.raises(GraphBreakError) as info:
        assert_no_graph_breaks(f, torch.randn(2), allowed_sites=[f"tests/test_dynamic.py:{f.__code__.co_firstlineno}"])
    assert "1 graph break" in str(info.value)


BUDGET_MODEL = textwrap.dedent('''
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            x = x * 2
            print("step")
            return x + 1


    def cases():
        return [(Net().eval(), (torch.randn(2, 4),))]
''')


def test_a_graph_break_budget_fails_only_when_a_target_gets_worse(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    model = project / "model.py"
    model.write_text(BUDGET_MODEL)
    wrote = run_cli("explain", "model.py:cases", "--no-cache", "--write-baseline", "breaks.json", cwd=project)
    assert wrote.returncode == 0, wrote.stderr
    budget = json.loads((project / "breaks.json").read_text())
    [(target, entry)] = budget["targets"].items()
    assert target == "model.py:cases" and entry["breaks"] == 1 and entry["graphs"] == 2
    assert entry["sites"] == [{"file": "model.py", "line": BUDGET_MODEL.splitlines().index('        print("step")') + 1,
                               "gb_type": "GB0059"}]

    same = run_cli("explain", "model.py:cases", "--no-cache", "--baseline", "breaks.json", cwd=project)
    assert same.returncode == 0, same.stderr
    assert "0 of 1 target worse than the budget" in same.stderr

    model.write_text(BUDGET_MODEL.replace("return x + 1", "return x + x.sum().item()"))
    worse = run_cli("explain", "model.py:cases", "--no-cache", "--baseline", "breaks.json", cwd=project)
    assert worse.returncode == 1, worse.stderr
    assert "WORSE: model.py:cases" in worse.stderr
    assert re.search(r"new break at model\.py:\d+: GB\d{4}", worse.stderr)
    assert "reason:" in worse.stderr and "hint:" in worse.stderr

    model.write_text(BUDGET_MODEL.replace('        print("step")\n', ""))
    better = run_cli("explain", "model.py:cases", "--no-cache", "--baseline", "breaks.json", cwd=project)
    assert better.returncode == 0, better.stderr
    assert "better than the budget" in better.stderr

    (project / "bad.json").write_text('{"kind": "graph-break-budget", "format": 1, "targets": {"t": {"graphs": 1}}}')
    bad = run_cli("explain", "model.py:cases", "--no-cache", "--baseline", "bad.json", cwd=project)
    assert bad.returncode == 2 and "needs graphs, breaks and sites" in bad.stderr


def test_targets_run_in_parallel_each_with_its_own_gpu(monkeypatch) -> None:
    import threading
    import time

    from breaklint.dynamic import explain as dynamic

    in_use, used, peak = set(), set(), [0]
    lock = threading.Lock()

    def fake(target, gpu=None, **options):
        with lock:
            assert gpu not in in_use  # no two targets share a GPU at once
            in_use.add(gpu)
            used.add(gpu)
            peak[0] = max(peak[0], len(in_use))
        time.sleep(0.3)
        with lock:
            in_use.discard(gpu)
        return dynamic.TargetReport(target, True, data={"graphs": 1, "breaks": []}, seconds=0.3)

    monkeypatch.setattr(dynamic, "run_target", fake)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    finished = []
    start = time.monotonic()
    reports = dynamic.run_targets([f"t{i}" for i in range(6)], 2, on_done=lambda r: finished.append(r.target))
    elapsed = time.monotonic() - start
    assert [r.target for r in reports] == [f"t{i}" for i in range(6)]  # in the order given
    assert sorted(finished) == [f"t{i}" for i in range(6)]
    assert peak[0] == 2 and used == {"3", "5"}
    assert elapsed < 6 * 0.3 * 0.75  # about total / 2
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert dynamic.visible_gpus() == []


def test_explain_jobs_reports_each_target_as_it_finishes(project: Path) -> None:
    proc = run_cli("explain", "model.py:cases", "model.py:shapes", "--jobs", "2", "--format", "json", "--no-cache",
                   cwd=project)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert [t["target"] for t in data["targets"]] == ["model.py:cases", "model.py:shapes"]
    assert all(t["ok"] for t in data["targets"])
    assert re.search(r"breaklint: model\.py:shapes: \d+ graphs, 0 breaks", proc.stderr)
    assert re.search(r"breaklint: model\.py:cases: \d+ graphs, \d+ breaks", proc.stderr)


def test_the_html_report_as_a_person_sees_it(project: Path, tmp_path: Path) -> None:
    """Rendered by headless Chromium: the screenshot is not blank and the page's text holds every site."""
    import shutil

    proc = run_cli("explain", "model.py:cases", "model.py:shapes", "--format", "html", "-o", str(tmp_path / "r.html"),
                   "--no-cache", cwd=project)
    assert proc.returncode == 1, proc.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script" not in page and "http://" not in page and "https://" not in page.split("</style>")[0]
    assert "src=" not in page and "<link" not in page  # self-contained: no external assets
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no headless Chromium here (CI installs Debian's chromium)")
    from PIL import Image

    shot = tmp_path / "shot.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,1600", (tmp_path / "r.html").as_uri()],
                   capture_output=True, timeout=120)
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 16) or []
    inked = sum(count for count, rgb in colours if rgb != (255, 255, 255))
    assert inked > 0.03 * image.width * image.height  # text, tables, code: not a blank page
    assert any(rgb[0] > 180 and rgb[1] < 80 and rgb[2] < 80 for _, rgb in colours)  # the red GB badges
    dom = subprocess.run([browser, *flags, "--dump-dom", (tmp_path / "r.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    text = re.sub(r"<[^>]+>", " ", dom)
    for fragment in ("scale = x.abs().max().item()", "return t[t > 0]"):
        assert f"model.py:{line_of(fragment)}" in text
    assert "GB0124" in text and "predicted: BL101" in text and "model.py:shapes" in text
    assert "Recompiles" in text and "plain" in text


WHAT_IF_MODEL = textwrap.dedent('''
    import torch
    from torch import nn


    class Scale(nn.Module):
        def forward(self, x):
            s = x.abs().max().item()
            return x / s


    class Keep(nn.Module):
        def forward(self, x):
            idx = torch.nonzero(x > 0)
            return x.sum() + idx.shape[0]


    def cases():
        torch.manual_seed(0)
        return [(Scale().eval(), (torch.randn(2, 4),)), (Keep().eval(), (torch.randn(2, 4),))]
''')


def test_what_if_measures_each_dynamo_setting(tmp_path: Path) -> None:
    (tmp_path / "wi.py").write_text(WHAT_IF_MODEL)
    proc = run_cli("explain", "wi.py:cases", "--what-if", "--format", "json", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    by_setting = {o["setting"]: o for o in data["what_if"]}
    item_line = WHAT_IF_MODEL.splitlines().index("        s = x.abs().max().item()") + 1
    nonzero_line = WHAT_IF_MODEL.splitlines().index("        idx = torch.nonzero(x > 0)") + 1
    scalar = by_setting["capture_scalar_outputs"]
    assert (scalar["breaks_before"], scalar["breaks_after"]) == (2, 1)
    assert scalar["removed"] == [{"file": "wi.py", "line": item_line, "gb_type": "GB0124"}]
    assert scalar["outputs_agree"] is True and scalar["add"] == "torch._dynamo.config.capture_scalar_outputs = True"
    shapes = by_setting["capture_dynamic_output_shape_ops"]
    assert [r["line"] for r in shapes["removed"]] == [nonzero_line] and shapes["outputs_agree"] is True
    suggestions = {f["code"]: f["suggestion"] for f in data["findings"]}
    assert "measured: `torch._dynamo.config.capture_scalar_outputs = True` removes this break" in suggestions["BL101"]
    assert "capture_dynamic_output_shape_ops = True` removes this break" in suggestions["BL301"]


def _counted(x):
    return int(x.sum().item())


def _counts_twice(x):
    first = _counted(x)
    second = _counted(x * 2)
    return x * first * second


def test_a_break_met_again_from_another_call_keeps_its_stack() -> None:
    # dynamo logs the user stack of a break once per kind and place: the second call of the same
    # breaking helper (from the resumed code) would be logged without the caller's line
    import inspect

    from breaklint.dynamic.explain import collect_breaks

    breaks, _ = collect_breaks(_counts_twice, (torch.ones(3),))
    lines = {line for b in breaks for path, line in b.frames if path == __file__}
    start = inspect.getsourcelines(_counts_twice)[1]
    assert {start + 1, start + 2} <= lines
    from torch._dynamo import symbolic_convert

    assert "add" not in vars(symbolic_convert.graph_break_dup_warning_checker)  # put back as it was


def _prints_in_a_loop(x):
    for i in range(2):
        x = x + 1
        print(i)
    return x


def test_a_program_that_turned_logging_off_still_has_its_breaks_collected() -> None:
    # a break in a loop skips the frame, which `explain` does not list: only the graph-break log names it, and
    # `logging.disable(...)` (a program quieting a library) had silenced that log too
    import inspect
    import logging

    from breaklint.dynamic.explain import collect_breaks

    logging.disable(logging.WARNING)
    try:
        breaks, _ = collect_breaks(_prints_in_a_loop, (torch.ones(3),))
        assert logging.root.manager.disable == logging.WARNING  # put back as it was
    finally:
        logging.disable(logging.NOTSET)
    start = inspect.getsourcelines(_prints_in_a_loop)[1]
    assert start + 3 in {line for b in breaks for path, line in b.frames if path == __file__}


def test_an_unforeseen_error_ends_explain_and_merge_with_status_2(tmp_path: Path, monkeypatch) -> None:
    """A run that fails must not exit 1, which says "breaks found" to CI: it says what failed and
    exits 2 (click's own usage errors keep theirs)."""
    from click.testing import CliRunner

    from breaklint.cli import main
    from breaklint.dynamic import explain as explain_module
    from breaklint.dynamic import shards as shards_module

    (tmp_path / "m.py").write_text("import torch\n\ndef cases():\n    return [(torch.sin, (torch.ones(2),))]\n")

    def broken(*args, **kwargs):
        raise RuntimeError("worker pool lost")

    monkeypatch.setattr(explain_module, "run_targets", broken)
    runner = CliRunner()
    result = runner.invoke(main, ["explain", f"{tmp_path / 'm.py'}:cases", "--paths", str(tmp_path), "--no-cache"])
    assert result.exit_code == 2
    assert "internal error: RuntimeError: worker pool lost" in result.stderr
    monkeypatch.setattr(shards_module, "merge_shards", broken)
    (tmp_path / "s.json").write_text("{}")
    result = runner.invoke(main, ["merge", str(tmp_path / "s.json")])
    assert result.exit_code == 2 and "internal error: RuntimeError" in result.stderr
    assert runner.invoke(main, ["explain", "--shard", "1/2", "x.py:cases", "--paths", str(tmp_path)]).exit_code == 2
