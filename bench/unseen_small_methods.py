"""Three small libraries the analysis was never shown (in neither half of the harness, not reserved), each
measured on its own: kmeans_pytorch (k-means fitted and predicting, both distances), rtdl_num_embeddings
(linear, periodic and piecewise-linear embeddings of numerical features, and the bins they are built from)
and TabM (the tabular ensemble model and its layers), in training and evaluation mode. Each is compiled as a
user compiles a layer or a clustering step.

Run it where torch and the three are installed together (here: `pip install torch==2.14.1 tqdm`, then with
`--no-deps` `kmeans-pytorch==0.3 rtdl-num-embeddings==0.0.12 tabm==0.0.3`), from the repository root:

    python bench/unseen_small_methods.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_small_methods.txt.
"""

import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _kmeans():
    import kmeans_pytorch as km
    points = torch.randn(64, 4)
    centers = torch.randn(3, 4)
    return [
        ("kmeans.euclidean", lambda x: km.kmeans(x, num_clusters=3)[1], (points,)),
        ("kmeans.cosine", lambda x: km.kmeans(x, num_clusters=3, distance="cosine")[1], (points,)),
        ("kmeans_predict", lambda x, c=centers: km.kmeans_predict(x, c), (points,)),
        ("kmeans_predict.cosine", lambda x, c=centers: km.kmeans_predict(x, c, distance="cosine"), (points,)),
        ("pairwise_distance", lambda x, c=centers: km.pairwise_distance(x, c), (points,)),
    ]


def _rtdl():
    import rtdl_num_embeddings as rne
    x = torch.randn(64, 3)
    bins = rne.compute_bins(x, n_bins=4)
    out = []
    out += modes("LinearEmbeddings", rne.LinearEmbeddings(3, 8), (x,))
    out += modes("LinearReLUEmbeddings", rne.LinearReLUEmbeddings(3, 8), (x,))
    out += modes("PeriodicEmbeddings", rne.PeriodicEmbeddings(3, 8, lite=False), (x,))
    out += modes("PeriodicEmbeddings.lite", rne.PeriodicEmbeddings(3, 8, lite=True), (x,))
    out += modes("PiecewiseLinearEncoding", rne.PiecewiseLinearEncoding(bins), (x,))
    out += modes("PiecewiseLinearEmbeddings.A", rne.PiecewiseLinearEmbeddings(bins, 8, activation=False,
                                                                              version="A"), (x,))
    out += modes("PiecewiseLinearEmbeddings.B", rne.PiecewiseLinearEmbeddings(bins, 8, activation=True,
                                                                              version="B"), (x,))
    out.append(("compute_bins", lambda t: rne.compute_bins(t, n_bins=4)[0], (x,)))
    return out


def _tabm():
    import rtdl_num_embeddings as rne
    import tabm
    x_num, x_cat = torch.randn(16, 3), torch.randint(0, 3, (16, 2))
    out = []
    for name, kwargs in (("", {}), (".mini", {"arch_type": "tabm-mini"}), (".packed", {"arch_type": "tabm-packed"}),
                         (".periodic", {"num_embeddings": rne.PeriodicEmbeddings(3, 8, lite=True)})):
        model = tabm.TabM.make(n_num_features=3, cat_cardinalities=[3, 3], d_out=1, k=4, **kwargs)
        out += modes(f"TabM{name}", model, (x_num, x_cat))
    out += modes("TabM.num_only", tabm.TabM.make(n_num_features=3, d_out=2, k=4), (x_num,))
    out += modes("LinearBatchEnsemble", tabm.LinearBatchEnsemble(3, 4, k=4, scaling_init="random-signs"),
                 (torch.randn(16, 4, 3),))
    out += modes("BatchNorm1dEnsemble", tabm.BatchNorm1dEnsemble(3, k=4), (torch.randn(16, 4, 3),))
    out += modes("EnsembleView", tabm.EnsembleView(k=4), (x_num,))
    return out


LIBRARIES = {
    "kmeans_pytorch": (_kmeans, entries("kmeans_pytorch", ["kmeans", "kmeans_predict", "pairwise_distance"])),
    "rtdl_num_embeddings": (_rtdl, ["rtdl_num_embeddings.compute_bins"]),
    "tabm": (_tabm, []),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
