"""BL442: `torch.compiler.disable` applied inside compiled code (a decorated nested function, a wrapper
call) and the calls of what it makes; not where compile does not trace the enclosing function, and not
for a nested function left alone. Checked against dynamo on the installed torch, which breaks on
exactly the lines the static pass reports."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.config import Config
from breaklint.dynamic.calibrate import calibrate
from breaklint.engine import lint_source

SOURCE = '''
import torch
from torch import nn


@torch.compiler.disable
def to_host(t):
    return t.numpy()


class Post(nn.Module):
    def forward(self, x):
        y = x * 2

        @torch._dynamo.disable(recursive=False)
        def pick(t):
            return t.numpy().argmax()

        def twice(t):
            return t * 2

        top = pick(y)
        return twice(y) + 1, top


class Eager(nn.Module):
    @torch.compiler.disable
    def forward(self, x):
        @torch.compiler.disable
        def inner(t):
            return t.numpy()

        return inner(x)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.post = Post()
        self.eager = Eager()

    def forward(self, x):
        return self.post(x), self.eager(x)


def setup(x):
    @torch.compiler.disable
    def never_compiled(t):
        return t.numpy()

    return never_compiled(x)


def cases():
    return [(torch.compile(Outer()), (torch.randn(4),))]
'''


def test_reports_the_definition_and_the_call_only_where_compile_traces(tmp_path: Path) -> None:
    found = lint_source(dedent(SOURCE), Path("m.py"), Config())
    lines = dedent(SOURCE).splitlines()
    reported = sorted((f.code, lines[f.line - 1].strip()) for f in found if f.kind == "break")
    assert reported == [
        ("BL410", "return self.post(x), self.eager(x)"),
        ("BL442", "@torch._dynamo.disable(recursive=False)"),
        ("BL442", "top = pick(y)"),
    ]
    path = tmp_path / "m.py"
    path.write_text(dedent(SOURCE), encoding="utf-8")
    assert sorted(lines[n - 1].strip() for n in calibrate(path).sites) == sorted(text for _, text in reported)
