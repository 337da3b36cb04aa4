"""PyTorch-Ignite's metrics, a library the analysis was never shown (in neither half of the harness, not
reserved): each metric's `reset`, `update` and `compute` compiled together on one batch, as a user compiling an
evaluation step would: classification (accuracy, precision, recall, top-k, confusion matrices, loss, entropy),
regression (the eighteen of `ignite.metrics.regression` and MAE, MSE, RMSE, R2, cosine similarity, pairwise
distance), images (PSNR, SSIM), distributions and features (KL and JS divergence, mutual information, HSIC, MMD),
ranking (NDCG, hit rate) and the accumulators (Average, GeometricAverage). The metrics scikit-learn computes at the
end of an epoch and the text metrics are left out.

Run it where torch and pytorch-ignite are installed together (here: `pip install torch==2.14.1 pytorch-ignite`),
from the repository root:

    python bench/unseen_ignite.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_ignite.txt.
"""

import logging
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import ignite
import ignite.metrics as M
import ignite.metrics.regression as R
import torch
from torch import nn

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
ROOT = Path(ignite.__file__).resolve().parent
REGRESSION = ["CanberraMetric", "FractionalAbsoluteError", "FractionalBias", "GeometricMeanAbsoluteError",
              "GeometricMeanRelativeAbsoluteError", "KendallRankCorrelation", "ManhattanDistance",
              "MaximumAbsoluteError", "MeanAbsoluteRelativeError", "MeanError", "MeanNormalizedBias",
              "MedianAbsoluteError", "MedianAbsolutePercentageError", "MedianRelativeAbsoluteError",
              "PearsonCorrelation", "R2Score", "SpearmanRankCorrelation", "WaveHedgesDistance"]


def _metrics():
    """(name, metric, its batch): each metric with the inputs its `update` takes."""
    torch.manual_seed(0)
    logits, labels = torch.randn(16, 4), torch.randint(0, 4, (16,))
    pred, target = torch.rand(16) + 0.1, torch.rand(16) + 0.1
    images = (torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32))
    features = (torch.randn(16, 8), torch.randn(16, 8))
    out = [(name, getattr(M, name)(), (logits, labels)) for name in ("Accuracy", "Precision", "Recall")]
    out += [("Precision.average", M.Precision(average=True), (logits, labels)),
            ("TopKCategoricalAccuracy", M.TopKCategoricalAccuracy(k=2), (logits, labels)),
            ("ConfusionMatrix", M.ConfusionMatrix(num_classes=4), (logits, labels)),
            ("MultiLabelConfusionMatrix", M.MultiLabelConfusionMatrix(num_classes=4),
             (torch.randint(0, 2, (16, 4)), torch.randint(0, 2, (16, 4)))),
            ("Loss", M.Loss(nn.CrossEntropyLoss()), (logits, labels)),
            ("Entropy", M.Entropy(), (logits, labels)),
            ("KLDivergence", M.KLDivergence(), (logits, logits.flip(0))),
            ("JSDivergence", M.JSDivergence(), (logits, logits.flip(0))),
            ("MutualInformation", M.MutualInformation(), (logits, labels)),
            ("HSIC", M.HSIC(), features),
            ("MaximumMeanDiscrepancy", M.MaximumMeanDiscrepancy(), features),
            ("CosineSimilarity", M.CosineSimilarity(), features),
            ("MeanPairwiseDistance", M.MeanPairwiseDistance(), features),
            ("NDCG", M.NDCG(top_k=[3]), (torch.rand(4, 6), torch.randint(0, 3, (4, 6)).float())),
            ("HitRate", M.HitRate(top_k=[1, 3]), (torch.rand(4, 6), torch.randint(0, 2, (4, 6)).float())),
            ("PSNR", M.PSNR(data_range=1.0), images),
            ("SSIM", M.SSIM(data_range=1.0), images)]
    out += [(name, getattr(M, name)(), (pred, target)) for name in ("MeanAbsoluteError", "MeanSquaredError",
                                                                    "RootMeanSquaredError")]
    out += [(name, getattr(R, name)(), (pred, target)) for name in REGRESSION]
    return out


def _accumulators():
    torch.manual_seed(0)
    values = torch.rand(16, 3) + 0.1
    return [(name, getattr(M, name)(), values) for name in ("Average", "GeometricAverage")]


def _run(metric, batch):
    def step(*args):
        metric.reset()
        metric.update(args[0] if len(args) == 1 else args)
        return metric.compute()
    return step


def cases():
    out = [(name, _run(metric, batch), batch) for name, metric, batch in _metrics()]
    out += [(name, _run(metric, (batch,)), (batch,)) for name, metric, batch in _accumulators()]
    return out


def _entry_points() -> list[str]:
    """Each measured metric class's `reset`, `update` and `compute`, by their dotted names."""
    classes = {type(metric) for _, metric, _ in _metrics()} | {type(metric) for _, metric, _ in _accumulators()}
    found = set()
    for cls in classes:
        for method in ("reset", "update", "compute"):
            owner = next(base for base in cls.__mro__ if method in vars(base))
            found.add(f"{owner.__module__}.{owner.__qualname__}.{method}")
    return sorted(found)


if __name__ == "__main__":
    measure(ROOT, cases, _entry_points(), f"pytorch-ignite {ignite.__version__}")
