"""The engine's own walk and positions must be exactly libcst's: same hooks in the same order, same ranges."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from breaklint.engine import lint_source
from breaklint.analysis.positions import Positions
from breaklint.analysis.walk import BatchedWalk, declared_children, find, hook_names, trivia_types, unhooked_types

ROOT = Path(__file__).resolve().parents[1]

# Shapes that libcst visits conditionally or rarely: an f-string with and without a format spec,
# nested specs, `import *`, decorators, star args, walrus, match, lambda defaults, async, global.
EDGE_CASES = '''
from os import *
from . import (a as b,
               c)
import torch.nn as nn
x = f"{a}" f"{b!r:>{width}.{prec}}" f"{c=}" "plain"
@dec(1)
@other
async def g(a, /, b=1, *args, c: int = 2, **kw) -> "T":  # comment
    global q
    async with lock as (l1, l2), other:
        async for i in aiter():
            yield (y := i ** 2)
    match cmd:
        case [1, *rest] if rest:
            pass
        case {"k": v, **others}:
            pass
        case Point(x=0) | None:
            pass
    lam = lambda p, *, q=3: p[1:2, ::3, ...]
    try:
        pass
    except* ValueError as e:
        raise
    finally:
        del x[0], y.z
class C(nn.Module, metaclass=M):
    """doc"""
    def forward(self, x):
        assert x, "m"
        return [i for i in x if i] + {k: v for k, v in x} + {*x}
'''


def _corpus() -> list[tuple[str, str]]:
    files = sorted([*(ROOT / "src" / "breaklint").rglob("*.py"), *(ROOT / "fixtures").glob("*.py"),
                    *(ROOT / "examples").rglob("*.py")])
    out = [("edge cases", EDGE_CASES)]
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue  # the bad-input fixtures
        out.append((path.name, text))
    return out


def _recording_visitor(events: list, trivia: bool = True, attributes: bool = True) -> cst.BatchableCSTVisitor:
    """A visitor with a hook for every node type (but whitespace and punctuation unless `trivia`) and
    every field of it (unless not `attributes`), recording each call."""
    types, todo = set(), [cst.CSTNode]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in types:
                types.add(sub)
                todo.append(sub)
    namespace = {}
    for node_type in types:
        if not dataclasses.is_dataclass(node_type) or (not trivia and node_type in trivia_types()):
            continue
        names = [node_type.__name__,
                 *(f"{node_type.__name__}_{f.name}" for f in dataclasses.fields(node_type) if attributes)]
        for prefix in ("visit_", "leave_"):
            for name in names:
                def hook(self, node, _name=prefix + name):
                    events.append((_name, id(node)))
                hook.__name__ = prefix + name  # libcst finds hooks by their __name__
                namespace[prefix + name] = hook
    return type("Recorder", (cst.BatchableCSTVisitor,), namespace)()


def _sparse_visitor(events: list, hooks: set[str]) -> cst.BatchableCSTVisitor:
    namespace = {}
    for name in hooks:
        def hook(self, node, _name=name):
            events.append((_name, id(node)))
        hook.__name__ = name
        namespace[name] = hook
    return type("Sparse", (cst.BatchableCSTVisitor,), namespace)()


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=lambda v: v if len(v) < 40 else "")
def test_walk_calls_the_hooks_libcst_calls_in_its_order(name, text):
    module = cst.parse_module(text)
    theirs: list = []
    MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([_recording_visitor(theirs)])
    ours: list = []
    BatchedWalk([_recording_visitor(ours)]).walk(module)
    assert len(theirs) > 10
    assert ours == theirs


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=lambda v: v if len(v) < 40 else "")
def test_a_walk_that_hooks_no_trivia_skips_it_and_calls_the_same_hooks(name, text):
    module = cst.parse_module(text)
    theirs: list = []
    MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([_recording_visitor(theirs, trivia=False)])
    ours: list = []
    walk = BatchedWalk([_recording_visitor(ours, trivia=False)])
    assert walk._skip == {t for t in trivia_types() if not inspect.isabstract(t)}  # everything else is hooked
    walk.walk(module)
    assert ours == theirs
    # A hook on a comment (a file with suppressions) walks the trivia again.
    assert not BatchedWalk([_recording_visitor([], trivia=True)])._skip


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=lambda v: v if len(v) < 40 else "")
def test_a_walk_with_node_hooks_only_leaves_out_what_nothing_hooks_and_calls_the_same_hooks(name, text):
    module = cst.parse_module(text)
    theirs: list = []
    MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([_recording_visitor(theirs, False, False)])
    ours: list = []
    walk = BatchedWalk([_recording_visitor(ours, False, False)])
    walk.walk(module)
    assert ours == theirs
    # A few hooks, as the rules have: names, literals and what holds only them are not entered.
    sparse = {"visit_Call", "leave_Call", "visit_If_body", "leave_If", "visit_Comment", "visit_Subscript"}
    # names and numbers hooked: the walk calls their hooks in place, without entering them
    leaves = sparse | {"visit_Name", "leave_Name", "visit_Integer"}
    for hooks in (sparse, sparse - {"visit_Comment"}, leaves, leaves - {"visit_Comment"}):
        theirs, ours = [], []
        MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([_sparse_visitor(theirs, hooks)])
        BatchedWalk([_sparse_visitor(ours, hooks)]).walk(module)
        assert ours == theirs


def test_what_a_walk_need_not_enter_is_read_from_libcsts_annotations():
    names = {t.__name__ for t in declared_children(cst.Call, "whitespace_after_func")}
    assert names == {"SimpleWhitespace", "ParenthesizedWhitespace"}
    assert {t.__name__ for t in declared_children(cst.Name, "lpar")} == {"LeftParen"}
    assert cst.Call in declared_children(cst.Arg, "value")
    unhooked = unhooked_types(frozenset({"visit_Call"}))
    assert {cst.Name, cst.Integer, cst.SimpleString, cst.LeftParen, cst.Comma, cst.Comment} <= unhooked
    # what may hold a call is entered: an attribute (`f(x).y`), an argument, a statement, a block
    assert not {cst.Call, cst.Attribute, cst.Arg, cst.Expr, cst.IndentedBlock, cst.Module} & unhooked
    # a hook on comments enters whatever may hold one, down to the parentheses of a name
    unhooked = unhooked_types(frozenset({"visit_Call", "visit_Comment"}))
    assert not {cst.Comment, cst.EmptyLine, cst.ParenthesizedWhitespace, cst.LeftParen, cst.Name} & unhooked
    assert {cst.SimpleWhitespace, cst.Newline} <= unhooked
    # an attribute hook counts as a hook on its node type
    assert cst.Name not in unhooked_types(frozenset({"visit_Name_lpar"}))
    # A walk that skips trivia leaves such attributes out of its plans; one that hooks them does not.
    walk = BatchedWalk([_recording_visitor([], trivia=False, attributes=False)])
    walk.walk(cst.parse_module("f(x, y)\n"))
    assert [attr for attr, _, _ in walk._plans[cst.Call][1]] == ["lpar", "func", "args", "rpar"]
    walk = BatchedWalk([_recording_visitor([], trivia=True, attributes=False)])
    walk.walk(cst.parse_module("f(x, y)\n"))
    assert "whitespace_after_func" in [attr for attr, _, _ in walk._plans[cst.Call][1]]


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=lambda v: v if len(v) < 40 else "")
def test_positions_are_position_providers(name, text):
    module = cst.parse_module(text)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module)
    assert theirs
    for node, expected in theirs.items():
        if node.__class__ in trivia_types() and not isinstance(node, (cst.Comment, cst.ImportStar)):
            try:  # whitespace and punctuation need no position of their own; if they have one, it is right
                span = ours.span(node)
            except KeyError:
                continue
            assert span == (expected.start.line, expected.start.column, expected.end.line, expected.end.column)
            continue
        assert ours[node] == expected
        assert ours.span(node) == (expected.start.line, expected.start.column, expected.end.line, expected.end.column)


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=lambda v: v if len(v) < 40 else "")
def test_find_gives_what_findall_gives_in_its_order(name, text):
    import libcst.matchers as m

    module = cst.parse_module(text)
    searches = [(cst.Name, m.Name()), (cst.Comment, m.Comment()), (cst.Call, m.Call()),
                ((cst.SimpleString, cst.FormattedString), m.SimpleString() | m.FormattedString()),
                ((cst.Name, cst.Attribute, cst.Subscript), m.Name() | m.Attribute() | m.Subscript()),
                ((cst.AssignTarget, cst.Param, cst.Comma), m.AssignTarget() | m.Param() | m.Comma())]
    for types, matcher in searches:
        for root in (module, *module.body[:3]):  # the whole tree, and subtrees
            assert [id(n) for n in find(root, types)] == [id(n) for n in m.findall(root, matcher)]
    assert next(find(module, cst.Module)) is module  # the root itself counts


def test_hook_names_skip_libcst_stubs_and_are_found_once_per_class():
    class Rule(cst.BatchableCSTVisitor):
        def visit_Call(self, node):
            pass

        def leave_If_body(self, node):
            pass

    assert hook_names(Rule) == ("leave_If_body", "visit_Call")
    assert hook_names(Rule) is hook_names(Rule)


def test_the_pool_gives_what_one_process_gives(tmp_path, monkeypatch):
    """Files are fed to the workers largest first; each result still lands with its own file."""
    from breaklint import engine
    from breaklint.config import Config

    model = (ROOT / "examples" / "models" / "detector.py").read_text(encoding="utf-8")
    for i in range(12):
        padding = "# padding\n" * (i * 37)  # a different size, and so a different place in the queue
        (tmp_path / f"m{i:02d}.py").write_text(padding + model.replace("class ", f"class V{i}", 1))
    config = Config(root=tmp_path, respect_gitignore=False)
    serial = engine.lint([tmp_path], config, jobs=1, use_cache=False)
    monkeypatch.setattr(engine, "PARALLEL_BYTES", 0)
    pooled = engine.lint([tmp_path], config, jobs=2, use_cache=False)
    assert serial.findings and len({f.path for f in serial.findings}) == 12
    assert pooled.files == serial.files
    assert pooled.findings == serial.findings


def test_files_go_to_the_workers_largest_first():
    from breaklint.pool import _schedule

    sizes = [10, 300_000, 20, 30, 200_000, 40]
    assert [sizes[i] for i in _schedule(sizes)] == [300_000, 200_000, 40, 30, 20, 10]


def test_a_large_tree_is_analyzed_alone():
    """A worker about to build a large tree waits for the others' files and holds theirs back; ordinary
    files are analyzed side by side."""
    import threading

    from breaklint.memory import Turns

    turns, log = Turns(), []
    small_in, small_out, big_started = threading.Event(), threading.Event(), threading.Event()

    def small() -> None:
        with turns.turn(alone=False):
            log.append("small in")
            small_in.set()
            small_out.wait(5)
            log.append("small out")

    def big() -> None:
        with turns.turn(alone=True):
            big_started.set()
            log.append("big")

    first = threading.Thread(target=small)
    first.start()
    assert small_in.wait(5)
    with turns.turn(alone=False):  # a second ordinary file goes in beside the first
        log.append("second small")
    waiting = threading.Thread(target=big)
    waiting.start()
    assert not big_started.wait(0.3)  # the large one waits for the ordinary one being analyzed
    small_out.set()
    first.join(5)
    waiting.join(5)
    assert log == ["small in", "second small", "small out", "big"]


PIECES_SOURCE = """\"""A module cut into pieces: the outline keeps what the context reads before the walk.\"""
import torch
from torch import nn

if torch.cuda.is_available():
    from torch.nn import functional as F
else:
    F = None


def _tracing():
    return torch.compiler.is_compiling()


class Base(nn.Module):
    @staticmethod
    def helper(x):
        # comment above a statement
        print("helper", x)
        return x


@torch.compile
def entry(x):
    if _tracing():
        return x
    y = x * 2
    return y.item()  # compile never gets here: `_tracing()` is true under it


class Net(Base):
    scale = 2.0

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        x = self.helper(self.lin(x))
        if x.sum() > 0:
            x = x + 1
        return F.relu(x) * x.max().item()


MODEL = torch.compile(Net())
"""


