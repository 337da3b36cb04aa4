"""`explain --shard K/N` and `breaklint merge`: every target in exactly one shard, balanced, and a merge of
the shards that reads as one run over every target."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from breaklint.dynamic.explain import TargetReport
from breaklint.dynamic.shards import ShardError, merge_shards, parse_shard, read_durations, shard_data, slice_of

from conftest import ROOT, run_cli

TARGETS = [f"models/m{i:02d}.py:cases" for i in range(23)]


@pytest.mark.parametrize("n", range(1, 9))
def test_the_shards_are_the_whole_list_once(n: int) -> None:
    rng = random.Random(n)
    durations = {t: rng.uniform(0.5, 60) for t in TARGETS if rng.random() < 0.8}  # some never timed
    for given in (None, durations):
        shards = [slice_of(TARGETS, k, n, given) for k in range(1, n + 1)]
        assert sorted(t for s in shards for t in s) == sorted(TARGETS)  # the union is the whole, nothing twice
        for shard in shards:
            assert shard == [t for t in TARGETS if t in shard]  # in the list's order
        assert shards == [slice_of(list(TARGETS), k, n, given and dict(given)) for k in range(1, n + 1)]  # stable
        if given is None:
            assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_durations_balance_the_time_not_the_count() -> None:
    durations = {t: (100.0 if i < 2 else 1.0) for i, t in enumerate(TARGETS)}
    one, two = (slice_of(TARGETS, k, 2, durations) for k in (1, 2))
    assert (TARGETS[0] in one) != (TARGETS[1] in one)  # the two long ones go to different shards
    loads = [sum(durations[t] for t in shard) for shard in (one, two)]
    assert abs(loads[0] - loads[1]) <= 1.0
    by_count = [slice_of(TARGETS, k, 2) for k in (1, 2)]
    assert TARGETS[0] in by_count[0] and TARGETS[1] in by_count[1]


def test_bad_shard_specs_and_durations(tmp_path: Path) -> None:
    assert parse_shard("3/4") == (3, 4)
    for bad in ("0/4", "5/4", "1", "a/b", "1/0"):
        with pytest.raises(ShardError):
            parse_shard(bad)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"targets": [{"target": "a:f", "seconds": 2.5}, {"target": "b:f", "seconds": None}]}))
    assert read_durations(report) == {"a:f": 2.5}
    plain = tmp_path / "durations.json"
    plain.write_text(json.dumps({"a:f": 1, "b:f": True}))
    assert read_durations(plain) == {"a:f": 1.0}
    plain.write_text("[1, 2]")
    with pytest.raises(ShardError):
        read_durations(plain)


def _write_shards(tmp_path: Path, n: int) -> list[Path]:
    files = []
    for k in range(1, n + 1):
        mine = slice_of(TARGETS, k, n)
        reports = [TargetReport(t, ok=True, data={"graphs": 1, "breaks": [], "cases": 1}, seconds=1.0) for t in mine]
        runs = {"capture_scalar_outputs": [TargetReport(t, ok=False, error="raised") for t in mine]}
        path = tmp_path / f"shard{k}.json"
        path.write_text(json.dumps({"targets": [], "shard": shard_data(k, n, TARGETS, [Path(".")], True, reports,
                                                                        runs)}))
        files.append(path)
    return files


def test_merging_is_order_independent_and_checks_the_set(tmp_path: Path) -> None:
    files = _write_shards(tmp_path, 4)
    targets, paths, what_if, reports, runs = merge_shards(files)
    assert targets == TARGETS and what_if and [r.target for r in reports] == TARGETS
    assert [r.target for r in runs["capture_scalar_outputs"]] == TARGETS
    for order in (files[::-1], [files[2], files[0], files[3], files[1]]):
        assert merge_shards(order) == (targets, paths, what_if, reports, runs)
    with pytest.raises(ShardError, match="missing"):
        merge_shards(files[:3])
    with pytest.raises(ShardError, match="again"):
        merge_shards([*files, files[0]])
    (tmp_path / "other").mkdir()
    other = _write_shards(tmp_path / "other", 2)  # a run of two shards
    with pytest.raises(ShardError, match="another run"):
        merge_shards([*files[:3], other[0]])
    junk = tmp_path / "junk.json"
    junk.write_text('{"targets": []}')
    with pytest.raises(ShardError, match="not a shard"):
        merge_shards([junk])


def test_merge_of_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    files = _write_shards(tmp_path, 2)
    proc = run_cli("merge", str(files[0]), cwd=tmp_path)
    assert proc.returncode == 2 and "shards 2/2 missing" in proc.stderr
    proc = run_cli("explain", "a.py:f", "--shard", "3/2", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 2 and "K must be between 1 and N" in proc.stderr
    proc = run_cli("explain", "a.py:f", "--shard", "1/2", cwd=tmp_path)
    assert proc.returncode == 2 and "--format json" in proc.stderr


@pytest.mark.dynamo
def test_merged_shards_read_as_one_run(tmp_path: Path) -> None:
    """On the bundled examples: the JSON of a merge of two shards is the unsharded run's, timings aside."""
    pytest.importorskip("torch")
    targets = [f"examples/models/{name}.py:cases" for name in ("detector", "transformer", "clean")]
    common = ["--paths", "examples/models", "--no-cache", "--format", "json"]
    whole = run_cli("explain", *targets, *common, "-o", str(tmp_path / "whole.json"), cwd=ROOT)
    assert (tmp_path / "whole.json").is_file(), whole.stderr  # the run's own account, should it write nothing
    for k in (1, 2):
        shard = run_cli("explain", *targets, *common, "--shard", f"{k}/2", "-o", str(tmp_path / f"s{k}.json"),
                        cwd=ROOT)
        assert shard.returncode == whole.returncode == 1, shard.stderr
    merged = run_cli("merge", str(tmp_path / "s2.json"), str(tmp_path / "s1.json"), "--format", "json", "--no-cache",
                     "-o", str(tmp_path / "merged.json"), cwd=ROOT)
    assert merged.returncode == 1, merged.stderr

    def without_timings(path: Path) -> dict:
        data = json.loads(path.read_text())
        data.pop("shard", None)
        for target in data["targets"]:
            target.pop("seconds")
        return data

    assert without_timings(tmp_path / "merged.json") == without_timings(tmp_path / "whole.json")
    assert json.loads((tmp_path / "merged.json").read_text())["summary"]["confirmed"] == 6
    text = run_cli("merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "--no-cache", cwd=ROOT)
    assert text.returncode == 1 and "3 targets (0 failed): 5 graphs, 6 breaks; 6 confirmed" in text.stdout + text.stderr
