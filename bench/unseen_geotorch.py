"""GeoTorch, a library of constraints on a layer's weights the analysis was never shown (in neither half of the
harness, not reserved): each constraint put on a small linear layer as torch parametrizations (orthogonal, through
the matrix exponential and the Cayley map, the sphere, skew-symmetric and symmetric matrices, the Grassmannian,
almost orthogonal matrices with each of their functions, low and fixed rank, invertible and special linear
matrices, and positive definite and semidefinite ones, of low and fixed rank), the layer called with its weight
recomputed, in training and evaluation mode.

Run it where torch and geotorch are installed together (here: `pip install torch==2.14.1`, then `pip install
--no-deps geotorch==0.4.0`), from the repository root:

    python bench/unseen_geotorch.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_geotorch.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import geotorch
import torch
from torch import nn

warnings.filterwarnings("ignore")
ROOT = Path(geotorch.__file__).resolve().parent
ENTRY_POINTS: list[str] = []


def _constrained(name, apply, square=True):
    torch.manual_seed(0)
    layer = nn.Linear(5, 5) if square else nn.Linear(5, 3)
    try:
        apply(layer)
    except Exception as e:  # noqa: BLE001 - a constraint its layer's shape does not take
        print("left out:", name, type(e).__name__, str(e)[:100])
        return []
    return modes(name, layer, (torch.randn(4, 5),))


def cases():
    constraints = {
        "orthogonal": (lambda m: geotorch.orthogonal(m, "weight"), False),
        "orthogonal.cayley": (lambda m: geotorch.orthogonal(m, "weight", triv="cayley"), False),
        "sphere": (lambda m: geotorch.sphere(m, "weight"), True),
        "skew": (lambda m: geotorch.skew(m, "weight"), True),
        "symmetric": (lambda m: geotorch.symmetric(m, "weight"), True),
        "grassmannian": (lambda m: geotorch.grassmannian(m, "weight"), False),
        "almost_orthogonal.sin": (lambda m: geotorch.almost_orthogonal(m, "weight", 0.5), True),
        "almost_orthogonal.tanh": (lambda m: geotorch.almost_orthogonal(m, "weight", 0.5, f="tanh"), True),
        "almost_orthogonal.scaled_sigmoid": (lambda m: geotorch.almost_orthogonal(m, "weight", 0.5,
                                                                                  f="scaled_sigmoid"), True),
        "low_rank": (lambda m: geotorch.low_rank(m, "weight", 2), False),
        "fixed_rank": (lambda m: geotorch.fixed_rank(m, "weight", 2), False),
        "invertible": (lambda m: geotorch.invertible(m, "weight"), True),
        "sln": (lambda m: geotorch.sln(m, "weight"), True),
        "positive_definite": (lambda m: geotorch.positive_definite(m, "weight"), True),
        "positive_semidefinite": (lambda m: geotorch.positive_semidefinite(m, "weight"), True),
        "positive_semidefinite_low_rank": (lambda m: geotorch.positive_semidefinite_low_rank(m, "weight", 2), True),
        "positive_semidefinite_fixed_rank": (lambda m: geotorch.positive_semidefinite_fixed_rank(m, "weight", 2),
                                             True),
    }
    out = []
    for name, (apply, square) in constraints.items():
        out += _constrained(name, apply, square)
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"geotorch {version('geotorch')}")
