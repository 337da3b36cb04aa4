"""skrl's models, a reinforcement-learning library the analysis was never shown (in neither half of the harness, not
reserved): policies and value functions built from each of its mixins (Gaussian, multivariate Gaussian,
deterministic, categorical, multi-categorical) over a small network, as its documentation builds them, each
acting on a batch of states (sampling, log-probabilities, clipping to the action space), with the models' random
actions, under dynamo against the static pass on the same tree.

Run it where torch, gymnasium and skrl are installed together (here: `pip install torch==2.14.1 gymnasium skrl`),
from the repository root:

    python bench/unseen_skrl.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_skrl.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import skrl
import torch
from gymnasium.spaces import Box, Discrete, MultiDiscrete
from skrl.models.torch import (CategoricalMixin, DeterministicMixin, GaussianMixin, Model, MultiCategoricalMixin,
                               MultivariateGaussianMixin)
from torch import nn

warnings.filterwarnings("ignore")
ROOT = Path(skrl.__file__).resolve().parent
ENTRY_POINTS = [f"skrl.models.torch.{module}.{mixin}.act" for module, mixin in (
    ("gaussian", "GaussianMixin"), ("multivariate_gaussian", "MultivariateGaussianMixin"),
    ("deterministic", "DeterministicMixin"), ("categorical", "CategoricalMixin"),
    ("multicategorical", "MultiCategoricalMixin"))] + ["skrl.models.torch.base.Model.random_act"]
OBSERVATIONS = Box(-1.0, 1.0, (6,))


def _model(mixin, action_space, **kwargs):
    """A model of `mixin` over a small network, whose `compute` returns what the mixin asks of it."""
    outputs = action_space.shape[0] if isinstance(action_space, Box) else (
        int(sum(action_space.nvec)) if isinstance(action_space, MultiDiscrete) else action_space.n)

    class Net(mixin, Model):
        def __init__(self):
            Model.__init__(self, observation_space=OBSERVATIONS, action_space=action_space, device="cpu")
            mixin.__init__(self, **kwargs)
            self.net = nn.Sequential(nn.Linear(6, 16), nn.ELU(), nn.Linear(16, outputs))
            self.log_std = nn.Parameter(torch.zeros(outputs))

        def compute(self, inputs, role=""):
            out = self.net(inputs["observations"] if "observations" in inputs else inputs["states"])
            if mixin in (GaussianMixin, MultivariateGaussianMixin):
                return out, {"log_std": self.log_std}
            return out, {}
    torch.manual_seed(0)
    return Net()


def cases():
    torch.manual_seed(0)
    states = torch.rand(4, 6) * 2 - 1
    inputs = {"observations": states, "states": states}
    box = Box(-1.0, 1.0, (2,))
    models = {"Gaussian": _model(GaussianMixin, box),
              "Gaussian.clipped": _model(GaussianMixin, box, clip_actions=True, clip_mean_actions=True),
              "Gaussian.none": _model(GaussianMixin, box, reduction="none"),
              "MultivariateGaussian": _model(MultivariateGaussianMixin, box),
              "Deterministic": _model(DeterministicMixin, box),
              "Deterministic.clipped": _model(DeterministicMixin, box, clip_actions=True),
              "Categorical": _model(CategoricalMixin, Discrete(3)),
              "Categorical.logits": _model(CategoricalMixin, Discrete(3), unnormalized_log_prob=False),
              "MultiCategorical": _model(MultiCategoricalMixin, MultiDiscrete([3, 2]))}
    out = []
    for name, model in models.items():
        out.append((f"{name}.act", lambda s, m=model: m.act({"observations": s, "states": s}, role="policy"),
                    (states,)))
        out.append((f"{name}.random_act", lambda s, m=model: m.random_act({"observations": s, "states": s},
                                                                          role="policy"), (states,)))
    taken = {**inputs, "taken_actions": torch.rand(4, 2) * 2 - 1}
    out.append(("Gaussian.log_prob", lambda s, a, m=models["Gaussian"]: m.act(
        {"observations": s, "states": s, "taken_actions": a}, role="policy"), (states, taken["taken_actions"])))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"skrl {version('skrl')}")
