"""torch-harmonics, a library the analysis was never shown (in neither half of the harness, not reserved):
its spherical harmonic transforms (scalar and vector, forward and inverse, on equiangular and
Legendre-Gauss grids), the discrete-continuous convolutions and their transposes, spherical attention
(global and neighbourhood), resampling, quadrature and the spectral convolution, then the models of its
examples (spherical Fourier neural operator, local spherical neural operator, spherical transformer,
U-Net and Segformer) in eval mode and trained one step with the examples' spherical losses, and the
examples' metrics, under dynamo against the static pass on the same tree.

Run it where torch and torch-harmonics are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps torch-harmonics==0.9.3`), from the repository root:

    python bench/unseen_torch_harmonics.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torch_harmonics.txt.
"""

import warnings
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torch_harmonics as th
from torch_harmonics.examples import losses, metrics
from torch_harmonics.examples.models import lsno, s2segformer, s2transformer, s2unet, sfno

warnings.filterwarnings("ignore")
ROOT = Path(th.__file__).resolve().parent
NLAT, NLON = 16, 32
LAYERS = ["RealSHT", "InverseRealSHT", "RealVectorSHT", "InverseRealVectorSHT", "DiscreteContinuousConvS2",
          "DiscreteContinuousConvTransposeS2", "AttentionS2", "NeighborhoodAttentionS2", "ResampleS2",
          "QuadratureS2", "SpectralConvS2"]
MODELS = {"sfno": (sfno, "SphericalFourierNeuralOperator"), "lsno": (lsno, "LocalSphericalNeuralOperator"),
          "s2transformer": (s2transformer, "SphericalTransformer"), "s2unet": (s2unet, "SphericalUNet"),
          "s2segformer": (s2segformer, "SphericalSegformer")}
ENTRY_POINTS = [f"torch_harmonics.{name}" for name in LAYERS] + [
    f"torch_harmonics.examples.models.{module}.{cls}" for module, (_, cls) in MODELS.items()] + [
    f"torch_harmonics.examples.losses.{name}" for name in ("DiceLossS2", "CrossEntropyLossS2", "FocalLossS2",
                                                          "SquaredL2LossS2", "L1LossS2", "L2LossS2", "W11LossS2",
                                                          "NormalLossS2")] + [
    "torch_harmonics.examples.metrics.IntersectionOverUnionS2", "torch_harmonics.examples.metrics.AccuracyS2"]


def _layers():
    x, shape = torch.randn(2, 4, NLAT, NLON), (NLAT, NLON)
    out = []
    for grid in ("equiangular", "legendre-gauss"):
        sht, isht = th.RealSHT(NLAT, NLON, grid=grid), th.InverseRealSHT(NLAT, NLON, grid=grid)
        out += [(f"sht_{grid}", sht, (x,)), (f"isht_{grid}", isht, (sht(x),))]
    vsht, ivsht = th.RealVectorSHT(NLAT, NLON), th.InverseRealVectorSHT(NLAT, NLON)
    vector = torch.randn(2, 2, 2, NLAT, NLON)
    out += [("vector_sht", vsht, (vector,)), ("inverse_vector_sht", ivsht, (vsht(vector),))]
    out.append(("disco", th.DiscreteContinuousConvS2(4, 6, shape, (8, 16), kernel_shape=3), (x,)))
    out.append(("disco_transpose", th.DiscreteContinuousConvTransposeS2(4, 6, (8, 16), shape, kernel_shape=3),
                (torch.randn(2, 4, 8, 16),)))
    out.append(("attention", th.AttentionS2(4, 2, shape, shape), (x, x, x)))
    out.append(("neighborhood_attention", th.NeighborhoodAttentionS2(4, shape, shape), (x, x, x)))
    out.append(("resample", th.ResampleS2(NLAT, NLON, 8, 16), (x,)))
    out.append(("quadrature", th.QuadratureS2(shape), (x,)))
    out.append(("spectral_conv", th.SpectralConvS2(shape, shape, 4, 4), (x,)))
    return out


def _step(model, loss):
    def step(x, y):
        model.zero_grad()
        value = loss(model(x), y)
        value.backward()
        return value
    return step


def _models():
    x, y = torch.randn(2, 3, NLAT, NLON), torch.randn(2, 3, NLAT, NLON)
    labels = torch.randint(0, 3, (2, NLAT, NLON))
    small = {"img_size": (NLAT, NLON), "embed_dim": 16, "num_layers": 2}
    out = []
    for name, (module, cls) in MODELS.items():
        kw = dict(small) if name in ("sfno", "lsno", "s2transformer") else {
            "img_size": (NLAT, NLON), "embed_dims": [8, 16], "depths": [1, 1]}
        if name == "s2segformer":
            kw["heads"] = [1, 2]
        try:
            model = getattr(module, cls)(**kw)
        except Exception as e:  # noqa: BLE001 - an example model these sizes do not fit
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        out.append((f"{name}@eval", model.eval(), (x,)))
        train = getattr(module, cls)(**kw).train()
        if name in ("s2unet", "s2segformer"):
            out.append((f"{name}_dice@train", _step(train, losses.DiceLossS2(NLAT, NLON)), (x, labels)))
        else:
            out.append((f"{name}_l2@train", _step(train, losses.L2LossS2(NLAT, NLON)), (x, y)))
    logits = torch.randn(2, 3, NLAT, NLON)
    for loss in (losses.DiceLossS2, losses.CrossEntropyLossS2, losses.FocalLossS2):
        out.append((loss.__name__, loss(NLAT, NLON), (logits, labels)))
    for loss in (losses.SquaredL2LossS2, losses.L1LossS2, losses.L2LossS2, losses.W11LossS2, losses.NormalLossS2):
        out.append((loss.__name__, loss(NLAT, NLON), (x, y)))
    for metric in (metrics.IntersectionOverUnionS2, metrics.AccuracyS2):
        out.append((metric.__name__, metric(NLAT, NLON), (logits, labels)))
    return out


def cases():
    torch.manual_seed(0)
    return runnable(_layers() + _models())


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torch-harmonics {th.__version__}")
