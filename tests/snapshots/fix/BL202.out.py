import itertools

import torch


@torch.compile
def tensor_and(x: torch.Tensor):
    x = x * 2
    both = torch.logical_and(x.any(), x.all())  # expect: BL202
    return x + both


@torch.compile
def tensor_not(x: torch.Tensor):
    x = x * 2
    flag = torch.logical_not(x.any())  # expect: BL202
    return x + flag


@torch.compile
def elementwise(x, use_bias: bool = True):
    x = x * 2
    both = (x > 0) & (x < 1)
    keep = use_bias and True
    return x + both + keep


@torch.compile
def builtin_any(x):
    x = x * 2
    if any(x > 0):  # expect: BL202
        x = x + 1
    return x


@torch.compile
def builtin_all_of_tests(x):
    x = x * 2
    ok = all([x.sum() > 0, x.mean() > 0])  # expect: BL202
    return x + ok


@torch.compile
def builtin_any_of_flags(x, names=("a", "b")):
    x = x * 2
    ok = any(n == "a" for n in names)
    return x + ok


@torch.compile
def sorted_tensors(x):
    x = x * 2
    low = sorted([x.sum(), x.mean()])[0]  # expect: BL202
    return x + low


@torch.compile
def sorted_items(x):
    x = x * 2
    parts = {"b": x.sum(), "a": x.mean()}
    total = x.new_zeros(())
    for _, part in sorted(parts.items()):  # expect: BL202
        total = total + part
    return total


@torch.compile
def sorted_pairs(x):
    x = x * 2
    pairs = [(1, x.sum()), (0, x.mean())]
    return torch.stack([t for _, t in sorted(pairs)])  # expect: BL202


@torch.compile
def sorted_pairs_by_key(x):
    x = x * 2
    pairs = [(1, x.sum()), (0, x.mean())]
    return torch.stack([t for _, t in sorted(pairs, key=lambda p: p[0])])


@torch.compile
def among_seen(x):
    x = x * 2
    seen = [x.sum(), x.mean()]
    return x + 1 if x.max() in seen else x  # expect: BL202


@torch.compile
def sorted_by_key(boxes):
    boxes = boxes * 2
    rows = sorted(boxes, key=lambda b: b[0])  # expect: BL202
    return torch.stack(rows)


@torch.compile
def best_row(boxes):
    boxes = boxes * 2
    best = max(boxes, key=lambda b: b.sum())  # expect: BL202
    return best + 1


@torch.compile
def sorted_names(x, names=("b", "a")):
    x = x * 2
    order = sorted(names, key=lambda n: len(n))
    return x + len(order)


@torch.compile
def holds_zero(x):
    x = torch.round(x * 2)
    return x + 1 if 0.0 in x else x  # expect: BL202


@torch.compile
def runs_of_equal(x):
    x = torch.round(x * 2)
    n = 0
    for _, group in itertools.groupby(range(x.shape[0]), key=lambda i: x[i]):  # expect: BL202
        n += 1
    return x + n


@torch.compile
def runs_of_names(x, names=("a", "a", "b")):
    x = x * 2
    return x + len(list(itertools.groupby(names)))


@torch.compile
def runs_then_counted(x):
    x = torch.round(x * 2)
    runs = itertools.groupby(range(x.shape[0]), key=lambda i: x[i])  # expect: BL202
    n = 0
    for _, group in runs:  # expect: BL202
        n += len(list(group))
    return x + n


@torch.compile
def runs_listed(x):
    x = torch.round(x * 2)
    runs = itertools.groupby(range(x.shape[0]), key=lambda i: x[i])  # expect: BL202
    return x + len(list(runs))  # expect: BL202


@torch.compile
def name_runs_counted(x, names=("a", "a", "b")):
    runs = itertools.groupby(names)
    n = 0
    for _, group in runs:
        n += 1
    return x * 2 + n


def cases():
    x = torch.randn(8)
    boxes = torch.randn(4, 4)
    return [(tensor_and, (x,)), (tensor_not, (x,)), (elementwise, (x,)), (builtin_any, (x,)),
            (builtin_all_of_tests, (x,)), (builtin_any_of_flags, (x,)), (sorted_tensors, (x,)), (sorted_items, (x,)),
            (sorted_pairs, (x,)), (sorted_pairs_by_key, (x,)), (among_seen, (x,)),
            (sorted_by_key, (boxes,)), (best_row, (boxes,)), (sorted_names, (x,)), (holds_zero, (x,)),
            (runs_of_equal, (x,)), (runs_of_names, (x,)), (runs_then_counted, (x,)), (runs_listed, (x,)),
            (name_runs_counted, (x,))]
