"""SARIF output: valid under the official schema and Microsoft's validator, and shaped for GitHub."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from breaklint.finding import Edit, Finding, Fix
from breaklint.registry import all_codes, rule_doc
from breaklint.report import sarif

from conftest import ROOT, run_cli

SCHEMA = json.loads((ROOT.parent / "shared" / "sarif" / "sarif-schema-2.1.0.json").read_text())
TOOLS = ROOT / ".cache" / "tools"
MULTITOOL_VERSION = "5.7.0"


def _sarif(*args: str, cwd: Path = ROOT) -> dict:
    proc = run_cli(*args, "--format", "sarif", "--no-cache", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _schema_errors(log: dict) -> list[str]:
    validator = jsonschema.Draft4Validator(SCHEMA)
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(log)]


@pytest.fixture(scope="session")
def multitool() -> Path:
    """Microsoft's SARIF validator, installed from npm into .cache/tools on first use."""
    binary = TOOLS / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
    if not binary.exists():
        if os.environ.get("BREAKLINT_SKIP_SARIF_MULTITOOL"):
            pytest.skip("BREAKLINT_SKIP_SARIF_MULTITOOL is set")
        if shutil.which("npm") is None:
            pytest.fail("npm is needed to install @microsoft/sarif-multitool "
                        "(or set BREAKLINT_SKIP_SARIF_MULTITOOL=1 to leave this check to CI)")
        TOOLS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund", "--silent",
                        f"@microsoft/sarif-multitool@{MULTITOOL_VERSION}"], check=True, timeout=600)
    binary.chmod(0o755)  # npm may not run the package's install script that sets this
    return binary


