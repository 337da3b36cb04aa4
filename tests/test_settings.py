"""The project's dynamo settings: read from the tree and the configuration, applied where they hold.

The fixtures under `fixtures/settings/` each make one setting in code; dynamo runs their cases under
it, and the static pass, which reads the setting from the same file, must predict exactly the lines
dynamo breaks at. The other tests pin how far a setting reaches (a process-wide assignment, a patch
as a decorator, a `with` block, a helper that hands a patch out) without running anything.
"""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.config import Config, ConfigError, from_mapping
from breaklint.dynamo_settings import SUPPORTED
from breaklint.engine import combine, lint, lint_source
from breaklint.analyze import analyze_source
from breaklint.rules import load_rules

from conftest import FIXTURES, run_cli

SETTING_FIXTURES = sorted((FIXTURES / "settings").glob("*.py"))


def test_every_supported_setting_has_a_calibration_fixture() -> None:
    assert {p.stem for p in SETTING_FIXTURES} == set(SUPPORTED)


@pytest.mark.dynamo
@pytest.mark.parametrize("path", SETTING_FIXTURES, ids=lambda p: p.stem)
def test_findings_match_dynamo_under_the_setting(path: Path) -> None:
    pytest.importorskip("torch")
    from breaklint.dynamic.calibrate import calibrate, expected_markers

    import torch

    from breaklint import calibration

    rules = load_rules()
    markers = expected_markers(path.read_text(encoding="utf-8"))
    cal = calibrate(path)
    newest = list(calibration.table())[-1]
    if calibration.release(torch.__version__) >= calibration.release(newest):
        # the markers are written for the newest calibrated release; an older one may break more
        assert set(cal.sites) == {line for line, _ in markers}, "the fixture's markers are not where dynamo breaks"
    assert cal.break_lines() == set(cal.sites), (
        f"static, not dynamo: {sorted(cal.break_lines() - set(cal.sites))}; "
        f"dynamo, not static: {sorted(set(cal.sites) - cal.break_lines())}")
    for finding in cal.static:
        known = cal.sites[finding.line] - {"?"}
        assert not known or known & set(rules[finding.code].GB_TYPES), (finding.line, known)
    # the calibration leaves dynamo's settings as it found them
    assert not torch._dynamo.config.capture_scalar_outputs
    assert not torch._dynamo.config.reorderable_logging_functions


def _codes(source: str, config: Config | None = None, files: dict[str, str] | None = None) -> dict[int, str]:
    results = [analyze_source(dedent(source), Path("m.py"), "m")]
    for name, text in (files or {}).items():
        results.append(analyze_source(dedent(text), Path(f"{name}.py"), name))
    result = combine(results, config or Config())
    assert not result.errors, result.errors  # a source that does not parse would pass any `== {}`
    return {f.line: f.code for f in result.findings if f.path == Path("m.py")}


ITEM = """
    import torch
    {setting}

    @torch.compile
    def f(x):
        x = x * 2
        return x * x.sum().item()
"""


@pytest.mark.parametrize("setting", [
    "torch._dynamo.config.capture_scalar_outputs = True",
    "import torch._dynamo.config as dc\ndc.capture_scalar_outputs = True",
    "from torch._dynamo import config\nconfig.capture_scalar_outputs = True",
    "def main():\n    torch._dynamo.config.capture_scalar_outputs = True",
])
def test_an_assignment_anywhere_holds_for_the_whole_tree(setting: str) -> None:
    assert _codes(ITEM.format(setting="")) == {8: "BL101"}
    assert _codes(ITEM.format(setting=setting.replace("\n", "\n    "))) == {}


def test_an_assignment_in_another_file_holds_too() -> None:
    other = "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n"
    assert _codes(ITEM.format(setting=""), files={"train": other}) == {}


def test_a_flag_set_both_on_and_off_counts_as_off() -> None:
    both = "torch._dynamo.config.capture_scalar_outputs = True\n    torch._dynamo.config.capture_scalar_outputs = False"
    assert _codes(ITEM.format(setting=both)) == {9: "BL101"}


