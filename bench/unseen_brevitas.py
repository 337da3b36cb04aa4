"""Brevitas, AMD's library for quantization-aware training, which the analysis was never shown (in neither half
of the harness, not reserved): its quantized layers (convolutions, transposed convolutions, linear layers,
embeddings, activations, element-wise additions and concatenations, upsampling, multi-head and scaled
dot-product attention, LSTM and RNN), each with its default quantizers and with quantizers that return
quantized tensors, in training mode (the statistics of its scales collected) and evaluation mode; a small
quantized network; and the quantized tensors' arithmetic. Each is compiled as a user compiles a layer or a
model in quantization-aware training.

Run it where torch and Brevitas are installed together (here: `pip install torch==2.14.1 numpy sympy
packaging`, then with `--no-deps` `brevitas==0.13.4 dependencies==2.0.1 unfoldNd`), from the repository root:

    python bench/unseen_brevitas.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static
pass reports. Results: bench/results/unseen_brevitas.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

import brevitas  # noqa: E402
import brevitas.nn as qnn  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(brevitas.__file__).resolve().parent
ENTRY_POINTS: list[str] = []  # modules only: their forwards are reached on their own


def _plain(out):
    """A quantized tensor's value as a plain tensor, or the tensor itself."""
    value = out[0] if isinstance(out, tuple) else out
    return value.value if hasattr(value, "value") else value


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = qnn.QuantIdentity(return_quant_tensor=True)
        self.conv = qnn.QuantConv2d(3, 8, 3, padding=1, return_quant_tensor=True)
        self.relu = qnn.QuantReLU(return_quant_tensor=True)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = qnn.QuantLinear(8, 4, bias=True)

    def forward(self, x):
        x = self.relu(self.conv(self.inp(x)))
        return self.fc(self.pool(x).flatten(1))


def cases():
    torch.manual_seed(0)
    image, seq = torch.randn(2, 3, 8, 8), torch.randn(5, 2, 8)
    out = []
    for quant in (False, True):
        tag = ".quant_tensor" if quant else ""
        kw = {"return_quant_tensor": quant}
        for name, layer, args in (
                ("QuantConv2d", qnn.QuantConv2d(3, 4, 3, **kw), (image,)),
                ("QuantConv1d", qnn.QuantConv1d(3, 4, 3, **kw), (torch.randn(2, 3, 16),)),
                ("QuantConvTranspose2d", qnn.QuantConvTranspose2d(3, 4, 3, **kw), (image,)),
                ("QuantLinear", qnn.QuantLinear(8, 4, bias=True, **kw), (torch.randn(2, 8),)),
                ("QuantReLU", qnn.QuantReLU(**kw), (image,)),
                ("QuantIdentity", qnn.QuantIdentity(**kw), (image,)),
                ("QuantHardTanh", qnn.QuantHardTanh(max_val=1.0, min_val=-1.0, **kw), (image,)),
                ("QuantSigmoid", qnn.QuantSigmoid(**kw), (image,)),
                ("QuantTanh", qnn.QuantTanh(**kw), (image,)),
                ("QuantEltwiseAdd", qnn.QuantEltwiseAdd(**kw), (image, image)),
                ("QuantUpsamplingNearest2d", qnn.QuantUpsamplingNearest2d(scale_factor=2, **kw), (image,))):
            out += modes(name + tag, layer, args, run=lambda mod, *a: _plain(mod(*a)))
    out += modes("QuantEmbedding", qnn.QuantEmbedding(10, 8), (torch.randint(0, 10, (2, 5)),),
                 run=lambda mod, i: _plain(mod(i)))
    out += modes("QuantMultiheadAttention", qnn.QuantMultiheadAttention(8, 2), (seq, seq, seq),
                 run=lambda mod, q, k, v: _plain(mod(q, k, v)))
    out += modes("QuantScaledDotProductAttention", qnn.QuantScaledDotProductAttention(),
                 (torch.randn(2, 2, 5, 4),) * 3, run=lambda mod, q, k, v: _plain(mod(q, k, v)))
    out += modes("QuantLSTM", qnn.QuantLSTM(8, 8), (seq,), run=lambda mod, x: _plain(mod(x)))
    out += modes("QuantRNN", qnn.QuantRNN(8, 8), (seq,), run=lambda mod, x: _plain(mod(x)))
    out += modes("QuantNet", _Net(), (image,), run=lambda mod, x: _plain(mod(x)))
    ident = qnn.QuantIdentity(return_quant_tensor=True).eval()
    out.append(("QuantTensor.arithmetic", lambda a, b, q=ident: _plain(q(a) + q(b)) * _plain(q(a) * 2), (image, image)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"brevitas {version('brevitas')}")
