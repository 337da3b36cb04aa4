"""BL443: a `torch.distributions` class built with `validate_args=True` where compile traces; not one
left at its default or passed `False` or a name, not a function of the package, not code compile does
not reach. Checked against dynamo on the installed torch, which breaks on exactly the lines reported."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.config import Config
from breaklint.dynamic.calibrate import calibrate
from breaklint.engine import lint_source

SOURCE = '''
import torch
from torch.distributions import Categorical, Normal, kl_divergence
from torch.distributions.uniform import Uniform
from torch import nn


def eager_check(x):
    return Normal(x, 1.0, validate_args=True).mean


class Head(nn.Module):
    def __init__(self, validate=False):
        super().__init__()
        self.validate = validate

    def forward(self, x):
        x = x * 2
        checked = Categorical(logits=x, validate_args=True)
        plain = Categorical(logits=x)
        off = Normal(x, torch.ones_like(x), validate_args=False)
        passed = Normal(x, torch.ones_like(x), validate_args=self.validate)
        drawn = Uniform(torch.zeros(3), torch.ones(3), validate_args=True).rsample()
        return kl_divergence(checked, plain).sum() + off.rsample().sum() + passed.rsample().sum() + drawn.sum()


def cases():
    return [(torch.compile(Head()), (torch.randn(3),))]
'''


def test_reports_validating_constructions_only(tmp_path: Path) -> None:
    found = lint_source(dedent(SOURCE), Path("m.py"), Config())
    lines = dedent(SOURCE).splitlines()
    reported = sorted((f.code, lines[f.line - 1].strip()) for f in found if f.kind == "break")
    assert reported == [
        ("BL443", "checked = Categorical(logits=x, validate_args=True)"),
        ("BL443", "drawn = Uniform(torch.zeros(3), torch.ones(3), validate_args=True).rsample()"),
    ]
    path = tmp_path / "m.py"
    path.write_text(dedent(SOURCE), encoding="utf-8")
    assert sorted(lines[n - 1].strip() for n in calibrate(path).sites) == sorted(text for _, text in reported)
