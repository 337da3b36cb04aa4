"""neuraloperator, a library the analysis was never shown (in neither half of the harness, not
reserved): neural operators for PDEs (FNO in one, two and three dimensions, factorised TFNO, U-NO,
CODANO, UQNO), each in eval and in training mode with its loss, and the losses on their own (Lp, H1,
Hdiv, quantile, Burgers and initial-condition losses, the weighted and field-wise aggregators and the
adaptive SoftAdapt and ReLoBRaLo weightings), under dynamo against the static pass on the same tree.

Run it where torch and neuraloperator are installed together (here: `pip install torch==2.14.1
neuraloperator==2.0.0`), from the repository root:

    python bench/unseen_neuralop.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_neuralop.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import neuralop
import torch
from neuralop import losses as L
from neuralop import models as M
from neuralop.losses import meta_losses

warnings.filterwarnings("ignore")
ROOT = Path(neuralop.__file__).resolve().parent
ENTRY_POINTS = [f"neuralop.losses.{module}.{cls}.__call__" for module, cls in (
    ("data_losses", "LpLoss"), ("data_losses", "H1Loss"), ("data_losses", "HdivLoss"),
    ("data_losses", "PointwiseQuantileLoss"), ("data_losses", "MSELoss"), ("equation_losses", "BurgersEqnLoss"),
    ("equation_losses", "ICLoss"), ("meta_losses", "WeightedSumLoss"), ("meta_losses", "FieldwiseAggregatorLoss"))]


def _trained(model, loss, x, y):
    def step(a, b):
        model.train()
        out = model(a)
        value = loss(out, b)
        value.backward()
        return value
    return step


def _models():
    """(name, model, input) for each model that builds here; a model needing a package that is not
    installed is left out."""
    made = []
    for name, build, shape in (
        ("FNO1d", lambda: M.FNO(n_modes=(8,), in_channels=1, out_channels=1, hidden_channels=8), (2, 1, 32)),
        ("FNO2d", lambda: M.FNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=8), (2, 1, 16, 16)),
        ("FNO3d", lambda: M.FNO(n_modes=(4, 4, 4), in_channels=1, out_channels=1, hidden_channels=4),
         (1, 1, 8, 8, 8)),
        ("TFNO2d", lambda: M.TFNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=8,
                                  factorization="tucker", rank=0.5), (2, 1, 16, 16)),
        ("UNO", lambda: M.UNO(in_channels=1, out_channels=1, hidden_channels=8, n_layers=3,
                              uno_out_channels=[8, 8, 8], uno_n_modes=[[4, 4], [4, 4], [4, 4]],
                              uno_scalings=[[1, 1], [0.5, 0.5], [2, 2]]), (2, 1, 16, 16)),
    ):
        try:
            made.append((name, build(), torch.randn(*shape)))
        except Exception:  # noqa: BLE001 - a model this install cannot build says nothing of breaks
            continue
    return made


def cases():
    torch.manual_seed(0)
    out = []
    lp, h1 = L.LpLoss(d=2, p=2), L.H1Loss(d=2)
    for name, model, x in _models():
        model.eval()
        out.append((name, model, (x,)))
        y = torch.randn_like(model(x))
        loss = L.LpLoss(d=x.dim() - 2, p=2)
        out.append((f"{name}@train", _trained(model, loss, x, y), (x, y)))
    a, b = torch.randn(2, 1, 16, 16), torch.randn(2, 1, 16, 16)
    out += [
        ("LpLoss", lp, (a, b)), ("LpLoss.mean", L.LpLoss(d=2, p=1, reduction="mean"), (a, b)),
        ("H1Loss", h1, (a, b)), ("HdivLoss", L.data_losses.HdivLoss(d=2), (a, b)),
        ("Quantile", L.data_losses.PointwiseQuantileLoss(alpha=0.1), (a, b)),
        ("MSELoss", L.data_losses.MSELoss(), (a, b)),
        ("Burgers", L.BurgersEqnLoss(visc=0.01), (torch.randn(2, 1, 16, 16),)),
        ("Burgers.fdm", L.BurgersEqnLoss(method="fdm"), (torch.randn(2, 1, 16, 16),)),
        ("IC", L.ICLoss(), (torch.randn(2, 1, 16, 16), torch.randn(2, 2, 16, 16))),
        ("WeightedSum", meta_losses.WeightedSumLoss([lp, h1], [1.0, 0.5]), (a, b)),
        ("Fieldwise", meta_losses.FieldwiseAggregatorLoss({"u": lp, "v": h1}, {"u": slice(0, 1), "v": slice(1, 2)}),
         (torch.randn(2, 2, 16, 16), torch.randn(2, 2, 16, 16))),
    ]
    params = [torch.nn.Parameter(torch.randn(4))]
    losses = {"a": torch.tensor(1.0), "b": torch.tensor(2.0)}
    for name in ("SoftAdapt", "Relobralo"):
        try:
            weighting = getattr(meta_losses, name)(params, num_losses=2)
        except Exception:  # noqa: BLE001
            continue
        out.append((name, lambda ls, w=weighting: (w(ls, 1), w(ls, 2)), (losses,)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"neuraloperator {getattr(neuralop, '__version__', '2.0.0')}")
