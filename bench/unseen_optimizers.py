"""Five small optimizer libraries the analysis was never shown (in neither half of the harness, not reserved),
each optimizer's `step` compiled as a user compiling a training step would, cold (its state not made yet) and
warm (after one step): D-Adaptation (Adam, SGD, AdaGrad, Adan, Lion), Prodigy, lion-pytorch's Lion, adan-pytorch's
Adan and CAME.

Run it where torch and the five are installed together (here: `pip install torch==2.14.1 dadaptation prodigyopt
lion-pytorch adan-pytorch came-pytorch`), from the repository root:

    python bench/unseen_optimizers.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo broke on
the static pass reports; with `--sites FILE` its answers are kept beside FILE. Results:
bench/results/unseen_optimizers.txt.
"""

import importlib
import warnings

from unseen import measure_each, runnable  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
OPTIMIZERS = {
    "dadaptation": ["DAdaptAdam", "DAdaptSGD", "DAdaptAdaGrad", "DAdaptAdan", "DAdaptLion"],
    "prodigyopt": ["Prodigy"],
    "lion_pytorch": ["Lion"],
    "adan_pytorch": ["Adan"],
    "came_pytorch": ["CAME"],
}


def _steps(package: str):
    """Each optimizer's compiled step, cold and warm, on a small model's gradients."""
    module = importlib.import_module(package)
    out = []
    for name in OPTIMIZERS[package]:
        for warm in (False, True):
            torch.manual_seed(0)
            model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Linear(6, 2))
            opt = getattr(module, name)(model.parameters(), lr=1e-3)
            model(torch.randn(8, 4)).pow(2).sum().backward()
            if warm:
                opt.step()
            out.append((f"{name}.step{'@warm' if warm else ''}", lambda x, o=opt: (o.step(), x)[1], (torch.randn(2),)))
    return runnable(out)


def _entry_points(package: str) -> list[str]:
    module = importlib.import_module(package)
    return [f"{cls.__module__}.{cls.__qualname__}.step" for cls in (getattr(module, n) for n in OPTIMIZERS[package])]


LIBRARIES = {package: (lambda p=package: _steps(p), _entry_points(package)) for package in OPTIMIZERS}

if __name__ == "__main__":
    measure_each(LIBRARIES)
