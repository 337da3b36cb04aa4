"""BL440: a comprehension that dynamo compiles as a frame of its own, on Python 3.11 and older.

Where dynamo runs a function eagerly, each list, set or dict comprehension it runs is a call of a
function of its own; dynamo compiles that frame when it looks like torch code, and cannot step the
iterator it is handed (fixtures/BL440.py calibrates this under dynamo). These tests pin which
comprehensions are reported, and where none is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from breaklint.config import Config
from breaklint.engine import lint_source

HEAD = """
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


@torch.compile
def run(x, groups, table):
    for g in groups:
        if g.sum() > 0:
            x = x + 1
"""


def frames(body: str, python: str = "3.11", head: str = HEAD) -> list[int]:
    """The lines of the BL440 findings of `head` + `body` (the body indented into `run`)."""
    source = head + body
    config = Config(select=["BL440"], target_python=python)
    return sorted(f.line for f in lint_source(source, Path("m.py"), config))


def line_of(body: str, text: str, head: str = HEAD) -> int:
    lines = (head + body).splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize("comprehension", [
    "[torch.relu(g) for g in groups]",
    "{k: F.relu(v) for k, v in table.items()}",
    "{torch.numel(a) for a, b in zip(groups, groups)}",
    "[np.asarray(g) for g in groups]",
    "[g + torch.ones(2) for g in groups]",
    "[torch.relu(g) for i, g in enumerate(groups)]",
])
def test_a_comprehension_whose_frame_dynamo_compiles_is_reported(comprehension: str) -> None:
    body = f"    out = {comprehension}\n    return out\n"
    assert frames(body) == [line_of(body, "out = ")]


@pytest.mark.parametrize("comprehension", [
    "[g * 2 for g in groups]",  # names no torch module, captures no tensor: dynamo skips the frame
    "[torch.relu(x) * i for i in range(3)]",  # a range's iterator dynamo steps
    "[torch.relu(g) for g in tuple(groups)]",  # and a tuple's
    "[torch.relu(r) for r in torch.ones(3, 2)]",  # and a tensor's rows
    "[torch.relu(x) for _ in x.shape]",
    "sum(torch.relu(g).sum() for g in groups)",  # a generator's frame dynamo never compiles
    "[[torch.relu(h) for h in g] for g in groups]",  # the outer one names no module (the inner does)
])
def test_no_report_where_the_frame_is_not_compiled_or_its_iterator_is_stepped(comprehension: str) -> None:
    assert frames(f"    out = {comprehension}\n    return out\n") == []


def test_a_captured_tensor_makes_the_frame_compiled() -> None:
    body = "    bias = torch.zeros(2)\n    return [g + bias for g in groups]\n"
    assert frames(body) == [line_of(body, "return [")]
    assert frames("    bias = 2.0\n    return [g + bias for g in groups]\n") == []


@pytest.mark.parametrize("held", [
    "[x, x * 2]",  # a list of tensors: dynamo looks inside lists, tuples and dicts (`has_tensor_in_frame`)
    "{'logits': x}",
    "(1, (2, [x]))",  # at any depth
    "x",  # the compiled function's parameter: a tensor the tree decides
])
def test_a_captured_container_of_tensors_makes_the_frame_compiled(held: str) -> None:
    body = f"    parts = {held}\n    return [n for n in table if parts]\n"
    assert frames(body) == [line_of(body, "return [")]


@pytest.mark.parametrize("held", ["[1, 2]", "{'a': 'b'}", "(1, ('s', None))"])
def test_a_captured_container_of_python_values_does_not(held: str) -> None:
    assert frames(f"    parts = {held}\n    return [n for n in table if parts]\n") == []


def test_a_captured_parameter_is_decided_by_what_the_callers_pass() -> None:
    head = """
import torch


def pick(x, names, held):
    for n in names:
        if x.sum() > len(n):
            x = x + 1
    return [n for n in names if held is not None]


