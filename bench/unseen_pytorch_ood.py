"""PyTorch-OOD, a library of out-of-distribution detection the analysis was never shown (in neither half of
the harness, not reserved): its training objectives (outlier exposure, energy regularisation, entropic open
set, objectosphere, center, class anchor, II, MCHAD, Deep SVDD and SAD, logit normalisation, confidence,
background class), each compiled as a training step's loss on a batch mixing known classes and outliers
(negative targets); and its detectors' scores (energy, entropy, max logit, softmax, GEN, ODIN, ReAct, ASH,
SCALE, DICE, Mahalanobis, ViM, KNN, SHE), fitted eagerly and each `predict` compiled as a user compiles an
inference step.

Run it where torch and PyTorch-OOD are installed together (here: `pip install torch==2.14.1 torchvision scipy
scikit-learn`, then `pip install --no-deps pytorch-ood==0.4.0`), from the repository root:

    python bench/unseen_pytorch_ood.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static
pass reports. Results: bench/results/unseen_pytorch_ood.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import pytorch_ood  # noqa: E402
from pytorch_ood import detector as det  # noqa: E402
from pytorch_ood import loss as L  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(pytorch_ood.__file__).resolve().parent
N, C, D = 16, 4, 8
DETECTORS = ["EnergyBased", "Entropy", "MaxLogit", "MaxSoftmax", "GEN", "ODIN", "ReAct", "ASH", "SCALE", "DICE",
             "Mahalanobis", "ViM", "KNN", "SHE"]
ENTRY_POINTS = [f"pytorch_ood.detector.{name}.{method}" for name in DETECTORS
                for method in ("predict", "predict_features", "predict_logits", "predict_feature_maps")
                if hasattr(getattr(det, name, None), method) and method in vars(getattr(det, name))]


def _training_batch():
    logits, features = torch.randn(N, C), torch.randn(N, D)
    targets = torch.randint(0, C, (N,))
    targets[::4] = -1  # outliers
    return logits, features, targets


def _losses():
    logits, features, targets = _training_batch()
    out = []
    for name, loss, args in (
            ("OutlierExposureLoss", L.OutlierExposureLoss(), (logits, targets)),
            ("EnergyRegularizedLoss", L.EnergyRegularizedLoss(), (logits, targets)),
            ("EntropicOpenSetLoss", L.EntropicOpenSetLoss(), (logits, targets)),
            ("ObjectosphereLoss", L.ObjectosphereLoss(), (logits, features, targets)),
            ("CenterLoss", L.CenterLoss(n_classes=C, n_dim=D), (torch.rand(N, C), targets)),
            ("CACLoss", L.CACLoss(n_classes=C), (torch.rand(N, C), targets.clamp(min=0))),
            ("IILoss", L.IILoss(n_classes=C, n_embedding=D), (features, targets.clamp(min=0))),
            ("MCHADLoss", L.MCHADLoss(n_classes=C, n_dim=D), (torch.rand(N, C), targets)),
            ("DeepSVDDLoss", L.DeepSVDDLoss(n_dim=D), (features,)),
            ("DeepSADLoss", L.DeepSADLoss(n_dim=D), (features, targets)),
            ("LogitNorm", L.LogitNorm(), (logits, targets.clamp(min=0))),
            ("ConfidenceLoss", L.ConfidenceLoss(), (logits, torch.rand(N, 1), targets.clamp(min=0))),
            ("BackgroundClassLoss", L.BackgroundClassLoss(n_classes=C), (torch.randn(N, C + 1), targets)),
            ("CrossEntropyLoss", L.CrossEntropyLoss(), (logits, targets))):
        out.append((f"{name}@train", lambda *a, f=loss: f.train()(*a), args))
    return out


def _detectors():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, C))
    encoder = nn.Sequential(backbone, nn.AdaptiveAvgPool2d(1), nn.Flatten())
    model = nn.Sequential(backbone, head).eval()
    images = torch.randn(N, 3, 8, 8)
    loader = DataLoader(TensorDataset(images, torch.randint(0, C, (N,))), batch_size=8)
    fc = head[-1]
    built = {
        "EnergyBased": lambda: det.EnergyBased(model), "Entropy": lambda: det.Entropy(model),
        "MaxLogit": lambda: det.MaxLogit(model), "MaxSoftmax": lambda: det.MaxSoftmax(model),
        "GEN": lambda: det.GEN(model), "ODIN": lambda: det.ODIN(model, eps=0.002),
        "ReAct": lambda: det.ReAct(backbone, head, threshold=1.0),
        "ASH": lambda: det.ASH(backbone, head), "SCALE": lambda: det.SCALE(backbone, head),
        "DICE": lambda: det.DICE(encoder, fc.weight, fc.bias, p=0.5).fit(loader),
        "Mahalanobis": lambda: det.Mahalanobis(encoder).fit(loader),
        "ViM": lambda: det.ViM(encoder, d=2, w=fc.weight, b=fc.bias).fit(loader),
        "KNN": lambda: det.KNN(encoder, k=3).fit(loader),
        "SHE": lambda: det.SHE(encoder, head[-1]).fit(loader),
    }
    out = []
    for name in DETECTORS:
        try:
            detector = built[name]()
        except Exception as e:  # noqa: BLE001 - a detector this build does not fit so
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        out.append((f"{name}.predict", lambda x, d=detector: d.predict(x), (images,)))
    return out


def cases():
    torch.manual_seed(0)
    return runnable(_losses() + _detectors())


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-ood {version('pytorch-ood')}")
