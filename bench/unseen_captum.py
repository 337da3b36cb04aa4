"""Captum, a library the analysis was never shown (in neither half of the harness, not reserved): its
attribution methods (gradients, integrated gradients, DeepLift, gradient SHAP, guided backpropagation,
deconvolution, input times gradient, LRP, the layer and neuron forms of these, Grad-CAM, feature
ablation and permutation, occlusion, noise tunnel), each `attribute` compiled as a user compiles a call
of it, on a small convolutional classifier, under dynamo against the static pass on the same tree.

Run it where torch and Captum are installed together (here: `pip install torch==2.14.1 matplotlib
numpy`, then `pip install --no-deps captum==0.9.0`), from the repository root:

    python bench/unseen_captum.py [--src OTHER_TREE/src] [--sites FILE]

The sampling methods that run the model hundreds of times (Lime, KernelShap, Shapley values) and the
language-model ones are left out. `unseen.measure` runs each case under dynamo and prints which of the
statements dynamo broke on the static pass reports. Results: bench/results/unseen_captum.txt.
"""

import warnings
from functools import partial
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

import captum  # noqa: E402
import captum.attr as attr  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(captum.__file__).resolve().parent


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc(self.pool(self.relu(self.conv(x))).flatten(1))


PLAIN = ("Saliency", "IntegratedGradients", "DeepLift", "InputXGradient", "GuidedBackprop", "Deconvolution",
         "LRP", "FeatureAblation", "FeaturePermutation")
LAYER = ("LayerGradCam", "LayerConductance", "LayerIntegratedGradients", "LayerGradientXActivation",
         "LayerActivation", "LayerDeepLift", "InternalInfluence", "LayerFeatureAblation")
NEURON = ("NeuronGradient", "NeuronIntegratedGradients", "NeuronConductance", "NeuronDeepLift",
          "NeuronGuidedBackprop", "NeuronDeconvolution", "NeuronFeatureAblation")
CLASSES = [getattr(attr, name) for name in (*PLAIN, *LAYER, *NEURON, "GradientShap", "DeepLiftShap", "GuidedGradCam",
                                             "Occlusion", "NoiseTunnel", "LayerGradientShap", "NeuronGradientShap")]
ENTRY_POINTS = [f"{cls.__module__}.{cls.__qualname__}.attribute" for cls in CLASSES]


def cases():
    torch.manual_seed(0)
    net = Net().eval()
    x, baseline = torch.rand(2, 3, 6, 6), torch.zeros(2, 3, 6, 6)
    out = []

    def add(name, method, args, **kwargs):
        out.append((name, partial(method.attribute, **kwargs), args))
    for name in PLAIN:
        add(name, getattr(attr, name)(net), (x,), target=0)
    for name in LAYER:
        add(name, getattr(attr, name)(net, net.conv), (x,), **({} if name == "LayerActivation" else {"target": 0}))
    for name in NEURON:
        method = getattr(attr, name)(net, net.conv)
        add(name, method, (x,), neuron_selector=(0, 1, 1))
    add("GradientShap", attr.GradientShap(net), (x,), baselines=baseline, target=0, n_samples=2)
    add("DeepLiftShap", attr.DeepLiftShap(net), (x,), baselines=torch.zeros(3, 3, 6, 6), target=0)
    add("GuidedGradCam", attr.GuidedGradCam(net, net.conv), (x,), target=0)
    add("Occlusion", attr.Occlusion(net), (x,), sliding_window_shapes=(3, 3, 3), target=0)
    add("NoiseTunnel", attr.NoiseTunnel(attr.Saliency(net)), (x,), nt_samples=2, target=0)
    add("LayerGradientShap", attr.LayerGradientShap(net, net.conv), (x,), baselines=baseline, target=0, n_samples=2)
    add("NeuronGradientShap", attr.NeuronGradientShap(net, net.conv), (x,), neuron_selector=(0, 1, 1),
        baselines=baseline, n_samples=2)
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"captum {version('captum')}")
