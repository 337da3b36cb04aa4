"""TorchEval, a library the analysis was never shown (in neither half of the harness, not reserved): its
functional metrics (classification: accuracy, precision, recall, F1, confusion matrices, AUROC and
AUPRC exact and binned, precision-recall curves, recall at a fixed precision, normalized entropy;
regression; ranking; aggregation; image; text), each compiled as a user compiles a metric, under dynamo
against the static pass on the same tree.

Run it where torch and TorchEval are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps torcheval==0.0.7`), from the repository root:

    python bench/unseen_torcheval.py [--src OTHER_TREE/src] [--sites FILE]

The metrics taking only Python values (`throughput`) or strings (BLEU, word error rates) are left out.
`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torcheval.txt.
"""

import warnings
from functools import partial
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import torcheval  # noqa: E402
from torcheval.metrics import functional as F  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(torcheval.__file__).resolve().parent
LEFT_OUT = {"throughput", "bleu_score", "word_error_rate", "word_information_preserved", "word_information_lost"}
ENTRY_POINTS = [f"torcheval.metrics.functional.{name}" for name in F.__all__ if name not in LEFT_OUT]
N, C = 16, 3


def cases():
    torch.manual_seed(0)
    prob, label = torch.rand(N), torch.randint(0, 2, (N,))
    logits, klass = torch.randn(N, C), torch.randint(0, C, (N,))
    multi, multi_label = torch.rand(N, C), torch.randint(0, 2, (N, C))
    tasks, task_label = torch.rand(2, N), torch.randint(0, 2, (2, N))
    binary = (prob, label)
    by_class = (logits, klass)
    by_label = (multi, multi_label)
    out = []

    def add(name, args, **kwargs):
        out.append((name + "".join(f"_{k}={v}" for k, v in kwargs.items() if not torch.is_tensor(v)),
                    partial(getattr(F, name), **kwargs), args))
    for name in ("binary_accuracy", "binary_precision", "binary_recall", "binary_f1_score", "binary_auroc",
                 "binary_auprc", "binary_precision_recall_curve", "binary_binned_auprc", "binary_binned_auroc",
                 "binary_binned_precision_recall_curve", "binary_confusion_matrix", "weighted_calibration"):
        add(name, binary)
    add("binary_confusion_matrix", binary, normalize="all")
    add("binary_binned_precision_recall_curve", binary, threshold=torch.linspace(0, 1, 5))
    add("binary_binned_auroc", binary, threshold=[0.0, 0.3, 0.6, 1.0])
    add("binary_recall_at_fixed_precision", binary, min_precision=0.5)
    add("binary_normalized_entropy", (prob, label.float()))
    add("binary_normalized_entropy", (torch.randn(N), label.float()), from_logits=True)
    add("binary_auroc", (tasks, task_label), num_tasks=2)
    add("binary_auprc", (tasks, task_label), num_tasks=2)
    add("binary_binned_auprc", (tasks, task_label), num_tasks=2)
    add("click_through_rate", (label,))
    add("weighted_calibration", (tasks, task_label), num_tasks=2)
    for name in ("multiclass_accuracy", "multiclass_precision", "multiclass_recall", "multiclass_f1_score"):
        add(name, by_class)
        add(name, by_class, num_classes=C, average="macro")
        add(name, by_class, num_classes=C, average=None)
    add("multiclass_accuracy", by_class, k=2)
    add("multiclass_confusion_matrix", by_class, num_classes=C)
    add("multiclass_confusion_matrix", by_class, num_classes=C, normalize="true")
    for name in ("multiclass_auroc", "multiclass_binned_auroc"):
        add(name, by_class, num_classes=C)
        add(name, by_class, num_classes=C, average=None)
    for name in ("multiclass_auprc", "multiclass_binned_auprc", "multiclass_precision_recall_curve",
                 "multiclass_binned_precision_recall_curve"):
        add(name, by_class, num_classes=C)
    add("multiclass_binned_precision_recall_curve", by_class, num_classes=C, optimization="memory")
    add("multiclass_binned_auprc", by_class, num_classes=C, optimization="memory")
    for criteria in ("exact_match", "hamming", "overlap", "contain", "belong"):
        add("multilabel_accuracy", by_label, criteria=criteria)
        add("topk_multilabel_accuracy", by_label, criteria=criteria, k=2)
    for name in ("multilabel_auprc", "multilabel_binned_auprc", "multilabel_precision_recall_curve",
                 "multilabel_binned_precision_recall_curve"):
        add(name, by_label, num_labels=C)
    add("multilabel_binned_precision_recall_curve", by_label, num_labels=C, optimization="memory")
    add("multilabel_recall_at_fixed_precision", by_label, num_labels=C, min_precision=0.5)
    value, target = torch.randn(N, 2), torch.randn(N, 2)
    add("mean_squared_error", (value, target))
    add("mean_squared_error", (value, target), multioutput="raw_values")
    add("mean_squared_error", (value, target), sample_weight=torch.rand(N))
    add("r2_score", (value, target))
    add("r2_score", (value, target), multioutput="variance_weighted", num_regressors=1)
    add("mean", (value,))
    add("mean", (value,), weight=torch.rand(N, 2))
    add("sum", (value,))
    add("auc", (torch.sort(torch.rand(N)).values, torch.rand(N)))
    add("auc", (torch.rand(N), torch.rand(N)), reorder=True)
    scores, hits = torch.rand(N, 5), torch.randint(0, 5, (N,))
    add("hit_rate", (scores, hits))
    add("hit_rate", (scores, hits), k=2)
    add("reciprocal_rank", (scores, hits))
    add("reciprocal_rank", (scores, hits), k=2)
    add("frequency_at_k", (torch.rand(N) * 5,), k=2.0)
    add("num_collisions", (torch.randint(0, 5, (N,)),))
    add("retrieval_precision", (torch.rand(N), torch.randint(0, 2, (N,))), k=4)
    add("retrieval_precision", (torch.rand(2, N), torch.randint(0, 2, (2, N))), k=4, num_tasks=2)
    add("peak_signal_noise_ratio", (torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)))
    add("peak_signal_noise_ratio", (torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)), data_range=1.0)
    add("perplexity", (torch.randn(2, 6, 7), torch.randint(0, 7, (2, 6))))
    add("perplexity", (torch.randn(2, 6, 7), torch.randint(0, 7, (2, 6))), ignore_index=0)
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torcheval {version('torcheval')}")
