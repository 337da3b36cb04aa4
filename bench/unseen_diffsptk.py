"""diffsptk, a library the analysis was never shown (in neither half of the harness, not reserved): its
speech signal processing modules (framing, windows, transforms, filter banks, cepstral and linear
predictive analysis and their conversions, digital filters, pitch-free vocoding, distances), each built
with arguments of the usual sizes and run on the first of a few inputs it takes eagerly (a waveform, a
batch of frames, a spectrum, a vector of coefficients), under dynamo against the static pass on the same
tree. Modules that need other packages (penn, vector-quantize-pytorch) or arguments with no usual size
are left out.

Run it where torch and diffsptk are installed together (here: `pip install torch==2.14.1
diffsptk==4.0.1`), from the repository root:

    python bench/unseen_diffsptk.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_diffsptk.txt.
"""

import inspect
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import diffsptk
import torch

warnings.filterwarnings("ignore")
ROOT = Path(diffsptk.__file__).resolve().parent
SIZES = {"fft_length": 512, "frame_length": 400, "frame_period": 80, "sample_rate": 16000, "n_channel": 20,
         "n_band": 4, "codebook_size": 8, "wht_length": 8, "in_length": 400, "n_comp": 4, "alpha": 0.42,
         "dct_length": 8, "dht_length": 8, "dst_length": 8, "period": 80, "upsampling_factor": 4, "filter_length": 3}
INPUTS = (lambda: torch.randn(1600), lambda: torch.randn(5, 400), lambda: torch.rand(5, 257) + 0.1,
          lambda: torch.randn(5, 9) * 0.1, lambda: torch.randn(2, 1600))
MODULES = sorted({cls.__name__: name for name in dir(diffsptk) if name[:1].isupper()
                  and inspect.isclass(cls := getattr(diffsptk, name)) and issubclass(cls, torch.nn.Module)}.values())
ENTRY_POINTS = [f"diffsptk.{name}" for name in MODULES]


def _built(cls):
    """The module built with the usual size for each argument it needs; None where one has none."""
    kw = {}
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) \
                or param.default is not inspect.Parameter.empty:
            continue
        if name not in SIZES and not name.endswith("order"):
            return None
        kw[name] = SIZES.get(name, 8)
    try:
        return cls(**kw)
    except Exception:  # a module needing a package that is not installed, or a larger size
        return None


def cases():
    torch.manual_seed(0)
    out = []
    for name in MODULES:
        module = _built(getattr(diffsptk, name))
        if module is None:
            continue
        for make in INPUTS:
            x = make()
            try:
                module(x)
            except Exception:  # not an input this module takes
                continue
            out.append((name, module, (x,)))
            break
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"diffsptk {diffsptk.__version__}")
