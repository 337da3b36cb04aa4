"""d3rlpy, a library the analysis was never shown (in neither half of the harness, not reserved): the
update steps of its offline and online Q-learning algorithms (SAC, DDPG, TD3, TD3+BC, CQL, Cal-QL, IQL,
AWAC, BC, BCQ, BEAR, CRR, PLAS, PRDC, ReBRAC, DQN, double DQN, NFQ and the discrete forms), each
compiled as d3rlpy compiles them itself with `compile_graph=True`: `CudaGraphWrapper(self.compute_critic_grad)`
hands the step to `torch.compile`, under dynamo against the static pass on the same tree.

Run it where torch and d3rlpy are installed together (here: `pip install torch==2.14.1 gym==0.26.2
gymnasium structlog dataclasses-json colorama h5py`, then `pip install --no-deps d3rlpy==2.8.1`), from
the repository root:

    python bench/unseen_d3rlpy.py [--src OTHER_TREE/src] [--sites FILE]

No entry points are given: the static pass finds the compiled steps itself, through the wrapper that
compiles its parameter. Each algorithm is built for a small random dataset (4 observations, 2 actions
or 3 discrete ones) and each of its `compute_*_grad` steps run on a batch of 8 transitions, as its
`update` hands them over (`compile_graph` itself needs CUDA graphs). `unseen.measure` runs each case
under dynamo and prints which of the statements dynamo broke on the static pass reports. Results:
bench/results/unseen_d3rlpy.txt.
"""

import logging
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import numpy as np
import structlog
import torch

import d3rlpy  # noqa: E402
import d3rlpy.algos as algos  # noqa: E402
from d3rlpy.dataset import MDPDataset  # noqa: E402
from d3rlpy.torch_utility import TorchMiniBatch  # noqa: E402

warnings.filterwarnings("ignore")
# d3rlpy's own messages (structlog) only from warnings up: torch's graph-break log stays on
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
ROOT = Path(d3rlpy.__file__).resolve().parent
DISCRETE = {"DQNConfig", "DoubleDQNConfig", "NFQConfig"}
LEFT_OUT = {"LearnableConfig", "TQLearningConfig", "TransformerConfig", "RandomPolicyConfig",
            "DiscreteRandomPolicyConfig", "DecisionTransformerConfig", "DiscreteDecisionTransformerConfig",
            "TACRConfig"}  # no learning step, or one on trajectories


def _dataset(discrete: bool) -> MDPDataset:
    rng = np.random.default_rng(0)
    n = 64
    observations = rng.standard_normal((n, 4)).astype(np.float32)
    actions = rng.integers(0, 3, (n,)) if discrete else rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    terminals = np.zeros(n)
    terminals[[31, 63]] = 1
    space = d3rlpy.ActionSpace.DISCRETE if discrete else d3rlpy.ActionSpace.CONTINUOUS
    return MDPDataset(observations, actions, rng.standard_normal(n).astype(np.float32), terminals, action_space=space)


def cases():
    torch.manual_seed(0)
    out = []
    for name in sorted(n for n in dir(algos) if n.endswith("Config") and n not in LEFT_OUT):
        algo = getattr(algos, name)(batch_size=8).create(device="cpu")
        dataset = _dataset(name.startswith("Discrete") or name in DISCRETE)
        algo.build_with_dataset(dataset)
        if hasattr(algo, "_nbsr"):  # PRDC's nearest neighbours of the dataset, as its `fit` sets them up first
            episode = dataset.episodes[0]
            algo._nbsr.fit(np.concatenate([episode.observations * algo.config.beta, episode.actions], axis=1))
        config = algo.config
        batch = TorchMiniBatch.from_batch(
            batch=dataset.sample_transition_batch(8), gamma=config.gamma,
            compute_returns_to_go=algo.need_returns_to_go, device="cpu",
            observation_scaler=config.observation_scaler, action_scaler=config.action_scaler,
            reward_scaler=config.reward_scaler)
        for step in sorted(m for m in dir(algo.impl) if m.startswith("compute_") and m.endswith("_grad")):
            out.append((f"{name.removesuffix('Config')}.{step}", getattr(algo.impl, step), (batch,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"d3rlpy {version('d3rlpy')}")
