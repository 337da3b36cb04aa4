"""POT (Python Optimal Transport), a library the analysis was never shown (in neither half of the
harness, not reserved), on torch tensors through its backend: the distance matrix, Sinkhorn in each of
its forms (plain, log-domain, stabilized, epsilon scaling, Greenkhorn, Screenkhorn, the loss), the exact
solver, unbalanced and partial transport, Gromov-Wasserstein (exact and entropic), the 1-d and sliced
distances, the Bregman barycenter, Sinkhorn on samples, and the smooth dual; each on a small batch of
points, under dynamo against the static pass on the same tree.

Run it where torch and POT are installed together (here: `pip install torch==2.14.1 pot==0.9.7.post1`),
from the repository root:

    python bench/unseen_pot.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_pot.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import ot
import torch

warnings.filterwarnings("ignore")
ROOT = Path(ot.__file__).resolve().parent
ENTRY_POINTS = [f"ot.{name}" for name in (
    "dist", "sinkhorn", "sinkhorn2", "emd", "emd2", "wasserstein_1d", "sliced_wasserstein_distance",
    "bregman.greenkhorn", "bregman.barycenter", "bregman.empirical_sinkhorn", "bregman.screenkhorn",
    "unbalanced.sinkhorn_unbalanced", "unbalanced.sinkhorn_unbalanced2", "unbalanced.mm_unbalanced",
    "partial.entropic_partial_wasserstein", "gromov.gromov_wasserstein", "gromov.entropic_gromov_wasserstein",
    "smooth.smooth_ot_dual")]


def cases():
    torch.manual_seed(0)
    n = 8
    a = torch.ones(n, dtype=torch.float64) / n
    b = torch.ones(n, dtype=torch.float64) / n
    xs = torch.randn(n, 2, dtype=torch.float64)
    xt = torch.randn(n, 2, dtype=torch.float64) + 1
    cost = ot.dist(xs, xt)
    c1, c2 = ot.dist(xs, xs), ot.dist(xt, xt)
    out = [("dist", ot.dist, (xs, xt))]
    for method in ("sinkhorn", "sinkhorn_log", "sinkhorn_stabilized", "sinkhorn_epsilon_scaling"):
        out.append((method, lambda a, b, m, method=method: ot.sinkhorn(a, b, m, 1.0, method=method), (a, b, cost)))
    out += [
        ("greenkhorn", lambda a, b, m: ot.bregman.greenkhorn(a, b, m, 1.0), (a, b, cost)),
        ("screenkhorn", lambda a, b, m: ot.bregman.screenkhorn(a, b, m, 1.0), (a, b, cost)),
        ("sinkhorn2", lambda a, b, m: ot.sinkhorn2(a, b, m, 1.0), (a, b, cost)),
        ("emd", ot.emd, (a, b, cost)), ("emd2", ot.emd2, (a, b, cost)),
        ("unbalanced", lambda a, b, m: ot.unbalanced.sinkhorn_unbalanced(a, b, m, 1.0, 1.0), (a, b, cost)),
        ("unbalanced2", lambda a, b, m: ot.unbalanced.sinkhorn_unbalanced2(a, b, m, 1.0, 1.0), (a, b, cost)),
        ("mm_unbalanced", lambda a, b, m: ot.unbalanced.mm_unbalanced(a, b, m, 1.0), (a, b, cost)),
        ("partial", lambda a, b, m: ot.partial.entropic_partial_wasserstein(a, b, m, 1.0, m=0.5), (a, b, cost)),
        ("gromov", ot.gromov.gromov_wasserstein, (c1, c2, a, b)),
        ("entropic_gromov", lambda c1, c2, a, b: ot.gromov.entropic_gromov_wasserstein(c1, c2, a, b, epsilon=1.0),
         (c1, c2, a, b)),
        ("wasserstein_1d", lambda x, y: ot.wasserstein_1d(x[:, 0], y[:, 0]), (xs, xt)),
        ("sliced", lambda x, y: ot.sliced_wasserstein_distance(x, y, n_projections=10, seed=0), (xs, xt)),
        ("barycenter", lambda hists, m: ot.bregman.barycenter(hists, m, 1.0), (torch.stack([a, b], 1), c1)),
        ("empirical_sinkhorn", lambda x, y: ot.bregman.empirical_sinkhorn(x, y, 1.0), (xs, xt)),
        ("smooth", lambda a, b, m: ot.smooth.smooth_ot_dual(a, b, m, 1.0), (a, b, cost)),
    ]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"POT {ot.__version__}")
