import time

import torch


@torch.compile
def timed(x):
    x = x * 2
    start = (0.0 if torch.compiler.is_compiling() else time.perf_counter())  # expect: BL404
    return x + 1, start


@torch.compile
def stamped(x):
    x = x * 2
    now = (0.0 if torch.compiler.is_compiling() else time.time())  # expect: BL404
    return x + now


def cases():
    x = torch.randn(8)
    return [(timed, (x,)), (stamped, (x,))]
