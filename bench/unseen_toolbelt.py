"""pytorch-toolbelt's losses, a library the analysis was never shown (in neither half of the harness,
not reserved): segmentation and classification losses in their binary, multi-class and multi-label
modes, with and without an ignored label, per image and per batch (Dice, Jaccard, Lovasz, focal and
its reduced and cross-entropy forms, soft BCE and CE with label smoothing, balanced BCE, soft F1,
bi-tempered logistic, focal cosine, quality focal, Wing, log-cosh), under dynamo against the static
pass on the same tree. Only the losses are linted and run: the package's encoders wrap other model
libraries.

Run it where torch and pytorch-toolbelt are installed together (here: `pip install torch==2.14.1
pytorch_toolbelt==0.8.0`), from the repository root:

    python bench/unseen_toolbelt.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_toolbelt.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import pytorch_toolbelt
import torch
from pytorch_toolbelt import losses as L

warnings.filterwarnings("ignore")
ROOT = Path(L.__file__).resolve().parent
ENTRY_POINTS: list[str] = []


def cases():
    torch.manual_seed(0)
    classes = 4
    logits = torch.randn(2, classes, 16, 16)
    labels = torch.randint(0, classes, (2, 16, 16))
    labels_ignored = labels.clone()
    labels_ignored[:, :2] = -100
    binary = torch.randn(2, 1, 16, 16)
    binary_target = (torch.rand(2, 1, 16, 16) > 0.5).float()
    binary_ignored = binary_target.clone()
    binary_ignored[:, :, :2] = -100
    multilabel_target = (torch.rand(2, classes, 16, 16) > 0.5).float()
    return [
        ("Dice.binary", L.DiceLoss("binary"), (binary, binary_target)),
        ("Dice.multiclass", L.DiceLoss("multiclass"), (logits, labels)),
        ("Dice.multiclass.ignore", L.DiceLoss("multiclass", ignore_index=-100), (logits, labels_ignored)),
        ("Dice.multiclass.classes", L.DiceLoss("multiclass", classes=[1, 2], log_loss=True), (logits, labels)),
        ("Dice.multilabel", L.DiceLoss("multilabel", smooth=1.0), (logits, multilabel_target)),
        ("Jaccard.binary", L.JaccardLoss("binary"), (binary, binary_target)),
        ("Jaccard.multiclass", L.JaccardLoss("multiclass", classes=[0, 3]), (logits, labels)),
        ("Jaccard.multilabel", L.JaccardLoss("multilabel", log_loss=True), (logits, multilabel_target)),
        ("Lovasz", L.LovaszLoss(), (logits, labels)),
        ("Lovasz.per_image", L.LovaszLoss(per_image=True), (logits, labels)),
        ("Lovasz.per_image.ignore", L.LovaszLoss(per_image=True, ignore=-100), (logits, labels_ignored)),
        ("BinaryLovasz", L.BinaryLovaszLoss(), (binary, binary_target)),
        ("BinaryLovasz.per_image", L.BinaryLovaszLoss(per_image=True), (binary, binary_target)),
        ("BinaryLovasz.per_image.ignore", L.BinaryLovaszLoss(per_image=True, ignore_index=-100),
         (binary, binary_ignored)),
        ("BinaryFocal", L.BinaryFocalLoss(), (binary, binary_target)),
        ("BinaryFocal.alpha.ignore", L.BinaryFocalLoss(alpha=0.25, ignore_index=-100, normalized=True),
         (binary, binary_ignored)),
        ("BinaryFocal.reduced", L.BinaryFocalLoss(reduced_threshold=0.5, reduction="sum"), (binary, binary_target)),
        ("BinaryFocal.softmax", L.BinaryFocalLoss(activation="softmax", softmax_dim=1),
         (logits, multilabel_target)),
        ("CrossEntropyFocal", L.CrossEntropyFocalLoss(), (logits, labels_ignored)),
        ("CrossEntropyFocal.reduced", L.CrossEntropyFocalLoss(reduced_threshold=0.5, normalized=True,
                                                              class_weights=torch.rand(classes)), (logits, labels)),
        ("SoftBCE", L.SoftBCEWithLogitsLoss(smooth_factor=0.1), (binary, binary_target)),
        ("SoftBCE.ignore", L.SoftBCEWithLogitsLoss(ignore_index=-100), (binary, binary_ignored)),
        ("SoftCE", L.SoftCrossEntropyLoss(smooth_factor=0.1), (logits, labels_ignored)),
        ("SoftCE.plain", L.SoftCrossEntropyLoss(ignore_index=None), (logits, labels)),
        ("BalancedBCE", L.BalancedBCEWithLogitsLoss(), (binary, binary_target)),
        ("BalancedBCE.ignore", L.BalancedBCEWithLogitsLoss(ignore_index=-100), (binary, binary_ignored)),
        ("SoftF1", L.SoftF1Loss(), (logits.flatten(2).mean(-1), labels[:, 0, 0])),
        ("SoftF1.ignore", L.SoftF1Loss(ignore_index=-100), (logits.flatten(2).mean(-1), labels_ignored[:, 0, 0])),
        ("BinarySoftF1", L.BinarySoftF1Loss(), (binary.flatten(1), binary_target.flatten(1))),
        ("BinarySoftF1.ignore", L.BinarySoftF1Loss(ignore_index=-100), (binary.flatten(1), binary_ignored.flatten(1))),
        ("BiTempered", L.BiTemperedLogisticLoss(t1=0.8, t2=1.2, smoothing=0.1), (logits, labels)),
        ("BiTempered.ignore", L.BiTemperedLogisticLoss(t1=0.8, t2=1.2, ignore_index=-100), (logits, labels_ignored)),
        ("BiTempered.t2_one", L.BiTemperedLogisticLoss(t1=1.0, t2=1.0), (logits, labels)),
        ("BinaryBiTempered", L.BinaryBiTemperedLogisticLoss(t1=0.8, t2=1.2), (binary, binary_target)),
        ("BinaryBiTempered.ignore", L.BinaryBiTemperedLogisticLoss(t1=0.8, t2=1.2, ignore_index=-100),
         (binary, binary_ignored)),
        ("FocalCosine", L.FocalCosineLoss(), (logits.flatten(2).mean(-1), labels[:, 0, 0])),
        ("QualityFocal", L.QualityFocalLoss(), (binary, torch.rand(2, 1, 16, 16))),
        ("Wing", L.WingLoss(), (torch.randn(2, 10), torch.randn(2, 10))),
        ("LogCosh", L.LogCoshLoss(), (torch.randn(2, 10), torch.randn(2, 10))),
    ]


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-toolbelt {pytorch_toolbelt.__version__}")
