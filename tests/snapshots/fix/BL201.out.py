import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x: torch.Tensor):
        x = x * 2
        x = torch.where(x.sum() > 0, x + 1, x)  # expect: BL201
        return x - 1


@torch.compile
def ternary(x: torch.Tensor):
    x = x * 2
    return torch.where(x.mean() > 0, x + 1, x - 1)  # expect: BL201


@torch.compile
def in_range(x: torch.Tensor):
    x = x * 2
    scale = torch.where(torch.logical_and(-1 <= x.mean(), x.mean() <= 1), 0.5, 2.0)  # expect: BL201
    return x * scale


@torch.compile
def any_nan(x):
    x = x * 2
    x = torch.where(torch.isnan(x).any(), torch.zeros_like(x), x)  # expect: BL201
    return x + 1


@torch.compile
def checked(x):
    x = x * 2
    torch._assert_async(torch.isfinite(x).all(), "x must be finite")  # expect: BL201
    return x + 1


def note(message):
    """Reports, as a library's `rank_zero_warn` would."""


@torch.compile
def rates(counts: torch.Tensor, thresholds: torch.Tensor):
    counts = counts.cumsum(0)
    if not torch.compiler.is_compiling():  # expect: BL201
        if counts[-1] <= 0:
            note("no positive counts")
    rate = torch.where(counts[-1] <= 0, torch.zeros_like(thresholds), counts / counts[-1])
    thresholds = torch.where(counts[-1] <= 0, thresholds, thresholds * 2)
    return rate + thresholds


@torch.compile
def early_return(x: torch.Tensor):
    x = x * 2
    return torch.where(x.sum() > 0, x + 1, x - 1)  # expect: BL201


@torch.compile
def checked_with_values(x):
    x = x * 2
    torch._assert_async(torch.logical_not(torch.any(x > 1e6)), 'values too large: ...')  # expect: BL201
    return x + 1


@torch.compile
def reports_only(x):
    x = x * 2
    if not torch.compiler.is_compiling():  # expect: BL201
        if (x > 100).any():
            note("large values")
    return x + 1


@torch.compile
def reports_on_a_long_test(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        if ((x > 100).any()  # expect: BL201
                or (x < -100).any()):
            note(f"values out of range, dtype {x.dtype}")
    return x + 1


@torch.compile
def checked_unless_ignored(x: torch.Tensor, ignore=None):
    x = x * 2
    if ignore is None:  # expect: BL201
        torch._assert_async(torch.logical_not(x.max() > 1e6), "values too large")
    return x + 1


@torch.compile
def in_loop(x: torch.Tensor):
    x = x * 2
    for i in range(3):
        x = torch.where(x[i] > 0, x + 1, x)  # expect: BL201
    return x


@torch.compile
def best_so_far(x: torch.Tensor):
    """`best` holds `None` only the first time round: from the second, the test compares tensors."""
    x = x * 2
    best = None
    for i in range(3):
        score = x[i].abs()
        if best is None or score > best:  # expect: BL201
            best = score
    return best


@torch.compile
def on_shape(x, mask=None):
    x = x * 2
    if x.shape[0] > 1:
        x = x + 1
    if mask is not None:
        x = x * mask
    return torch.where(x > 0, x, -x)


@torch.compile
def skipped_when_compiling(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        if x.sum() > 0:
            print("eager only")
    return x + 1


@torch.compile
def asserted_with_values(x, lo, hi):
    x = x * 2
    assert (lo <= x[0]) & (x[0] <= hi), "out of range: {}, {}".format(lo, hi)  # expect: BL201
    assert x.abs().sum() >= 0, f"negative norm {x.shape}"  # expect: BL201
    return x + 1


@torch.compile
def asserted_with_constants(x):
    x = x * 2
    assert torch.isfinite(x).all()
    assert x.abs().sum() >= 0, "negative norm"
    assert x.abs().sum() >= 0, ("negative " "norm")
    assert x.shape[0] > 0, "empty {}".format(x.shape)
    return x + 1


def in_band(freq, width=5):
    assert 0 < freq <= 1  # expect: BL201
    assert width % 2 != 0
    return torch.arange(width) * freq


@torch.compile
def asserted_in_a_chain(x):
    """`0 < freq <= 1` takes the truth of `0 < freq` to go on, whatever the message."""
    x = x * 2
    return in_band(x.abs().max().clamp(max=1.0)) * 2


@torch.compile
def asserted_by_torch(x):
    x = x * 2
    torch._assert(x.abs().sum() >= 0, "negative norm")  # expect: BL201
    torch._assert(x.shape[0] > 0, "empty")
    torch._assert_async(x.abs().sum() >= 0)
    return x + 1


@torch.compile
def checked_unless_compiling(x, flag: bool):
    """`compiling`, kept in a local, holds under compile: the test never reads the tensor."""
    x = x * 2
    compiling = torch.compiler.is_compiling()
    needs_fallback = not flag or compiling
    if flag and not compiling and not x.isfinite().all():
        needs_fallback = True
    if needs_fallback:
        x = x.clamp(-1, 1)
    return x


def sampled(x):
    return x.exp(), x.mean()


@torch.compile
def penalized(x, analytic: bool):
    """One branch shows a tensor, the other what a helper gives: `kl.unsqueeze` is a tensor either way."""
    if analytic:
        kl = torch.nn.functional.kl_div(x, x.exp(), reduction="none")
    else:
        a, b = sampled(x)
        kl = (a - b).mean(0)
    kl = kl.unsqueeze(-1)
    x = torch.where(kl.mean() > 0.5, x * 2, x)  # expect: BL201
    return x


def cases():
    x = torch.randn(8)
    return [
        (asserted_with_values, (x, torch.tensor(-100.0), torch.tensor(100.0))),
        (asserted_with_constants, (x,)),
        (asserted_by_torch, (x,)),
        (asserted_in_a_chain, (x,)),
        (Gate(), (x,)),
        (ternary, (x,)),
        (in_range, (x,)),
        (any_nan, (x,)),
        (checked, (x,)),
        (rates, (x.abs(), x)),
        (early_return, (x,)),
        (checked_with_values, (x,)),
        (reports_only, (x * 100,)),
        (reports_on_a_long_test, (x * 100,)),
        (checked_unless_ignored, (x,)),
        (in_loop, (x,)),
        (best_so_far, (x,)),
        (on_shape, (x,)),
        (skipped_when_compiling, (x,)),
        (checked_unless_compiling, (x, True)),
        (penalized, (x, True)),
        (penalized, (x, False)),
    ]
