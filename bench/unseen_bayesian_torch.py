"""Bayesian-Torch, a library the analysis was never shown (in neither half of the harness, not reserved):
its variational layers (reparameterisation and Flipout; linear, 1-3d convolutions and their transposes,
LSTM) run forward with and without their KL term, its Bayesian ResNets and simple CNN in train and eval
mode, a plain network made Bayesian by `dnn_to_bnn` run with `get_kl_loss`, under dynamo against the
static pass on the same tree.

Run it where torch and bayesian-torch are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps bayesian-torch==0.5.0`), from the repository root:

    python bench/unseen_bayesian_torch.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_bayesian_torch.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import bayesian_torch
import bayesian_torch.layers as layers
import torch
from bayesian_torch.models.bayesian import resnet_flipout, resnet_variational, simple_cnn_variational
from bayesian_torch.models.dnn_to_bnn import dnn_to_bnn, get_kl_loss
from torch import nn

warnings.filterwarnings("ignore")
ROOT = Path(bayesian_torch.__file__).resolve().parent
KINDS = ("Reparameterization", "Flipout")
SHAPED = {"Linear": (lambda cls: cls(6, 4), (4, 6)), "LSTM": (lambda cls: cls(6, 4), (2, 5, 6)),
          "Conv1d": (lambda cls: cls(3, 4, 3), (2, 3, 16)), "Conv2d": (lambda cls: cls(3, 4, 3), (2, 3, 8, 8)),
          "Conv3d": (lambda cls: cls(3, 4, 3), (2, 3, 6, 6, 6)),
          "ConvTranspose1d": (lambda cls: cls(3, 4, 3), (2, 3, 16)),
          "ConvTranspose2d": (lambda cls: cls(3, 4, 3), (2, 3, 8, 8)),
          "ConvTranspose3d": (lambda cls: cls(3, 4, 3), (2, 3, 6, 6, 6))}
ENTRY_POINTS = [f"bayesian_torch.layers.{shape}{kind}" for shape in SHAPED for kind in KINDS] + [
    "bayesian_torch.models.bayesian.resnet_variational.ResNet", "bayesian_torch.models.bayesian.resnet_flipout.ResNet",
    "bayesian_torch.models.bayesian.simple_cnn_variational.SCNN", "bayesian_torch.models.dnn_to_bnn.get_kl_loss"]


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def _bnn():
    model = Plain()
    dnn_to_bnn(model, {"prior_mu": 0.0, "prior_sigma": 1.0, "posterior_mu_init": 0.0, "posterior_rho_init": -3.0,
                       "type": "Reparameterization", "moped_enable": False})
    return model


def cases():
    torch.manual_seed(0)
    out = []
    for shape, (make, size) in SHAPED.items():
        for kind in KINDS:
            cls = getattr(layers, f"{shape}{kind}", None)
            if cls is None:
                continue
            try:
                layer, quiet = make(cls).train(), make(cls).train()
            except TypeError as e:  # a layer whose constructor takes its priors positionally
                print("left out:", cls.__name__, e)
                continue
            x = torch.randn(*size)
            out.append((f"{shape}{kind}", layer, (x,)))
            out.append((f"{shape}{kind}_no_kl", lambda x, m=quiet: m(x, return_kl=False), (x,)))
    images = torch.randn(2, 3, 32, 32)
    for name, module in (("resnet20_variational", resnet_variational), ("resnet20_flipout", resnet_flipout)):
        out.append((f"{name}@train", module.resnet20().train(), (images,)))
        out.append((f"{name}@eval", module.resnet20().eval(), (images,)))
    out.append(("scnn@train", simple_cnn_variational.SCNN().train(), (torch.randn(2, 1, 28, 28),)))
    model = _bnn()
    out.append(("dnn_to_bnn_kl", lambda x: model(x).sum() + get_kl_loss(model), (torch.randn(2, 3, 8, 8),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"bayesian-torch {version('bayesian-torch')}")
