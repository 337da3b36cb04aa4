"""MACE, a library the analysis was never shown (in neither half of the harness, not reserved): its
equivariant interatomic potentials (MACE and the scale-shift form, with residual and non-residual
interaction blocks, Bessel and Gaussian radial bases), run on a batch of two small molecules as the
library batches them, in training and evaluation mode, energies with forces (a derivative of the energy
taken inside the model), energies alone, and virials and stress of a periodic cell; and the weighted
losses of energies, forces, stress and virials, each compiled as a user compiles the model or the loss,
under dynamo against the static pass on the same tree.

Run it where torch and MACE are installed together (here: `pip install torch==2.14.1
mace-torch==0.3.16 e3nn==0.4.4` with MACE's own requirements), from the repository root:

    python bench/unseen_mace.py [--src OTHER_TREE/src] [--sites FILE]

e3nn 0.4.4 loads a file of its constants with `torch.load`, which torch 2.6 and later refuse without
`weights_only=False`: the script sets `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1` for that file, its own.
`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_mace.txt.
"""

import os
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

os.environ.setdefault("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")  # e3nn 0.4.4's constants (see above)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from e3nn import o3  # noqa: E402

import mace  # noqa: E402
from mace import data, modules, tools  # noqa: E402
from mace.tools import torch_geometric  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(mace.__file__).resolve().parent
ENTRY_POINTS = ["mace.modules.models.MACE.forward", "mace.modules.models.ScaleShiftMACE.forward",
                *(f"mace.modules.loss.{name}.forward" for name in (
                    "WeightedEnergyForcesLoss", "WeightedForcesLoss", "WeightedEnergyForcesStressLoss",
                    "WeightedHuberEnergyForcesStressLoss", "WeightedEnergyForcesVirialsLoss",
                    "WeightedEnergyForcesL1L2Loss", "UniversalLoss"))]
Z = tools.AtomicNumberTable([1, 8])


def _config(shift: float, cell: bool = False) -> data.Configuration:
    positions = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, shift]])
    return data.Configuration(
        atomic_numbers=np.array([8, 1, 1]), positions=positions,
        properties={"forces": np.ones((3, 3)) * 0.1, "energy": -1.5, "stress": np.zeros(6),
                    "virials": np.zeros((3, 3))},
        property_weights={"forces": 1.0, "energy": 1.0, "stress": 1.0, "virials": 1.0},
        cell=np.eye(3) * 5.0 if cell else None, pbc=(True, True, True) if cell else None)


def _batch(cell: bool = False) -> dict:
    graphs = [data.AtomicData.from_config(_config(s, cell), z_table=Z, cutoff=3.0) for s in (0.0, 0.3)]
    loader = torch_geometric.dataloader.DataLoader(dataset=graphs, batch_size=2, shuffle=False)
    return next(iter(loader))


def _model(cls, interaction: str, radial: str):
    block = modules.interaction_classes[interaction]
    kwargs = dict(r_max=3.0, num_bessel=8, num_polynomial_cutoff=6, max_ell=2, interaction_cls=block,
                  interaction_cls_first=block, num_interactions=2, num_elements=2,
                  hidden_irreps=o3.Irreps("16x0e + 16x1o"), MLP_irreps=o3.Irreps("16x0e"),
                  gate=torch.nn.functional.silu, atomic_energies=np.array([1.0, 3.0]), avg_num_neighbors=4,
                  atomic_numbers=Z.zs, correlation=3, radial_type=radial)
    if cls is modules.ScaleShiftMACE:
        kwargs.update(atomic_inter_scale=1.0, atomic_inter_shift=0.0)
    return cls(**kwargs)


def cases():
    torch.manual_seed(0)
    batch, periodic = _batch(), _batch(cell=True)
    out = []
    for cls in (modules.MACE, modules.ScaleShiftMACE):
        for interaction, radial in (("RealAgnosticResidualInteractionBlock", "bessel"),
                                    ("RealAgnosticInteractionBlock", "gaussian")):
            model = _model(cls, interaction, radial)
            name = f"{cls.__name__}.{interaction}.{radial}"
            for training in (True, False):
                mode = "train" if training else "eval"
                out.append((f"{name}.forces@{mode}",
                            lambda d, m=model, t=training: m.train(t)(d, training=t)["energy"],
                            (batch.to_dict(),)))
            out.append((f"{name}.energy", lambda d, m=model: m.eval()(d, compute_force=False)["energy"],
                        (batch.to_dict(),)))
            out.append((f"{name}.stress", lambda d, m=model: m.eval()(d, compute_stress=True, compute_virials=True)[
                "stress"], (periodic.to_dict(),)))
    model = _model(modules.MACE, "RealAgnosticResidualInteractionBlock", "bessel")
    pred = model(periodic.to_dict(), training=True, compute_stress=True, compute_virials=True)
    pred = {k: v.detach() for k, v in pred.items() if v is not None}
    for name in ("WeightedEnergyForcesLoss", "WeightedForcesLoss", "WeightedEnergyForcesStressLoss",
                 "WeightedHuberEnergyForcesStressLoss", "WeightedEnergyForcesVirialsLoss",
                 "WeightedEnergyForcesL1L2Loss", "UniversalLoss"):
        loss = getattr(modules.loss, name)()
        out.append((f"loss.{name}", lambda p, l=loss, b=periodic: l(b, p), (pred,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"mace-torch {version('mace-torch')}")
