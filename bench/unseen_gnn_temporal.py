"""PyTorch Geometric Temporal, a library of spatio-temporal graph networks the analysis was never shown (in neither
half of the harness, not reserved): its recurrent graph cells (graph-convolutional GRU and LSTM, GC-LSTM, DCRNN,
T-GCN and its attention form, MPNN-LSTM, EvolveGCN in both forms, AGCRN, LRGCN, DyGrEncoder) and its attention
models (ASTGCN, MSTGCN, MTGNN with its learned graph, STConv, GMAN, AAGCN), each on a small random graph, in
training and evaluation mode.

Run it where torch, torch_geometric and the library are installed together (here: `pip install torch==2.14.1
torch_geometric`, then `pip install --no-deps torch-geometric-temporal==0.56.2`), from the repository root:

    python bench/unseen_gnn_temporal.py [--src OTHER_TREE/src] [--sites FILE]

The library imports torch_sparse and torch_scatter (compiled extensions) for code no case here runs: stand-ins
take their place (`unseen.stand_in`). `unseen.measure` runs each case under dynamo and prints which of the
statements dynamo broke on the static pass reports. Results: bench/results/unseen_gnn_temporal.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
stand_in(["torch_sparse", "torch_scatter"])

import torch_geometric_temporal  # noqa: E402
from torch_geometric_temporal.nn import attention as at  # noqa: E402
from torch_geometric_temporal.nn import recurrent as rc  # noqa: E402

ROOT = Path(torch_geometric_temporal.__file__).resolve().parent
ENTRY_POINTS: list[str] = []


def cases():
    torch.manual_seed(0)
    n, f = 6, 4
    x = torch.randn(n, f)
    edge_index = torch.tensor([[0, 1, 2, 3, 4, 5, 1, 3], [1, 2, 3, 4, 5, 0, 0, 2]])
    weight = torch.rand(edge_index.shape[1])
    graph = (x, edge_index, weight)
    out = []
    for name, cell in (("GConvGRU", rc.GConvGRU(f, 8, 2)), ("GConvLSTM", rc.GConvLSTM(f, 8, 2)),
                       ("GCLSTM", rc.GCLSTM(f, 8, 2)), ("DCRNN", rc.DCRNN(f, 8, 2)), ("TGCN", rc.TGCN(f, 8)),
                       ("EvolveGCNH", rc.EvolveGCNH(n, f)), ("EvolveGCNO", rc.EvolveGCNO(f)),
                       ("MPNNLSTM", rc.MPNNLSTM(f, 8, n, 1, 0.1))):
        out += modes(name, cell, graph)
    out += modes("A3TGCN", rc.A3TGCN(f, 8, 3), (torch.randn(n, f, 3), edge_index, weight))
    out += modes("AGCRN", rc.AGCRN(n, f, 8, 2, 3), (torch.randn(2, n, f), torch.randn(n, 3)))
    out += modes("LRGCN", rc.LRGCN(f, 8, 2, 1), (x, edge_index, torch.randint(0, 2, (edge_index.shape[1],))))
    out += modes("DyGrEncoder", rc.DyGrEncoder(f, 1, "mean", 8, 1), graph)
    series = torch.randn(2, n, f, 12)
    out += modes("ASTGCN", at.ASTGCN(1, f, 2, 8, 8, 1, 3, 12, n), (series, edge_index))
    out += modes("MSTGCN", at.MSTGCN(1, f, 2, 8, 8, 1, 3, 12), (series, edge_index))
    out += modes("MTGNN", at.MTGNN(gcn_true=True, build_adj=True, gcn_depth=2, num_nodes=n, kernel_set=[2, 3],
                                   kernel_size=3, dropout=0.1, subgraph_size=3, node_dim=4, dilation_exponential=1,
                                   conv_channels=8, residual_channels=8, skip_channels=8, end_channels=8,
                                   seq_length=12, in_dim=2, out_dim=3, layers=2, propalpha=0.05, tanhalpha=3,
                                   layer_norm_affline=True), (torch.randn(2, 2, n, 12),))
    out += modes("STConv", at.STConv(n, f, 8, 8, 3, 2), (torch.randn(2, 12, n, f), edge_index, weight))
    out += modes("GMAN", at.GMAN(1, 2, 4, 6, 0.1, 12, False, True),
                 (torch.randn(2, 6, n), torch.randn(n, 8), torch.randint(0, 7, (2, 12, 2)).float()))
    out += modes("AAGCN", at.AAGCN(f, 8, edge_index, n), (torch.randn(2, f, 12, n),))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torch-geometric-temporal {version('torch-geometric-temporal')}",
            follow=["torch_geometric"])
