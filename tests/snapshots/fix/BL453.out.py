import itertools
from itertools import combinations, permutations

import torch


@torch.compile
def pairs(x):
    x = x * 2
    found = list(combinations(range(3), 2))  # expect: BL453
    return x + len(found)


@torch.compile
def orders(x):
    x = x * 2
    found = list(itertools.permutations([0, 1, 2], 2))  # expect: BL453
    return x + len(found)


@torch.compile
def by_position(x):
    x = x * 2
    found = list(permutations([0, 1, 2], 2)) + list(itertools.product([0, 1], repeat=2))  # traces
    return x + len(found)


def cases():
    x = torch.randn(4)
    return [(pairs, (x,)), (orders, (x,)), (by_position, (x,))]
