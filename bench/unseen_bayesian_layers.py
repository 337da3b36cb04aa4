"""Two small libraries the analysis was never shown (in neither half of the harness, not reserved), each
measured on its own: Blitz's Bayesian layers (linear, convolutions, embedding, LSTM and GRU sampled in
training and frozen, a network decorated by `variational_estimator` and its ELBO loss), and
torchensemble's ensembles (fusion, voting, bagging, snapshot and gradient boosting of small networks,
forward and `predict`).

Run it where torch and the two are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps blitz-bayesian-pytorch==0.2.8 torchensemble==0.2.0`),
from the repository root:

    python bench/unseen_bayesian_layers.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo
broke on the static pass reports (each library's answers kept in `FILE.<library>.json`). Results:
bench/results/unseen_bayesian_layers.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

warnings.filterwarnings("ignore")


def blitz_cases():
    from blitz.modules import (BayesianConv1d, BayesianConv2d, BayesianEmbedding, BayesianGRU, BayesianLinear,
                               BayesianLSTM)
    from blitz.utils import variational_estimator

    @variational_estimator
    class Regressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.blinear1 = BayesianLinear(8, 16)
            self.blinear2 = BayesianLinear(16, 1)

        def forward(self, x):
            return self.blinear2(torch.relu(self.blinear1(x)))

    out = []
    for name, layer, x in (("linear", BayesianLinear(8, 4), torch.randn(3, 8)),
                           ("conv1d", BayesianConv1d(2, 4, kernel_size=3), torch.randn(2, 2, 10)),
                           ("conv2d", BayesianConv2d(2, 4, kernel_size=(3, 3)), torch.randn(2, 2, 8, 8)),
                           ("embedding", BayesianEmbedding(10, 4), torch.tensor([[1, 2, 3]])),
                           ("lstm", BayesianLSTM(4, 6), torch.randn(2, 5, 4)),
                           ("gru", BayesianGRU(4, 6), torch.randn(2, 5, 4))):
        out.append((f"{name}_sampled", layer, (x,)))
        frozen = (lambda x, layer=layer: layer.forward_frozen(x, None)) if name in ("lstm", "gru") else layer.forward_frozen
        out.append((f"{name}_frozen", frozen, (x,)))
    sharpened = BayesianLSTM(4, 6, sharpen=True)
    out.append(("lstm_sharpen", lambda x: sharpened(x, sharpen_loss=torch.tensor(0.5)), (torch.randn(2, 5, 4),)))
    net = Regressor()
    out.append(("regressor", net, (torch.randn(4, 8),)))
    out.append(("regressor_kl", net.nn_kl_divergence, ()))
    out.append(("regressor_elbo", lambda x, y: net.sample_elbo(x, y, nn.MSELoss(), sample_nbr=2),
                (torch.randn(4, 8), torch.randn(4, 1))))
    return out


def torchensemble_cases():
    from torchensemble import (BaggingClassifier, FusionClassifier, FusionRegressor, GradientBoostingClassifier,
                               SnapshotEnsembleClassifier, VotingClassifier, VotingRegressor)

    class MLP(nn.Module):
        def __init__(self, out=3):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, out))

        def forward(self, x):
            return self.net(x)

    out = []
    x = torch.randn(5, 6)
    for cls in (FusionClassifier, VotingClassifier, BaggingClassifier, SnapshotEnsembleClassifier,
                GradientBoostingClassifier):
        ensemble = cls(estimator=MLP, n_estimators=3, cuda=False)
        ensemble.estimators_ = nn.ModuleList([MLP() for _ in range(3)])
        if cls is FusionClassifier:
            ensemble.estimators_ = nn.ModuleList([MLP() for _ in range(3)])
        ensemble.n_outputs = 3
        out.append((cls.__name__, ensemble, (x,)))
        out.append((f"{cls.__name__}_predict", ensemble.predict, (x,)))
    for cls in (FusionRegressor, VotingRegressor):
        ensemble = cls(estimator=MLP, estimator_args={"out": 1}, n_estimators=2, cuda=False)
        ensemble.estimators_ = nn.ModuleList([MLP(1) for _ in range(2)])
        out.append((cls.__name__, ensemble, (x,)))
    return out


LIBRARIES = {
    "blitz": (blitz_cases, ["blitz.modules.BayesianLinear", "blitz.modules.BayesianLinear.forward_frozen",
                            "blitz.modules.BayesianConv1d", "blitz.modules.BayesianConv2d",
                            "blitz.modules.BayesianEmbedding", "blitz.modules.BayesianLSTM",
                            "blitz.modules.BayesianLSTM.forward_frozen", "blitz.modules.BayesianGRU",
                            "blitz.modules.BayesianGRU.forward_frozen"]),
    "torchensemble": (torchensemble_cases, ["torchensemble.FusionClassifier", "torchensemble.VotingClassifier",
                                            "torchensemble.BaggingClassifier", "torchensemble.FusionClassifier.predict",
                                            "torchensemble.VotingClassifier.predict"]),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
