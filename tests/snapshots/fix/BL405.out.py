import random

import numpy as np
import torch


@torch.compile
def python_random(x):
    x = x * 2
    p = torch.rand(())  # expect: BL405
    return x * p


@torch.compile
def numpy_uniform(x):
    x = x * 2
    return x * torch.empty(()).uniform_(0.5, 1.5)  # expect: BL405


@torch.compile
def random_gate(x):
    x = x * 2
    if random.random() < 2.0:  # expect: BL405
        x = x + 1
    return x


@torch.compile
def numpy_sized(x):
    x = x * 2
    noise = np.random.uniform(0.5, 1.5, 8)  # handed a size: an array, which dynamo traces
    return x * torch.from_numpy(noise).to(x.dtype)


@torch.compile
def numpy_sized_read(x):
    x = x * 2
    low, high = np.random.uniform(0, 1, 2)
    return x * int(high * 0.5 + 1)  # expect: BL103


@torch.compile
def torch_random(x):
    x = x * 2
    p = torch.rand(())
    return x * p


def cases():
    x = torch.randn(8)
    return [(python_random, (x,)), (numpy_uniform, (x,)), (random_gate, (x,)), (numpy_sized, (x,)),
            (numpy_sized_read, (x,)), (torch_random, (x,))]
