"""Five libraries of methods the analysis was never shown (in neither half of the harness, not reserved),
each measured on its own: kmeans_pytorch (k-means fitted and predicting, both distances), TorchCFM
(conditional flow matching: the plain, exact-OT, target, Schrodinger-bridge and variance-preserving
matchers sampling a training pair, with labels, its Wasserstein distance, and a training loss through
its MLP), rtdl_num_embeddings (linear, periodic and piecewise-linear embeddings of numerical features,
and the bins they are built from), TabM (the tabular ensemble model and its layers, in training and
evaluation mode) and POT, the optimal transport library, on torch tensors (Sinkhorn in its forms, exact
and partial transport, sliced and unbalanced distances, Gromov-Wasserstein). Each is compiled as a user
compiles a layer, a loss or a training step's sampling.

Run it where torch and the five are installed together (here: `pip install torch==2.14.1 scipy tqdm`,
then with `--no-deps` `kmeans-pytorch==0.3 torchcfm==1.0.7 rtdl-num-embeddings==0.0.12 tabm==0.0.3
pot==0.9.7.post1`), from the repository root:

    python bench/unseen_small_methods.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_small_methods.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _modes(name, module, args):
    """A module's cases in training and evaluation mode."""
    return [(f"{name}@{'train' if t else 'eval'}", lambda *a, m=module, t=t: m.train(t)(*a), args)
            for t in (True, False)]


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


def _cfm():
    from torchcfm import conditional_flow_matching as cfm
    from torchcfm.models.models import MLP
    from torchcfm.optimal_transport import wasserstein
    x0, x1 = torch.randn(32, 2), torch.randn(32, 2)
    y0, y1 = torch.randint(0, 2, (32,)), torch.randint(0, 2, (32,))
    out = []
    for cls, kwargs in ((cfm.ConditionalFlowMatcher, {"sigma": 0.1}),
                        (cfm.ExactOptimalTransportConditionalFlowMatcher, {"sigma": 0.1}),
                        (cfm.TargetConditionalFlowMatcher, {"sigma": 0.1}),
                        (cfm.SchrodingerBridgeConditionalFlowMatcher, {"sigma": 0.5}),
                        (cfm.SchrodingerBridgeConditionalFlowMatcher, {"sigma": 0.5, "ot_method": "sinkhorn"}),
                        (cfm.VariancePreservingConditionalFlowMatcher, {"sigma": 0.1})):
        fm = cls(**kwargs)
        name = cls.__name__ + ("." + kwargs["ot_method"] if "ot_method" in kwargs else "")
        out.append((f"{name}.sample", lambda a, b, f=fm: f.sample_location_and_conditional_flow(a, b)[1], (x0, x1)))
        out.append((f"{name}.sample.noise", lambda a, b, f=fm: f.sample_location_and_conditional_flow(
            a, b, return_noise=True)[3], (x0, x1)))
        if hasattr(fm, "guided_sample_location_and_conditional_flow"):
            out.append((f"{name}.guided", lambda a, b, f=fm: f.guided_sample_location_and_conditional_flow(
                a, b, y0, y1)[1], (x0, x1)))
    model = MLP(dim=2, w=16, time_varying=True)
    fm = cfm.ConditionalFlowMatcher(sigma=0.1)

    def loss(a, b):
        t, xt, ut = fm.sample_location_and_conditional_flow(a, b)
        vt = model(torch.cat([xt, t[:, None]], dim=-1))
        return ((vt - ut) ** 2).mean()
    out.append(("ConditionalFlowMatcher.loss", loss, (x0, x1)))
    out.append(("wasserstein", lambda a, b: torch.as_tensor(wasserstein(a, b)), (x0, x1)))
    out.append(("wasserstein.power1", lambda a, b: torch.as_tensor(wasserstein(a, b, power=1)), (x0, x1)))
    return out


