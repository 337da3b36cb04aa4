import torch


@torch.compile
def optional_skip(x, skip=None):
    x = x * 2
    if skip is not None and isinstance(skip, torch.Tensor):  # expect: BL417
        x = x + skip
    return x + 1


@torch.compile
def builtin_check(x, skip=None):
    x = x * 2
    if isinstance(skip, torch.Tensor):
        x = x + skip
    return x + 1


def cases():
    x = torch.randn(8)
    return [(optional_skip, (x, x)), (builtin_check, (x, x))]
