import torch


@torch.compile
def negative_mask(x):
    x = x * 2
    return (x < 0).type(torch.Tensor) + 1  # expect: BL425


@torch.compile
def negative_mask_of_annotated(x: torch.Tensor):
    mask = (x * 2) < 0
    return mask.to(torch.get_default_dtype()) * 3  # expect: BL425


@torch.compile
def negative_mask_legacy_class(x):
    x = x * 2
    return (x < 0).type(torch.FloatTensor) + (x > 1).type(torch.float32) + (x > 2).type_as(x)


class Leaky(torch.nn.Module):
    def forward(self, x):
        mask = (x < 0).type(torch.Tensor)  # expect: BL425
        return x * (1 - mask) + 0.1 * x * mask


def cases():
    x = torch.randn(8)
    return [(negative_mask, (x,)), (negative_mask_of_annotated, (x,)), (negative_mask_legacy_class, (x,)),
            (torch.compile(Leaky()), (x,))]
