"""TorchRL, a library the analysis was never shown (in neither half of the harness, not reserved):
reinforcement-learning losses computed on a batch of transitions (DQN and its distributional form,
PPO's clipped and KL-penalised objectives, A2C, REINFORCE, SAC continuous and discrete, DDPG, TD3,
TD3+BC, IQL, CQL, REDQ, CrossQ), the return and advantage estimators they call (GAE, TD(0),
TD(1), TD(lambda), V-trace, reward-to-go, each in its loop and vectorised form), and its networks
(MLP, ConvNet, dueling and distributional Q-networks, noisy layers, recurrent modules, value
normalisers, masked distributions), under dynamo against the static pass on the same tree.

Run it where torch and torchrl are installed together (here: `pip install torch==2.14.1
torchrl==0.14.1`), from the repository root:

    python bench/unseen_torchrl.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchrl.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchrl
from tensordict import TensorDict
from tensordict.nn import NormalParamExtractor, TensorDictModule
from torch import nn
from torchrl.data import Bounded, OneHot
from torchrl.modules import (MLP, Actor, ConvNet, DistributionalQValueActor, DuelingCnnDQNet, LSTMModule,
                             GRUModule, MaskedCategorical, NoisyLinear, ProbabilisticActor, QValueActor, TanhNormal,
                             ValueOperator, set_recurrent_mode)
from torchrl.objectives import (A2CLoss, ClipPPOLoss, CQLLoss, CrossQLoss, DDPGLoss, DiscreteCQLLoss,
                                DiscreteSACLoss, DistributionalDQNLoss, DQNLoss, IQLLoss, KLPENPPOLoss, REDQLoss,
                                ReinforceLoss, SACLoss, TD3BCLoss, TD3Loss)
from torchrl.objectives.value import GAE, TD0Estimator, TD1Estimator, TDLambdaEstimator
from torchrl.objectives.value import functional as vf

warnings.filterwarnings("ignore")
ROOT = Path(torchrl.__file__).resolve().parent
ENTRY_POINTS = [f"torchrl.objectives.value.functional.{name}" for name in (
    "generalized_advantage_estimate", "vec_generalized_advantage_estimate", "td0_return_estimate",
    "td1_return_estimate", "vec_td1_return_estimate", "td_lambda_return_estimate",
    "vec_td_lambda_return_estimate", "vtrace_advantage_estimate", "reward2go")]
B, O, A = 8, 4, 2


def _batch(g, discrete=False, time=None):
    shape = [B] if time is None else [B, time]
    act = (nn.functional.one_hot(torch.randint(0, A, shape, generator=g), A).float() if discrete
           else torch.rand(*shape, A, generator=g) * 2 - 1)
    nxt = {"observation": torch.randn(*shape, O, generator=g), "reward": torch.randn(*shape, 1, generator=g),
           "done": torch.zeros(*shape, 1, dtype=torch.bool), "terminated": torch.zeros(*shape, 1, dtype=torch.bool)}
    return TensorDict({"observation": torch.randn(*shape, O, generator=g), "action": act,
                       "action_log_prob": torch.randn(*shape, generator=g),
                       "next": TensorDict(nxt, shape)}, shape)


def _actor():
    net = nn.Sequential(MLP(in_features=O, out_features=2 * A, num_cells=[16]), NormalParamExtractor())
    return ProbabilisticActor(TensorDictModule(net, in_keys=["observation"], out_keys=["loc", "scale"]),
                              in_keys=["loc", "scale"], distribution_class=TanhNormal, return_log_prob=True,
                              spec=Bounded(-1, 1, (A,)))


class _Q(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = MLP(in_features=O + A, out_features=1, num_cells=[16])

    def forward(self, obs, act):
        return self.m(torch.cat([obs, act], -1))


def _qvalue():
    return ValueOperator(_Q(), in_keys=["observation", "action"])


def _value():
    return ValueOperator(MLP(in_features=O, out_features=1, num_cells=[16]), in_keys=["observation"])


def _det():
    return Actor(MLP(in_features=O, out_features=A, num_cells=[16]), spec=Bounded(-1, 1, (A,)))


def _discrete_actor():
    mod = TensorDictModule(MLP(in_features=O, out_features=A, num_cells=[16]), in_keys=["observation"],
                           out_keys=["logits"])
    from torchrl.modules import OneHotCategorical
    return ProbabilisticActor(mod, in_keys=["logits"], distribution_class=OneHotCategorical, return_log_prob=True,
                              spec=OneHot(A))


def _discrete_q():
    return ValueOperator(MLP(in_features=O, out_features=A, num_cells=[16]), in_keys=["observation"],
                         out_keys=["action_value"])


def cases():
    g = torch.Generator().manual_seed(0)
    bound = Bounded(-1, 1, (A,))
    losses = [
        ("DQN", DQNLoss(QValueActor(MLP(in_features=O, out_features=A, num_cells=[16]), spec=OneHot(A)),
                        action_space="one-hot", delay_value=True), True),
        ("DQN.double", DQNLoss(QValueActor(MLP(in_features=O, out_features=A, num_cells=[16]), spec=OneHot(A)),
                               action_space="one-hot", double_dqn=True, delay_value=True), True),
        ("PPO", ClipPPOLoss(_actor(), _value()), False),
        ("PPO.clip_value", ClipPPOLoss(_actor(), _value(), clip_value=0.2, entropy_coeff=0.01), False),
        ("KLPPO", KLPENPPOLoss(_actor(), _value()), False),
        ("A2C", A2CLoss(_actor(), _value()), False),
        ("Reinforce", ReinforceLoss(_actor(), critic_network=_value()), False),
        ("SAC", SACLoss(_actor(), _qvalue(), _value()), False),
        ("SAC.v2", SACLoss(_actor(), _qvalue(), action_spec=bound), False),
        ("DiscreteSAC", DiscreteSACLoss(_discrete_actor(), _discrete_q(), action_space="one-hot", num_actions=A),
         True),
        ("DDPG", DDPGLoss(_det(), _qvalue()), False),
        ("TD3", TD3Loss(_det(), _qvalue(), action_spec=bound), False),
        ("TD3BC", TD3BCLoss(_det(), _qvalue(), action_spec=bound), False),
        ("IQL", IQLLoss(_actor(), _qvalue(), _value()), False),
        ("CQL", CQLLoss(_actor(), _qvalue(), action_spec=bound), False),
        ("DiscreteCQL", DiscreteCQLLoss(QValueActor(MLP(in_features=O, out_features=A, num_cells=[16]),
                                                    spec=OneHot(A)), action_space="one-hot"), True),
        ("REDQ", REDQLoss(_actor(), _qvalue(), action_spec=bound), False),
        ("CrossQ", CrossQLoss(_actor(), _qvalue(), action_spec=bound), False),
    ]
    out = []
    for name, loss, discrete in losses:
        td = _batch(g, discrete)
        if name == "KLPPO":  # the old policy's parameters, which the penalty compares against
            td["loc"], td["scale"] = torch.zeros(B, A), torch.ones(B, A)
        out.append((name, loss, (td,)))
    atoms = torch.linspace(-1, 1, 5)
    dist = DistributionalQValueActor(nn.Sequential(MLP(in_features=O, out_features=A * 5, num_cells=[16]),
                                                   nn.Unflatten(-1, (5, A))),
                                     spec=OneHot(A), support=atoms)
    out.append(("DistributionalDQN", DistributionalDQNLoss(dist, gamma=0.9), (_batch(g, True),)))
    traj = _batch(g, time=6)
    for name, est in [("GAE", GAE(gamma=0.9, lmbda=0.95, value_network=_value())),
                      ("GAE.loop", GAE(gamma=0.9, lmbda=0.95, value_network=_value(), vectorized=False)),
                      ("TD0", TD0Estimator(gamma=0.9, value_network=_value())),
                      ("TD1", TD1Estimator(gamma=0.9, value_network=_value())),
                      ("TDLambda", TDLambdaEstimator(gamma=0.9, lmbda=0.95, value_network=_value())),
                      ("TDLambda.loop", TDLambdaEstimator(gamma=0.9, lmbda=0.95, value_network=_value(),
                                                          vectorized=False))]:
        out.append((name, est, (traj.clone(),)))
    r, v, nv = (torch.randn(B, 6, 1, generator=g) for _ in range(3))
    done = torch.zeros(B, 6, 1, dtype=torch.bool)
    done[:, -1] = True
    term = torch.zeros(B, 6, 1, dtype=torch.bool)
    out += [
        ("generalized_advantage_estimate", vf.generalized_advantage_estimate, (0.9, 0.95, v, nv, r, done, term)),
        ("vec_generalized_advantage_estimate", vf.vec_generalized_advantage_estimate,
         (0.9, 0.95, v, nv, r, done, term)),
        ("td0_return_estimate", vf.td0_return_estimate, (0.9, nv, r, term)),
        ("td1_return_estimate", vf.td1_return_estimate, (0.9, nv, r, done, term)),
        ("vec_td1_return_estimate", vf.vec_td1_return_estimate, (0.9, nv, r, done, term)),
        ("td_lambda_return_estimate", vf.td_lambda_return_estimate, (0.9, 0.95, nv, r, done, term)),
        ("vec_td_lambda_return_estimate", vf.vec_td_lambda_return_estimate, (0.9, 0.95, nv, r, done, term)),
        ("vtrace_advantage_estimate", vf.vtrace_advantage_estimate,
         (0.9, torch.randn(B, 6, 1, generator=g), torch.randn(B, 6, 1, generator=g), v, nv, r, done, term)),
        ("reward2go", vf.reward2go, (torch.randn(B, 6, generator=g), done[..., 0], 0.9)),
    ]
    pixels = torch.randn(2, 3, 32, 32, generator=g)
    out += [
        ("MLP", MLP(in_features=O, out_features=A, num_cells=[16, 16]), (torch.randn(B, O, generator=g),)),
        ("ConvNet", ConvNet(num_cells=[8, 8], kernel_sizes=3, strides=2), (pixels,)),
        ("DuelingCnnDQNet", DuelingCnnDQNet(A, cnn_kwargs=dict(num_cells=[8, 8], kernel_sizes=3, strides=2),
                                            mlp_kwargs=dict(num_cells=[16])), (pixels,)),
        ("NoisyLinear.train", NoisyLinear(O, A).train(), (torch.randn(B, O, generator=g),)),
        ("MaskedCategorical", lambda logits, mask: MaskedCategorical(logits=logits, mask=mask).log_prob(
            logits.argmax(-1)), (torch.randn(B, 5, generator=g), torch.rand(B, 5, generator=g) > 0.2)),
        ("TanhNormal", lambda loc, scale: TanhNormal(loc, scale).rsample().sum(), (torch.zeros(B, A),
                                                                                   torch.ones(B, A))),
    ]
    seq = TensorDict({"observation": torch.randn(B, 5, O, generator=g),
                      "is_init": torch.zeros(B, 5, 1, dtype=torch.bool)}, [B, 5])
    seq["is_init"][:, 0] = True
    lstm = LSTMModule(input_size=O, hidden_size=8, in_key="observation", out_key="features")
    gru = GRUModule(input_size=O, hidden_size=8, in_key="observation", out_key="features")

    def recurrent(module):
        def run(td):
            with set_recurrent_mode(True):
                return module(td)
        return run

    out += [("LSTMModule.recurrent", recurrent(lstm), (seq.clone(),)),
            ("LSTMModule.step", lstm, (seq[:, 0].clone(),)),
            ("GRUModule.recurrent", recurrent(gru), (seq.clone(),))]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchrl {torchrl.__version__}")
