"""Tianshou, a library the analysis was never shown (in neither half of the harness, not reserved): the
networks of its reinforcement-learning algorithms, the parts a user compiles. MLPs and `Net` (plain,
softmax, concatenated actions, distributional atoms, dueling heads), recurrent and branching networks,
ensembles of linear layers, discrete actors and critics, implicit and fully parameterised quantile
networks with their fraction proposals, noisy layers in training and evaluation, the intrinsic curiosity
module, continuous deterministic and probabilistic actors and critics (recurrent ones too), and BCQ's
perturbation and VAE (forward and decode), each on a tensor of observations (and on a NumPy array where
the network takes one) under dynamo against the static pass on the same tree.

Run it where torch and Tianshou are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps tianshou==2.0.1 pettingzoo` and `pip install deepdiff overrides tensorboard
sensai-utils`), from the repository root:

    python bench/unseen_tianshou.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_tianshou.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch
import tianshou
from tianshou.utils.net.common import MLP, BranchingNet, EnsembleLinear, Net, Recurrent
from tianshou.utils.net.continuous import (VAE, ContinuousActorDeterministic, ContinuousActorProbabilistic,
                                           ContinuousCritic, Perturbation, RecurrentActorProb, RecurrentCritic)
from tianshou.utils.net.discrete import (DiscreteActor, DiscreteCritic, FractionProposalNetwork,
                                         FullQuantileFunction, ImplicitQuantileNetwork, IntrinsicCuriosityModule,
                                         NoisyLinear)

warnings.filterwarnings("ignore")
ROOT = Path(tianshou.__file__).resolve().parent
ENTRY_POINTS = [f"tianshou.utils.net.common.{c}" for c in ("MLP", "Net", "Recurrent", "EnsembleLinear", "BranchingNet")] + [
    f"tianshou.utils.net.discrete.{c}" for c in ("DiscreteActor", "DiscreteCritic", "ImplicitQuantileNetwork",
                                                 "FractionProposalNetwork", "FullQuantileFunction", "NoisyLinear",
                                                 "IntrinsicCuriosityModule")] + [
    f"tianshou.utils.net.continuous.{c}" for c in ("ContinuousActorDeterministic", "ContinuousActorProbabilistic",
                                                   "ContinuousCritic", "RecurrentActorProb", "RecurrentCritic",
                                                   "Perturbation", "VAE", "VAE.decode")]


def cases():
    torch.manual_seed(0)
    obs, act = torch.randn(6, 4), torch.randn(6, 2)
    out = [("mlp", MLP(input_dim=4, output_dim=3, hidden_sizes=(8, 8)), (obs,)),
           ("mlp_numpy", MLP(input_dim=4, output_dim=3, hidden_sizes=(8,)), (np.random.rand(6, 4).astype("float32"),)),
           ("ensemble_linear", EnsembleLinear(3, 4, 5), (torch.randn(3, 6, 4),))]
    for name, kwargs in (("plain", {}), ("softmax", {"softmax": True}), ("atoms", {"num_atoms": 5}),
                         ("dueling", {"dueling_param": ({"hidden_sizes": [8]}, {"hidden_sizes": [8]})})):
        out.append((f"net_{name}", Net(state_shape=4, action_shape=3, hidden_sizes=(8,), **kwargs), (obs,)))
    out.append(("net_concat", Net(state_shape=4, action_shape=2, hidden_sizes=(8,), concat=True),
                (torch.cat([obs, act], -1),)))
    out.append(("recurrent", Recurrent(layer_num=1, state_shape=4, action_shape=3, hidden_layer_size=8),
                (torch.randn(6, 5, 4),)))
    out.append(("branching", BranchingNet(state_shape=4, num_branches=3, action_per_branch=2, common_hidden_sizes=[8],
                                          value_hidden_sizes=[8], action_hidden_sizes=[8]), (obs,)))
    body = Net(state_shape=4, hidden_sizes=(8,))
    out.append(("discrete_actor", DiscreteActor(preprocess_net=body, action_shape=3), (obs,)))
    out.append(("discrete_critic", DiscreteCritic(preprocess_net=body, last_size=3), (obs,)))
    iqn = ImplicitQuantileNetwork(preprocess_net=body, action_shape=3, num_cosines=8)
    out.append(("iqn", lambda o: iqn(o, sample_size=4), (obs,)))
    fqf = FullQuantileFunction(preprocess_net=body, action_shape=3, num_cosines=8)
    proposal = FractionProposalNetwork(num_fractions=4, embedding_dim=8)
    out.append(("fraction_proposal", proposal, (torch.randn(6, 8),)))
    out.append(("fqf", lambda o: fqf(o, proposal), (obs,)))
    noisy = NoisyLinear(4, 3)
    out.append(("noisy_train", noisy, (obs,)))
    noisy_eval = NoisyLinear(4, 3).eval()
    out.append(("noisy_eval", noisy_eval, (obs,)))
    icm = IntrinsicCuriosityModule(feature_net=MLP(input_dim=4, output_dim=8), feature_dim=8, action_dim=3,
                                   hidden_sizes=(8,))
    out.append(("icm", icm, (obs, torch.randint(0, 3, (6,)), torch.randn(6, 4))))
    out.append(("actor_deterministic", ContinuousActorDeterministic(preprocess_net=body, action_shape=2), (obs,)))
    for name, kwargs in (("bounded", {}), ("unbounded", {"unbounded": True}), ("conditioned", {"conditioned_sigma": True})):
        out.append((f"actor_probabilistic_{name}", ContinuousActorProbabilistic(preprocess_net=body, action_shape=2, **kwargs),
                    (obs,)))
    critic_body = Net(state_shape=4, action_shape=2, hidden_sizes=(8,), concat=True)
    out.append(("critic", ContinuousCritic(preprocess_net=critic_body), (obs, act)))
    out.append(("recurrent_actor", RecurrentActorProb(layer_num=1, state_shape=(4,), action_shape=(2,), hidden_layer_size=8),
                (torch.randn(6, 5, 4),)))
    out.append(("recurrent_critic", RecurrentCritic(layer_num=1, state_shape=(4,), action_shape=(2,), hidden_layer_size=8),
                (torch.randn(6, 5, 4), act)))
    out.append(("perturbation", Perturbation(preprocess_net=Net(state_shape=6, action_shape=2, hidden_sizes=(8,)),
                                             max_action=1.0), (obs, act)))
    vae = VAE(encoder=MLP(input_dim=6, output_dim=8), decoder=MLP(input_dim=7, output_dim=2), hidden_dim=8, latent_dim=3,
              max_action=1.0)
    out.append(("vae", vae, (obs, act)))
    out.append(("vae_decode", vae.decode, (obs,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"tianshou {version('tianshou')}")
