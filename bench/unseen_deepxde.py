"""DeepXDE, a library the analysis was never shown (in neither half of the harness, not reserved), on its
PyTorch backend: its networks run forward (fully connected with input and output transforms, parallel,
DeepONets), the derivatives a physics-informed residual takes of a network's output (`dde.grad.jacobian`
and `dde.grad.hessian`, reverse mode, through its cache of Jacobians) inside the compiled residual of a
heat equation and of Burgers' equation, and its losses, under dynamo against the static pass on the
same tree.

Run it where torch and DeepXDE are installed together (here: `pip install torch==2.14.1 scikit-optimize
pyaml`, then `pip install --no-deps deepxde==1.15.0`), from the repository root (the script picks the
PyTorch backend):

    python bench/unseen_deepxde.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_deepxde.txt.
"""

import os
import warnings
from pathlib import Path

os.environ["DDE_BACKEND"] = "pytorch"

from unseen import measure, runnable  # noqa: E402  first: it puts the static pass of `--src` on the path

import deepxde as dde  # noqa: E402
import torch  # noqa: E402
from deepxde import losses  # noqa: E402
from deepxde.nn.pytorch import FNN, PFNN, DeepONet, DeepONetCartesianProd  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(dde.__file__).resolve().parent
ENTRY_POINTS = ["deepxde.nn.pytorch.FNN", "deepxde.nn.pytorch.PFNN", "deepxde.nn.pytorch.DeepONet",
                "deepxde.nn.pytorch.DeepONetCartesianProd", "deepxde.gradients.jacobian",
                "deepxde.gradients.hessian", "deepxde.gradients.clear"] + [
    f"deepxde.losses.{name}" for name in ("mean_absolute_error", "mean_absolute_percentage_error",
                                          "mean_squared_error", "mean_l2_relative_error", "softmax_cross_entropy")]


def _heat(x, y):
    return dde.grad.jacobian(y, x, i=0, j=1) - 0.4 * dde.grad.hessian(y, x, i=0, j=0)


def _burgers(x, y):
    dy_x, dy_t = dde.grad.jacobian(y, x, i=0, j=0), dde.grad.jacobian(y, x, i=0, j=1)
    return dy_t + y * dy_x - 0.01 / torch.pi * dde.grad.hessian(y, x, i=0, j=0)


def _residual(net, pde):
    """What a training step compiles: the network's output at fresh inputs, and the equation's residual."""
    def residual(x):
        dde.grad.clear()
        x = x.clone().requires_grad_(True)
        return pde(x, net(x))
    return residual


def cases():
    torch.manual_seed(0)
    x = torch.rand(32, 2)
    fnn = FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")
    transformed = FNN([2] + [20] * 2 + [1], "tanh", "Glorot uniform")
    transformed.apply_feature_transform(lambda t: torch.cat([t, torch.sin(t)], 1)[:, :2])
    transformed.apply_output_transform(lambda t, y: t[:, 1:2] * y)
    pfnn = PFNN([2, [10, 10], [10, 10], 2], "tanh", "Glorot normal")
    onet = DeepONet([16, 20, 20], [2, 20, 20], "tanh", "Glorot normal")
    cart = DeepONetCartesianProd([16, 20, 20], [2, 20, 20], "relu", "Glorot normal")
    out = [("fnn", fnn.eval(), (x,)), ("fnn_transformed", transformed.eval(), (x,)), ("pfnn", pfnn.eval(), (x,)),
           ("deeponet", onet.eval(), ((torch.rand(32, 16), x),)),
           ("deeponet_cartesian", cart.eval(), ((torch.rand(4, 16), x),)),
           ("heat", _residual(fnn, _heat), (x,)),
           ("burgers", _residual(FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal"), _burgers), (x,)),
           ("heat_transformed", _residual(transformed, _heat), (x,))]
    y, t = torch.rand(32, 1), torch.rand(32, 1)
    for name in ("mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
                 "mean_l2_relative_error"):
        out.append((name, getattr(losses, name), (y, t)))
    out.append(("softmax_cross_entropy", losses.softmax_cross_entropy, (torch.softmax(torch.rand(32, 3), 1),
                                                                        torch.rand(32, 3))))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"deepxde {dde.__version__}")
