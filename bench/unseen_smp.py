"""segmentation_models_pytorch, a library the analysis was never shown (in neither half of the harness,
not reserved): its segmentation models (with smp's own encoders, no pretrained weights), its losses in
each mode and its metrics, under dynamo against the static pass on the same tree.

smp imports torchvision and timm (timm only as a dependency: no timm encoder runs here, and the static
pass lints smp's tree alone), so run it where torch and torchvision are installed together (here:
`pip install torch==2.14.1 torchvision==0.29.1 segmentation_models_pytorch`), from the repository root:

    python bench/unseen_smp.py [--src OTHER_TREE/src]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_smp.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import segmentation_models_pytorch as smp
import torch
from segmentation_models_pytorch import losses as L
from segmentation_models_pytorch.metrics import functional as F

ROOT = Path(smp.__file__).resolve().parent
ENTRY_POINTS = ["segmentation_models_pytorch.metrics.functional.get_stats",
                "segmentation_models_pytorch.metrics.functional.iou_score"]


def cases():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(2, 3, 64, 64, generator=g)
    logits = torch.randn(2, 4, 32, 32, generator=g)
    labels = torch.randint(0, 4, (2, 32, 32), generator=g)
    labels_ignored = labels.clone()
    labels_ignored[:, :4] = 255
    binary = torch.randint(0, 2, (2, 1, 32, 32), generator=g).float()
    multilabel = torch.randint(0, 2, (2, 4, 32, 32), generator=g).float()
    out = []
    for name, model in (("unet", smp.Unet("resnet18", encoder_weights=None, classes=4)),
                        ("unetpp", smp.UnetPlusPlus("resnet18", encoder_weights=None, classes=4)),
                        ("fpn", smp.FPN("resnet18", encoder_weights=None, classes=4)),
                        ("deeplabv3plus", smp.DeepLabV3Plus("resnet18", encoder_weights=None, classes=4)),
                        ("pspnet", smp.PSPNet("resnet18", encoder_weights=None, classes=4)),
                        ("linknet", smp.Linknet("resnet18", encoder_weights=None, classes=4)),
                        ("manet", smp.MAnet("resnet18", encoder_weights=None, classes=4)),
                        ("pan", smp.PAN("resnet18", encoder_weights=None, classes=4)),
                        ("upernet", smp.UPerNet("resnet18", encoder_weights=None, classes=4)),
                        ("segformer", smp.Segformer("mit_b0", encoder_weights=None, classes=4)),
                        ("unet_aux", smp.Unet("resnet18", encoder_weights=None, classes=4, aux_params={"classes": 3})),
                        ("unet_mobileone", smp.Unet("mobileone_s0", encoder_weights=None, classes=4))):
        out.append((f"{name}@eval", model.eval(), (x,)))
        out.append((f"{name}@train", model.train(), (x,)))
    for mode, target in (("multiclass", labels), ("binary", binary), ("multilabel", multilabel)):
        pred = logits[:, :1] if mode == "binary" else logits
        for loss in (L.DiceLoss(mode), L.JaccardLoss(mode), L.FocalLoss(mode), L.LovaszLoss(mode),
                     L.LovaszLoss(mode, per_image=True), L.TverskyLoss(mode)):
            out.append((f"{type(loss).__name__}.{mode}", loss, (pred, target)))
    for loss in (L.DiceLoss("multiclass", ignore_index=255), L.JaccardLoss("multiclass", ignore_index=255),
                 L.FocalLoss("multiclass", ignore_index=255), L.LovaszLoss("multiclass", ignore_index=255),
                 L.TverskyLoss("multiclass", ignore_index=255), L.SoftCrossEntropyLoss(smooth_factor=0.1, ignore_index=255)):
        out.append((f"{type(loss).__name__}.ignore", loss, (logits, labels_ignored)))
    out.append(("SoftBCE", L.SoftBCEWithLogitsLoss(smooth_factor=0.1, ignore_index=-100), (logits[:, :1], binary)))
    out.append(("MCC", L.MCCLoss(), (logits[:, :1].sigmoid(), binary)))
    out.append(("get_stats.multiclass", lambda p, t: F.get_stats(p, t, mode="multiclass", num_classes=4),
                (logits.argmax(1), labels)))
    out.append(("get_stats.ignore", lambda p, t: F.get_stats(p, t, mode="multiclass", num_classes=4, ignore_index=255),
                (logits.argmax(1), labels_ignored)))
    out.append(("iou_score", lambda p, t: F.iou_score(*F.get_stats(p, t, mode="binary", threshold=0.5), reduction="micro"),
                (logits[:, :1].sigmoid(), binary.long())))
    return out


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, f"segmentation_models_pytorch {smp.__version__}")


if __name__ == "__main__":
    main()
