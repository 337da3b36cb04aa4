"""e2cnn, a library the analysis was never shown (in neither half of the harness, not reserved): its
E(2)-equivariant layers over the rotation and dihedral groups of order 4 and 8 (steerable convolutions,
plain, strided and transposed, and their differential-operator form; pointwise, norm, gated and
vector-field nonlinearities; inner, norm and group-norm batch norms; pooling over the plane (max,
average, antialiased, adaptive, by norm) and over the group; field and pointwise dropout; upsampling;
masking; reshuffling, disentangling, the identity and a whole sequential network), on
`GeometricTensor`s of a few field types, in training and evaluation mode, under dynamo against the static
pass on the same tree.

Run it where torch and e2cnn are installed together (here: `pip install torch==2.14.1 e2cnn==0.2.3`),
from the repository root:

    python bench/unseen_e2cnn.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_e2cnn.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import e2cnn  # noqa: E402
from e2cnn import gspaces, nn  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(e2cnn.__file__).resolve().parent
ENTRY_POINTS = ["e2cnn.nn.modules.equivariant_module.EquivariantModule.forward"]


def _layers(space):
    """(name, what builds the layer, its input field type) for the layers of one group."""
    regular = nn.FieldType(space, 2 * [space.regular_repr])
    trivial = nn.FieldType(space, 3 * [space.trivial_repr])
    irreps = [r for r in space.irreps.values() if r.size > 1][:1]
    vector = nn.FieldType(space, 2 * irreps)
    gated_in = nn.FieldType(space, 2 * irreps + 2 * [space.trivial_repr])
    gates = ["gated", "gated", "gate", "gate"]
    yield "R2Conv", lambda: nn.R2Conv(trivial, regular, kernel_size=3, padding=1), trivial
    yield "R2Conv.regular", lambda: nn.R2Conv(regular, regular, kernel_size=5, padding=2, stride=2), regular
    yield "R2ConvTransposed", lambda: nn.R2ConvTransposed(regular, trivial, kernel_size=3), regular
    yield "R2Diffop", lambda: nn.R2Diffop(trivial, regular, kernel_size=3, padding=1), trivial
    yield "ReLU", lambda: nn.ReLU(regular), regular
    yield "ELU", lambda: nn.ELU(regular), regular
    yield "PointwiseNonLinearity", lambda: nn.PointwiseNonLinearity(regular, "p_sigmoid"), regular
    yield "NormNonLinearity", lambda: nn.NormNonLinearity(vector), vector
    yield "NormNonLinearity.squash", lambda: nn.NormNonLinearity(vector, "squash", bias=False), vector
    yield "GatedNonLinearity1", lambda: nn.GatedNonLinearity1(gated_in, gates=gates), gated_in
    yield "VectorFieldNonLinearity", lambda: nn.VectorFieldNonLinearity(regular), regular
    yield "InnerBatchNorm", lambda: nn.InnerBatchNorm(regular), regular
    yield "NormBatchNorm", lambda: nn.NormBatchNorm(vector), vector
    yield "GNormBatchNorm", lambda: nn.GNormBatchNorm(regular), regular
    yield "PointwiseMaxPool", lambda: nn.PointwiseMaxPool(regular, 2), regular
    yield "PointwiseMaxPoolAntialiased", lambda: nn.PointwiseMaxPoolAntialiased(regular, 3, stride=2), regular
    yield "PointwiseAvgPool", lambda: nn.PointwiseAvgPool(regular, 2), regular
    yield "PointwiseAvgPoolAntialiased", lambda: nn.PointwiseAvgPoolAntialiased(regular, 0.5, stride=2), regular
    yield "PointwiseAdaptiveAvgPool", lambda: nn.PointwiseAdaptiveAvgPool(regular, 2), regular
    yield "PointwiseAdaptiveMaxPool", lambda: nn.PointwiseAdaptiveMaxPool(regular, 2), regular
    yield "NormMaxPool", lambda: nn.NormMaxPool(vector, 2), vector
    yield "GroupPooling", lambda: nn.GroupPooling(regular), regular
    yield "NormPool", lambda: nn.NormPool(vector), vector
    yield "FieldDropout", lambda: nn.FieldDropout(regular, 0.3), regular
    yield "PointwiseDropout", lambda: nn.PointwiseDropout(regular, 0.3), regular
    yield "R2Upsampling", lambda: nn.R2Upsampling(regular, 2), regular
    yield "MaskModule", lambda: nn.MaskModule(regular, 9, margin=1), regular
    yield "ReshuffleModule", lambda: nn.ReshuffleModule(regular, [1, 0]), regular
    yield "DisentangleModule", lambda: nn.DisentangleModule(regular), regular
    yield "IdentityModule", lambda: nn.IdentityModule(regular), regular
    yield "SequentialModule", lambda: nn.SequentialModule(nn.R2Conv(trivial, regular, 3, padding=1), nn.InnerBatchNorm(regular),
                                                  nn.ReLU(regular), nn.PointwiseMaxPool(regular, 2),
                                                  nn.GroupPooling(regular)), trivial


def cases():
    torch.manual_seed(0)
    out = []
    for group, space in (("rot4", gspaces.Rot2dOnR2(N=4)), ("flip_rot4", gspaces.FlipRot2dOnR2(N=4))):
        for name, build, field in _layers(space):
            try:
                layer = build()
            except Exception as e:  # noqa: BLE001 - a layer the group does not take
                print("left out:", group, name, type(e).__name__, str(e)[:100])
                continue
            x = nn.GeometricTensor(torch.randn(2, field.size, 9, 9), field)
            for training in (True, False):
                out.append((f"{group}.{name}@{'train' if training else 'eval'}",
                            lambda t, m=layer, f=field, tr=training: m.train(tr)(nn.GeometricTensor(t, f)).tensor,
                            (x.tensor,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"e2cnn {version('e2cnn')}")
