"""A model that compiles into a single graph: breaklint has nothing to say about it."""

import torch
from torch import nn


class ConvNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.features(x).flatten(1)
        if x.shape[0] > 1:
            x = x - x.mean(dim=0, keepdim=True)
        logits = self.head(x)
        return torch.where(logits > 0, logits, 0.1 * logits)


def train_step(model, batch, optimizer):
    # Not compiled: `.item()` here costs nothing.
    loss = model(batch).square().mean()
    loss.backward()
    optimizer.step()
    return loss.item()


def cases():
    torch.manual_seed(0)
    return [(ConvNet().eval(), (torch.randn(2, 3, 8, 8),))]
