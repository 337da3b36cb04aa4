"""SpikingJelly, a library the analysis was never shown (in neither half of the harness, not reserved): its
spiking neurons (integrate-and-fire, leaky, parametric, adaptive, noisy, gated, the parallel spiking
neurons, ...) in single-step and multi-step mode, in training and eval mode, and its surrogate
gradient functions, each under dynamo against the static pass on the same tree (the torch back end;
the CuPy and Triton kernels are not installed).

Run it where torch and SpikingJelly are installed together (here: `pip install torch==2.14.1 loguru`,
then `pip install --no-deps spikingjelly==2.0.0`), from the repository root:

    python bench/unseen_spikingjelly.py [--src OTHER_TREE/src] [--sites FILE]

Each neuron is built with its defaults (a neuron whose constructor needs more is left out) and run on
a batch after one eager step, so that it holds its membrane potential as a tensor, as from the second
step of a training loop on. `unseen.measure` runs each case under dynamo and prints which of the
statements dynamo broke on the static pass reports. Results: bench/results/unseen_spikingjelly.txt.
"""

import inspect
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch

stand_in(["torchvision", "torchvision.transforms", "torchaudio"])

import spikingjelly  # noqa: E402
from spikingjelly.activation_based import neuron, surrogate  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(spikingjelly.__file__).resolve().parent
T, N, F = 3, 4, 8


def _classes(module, base):
    return [(name, cls) for name, cls in vars(module).items()
            if inspect.isclass(cls) and issubclass(cls, base) and cls.__module__.startswith(module.__name__)
            and not inspect.isabstract(cls)]


def cases():
    torch.manual_seed(0)
    out = []
    for name, cls in _classes(neuron, torch.nn.Module):
        for step_mode in ("s", "m"):
            try:
                if "step_mode" in inspect.signature(cls).parameters:
                    net = cls(step_mode=step_mode)
                else:  # (the noisy neurons take their mode as an attribute)
                    net = cls()
                    net.step_mode = step_mode
            except Exception as e:  # noqa: BLE001 - a neuron whose constructor needs more than its defaults
                print("left out:", f"{name}@{step_mode}", type(e).__name__, str(e)[:80])
                continue
            x = torch.rand(T, N, F) if step_mode == "m" else torch.rand(N, F)
            for training in (True, False):
                def run(x, net=net, training=training):
                    net.train(training)
                    return net(x)
                out.append((f"{name}@{step_mode}@{'train' if training else 'eval'}", run, (x * 2,)))
    for name, cls in _classes(surrogate, torch.nn.Module):
        try:
            fn = cls()
        except Exception as e:  # noqa: BLE001
            print("left out:", name, type(e).__name__, str(e)[:80])
            continue
        out.append((f"surrogate.{name}", fn, (torch.randn(N, F, requires_grad=True),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"spikingjelly {version('spikingjelly')}")
