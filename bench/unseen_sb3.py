"""Stable-Baselines3, a library the analysis was never shown (in neither half of the harness, not
reserved): the policies its algorithms act with (actor-critic over discrete, multi-discrete, binary,
box and dict observation and action spaces, with state-dependent exploration; Q-networks; SAC and TD3
actors and critics), their forward passes, action evaluation for the policy-gradient loss and value
prediction, the observation preprocessing and the action distributions, under dynamo against the
static pass on the same tree.

Run it where torch and stable-baselines3 are installed together (here: `pip install torch==2.14.1
stable-baselines3==2.9.2`), from the repository root:

    python bench/unseen_sb3.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_sb3.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import numpy as np
import stable_baselines3
import torch
from gymnasium import spaces
from stable_baselines3.common import distributions as dist
from stable_baselines3.common.policies import ActorCriticPolicy, MultiInputActorCriticPolicy
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.dqn.policies import DQNPolicy
from stable_baselines3.sac.policies import SACPolicy
from stable_baselines3.td3.policies import TD3Policy

warnings.filterwarnings("ignore")
ROOT = Path(stable_baselines3.__file__).resolve().parent
ENTRY_POINTS = [
    "stable_baselines3.common.policies.ActorCriticPolicy.evaluate_actions",
    "stable_baselines3.common.policies.ActorCriticPolicy.predict_values",
    "stable_baselines3.common.policies.BasePolicy._predict",
    "stable_baselines3.common.preprocessing.preprocess_obs",
] + [f"stable_baselines3.common.distributions.{cls}.{method}" for cls in (
    "CategoricalDistribution", "MultiCategoricalDistribution", "BernoulliDistribution", "DiagGaussianDistribution",
    "SquashedDiagGaussianDistribution", "StateDependentNoiseDistribution") for method in (
    "log_prob", "entropy", "sample", "mode")]
LR = lambda _: 1e-3  # noqa: E731


def _obs(space, n=4):
    return torch.as_tensor(np.stack([space.sample() for _ in range(n)])).float()


def cases():
    torch.manual_seed(0)
    box = spaces.Box(-1, 1, (6,), np.float32)
    actions = {"discrete": spaces.Discrete(3), "multidiscrete": spaces.MultiDiscrete([2, 3]),
               "binary": spaces.MultiBinary(3), "box": spaces.Box(-1, 1, (2,), np.float32)}
    out = []
    for name, action_space in actions.items():
        policy = ActorCriticPolicy(box, action_space, LR, net_arch=[16])
        obs = _obs(box)
        act = torch.as_tensor(np.stack([action_space.sample() for _ in range(4)])).float()
        out += [(f"ActorCritic.{name}", policy, (obs,)),
                (f"ActorCritic.{name}.evaluate_actions", policy.evaluate_actions, (obs, act)),
                (f"ActorCritic.{name}.predict_values", policy.predict_values, (obs,)),
                (f"ActorCritic.{name}._predict", policy._predict, (obs,))]
    sde = ActorCriticPolicy(box, actions["box"], LR, net_arch=[16], use_sde=True)
    sde.reset_noise(4)
    out += [("ActorCritic.sde", sde, (_obs(box),)),
            ("ActorCritic.sde.evaluate_actions", sde.evaluate_actions, (_obs(box), torch.rand(4, 2) * 2 - 1))]
    for name, obs_space in {"discrete": spaces.Discrete(5), "multidiscrete": spaces.MultiDiscrete([3, 4]),
                            "binary": spaces.MultiBinary(4), "image": spaces.Box(0, 255, (3, 36, 36), np.uint8)}.items():
        policy = ActorCriticPolicy(obs_space, actions["discrete"], LR, net_arch=[16])
        obs = _obs(obs_space)
        out.append((f"ActorCritic.obs.{name}", policy, (obs,)))
        out.append((f"preprocess_obs.{name}", lambda o, s=obs_space: preprocess_obs(o, s), (obs,)))
    dict_space = spaces.Dict({"pos": box, "kind": spaces.Discrete(3)})
    multi = MultiInputActorCriticPolicy(dict_space, actions["box"], LR, net_arch=[16])
    out.append(("MultiInputActorCritic", multi, ({"pos": _obs(box), "kind": torch.tensor([0, 1, 2, 0])},)))
    dqn = DQNPolicy(box, actions["discrete"], LR, net_arch=[16])
    out += [("DQNPolicy", dqn, (_obs(box),)), ("DQNPolicy.q_net", dqn.q_net, (_obs(box),))]
    sac = SACPolicy(box, actions["box"], LR, net_arch=[16])
    out += [("SACPolicy", sac, (_obs(box),)),
            ("SACPolicy.actor.action_log_prob", sac.actor.action_log_prob, (_obs(box),)),
            ("SACPolicy.critic", sac.critic, (_obs(box), torch.rand(4, 2)))]
    sac_sde = SACPolicy(box, actions["box"], LR, net_arch=[16], use_sde=True)
    sac_sde.reset_noise(4)
    out.append(("SACPolicy.sde", sac_sde.actor.action_log_prob, (_obs(box),)))
    td3 = TD3Policy(box, actions["box"], LR, net_arch=[16])
    out += [("TD3Policy", td3, (_obs(box),)), ("TD3Policy.critic.q1_forward", td3.critic.q1_forward,
                                               (_obs(box), torch.rand(4, 2)))]
    logits = torch.randn(4, 5)
    cat = dist.CategoricalDistribution(5)
    mcat = dist.MultiCategoricalDistribution([2, 3])
    bern = dist.BernoulliDistribution(3)
    diag = dist.DiagGaussianDistribution(2)
    squashed = dist.SquashedDiagGaussianDistribution(2)
    out += [
        ("Categorical.log_prob", lambda l, a: cat.proba_distribution(l).log_prob(a), (logits, torch.tensor([0, 1, 4, 2]))),
        ("MultiCategorical.log_prob", lambda l, a: mcat.proba_distribution(l).log_prob(a),
         (logits, torch.tensor([[0, 1], [1, 2], [0, 0], [1, 1]]))),
        ("MultiCategorical.entropy", lambda l: mcat.proba_distribution(l).entropy(), (logits,)),
        ("Bernoulli.sample", lambda l: bern.proba_distribution(l).sample(), (torch.randn(4, 3),)),
        ("DiagGaussian.log_prob", lambda m, a: diag.proba_distribution(m, torch.zeros(2)).log_prob(a),
         (torch.randn(4, 2), torch.randn(4, 2))),
        ("SquashedDiagGaussian.log_prob_from_params", lambda m: squashed.log_prob_from_params(m, torch.zeros(4, 2)),
         (torch.randn(4, 2),)),
        ("SquashedDiagGaussian.log_prob", lambda m, a: squashed.proba_distribution(m, torch.zeros(4, 2)).log_prob(a),
         (torch.randn(4, 2), torch.rand(4, 2) * 1.8 - 0.9)),
    ]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"stable-baselines3 {stable_baselines3.__version__}")
