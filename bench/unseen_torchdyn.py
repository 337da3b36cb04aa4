"""torchdyn, a library the analysis was never shown (in neither half of the harness, not reserved): the
neural ODE layer with each of its solvers (fixed-step and adaptive, the implicit Euler and the
asynchronous leapfrog) and sensitivities (autograd, adjoint, interpolated adjoint), in eval mode and in a
training step with the loss's gradient; the functional `odeint` and multiple shooting (`odeint_mshooting`);
and the continuous normalizing flow with its trace estimators, under dynamo against the static pass on
the same tree. The stochastic layers need torchsde, which is left out.

Run it where torch and torchdyn are installed together (here: `pip install torch==2.14.1 torchdyn==1.0.6`,
with lightning), from the repository root:

    python bench/unseen_torchdyn.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchdyn.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchdyn
from torch import nn
from torchdyn.core import NeuralODE
from torchdyn.models import CNF, autograd_trace, hutch_trace
from torchdyn.numerics import odeint, odeint_mshooting

warnings.filterwarnings("ignore")
ROOT = Path(torchdyn.__file__).resolve().parent
SOLVERS = ["euler", "midpoint", "rk4", "dopri5", "tsit5", "ieuler", "alf"]
ENTRY_POINTS = ["torchdyn.core.neuralde.NeuralODE", "torchdyn.numerics.odeint.odeint",
                "torchdyn.numerics.odeint.odeint_mshooting", "torchdyn.models.cnf.CNF"]


def _field(width: int = 4) -> nn.Module:
    return nn.Sequential(nn.Linear(width, 16), nn.Tanh(), nn.Linear(16, width))


def _trained(model, x, t_span):
    """A training step's loss and its gradient."""
    _, traj = model(x, t_span)
    loss = traj[-1].pow(2).mean()
    loss.backward()
    return loss


def cases():
    torch.manual_seed(0)
    x = torch.randn(8, 4)
    t_span = torch.linspace(0, 1, 5)
    out = []
    for solver in SOLVERS:
        field = _field(2) if solver == "alf" else _field()  # the leapfrog's field gives half the state
        for sensitivity in ("autograd", "adjoint", "interpolated_adjoint"):
            if sensitivity == "interpolated_adjoint" and solver not in ("dopri5", "tsit5"):
                continue  # it needs an adaptive solver's interpolation
            model = NeuralODE(field, solver=solver, sensitivity=sensitivity)
            out.append((f"{solver}.{sensitivity}", lambda x, t, model=model: model(x, t), (x, t_span)))
            if sensitivity == "autograd":
                out.append((f"{solver}.{sensitivity}@train", lambda x, t, model=model: _trained(model, x, t),
                            (x, t_span)))
    field = _field()
    out.append(("odeint.rk4", lambda x, t: odeint(lambda t, x: field(x), x, t, solver="rk4"), (x, t_span)))
    out.append(("odeint.dopri5", lambda x, t: odeint(lambda t, x: field(x), x, t, solver="dopri5"), (x, t_span)))
    out.append(("odeint.save_at", lambda x, t: odeint(lambda t, x: field(x), x, t, solver="tsit5",
                                                      save_at=t[::2]), (x, t_span)))
    out.append(("mshooting", lambda x, t: odeint_mshooting(lambda t, x: field(x), x, t, solver="zero"), (x, t_span)))
    for name, trace in (("autograd", autograd_trace), ("hutch", hutch_trace)):
        noise = torch.distributions.Normal(torch.zeros(4), torch.ones(4)) if name == "hutch" else None
        flow = NeuralODE(CNF(_field(), trace_estimator=trace, noise_dist=noise), solver="rk4")
        out.append((f"cnf.{name}", lambda x, t, flow=flow: flow(x, t),
                    (torch.cat([torch.zeros(8, 1), x], 1), t_span)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchdyn {torchdyn.__version__}")
