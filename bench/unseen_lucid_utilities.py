"""Three small libraries of one author's kind the analysis was never shown (in neither half of the harness, not
reserved): hl-gauss-pytorch (the histogram losses: from a support, from running statistics, and the layer that
predicts with them, in training and evaluation mode), assoc-scan (an associative scan over gates, forward and
reverse, with and without a carried state) and hyper-connections (the residual streams a block is wrapped in), each
under dynamo against the static pass on the same tree.

Run it where torch and the three are installed together (here: `pip install torch==2.14.1 hl-gauss-pytorch
assoc-scan hyper-connections`), from the repository root:

    python bench/unseen_lucid_utilities.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo broke on
the static pass reports; with `--sites FILE` its answers are kept beside FILE. Results:
bench/results/unseen_lucid_utilities.txt.
"""

import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

warnings.filterwarnings("ignore")


def _hl_gauss():
    from hl_gauss_pytorch import HLGaussLayer, HLGaussLoss
    from hl_gauss_pytorch.hl_gauss import HLGaussLossFromRunningStats

    torch.manual_seed(0)
    logits, target = torch.randn(4, 8), torch.rand(4) * 2
    loss = HLGaussLoss(min_value=0.0, max_value=2.0, num_bins=8)
    running = HLGaussLossFromRunningStats(num_bins=8)
    out = [("HLGaussLoss", lambda a, b: loss(a, b), (logits, target)),
           ("HLGaussLoss.predict", lambda a: loss(a), (logits,))]
    out += modes("HLGaussLossFromRunningStats", running, (logits, target))
    for name, layer in (("HLGaussLayer", HLGaussLayer(16, hl_gauss_loss=dict(min_value=0.0, max_value=2.0,
                                                                                num_bins=8))),
                        ("HLGaussLayer.regression", HLGaussLayer(16, hl_gauss_loss=dict(
                            min_value=0.0, max_value=2.0, num_bins=8), use_regression=True))):
        out += modes(name, layer, (torch.randn(4, 16), target))
        out += modes(f"{name}.predict", layer, (torch.randn(4, 16),))
    return out


def _assoc_scan():
    from assoc_scan import AssocScan

    torch.manual_seed(0)
    gates, inputs = torch.rand(2, 16, 4), torch.randn(2, 16, 4)
    out = []
    for name, scan in (("AssocScan", AssocScan()), ("AssocScan.reverse", AssocScan(reverse=True))):
        out.append((name, scan, (gates, inputs)))
        out.append((f"{name}.prev", lambda g, i, p, s=scan: s(g, i, prev=p), (gates, inputs, torch.randn(2, 4))))
        out.append((f"{name}.next", lambda g, i, s=scan: s(g, i, return_next=True), (gates, inputs)))
    return out


def _hyper():
    from hyper_connections import get_init_and_expand_reduce_stream_functions

    torch.manual_seed(0)
    init_hyper_conn, expand, reduce = get_init_and_expand_reduce_stream_functions(4)
    branch = init_hyper_conn(dim=16, branch=nn.Linear(16, 16))

    def run(x):
        return reduce(branch(expand(x)))
    return [("HyperConnections", run, (torch.randn(2, 8, 16),))]


LIBRARIES = {
    "hl_gauss_pytorch": (_hl_gauss, entries("hl_gauss_pytorch.hl_gauss", ["HLGaussLossFromSupport.forward"])),
    "assoc_scan": (_assoc_scan, []),
    "hyper_connections": (_hyper, []),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
