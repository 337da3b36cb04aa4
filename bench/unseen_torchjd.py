"""TorchJD, a library of Jacobian descent for multi-objective optimization the analysis was never shown (in neither
half of the harness, not reserved): each of its aggregators (and the weightings behind them) called on a small
Jacobian matrix, as a training step of several losses calls it: the means and sums, projections onto dual cones,
conflict-averse and gradient-surgery methods, multiple-gradient descent, Krum and the trimmed mean, random and
constant weightings, and the others its release ships. Those that need a solver package not installed here are left
out, with a line saying so.

Run it where torch and torchjd are installed together (here: `pip install torch==2.14.1 qpsolvers quadprog`, then
`pip install --no-deps torchjd==0.18.0`), from the repository root:

    python bench/unseen_torchjd.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_torchjd.txt.
"""

import inspect
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torchjd
from torchjd import aggregation

warnings.filterwarnings("ignore")
ROOT = Path(torchjd.__file__).resolve().parent
ENTRY_POINTS: list[str] = []
WEIGHTS = torch.tensor([0.3, 0.2, 0.2, 0.2, 0.1])
NEEDS = {"Constant": (WEIGHTS,), "ConstantWeighting": (WEIGHTS,), "Krum": (1,), "KrumWeighting": (1,),
         "TrimmedMean": (1,), "NashMTL": (5,), "ExcessMTL": (5,), "ExcessMTLWeighting": (5,), "CAGrad": (0.5,),
         "CAGradWeighting": (0.5,), "FairGrad": (0.5,), "FairGradWeighting": (0.5,)}


def cases():
    torch.manual_seed(0)
    jacobian = torch.randn(5, 8)
    gramian = jacobian @ jacobian.T
    out = []
    for name in sorted(n for n in dir(aggregation) if n[0].isupper()):
        cls = getattr(aggregation, name)
        if not inspect.isclass(cls) or inspect.isabstract(cls) or name in ("Aggregator", "Weighting",
                                                                            "WeightedAggregator",
                                                                            "GramianWeightedAggregator"):
            continue
        try:
            made = cls(aggregation.MeanWeighting()) if name == "CRMOGMWeighting" else cls(*NEEDS.get(name, ()))
        except Exception as e:  # noqa: BLE001 - a solver package missing, or arguments this release wants
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        # a weighting of the matrix is handed the matrix, one of its Gramian the Gramian (as its aggregator does)
        arg = gramian if name.endswith("Weighting") else jacobian
        out.append((name, made, (arg,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchjd {version('torchjd')}")
