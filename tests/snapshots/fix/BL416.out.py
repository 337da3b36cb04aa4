import torch


@torch.compile
def as_float(x: torch.Tensor):
    x = x * 2
    y = x if x.is_floating_point() else x.float()  # expect: BL416
    return y + 1


@torch.compile
def as_float_called(x):
    x = x * 2
    y = x if x.is_floating_point() else x.float()
    return y + 1


def cases():
    x = torch.rand(4)
    return [(as_float, (x,)), (as_float_called, (x,))]
