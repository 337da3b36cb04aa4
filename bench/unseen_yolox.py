"""YOLOX, a library the analysis was never shown (in neither half of the harness, not reserved): its
detectors (the nano-sized and small PAFPN backbones, and the Darknet-53 FPN one) run forward in eval
mode, trained one step on labelled boxes in train mode (the head's loss with its SimOTA label
assignment, with and without the L1 term), the post-processing that turns the eval outputs into boxes
(per class and class-agnostic non-maximum suppression), and the IoU helpers and loss, under dynamo
against the static pass on the same tree.

Run it where torch and YOLOX are installed together (here: `pip install torch==2.14.1 torchvision==0.29.1
loguru tabulate`, then `pip install --no-deps --no-build-isolation yolox==0.3.0` from its source
distribution: its pins would pull an old onnx it does not need for this), from the repository root:

    python bench/unseen_yolox.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_yolox.txt.
"""

import warnings
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import yolox
from yolox.models import YOLOFPN, YOLOPAFPN, YOLOX, IOUloss, YOLOXHead
from yolox.utils import bboxes_iou, postprocess

warnings.filterwarnings("ignore")
ROOT = Path(yolox.__file__).resolve().parent
ENTRY_POINTS = ["yolox.models.YOLOX", "yolox.models.YOLOXHead", "yolox.models.IOUloss", "yolox.utils.postprocess",
                "yolox.utils.bboxes_iou"]


def _targets():
    """Per image, up to 10 rows of (class, centre x, centre y, width, height) in pixels, zero-padded."""
    targets = torch.zeros(2, 10, 5)
    targets[0, :3] = torch.tensor([[1, 50, 50, 20, 20], [2, 30, 60, 10, 30], [5, 90, 90, 30, 30.]])
    targets[1, :2] = torch.tensor([[0, 64, 64, 40, 40], [7, 20, 100, 16, 12.]])
    return targets


def _detector(depth, width, fpn=None, l1=False):
    head = YOLOXHead(80, width, in_channels=[128, 256, 512] if fpn is YOLOFPN else [256, 512, 1024])
    head.use_l1 = l1
    return YOLOX(fpn() if fpn is YOLOFPN else YOLOPAFPN(depth, width), head)


def _step(model):
    def step(images, targets):
        losses = model(images, targets)
        losses["total_loss"].backward()
        return losses["total_loss"]
    return step


def cases():
    torch.manual_seed(0)
    images = torch.rand(2, 3, 128, 128)
    out = []
    for name, depth, width in (("nano", 0.33, 0.25), ("small", 0.33, 0.5)):
        out.append((f"{name}@eval", _detector(depth, width).eval(), (images,)))
        out.append((f"{name}@train", _step(_detector(depth, width).train()), (images, _targets())))
        out.append((f"{name}_l1@train", _step(_detector(depth, width, l1=True).train()), (images, _targets())))
    out.append(("darknet53@eval", _detector(1.0, 1.0, YOLOFPN).eval(), (images,)))
    with torch.no_grad():
        raw = _detector(0.33, 0.25).eval()(images)
    raw[..., 4] = torch.rand(raw.shape[:2])  # objectness spread so that some boxes pass
    out.append(("postprocess", lambda p: postprocess(p, 80, 0.1, 0.45), (raw,)))
    out.append(("postprocess_agnostic", lambda p: postprocess(p, 80, 0.1, 0.45, class_agnostic=True), (raw,)))
    boxes = torch.tensor([[10.0, 10, 60, 60], [20, 30, 100, 90], [5, 5, 40, 80]])
    out.append(("bboxes_iou", bboxes_iou, (boxes, boxes)))
    out.append(("bboxes_iou_xywh", lambda a, b: bboxes_iou(a, b, xyxy=False), (boxes, boxes)))
    out.append(("iou_loss", IOUloss(reduction="mean"), (boxes, boxes.flip(0))))
    out.append(("giou_loss", IOUloss(reduction="sum", loss_type="giou"), (boxes, boxes.flip(0))))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"yolox {yolox.__version__}")
