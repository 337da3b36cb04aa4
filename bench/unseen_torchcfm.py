"""TorchCFM, a library the analysis was never shown (in neither half of the harness, not reserved):
conditional flow matching's training targets (independent, exact and entropic optimal transport,
Schrödinger bridge, target, variance preserving; with labels where a matcher takes them), its
minibatch optimal-transport plans and their sampling, the Wasserstein distance, and a time-varying
MLP and its gradient model, under dynamo against the static pass on the same tree.

Run it where torch and torchcfm are installed together (here: `pip install torch==2.14.1
torchcfm==1.0.7`), from the repository root:

    python bench/unseen_torchcfm.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchcfm.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchcfm
from torchcfm import conditional_flow_matching as cfm
from torchcfm.models.models import MLP, GradModel
from torchcfm.optimal_transport import OTPlanSampler, wasserstein

warnings.filterwarnings("ignore")
ROOT = Path(torchcfm.__file__).resolve().parent
MATCHERS = ("ConditionalFlowMatcher", "ExactOptimalTransportConditionalFlowMatcher", "TargetConditionalFlowMatcher",
            "SchrodingerBridgeConditionalFlowMatcher", "VariancePreservingConditionalFlowMatcher")
ENTRY_POINTS = [
    *(f"torchcfm.conditional_flow_matching.{cls}.sample_location_and_conditional_flow" for cls in MATCHERS),
    *(f"torchcfm.conditional_flow_matching.{cls}.guided_sample_location_and_conditional_flow"
      for cls in ("ExactOptimalTransportConditionalFlowMatcher", "SchrodingerBridgeConditionalFlowMatcher")),
    "torchcfm.optimal_transport.OTPlanSampler.sample_plan", "torchcfm.optimal_transport.OTPlanSampler.sample_trajectory",
    "torchcfm.optimal_transport.wasserstein",
]


def cases():
    g = torch.Generator().manual_seed(0)
    x0, x1 = torch.randn(8, 2, generator=g), torch.randn(8, 2, generator=g) + 3
    y0, y1 = torch.randint(0, 2, (8,), generator=g), torch.randint(0, 2, (8,), generator=g)
    out = []
    for name in MATCHERS:
        matcher = getattr(cfm, name)(sigma=0.1)
        out.append((name, lambda a, b, m=matcher: m.sample_location_and_conditional_flow(a, b), (x0, x1)))
        out.append((f"{name}.noise", lambda a, b, m=matcher: m.sample_location_and_conditional_flow(
            a, b, return_noise=True), (x0, x1)))
    for name in ("ExactOptimalTransportConditionalFlowMatcher", "SchrodingerBridgeConditionalFlowMatcher"):
        matcher = getattr(cfm, name)(sigma=0.1)
        out.append((f"{name}.guided", lambda a, b, c, d, m=matcher: m.guided_sample_location_and_conditional_flow(
            a, b, c, d), (x0, x1, y0, y1)))
    for method in ("exact", "sinkhorn", "unbalanced"):
        sampler = OTPlanSampler(method=method, reg=0.5)
        out.append((f"OTPlanSampler.{method}", lambda a, b, s=sampler: s.sample_plan(a, b), (x0, x1)))
    trajectory = torch.randn(8, 3, 2, generator=g)
    out.append(("OTPlanSampler.trajectory", lambda x, s=OTPlanSampler(method="exact"): s.sample_trajectory(x),
                (trajectory,)))
    out.append(("wasserstein", wasserstein, (x0, x1)))
    out.append(("wasserstein.sinkhorn", lambda a, b: wasserstein(a, b, method="sinkhorn", reg=0.5), (x0, x1)))
    net = MLP(2, time_varying=True)
    out.append(("MLP", net, (torch.randn(8, 3, generator=g),)))
    out.append(("GradModel@train", GradModel(MLP(3, out_dim=1)), (torch.randn(8, 3, generator=g),)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchcfm {torchcfm.__version__}")
