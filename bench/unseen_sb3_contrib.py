"""SB3-Contrib, a library the analysis was never shown (in neither half of the harness, not reserved): the
policies of its algorithms (maskable PPO over discrete, multi-discrete and binary action spaces with
action masks; recurrent PPO with LSTM states and episode starts; QR-DQN and TQC quantile networks;
CrossQ's batch-normalized actor and critics; ARS's linear and MLP policies), their forward passes,
action evaluation for the policy-gradient loss and value prediction, and the quantile Huber loss of
QR-DQN and TQC, each compiled as a user compiles a policy or a loss, under dynamo against the static
pass on the same tree.

Run it where torch, Stable-Baselines3 and SB3-Contrib are installed together (here: `pip install
torch==2.14.1 gymnasium cloudpickle pandas`, then `pip install --no-deps stable-baselines3==2.9.2
sb3-contrib==2.9.2`), from the repository root:

    python bench/unseen_sb3_contrib.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_sb3_contrib.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch
from gymnasium import spaces

import sb3_contrib  # noqa: E402
from sb3_contrib.ars.policies import ARSPolicy  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy  # noqa: E402
from sb3_contrib.common.recurrent.type_aliases import RNNStates  # noqa: E402
from sb3_contrib.common.utils import quantile_huber_loss  # noqa: E402
from sb3_contrib.crossq.policies import CrossQPolicy  # noqa: E402
from sb3_contrib.qrdqn.policies import QRDQNPolicy  # noqa: E402
from sb3_contrib.tqc.policies import TQCPolicy  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(sb3_contrib.__file__).resolve().parent
ENTRY_POINTS = [
    "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy.evaluate_actions",
    "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy.predict_values",
    "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy._predict",
    "sb3_contrib.common.recurrent.policies.RecurrentActorCriticPolicy.evaluate_actions",
    "sb3_contrib.common.recurrent.policies.RecurrentActorCriticPolicy.predict_values",
    "sb3_contrib.common.recurrent.policies.RecurrentActorCriticPolicy._predict",
    "sb3_contrib.qrdqn.policies.QRDQNPolicy._predict",
    "sb3_contrib.tqc.policies.TQCPolicy._predict",
    "sb3_contrib.crossq.policies.CrossQPolicy._predict",
    "sb3_contrib.common.utils.quantile_huber_loss",
]
N = 6


def _box(n=4):
    return spaces.Box(-1.0, 1.0, (n,), np.float32)


def cases():
    torch.manual_seed(0)
    out = []
    obs = torch.rand(N, 4)
    schedule = lambda _: 1e-3  # noqa: E731
    for name, space in (("discrete", spaces.Discrete(3)), ("multidiscrete", spaces.MultiDiscrete([2, 3])),
                        ("binary", spaces.MultiBinary(3))):
        policy = MaskableActorCriticPolicy(_box(), space, schedule)
        width = 3 if name != "multidiscrete" else 5
        masks = np.ones((N, width if name != "binary" else 6), dtype=bool)
        masks[:, 0] = False
        actions = torch.as_tensor(np.stack([space.sample() for _ in range(N)]))
        out.append((f"maskable.{name}.forward", lambda o, p=policy, m=masks: p(o, action_masks=m), (obs,)))
        out.append((f"maskable.{name}.evaluate_actions",
                    lambda o, a, p=policy, m=masks: p.evaluate_actions(o, a, action_masks=m), (obs, actions)))
        out.append((f"maskable.{name}.predict_values", policy.predict_values, (obs,)))
    for name, space in (("discrete", spaces.Discrete(3)), ("box", _box(2))):
        policy = RecurrentActorCriticPolicy(_box(), space, schedule, lstm_hidden_size=8)
        zeros = (torch.zeros(1, N, 8), torch.zeros(1, N, 8))
        states = RNNStates(zeros, zeros)  # what the algorithm starts its rollouts from
        starts = torch.zeros(N)
        starts[0] = 1.0
        out.append((f"recurrent.{name}.forward", lambda o, p=policy, s=states, e=starts: p(o, s, e), (obs,)))
        actions = torch.as_tensor(np.stack([space.sample() for _ in range(N)]))
        out.append((f"recurrent.{name}.evaluate_actions",
                    lambda o, a, p=policy, s=states, e=starts: p.evaluate_actions(o, a, s, e), (obs, actions)))
        out.append((f"recurrent.{name}.predict_values",
                    lambda o, p=policy, s=states, e=starts: p.predict_values(o, s.vf, e), (obs,)))
    qrdqn = QRDQNPolicy(_box(), spaces.Discrete(3), schedule, n_quantiles=5)
    out.append(("qrdqn.forward", qrdqn, (obs,)))
    tqc = TQCPolicy(_box(), _box(2), schedule, n_quantiles=5, n_critics=2)
    out.append(("tqc.actor", tqc.actor, (obs,)))
    out.append(("tqc.critic", tqc.critic, (obs, torch.rand(N, 2))))
    crossq = CrossQPolicy(_box(), _box(2), schedule)
    for training in (True, False):
        out.append((f"crossq.actor@{'train' if training else 'eval'}",
                    lambda o, p=crossq, t=training: p.set_training_mode(t) or p.actor(o), (obs,)))
        out.append((f"crossq.critic@{'train' if training else 'eval'}",
                    lambda o, a, p=crossq, t=training: p.set_training_mode(t) or p.critic(o, a), (obs, torch.rand(N, 2))))
    for kind in ("linear", "mlp"):
        ars = ARSPolicy(_box(), _box(2), net_arch=[8] if kind == "mlp" else [], with_bias=True)
        out.append((f"ars.{kind}", ars, (obs,)))
    current, target = torch.rand(N, 2, 5), torch.rand(N, 1, 10)
    out.append(("quantile_huber_loss", quantile_huber_loss, (current, target)))
    out.append(("quantile_huber_loss.no_sum", lambda c, t: quantile_huber_loss(c, t, sum_over_quantiles=False),
                (current, target)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"sb3-contrib {version('sb3_contrib')}")
