import warnings

import torch


@torch.compile
def warns(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        warnings.warn("deprecated")  # expect: BL403
    return x + 1


def cases():
    x = torch.randn(8)
    return [(warns, (x,))]
