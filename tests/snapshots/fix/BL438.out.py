import math

import torch


@torch.compile
def mean_over(x, dims):
    n = math.prod([x.shape[d] for d in dims])  # expect: BL438
    return x.sum(dims) / n


@torch.compile
def numel_of(x):
    return x * math.prod(list(map(int, x.shape)))  # expect: BL438


@torch.compile
def total_of(x):
    return x * math.fsum([float(s) for s in x.shape])  # expect: BL438


@torch.compile
def range_product(x):
    return x * math.prod([i for i in range(1, 4)])  # expect: BL438


@torch.compile
def listed(x, dims):
    n = math.prod([x.shape[d] for d in dims])
    m = math.prod(x.shape[1:])
    k = math.prod(iter(x.shape))
    return x.sum(dims) / (n * m * k)


def cases():
    x = torch.randn(2, 3)
    return [(mean_over, (x, (0, 1))), (numel_of, (x,)), (total_of, (x,)), (range_product, (x,)),
            (listed, (x, (0, 1)))]
