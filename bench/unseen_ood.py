"""pytorch-ood, a library the analysis was never shown (in neither half of the harness, not reserved): its
out-of-distribution losses (open-set cross-entropy, background class, entropic, objectosphere, energy
regularised, outlier exposure, logit norm, confidence, center, CAC, II, MCHAD, Deep SVDD / SAD, VOS, ...)
trained on a batch whose labels mark some samples as outliers (negative labels, the library's convention),
and its detectors fitted on random features of a small classifier and then run on a batch (`predict`, and
`predict_features` / `predict_logits` where a detector has them), under dynamo against the static pass on
the same tree.

Run it where torch and pytorch-ood are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps pytorch-ood==0.4.0`), from the repository root:

    python bench/unseen_ood.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_ood.txt.
"""

import inspect
import warnings
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import pytorch_ood
import torch
from pytorch_ood import detector, loss
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")
ROOT = Path(pytorch_ood.__file__).resolve().parent
N, C, D = 16, 5, 8  # batch, classes, feature width
DETECTORS = ["ASH", "DICE", "EnergyBased", "Entropy", "fDBD", "GEN", "GMM", "KLMatching", "KNN", "LTS",
             "Mahalanobis", "MaxLogit", "MCM", "MaxSoftmax", "NCI", "NNGuide", "ODIN", "PNML", "RMD", "ReAct",
             "SCALE", "SHE", "TemperatureScaling", "ViM", "WeightedEBO", "RankFeat", "MCD", "GradNorm"]
ENTRY_POINTS = [f"pytorch_ood.loss.{name}" for name, value in vars(loss).items() if inspect.isclass(value)] + [
    f"pytorch_ood.detector.{name}.{method}" for name in DETECTORS
    for method in ("predict", "predict_features", "predict_logits") if hasattr(getattr(detector, name), method)]


class Classifier(nn.Module):
    """An encoder and a linear head, the shape most detectors take apart."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, D), nn.ReLU())
        self.head = nn.Linear(D, C)
        self.fc = self.head

    def forward(self, x):
        return self.head(self.encoder(x))

    def features(self, x):
        return self.encoder(x)


def _labels():
    y = torch.arange(N) % C
    y[::4] = -1  # outliers
    return y


def _losses():
    torch.manual_seed(0)
    logits, features, y = torch.randn(N, C, requires_grad=True), torch.randn(N, D), _labels()
    distmat = torch.rand(N, C, requires_grad=True)
    margin, phi = loss.EnergyMarginLoss(full_train_loss=1.0), nn.Linear(1, 1)  # its forward takes phi
    made = [
        ("cross_entropy", loss.CrossEntropyLoss(), (logits, y)),
        ("background", loss.BackgroundClassLoss(n_classes=C), (torch.randn(N, C + 1), y)),
        ("entropic", loss.EntropicOpenSetLoss(), (logits, y)),
        ("objectosphere", loss.ObjectosphereLoss(), (logits, features, y)),
        ("energy_regularized", loss.EnergyRegularizedLoss(), (logits, y)),
        ("outlier_exposure", loss.OutlierExposureLoss(), (logits, y)),
        ("logit_norm", loss.LogitNorm(), (logits, y.clamp(min=0))),
        ("center", loss.CenterLoss(n_classes=C, n_dim=D), (distmat, y)),
        ("cac", loss.CACLoss(n_classes=C), (distmat, y)),
        ("ii", loss.IILoss(n_classes=C, n_embedding=D), (features, y)),
        ("mchad", loss.MCHADLoss(n_classes=C, n_dim=D), (distmat, y)),
        ("deep_svdd", loss.DeepSVDDLoss(n_dim=D), (features,)),
        ("deep_sad", loss.DeepSADLoss(n_dim=D), (features, y)),
        ("energy_margin", lambda lo, t: margin(lo, t, phi), (logits, y)),
        ("vos_reg", loss.VOSRegLoss(nn.Linear(1, 2), nn.Linear(C, 1)), (logits, y)),
        ("vos", loss.VirtualOutlierSynthesizingRegLoss(nn.Linear(1, 2), nn.Linear(C, 1), nn.Linear(D, C),
                                                        sample_number=2, sample_from=20), (logits, features, y)),
    ]
    for _, module, _ in made:
        if isinstance(module, nn.Module):
            module.train()
    margin.train()
    return made


def _detector(name, model):
    cls = getattr(detector, name)
    for attempt in ({"model": model}, {"encoder": model.encoder, "head": model.head},
                    {"model": model.encoder, "head": model.head}, {"model": model, "fc": model.head}):
        try:
            made = cls(**{k: v for k, v in attempt.items() if k in inspect.signature(cls.__init__).parameters})
            break
        except TypeError:
            continue
    else:
        return None
    x, y = torch.randn(64, 12), torch.arange(64) % C
    try:
        made.fit(DataLoader(TensorDataset(x, y), batch_size=16))
    except Exception:  # noqa: BLE001 - a detector that needs no fitting, or another shape of data
        pass
    return made


def cases():
    out = list(_losses())
    torch.manual_seed(1)
    model = Classifier().eval()
    x = torch.randn(N, 12)
    for name in DETECTORS:
        made = _detector(name, model)
        if made is None:
            continue
        out.append((f"{name}.predict", made.predict, (x,)))
        if hasattr(made, "predict_features"):
            out.append((f"{name}.predict_features", made.predict_features, (model.encoder(x).detach(),)))
        if hasattr(made, "predict_logits"):
            out.append((f"{name}.predict_logits", made.predict_logits, (model(x).detach(),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-ood {pytorch_ood.__version__}")
