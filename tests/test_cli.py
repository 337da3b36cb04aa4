"""The command line: formats, selection, config, exit codes, bad input, cache, parallel runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest

from conftest import run_cli

MODEL = dedent("""
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            print("hi")
            n = x.sum().item()
            return x.cpu() + n
""")
CLEAN = dedent("""
    import torch

    @torch.compile
    def f(x):
        return torch.relu(x) + 1
""")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def test_text_output_and_exit_status(project: Path) -> None:
    proc = run_cli("--no-cache", ".", cwd=project)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == "model.py:7:9: BL401 `print(\"hi\")`: `print` cannot be traced; dynamo breaks the graph to run it"
    assert lines[1].startswith("  help: ")
    assert "model.py:8:13: BL101" in proc.stdout
    assert "model.py:9:16: BL501" in proc.stdout
    assert "Found 3 findings (2 breaks, 1 hazard) in 2 files." in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colour when not on a terminal


def test_clean_exit_zero(project: Path) -> None:
    proc = run_cli("--no-cache", "clean.py", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings in 1 file." in proc.stdout


def test_exit_zero_flag(project: Path) -> None:
    assert run_cli("--no-cache", "--exit-zero", ".", cwd=project).returncode == 0


def test_json_schema(project: Path) -> None:
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    data = json.loads(proc.stdout)
    assert [d["code"] for d in data] == ["BL401", "BL101", "BL501"]
    first = data[0]
    assert first == {
        "path": "model.py", "line": 7, "column": 9, "end_line": 7, "end_column": 20,
        "code": "BL401", "kind": "break", "message": first["message"], "suggestion": first["suggestion"],
        "origin": "static", "status": None, "gb_types": ["GB0059", "GB0296"], "fix": first["fix"], "condition": "",
        "reached_when": "", "settings": ["reorderable_logging_functions", "ignore_logger_methods"], "torch": "",
    }
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["edits"][0]["content"].startswith("if not torch.compiler.is_compiling():")
    assert data[2]["kind"] == "hazard"


def test_github_format(project: Path) -> None:
    proc = run_cli("--no-cache", "--format", "github", "model.py", cwd=project)
    first = proc.stdout.splitlines()[0]
    assert first.startswith("::warning file=model.py,line=7,col=9,endLine=7,endColumn=20,title=BL401 print-call::")
    assert "%0Ahelp: " in first


def test_select_ignore_extend_select(project: Path) -> None:
    sel = run_cli("--no-cache", "--format", "json", "--select", "BL1", ".", cwd=project)
    assert [d["code"] for d in json.loads(sel.stdout)] == ["BL101"]
    ign = run_cli("--no-cache", "--format", "json", "--ignore", "BL401,BL5", ".", cwd=project)
    assert [d["code"] for d in json.loads(ign.stdout)] == ["BL101"]
    (project / "move.py").write_text(dedent("""
        import torch

        @torch.compile
        def f(x):
            return x.cuda()
    """))
    off = run_cli("--no-cache", "--format", "json", "move.py", cwd=project)
    assert json.loads(off.stdout) == []
    on = run_cli("--no-cache", "--format", "json", "--extend-select", "BL502", "move.py", cwd=project)
    assert [d["code"] for d in json.loads(on.stdout)] == ["BL502"]


def test_unknown_code_is_usage_error(project: Path) -> None:
    proc = run_cli("--select", "BL777", ".", cwd=project)
    assert proc.returncode == 2
    assert "unknown rule code or prefix 'BL777'" in proc.stderr


def test_missing_path_is_usage_error(project: Path) -> None:
    proc = run_cli("nope.py", cwd=project)
    assert proc.returncode == 2
    assert "no such file" in proc.stderr


def test_statistics(project: Path) -> None:
    proc = run_cli("--no-cache", "--statistics", ".", cwd=project)
    assert proc.returncode == 1
    rows = [line.split() for line in proc.stdout.splitlines()]
    assert ["1", "BL101", "break", "tensor-item"] in rows
    assert len(rows) == 3


def test_output_file(project: Path) -> None:
    proc = run_cli("--no-cache", "--format", "json", "--output", "out.json", ".", cwd=project)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert len(json.loads((project / "out.json").read_text())) == 3
    assert "Found 3 findings" in proc.stderr


def test_broken_file_is_reported_and_others_still_linted(project: Path) -> None:
    (project / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    (project / "latin1.py").write_bytes(b"import torch\nx = '\xe9'\n")
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    errors = {d["path"]: d for d in data if d["code"] == "BL001"}
    assert set(errors) == {"broken.py", "latin1.py"}
    assert errors["broken.py"]["line"] == 2 and "syntax error" in errors["broken.py"]["message"]
    assert "decode" in errors["latin1.py"]["message"]
    assert "Traceback" not in proc.stderr
    assert {d["code"] for d in data if d["path"] == "model.py"} == {"BL101", "BL401", "BL501"}


def test_pyproject_config(project: Path) -> None:
    (project / "pyproject.toml").write_text(dedent("""
        [tool.breaklint]
        ignore = ["BL5"]
        per-file-ignores = {"model.py" = ["BL401"]}
    """))
    sub = project / "sub"
    sub.mkdir()
    (sub / "other.py").write_text(MODEL)
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    got = sorted((d["path"], d["code"]) for d in json.loads(proc.stdout))
    assert got == [("model.py", "BL101"), ("sub/other.py", "BL101"), ("sub/other.py", "BL401")]
    # found by walking up from the path given
    proc = run_cli("--no-cache", "--format", "json", str(sub), cwd=project.parent)
    assert sorted(d["code"] for d in json.loads(proc.stdout)) == ["BL101", "BL401"]


@pytest.mark.parametrize("body, message", [
    ("[tool.breaklint]\nselect = [\"BL1\"\n", "invalid TOML"),
    ("[tool.breaklint]\nselect = \"BL1\"\n", "select must be a list of strings"),
    ("[tool.breaklint]\nselct = [\"BL1\"]\n", "unknown option(s) selct"),
    ("[tool.breaklint]\nignore = [\"XX1\"]\n", "unknown rule code or prefix 'XX1'"),
    ("[tool.breaklint]\nper-file-ignores = {\"a.py\" = [\"BL999\"]}\n", "unknown rule code or prefix 'BL999'"),
])
def test_broken_config_is_an_error(project: Path, body: str, message: str) -> None:
    (project / "pyproject.toml").write_text(body)
    proc = run_cli("--no-cache", ".", cwd=project)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_exclude_and_explicit_config(project: Path) -> None:
    gen = project / "generated"
    gen.mkdir()
    (gen / "model.py").write_text(MODEL)
    cfg = project / "lint.toml"
    cfg.write_text('extend-exclude = ["generated"]\nselect = ["BL101"]\n')
    proc = run_cli("--no-cache", "--format", "json", "--config", "lint.toml", ".", cwd=project)
    assert [d["path"] for d in json.loads(proc.stdout)] == ["model.py"]


def test_gitignored_files_are_skipped(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".gitignore").write_text("ignored/\n")
    (project / "ignored").mkdir()
    (project / "ignored" / "model.py").write_text(MODEL)
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    assert {d["path"] for d in json.loads(proc.stdout)} == {"model.py"}


def test_suppressions(project: Path) -> None:
    (project / "model.py").write_text(dedent("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                print("hi")  # breaklint: ignore[BL401]
                n = x.sum().item()  # noqa: BL101
                m = x.max().item()  # noqa: E501
                return x.cpu() + n  # breaklint: ignore[BL5, BL404]
    """))
    (project / "skipped.py").write_text("# breaklint: skip-file\n" + MODEL)
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    got = [(d["line"], d["code"]) for d in json.loads(proc.stdout)]
    assert got == [(9, "BL101"), (10, "BL002")]
    assert "BL404" in json.loads(proc.stdout)[1]["message"]


