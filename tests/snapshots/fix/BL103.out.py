import math

import numpy as np
import torch


@torch.compile
def float_of_tensor(x: torch.Tensor):
    x = x * 2
    return x * x.sum().float()  # expect: BL103


@torch.compile
def int_of_tensor(x):
    x = x * 2
    n = int(x.max())  # expect: BL103
    return x + n


@torch.compile
def math_of_tensor(x: torch.Tensor):
    x = x * 2
    return x + torch.sqrt(x.abs().sum())  # expect: BL103


@torch.compile
def cast_of_shape(x):
    x = x * 2
    scale = math.sqrt(x.shape[-1])
    return x / scale + float(x.shape[0])


@torch.compile
def slice_to_tensor(x):
    x = x * 2
    count = (x > 0).long().sum()
    return x[: count + 1]  # expect: BL103


@torch.compile
def slice_to_shape(x):
    x = x * 2
    n = x.shape[0] // 2
    return x[:n] + x[n:]


@torch.compile
def closest_to_zero(x: torch.Tensor):
    x = x * 2
    i = torch.argmin(x.abs())
    return x[i.unsqueeze(0)].squeeze(0) + 1  # expect: BL103


@torch.compile
def best_per_column(x):
    x = (x * 2).view(2, 4)
    i = x.argmax(dim=0)
    return x[i] + 1


@torch.compile
def best_of_a_row(x):
    x = (x * 2).view(2, 4)
    i = x[0].argmax()
    return x[1, i] + x[:, i].sum()  # expect: BL103


@torch.compile
def count_beside_a_batch(x):
    x = (x * 2).view(2, 4)
    n = (x[0] > 0).sum()
    return x[..., n - 1]  # expect: BL103


@torch.compile
def best_of_a_row_kept_a_tensor(x):
    x = (x * 2).view(2, 4)
    i = x[0].argmax()
    return x[1, i.unsqueeze(0)].squeeze(-1) + 1



@torch.compile
def sum_over_positions(x):
    x = x * 2
    total = x[0]
    for i in torch.arange(1, 4):
        total = total + x[i]  # expect: BL103
    return total


@torch.compile
def zero_the_best(x):
    x = x * 2
    i = x.argmax()
    x[i] = 0.0  # expect: BL103
    return x + 1


@torch.compile
def clear_a_found_column(x):
    x = (x * 2).view(2, 4)
    found = torch.nonzero(x.abs() + 1 > 0)  # expect: BL301
    j = found[0, 1]
    x[0, j] = 0.0  # expect: BL103
    return x + 1


@torch.compile
def weigh_in_order(x):
    x = x * 2
    order = torch.arange(4)
    for k, i in enumerate(order):
        x = x + x[i] * k  # expect: BL103
    return x


@torch.compile
def gather_in_a_comprehension(x):
    x = x * 2
    return torch.stack([x[i] * 2 for i in torch.arange(3)])  # expect: BL103


@torch.compile
def clear_kept_a_tensor(x):
    x = x * 2
    i = x.argmax()
    x[i.unsqueeze(0)] = 0.0
    return x + 1


@torch.compile
def first_of_a_shuffle(x):
    x = x * 2
    perm = torch.randperm(x.shape[0])
    return x[perm[0]]  # expect: BL103


@torch.compile
def smallest_in_order(x):
    x = (x * 2).view(2, 4)
    order = x.flatten().argsort()
    out = x.flatten()
    for k in range(2):
        out = out + out[order[k]]  # expect: BL103
    return out


@torch.compile
def gather_by_rows(x):
    x = (x * 2).view(2, 4)
    index = torch.tensor([[0, 1], [1, 0]])
    picked = torch.arange(4)
    return x[index[0]] + x[:, picked[1:3]].sum()


@torch.compile
def weight_of_the_best(x):
    x = x * 2
    weights = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
    return x * weights[x.argmax()]  # expect: BL103


@torch.compile
def covariance(x):
    x = (x * 2).view(2, 4)
    return torch.cov(x) + x.corrcoef()  # expect: BL103


@torch.compile
def covariance_kept(x):
    x = (x * 2).view(2, 4)
    centered = x - x.mean(-1, keepdim=True)
    return centered @ centered.T / (x.shape[-1] - 1)

@torch.compile
def finite_only(x):
    x = x * 2
    torch._assert_async(torch.isfinite(x).all(), "x must be finite")  # expect: BL103
    return x + 1


@torch.compile
def redraw_until_shuffled(n: int):
    identity = torch.arange(n)
    perm = torch.randperm(n)
    tries = 0
    while torch.equal(perm, identity) and tries < 3:  # expect: BL103
        perm = torch.randperm(n)
        tries += 1
    return perm * 2


@torch.compile
def same_as(x, y):
    x = x * 2
    return x + 1 if x.equal(y) else x  # expect: BL103


@torch.compile
def converged(x, y):
    x = x * 2
    done = torch.allclose(x, y, atol=1e-4)  # expect: BL103
    return x + done


