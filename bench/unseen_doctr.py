"""docTR (python-doctr), a library the analysis was never shown (in neither half of the harness, not
reserved): its text detection models (with their post-processing, and their losses when given targets)
and its text recognition models (decoding, and their losses when given words), under dynamo against
the static pass on the same tree.

docTR imports torchvision (only as a dependency: its backbones are built from torchvision's classes,
and the static pass lints docTR's tree alone), so run it where torch and torchvision are installed
together (here: `pip install torch==2.14.1 torchvision==0.29.1 python-doctr`), from the repository root:

    python bench/unseen_doctr.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_doctr.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import doctr
import numpy as np
import torch
from doctr.models import detection, recognition

ROOT = Path(doctr.__file__).resolve().parent

DETECTION = ("db_resnet34", "db_mobilenet_v3_large", "linknet_resnet18", "fast_tiny")
RECOGNITION = ("crnn_mobilenet_v3_small", "crnn_vgg16_bn", "sar_resnet31", "master", "vitstr_small",
               "parseq", "viptr_tiny")


def _detection_target(n: int) -> list[dict[str, np.ndarray]]:
    boxes = np.array([[0.1, 0.1, 0.4, 0.3], [0.5, 0.5, 0.9, 0.7]], dtype=np.float32)
    return [{"words": boxes.copy()} for _ in range(n)]


def cases():
    g = torch.Generator().manual_seed(0)
    pages = torch.rand(2, 3, 256, 256, generator=g)
    crops = torch.rand(2, 3, 32, 128, generator=g)
    words = ["hello", "docs"]
    out = []
    for arch in DETECTION:
        model = getattr(detection, arch)(pretrained=False, pretrained_backbone=False)
        out.append((f"{arch}@eval", model.eval(), (pages,)))
        out.append((f"{arch}@preds", lambda x, m=model.eval(): m(x, return_preds=True), (pages,)))
        out.append((f"{arch}@train", lambda x, m=model: m.train()(x, target=_detection_target(2)), (pages,)))
    for arch in RECOGNITION:
        model = getattr(recognition, arch)(pretrained=False, pretrained_backbone=False)
        out.append((f"{arch}@eval", lambda x, m=model: m.eval()(x, return_preds=True), (crops,)))
        out.append((f"{arch}@train", lambda x, m=model: m.train()(x, target=words), (crops,)))
    return out


ENTRY_POINTS: list[str] = []


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, f"python-doctr {doctr.__version__}")


if __name__ == "__main__":
    main()
