import torch


@torch.compile
def ssim_constants(x, data_range):
    x = x * 2
    c1 = (0.01 * data_range) ** (2)  # expect: BL415
    return x + c1


@torch.compile
def power_operator(x, data_range):
    x = x * 2
    c1 = (0.01 * data_range) ** 2
    c2 = pow(3, 2)
    return x + c1 + c2


def cases():
    x = torch.rand(8)
    r = torch.tensor(1.0)
    return [(ssim_constants, (x, r)), (power_operator, (x, r))]
