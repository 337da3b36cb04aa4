"""Norse, a library the analysis was never shown (in neither half of the harness, not reserved): its
spiking neuron modules (leaky integrate-and-fire and its adaptive, exponential, refractory, conductance
and multi-compartment forms, LSNN, Izhikevich, leaky integrators, their recurrent forms), encoders and
receptive fields, as cells on one time step and as modules over a sequence, in training and eval
mode, each under dynamo against the static pass on the same tree.

Run it where torch and Norse are installed together (here: `pip install torch==2.14.1`, then
`pip install --no-deps norse==1.1.0 nir nirtorch`), from the repository root:

    python bench/unseen_norse.py [--src OTHER_TREE/src] [--sites FILE]

Each module is built with its defaults, or with an input and a hidden size of 8 where it asks for
them (one that needs more is left out), and run on a batch of one step (a cell) or of a sequence (the
others); a shape a module does not take leaves its case out. `unseen.measure` runs each case under
dynamo and prints which of the statements dynamo broke on the static pass reports. Results:
bench/results/unseen_norse.txt.
"""

import inspect
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import norse  # noqa: E402
import norse.torch as nt  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(norse.__file__).resolve().parent
T, N, F = 3, 4, 8
SIZES = {"input_size": F, "hidden_size": F, "input_features": F, "output_features": F, "in_channels": 1,
         "out_channels": 2, "kernel_size": 3, "seq_length": T, "spiking_method": None}
LEFT_OUT = {"ConvNet", "ConvNet4", "VGG", "MobileNetV2", "SequentialState", "RecurrentSequential", "Lift",
            "RegularizationCell", "LIFCorrelation"}  # image models, and containers of other modules


def cases():
    torch.manual_seed(0)
    out = []
    for name, cls in vars(nt).items():
        if not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module)) or name in LEFT_OUT:
            continue
        params = inspect.signature(cls).parameters
        kwargs = {p: SIZES[p] for p, v in params.items() if v.default is inspect.Parameter.empty and p in SIZES}
        if "spiking_method" in kwargs:  # Izhikevich's: one of the library's behaviours
            kwargs["spiking_method"] = nt.functional.izhikevich.tonic_spiking
        try:
            module = cls(**kwargs)
        except Exception as e:  # noqa: BLE001 - a module whose constructor needs more
            print("left out:", name, type(e).__name__, str(e)[:80])
            continue
        x = torch.rand(N, F) if name.endswith("Cell") else torch.rand(T, N, F)
        for training in (True, False):
            def run(x, module=module, training=training):
                module.train(training)
                return module(x)
            out.append((f"{name}@{'train' if training else 'eval'}", run, (x,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"norse {version('norse')}")
