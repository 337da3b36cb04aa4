import torch


@torch.compile
def float_tolist(x):
    x = x * 2
    values = x.tolist()  # expect: BL102
    return x + len(values)


@torch.compile
def int_tolist(x):
    x = x * 2
    n = x.long().tolist()  # expect: BL102
    return x + len(n)


@torch.compile
def axes(x):
    x = x * 2
    dims = list(range(1, len(x.shape) + 1))  # expect: BL102
    return x.sum(dim=[d - 1 for d in dims])


@torch.compile
def shape_list(x):
    x = x * 2
    dims = list(x.shape)
    return x.reshape(dims)


def cases():
    x = torch.randn(8)
    return [(float_tolist, (x,)), (int_tolist, (x,)), (axes, (x,)), (shape_list, (x,))]