def test_a_large_file_is_walked_in_pieces_with_the_findings_of_a_whole_walk(monkeypatch):
    from breaklint import analyze
    from breaklint.analysis import parse

    monkeypatch.setattr(parse, "PIECE_BYTES", 1)  # every module-level statement its own piece
    outline, pieces = parse._pieces(PIECES_SOURCE)
    cst.parse_module(outline)  # a decorated first method, a guarded import, a one-line helper
    assert "return torch.compiler.is_compiling()" in outline and "print(" not in outline
    assert "".join(piece for _, piece in pieces) == PIECES_SOURCE
    assert [first for first, _ in pieces][0] == 1 and len(pieces) > 3

    def found() -> list:
        return [(f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.fix)
                for f in lint_source(PIECES_SOURCE, Path("m.py"))]

    whole = found()  # a small file is walked whole
    walked = []
    monkeypatch.setattr(analyze, "PIECES_FROM", 0)
    real_parse = analyze._parse
    monkeypatch.setattr(analyze, "_parse", lambda text, path, first, quiet=False: (
        walked.append(first), real_parse(text, path, first, quiet))[1])
    assert found() == whole and [f[0] for f in whole] == ["BL401", "BL201", "BL101"]
    assert len(walked) == len(pieces) + 1  # the outline, then each piece: nothing walked whole


def test_every_fixture_gives_the_same_findings_walked_in_pieces(monkeypatch):
    from breaklint import analyze, engine
    from breaklint.analysis import parse
    from breaklint.config import Config

    roots = [ROOT / "fixtures", ROOT / "examples"]

    def found() -> list:
        # the fixtures of `settings/` set dynamo settings for the whole tree they are linted with
        config = Config(root=ROOT, respect_gitignore=False, extend_exclude=["fixtures/settings"])
        result = engine.lint(roots, config, jobs=1, use_cache=False)
        return [(f.path, f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.fix) for f in result.all]

    whole = found()
    monkeypatch.setattr(analyze, "PIECES_FROM", 0)
    monkeypatch.setattr(parse, "PIECE_BYTES", 200)
    assert found() == whole and len(whole) > 80  # every fixture's findings, fixes included
