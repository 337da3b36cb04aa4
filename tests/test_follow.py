"""Calls into installed packages the configuration follows (`follow`): the package's breaks that happen
whenever the called function runs are reported at the linted code's call."""

from __future__ import annotations

import os
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from breaklint import cache
from breaklint.cli import main
from breaklint.config import Config, ConfigError, from_mapping
from breaklint.engine import lint
from breaklint.follow import SUGGESTION

PACKAGE = {
    "graphpkg/__init__.py": """
        from .ops import drop_loops, maybe_drop, Conv, Plain
    """,
    "graphpkg/ops.py": """
        import torch
        from torch import nn

        def _select(edges):
            mask = edges[0] != edges[1]
            return edges[:, mask]

        def drop_loops(edges):
            return _select(edges)

        def maybe_drop(edges, drop=False):
            if drop:
                return _select(edges)
            return edges

        class Conv(nn.Module):
            def __init__(self, k):
                super().__init__()
                self.lin = nn.Linear(k, k)

            def forward(self, x, edges):
                edges = drop_loops(edges)
                return self.lin(x)

        class Plain(nn.Module):
            def forward(self, x):
                return x * 2
    """,
}

MODEL = """
    import torch
    from torch import nn
    from graphpkg import Conv, Plain, drop_loops, maybe_drop

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = Conv(4)
            self.plain = Plain()
            self.blocks = nn.ModuleList([Conv(4) for _ in range(2)])

        def forward(self, x, edges):
            edges = drop_loops(edges)
            kept = maybe_drop(edges)
            x = self.conv(x, edges)
            x = self.plain(x)
            for block in self.blocks:
                x = block(x, edges)
            return x

    def helper(edges):
        return drop_loops(edges)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package installed on the path (never imported by the static pass), and a project using it."""
    site = tmp_path / "site"
    write(site, PACKAGE)
    monkeypatch.syspath_prepend(str(site))
    write(tmp_path / "project", {"model.py": MODEL})
    return tmp_path / "project"


def run(project: Path, follow: list[str], use_cache: bool = False):
    config = Config(root=project)
    config.follow = follow
    return lint([project], config, use_cache=use_cache)


def test_calls_into_a_followed_package_report_its_breaks_at_the_call(installed: Path) -> None:
    result = run(installed, ["graphpkg"])
    found = {f.line: f for f in result.findings if f.kind == "break"}
    # the function that always breaks, and the module whose forward calls it; not the module that does not
    # break, nor the call in a function compile never reaches; the one that breaks only in a branch is a hazard
    assert sorted(found) == [14, 16, 19]
    [maybe] = [f for f in result.findings if f.kind == "hazard"]
    assert maybe.line == 15 and maybe.code == "BL302"
    assert maybe.message.startswith("this calls `graphpkg.maybe_drop`, which may break the graph in a branch of its code")
    assert found[14].code == found[16].code == found[19].code == "BL302"
    assert found[14].message.startswith("this calls `graphpkg.drop_loops`, which breaks the graph whenever it runs")
    assert "graphpkg/ops.py:7 of the installed package" in found[14].message
    assert "this calls `self.conv`, which holds a `graphpkg.Conv`, whose `forward` breaks" in found[16].message
    assert "this calls an element of `self.blocks`, a `graphpkg.Conv`, whose `forward` breaks" in found[19].message
    assert all(f.suggestion == SUGGESTION and f.fix is None for f in found.values())
    # the package's own findings are not reported: only the linted tree's
    assert all(Path(f.path).name == "model.py" for f in result.all)


def test_nothing_is_followed_unless_configured(installed: Path) -> None:
    assert not [f for f in run(installed, []).findings if f.kind == "break"]


def test_a_package_that_is_not_installed_gets_a_note(installed: Path) -> None:
    result = run(installed, ["no_such_package_here"])
    assert not result.findings
    assert any("no_such_package_here" in note and "not followed" in note for note in result.notes)


def test_a_followed_call_is_suppressed_by_its_code(installed: Path) -> None:
    model = installed / "model.py"
    model.write_text(model.read_text().replace("edges = drop_loops(edges)\n        kept",
                                               "edges = drop_loops(edges)  # noqa: BL302\n        kept"))
    assert sorted(f.line for f in run(installed, ["graphpkg"]).findings) == [15, 16, 19]


def test_the_cached_run_follows_changes_to_the_package(installed: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    cache.secret.cache_clear()
    try:
        assert sorted(f.line for f in run(installed, ["graphpkg"], use_cache=True).findings) == [14, 15, 16, 19]
        ops = tmp_path / "site" / "graphpkg" / "ops.py"
        ops.write_text(ops.read_text().replace("return edges[:, mask]", "return edges"))
        assert [f.line for f in run(installed, ["graphpkg"], use_cache=True).findings] == []
    finally:
        cache.secret.cache_clear()


@pytest.mark.parametrize("name", ["torch", "numpy", "optree", "einops", "graphpkg.ops", "not a name"])
def test_follow_takes_top_level_package_names_other_than_those_dynamo_does_not_trace(name: str) -> None:
    with pytest.raises(ConfigError, match="follow"):
        from_mapping({"follow": [name]})


def test_the_command_line_follows_a_package(installed: Path) -> None:
    runner = CliRunner()
    cwd = os.getcwd()
    os.chdir(installed)
    try:
        plain = runner.invoke(main, ["check", ".", "--no-cache", "-q"])
        followed = runner.invoke(main, ["check", ".", "--no-cache", "-q", "--follow", "graphpkg"])
        refused = runner.invoke(main, ["check", ".", "--no-cache", "--follow", "torch"])
    finally:
        os.chdir(cwd)
    assert plain.exit_code == 0, plain.output
    assert followed.exit_code == 1 and "model.py:14" in followed.output and "model.py:16" in followed.output
    assert refused.exit_code == 2 and "torch is not followed" in refused.output
