import torch


@torch.compile
def tensor_and(x: torch.Tensor):
    x = x * 2
    both = torch.logical_and(x.any(), x.all())  # expect: BL202
    return x + both


@torch.compile
def tensor_not(x: torch.Tensor):
    x = x * 2
    flag = torch.logical_not(x.any())  # expect: BL202
    return x + flag


@torch.compile
def elementwise(x, use_bias: bool = True):
    x = x * 2
    both = (x > 0) & (x < 1)
    keep = use_bias and True
    return x + both + keep


def cases():
    x = torch.randn(8)
    return [(tensor_and, (x,)), (tensor_not, (x,)), (elementwise, (x,))]
