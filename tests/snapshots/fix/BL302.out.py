from typing import TypeAlias

import torch

# a package's alias of the tensor type, named by its dtype
BoolTensor: TypeAlias = torch.Tensor


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


@torch.compile
def distinct_thresholds(scores, target):
    """A mask padded (to the length it had before `diff`) is still one of bools, whatever the fill."""
    threshold, order = scores.sort(descending=True)
    last = torch.nn.functional.pad(threshold.diff() != 0, [0, 1], value=1.0)
    return target[order].cumsum(0)[last]  # expect: BL302


def split(x, lengths, return_mask=False):
    mask = torch.arange(x.shape[-1]) < lengths.unsqueeze(1)
    if return_mask:
        return x, mask
    return x[mask]  # expect: BL302


@torch.compile
def padded(x, lengths):
    """Unpacked into two names, the helper's result is its tuple: the mask is a mask."""
    x = x * 2
    flat, mask = split(x, lengths, return_mask=True)
    return flat[mask] + 1  # expect: BL302


@torch.compile
def unpadded(x, lengths):
    return split(x * 2, lengths) + 1


@torch.compile
def filtered(pos, neg, keep: BoolTensor | None = None):
    pos = pos * 2
    if keep is not None:
        pos = pos[keep]  # expect: BL302
    return pos.sum() + neg.sum()


class Kept:
    def __init__(self, scores):
        self.scores = scores

    def filter(self, keep: torch.Tensor):
        self.scores = self.scores[torch.as_tensor(keep, device=self.scores.device)]  # expect: BL302


@torch.compile
def kept_scores(x):
    data = Kept(x * 2)
    data.filter(x > 0)  # expect: BL426
    return data.scores


class Augment(torch.nn.Module):
    """A method stores its draws as a dict, whole; forward reads one of them back."""

    def __init__(self):
        super().__init__()
        self.params = {}

    def draw(self, x):
        self.params = {"apply": torch.rand(x.shape[0]) < 0.5, "gain": torch.rand(x.shape[0])}

    def forward(self, x):
        x = x * 2
        self.draw(x)
        return x[self.params["apply"]] * 2  # expect: BL302


def cases():
    x = torch.randn(8)
    return [(mask_select, (x,)), (named_mask, (x,)), (mask_assign, (x,)), (mask_add_in_place, (x,)),
            (mask_ratio, (x, x.round())), (masked_mean, (x,)), (mask_multiply, (x,)),
            (padded, (torch.randn(3, 5), torch.tensor([2, 5, 1]))),
            (unpadded, (torch.randn(3, 5), torch.tensor([2, 5, 1]))), (filtered, (x, x, x > 0)),
            (kept_scores, (x,)), (Augment(), (x,)), (distinct_thresholds, (x, x.round()))]
