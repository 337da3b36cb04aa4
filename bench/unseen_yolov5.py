"""YOLOv5 (the `yolov5` package), a library the analysis was never shown (in neither half of the harness,
not reserved): its detection, segmentation and classification models built from their smallest
configurations and run forward (eval and train mode), each detection and segmentation model's training
loss on its train-mode outputs and a few labelled boxes (and masks), and the post-processing: non-maximum
suppression over the eval outputs (plain, multi-label, per class, with mask coefficients), the masks
made from the prototypes, box rescaling and the IoU helpers, under dynamo against the static pass on the
same tree.

Run it where torch and yolov5 are installed together (here: `pip install torch==2.14.1
torchvision==0.29.1 seaborn "setuptools<81"`, then `pip install --no-deps yolov5==7.0.14`: its pins
would pull an old huggingface-hub it does not need for this), from the repository root:

    python bench/unseen_yolov5.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_yolov5.txt.
"""

import contextlib
import io
import logging
import warnings
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import yolov5
from yolov5.models.yolo import ClassificationModel, DetectionModel, SegmentationModel
from yolov5.utils import general, metrics
from yolov5.utils.loss import ComputeLoss
from yolov5.utils.segment import general as segment
from yolov5.utils.segment.loss import ComputeLoss as ComputeSegmentLoss

warnings.filterwarnings("ignore")
logging.getLogger("yolov5").setLevel(logging.ERROR)
ROOT = Path(yolov5.__file__).resolve().parent
CONFIGS = ROOT / "models"
HYP = {"box": 0.05, "obj": 1.0, "cls": 0.5, "anchor_t": 4.0, "cls_pw": 1.0, "obj_pw": 1.0, "fl_gamma": 0.0,
       "label_smoothing": 0.0}
ENTRY_POINTS = ["yolov5.models.yolo.DetectionModel", "yolov5.models.yolo.SegmentationModel",
                "yolov5.models.yolo.ClassificationModel", "yolov5.utils.loss.ComputeLoss.__call__",
                "yolov5.utils.segment.loss.ComputeLoss.__call__", "yolov5.utils.general.non_max_suppression",
                "yolov5.utils.general.scale_boxes", "yolov5.utils.segment.general.process_mask",
                "yolov5.utils.segment.general.process_mask_native", "yolov5.utils.metrics.bbox_iou",
                "yolov5.utils.metrics.box_iou"]


def _quiet(build):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return build()


def _targets(n=6, images=2):
    """(image, class, x, y, w, h) rows, normalised boxes."""
    xy = torch.rand(n, 2) * 0.6 + 0.2
    wh = torch.rand(n, 2) * 0.2 + 0.05
    return torch.cat([torch.arange(n).remainder(images).float()[:, None], torch.randint(0, 80, (n, 1)).float(),
                      xy, wh], 1)


def cases():
    torch.manual_seed(0)
    image = torch.rand(2, 3, 128, 128)
    out = []
    for size in ("n", "s"):
        model = _quiet(lambda: DetectionModel(str(CONFIGS / f"yolov5{size}.yaml")))
        model.hyp = HYP
        out.append((f"detect_{size}@eval", model.eval(), (image,)))
        trained = _quiet(lambda: DetectionModel(str(CONFIGS / f"yolov5{size}.yaml"))).train()
        trained.hyp = HYP
        out.append((f"detect_{size}@train", trained, (image,)))
        preds = trained(image)
        loss = ComputeLoss(trained)
        out.append((f"loss_{size}", loss, ([p.detach() for p in preds], _targets())))

        def step(x, targets, model=trained, loss=loss):
            value, items = loss(model(x), targets)
            value.backward()
            return value
        out.append((f"step_{size}", step, (image, _targets())))
    detections = model.eval()(image)[0]
    detections[..., 4] = torch.rand(detections.shape[:2])  # objectness spread so that some boxes pass
    out.append(("nms", general.non_max_suppression, (detections,)))
    out.append(("nms_multi_label", lambda p: general.non_max_suppression(p, 0.1, multi_label=True), (detections,)))
    out.append(("nms_classes", lambda p: general.non_max_suppression(p, 0.1, classes=[0, 1, 2]), (detections,)))
    out.append(("nms_agnostic", lambda p: general.non_max_suppression(p, 0.1, agnostic=True), (detections,)))
    seg = _quiet(lambda: SegmentationModel(str(CONFIGS / "segment" / "yolov5n-seg.yaml")))
    seg.hyp = HYP
    out.append(("segment@eval", seg.eval(), (image,)))
    seg_train = _quiet(lambda: SegmentationModel(str(CONFIGS / "segment" / "yolov5n-seg.yaml"))).train()
    seg_train.hyp = HYP
    out.append(("segment@train", seg_train, (image,)))
    p = seg_train(image)
    masks = (torch.rand(6, 32, 32) > 0.5).float()
    out.append(("segment_loss", ComputeSegmentLoss(seg_train), (([q.detach() for q in p[0]], p[1].detach()),
                                                                 _targets(), masks)))
    with torch.no_grad():
        raw = seg.eval()(image)
    seg_out, protos = raw[0], raw[1][-1] if isinstance(raw[1], (list, tuple)) else raw[1]
    seg_out[..., 4] = torch.rand(seg_out.shape[:2])
    out.append(("nms_masks", lambda q: general.non_max_suppression(q, 0.1, nm=32), (seg_out,)))
    boxes = torch.tensor([[10.0, 10, 60, 60], [20, 30, 100, 90], [5, 5, 40, 80]])
    coeffs = torch.randn(3, 32)
    out.append(("process_mask", lambda pr, c, b: segment.process_mask(pr, c, b, (128, 128), upsample=True),
                (protos[0], coeffs, boxes)))
    out.append(("process_mask_native", lambda pr, c, b: segment.process_mask_native(pr, c, b, (128, 128)),
                (protos[0], coeffs, boxes)))
    out.append(("scale_boxes", lambda b: general.scale_boxes((128, 128), b, (480, 640)), (boxes.clone(),)))
    out.append(("bbox_iou_ciou", lambda a, b: metrics.bbox_iou(a, b, xywh=False, CIoU=True), (boxes[:1], boxes)))
    out.append(("box_iou", metrics.box_iou, (boxes, boxes)))
    cls_model = _quiet(lambda: ClassificationModel(model=_quiet(
        lambda: DetectionModel(str(CONFIGS / "yolov5n.yaml"))), nc=10))
    out.append(("classify@eval", cls_model.eval(), (image,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"yolov5 {yolov5.__version__}")
