"""The cache holds data only: planted, damaged or foreign entries are ignored and rebuilt."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import pickle
import threading
from pathlib import Path

import pytest

from breaklint import __version__, cache
from breaklint.config import load as load_config
from breaklint.source import module_name_for
from breaklint.analyze import FileResult, _analyze_path, _entry, analyze_source
from breaklint.finding import Finding
from breaklint.analysis.summary import Candidate
from conftest import ROOT, run_cli
from test_cli import MODEL  # print, .item() and .cpu() in a forward

EXPECTED = [(7, "BL401"), (8, "BL101"), (9, "BL501")]


class Payload:
    """Unpickling this runs `touch <marker>`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """An isolated user cache directory (where the cache key lives), here and in the CLI."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    cache.secret.cache_clear()
    yield env
    cache.secret.cache_clear()


def cache_dir_for(project: Path) -> Path:
    """The versioned cache folder a run started in `project` uses (as the engine builds it)."""
    old = Path.cwd()
    os.chdir(project)
    try:
        config = load_config([Path(".")])
        return Path(config.root) / ".breaklint_cache" / f"v{__version__}-{config.fingerprint()}"
    finally:
        os.chdir(old)


def entry_for(project: Path, name: str = "model.py") -> Path:
    """The exact path a run in `project` (linting `.`) looks up for `name`."""
    old = Path.cwd()
    os.chdir(project)
    try:
        file = Path(name)
        entry = cache.entry_path(str(cache_dir_for(project)), file, module_name_for(file), file.read_bytes())
    finally:
        os.chdir(old)
    return entry if entry.is_absolute() else project / entry


def forget_runs(project: Path) -> None:
    """Drop the whole-run entries, so that the next run looks up each file's entry."""
    for entry in (project / ".breaklint_cache").rglob("runs/*.json"):
        entry.unlink()


def run_entries(project: Path) -> list[Path]:
    return sorted((project / ".breaklint_cache").rglob("runs/*.json"))


def slot(cls: type, name: str) -> int:
    """Where a field of a record sits in a cache entry (records are lists of their fields)."""
    return [f.name for f in dataclasses.fields(cls)].index(name)


def findings(proc) -> list[tuple[int, str]]:
    return [(d["line"], d["code"]) for d in json.loads(proc.stdout)]


def test_entry_is_json_and_is_used(project: Path, home: dict[str, str]) -> None:
    first = run_cli("--format", "json", ".", cwd=project, env=home)
    assert findings(first) == EXPECTED
    entry = entry_for(project)
    assert entry.is_file(), sorted(p.name for p in (project / ".breaklint_cache").rglob("*"))
    assert not list((project / ".breaklint_cache").rglob("*.pickle"))
    payload = json.loads(entry.read_bytes())
    assert payload["format"] == cache.FORMAT and payload["version"] == __version__
    # Doctor a message in the stored data: the next run shows it, so the entry was read.
    for cand in payload["result"][slot(FileResult, "candidates")]:
        cand[slot(Candidate, "finding")][slot(Finding, "message")] = "from the cache"
    entry.write_text(json.dumps(payload))
    forget_runs(project)
    second = run_cli("--format", "json", ".", cwd=project, env=home)
    assert {d["message"] for d in json.loads(second.stdout)} == {"from the cache"}
    # A changed file is a new entry.
    (project / "model.py").write_text(MODEL.replace('print("hi")', "pass"))
    third = run_cli("--format", "json", ".", cwd=project, env=home)
    assert findings(third) == [(8, "BL101"), (9, "BL501")]


