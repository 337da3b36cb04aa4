import numpy as np
import torch


@torch.compile
def indices(x):
    x = x * 2
    idx = torch.nonzero(x > 0)  # expect: BL301
    return idx + 1


@torch.compile
def method_nonzero(x):
    x = x * 2
    idx = (x > 0).nonzero()  # expect: BL301
    return idx + 1


@torch.compile
def one_arg_where(x):
    x = x * 2
    rows = torch.where(x > 0)[0]  # expect: BL301
    return rows + 1


@torch.compile
def uniques(x):
    x = x * 2
    values = torch.unique(x)  # expect: BL301
    return values + 1


@torch.compile
def labels_are_binary(target, ignore_index: int = -1):
    target = target * 1
    values = target  # expect: BL301
    return torch.any((values != 0) & (values != 1) & (values != ignore_index))


@torch.compile
def label_count(target):
    target = target * 1
    values = target.unique()  # expect: BL301
    return values.numel() + (values != 0).all()


@torch.compile
def first_and_last_match(x: torch.Tensor):
    x = x * 2
    first = (x > 0).int().argmax()  # expect: BL301
    last = ((x > 0).shape[0] - 1 - (x > 0).int().flip(0).argmax())  # expect: BL301
    return x.sum() + first + last


@torch.compile
def selected(x):
    x = x * 2
    values = torch.masked_select(x, x > 0)  # expect: BL301
    return values + 1


@torch.compile
def counts(x):
    x = x * 2
    c = torch.bincount(x.long().abs())  # expect: BL301
    return c + 1


@torch.compile
def repeats(x):
    x = x * 2
    r = torch.repeat_interleave(x, torch.tensor([1, 2, 1, 2, 1, 2, 1, 2]))  # expect: BL301
    return r + 1


@torch.compile
def static_forms(x):
    x = x * 2
    a = torch.where(x > 0, x, 0)
    b = torch.nonzero_static(x, size=8)
    c = torch.repeat_interleave(x, 2)
    d = torch.repeat_interleave(x, torch.tensor([1, 2, 1, 2, 1, 2, 1, 2]), output_size=12)
    return a.sum() + b.sum() + c.sum() + d.sum()


@torch.compile
def one_hot_classes(x):
    labels = (x * 2).abs().long()
    inferred = torch.nn.functional.one_hot(labels)  # expect: BL301
    given = torch.nn.functional.one_hot(labels, num_classes=16)
    return inferred.sum() + given.sum()


@torch.compile
def all_pairs(x):
    x = x * 2
    pairs = torch.combinations(x[:4])  # expect: BL301
    rows, cols = torch.triu_indices(4, 4, offset=1)
    return pairs.sum() + (x[rows] * x[cols]).sum()



@torch.compile
def alignment_loss(x):
    log_probs = (x.view(8, 1, 1) * torch.ones(1, 1, 3)).log_softmax(2)
    targets = torch.tensor([[1, 2]])
    return torch.nn.functional.ctc_loss(log_probs, targets, [8], [2])  # expect: BL301


@torch.compile
def least_squares(x):
    a, y = torch.stack([x, x ** 2, torch.ones_like(x)], 1), (x + 3).unsqueeze(1)
    fitted = torch.linalg.lstsq(a, y).solution  # expect: BL301
    normal = torch.linalg.solve(a.mT @ a + 1e-3 * torch.eye(3), a.mT @ y)
    return a @ fitted + a @ normal  # the fitted values (coefficients near 0 differ in their last digits)


@torch.compile
def numpy_post_processing(x: torch.Tensor):
    scores = np.asarray(x * 2)
    keep = np.nonzero(scores > 0)[0]  # expect: BL301
    rows = np.where(scores > 1)[0]  # expect: BL301
    values = np.unique(scores)  # expect: BL301
    return torch.from_numpy(keep).sum() + torch.from_numpy(rows).sum() + torch.from_numpy(values).sum()


class AdaptiveHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.out = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8])

    def forward(self, h, target):
        return self.loss(self.proj(h), target) + self.out.log_prob(h).sum()

    def loss(self, h, target):
        return self.out(h, target).loss  # expect: BL301


def cases():
    x = torch.randn(8)
    labels = torch.tensor([0, 1, 1, 0, 2, 1])
    return [
        (indices, (x,)), (method_nonzero, (x,)), (one_arg_where, (x,)), (uniques, (x,)),
        (labels_are_binary, (labels,)), (label_count, (labels,)), (first_and_last_match, (x,)),
        (selected, (x,)), (counts, (x,)), (repeats, (x,)), (static_forms, (x,)), (one_hot_classes, (x,)),
        (all_pairs, (x,)), (alignment_loss, (x,)), (least_squares, (x,)), (numpy_post_processing, (x,)),
        (AdaptiveHead(), (torch.randn(6, 8), torch.tensor([0, 3, 5, 9, 2, 7]))),
    ]
