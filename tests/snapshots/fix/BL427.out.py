import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()  # expect: BL427
        self.k = k

    def forward(self, x):
        return x * self.k


class Noisy(nn.Module):
    def __init__(self, k):
        super().__init__()  # expect: BL427
        self.k = int(k.argmax())  # expect: BL103

    def forward(self, x):
        return x * self.k


class Base(nn.Module):
    def __init__(self):
        super().__init__()  # expect: BL427
        self.k = 2.0


class Derived(Base):
    def __init__(self, w):
        super().__init__()  # expect: BL427
        self.w = float(w.max())  # expect: BL103

    def forward(self, x):
        return x * self.k * self.w


class Quiet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k


@torch.compile
def built_where_the_frame_breaks_in_a_loop(x):
    scale = Scale(2.0)
    for _ in range(2):
        x = scale(x)
        if x.sum() > 0:  # expect: BL201
            x = x - 1
    return x


@torch.compile
def built_with_a_breaking_constructor(x):
    x = x + 1
    return Noisy(x)(x)


@torch.compile
def built_with_a_breaking_derived_constructor(x):
    x = x + 1
    return Derived(x)(x)


@torch.compile
def built_in_straight_code(x):
    x = x + 1
    y = Quiet(2.0)(x)
    if not torch.compiler.is_compiling():
        print("done")  # expect: BL401
    return y


def cases():
    x = torch.ones(4)
    return [(built_where_the_frame_breaks_in_a_loop, (x,)), (built_with_a_breaking_constructor, (x,)),
            (built_with_a_breaking_derived_constructor, (x,)), (built_in_straight_code, (x,))]