def test_planted_pickle_never_runs(project: Path, home: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    bomb = pickle.dumps(Payload(marker))
    # Where the entry will be looked up, and where older versions kept their pickles.
    targets = [entry_for(project)]
    old_dir = cache_dir_for(project)
    for target in [*targets, old_dir / "ab" / ("ab" + "0" * 62 + ".pickle")]:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(bomb)
    proc = run_cli("--format", "json", ".", cwd=project, env=home)
    assert not marker.exists()
    assert proc.returncode == 1, proc.stderr
    assert findings(proc) == EXPECTED
    assert "internal error" not in proc.stderr
    # The planted entry was replaced by a valid one.
    assert json.loads(targets[0].read_bytes())["format"] == cache.FORMAT


def test_planted_entry_cannot_hide_findings_without_the_key(project: Path, home: dict[str, str],
                                                            tmp_path: Path) -> None:
    """An entry made under another key (another machine, an attacker) sits where no lookup goes."""
    run_cli("--format", "json", ".", cwd=project, env=home)
    entry = entry_for(project)
    empty = json.loads(entry.read_bytes())
    empty["result"][slot(FileResult, "candidates")] = []
    entry.unlink()
    other = {"XDG_CACHE_HOME": str(tmp_path / "attacker")}
    run_cli("--format", "json", ".", cwd=project, env=other)  # writes entries under the other key
    forget_runs(project)
    for planted in (project / ".breaklint_cache").rglob("*.json"):
        planted.write_text(json.dumps(empty))
    proc = run_cli("--format", "json", ".", cwd=project, env=home)
    assert findings(proc) == EXPECTED


@pytest.mark.parametrize("damage", ["truncated", "garbage", "foreign-version", "foreign-format",
                                    "wrong-shape", "other-file", "not-utf8", "deep"])
def test_damaged_entry_is_ignored_and_rebuilt(project: Path, home: dict[str, str], damage: str) -> None:
    run_cli("--format", "json", ".", cwd=project, env=home)
    entry = entry_for(project)
    good = entry.read_bytes()
    payload = json.loads(good)
    if damage == "truncated":
        bad = good[: len(good) // 2]
    elif damage == "garbage":
        bad = os.urandom(256)
    elif damage == "foreign-version":
        bad = json.dumps({**payload, "version": "0.0.0-other"}).encode()
    elif damage == "foreign-format":
        bad = json.dumps({**payload, "format": cache.FORMAT + 1}).encode()
    elif damage == "wrong-shape":
        payload["result"][slot(FileResult, "candidates")][0][slot(Candidate, "finding")][slot(Finding, "line")] = "seven"
        bad = json.dumps(payload).encode()
    elif damage == "other-file":
        payload["result"][slot(FileResult, "path")] = "elsewhere.py"
        bad = json.dumps(payload).encode()
    elif damage == "not-utf8":
        bad = b"\xff\xfe" + good
    else:
        bad = b"[" * 100_000 + b"]" * 100_000
    entry.write_bytes(bad)
    forget_runs(project)
    proc = run_cli("--format", "json", ".", cwd=project, env=home)
    assert proc.returncode == 1, proc.stderr
    assert findings(proc) == EXPECTED
    assert json.loads(entry.read_bytes()) == json.loads(good)  # rebuilt


def test_two_runs_at_once(tmp_path: Path, home: dict[str, str]) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(30):
        (root / f"m{i}.py").write_text(MODEL, encoding="utf-8")
    results = []

    def run() -> None:
        results.append(run_cli("--format", "json", "--jobs", "2", ".", cwd=root, env=home))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = run_cli("--no-cache", "--format", "json", ".", cwd=root, env=home).stdout
    assert len(json.loads(expected)) == 90
    for proc in results:
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout == expected
    assert not list(root.rglob("*.tmp"))


def test_every_result_survives_the_round_trip() -> None:
    """Each example and fixture's result, with summary, candidates, fixes and suppressions, comes back equal."""
    files = sorted((ROOT / "examples" / "models").glob("*.py")) + sorted((ROOT / "fixtures").glob("*.py"))
    assert len(files) > 20
    for file in files:
        result = analyze_source(file.read_bytes(), file, file.stem)
        back = cache.loads(cache.dumps(result), FileResult, file, file.stem)
        assert back == result, file


def test_cached_and_fresh_results_agree(tmp_path: Path, home: dict[str, str]) -> None:
    file = ROOT / "examples" / "models" / "detector.py"
    cache_dir = str(tmp_path / "c")
    entry = _entry(file, "detector", cache_dir, 1 << 20)
    assert cache.read(entry, FileResult, file, "detector") is None
    fresh = _analyze_path((file, "detector", cache_dir, 1 << 20))
    again = cache.read(entry, FileResult, file, "detector")
    assert again == fresh and again is not fresh
    assert list(Path(cache_dir).rglob("*.json"))


def test_a_rerun_with_nothing_changed_reads_one_entry(project: Path, home: dict[str, str]) -> None:
    (project / "other.py").write_text(MODEL.replace("Net", "Other"), encoding="utf-8")
    first = run_cli("--format", "json", ".", cwd=project, env=home)
    [run] = run_entries(project)
    payload = json.loads(run.read_bytes())
    for finding in payload["result"][slot(cache.RunRecord, "findings")]:
        finding[slot(Finding, "message")] = "from the run entry"
    run.write_text(json.dumps(payload))
    second = run_cli("--format", "json", ".", cwd=project, env=home)
    assert [d["message"] for d in json.loads(second.stdout)] == ["from the run entry"] * len(findings(first))
    # Any change to a file (or another set of paths) is another state: every file's own entry is read.
    (project / "other.py").write_text(MODEL.replace("Net", "Other") + "\n", encoding="utf-8")
    third = run_cli("--format", "json", ".", cwd=project, env=home)
    assert findings(third) == findings(first)
    assert "from the run entry" not in third.stdout
    only = run_cli("--format", "json", "model.py", cwd=project, env=home)
    assert findings(only) == EXPECTED
    assert len(run_entries(project)) == 2  # one per invocation, overwritten as files change


@pytest.mark.parametrize("damage", ["garbage", "other-state", "wrong-shape", "other-key"])
def test_a_damaged_or_foreign_run_entry_is_ignored(project: Path, home: dict[str, str], tmp_path: Path,
                                                   damage: str) -> None:
    run_cli("--format", "json", ".", cwd=project, env=home)
    [run] = run_entries(project)
    payload = json.loads(run.read_bytes())
    payload["result"][slot(cache.RunRecord, "findings")] = []  # what a planted entry would want
    if damage == "garbage":
        run.write_bytes(os.urandom(300))
    elif damage == "other-state":
        payload["result"][slot(cache.RunRecord, "state")] = "0" * 64
        run.write_text(json.dumps(payload))
    elif damage == "wrong-shape":
        payload["result"][slot(cache.RunRecord, "files")] = [1, 2]
        run.write_text(json.dumps(payload))
    else:  # made under another user's key: it sits where no lookup of ours goes
        run.unlink()
        other = {"XDG_CACHE_HOME": str(tmp_path / "attacker")}
        run_cli("--format", "json", ".", cwd=project, env=other)
        for planted in run_entries(project):
            planted.write_text(json.dumps(payload))
    proc = run_cli("--format", "json", ".", cwd=project, env=home)
    assert findings(proc) == EXPECTED


def test_nothing_deserializes_code() -> None:
    """No module of breaklint loads pickle, marshal or shelve, or calls eval/exec."""
    banned_modules = {"pickle", "marshal", "shelve", "dill", "cloudpickle", "_pickle"}
    for source in (ROOT / "src" / "breaklint").rglob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not {a.name.split(".")[0] for a in node.names} & banned_modules, source
            elif isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] not in banned_modules, source
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec"), source


def test_an_entry_made_by_a_build_with_other_rules_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule added or changed between two builds of one version keys the entries anew, so a file
    checked before a rule existed is checked again (the entry key holds a digest of the catalog)."""
    before = cache.entry_path("c", Path("m.py"), "m", b"x = 1\n")
    assert cache.entry_path("c", Path("m.py"), "m", b"x = 1\n") == before
    monkeypatch.setattr(cache, "_rules_digest", lambda: b"another set of rules")
    assert cache.entry_path("c", Path("m.py"), "m", b"x = 1\n") != before