def test_the_configuration_makes_settings_made_outside_the_tree() -> None:
    config = from_mapping({"dynamo-config": {"capture_scalar_outputs": True}})
    assert _codes(ITEM.format(setting=""), config) == {}
    config = from_mapping({"dynamo-config": {"capture_scalar_outputs": True}})
    off = "torch._dynamo.config.capture_scalar_outputs = False"
    assert _codes(ITEM.format(setting=off), config) == {8: "BL101"}, "the tree's own setting wins"


@pytest.mark.parametrize("table, message", [
    ({"capture_scalars": True}, "not a setting the static pass models"),
    ({"capture_scalar_outputs": "yes"}, "must be true or false"),
    ({"reorderable_logging_functions": "print"}, "list of dotted function names"),
])
def test_a_broken_dynamo_config_is_a_clear_error(table: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_mapping({"dynamo-config": table})


PATCHED = """
    import contextlib
    import torch
    from torch import nn


    class Head(nn.Module):
        def forward(self, x):
            return x * x.sum().item()


    class Other(nn.Module):
        def forward(self, x):
            return x * x.max().item()


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Head()
            self.other = Other()

        def forward(self, x):
            x = x * 2
            {body}
"""


def test_a_patched_with_block_covers_what_its_calls_reach_and_nothing_else() -> None:
    body = ("with torch._dynamo.config.patch(capture_scalar_outputs=True):\n"
            "                y = self.head(x) + x.mean().item()\n"
            "            return self.other(y) + x.min().item()")
    assert _codes(PATCHED.format(body=body)) == {14: "BL101", 27: "BL101"}


def test_a_helper_that_hands_out_a_patch_covers_its_with_block() -> None:
    body = ("with self._settings():\n"
            "                y = self.head(x)\n"
            "            return self.other(y)\n\n"
            "        def _settings(self):\n"
            "            if self.training:\n"
            "                return contextlib.nullcontext()\n"
            "            return torch._dynamo.config.patch({'capture_scalar_outputs': True})")
    assert _codes(PATCHED.format(body=body)) == {14: "BL101"}


def test_a_context_manager_that_yields_under_a_patch_covers_its_with_block() -> None:
    body = ("with scalars():\n"
            "                return self.head(x) + self.other(x)\n\n\n"
            "    @contextlib.contextmanager\n"
            "    def scalars():\n"
            "        with torch._dynamo.config.patch('capture_scalar_outputs', True):\n"
            "            yield")
    assert _codes(PATCHED.format(body=body)) == {}
    after = body.replace("            yield", "            pass\n        yield")  # yields after the patch ends
    assert _codes(PATCHED.format(body=after)) == {9: "BL101", 14: "BL101"}


def test_a_patch_decorator_covers_the_function_and_what_it_reaches() -> None:
    source = """
        import torch

        def helper(x):
            return x.sum().item()

        @torch._dynamo.config.patch(capture_scalar_outputs=True)
        @torch.compile
        def patched(x):
            return x * helper(x) * x.max().item()

        @torch.compile
        def plain(x):
            return x * x.max().item()
    """
    assert _codes(source) == {14: "BL101"}


def test_settings_the_static_pass_does_not_model_are_ignored() -> None:
    setting = "torch._dynamo.config.cache_size_limit = 64\n    torch._dynamo.config.capture_scalar_outputs = 1"
    assert _codes(ITEM.format(setting=setting)) == {9: "BL101"}, "only literal True turns a flag on"


def test_a_logger_method_is_lifted_only_by_ignoring_it() -> None:
    source = """
        import logging
        import torch
        logger = logging.getLogger(__name__)
        torch._dynamo.config.{setting} = {{logging.Logger.info}}

        @torch.compile
        def f(x):
            logger.info("x")
            logger.debug("x")
            return x + 1
    """
    assert _codes(source.format(setting="reorderable_logging_functions")) == {9: "BL402", 10: "BL402"}
    assert _codes(source.format(setting="ignore_logging_functions")) == {10: "BL402"}


def test_findings_name_the_settings_they_depend_on_and_lint_counts_what_each_removed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(dedent("""
        import torch
        torch._dynamo.config.capture_scalar_outputs = True

        @torch.compile
        def f(x):
            s = x.sum().item()
            n = int(x.max())
            if s > 0:
                return x[x > 0] + n
            return x
    """))
    result = lint([tmp_path], Config(root=tmp_path), jobs=1, use_cache=False)
    assert {(f.line, f.code, f.settings) for f in result.findings} == {
        (9, "BL201", ("capture_scalar_outputs",)), (10, "BL302", ("capture_dynamic_output_shape_ops",))}
    assert result.lifted == {"capture_scalar_outputs": 2}
    branch = next(f for f in result.findings if f.code == "BL201")
    assert "because `capture_scalar_outputs` is set" in branch.message
    proc = run_cli(str(tmp_path / "m.py"), "--no-cache", "--output-format", "json")
    data = json.loads(proc.stdout)
    findings = data["findings"] if isinstance(data, dict) else data
    assert sorted(f["settings"] for f in findings) == [["capture_dynamic_output_shape_ops"],
                                                       ["capture_scalar_outputs"]]


# ---------------------------------------------------------------------- the torch release


def test_the_shipped_calibration_covers_two_releases_and_every_setting() -> None:
    from breaklint import calibration
    from breaklint.registry import rule_codes, rule_info

    versions = calibration.table()
    assert len(versions) >= 2
    runnable = {p.stem for p in FIXTURES.glob("BL*.py") if "def cases(" in p.read_text(encoding="utf-8")}
    full: dict[str, list[str]] = {}
    for version, record in versions.items():
        # (a rule whose break only older Pythons have is recorded only by runs under one of them)
        assert (runnable & set(rule_codes())) - set(calibration.PYTHON_BOUND) <= set(record["rules"]), version
        assert {name: r.get("agree") for name, r in record["settings"].items()} == {s: True for s in SUPPORTED}
        for code in record["rules"]:
            if rule_info(code).kind == "break":
                broke, marked = record["rules"][code]["none"]
                assert broke <= marked, f"{code} on torch {version}: more lines broke than are marked"
                full.setdefault(code, []).extend([version] if broke == marked else [])
    # a newer torch may trace what an older one broke on (the findings then say so, or go), but every
    # marked line was a break on some calibrated release, and on the installed one, against which
    # `test_calibration.py` checks the fixtures' markers
    assert all(full.values()), {code: releases for code, releases in full.items() if not releases}
    installed = calibration.installed_torch()
    if installed is not None:
        here = calibration.answering(installed, versions)
        assert all(here in releases for releases in full.values()), here


def test_the_readme_table_is_the_calibration() -> None:
    from breaklint import calibration

    readme = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")
    assert calibration.markdown() in readme, "run `python -m breaklint.calibration` and paste it into the README"


# A calibration in which BL101's fixture did not break on an older release: the shipped one shows
# no rule that differs between its releases, so the rule of `target-torch` is shown on this one.
DIFFERING = {
    "2.9.0": {"rules": {"BL101": {"none": [0, 3]}, "BL401": {"none": [1, 1]}}},
    "2.11.0": {"rules": {"BL101": {"none": [2, 3]}, "BL401": {"none": [1, 1]}}},
    "2.13.0": {"rules": {"BL101": {"none": [3, 3]}, "BL401": {"none": [1, 1]}}},
}
TWO_BREAKS = """
    import torch

    @torch.compile
    def f(x):
        print("x")
        return x * x.sum().item()
"""


@pytest.mark.parametrize("target, expected", [
    ("2.9", {(6, "BL401", "")}),
    ("2.10.1", {(6, "BL401", "")}),
    ("2.11", {(6, "BL401", ""), (7, "BL101", "on torch 2.11.0, 2 of the rule's 3 calibration cases break")}),
    ("2.13.0", {(6, "BL401", ""), (7, "BL101", "breaks on torch >= 2.13.0")}),
    ("2.15", {(6, "BL401", ""), (7, "BL101", "breaks on torch >= 2.13.0")}),
    ("1.0", {(6, "BL401", "")}),
])
def test_target_torch_changes_findings_only_where_the_calibration_differs(
        monkeypatch: pytest.MonkeyPatch, target: str, expected: set) -> None:
    from breaklint import calibration

    monkeypatch.setattr(calibration, "table", lambda path=None: dict(DIFFERING))
    config = from_mapping({"target-torch": target})
    findings = combine([analyze_source(dedent(TWO_BREAKS), Path("m.py"), "m")], config).findings
    assert {(f.line, f.code, f.torch) for f in findings} == expected
    for f in findings:
        assert not f.torch or f.message.endswith(f"({f.torch})")


def test_with_the_shipped_calibration_target_torch_changes_nothing() -> None:
    results = [analyze_source(dedent(TWO_BREAKS), Path("m.py"), "m")]
    seen = {tuple((f.line, f.code, f.message, f.torch) for f in combine(results, from_mapping(
        {"target-torch": target})).findings) for target in ("2.4", "2.11", "2.13", "3.0")}
    assert len(seen) == 1 and len(next(iter(seen))) == 2


@pytest.mark.parametrize("value", ["latest", "2", 2.13, "2.13.0.1"])
def test_a_broken_target_torch_is_a_clear_error(value: object) -> None:
    with pytest.raises(ConfigError, match="target-torch must be a torch release"):
        from_mapping({"target-torch": value})


def test_rule_prints_its_calibration() -> None:
    proc = run_cli("rule", "BL101")
    assert proc.returncode == 0
    assert "## Calibration" in proc.stdout
    assert "- torch 2.13.0: 3 of 3; with capture_scalar_outputs: 1 of 3" in proc.stdout
    assert "## Calibration" not in run_cli("rule", "BL501").stdout, "a hazard never breaks: no calibration rows"


@pytest.mark.parametrize("name", ["test_train.py", "train_test.py", "conftest.py", "tests/helpers.py"])
def test_a_test_file_sets_settings_for_itself_only(name: str) -> None:
    other = "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n"
    results = [analyze_source(dedent(ITEM.format(setting="")), Path("m.py"), "m"),
               analyze_source(other, Path(name), Path(name).stem)]
    assert {(f.line, f.code) for f in combine(results, Config()).findings} == {(8, "BL101")}


def test_a_setting_whose_effect_differs_between_releases_follows_target_torch() -> None:
    """The shipped calibration: with `trace_autograd_ops` on, torch 2.11 still breaks at a
    `.requires_grad_()` before `torch.autograd.grad`; torch 2.13 does not. (The two
    `torch.autograd.functional` lines of the fixture break on every release, setting or not.)"""
    from breaklint import calibration

    versions = calibration.table()
    assert calibration.counts("BL419", versions, "trace_autograd_ops") == {"2.11.0": (4, 8), "2.13.0": (2, 8),
                                                                          "2.14.1": (2, 8)}
    source = """
        import torch
        torch._dynamo.config.trace_autograd_ops = True

        @torch.compile
        def score(x):
            with torch.enable_grad():
                x = x.detach().requires_grad_()
                energy = (x ** 2).sum()
            (g,) = torch.autograd.grad(energy, x)
            return g
    """
    older = combine([analyze_source(dedent(source), Path("m.py"), "m")], from_mapping({"target-torch": "2.11"}))
    newer = combine([analyze_source(dedent(source), Path("m.py"), "m")], from_mapping({"target-torch": "2.13"}))
    assert [(f.line, f.code) for f in older.findings] == [(8, "BL419")]
    assert "removes this break only from torch 2.13" in older.findings[0].message
    assert newer.findings == [] and newer.lifted == {"trace_autograd_ops": 2}


def test_a_rule_that_no_longer_breaks_on_the_target_release_reports_nothing_there() -> None:
    """The shipped calibration: the builtin `pow` of a tensor breaks on torch 2.11 and 2.13, and torch
    2.14 traces it; a Python random draw in arithmetic is traced from 2.14 on too, where a branch on
    it and NumPy's draws still break."""
    from breaklint import calibration

    versions = calibration.table()
    assert calibration.counts("BL415", versions) == {"2.11.0": (1, 1), "2.13.0": (1, 1), "2.14.1": (0, 1)}
    source = """
        import random
        import torch

        @torch.compile
        def scaled(x, r):
            x = x * 2
            p = random.random()
            return x + pow(0.01 * r, 2) * p
    """

    def found(target: str) -> list[tuple[int, str, str]]:
        result = combine([analyze_source(dedent(source), Path("m.py"), "m")], from_mapping({"target-torch": target}))
        return [(f.line, f.code, f.torch) for f in result.findings]
    partly = "on torch 2.14.1, 2 of the rule's 3 calibration cases break"
    assert found("2.13") == [(8, "BL405", partly), (9, "BL415", "torch 2.14.1 traces it")]
    # a patch release answers for its minor release: "2.14" is any 2.14.x
    assert found("2.14") == found("2.14.1") == [(8, "BL405", partly)]


def test_autograd_functional_derivatives_break_whatever_trace_autograd_ops_says() -> None:
    source = dedent("""\
        import torch
        from torch.autograd.functional import hessian

        def energy(z):
            return (z ** 2).sum()

        @torch.compile
        def f(x):
            g = torch.func.grad(energy)(x)
            return hessian(energy, x) + torch.autograd.functional.jacobian(torch.sin, g)
    """)
    for config in (Config(), Config(dynamo_config={"trace_autograd_ops": ["True"]})):
        found = [(f.line, f.code) for f in lint_source(source, Path("m.py"), config)]
        assert found == [(10, "BL419"), (10, "BL419")], config.dynamo_config


def test_the_optimizers_whose_step_breaks_are_those_torch_wraps_in_graph_breaks() -> None:
    # torch's `_use_grad` (`torch.optim.optimizer`) calls `torch._dynamo.graph_break()` around the
    # update; BL436's list must be exactly the optimizers whose `step` it wraps
    import inspect

    import torch

    from breaklint.analysis.optimizer_classes import GRAPH_BREAKING_OPTIMIZERS

    def layers(fn):  # the function and what it wraps, in turn (dynamo may wrap `step` again once it has run)
        while fn is not None:
            yield fn
            fn = getattr(fn, "__wrapped__", None)

    wrapped = {f"torch.optim.{name}" for name, cls in vars(torch.optim).items()
               if inspect.isclass(cls) and issubclass(cls, torch.optim.Optimizer)
               and any(getattr(getattr(f, "__code__", None), "co_name", "") == "_use_grad" for f in layers(cls.step))}
    assert wrapped == set(GRAPH_BREAKING_OPTIMIZERS)


def test_the_optimizer_methods_reported_are_those_torch_keeps_out_of_dynamo() -> None:
    # `torch._disable_dynamo` wraps a function in `inner` of `torch/_compile.py`; BL448's methods must be
    # wrapped so on every optimizer class it names that the installed torch has, and `step` not
    import torch

    from breaklint.analysis.optimizer_classes import TORCH_OPTIMIZERS
    from breaklint.rules.modules import OptimizerDisabledMethod

    def disabled(fn) -> bool:
        code = getattr(fn, "__code__", None)
        return code is not None and code.co_name == "inner" and code.co_filename.endswith("_compile.py")

    classes = [getattr(torch.optim, name.removeprefix("torch.optim."), None) for name in TORCH_OPTIMIZERS
               if name.count(".") == 2]
    present = [cls for cls in classes if cls is not None]
    assert torch.optim.Optimizer in present and len(present) >= 12
    for cls in present:
        assert all(disabled(getattr(cls, m)) for m in OptimizerDisabledMethod.CALL_METHODS), cls
        assert not disabled(cls.step), cls


# ---------------------------------------------------------------------- the code's Python release
CACHED_READ = """
    from functools import cached_property

    import torch


    class Vocabulary:
        @cached_property
        def end(self) -> int:
            return 3


    @torch.compile
    def shift(x, vocab: Vocabulary):
        return x + vocab.end
    """


def _cached_read_codes(config: Config) -> list[str]:
    return [f.code for f in combine([analyze_source(dedent(CACHED_READ), Path("m.py"), "m")], config).findings]


@pytest.mark.parametrize(("python", "breaks"), [("3.10", True), ("3.11", True), ("py311", True), ("3.11.9", True),
                                                ("3.12", False), ("py313", False)])
def test_a_cached_property_read_breaks_only_for_code_on_python_3_11_or_older(python: str, breaks: bool) -> None:
    assert _cached_read_codes(from_mapping({"target-python": python})) == (["BL439"] if breaks else [])


@pytest.mark.parametrize(("requires", "breaks"), [(">=3.10", True), (">=3.9, <4", True), ("~=3.11", True),
                                                  (">=3.12", False), ("==3.12.*", False), (">=3.8,>=3.12", False)])
def test_without_target_python_the_projects_requires_python_decides(tmp_path: Path, requires: str,
                                                                    breaks: bool) -> None:
    from breaklint.config import load

    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "m"\nrequires-python = "{requires}"\n\n[tool.breaklint]\nselect = ["BL439"]\n',
        encoding="utf-8")
    config = load([tmp_path])
    assert _cached_read_codes(config) == (["BL439"] if breaks else [])
    # a `target-python` of its own wins over `requires-python`
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nrequires-python = "{requires}"\n\n[tool.breaklint]\ntarget-python = "3.11"\n', encoding="utf-8")
    assert _cached_read_codes(load([tmp_path])) == ["BL439"]


