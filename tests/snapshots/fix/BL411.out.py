import bisect
import hashlib
import heapq
import threading
import uuid
import zlib

import numba
import numpy as np
import opt_einsum
import pywt
import scipy.interpolate
import scipy.spatial
import scipy.special
import torch
from pydantic import BaseModel, ConfigDict, field_validator
from torch.utils.data import DataLoader, TensorDataset


@torch.compile
def uses_scipy(x):
    x = x * 2
    g = scipy.special.gamma(3.0)  # expect: BL411
    return x * g


@torch.compile
def uses_wavelets(x):
    x = x * 2
    low = torch.tensor(pywt.Wavelet("haar").dec_lo)  # expect: BL411
    return x * low.sum()


@torch.compile
def contracts_with_opt_einsum(x):
    x = x * 2
    return opt_einsum.contract("i,i->", x, x) + 1  # expect: BL411


@torch.compile
def uses_numpy(x):
    x = x * 2
    nodes, _ = np.polynomial.legendre.leggauss(4)  # expect: BL411
    return x + torch.as_tensor(np.sum(nodes))  # np.sum has a torch._numpy counterpart: traced


@torch.compile
def numpy_without_counterpart(x):
    x = x * 2
    peak = np.unravel_index(5, (2, 3))  # expect: BL411
    seen = np.isin([1, 2, 3], [2])  # expect: BL411
    mean = np.nanmean([1.0, float("nan"), 3.0])  # expect: BL411
    y = np.interp(0.5, [0.0, 1.0], [0.0, 10.0])  # expect: BL411
    return x + peak[0] + seen.sum() + mean + y + np.linalg.norm([3.0, 4.0])  # norm has a counterpart


@torch.compile
def numpy_in_an_order(a):
    c = np.asarray(a, dtype=np.float64, order="C")  # expect: BL411
    return c.sum() + np.zeros((2, 2), order="C").sum()  # the order `torch._numpy` takes: traced


@torch.compile
def numpy_testing(a):
    np.testing.assert_allclose(a, a)  # expect: BL411
    return a * 2


@torch.compile
def numpy_class_without_counterpart(x):
    x = x * 2
    kernel = np.poly1d([0.5, 0.5]) ** 3  # expect: BL411
    return x * float(np.float32(2.0)) + torch.tensor(kernel.c, dtype=x.dtype).sum()  # float32 traces


@torch.compile
def numpy_index_iterator(x):
    x = x * 2
    total = 0
    for i, j in np.ndindex(2, 2):  # expect: BL411
        total += i * j
    return x * total


@torch.compile
def gaussian_window(x):
    x = x * 2
    y, z = np.ogrid[-2:3, -2:3]  # expect: BL411
    steps = np.r_[0:3, 5]  # expect: BL411
    h = np.exp(-(y * y + z * z) / 2.0)
    return x[np.s_[1:]].sum() + torch.from_numpy(h).float().sum() + torch.from_numpy(steps).sum()  # expect: BL411


@torch.compile
def packs_sequences(x):
    x = x * 2
    packed = torch.nn.utils.rnn.pack_sequence([x, x[:4]])  # expect: BL411
    return packed.data + 1


@torch.compile
def pads_sequences(x):
    x = x * 2
    return torch.nn.utils.rnn.pad_sequence([x, x[:4]]) + 1  # traced


@torch.compile
def legacy_variable(x):
    x = x * 2
    v = torch.autograd.Variable(x)  # expect: BL411
    return v + 1


def _double(x):
    return x * 2


_scripted_double = torch.jit.script(_double)


@torch.compile
def lowest_eigenpair(x):
    a = torch.outer(x, x) + torch.eye(x.shape[0])
    values, _ = torch.lobpcg(a, k=1)  # expect: BL411
    return x * values


@torch.compile
def scripts_at_run_time(x):
    x = x * 2
    double = torch.jit.script(_double)  # expect: BL411
    return double(x) + _scripted_double(x)  # calling a scripted function traces


@torch.compile
def traces_at_run_time(x):
    x = x * 2
    double = torch.jit.trace(_double, x)  # expect: BL411
    return double(x) + 1


@torch.compile
def checks_anomalies(x):
    x = x * 2
    torch.autograd.set_detect_anomaly(False)  # expect: BL411
    with torch.autograd.detect_anomaly(check_nan=False):  # expect: BL411
        x = x + 1
    return x * 3


@torch.compile
def looks_up_grid(x):
    x = x * 2
    i = bisect.bisect([0.0, 0.5, 1.0], 0.3)  # expect: BL411
    return x + i


@torch.compile
def keeps_a_heap(x):
    x = x * 2
    heap = [3, 1, 2]
    heapq.heapify(heap)  # expect: BL411
    return x + heap[0]


