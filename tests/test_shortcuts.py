"""Shortcuts taken for speed must give what the long way gives: the call rules, asked about a call by
the name it resolves to (`CallRules`), and the rules of method calls, asked about `x.<name>(...)` by
its name (`MethodCallRules`), find what each of them, asked about every call, finds; a branch's fix is
the same whether or not its subtree is searched for comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from breaklint.analyze import analyze_source
from breaklint.engine import lint_source
from breaklint.rules.by_name import CallRule, CallRules, MethodCallRules

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted([*(ROOT / "fixtures").glob("*.py"), *(ROOT / "examples").rglob("*.py")])


def _candidates(path: Path) -> list[str]:
    result = analyze_source(path.read_bytes(), path, path.stem)
    return [repr(c) for c in result.candidates]


def test_every_call_rule_takes_a_share_of_the_calls():
    from breaklint.rules import load_rules

    rules = [cls for cls in load_rules().values() if issubclass(cls, CallRule)]
    assert len(rules) >= 10
    for cls in rules:  # a call rule with no name to be asked by would never be asked
        assert cls.NAMES or cls.PREFIXES or cls.BUILTINS or cls.ASK_ALWAYS, cls.CODE


def test_asked_by_name_they_find_what_they_find_asked_about_every_call(monkeypatch):
    ours = {path: _candidates(path) for path in CORPUS}
    assert sum(len(found) for found in ours.values()) > 200

    def ask_all(self, node):
        if self._ctx.active():
            for rule in self._rules:
                rule.check_call(node)

    monkeypatch.setattr(CallRules, "visit_Call", ask_all)
    assert {path: _candidates(path) for path in CORPUS} == ours


def test_the_rules_of_method_calls_hook_no_call_of_their_own():
    from breaklint.analysis.walk import hook_names
    from breaklint.rules import load_rules
    from breaklint.rules.base import Rule

    rules = [cls for cls in load_rules().values() if cls.CALL_METHODS]
    assert len(rules) >= 8
    for cls in rules:  # `on_method_call` is what is asked; a `visit_Call` would be asked about every call
        assert "visit_Call" not in hook_names(cls) and cls.on_method_call is not Rule.on_method_call, cls.CODE


def test_asked_by_method_name_they_find_what_they_find_asked_about_every_call(monkeypatch):
    ours = {path: _candidates(path) for path in CORPUS}
    by_rule = {path: sorted(found) for path, found in ours.items()}
    assert sum("BL102" in c or "BL436" in c or "BL502" in c for found in ours.values() for c in found) >= 3

    def ask_all(self, node):
        for rule in dict.fromkeys(r for rules in self._by_method.values() for r in rules):
            rule.on_method_call(node)

    monkeypatch.setattr(MethodCallRules, "visit_Call", ask_all)
    assert {path: sorted(_candidates(path)) for path in CORPUS} == by_rule


@pytest.mark.parametrize(("source", "codes"), [
    ("import torch, time\n@torch.compile\ndef f(x):\n    t = time.perf_counter()\n    return x\n", ["BL404"]),
    # a prefix (`scipy.`), a builtin and a keyword's value that any call may carry (`generator=`)
    ("import torch, scipy.linalg\n@torch.compile\ndef f(x):\n    scipy.linalg.expm(x)\n    return x\n", ["BL411"]),
    ("import torch\n@torch.compile\ndef f(x):\n    breakpoint()\n    return x\n", ["BL407"]),
    ("import torch\n@torch.compile\ndef f(x):\n    g = torch.Generator()\n"
     "    return torch.randn(3, generator=g)\n", ["BL421", "BL421"]),
    # the clock read only when not compiling is no break: the rule's own `visit_IfExp` still runs
    ("import torch, time\n@torch.compile\ndef f(x):\n"
     "    t = 0.0 if torch.compiler.is_compiling() else time.perf_counter()\n    return x\n", []),
])
def test_a_call_is_put_to_the_rules_its_name_may_match(source, codes):
    assert [f.code for f in lint_source(source)] == codes


# ---------------------------------------------------------------------- the same fixes, fewer searches
COMMENTED_BRANCHES = [  # (the function's body, whether a `torch.where` fix is offered)
    # a comment on the line before the `if` is one of its leading lines: no fix, which would lose it
    ("    # why\n    if x.sum() > 0:\n        y = x\n    else:\n        y = -x\n", False),
    ("    if x.sum() > 0:  # why\n        y = x\n    else:\n        y = -x\n", True),
    ("    if x.sum() > 0:\n        # why\n        y = x\n    else:\n        y = -x\n", False),
    ("    if x.sum() > 0:\n        y = x\n    else:\n        y = -x\n", True),
    # the parentheses' whitespace is the conditional expression's, outside its span
    ("    y = (  # why\n        x if x.sum() > 0 else -x)\n", False),
    ("    y = (x if x.sum() > 0 else -x)\n", True),
    ("    y = x if x.sum() > 0 else -x  # why\n", True),
    ("    s = '#'\n    if x.sum() > 0:\n        y = x\n    else:\n        y = -x\n", True),
]


@pytest.mark.parametrize(("body", "fixed"), COMMENTED_BRANCHES)
def test_a_branch_is_searched_for_comments_only_where_its_lines_may_hold_one(body, fixed, monkeypatch):
    from breaklint.fixes import where

    source = f"import torch\n@torch.compile\ndef f(n):\n    x = torch.randn(n)\n{body}    return y\n"
    ours = [(f.code, f.fix) for f in lint_source(source)]
    assert [code for code, _ in ours] == ["BL201"]
    assert (ours[0][1] is not None) == fixed
    monkeypatch.setattr(where, "_has_hash", lambda ctx, node: True)  # always search
    assert [(f.code, f.fix) for f in lint_source(source)] == ours


def test_positions_leave_no_cycle_for_the_collector():
    """The code generation's state (every token of the file) is freed as soon as the positions are
    read, not at the collector's next pass."""
    import gc

    import libcst as cst

    from breaklint.analysis.positions import Positions, _PositionState

    def states() -> int:
        return sum(type(o) is _PositionState for o in gc.get_objects())

    module = cst.parse_module("import torch\n\ndef f(x):\n    return (x + 1) * 2\n")
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = states()
        positions = Positions(module)
        assert positions.span(module.body[1])[0] == 3
        assert states() == before
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_frees_each_files_cycles_and_leaves_the_collector_as_it_was(jobs, tmp_path, monkeypatch):
    """`lint` pauses the cyclic collector while it keeps results (its pool's workers too), frees what
    each file leaves in cycles with a young pass, and hands the collector back as it found it."""
    import gc
    import weakref

    from breaklint import analyze, engine
    from breaklint.config import Config

    for i in range(4):
        (tmp_path / f"m{i}.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n")

    class Cycle:
        pass

    left: list[weakref.ref] = []  # in each process that analyzes files
    original = analyze._analyze_path

    def leaving_a_cycle(args):
        if gc.isenabled():
            raise AssertionError("the collector runs while results are kept")
        if any(ref() is not None for ref in left):
            raise AssertionError("a cycle the file before left was not freed")
        cycle = Cycle()
        cycle.me = cycle
        left.append(weakref.ref(cycle))
        del cycle
        return original(args)

    monkeypatch.setattr(analyze, "_analyze_path", leaving_a_cycle)
    monkeypatch.setattr(engine, "PARALLEL_BYTES", 0)  # a pool for four small files
    for enabled in (True, False):
        left.clear()
        (gc.enable if enabled else gc.disable)()
        try:
            result = engine.lint([tmp_path], Config(root=tmp_path), jobs=jobs, use_cache=False)
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
        assert [f.code for f in result.findings] == ["BL101"] * 4 and not result.errors
        if jobs == 1:
            assert len(left) == 4 and all(ref() is None for ref in left)


def test_the_check_command_hands_the_collector_back(tmp_path):
    import gc

    from click.testing import CliRunner

    from breaklint.cli import main

    (tmp_path / "m.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    assert gc.isenabled()
    outcome = CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", str(tmp_path / "m.py")])
    assert outcome.exit_code == 1 and "BL101" in outcome.output
    assert gc.isenabled()
