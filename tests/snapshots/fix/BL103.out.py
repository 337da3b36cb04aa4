import math

import numpy as np
import torch


@torch.compile
def float_of_tensor(x: torch.Tensor):
    x = x * 2
    return x * x.sum().float()  # expect: BL103


@torch.compile
def int_of_tensor(x):
    x = x * 2
    n = int(x.max())  # expect: BL103
    return x + n


@torch.compile
def math_of_tensor(x: torch.Tensor):
    x = x * 2
    return x + torch.sqrt(x.abs().sum())  # expect: BL103


@torch.compile
def cast_of_shape(x):
    x = x * 2
    scale = math.sqrt(x.shape[-1])
    return x / scale + float(x.shape[0])


@torch.compile
def slice_to_tensor(x):
    x = x * 2
    count = (x > 0).long().sum()
    return x[: count + 1]  # expect: BL103


@torch.compile
def slice_to_shape(x):
    x = x * 2
    n = x.shape[0] // 2
    return x[:n] + x[n:]


@torch.compile
def closest_to_zero(x: torch.Tensor):
    x = x * 2
    i = torch.argmin(x.abs())
    return x[i.unsqueeze(0)].squeeze(0) + 1  # expect: BL103


@torch.compile
def best_per_column(x):
    x = (x * 2).view(2, 4)
    i = x.argmax(dim=0)
    return x[i] + 1


@torch.compile
def finite_only(x):
    x = x * 2
    torch._assert_async(torch.isfinite(x).all(), "x must be finite")  # expect: BL103
    return x + 1


@torch.compile
def redraw_until_shuffled(n: int):
    identity = torch.arange(n)
    perm = torch.randperm(n)
    tries = 0
    while torch.equal(perm, identity) and tries < 3:  # expect: BL103
        perm = torch.randperm(n)
        tries += 1
    return perm * 2


@torch.compile
def same_as(x, y):
    x = x * 2
    return x + 1 if x.equal(y) else x  # expect: BL103


@torch.compile
def repeat_by_count(x):
    x = x * 2
    n = (x > 0).sum()
    for _ in range(n):  # expect: BL103
        x = x + 1
    return x


@torch.compile
def repeat_by_shape(x):
    x = x * 2
    for _ in range(x.shape[0] // 4):
        x = x + 1
    return x


@torch.compile
def width_by_numpy(x):
    x = (x * 2).view(2, 4)
    width = int(np.prod(x.shape[1:]))  # expect: BL103
    return x.reshape(-1, width) + np.sqrt(x.shape[1])


@torch.compile
def nonzero_test(x):
    x = x * 2
    return x + 1 if x.sum().is_nonzero() else x  # expect: BL103


@torch.compile
def last_positive(x):
    x = x * 2
    last = (x > 0).sum() - 1
    return x[last] + 1  # expect: BL103


def cases():
    x = torch.randn(8)
    return [(float_of_tensor, (x,)), (int_of_tensor, (x,)), (math_of_tensor, (x,)), (cast_of_shape, (x,)),
            (slice_to_tensor, (x,)), (slice_to_shape, (x,)),
            (closest_to_zero, (x,)), (best_per_column, (x,)), (finite_only, (x,)),
            (redraw_until_shuffled, (6,)), (same_as, (x, x * 2)), (repeat_by_count, (x,)),
            (repeat_by_shape, (x,)), (width_by_numpy, (x,)), (nonzero_test, (x,)),
            (last_positive, (x,))]
