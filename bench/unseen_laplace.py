"""Laplace (laplace-torch), a library the analysis was never shown (in neither half of the harness, not
reserved): Laplace approximations of a small classifier's and regressor's posterior (the last layer or all
weights; Kronecker-factored, full and diagonal Hessians, fitted eagerly through curvlinops or ASDL), compiled
where a user compiles them: the predictive (GLM with probit and Monte Carlo links, the network's samples),
the log marginal likelihood that tunes the prior, and the functional variance.

Run it where torch and laplace-torch are installed together (here: `pip install torch==2.14.1
curvlinops-for-pytorch backpack-for-pytorch asdl pynvml`, then with `--no-deps` `laplace-torch==0.3
asdfghjkl==0.1a4`), from the repository root:

    python bench/unseen_laplace.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs the cases under dynamo and prints which of the statements dynamo broke on the static
pass reports; with `--sites FILE` its answers are kept there. Results: bench/results/unseen_laplace.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _cases():
    from torch.utils.data import DataLoader, TensorDataset
    from laplace import Laplace
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    out = []
    for likelihood, targets, width in (("classification", torch.randint(0, 3, (32,)), 3),
                                       ("regression", torch.randn(32, 2), 2)):
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, width))
        loader = DataLoader(TensorDataset(x, targets), batch_size=8)
        for weights, hessian in (("last_layer", "kron"), ("last_layer", "full"), ("last_layer", "diag"),
                                 ("all", "diag"), ("all", "kron")):
            la = Laplace(model, likelihood, subset_of_weights=weights, hessian_structure=hessian)
            la.fit(loader)
            name = f"{likelihood}.{weights}.{hessian}"
            links = ("probit", "mc") if likelihood == "classification" else ("mc",)
            for link in links:
                out.append((f"{name}.glm.{link}", lambda t, la=la, link=link: la(t, pred_type="glm",
                                                                                   link_approx=link), (x[:4],)))
            out.append((f"{name}.nn", lambda t, la=la: la(t, pred_type="nn", link_approx="mc", n_samples=4),
                        (x[:4],)))
            noise = torch.tensor(1.0) if likelihood == "regression" else None
            out.append((f"{name}.log_marginal_likelihood",
                        lambda p, la=la, s=noise: la.log_marginal_likelihood(p, s), (torch.tensor(2.0),)))
            out.append((f"{name}.functional_variance",
                        lambda t, la=la: la.functional_variance(la.backend.jacobians(t)[0]), (x[:4],)))
    return out


ENTRIES = ["laplace.baselaplace.ParametricLaplace.__call__", "laplace.baselaplace.ParametricLaplace.log_marginal_likelihood",
           *(f"laplace.baselaplace.{kind}Laplace.functional_variance" for kind in ("Full", "Kron", "Diag"))]
LIBRARIES = {"laplace": (_cases, ENTRIES)}

if __name__ == "__main__":
    measure_each(LIBRARIES)
