"""TorchOpt, a library the analysis was never shown (in neither half of the harness, not reserved):
functional optimizers in the style of optax. One step of each of its optimizers (SGD with momentum and
Nesterov, Adam, AdamW, Adamax, RAdam, Adagrad, Adadelta, RMSProp, with schedules, weight decay, gradient
clipping and chains of transformations) on a tuple of parameters (`update` then `apply_updates`), its
conjugate-gradient solvers (`linalg.cg`, `linear_solve.solve_cg`, `solve_normal_cg`, `solve_inv`), each
under dynamo against the static pass on the same tree.

Run it where torch and TorchOpt are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps torchopt==0.7.3` and `pip install optree graphviz`), from the repository root:

    python bench/unseen_torchopt.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchopt.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torchopt

warnings.filterwarnings("ignore")
ROOT = Path(torchopt.__file__).resolve().parent
_OPTIMIZERS = ("sgd", "adam", "adamw", "adamax", "radam", "adagrad", "adadelta", "rmsprop")
ENTRY_POINTS = ["torchopt.apply_updates", "torchopt.linalg.cg", "torchopt.linear_solve.solve_cg",
                "torchopt.linear_solve.solve_normal_cg", "torchopt.linear_solve.solve_inv"]


def _stepper(optimizer, params):
    state = optimizer.init(params)

    def step(*grads):
        updates, _ = optimizer.update(grads, state, params=params, inplace=False)
        return torchopt.apply_updates(params, updates, inplace=False)
    return step


def cases():
    torch.manual_seed(0)
    params = (torch.randn(4, 3), torch.randn(3))
    grads = tuple(torch.randn_like(p) for p in params)
    out = []
    for name in _OPTIMIZERS:
        out.append((name, _stepper(getattr(torchopt, name)(1e-2), params), grads))
    out.append(("sgd_nesterov", _stepper(torchopt.sgd(1e-2, momentum=0.9, nesterov=True), params), grads))
    out.append(("adam_schedule", _stepper(torchopt.adam(torchopt.schedule.linear_schedule(1e-2, 1e-3, 10)), params),
                grads))
    out.append(("adamw_decay", _stepper(torchopt.adamw(1e-2, weight_decay=0.1), params), grads))
    out.append(("chain_clip", _stepper(torchopt.chain(torchopt.clip_grad_norm(1.0), torchopt.adam(1e-2)), params),
                grads))
    out.append(("adam_nan_to_num", _stepper(torchopt.chain(torchopt.nan_to_num(), torchopt.sgd(1e-2)), params), grads))
    matrix = torch.randn(4, 4)
    spd = matrix @ matrix.T + 4 * torch.eye(4)
    out.append(("cg", lambda b: torchopt.linalg.cg(lambda x: spd @ x, b), (torch.randn(4),)))
    for name in ("solve_cg", "solve_normal_cg", "solve_inv"):
        solver = getattr(torchopt.linear_solve, name)()
        out.append((name, lambda b, solver=solver: solver(lambda x: spd @ x, b), (torch.randn(4),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchopt {version('torchopt')}")
