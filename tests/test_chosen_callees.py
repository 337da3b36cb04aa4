"""A call of a local bound to a choice of functions (`wrapper = tqdm if verbose else identity`, then
`wrapper(xs)`): the call rules are asked about each function it may hold, and a finding says which. Checked
against dynamo on the installed torch, which breaks at the call wherever the untraceable one is chosen."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.config import Config
from breaklint.dynamic.calibrate import calibrate
from breaklint.engine import lint_source

SOURCE = '''
import torch
from tqdm import tqdm


def identity(t, *args, **kwargs):
    return t


def progress(x, use_tqdm: bool = False):
    wrapper_fn = identity if not use_tqdm else tqdm
    for _ in wrapper_fn(range(3)):
        x = x + 1
    return x


def logged(x, verbose: bool = False):
    log = print if verbose else (lambda *a: None)
    log("step")
    other = verbose and print
    scale = x.sum if verbose else x.mean
    log = x.add
    return log(1) + scale()


def cases():
    x = torch.ones(2)
    return [(torch.compile(progress), (x, True)), (torch.compile(logged), (x, True))]
'''


def test_each_function_a_local_may_hold_is_asked_about() -> None:
    found = lint_source(SOURCE, Path("m.py"), Config(entry_points=["m.progress", "m.logged"]))
    assert [(f.line, f.code) for f in found] == [(12, "BL411"), (19, "BL401")]
    assert found[0].message.endswith("(where `wrapper_fn` holds `tqdm`: `identity if not use_tqdm else tqdm`)")
    assert "`print` cannot be traced" in found[1].message


@pytest.mark.dynamo
def test_dynamo_breaks_where_the_untraceable_one_is_chosen(tmp_path: Path) -> None:
    path = tmp_path / "chosen.py"
    path.write_text(dedent(SOURCE), encoding="utf-8")
    cal = calibrate(path)
    assert sorted(cal.sites) == [12, 19]
