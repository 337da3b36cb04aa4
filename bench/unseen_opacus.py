"""Opacus, a library the analysis was never shown (in neither half of the harness, not reserved): its
layers written for per-sample gradients (the DP forms of RNN, GRU and LSTM, one and two layers,
bidirectional, batch-first, on padded and packed sequences, with and without initial states; their
cells; DP multi-head attention with its bias, zero-attention and masks; the sequence bias), and a small
model wrapped in `GradSampleModule` (the hooks that compute per-sample gradients), each in training and
evaluation mode, under dynamo against the static pass on the same tree.

Run it where torch and Opacus are installed together (here: `pip install torch==2.14.1 opacus==1.6.0`),
from the repository root:

    python bench/unseen_opacus.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_opacus.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

import opacus  # noqa: E402
from opacus import GradSampleModule  # noqa: E402
from opacus.layers import DPGRU, DPLSTM, DPRNN, DPMultiheadAttention  # noqa: E402
from opacus.layers.dp_multihead_attention import SequenceBias  # noqa: E402
from opacus.layers.dp_rnn import DPGRUCell, DPLSTMCell, DPRNNCell  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(opacus.__file__).resolve().parent
ENTRY_POINTS = [
    "opacus.layers.dp_rnn.DPRNNBase.forward",
    "opacus.layers.dp_multihead_attention.DPMultiheadAttention.forward",
    "opacus.grad_sample.grad_sample_module.GradSampleModule.forward",
]
T, N, H = 5, 3, 8


def _recurrent(out):
    x = torch.randn(T, N, 4)
    for cls in (DPRNN, DPGRU, DPLSTM):
        for name, kwargs in (("", {}), (".two_layers", {"num_layers": 2}), (".bidirectional", {"bidirectional": True}),
                             (".batch_first", {"batch_first": True}), (".dropout", {"num_layers": 2, "dropout": 0.2})):
            layer = cls(4, H, **kwargs)
            inp = x.transpose(0, 1) if kwargs.get("batch_first") else x
            out.append((f"{cls.__name__}{name}", layer, layer, (inp,)))
        layer = cls(4, H)
        h0 = torch.zeros(1, N, H)
        state = (h0, torch.zeros(1, N, H)) if cls is DPLSTM else h0
        out.append((f"{cls.__name__}.state", layer, lambda t, m=layer, s=state: m(t, s), (x,)))
        packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 4, 2]))
        out.append((f"{cls.__name__}.packed", layer, lambda t, m=layer, p=packed: m(p)[0].data, (x,)))
    for cls in (DPRNNCell, DPGRUCell, DPLSTMCell):
        cell = cls(4, H, bias=True)
        h = torch.zeros(N, H)
        args = (x[0], (h, torch.zeros(N, H))) if cls is DPLSTMCell else (x[0], h)
        out.append((cls.__name__, cell, cell, args))


def _attention(out):
    q = torch.randn(T, N, 16)
    for name, kwargs in (("", {}), (".bias_kv", {"add_bias_kv": True}), (".zero_attn", {"add_zero_attn": True}),
                         (".kdim", {"kdim": 12, "vdim": 12}), (".batch_first", {"batch_first": True})):
        layer = DPMultiheadAttention(16, 4, **kwargs)
        kv = torch.randn(T, N, 12) if "kdim" in kwargs else q
        if kwargs.get("batch_first"):
            out.append((f"DPMultiheadAttention{name}", layer, lambda a, m=layer: m(a, a, a)[0], (q.transpose(0, 1),)))
        else:
            out.append((f"DPMultiheadAttention{name}", layer, lambda a, b, m=layer: m(a, b, b)[0], (q, kv)))
    layer = DPMultiheadAttention(16, 4)
    padding = torch.zeros(N, T, dtype=torch.bool)
    padding[0, -1] = True
    out.append(("DPMultiheadAttention.key_padding_mask", layer,
                lambda a, m=layer, p=padding: m(a, a, a, key_padding_mask=p)[0], (q,)))
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    out.append(("DPMultiheadAttention.attn_mask", layer, lambda a, m=layer, c=causal: m(a, a, a, attn_mask=c)[0], (q,)))
    bias = SequenceBias(16)
    out.append(("SequenceBias", bias, bias, (q,)))


def _wrapped(out):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    wrapped = GradSampleModule(model)  # its hooks compute per-sample gradients
    out.append(("GradSampleModule", wrapped, wrapped, (torch.randn(N, 4),)))


def cases():
    torch.manual_seed(0)
    out = []
    _recurrent(out)
    _attention(out)
    _wrapped(out)
    # each in training and in evaluation mode (`module.train(...)` returns the module)
    return runnable([(f"{name}@{'train' if t else 'eval'}", lambda *a, m=module, f=fn, t=t: (m.train(t), f(*a))[1], args)
                     for name, module, fn, args in out for t in (True, False)])


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"opacus {version('opacus')}")