def test_with_neither_the_python_running_breaklint_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys, "version_info", (3, 12, 0, "final", 0))
    assert Config().python_release() == (3, 12) and _cached_read_codes(Config()) == []
    monkeypatch.setattr(sys, "version_info", (3, 11, 4, "final", 0))
    assert Config().python_release() == (3, 11) and _cached_read_codes(Config()) == ["BL439"]


def test_the_code_python_is_part_of_the_cache_key() -> None:
    assert from_mapping({"target-python": "3.11"}).fingerprint() != from_mapping({"target-python": "3.12"}).fingerprint()
    assert from_mapping({"target-python": "3.11"}).fingerprint() == from_mapping({"target-python": "py311"}).fingerprint()


@pytest.mark.parametrize("value", ["latest", "3", 3.11, "2.7x", "python3.11"])
def test_a_broken_target_python_is_a_clear_error(value: object) -> None:
    with pytest.raises(ConfigError, match="target-python must be a Python release"):
        from_mapping({"target-python": value})


def test_only_the_first_cached_property_read_that_always_runs_is_reported() -> None:
    """Dynamo runs the rest of the function eagerly from the first read that breaks, and traces none
    of what it calls from there on (fixtures/BL439.py calibrates this under dynamo): a read under an
    `if` may not run, so the reads after it are reported too."""
    source = """
        from functools import cached_property

        import torch


        class Vocabulary:
            @cached_property
            def end(self) -> int:
                return 3

            @cached_property
            def start(self) -> int:
                return 0


        def before(vocab: Vocabulary):
            return vocab.start


        def after(vocab: Vocabulary):
            return vocab.start


        @torch.compile
        def run(x, vocab: Vocabulary, flag: bool):
            x = x + before(vocab)
            if flag:
                x = x + vocab.start
            x = x * vocab.end
            x = x - vocab.start
            return x + after(vocab)
        """
    config = from_mapping({"target-python": "3.11"})
    found = combine([analyze_source(dedent(source), Path("m.py"), "m")], config).findings
    lines = dedent(source).splitlines()
    assert [lines[f.line - 1].strip() for f in found] == [
        "return vocab.start", "x = x + vocab.start", "x = x * vocab.end"]
    assert found[0].line == 18  # in `before`, called ahead of the break; `after` is called once it happened
