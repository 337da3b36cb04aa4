"""torch_kmeans, a library the analysis was never shown (in neither half of the harness, not reserved):
its batched clustering modules, k-means (random and k-means++ initialisation, Lp and cosine distances,
normalised inputs, one number of clusters for the batch or one per instance), soft k-means,
constrained k-means with per-point weights, and k-nearest neighbours, each run forward (fit) and, for
the fitted ones, `predict` on new points, under dynamo against the static pass on the same tree.

Run it where torch and torch_kmeans are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps torch-kmeans==0.2.0`), from the repository root:

    python bench/unseen_torch_kmeans.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torch_kmeans.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torch_kmeans
from torch_kmeans import ConstrainedKMeans, CosineSimilarity, KMeans, SoftKMeans
from torch_kmeans.clustering import KNN

warnings.filterwarnings("ignore")
ROOT = Path(torch_kmeans.__file__).resolve().parent
ENTRY_POINTS = ["torch_kmeans.KMeans", "torch_kmeans.KMeans.predict", "torch_kmeans.SoftKMeans",
                "torch_kmeans.ConstrainedKMeans", "torch_kmeans.ConstrainedKMeans.predict", "torch_kmeans.clustering.KNN"]


def cases():
    torch.manual_seed(0)
    x = torch.randn(2, 40, 3)
    out = []
    for init in ("rnd", "k-means++"):
        out.append((f"kmeans_{init}", KMeans(init_method=init, n_clusters=4, num_init=2, max_iter=20,
                                             verbose=False), (x,)))
    out.append(("kmeans_cosine", KMeans(n_clusters=4, distance=CosineSimilarity, num_init=2, max_iter=20,
                                        verbose=False), (x,)))
    out.append(("kmeans_normalized", KMeans(n_clusters=4, normalize="unit", num_init=2, max_iter=20,
                                            verbose=False), (x,)))
    per_instance = KMeans(num_init=2, max_iter=20, verbose=False)
    out.append(("kmeans_k_per_instance", lambda points: per_instance(points, k=torch.tensor([3, 5])), (x,)))
    fitted = KMeans(n_clusters=4, num_init=2, max_iter=20, verbose=False).fit(x)
    out.append(("kmeans_predict", fitted.predict, (torch.randn(2, 10, 3),)))
    out.append(("soft_kmeans", SoftKMeans(n_clusters=4, max_iter=20, verbose=False), (x,)))
    weights = torch.rand(2, 40) / 10
    constrained = ConstrainedKMeans(n_clusters=4, num_init=2, max_iter=20, verbose=False)
    out.append(("constrained_kmeans", lambda points: constrained(points, weights=weights), (x,)))
    out.append(("knn", KNN(k=5), (x,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torch_kmeans {version('torch-kmeans')}")