def test_many_files_in_parallel_match_serial(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"m{i}.py").write_text(MODEL if i % 2 else CLEAN)
    serial = run_cli("--no-cache", "--format", "json", "--jobs", "1", ".", cwd=tmp_path)
    parallel = run_cli("--no-cache", "--format", "json", "--jobs", "2", ".", cwd=tmp_path)
    assert serial.stdout == parallel.stdout
    assert len(json.loads(parallel.stdout)) == 60


def test_version_and_help() -> None:
    assert run_cli("--version").stdout.startswith("breaklint, version ")
    assert "check" in run_cli("--help").stdout


def test_files_are_decoded_as_python_reads_them(tmp_path: Path) -> None:
    """A PEP 263 declaration or a BOM decides the encoding; undeclared non-UTF-8 bytes are BL001."""
    body = MODEL.replace('print("hi")', 'print("caf\u00e9")')
    (tmp_path / "latin.py").write_bytes(("# -*- coding: latin-1 -*-\n" + body).encode("latin-1"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    (tmp_path / "bad.py").write_bytes(body.encode("latin-1"))
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    got = {(d["path"], d["code"]) for d in json.loads(proc.stdout)}
    assert {("latin.py", "BL401"), ("latin.py", "BL101"), ("bom.py", "BL401"), ("bom.py", "BL101")} <= got
    [bad] = [d for d in json.loads(proc.stdout) if d["path"] == "bad.py"]
    assert bad["code"] == "BL001" and "cannot decode" in bad["message"]
    latin = [d for d in json.loads(proc.stdout) if d["path"] == "latin.py" and d["code"] == "BL401"]
    assert latin[0]["line"] == 8  # the declaration line counts


def test_ruff_spellings_output_format_and_quiet(project: Path) -> None:
    """`--output-format` is `--format`; `--quiet` prints the findings and nothing else."""
    as_ruff = run_cli("--no-cache", "--output-format", "json", ".", cwd=project)
    ours = run_cli("--no-cache", "--format", "json", ".", cwd=project)
    assert as_ruff.returncode == ours.returncode == 1 and as_ruff.stdout == ours.stdout
    quiet = run_cli("--no-cache", "-q", ".", cwd=project)
    assert quiet.returncode == 1
    assert quiet.stdout.count("BL") == 3 and "Found" not in quiet.stdout + quiet.stderr
    loud = run_cli("--no-cache", ".", cwd=project)
    assert "Found 3 findings" in loud.stdout


def test_check_help_groups_its_options_as_ruff_does() -> None:
    proc = run_cli("check", "--help")
    assert proc.returncode == 0
    sections = [line.rstrip(":") for line in proc.stdout.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert sections == ["Rule selection", "Fixes", "Adopting on an existing code base", "Output", "Run"]
    for option in ("--select", "--fix", "--baseline", "--write-baseline", "--add-noqa", "--output-format",
                   "--quiet", "--statistics", "--jobs", "--help"):
        assert option in proc.stdout
