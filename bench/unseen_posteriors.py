"""posteriors, a library of approximate Bayesian inference in torch the analysis was never shown (in neither half of
the harness, not reserved): each method's `update` step on a small classifier's log-posterior (its parameters a
dict of tensors, the step built on `torch.func`): the stochastic-gradient MCMC samplers (SGLD, SGHMC, BAOA, SGNHT,
SGLRW), variational inference (diagonal and dense Gaussians, with and without the sticking-the-landing estimator),
extended Kalman filters (diagonal and dense Fisher, per sample or batched), Laplace approximations (diagonal and
dense Fisher and GGN, dense Hessian), and their `sample` functions where they have them.

Run it where torch and posteriors are installed together (here: `pip install torch==2.14.1 optree tensordict
torchopt`, then `pip install --no-deps posteriors==0.1.3`), from the repository root:

    python bench/unseen_posteriors.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_posteriors.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")

import posteriors  # noqa: E402
import torchopt  # noqa: E402
from posteriors import ekf, laplace, sgmcmc, vi  # noqa: E402

ROOT = Path(posteriors.__file__).resolve().parent
ENTRY_POINTS = [f"posteriors.{m}.update" for m in (
    "sgmcmc.sgld", "sgmcmc.sghmc", "sgmcmc.baoa", "sgmcmc.sgnht", "sgmcmc.sglrw", "vi.diag", "vi.dense",
    "ekf.diag_fisher", "ekf.dense_fisher", "laplace.diag_fisher", "laplace.diag_ggn", "laplace.dense_fisher",
    "laplace.dense_ggn", "laplace.dense_hessian")] + [f"posteriors.{m}.sample" for m in (
        "vi.diag", "vi.dense", "ekf.diag_fisher", "ekf.dense_fisher", "laplace.diag_fisher", "laplace.diag_ggn",
        "laplace.dense_fisher", "laplace.dense_ggn", "laplace.dense_hessian")]


def _model():
    params = {"w": torch.randn(4, 3) * 0.1, "b": torch.zeros(3)}

    def forward(p, batch):
        x, _ = batch
        return x @ p["w"] + p["b"], torch.tensor([])

    def log_likelihood(p, batch):
        logits, _ = forward(p, batch)
        return -F.cross_entropy(logits, batch[1], reduction="sum"), logits

    def log_posterior(p, batch):
        ll, logits = log_likelihood(p, batch)
        prior = sum(-(v ** 2).sum() for v in p.values())
        return ll + prior, logits

    def per_sample(p, batch):
        logits, _ = forward(p, batch)
        return -F.cross_entropy(logits, batch[1], reduction="none"), logits

    def outer(logits, batch):
        return -F.cross_entropy(logits, batch[1], reduction="sum")

    return params, forward, log_likelihood, log_posterior, per_sample, outer


def cases():
    torch.manual_seed(0)
    batch = (torch.randn(8, 4), torch.randint(0, 3, (8,)))
    params, forward, log_likelihood, log_posterior, per_sample, outer = _model()
    transforms = {
        "sgld": sgmcmc.sgld.build(log_posterior, lr=1e-3), "sghmc": sgmcmc.sghmc.build(log_posterior, lr=1e-3),
        "baoa": sgmcmc.baoa.build(log_posterior, lr=1e-3), "sgnht": sgmcmc.sgnht.build(log_posterior, lr=1e-3),
        "sglrw": sgmcmc.sglrw.build(log_posterior, lr=1e-3),
        "vi.diag": vi.diag.build(log_posterior, torchopt.adam(lr=1e-2)),
        "vi.diag.no_stl": vi.diag.build(log_posterior, torchopt.adam(lr=1e-2), stl=False, n_samples=2),
        "vi.dense": vi.dense.build(log_posterior, torchopt.adam(lr=1e-2)),
        "ekf.diag_fisher": ekf.diag_fisher.build(log_likelihood, lr=1e-2),
        "ekf.diag_fisher.per_sample": ekf.diag_fisher.build(per_sample, lr=1e-2, per_sample=True),
        "ekf.dense_fisher": ekf.dense_fisher.build(log_likelihood, lr=1e-2),
        "laplace.diag_fisher": laplace.diag_fisher.build(log_posterior),
        "laplace.diag_fisher.per_sample": laplace.diag_fisher.build(per_sample, per_sample=True),
        "laplace.diag_ggn": laplace.diag_ggn.build(forward, outer),
        "laplace.dense_fisher": laplace.dense_fisher.build(log_posterior),
        "laplace.dense_ggn": laplace.dense_ggn.build(forward, outer),
        "laplace.dense_hessian": laplace.dense_hessian.build(log_posterior),
    }
    out = []
    for name, transform in transforms.items():
        state = transform.init(params)
        out.append((f"{name}.update", lambda s, b, t=transform: t.update(s, b), (state, batch)))
    samplers = {"vi.diag": vi.diag, "vi.dense": vi.dense, "ekf.diag_fisher": ekf.diag_fisher,
                "ekf.dense_fisher": ekf.dense_fisher, "laplace.diag_fisher": laplace.diag_fisher,
                "laplace.dense_fisher": laplace.dense_fisher, "laplace.dense_hessian": laplace.dense_hessian}
    for name, module in samplers.items():
        state, _ = transforms[name].update(transforms[name].init(params), batch)
        out.append((f"{name}.sample", lambda s, m=module: m.sample(s, (3,)), (state,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"posteriors {version('posteriors')}")