@torch.compile
def close_to(x, y):
    x = x * 2
    done = x.allclose(y)  # expect: BL103
    return x + done


@torch.compile
def symmetric(a):
    same = np.allclose(a, a.T, atol=1e-10)  # expect: BL103
    return a * 2 if same else a  # a Python bool: no branch on a tensor


@torch.compile
def unchanged(x, y):
    return np.array_equal(x, y), x + 1  # expect: BL103


def crop(mask, box):
    return mask[box[1]:box[3], box[0]:box[2]]  # expect: BL103


def head(x, n):
    return x[:n]


@torch.compile
def crops(mask, scores):
    boxes = torch.round(scores * 4).long()
    out = [head(mask, 2)]
    for box in boxes:
        out.append(crop(mask, box))
    return out


@torch.compile
def repeat_by_count(x):
    x = x * 2
    n = (x > 0).sum()
    for _ in range(n):  # expect: BL103
        x = x + 1
    return x


@torch.compile
def repeat_by_shape(x):
    x = x * 2
    for _ in range(x.shape[0] // 4):
        x = x + 1
    return x


@torch.compile
def width_by_numpy(x):
    x = (x * 2).view(2, 4)
    width = int(np.prod(x.shape[1:]))  # expect: BL103
    return x.reshape(-1, width) + np.sqrt(x.shape[1])


@torch.compile
def offset_by_numpy(x):
    """An array NumPy makes from Python numbers is a tensor to dynamo: an element read back as a number is
    its value (stepping through the array's elements with tensor arithmetic traces)."""
    x = x * 2
    for k in np.arange(2):
        x = x + k
    grid = np.linspace(0.0, 1.0, 5)
    return x + float(grid[1])  # expect: BL103


@torch.compile
def channels_last_by_numpy(x):
    """Dimensions NumPy counts are tensors to dynamo: permuting by them reads their values."""
    x = (x * 2).view(2, 2, 2)
    order = list(np.arange(x.dim()))
    return x.permute(*([0, order[-1]] + order[1:-1])) + 1  # expect: BL103


@torch.compile
def channels_last_by_range(x):
    x = (x * 2).view(2, 2, 2)
    order = list(range(x.dim()))
    return x.permute(0, order[-1], 1) + 1


@torch.compile
def sum_along_the_longest(x):
    x = x.view(2, 4) * 2
    axis = torch.tensor(x.shape).argmax()
    return x.sum(dim=axis)  # expect: BL103


@torch.compile
def nonzero_test(x):
    x = x * 2
    return x + 1 if x.sum().is_nonzero() else x  # expect: BL103


@torch.compile
def last_positive(x):
    x = x * 2
    last = (x > 0).sum() - 1
    return x[last] + 1  # expect: BL103


@torch.compile
def add_scaled(x):
    x = x * 2
    rate = x.abs().mean()
    return torch.add(x, x.sin(), alpha=rate)  # expect: BL103


@torch.compile
def add_scaled_method(x):
    x = x * 2
    rate = x.abs().mean()
    return x.add(x.sin(), alpha=rate)  # expect: BL103


@torch.compile
def sub_scaled(x):
    x = x * 2
    return torch.sub(x, x.cos(), alpha=x.std())  # expect: BL103


@torch.compile
def rsub_scaled(x):
    x = x * 2
    return torch.rsub(x, x.cos(), alpha=x.std())  # expect: BL103


@torch.compile
def addcmul_scaled(x):
    x = x * 2
    return torch.addcmul(x, x, x.tanh(), value=x.amax())  # expect: BL103


@torch.compile
def addmm_scaled(x):
    m = (x * 2).view(2, 4)
    return torch.addmm(m, m, m.T.mm(m)[:4, :4], beta=m.mean())  # expect: BL103


@torch.compile
def addr_scaled(x):
    v = x * 2
    return torch.addr(v.outer(v), v, v, alpha=v.mean())  # expect: BL103


@torch.compile
def addr_scaled_method(x):
    v = x * 2
    return v.outer(v).addr(v, v, beta=v.std())  # expect: BL103


@torch.compile
def addmv_scaled(x):
    v = x * 2
    return torch.addmv(v, v.outer(v), v, beta=v.std())  # expect: BL103


@torch.compile
def baddbmm_scaled(x):
    m = (x * 2).view(1, 2, 4)
    return torch.baddbmm(m, m, m.transpose(1, 2).bmm(m), alpha=m.mean())  # expect: BL103


@torch.compile
def addbmm_scaled(x):
    m = (x * 2).view(1, 2, 4)
    return torch.addbmm(m[0], m, m.transpose(1, 2).bmm(m), beta=m.amax())  # expect: BL103


@torch.compile
def leaky_by_tensor(x):
    x = x * 2
    slope = torch.sigmoid(x.mean())
    return torch.nn.functional.leaky_relu(x, slope)  # expect: BL103


@torch.compile
def elu_by_tensor(x):
    x = x * 2
    return torch.nn.functional.elu(x, alpha=x.abs().mean())  # expect: BL103


@torch.compile
def hardtanh_by_tensor(x):
    x = x * 2
    bound = x.abs().mean()
    return torch.nn.functional.hardtanh(x, -bound, bound)  # expect: BL103


@torch.compile
def add_scaled_by_number(x):
    x = x * 2
    return torch.add(x, x.sin(), alpha=0.5) + torch.nn.functional.leaky_relu(x, 0.2)


@torch.compile
def anchors_by_stride(x, strides):
    out = []
    for i in range(len(strides)):
        stride = strides[i]
        out.append(x.new_full((4, 1), stride))  # expect: BL103
    return torch.cat(out)[:4] + torch.full((4, 1), strides[0])


@torch.compile
def filled_like_by_tensor(x):
    x = x * 2
    return torch.full_like(x, x.mean())  # expect: BL103


@torch.compile
def padded_by_tensor(x):
    x = x * 2
    return torch.nn.functional.pad(x, (1, 1), value=x.min())  # expect: BL103


@torch.compile
def threshold_by_tensor(x):
    x = x * 2
    return torch.nn.functional.threshold(x, x.mean(), 0.0)  # expect: BL103


class Tolerance(torch.nn.Module):
    def __init__(self, atol: float, rtol: float):
        super().__init__()
        self.register_buffer("atol", torch.tensor(atol))
        self.register_buffer("rtol", torch.tensor(rtol))

    def forward(self, y):
        return torch.add(self.atol, y.abs() * self.rtol)  # expect: BL103


class RandomBranch(torch.nn.Module):
    """A module of a `ModuleList` picked by a tensor drawn in `forward`: the list reads it as a Python
    int; a Python int picks one without a break."""

    def __init__(self):
        super().__init__()
        self.branches = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        self.picked = torch.randint(0, 3, (1,))
        y = self.branches[self.picked](x)  # expect: BL103
        for k in range(3):
            y = y + self.branches[k](x)
        return y


class RandomScale(torch.nn.Module):
    """... and an element of a Python list kept on the module."""

    def __init__(self):
        super().__init__()
        self.scales = []
        for factor in (0.5, 1.0, 2.0):
            self.scales.append(torch.nn.Linear(8, 8))

    def forward(self, x):
        k = torch.randint(0, 3, (1,))
        return self.scales[k](x)  # expect: BL103


def cases():
    x = torch.randn(8)
    return [(float_of_tensor, (x,)), (int_of_tensor, (x,)), (math_of_tensor, (x,)), (cast_of_shape, (x,)),
            (slice_to_tensor, (x,)), (slice_to_shape, (x,)),
            (closest_to_zero, (x,)), (best_per_column, (x,)), (best_of_a_row, (x,)), (count_beside_a_batch, (x,)),
            (best_of_a_row_kept_a_tensor, (x,)), (sum_over_positions, (x,)), (first_of_a_shuffle, (x,)),
            (zero_the_best, (x,)), (clear_a_found_column, (x,)), (weigh_in_order, (x,)),
            (gather_in_a_comprehension, (x,)),
            (clear_kept_a_tensor, (x,)), (smallest_in_order, (x,)), (gather_by_rows, (x,)), (weight_of_the_best, (x,)), (covariance, (x,)), (covariance_kept, (x,)), (finite_only, (x,)),
            (redraw_until_shuffled, (6,)), (same_as, (x, x * 2)), (converged, (x, x * 2)), (close_to, (x, x * 2)),
            (symmetric, (np.eye(3),)), (unchanged, (x, x * 2)),
            (crops, (torch.randn(8, 8), torch.rand(3, 4))), (repeat_by_count, (x,)),
            (repeat_by_shape, (x,)), (width_by_numpy, (x,)), (offset_by_numpy, (x,)),
            (channels_last_by_numpy, (x,)), (channels_last_by_range, (x,)), (sum_along_the_longest, (x,)), (nonzero_test, (x,)),
            (last_positive, (x,)), (add_scaled, (x,)), (add_scaled_method, (x,)), (sub_scaled, (x,)),
            (rsub_scaled, (x,)), (addcmul_scaled, (x,)), (addmm_scaled, (x,)), (addr_scaled, (x,)),
            (addr_scaled_method, (x,)), (addmv_scaled, (x,)), (baddbmm_scaled, (x,)), (addbmm_scaled, (x,)),
            (leaky_by_tensor, (x,)),
            (elu_by_tensor, (x,)), (hardtanh_by_tensor, (x,)), (add_scaled_by_number, (x,)),
            (anchors_by_stride, (x, torch.tensor([8.0, 16.0]))), (filled_like_by_tensor, (x,)),
            (padded_by_tensor, (x,)), (threshold_by_tensor, (x,)),
            (torch.compile(Tolerance(1e-6, 1e-3)), (x,)), (torch.compile(RandomBranch()), (x,)),
            (torch.compile(RandomScale()), (x,))]
