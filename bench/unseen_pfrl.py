"""PFRL (PyTorch reinforcement learning), a library the analysis was never shown (in neither half of the harness,
not reserved): its Q-functions with the action values they return (greedy actions, maxima, distributional and
quadratic values), its policy heads with the distributions they return (sampled and scored), its layers (empirical
normalization, factorized noisy linear, Atari CNNs, batch-normalized MLPs), the implicit quantile Q-function, and
the agents' value losses (DQN, categorical DQN with its projection, IQN's quantile Huber loss) and each value-based
agent's loss on a replayed batch (DQN, double DQN, PAL, DPP, AL, categorical DQN, IQN), each in training and
evaluation mode where it is a module.

Run it where torch and pfrl are installed together (here: `pip install torch==2.14.1 pfrl`), from the
repository root:

    python bench/unseen_pfrl.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_pfrl.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import pfrl
import torch
from gymnasium.spaces import Box
from pfrl import nn as pnn
from pfrl import policies, q_functions
from pfrl.agents import categorical_dqn, dqn, iqn
from pfrl.functions.lower_triangular_matrix import lower_triangular_matrix
from torch import nn

warnings.filterwarnings("ignore")
ROOT = Path(pfrl.__file__).resolve().parent
ENTRY_POINTS = ["pfrl.action_value.*", "pfrl.agents.dqn.compute_value_loss",
                "pfrl.agents.dqn.compute_weighted_value_loss", "pfrl.agents.categorical_dqn.*",
                "pfrl.agents.iqn.compute_*", "pfrl.agents.iqn.ImplicitQuantileQFunction.forward",
                "pfrl.agents.iqn.cosine_basis_functions", "pfrl.functions.*", "pfrl.agents.*._compute_loss"]


def _values(q):
    """What a user of an action value reads: the greedy actions and their values."""
    return lambda x: (lambda v: (v.greedy_actions, v.max))(q(x))


def _scored(head):
    return lambda x: (lambda d: (d.sample(), d.log_prob(d.sample()), d.entropy()))(head(x))


def cases():
    torch.manual_seed(0)
    obs, image = torch.randn(4, 6), torch.rand(2, 4, 84, 84)
    out = []
    for name, q in (("FCStateQ", q_functions.FCStateQFunctionWithDiscreteAction(6, 3, 16, 2)),
                    ("DistributionalFCStateQ", q_functions.DistributionalFCStateQFunctionWithDiscreteAction(
                        6, 3, 11, -10.0, 10.0, 16, 2)),
                    ("FCQuadraticStateQ", q_functions.FCQuadraticStateQFunction(6, 2, 16, 2, Box(-1.0, 1.0, (2,)))),
                    ("DuelingDQN", q_functions.DuelingDQN(3, n_input_channels=4)),
                    ("DistributionalDuelingDQN", q_functions.DistributionalDuelingDQN(3, 11, -10.0, 10.0,
                                                                                      n_input_channels=4))):
        x = image if "Dueling" in name else obs
        out += modes(name, q, (x,), lambda m, v: (lambda a: (a.greedy_actions, a.max))(m(v)))
    for name, head in (("GaussianStateIndependent", policies.GaussianHeadWithStateIndependentCovariance(6)),
                       ("GaussianDiagonal", policies.GaussianHeadWithDiagonalCovariance()),
                       ("GaussianFixed", policies.GaussianHeadWithFixedCovariance()),
                       ("SoftmaxCategorical", policies.SoftmaxCategoricalHead())):
        x = torch.randn(4, 12) if name == "GaussianDiagonal" else obs
        out.append((name, _scored(head), (x,)))
    out += modes("EmpiricalNormalization", pnn.EmpiricalNormalization(6), (obs,))
    out += modes("FactorizedNoisyLinear", pnn.FactorizedNoisyLinear(nn.Linear(6, 3)), (obs,))
    out += modes("SmallAtariCNN", pnn.SmallAtariCNN(4), (image,))
    out += modes("MLPBN", pnn.MLPBN(6, 2, [8, 8]), (obs,))
    psi = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
    phi = nn.Sequential(iqn.CosineBasisLinear(16, 8), nn.ReLU())
    quantile_q = iqn.ImplicitQuantileQFunction(psi, phi, nn.Linear(8, 3))
    out.append(("ImplicitQuantileQ", lambda x, taus: quantile_q(x)(taus).q_values, (obs, torch.rand(4, 5))))
    y, t = torch.randn(8), torch.randn(8)
    out.append(("dqn.compute_value_loss", lambda a, b: dqn.compute_value_loss(a, b, clip_delta=True), (y, t)))
    out.append(("dqn.compute_weighted_value_loss", lambda a, b: dqn.compute_weighted_value_loss(
        a, b, torch.rand(8), clip_delta=True), (y, t)))
    probs = torch.rand(4, 11).softmax(-1)
    out.append(("categorical_projection", categorical_dqn._apply_categorical_projection,
                (torch.linspace(-12, 12, 44).reshape(4, 11), probs, torch.linspace(-10, 10, 11))))
    out.append(("iqn.quantile_huber", iqn.compute_eltwise_huber_quantile_loss,
                (torch.randn(4, 5), torch.randn(4, 7), torch.rand(4, 5))))
    out.append(("lower_triangular_matrix", lower_triangular_matrix, (torch.rand(4, 3), torch.rand(4, 3))))
    return runnable(out + _agent_losses())


def _agent_losses():
    """Each value-based agent's loss on one replayed batch (`_compute_loss`), as a compiled update step runs it."""
    import numpy as np
    from pfrl import agents, explorers, replay_buffers
    from pfrl.replay_buffer import batch_experiences

    rng = np.random.default_rng(0)
    experiences = [[{"state": rng.standard_normal(6).astype(np.float32), "action": int(rng.integers(3)),
                     "reward": float(rng.standard_normal()), "is_state_terminal": bool(i % 3 == 0),
                     "next_state": rng.standard_normal(6).astype(np.float32), "next_action": None}] for i in range(8)]
    out = []
    for name in ("DQN", "DoubleDQN", "PAL", "DoublePAL", "DPP", "AL", "CategoricalDQN", "CategoricalDoubleDQN", "IQN"):
        torch.manual_seed(0)
        if name.startswith("Categorical"):
            q = q_functions.DistributionalFCStateQFunctionWithDiscreteAction(6, 3, 11, -10.0, 10.0, 16, 2)
        elif name == "IQN":
            q = iqn.ImplicitQuantileQFunction(nn.Sequential(nn.Linear(6, 8), nn.ReLU()),
                                              nn.Sequential(iqn.CosineBasisLinear(16, 8), nn.ReLU()), nn.Linear(8, 3))
        else:
            q = q_functions.FCStateQFunctionWithDiscreteAction(6, 3, 16, 2)
        agent = getattr(agents, name)(q, torch.optim.Adam(q.parameters()), replay_buffers.ReplayBuffer(100), 0.99,
                                      explorers.Greedy(), replay_start_size=8, minibatch_size=8)
        batch = batch_experiences(experiences, torch.device("cpu"), lambda x: x, 0.99)
        out.append((f"{name}._compute_loss", lambda b, a=agent: a._compute_loss(b), (batch,)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pfrl {version('pfrl')}")
