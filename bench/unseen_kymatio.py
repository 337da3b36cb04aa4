"""Kymatio, a library the analysis was never shown (in neither half of the harness, not reserved): its
wavelet scattering transforms with the PyTorch frontend, in one dimension (several octaves J, wavelets
per octave Q, maximum orders, averaged or not, and the frequency-sorted output) and in two (J, angles L,
orders, padding), each run on a batch of signals or images under dynamo against the static pass on the
same tree. The three-dimensional transform is left out: kymatio 0.3.0 imports a SciPy function that
SciPy has since removed.

Run it where torch and kymatio are installed together (here: `pip install torch==2.14.1 kymatio==0.3.0`),
from the repository root:

    python bench/unseen_kymatio.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_kymatio.txt.
"""

import warnings
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import kymatio
import torch
from kymatio.scattering1d.frontend.torch_frontend import ScatteringTorch1D
from kymatio.scattering2d.frontend.torch_frontend import ScatteringTorch2D

warnings.filterwarnings("ignore")
ROOT = Path(kymatio.__file__).resolve().parent
ENTRY_POINTS = ["kymatio.scattering1d.frontend.torch_frontend.ScatteringTorch1D",
                "kymatio.scattering2d.frontend.torch_frontend.ScatteringTorch2D"]


def cases():
    torch.manual_seed(0)
    out = []
    signal, images = torch.randn(2, 2 ** 10), torch.randn(2, 32, 32)
    for J, Q in ((4, 1), (6, 8), (6, (8, 2))):
        for max_order in (1, 2):
            for average in (True, False):
                kw = {"J": J, "shape": (2 ** 10,), "Q": Q, "max_order": max_order}
                if not average:
                    kw["T"] = 0
                    kw["out_type"] = "list"
                try:
                    out.append((f"1d_J{J}_Q{Q}_order{max_order}_avg{average}", ScatteringTorch1D(**kw), (signal,)))
                except Exception:  # a combination this version does not take
                    continue
    out.append(("1d_array", ScatteringTorch1D(J=6, shape=(2 ** 10,), Q=8, out_type="array"), (signal,)))
    for J, L in ((2, 4), (3, 8)):
        for max_order in (1, 2):
            out.append((f"2d_J{J}_L{L}_order{max_order}", ScatteringTorch2D(J=J, shape=(32, 32), L=L,
                                                                            max_order=max_order), (images,)))
    out.append(("2d_list", ScatteringTorch2D(J=2, shape=(32, 32), L=4, out_type="list"), (images,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"kymatio {kymatio.__version__}")
