"""TorchCP, a library the analysis was never shown (in neither half of the harness, not reserved): conformal
prediction. Its classification scores (LAC, APS, RAPS, SAPS, TopK, Margin, Entmax) on every label and on
the true one, its training losses (ConfTr, ConfTS, CD, SCPO) on a batch of logits and labels, its split,
class-conditional and clustered predictors making prediction sets from calibrated thresholds, and its
regression scores (ABS, CQR and its variants, Sign, R2CCP) with their intervals and losses, each under
dynamo against the static pass on the same tree.

Run it where torch and TorchCP are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps torchcp==1.2.1`), from the repository root:

    python bench/unseen_torchcp.py [--src OTHER_TREE/src] [--sites FILE]

TorchCP imports `torchsort` (a compiled extension) for one loss and `transformers` for its language-model
predictor, which no case runs; where they are not installed, a module whose names raise when used stands
in for each, so that the rest imports. `unseen.measure`
runs each case under dynamo and prints which of the statements dynamo broke on the static pass reports.
Results: bench/results/unseen_torchcp.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

stand_in(["torchsort", "transformers"])

import torchcp  # noqa: E402
from torchcp.classification.loss import CDLoss, ConfTrLoss, ConfTSLoss, SCPOLoss  # noqa: E402
from torchcp.classification.predictor import ClassConditionalPredictor, ClusteredPredictor, SplitPredictor  # noqa: E402
from torchcp.classification.score import APS, LAC, RAPS, SAPS, TOPK, EntmaxScore, Margin  # noqa: E402
from torchcp.regression.loss import QuantileLoss, R2ccpLoss  # noqa: E402
from torchcp.regression.score import ABS, CQR, CQRFM, CQRM, CQRR, R2CCP, Sign  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(torchcp.__file__).resolve().parent
_SCORES = ("LAC", "APS", "RAPS", "SAPS", "TOPK", "Margin", "EntmaxScore")
_REGRESSION = ("ABS", "CQR", "CQRFM", "CQRM", "CQRR", "Sign", "R2CCP")
ENTRY_POINTS = ([f"torchcp.classification.score.{s}.__call__" for s in _SCORES]
                + [f"torchcp.classification.loss.{s}" for s in ("ConfTrLoss", "ConfTSLoss", "CDLoss", "SCPOLoss")]
                + [f"torchcp.classification.predictor.{p}.predict_with_logits"
                   for p in ("SplitPredictor", "ClassConditionalPredictor", "ClusteredPredictor")]
                + [f"torchcp.regression.score.{s}.{m}" for s in _REGRESSION for m in ("__call__", "generate_intervals")]
                + ["torchcp.regression.loss.QuantileLoss", "torchcp.regression.loss.R2ccpLoss"])


def cases():
    torch.manual_seed(0)
    logits, labels = torch.randn(40, 5), torch.randint(0, 5, (40,))
    out = []
    for score in (LAC(), APS(), RAPS(penalty=0.1, kreg=1), SAPS(weight=0.2), TOPK(), Margin(), EntmaxScore()):
        name = type(score).__name__
        out.append((f"{name}_all", score, (logits,)))
        out.append((f"{name}_label", score, (logits, labels)))
    model = nn.Linear(4, 5)
    for name, loss in (("conftr", lambda p: ConfTrLoss(p, alpha=0.1, fraction=0.5)),
                       ("conftr_hard", lambda p: ConfTrLoss(p, alpha=0.1, fraction=0.5, soft_qunatile=False)),
                       ("conftr_probs", lambda p: ConfTrLoss(p, alpha=0.1, fraction=0.5, loss_type="probs")),
                       ("conftr_coverage", lambda p: ConfTrLoss(p, alpha=0.1, fraction=0.5, loss_type="coverage")),
                       ("conftr_classification", lambda p: ConfTrLoss(p, alpha=0.1, fraction=0.5, loss_type="classification")),
                       ("confts", lambda p: ConfTSLoss(p, alpha=0.1)), ("cd", lambda p: CDLoss(p)),
                       ("scpo", lambda p: SCPOLoss(p, alpha=0.1))):
        out.append((name, loss(SplitPredictor(APS(randomized=False), model)), (logits, labels)))
    for cls in (SplitPredictor, ClassConditionalPredictor, ClusteredPredictor):
        for score in (LAC(), APS()):
            predictor = cls(score, model)
            predictor.calculate_threshold(logits, labels, alpha=0.1)
            out.append((f"{cls.__name__}_{type(score).__name__}", predictor.predict_with_logits, (torch.randn(8, 5),)))
    y = torch.randn(16, 1)
    for score, predicts in ((ABS(), torch.randn(16, 1)), (Sign(), torch.randn(16, 1)), (CQR(), torch.randn(16, 2)),
                            (CQRFM(), torch.randn(16, 3)), (CQRR(), torch.randn(16, 2)), (CQRM(), torch.randn(16, 3))):
        name = type(score).__name__
        out.append((f"{name}_score", score, (predicts, y)))
        out.append((f"{name}_intervals", score.generate_intervals, (predicts, torch.tensor([0.5]))))
    midpoints = torch.linspace(-2, 2, 6)
    r2ccp = R2CCP(midpoints)
    out.append(("R2CCP_score", r2ccp, (torch.softmax(torch.randn(16, 6), -1), y)))
    out.append(("R2CCP_intervals", r2ccp.generate_intervals, (torch.softmax(torch.randn(16, 6), -1), torch.tensor([0.5]))))
    out.append(("quantile_loss", QuantileLoss([0.05, 0.95]), (torch.randn(16, 2), y)))
    out.append(("r2ccp_loss", R2ccpLoss(p=0.5, tau=0.2, midpoints=midpoints), (torch.softmax(torch.randn(16, 6), -1), y)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchcp {version('torchcp')}")