class Inputs(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    time: torch.Tensor

    @field_validator("time", mode="before")
    @classmethod
    def non_negative(cls, v):
        torch._assert_async(torch.logical_not(torch.any(v < 0)), "negative time")  # expect: BL201
        return v


@torch.compile
def validates_inputs(x):
    x = x * 2
    checked = Inputs(time=x)  # expect: BL411
    return checked.time + 1



@torch.compile
def keys_a_cache(x):
    x = x * 2
    key = hashlib.sha256(b"shape").hexdigest()  # expect: BL411
    check = zlib.crc32(b"shape")  # expect: BL411
    run = uuid.uuid4()  # expect: BL411
    thread = threading.get_ident()  # expect: BL411
    return x + len(key) + (check > 0) + (run.version == 4) + (thread > 0)


@torch.compile
def boxes_per_image(x):
    x = x * 2
    boxes = [np.ones((2, 4)), np.ones((3, 4))]
    count = len(np.array(boxes, dtype=object))  # expect: BL411
    plain = np.array([[1.0, 2.0]], dtype=np.float32)  # a numeric dtype traces
    return x + plain.sum() + count


@torch.compile
def makes_a_lock(x):
    x = x * 2
    guard = threading.Lock()  # expect: BL411
    return x + 1 if guard is not None else x


_ops = None  # a C++ extension, built on first use


def _build_ops():
    global _ops
    from torch.utils.cpp_extension import load_inline

    _ops = load_inline(name="breaklint_fixture_ops", functions=["scale"],
                       cpp_sources="torch::Tensor scale(torch::Tensor x, double s) { return x * s; }")


@torch.compile
def calls_an_extension(x):
    x = x * 2
    return _ops.scale(x, 2.0) + 1  # expect: BL411


@torch.compile
def wraps_a_dataset(x):
    x = x * 2
    dataset = TensorDataset(x)  # expect: BL411
    return x + 1 if dataset is not None else x


@torch.compile
def makes_a_loader(x):
    x = x * 2
    loader = DataLoader([1, 2], batch_size=1)  # expect: BL411
    return x + 1 if loader is not None else x


class Entmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = Entmoid._forward(x)  # expect: BL411
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @torch.jit.script
    def _forward(x):
        return torch.sigmoid(x * 2)

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * (1 - y) * 2


@torch.jit.script
def _scripted_twice(x):
    return x * 2


@torch.compile
def applies_a_scripted_function(x):
    y = Entmoid.apply(x * 2)
    return y + _scripted_twice(x)  # a script function kept at module level: dynamo inlines it


class NearestAnchor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.anchors = scipy.spatial.cKDTree(np.arange(8.0).reshape(4, 2))
        self.curve = scipy.interpolate.interp1d(np.arange(5.0), np.arange(5.0) ** 2)
        self.scale = torch.nn.Linear(2, 2)

    def forward(self, x):
        distance = self.anchors.query(np.zeros(2))[0]  # expect: BL411
        return self.scale(x) * float(distance)


class CurveWeight(NearestAnchor):
    def forward(self, x):
        return self.weigh(self.scale(x))

    def weigh(self, x):
        return x * float(self.curve(2.5))  # expect: BL411


@numba.njit
def _harmonic(n):
    total = 0.0
    for k in range(1, n + 1):
        total += 1.0 / k
    return total


@torch.compile
def scales_with_numba(x):
    x = x * 2
    return x * _harmonic(4)  # expect: BL411


def cases():
    _build_ops()
    _harmonic(4)  # numba compiles it at its first call, outside dynamo
    x = torch.randn(8)
    return [(uses_scipy, (x,)), (uses_wavelets, (x,)), (contracts_with_opt_einsum, (x,)), (uses_numpy, (x,)), (numpy_without_counterpart, (x,)), (numpy_class_without_counterpart, (x,)), (numpy_in_an_order, (np.ones(3),)),
            (numpy_testing, (np.ones(3),)), (numpy_index_iterator, (x,)),
            (gaussian_window, (x,)), (boxes_per_image, (x,)), (makes_a_lock, (x,)), (packs_sequences, (x,)), (pads_sequences, (x,)),
            (legacy_variable, (x,)), (lowest_eigenpair, (x,)), (scripts_at_run_time, (x,)), (traces_at_run_time, (x,)), (checks_anomalies, (x,)),
            (looks_up_grid, (x,)),
            (keeps_a_heap, (x,)), (validates_inputs, (x.abs(),)),
            (keys_a_cache, (x,)), (calls_an_extension, (x,)), (wraps_a_dataset, (x,)), (makes_a_loader, (x,)),
            (applies_a_scripted_function, (x.clone().requires_grad_(),)),
            (NearestAnchor(), (torch.randn(3, 2),)), (CurveWeight(), (torch.randn(3, 2),)), (scales_with_numba, (x,))]