def _rtdl():
    import rtdl_num_embeddings as rne
    x = torch.randn(64, 3)
    bins = rne.compute_bins(x, n_bins=4)
    out = []
    out += _modes("LinearEmbeddings", rne.LinearEmbeddings(3, 8), (x,))
    out += _modes("LinearReLUEmbeddings", rne.LinearReLUEmbeddings(3, 8), (x,))
    out += _modes("PeriodicEmbeddings", rne.PeriodicEmbeddings(3, 8, lite=False), (x,))
    out += _modes("PeriodicEmbeddings.lite", rne.PeriodicEmbeddings(3, 8, lite=True), (x,))
    out += _modes("PiecewiseLinearEncoding", rne.PiecewiseLinearEncoding(bins), (x,))
    out += _modes("PiecewiseLinearEmbeddings.A", rne.PiecewiseLinearEmbeddings(bins, 8, activation=False,
                                                                               version="A"), (x,))
    out += _modes("PiecewiseLinearEmbeddings.B", rne.PiecewiseLinearEmbeddings(bins, 8, activation=True,
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
        out += _modes(f"TabM{name}", model, (x_num, x_cat))
    out += _modes("TabM.num_only", tabm.TabM.make(n_num_features=3, d_out=2, k=4), (x_num,))
    out += _modes("LinearBatchEnsemble", tabm.LinearBatchEnsemble(3, 4, k=4, scaling_init="random-signs"),
                  (torch.randn(16, 4, 3),))
    out += _modes("BatchNorm1dEnsemble", tabm.BatchNorm1dEnsemble(3, k=4), (torch.randn(16, 4, 3),))
    out += _modes("EnsembleView", tabm.EnsembleView(k=4), (x_num,))
    return out


def _ot():
    import ot
    xs, xt = torch.randn(16, 2), torch.randn(12, 2) + 1
    a, b = torch.full((16,), 1 / 16), torch.full((12,), 1 / 12)
    M = torch.cdist(xs, xt) ** 2
    return [
        ("dist", lambda s, t: ot.dist(s, t), (xs, xt)),
        ("sinkhorn2", lambda m: ot.sinkhorn2(a, b, m, 1.0), (M,)),
        ("sinkhorn.log", lambda m: ot.sinkhorn(a, b, m, 1.0, method="sinkhorn_log"), (M,)),
        ("sinkhorn.stabilized", lambda m: ot.sinkhorn(a, b, m, 1.0, method="sinkhorn_stabilized"), (M,)),
        ("emd2", lambda m: ot.emd2(a, b, m), (M,)),
        ("sliced_wasserstein_distance", lambda s, t: ot.sliced_wasserstein_distance(s, t, n_projections=20,
                                                                                     seed=0), (xs, xt)),
        ("sinkhorn_unbalanced2", lambda m: ot.unbalanced.sinkhorn_unbalanced2(a, b, m, 1.0, 1.0), (M,)),
        ("partial_wasserstein2", lambda m: ot.partial.partial_wasserstein2(a, b, m, m=0.5), (M,)),
        ("empirical_sinkhorn2", lambda s, t: ot.bregman.empirical_sinkhorn2(s, t, 1.0), (xs, xt)),
        ("gromov_wasserstein2", lambda s, t: ot.gromov.gromov_wasserstein2(torch.cdist(s, s), torch.cdist(t, t), a,
                                                                           b), (xs, xt)),
    ]


def _entries(module_name, names):
    return [f"{module_name}.{n}" for n in names]


LIBRARIES = {
    "kmeans_pytorch": (_kmeans, _entries("kmeans_pytorch", ["kmeans", "kmeans_predict", "pairwise_distance"])),
    "torchcfm": (_cfm, _entries("torchcfm.conditional_flow_matching", [
        "ConditionalFlowMatcher.sample_location_and_conditional_flow",
        "ExactOptimalTransportConditionalFlowMatcher.sample_location_and_conditional_flow",
        "ExactOptimalTransportConditionalFlowMatcher.guided_sample_location_and_conditional_flow",
        "SchrodingerBridgeConditionalFlowMatcher.sample_location_and_conditional_flow",
        "SchrodingerBridgeConditionalFlowMatcher.guided_sample_location_and_conditional_flow"])
        + ["torchcfm.optimal_transport.wasserstein"]),
    "rtdl_num_embeddings": (_rtdl, ["rtdl_num_embeddings.compute_bins"]),
    "tabm": (_tabm, []),
    "ot": (_ot, ["ot.utils.dist", "ot.bregman._sinkhorn.sinkhorn2", "ot.bregman._sinkhorn.sinkhorn",
                 "ot.lp._network_simplex.emd2", "ot.sliced._sliced_distances.sliced_wasserstein_distance",
                 "ot.unbalanced._sinkhorn.sinkhorn_unbalanced2", "ot.partial.partial_solvers.partial_wasserstein2",
                 "ot.bregman._empirical.empirical_sinkhorn2", "ot.gromov._gw.gromov_wasserstein2"]),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
