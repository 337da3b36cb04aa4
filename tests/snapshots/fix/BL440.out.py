import torch
import torch.nn.functional as F
from torch import nn


@torch.compile
def scores(x, groups):
    for g in groups:
        if g.sum() > 0:  # expect: BL201
            x = x + 1
    relu = [torch.relu(g) for g in groups]  # expect: BL440
    by_name = {k: F.relu(v) for k, v in {"a": x}.items()}  # expect: BL440
    paired = {torch.numel(a) for a, b in zip(groups, groups)}  # expect: BL440
    kept = [g * 2 for g in groups]  # (names no torch module and captures no tensor: dynamo skips its frame)
    rows = [torch.relu(r) for r in tuple(groups)]  # (a tuple's iterator dynamo steps)
    steps = [torch.relu(x) * i for i in range(2)]  # (and a range's)
    total = sum(torch.relu(g).sum() for g in groups)  # (a generator's frame dynamo never compiles)
    return x, relu, by_name, sorted(paired), kept, rows, steps, total


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, xs):
        scale = 1.0
        for x in xs:
            if x.max() > 10:  # expect: BL201
                scale = 0.5
        return [self.proj(x) * scale for x in xs]  # expect: BL440


@torch.compile
def straight(x, groups):
    if not torch.compiler.is_compiling():
        print("resumed after this break")  # expect: BL401
    return [torch.relu(g) for g in groups]  # (dynamo traces the function on, and inlines the comprehension)


@torch.compile
def first_large(x, groups):
    for g in groups:
        if g.sum() > 100:  # expect: BL201
            return g
    # (past the break the code returns before it jumps back: dynamo finds no loop, resumes after the
    # break, and inlines this comprehension)
    return [torch.relu(g) for g in groups]


@torch.compile
def gathered(x, names):
    parts = [x, x * 2]
    counts = [1, 2]
    for n in names:
        if x.sum() > len(n):  # expect: BL201
            x = x + 1
    # (a captured list of tensors makes dynamo compile the frame, as a captured tensor does; a list of
    # Python numbers does not)
    picked = [len(n) for n in names if len(parts) > 1]  # expect: BL440
    by_name = {n: len(counts) for n in names}
    return x, picked, by_name


def cases():
    x = torch.randn(4)
    groups = [torch.randn(4), torch.randn(4)]
    return [(scores, (x, groups)), (Heads(), ([torch.randn(2, 4), torch.randn(2, 4)],)),
            (straight, (x, groups)), (first_large, (x, groups)), (gathered, (x, ["a", "bb"]))]
