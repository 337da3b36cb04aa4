import warnings

import torch


@torch.compile
def warns(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        warnings.warn("deprecated")  # expect: BL403
    return x + 1


@torch.compile
def quiet(x):
    x = x * 2
    with warnings.catch_warnings():
        if not torch.compiler.is_compiling():
            warnings.simplefilter("ignore")  # expect: BL403
        x = x + 1
    return x - 1


@torch.compile
def filtered(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        warnings.filterwarnings("ignore", category=UserWarning)  # expect: BL403
    return x + 1


@torch.compile
def only_caught(x):
    with warnings.catch_warnings():
        x = x * 2
    return x + 1


def cases():
    x = torch.randn(8)
    return [(warns, (x,)), (quiet, (x,)), (filtered, (x,)), (only_caught, (x,))]
