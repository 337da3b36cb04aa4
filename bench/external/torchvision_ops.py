"""torchvision's box operations in compiled code, for the static pass against dynamo.

torchvision's CUDA build does not load beside the CPU torch of CI and of most development machines,
so this is no fixture: run it where torchvision is installed (the device machine has it), as

    python -m breaklint.dynamic.calibrate bench/external/torchvision_ops.py

Each `# expect:` marks a line dynamo breaks on; the ops without a marker trace. Results:
bench/results/external_ops.txt.
"""

import torch
import torchvision
from torch import nn
from torchvision.ops import batched_nms, box_iou, boxes as box_ops, nms, remove_small_boxes, roi_align


class Postprocess(nn.Module):
    """A detection head's last step: per-class NMS, then the best boxes."""

    def forward(self, boxes, scores, labels):
        keep = batched_nms(boxes, scores, labels, 0.5)  # expect: BL301
        keep = keep[:10]
        return boxes[keep], scores[keep], labels[keep]


@torch.compile
def qualified(boxes, scores):
    keep = torchvision.ops.nms(boxes, scores, 0.5)  # expect: BL301
    return keep.numel()


@torch.compile
def by_module(boxes, scores, labels):
    keep = box_ops.batched_nms(boxes, scores, labels, 0.5)  # expect: BL301
    return boxes[keep]


@torch.compile
def the_op(boxes, scores):
    return torch.ops.torchvision.nms(boxes, scores, 0.5)  # expect: BL301


@torch.compile
def plain(boxes, scores):
    return nms(boxes, scores, 0.7)  # expect: BL301


@torch.compile
def small(boxes):
    keep = remove_small_boxes(boxes, 1.0)  # expect: BL301
    return boxes[keep]


@torch.compile
def matching(boxes, gt):
    iou = box_iou(boxes, gt)
    best, idx = iou.max(1)
    return best, idx


@torch.compile
def pooled(features, boxes):
    return roi_align(features, [boxes], (2, 2), spatial_scale=0.5)


def cases():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    boxes = torch.rand(50, 4, device=device) * 5
    boxes[:, 2:] += boxes[:, :2] + 0.5
    scores = torch.rand(50, device=device)
    labels = torch.randint(0, 3, (50,), device=device)
    features = torch.randn(1, 3, 16, 16, device=device)
    return [(Postprocess(), (boxes, scores, labels)), (qualified, (boxes, scores)),
            (by_module, (boxes, scores, labels)), (the_op, (boxes, scores)), (plain, (boxes, scores)),
            (small, (boxes,)), (matching, (boxes, boxes[:5])), (pooled, (features, boxes))]