def _multitool_problems(binary: Path, log_path: Path, tmp_path: Path) -> list[str]:
    """Errors and warnings from `sarif-multitool validate` with its SARIF and GitHub rules.

    Its exit status is 0 even when it finds problems, so its own SARIF output is read.
    """
    out = tmp_path / "validation.sarif"
    proc = subprocess.run(
        [str(binary), "validate", str(log_path), "--rule-kind", "Sarif;Ghas", "--level", "Error;Warning",
         "-o", str(out), "--log", "ForceOverwrite"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"},
    )
    assert proc.returncode == 0 and out.exists(), proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    problems = []
    for run in report["runs"]:
        for result in run.get("results", []):
            message = result["message"]
            detail = message.get("text") or ", ".join(message.get("arguments", []))
            problems.append(f"{result['ruleId']} {result.get('level')}: {detail}")
        for invocation in run.get("invocations", []):
            for note in invocation.get("toolExecutionNotifications", []):
                if note.get("level") == "error":
                    problems.append(f"validator: {note['message']['text']}")
    return problems


@pytest.fixture(scope="session")
def examples_log() -> dict:
    return _sarif("examples", "fixtures")


@pytest.fixture(scope="session")
def library_log(tmp_path_factory) -> dict:
    """A real model library: a copy of the installed kornia, as its own project.

    (Linted in place it can sit under this checkout's `.venv`, which breaklint excludes.)
    """
    kornia = pytest.importorskip("kornia")
    project = tmp_path_factory.mktemp("library")
    shutil.copytree(Path(kornia.__file__).parent, project / "kornia", ignore=shutil.ignore_patterns("__pycache__"))
    return _sarif("kornia", cwd=project)


def test_examples_match_the_official_schema(examples_log: dict) -> None:
    assert _schema_errors(examples_log) == []
    assert examples_log["runs"][0]["results"], "the examples and fixtures should give results"


def test_library_matches_the_official_schema(library_log: dict) -> None:
    assert _schema_errors(library_log) == []
    assert len(library_log["runs"][0]["results"]) > 50


def test_examples_pass_microsofts_validator(examples_log: dict, multitool: Path, tmp_path: Path) -> None:
    path = tmp_path / "examples.sarif"
    path.write_text(json.dumps(examples_log))
    assert _multitool_problems(multitool, path, tmp_path) == []


def test_library_passes_microsofts_validator(library_log: dict, multitool: Path, tmp_path: Path) -> None:
    path = tmp_path / "library.sarif"
    path.write_text(json.dumps(library_log))
    assert _multitool_problems(multitool, path, tmp_path) == []


def test_the_validator_does_catch_problems(examples_log: dict, multitool: Path, tmp_path: Path) -> None:
    broken = json.loads(json.dumps(examples_log))
    del broken["runs"][0]["results"][0]["locations"]
    path = tmp_path / "broken.sarif"
    path.write_text(json.dumps(broken))
    problems = _multitool_problems(multitool, path, tmp_path)
    assert any(p.startswith("GH") and "error" in p for p in problems), problems  # GitHub's rules ran


def test_driver_lists_every_rule_with_its_doc(examples_log: dict) -> None:
    driver = examples_log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "breaklint" and driver["version"] and driver["semanticVersion"]
    assert driver["informationUri"].startswith("https://")
    rules = {r["id"]: r for r in driver["rules"]}
    notifications = {r["id"] for r in driver["notifications"]}
    assert set(rules) | notifications == set(all_codes())
    assert notifications == {"BL001", "BL003", "BL004"}
    for code, rule in rules.items():
        assert rule["help"]["markdown"] == rule_doc(code)
        assert "```" not in rule["help"]["text"]
        assert rule["fullDescription"]["text"] and rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("warning", "note")
        props = rule["properties"]
        assert "torch.compile" in props["tags"]
        assert props["precision"] in ("very-high", "high", "medium", "low")
        assert props["problem.severity"] in ("error", "warning", "recommendation")
    assert rules["BL502"]["defaultConfiguration"]["enabled"] is False
    assert "graph-break" in rules["BL101"]["properties"]["tags"]
    assert "GB0124" in rules["BL101"]["properties"]["gb_types"]


def test_results_carry_rule_level_message_and_region(examples_log: dict) -> None:
    run = examples_log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    kinds = {"break": "warning", "hazard": "note", "notice": "note"}
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        # written out even where it equals the SARIF default
        assert result["level"] == kinds[result["properties"]["kind"]]
        assert result["message"]["text"].endswith(".")
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["artifactLocation"]["uri"].startswith(("examples/", "fixtures/"))
        region = loc["region"]
        assert {"startLine", "startColumn", "endLine", "endColumn"} <= set(region)
        assert region["startColumn"] >= 1
        assert result["partialFingerprints"]["breaklint/v1"]
    assert "%SRCROOT%" in run["originalUriBaseIds"]
    assert run["automationDetails"]["id"] == "breaklint/static/"
    assert any("Suggested rewrite:" in r["message"]["text"] for r in run["results"])


def test_columns_are_one_based(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    log = _sarif("m.py", cwd=tmp_path)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (5, 12, 20)
    assert region["snippet"]["text"] == "x.item()"


def _walk(value, path="$"):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        yield path, value
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


def test_no_empty_arrays_except_results(examples_log: dict, tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                                       "        return x + 1\n")
    clean = _sarif("clean.py", cwd=tmp_path)
    assert clean["runs"][0]["results"] == []  # an empty list: the tool ran and found nothing
    for log in (examples_log, clean):
        empty = [p for p, v in _walk(log) if v == [] and not p.endswith(".results")]
        assert empty == []


def test_parse_errors_are_notifications_not_results(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("import torch\ndef f(x:\n")
    (tmp_path / "good.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n")
    log = _sarif(".", cwd=tmp_path)
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["BL401"]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is True
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["descriptor"]["id"] == "BL001"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"
    assert _schema_errors(log) == []


def _finding(code="BL101", kind="break", line=3, **kw) -> Finding:
    return Finding(code=code, kind=kind, message="m", suggestion="s", path=kw.pop("path", Path("m.py")),
                   line=line, col=4, end_line=line, end_col=9, **kw)


def test_internal_errors_mark_the_execution_unsuccessful(tmp_path: Path) -> None:
    log = json.loads(sarif.render([_finding("BL003", "error", path=tmp_path / "m.py")], 1, root=tmp_path))
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["descriptor"]["id"] == "BL003"


def test_fingerprints_survive_lines_added_above(tmp_path: Path) -> None:
    body = ("import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    y = x.item()\n    print(x)\n"
            "    return y\n")
    (tmp_path / "m.py").write_text(body)
    before = _sarif("m.py", cwd=tmp_path)["runs"][0]["results"]
    (tmp_path / "m.py").write_text("# a comment\nimport os\n\n" + body.replace("def f(x):", "def f(x):\n    z = 1"))
    after = _sarif("m.py", cwd=tmp_path)["runs"][0]["results"]
    def prints(results):
        return [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
                 r["partialFingerprints"]["breaklint/v1"]) for r in results]
    b, a = prints(before), prints(after)
    assert [x[1] + 4 for x in b] == [x[1] for x in a]  # the lines did move
    assert [(x[0], x[2]) for x in b] == [(x[0], x[2]) for x in a]
    assert len({x[2] for x in b}) == len(b)  # the two identical prints differ


def test_output_is_deterministic_and_free_of_absolute_paths(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project / "examples")
    first = run_cli("examples", "--format", "sarif", cwd=project).stdout
    second = run_cli("examples", "--format", "sarif", "--no-cache", "-j", "1", cwd=project).stdout
    assert first == second
    assert str(tmp_path) not in first and "file://" not in first


def test_fixes_become_artifact_changes(tmp_path: Path) -> None:
    fix = Fix(title="keep it a tensor", edits=(Edit(3, 4, 3, 9, "x"),), safe=False)
    findings = [_finding(path=tmp_path / "m.py", fix=fix), _finding(line=5, path=tmp_path / "m.py")]
    log = json.loads(sarif.render(findings, 1, root=tmp_path))
    with_fix, without = log["runs"][0]["results"]
    [change] = with_fix["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "m.py", "uriBaseId": "%SRCROOT%"}
    [replacement] = change["replacements"]
    assert replacement["deletedRegion"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 10}
    assert replacement["insertedContent"]["text"] == "x"
    assert with_fix["fixes"][0]["properties"]["applicability"] == "unsafe"
    assert "fixes" not in without
    assert _schema_errors(log) == []


def test_dynamic_results_form_their_own_category(tmp_path: Path) -> None:
    findings = [_finding(path=tmp_path / "m.py", status="confirmed"),
                _finding(line=7, path=tmp_path / "m.py", origin="dynamic", status="dynamic-only",
                         gb_types=("GB0170",))]
    log = json.loads(sarif.render(findings, 1, root=tmp_path))
    static, dynamic = log["runs"]
    assert static["automationDetails"]["id"] == "breaklint/static/"
    assert dynamic["automationDetails"]["id"] == "breaklint/dynamic/"
    assert static["results"][0]["properties"]["status"] == "confirmed"
    assert dynamic["results"][0]["properties"]["status"] == "dynamic-only"
    assert dynamic["results"][0]["properties"]["gb_types"] == ["GB0170"]


def test_serializer_refuses_what_sarif_cannot_hold() -> None:
    import sarif_om as om

    with pytest.raises(TypeError, match="Path"):
        sarif.to_plain(om.Message(text=Path("x")))
    # a level equal to the schema default is still written
    assert sarif.to_plain(om.Result(message=om.Message(text="m"), level="warning"))["level"] == "warning"


def test_example_workflow_uploads_what_breaklint_writes(tmp_path: Path) -> None:
    import shlex

    import yaml

    workflow = yaml.safe_load((ROOT / "examples" / "github" / "breaklint.yml").read_text())
    steps = workflow["jobs"]["breaklint"]["steps"]
    [command] = [s["run"] for s in steps if "run" in s and s["run"].startswith("breaklint ")]
    [upload] = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    args = shlex.split(command)[1:]
    assert args[args.index("--format") + 1] == "sarif"
    assert upload["with"]["sarif_file"] == args[args.index("--output") + 1]
    assert workflow["permissions"]["security-events"] == "write"
    # the command line is one breaklint accepts
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / upload["with"]["sarif_file"]).read_text())["runs"][0]["results"]
