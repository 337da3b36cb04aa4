import torch


@torch.compile
def mask_select(x):
    x = x * 2
    y = x[x > 0]  # expect: BL302
    return y + 1


@torch.compile
def named_mask(x):
    x = x * 2
    valid = torch.isfinite(x) & (x != 0)
    y = x[valid]  # expect: BL302
    return y + 1


@torch.compile
def mask_assign(x):
    x = x * 2
    x[x > 0] = 0
    return x + 1


@torch.compile
def mask_add_in_place(x: torch.Tensor):
    x = x * 2
    x.copy_(torch.where(x > 0, x + 1, x))  # expect: BL302
    return x + 1


@torch.compile
def mask_ratio(num: torch.Tensor, den: torch.Tensor):
    out = torch.zeros_like(num)
    valid = den != 0
    out.copy_(torch.where(valid, 1 - num / den, out))  # expect: BL302
    return out


@torch.compile
def masked_mean(x: torch.Tensor):
    x = x * 2
    mean = (torch.where(x > 0, x, 0).sum() / (x > 0).sum())  # expect: BL302
    return mean + torch.where(x > 0, x, 0).sum()  # expect: BL302


@torch.compile
def mask_multiply(x):
    x = x * 2
    mask = x > 0
    return torch.where(mask, x, 0) + x * mask


def cases():
    x = torch.randn(8)
    return [(mask_select, (x,)), (named_mask, (x,)), (mask_assign, (x,)), (mask_add_in_place, (x,)),
            (mask_ratio, (x, x.round())), (masked_mean, (x,)), (mask_multiply, (x,))]
