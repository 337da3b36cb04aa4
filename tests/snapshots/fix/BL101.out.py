import torch


@torch.compile
def item_scalar(x: torch.Tensor):
    x = x * 2
    s = x.sum()  # expect: BL101
    return x + s


@torch.compile
def item_in_expression(x: torch.Tensor):
    x = x + 1
    return x * x.max()  # expect: BL101


@torch.compile
def keeps_tensor(x):
    x = x * 2
    s = x.sum()
    return x + s


def not_compiled(x):
    # Nothing compiles this function: no finding.
    return x.sum().item()


@torch.compile
def same_sizes(h: torch.Tensor, n: int):
    h = h * 2
    if n > 0:  # expect: BL101
        torch._assert_async(torch.logical_not((h != h[0]).any()), "sizes differ")
    return h + 1


def cases():
    x = torch.randn(8)
    return [(item_scalar, (x,)), (item_in_expression, (x,)), (keeps_tensor, (x,)), (same_sizes, (torch.ones(8), 3))]
