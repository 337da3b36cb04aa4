"""A small detection head with the post-processing that usually breaks graphs."""

import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class DetectionHead(nn.Module):
    def __init__(self, channels: int = 16, num_classes: int = 4, score_threshold: float = 0.5):
        super().__init__()
        self.cls = nn.Conv2d(channels, num_classes, 1)
        self.box = nn.Conv2d(channels, 4, 1)
        self.score_threshold = score_threshold

    def forward(self, features):
        scores = self.cls(features).sigmoid().flatten(2)
        boxes = self.box(features).flatten(2).transpose(1, 2)
        logger.debug("head output %s", scores.shape)
        best, labels = scores[0].max(dim=0)
        keep = best > self.score_threshold
        kept_boxes = boxes[0][keep]
        if kept_boxes.numel() == 0:
            return kept_boxes, labels
        return self.decode(kept_boxes), labels[keep]

    def decode(self, boxes):
        centers = boxes[:, :2]
        sizes = boxes[:, 2:].exp()
        return torch.cat([centers - sizes / 2, centers + sizes / 2], dim=1)


def cases():
    torch.manual_seed(0)
    return [(DetectionHead().eval(), (torch.randn(1, 16, 4, 4),))]
