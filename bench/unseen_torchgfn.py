"""torchgfn, a GFlowNet library the analysis was never shown (in neither half of the harness, not reserved): on
its hypergrid and discrete energy-based environments, with MLP policies over one-hot and k-hot states, the losses
a training step computes from trajectories sampled beforehand (trajectory balance, log-partition variance,
detailed balance, modified detailed balance, sub-trajectory balance with each weighting, flow matching), the
samplers themselves (`sample_trajectories`, which steps the environment, masks finished states and gathers
log-probabilities), and the estimators alone.

Run it where torch, torch_geometric and torchgfn are installed together (here: `pip install torch==2.14.1
torch_geometric tensordict einops dill`, then `pip install --no-deps torchgfn==2.4.1`), from the repository root:

    python bench/unseen_torchgfn.py [--src OTHER_TREE/src] [--sites FILE]

torchgfn imports a transformer library for one module of layers no case here uses: a stand-in takes its place
(`unseen.stand_in`). `unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke
on the static pass reports. Results: bench/results/unseen_torchgfn.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch

stand_in(["linear_attention_transformer"])

import gfn  # noqa: E402
from gfn.estimators import DiscretePolicyEstimator, ScalarEstimator  # noqa: E402
from gfn.gflownet import (DBGFlowNet, FMGFlowNet, LogPartitionVarianceGFlowNet, ModifiedDBGFlowNet,  # noqa: E402
                          SubTBGFlowNet, TBGFlowNet)
from gfn.gym import DiscreteEBM, HyperGrid  # noqa: E402
from gfn.preprocessors import IdentityPreprocessor, KHotPreprocessor  # noqa: E402
from gfn.utils.modules import MLP  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(gfn.__file__).resolve().parent
ENTRY_POINTS = ["gfn.gflownet.base.GFlowNet.loss", "gfn.gflownet.base.GFlowNet.sample_trajectories",
                "gfn.samplers.Sampler.sample_trajectories", "gfn.gflownet.base.GFlowNet.loss_from_trajectories"]


def _estimators(env, preprocessor):
    dim = preprocessor.output_dim
    pf = MLP(input_dim=dim, output_dim=env.n_actions, hidden_dim=16, n_hidden_layers=1)
    pb = MLP(input_dim=dim, output_dim=env.n_actions - 1, hidden_dim=16, n_hidden_layers=1, trunk=pf.trunk)
    logf = MLP(input_dim=dim, output_dim=1, hidden_dim=16, n_hidden_layers=1)
    return (DiscretePolicyEstimator(pf, env.n_actions, preprocessor=preprocessor),
            DiscretePolicyEstimator(pb, env.n_actions, preprocessor=preprocessor, is_backward=True),
            ScalarEstimator(logf, preprocessor=preprocessor))


def _flows(env, preprocessor):
    pf, pb, logf = _estimators(env, preprocessor)
    dim = preprocessor.output_dim
    edge = DiscretePolicyEstimator(MLP(input_dim=dim, output_dim=env.n_actions, hidden_dim=16, n_hidden_layers=1),
                                   env.n_actions, preprocessor=preprocessor)
    nets = {"TB": TBGFlowNet(pf, pb), "LogPartitionVariance": LogPartitionVarianceGFlowNet(pf, pb),
            "DB": DBGFlowNet(pf, pb, logf), "DB.forward_looking": DBGFlowNet(pf, pb, logf, forward_looking=True),
            "ModifiedDB": ModifiedDBGFlowNet(pf, pb)}
    for weighting in ("DB", "ModifiedDB", "TB", "geometric", "equal", "geometric_within", "equal_within"):
        nets[f"SubTB.{weighting}"] = SubTBGFlowNet(pf, pb, logf, weighting=weighting)
    nets["FM"] = FMGFlowNet(edge)
    return nets, pf


def cases():
    torch.manual_seed(0)
    out = []
    grid = HyperGrid(ndim=2, height=4, validate_modes=False)
    ebm = DiscreteEBM(ndim=4)
    for env_name, env, preprocessor in (("HyperGrid", grid, KHotPreprocessor(height=4, ndim=2)),
                                        ("DiscreteEBM", ebm, IdentityPreprocessor(output_dim=4))):
        nets, pf = _flows(env, preprocessor)
        for net_name, net in nets.items():
            name = f"{env_name}.{net_name}"
            samples = net.to_training_samples(net.sample_trajectories(env, n=8, save_logprobs=True))
            out.append((f"{name}.loss", lambda s, n=net, e=env: n.loss(e, s), (samples,)))
            out.append((f"{name}.sample_trajectories",
                        lambda k, n=net, e=env: n.sample_trajectories(e, n=k, save_logprobs=True).log_probs, (8,)))
        states = env.reset(batch_shape=(8,), random=True) if env_name == "HyperGrid" else env.reset(batch_shape=(8,))
        out.append((f"{env_name}.policy", lambda s, p=pf: p(s), (states,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchgfn {version('torchgfn')}")
