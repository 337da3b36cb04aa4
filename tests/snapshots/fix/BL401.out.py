import torch
from torch import nn


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        print("built")  # __init__ is not compiled

    def forward(self, x):
        x = self.proj(x)
        if not torch.compiler.is_compiling():
            print("forward", x.shape)  # expect: BL401
        return x + 1


class Guarded(nn.Module):
    def forward(self, x):
        x = x * 2
        if not torch.compiler.is_compiling():
            print("only in eager")
        return x + 1


def cases():
    x = torch.randn(2, 8)
    return [(Noisy(), (x,)), (Guarded(), (x,))]
