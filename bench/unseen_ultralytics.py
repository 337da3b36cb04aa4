"""ultralytics, a library the analysis was never shown (in neither half of the harness, not reserved):
its detection, segmentation, pose and oriented-box models in eval and training (the loss computed in
forward when the input is a batch), RT-DETR, and the post-processing a user would compile, under
dynamo against the static pass on the same tree.

ultralytics needs torchvision, so run it where torch and torchvision are installed together (here:
`pip install torch==2.14.1 torchvision==0.29.1 ultralytics`; the device machine has torch and
torchvision too), from the repository root:

    python bench/unseen_ultralytics.py [--src OTHER_TREE/src]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_ultralytics.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import ultralytics
from ultralytics.cfg import get_cfg
from ultralytics.nn import tasks
from ultralytics.utils import ops
from ultralytics.utils.nms import non_max_suppression

ROOT = Path(ultralytics.__file__).resolve().parent
ENTRY_POINTS = [
    "ultralytics.utils.nms.non_max_suppression",
    "ultralytics.utils.ops.process_mask",
    "ultralytics.utils.ops.scale_boxes",
]
SIZE = 128


def batch(n_img: int, kind: str) -> dict:
    """A training batch as the data loader builds it: normalised xywh boxes with their image's index."""
    g = torch.Generator().manual_seed(0)
    n = 5
    out = {"img": torch.rand(n_img, 3, SIZE, SIZE, generator=g),
           "batch_idx": torch.tensor([0.0, 0, 0, 1, 1]),
           "cls": torch.randint(0, 3, (n, 1), generator=g).float(),
           "bboxes": torch.rand(n, 4, generator=g) * 0.4 + 0.2}
    if kind == "seg":
        out["masks"] = torch.randint(0, n + 1, (n_img, SIZE // 4, SIZE // 4), generator=g).float()
        out["sem_masks"] = torch.randint(0, 3, (n_img, SIZE // 4, SIZE // 4), generator=g)  # (yolo26's semantic branch)
    if kind == "pose":
        out["keypoints"] = torch.rand(n, 17, 3, generator=g)
    if kind == "obb":
        out["bboxes"] = torch.cat([out["bboxes"], torch.rand(n, 1, generator=g)], 1)
    return out


def cases():
    out = []
    x = torch.rand(2, 3, SIZE, SIZE)
    for kind, cls, cfgs in (("det", tasks.DetectionModel, ("yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml", "yolov10n.yaml")),
                            ("seg", tasks.SegmentationModel, ("yolov8n-seg.yaml", "yolo26n-seg.yaml")),
                            ("pose", tasks.PoseModel, ("yolov8n-pose.yaml", "yolo26n-pose.yaml")),
                            ("obb", tasks.OBBModel, ("yolov8n-obb.yaml", "yolo26n-obb.yaml"))):
        for cfg in cfgs:
            try:
                model = cls(cfg, nc=3, verbose=False)
            except Exception as e:
                print("no", cfg, type(e).__name__, e)
                continue
            model.args = get_cfg()
            out.append((f"{cfg}@eval", model.eval(), (x,)))
            trained = cls(cfg, nc=3, verbose=False).train()
            trained.args = get_cfg()
            out.append((f"{cfg}@train", trained, (batch(2, kind),)))
    try:
        detr = tasks.RTDETRDetectionModel("rtdetr-l.yaml", nc=3, verbose=False)
        detr.args = get_cfg()
        out.append(("rtdetr@eval", detr.eval(), (torch.rand(1, 3, 160, 160),)))
        trained = tasks.RTDETRDetectionModel("rtdetr-l.yaml", nc=3, verbose=False).train()
        trained.args = get_cfg()
        trained.nc = 3  # (the trainer sets it from the dataset)
        b = batch(2, "det")
        b["img"] = torch.rand(2, 3, 160, 160)
        out.append(("rtdetr@train", trained, (b,)))
    except Exception as e:
        print("no rtdetr", type(e).__name__, e)
    pred = torch.cat([torch.rand(2, 4, 300) * SIZE, torch.rand(2, 3, 300)], 1)
    out.append(("nms", lambda p: non_max_suppression(p, 0.25, 0.7), (pred,)))
    out.append(("nms_multi", lambda p: non_max_suppression(p, 0.25, 0.7, multi_label=True, classes=[0, 2]), (pred,)))
    out.append(("nms_e2e", lambda p: non_max_suppression(p, 0.25, 0.7, end2end=True),
                (torch.cat([torch.rand(2, 300, 4) * SIZE, torch.rand(2, 300, 2)], 2),)))
    boxes = torch.rand(10, 4) * 64
    boxes[:, 2:] += boxes[:, :2]
    out.append(("process_mask", lambda p, m, b: ops.process_mask(p, m, b, (SIZE, SIZE), upsample=True),
                (torch.rand(32, 32, 32), torch.rand(10, 32), boxes)))
    out.append(("scale_boxes", lambda b: ops.scale_boxes((SIZE, SIZE), b, (480, 640)), (boxes,)))
    return out


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, f"ultralytics {ultralytics.__version__}")


if __name__ == "__main__":
    main()