@torch.compile
def run(x, names):
"""
    line = line_of("", "return [n", head=head)
    assert frames("    return pick(x, names, [x])\n", head=head) == [line]
    assert frames("    return pick(x, names, x * 2)\n", head=head) == [line]
    assert frames("    return pick(x, names, [1, 2])\n", head=head) == []
    assert frames("    return pick(x, names, len(names))\n", head=head) == []


def test_python_3_12_inlines_comprehensions() -> None:
    body = "    return [torch.relu(g) for g in groups]\n"
    assert frames(body, "3.11") == [line_of(body, "return [")]
    assert frames(body, "3.12") == []


def test_no_report_in_a_function_dynamo_traces() -> None:
    head = """
import torch


@torch.compile
def run(x, groups):
    print("a break dynamo resumes after")
"""
    assert frames("    return [torch.relu(g) for g in groups]\n", head=head) == []


def test_self_makes_the_frame_compiled_only_in_a_module() -> None:
    """A comprehension that names no module but uses `self` is compiled where `self` is a module:
    dynamo looks for tensors and modules among the frame's values, not into other objects."""
    template = """
import torch
from torch import nn


class Heads({base}):
    def __init__(self):
        {init}
        self.k = 2.0

    def forward(self, xs):
        scale = 1.0
        for x in xs:
            if x.max() > 10:
                scale = 0.5
        return [x * self.k * scale for x in xs]


@torch.compile
def run(xs):
    return Heads()(xs) if False else Heads().forward(xs)
"""
    module = template.format(base="nn.Module", init="super().__init__()")
    plain = template.format(base="object", init="pass")
    assert frames("", head=module) == [line_of("", "return [x", head=module)]
    assert frames("", head=plain) == []


def test_the_finding_names_why_the_function_runs_eagerly_and_a_branch() -> None:
    body = """\
    if x.numel() > 3:
        return [torch.relu(g) for g in groups]
    return x
"""
    found = lint_source(HEAD + body, Path("m.py"), Config(select=["BL440"], target_python="3.11"))
    assert [f.line for f in found] == [line_of(body, "return [")]
    assert "dynamo runs `run` eagerly: it breaks inside a loop or `try` (at `m.py:11`)" in found[0].message
    assert "this comprehension (in a branch)" in found[0].message


def test_a_break_in_a_branch_of_the_loop_is_named_as_such() -> None:
    """A function that breaks inside its loop only in a branch (of its own, or of what it calls there)
    runs eagerly where that branch runs: the finding says so."""
    head = """
import torch


def init(state, p):
    if len(state) == 0:
        state["scale"] = p.norm()
        if state["scale"] == 0.0:
            state["scale"] = 0.01


@torch.compile
def run(groups, state):
    for p in groups:
        init(state, p)
"""
    body = "    return [torch.relu(g) for g in groups]\n"
    found = lint_source(head + body, Path("m.py"), Config(select=["BL440"], target_python="3.11"))
    assert [f.line for f in found] == [line_of(body, "return [", head=head)]
    assert "eagerly where it breaks inside a loop or `try` (at `m.py:8`, in a branch)" in found[0].message


def test_a_break_in_a_subclass_override_counts_only_for_that_subclass() -> None:
    # `Base.run` calls `self.step(x)`: for a `Checked` it runs the override that breaks, for a `Plain`
    # the base's, which traces. Dynamo (torch 2.13, Python 3.11) breaks in `Checked.forward`'s loop and
    # comprehension, and nowhere in `Plain.forward`.
    head = """
import torch
from torch import nn


class Base(nn.Module):
    def run(self, x):
        return self.step(x)

    def step(self, x):
        return x * 2


class Checked(Base):
    def step(self, x):
        if x.sum() > 0:
            return x
        return -x

    def forward(self, xs):
        for x in xs:
            x = self.run(x)
        return [torch.relu(x) for x in xs]


class Plain(Base):
    def forward(self, xs):
        for x in xs:
            x = self.run(x)
        return [torch.relu(x) for x in xs]


class Strict(Checked):
    def forward(self, xs):
        for x in xs:
            x = self.run(x)
        return [torch.relu(x) * 2 for x in xs]
"""
    lines = head.splitlines()
    checked = next(i for i, line in enumerate(lines, 1) if "return [torch.relu(x) for x in xs]" in line)
    strict = next(i for i, line in enumerate(lines, 1) if "* 2 for x in xs]" in line)
    # (a subclass of the class whose override breaks inherits that override, and breaks the same way)
    assert frames("", head=head) == [checked, strict]
