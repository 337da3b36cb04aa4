"""A call of a local bound to a choice of functions (`wrapper = tqdm if verbose else identity`, then
`wrapper(xs)`): the call rules are asked about each function it may hold, and a finding says which. Checked
against dynamo on the installed torch, which breaks at the call wherever the untraceable one is chosen (the
module run under dynamo imports nothing beyond the test's own dependencies)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.config import Config
from breaklint.dynamic.calibrate import calibrate
from breaklint.engine import lint_source

SOURCE = '''
import time

import torch


def zero():
    return 0.0


def timed(x, clock_it: bool = False):
    clock = zero if not clock_it else time.perf_counter
    start = clock()
    return x + 1, start


def logged(x, verbose: bool = False):
    log = print if verbose else (lambda *a: None)
    log("step")
    other = verbose and print
    scale = x.sum if verbose else x.mean
    log = x.add
    return log(1) + scale()


def cases():
    x = torch.ones(2)
    return [(torch.compile(timed), (x, True)), (torch.compile(logged), (x, True))]
'''


def test_each_function_a_local_may_hold_is_asked_about() -> None:
    found = lint_source(SOURCE, Path("m.py"), Config(entry_points=["m.timed", "m.logged"]))
    assert [(f.line, f.code) for f in found] == [(13, "BL404"), (19, "BL401")]
    assert found[0].message.endswith("(where `clock` holds `time.perf_counter`: "
                                     "`zero if not clock_it else time.perf_counter`)")
    assert "`print` cannot be traced" in found[1].message


def test_a_progress_bar_chosen_by_a_flag() -> None:
    found = lint_source(dedent('''
        import torch
        from tqdm import tqdm

        def identity(t, *args, **kwargs):
            return t

        @torch.compile
        def generate(x, use_tqdm: bool = False):
            wrapper_fn = identity if not use_tqdm else tqdm
            for _ in wrapper_fn(range(3)):
                x = x + 1
            return x
    '''), Path("m.py"), Config())
    assert [(f.line, f.code) for f in found] == [(11, "BL411")]
    assert found[0].message.endswith("(where `wrapper_fn` holds `tqdm`: `identity if not use_tqdm else tqdm`)")


@pytest.mark.dynamo
def test_dynamo_breaks_where_the_untraceable_one_is_chosen(tmp_path: Path) -> None:
    path = tmp_path / "chosen.py"
    path.write_text(dedent(SOURCE), encoding="utf-8")
    cal = calibrate(path)
    assert sorted(cal.sites) == [13, 19]
