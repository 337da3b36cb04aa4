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


def rms(v):
    return v.pow(2).mean().sqrt()


class Controller(nn.Module):
    def __init__(self, atol, norm=rms):
        super().__init__()  # expect: BL427
        self.atol = atol
        self.norm = norm


class Term(nn.Module):
    def __init__(self, f):
        super().__init__()  # expect: BL427
        self.f = f


class Euler(nn.Module):
    def __init__(self, term):
        super().__init__()  # expect: BL427
        self.term = term


class Stepper(nn.Module):
    def __init__(self, method, controller):
        super().__init__()  # expect: BL427
        self.method = method
        self.controller = controller

    def solve(self, y):
        return y[y > 0].sum() * self.controller.atol  # expect: BL302


METHODS = {}


def register_method(name, constructor):
    METHODS[name] = constructor


register_method("euler", Euler)


@torch.compile
def solve_with_a_default_function(f, y, method="euler", controller=None):
    if controller is None:
        controller = Controller(1e-3)
    term = Term(f)
    stepper = Stepper(METHODS[method](term), controller)
    return stepper.solve(y)  # expect: BL426


class Tolerance(nn.Module):
    def __init__(self, atol, norm=rms):
        super().__init__()  # expect: BL427
        self.atol = atol
        self.norm = norm


class Offset(nn.Module):
    def __init__(self):
        super().__init__()  # expect: BL427
        self.k = 2.0


@torch.compile
def logs_after_building(y):
    offset = Offset()
    tolerance = Tolerance(1e-3)
    kept = y.nonzero()  # expect: BL301
    return y * tolerance.atol + offset.k + kept.sum()


class ExplicitController(nn.Module):
    def __init__(self, atol, norm=rms):
        super().__init__()
        self.atol = atol
        self.norm = norm


class ExplicitStepper(nn.Module):
    def __init__(self, controller):
        super().__init__()
        self.controller = controller

    def solve(self, y):
        return y[y > 0].sum() * self.controller.atol  # expect: BL302


@torch.compile
def solve_with_the_function_passed(y):
    stepper = ExplicitStepper(ExplicitController(1e-3, norm=rms))
    return stepper.solve(y)  # expect: BL426


def cases():
    x = torch.ones(4)
    return [(built_where_the_frame_breaks_in_a_loop, (x,)), (built_with_a_breaking_constructor, (x,)),
            (built_with_a_breaking_derived_constructor, (x,)), (built_in_straight_code, (x,)),
            (solve_with_a_default_function, (torch.sin, x)), (solve_with_the_function_passed, (x,)),
            (logs_after_building, (x,))]
