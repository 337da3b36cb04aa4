"""rectified-flow-pytorch, a flow-matching library the analysis was never shown (in neither half of the harness,
not reserved): rectified flow (with its U-Net, and with its options: noise or clean-data prediction, the pseudo-Huber
loss, immiscible pairing of noise and data, consistency flow matching, a mean-variance head), mean flows (and the
split one), nano flow, equilibrium matching, LSD flow and UA flow, each compiled where a user compiles it: the
training loss (the wrapper's forward on a batch of data) and the sampler (its ODE or few-step loop).

Run it where torch and rectified-flow-pytorch are installed together (here: `pip install torch==2.14.1
rectified-flow-pytorch`), from the repository root:

    python bench/unseen_rectified_flow.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs the cases under dynamo and prints which of the statements dynamo broke on the static
pass reports; with `--sites FILE` its answers are kept there. Results: bench/results/unseen_rectified_flow.txt.
"""

import logging
import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)


class Tiny(nn.Module):
    """A velocity network of any number of time arguments (by position or keyword), as each wrapper calls it."""

    def __init__(self, channels: int = 3, out: int | None = None):
        super().__init__()
        self.conv = nn.Conv2d(channels, out or channels, 3, padding=1)
        self.time = nn.Linear(1, out or channels)

    def forward(self, x, *times, **kwargs):
        t = [v for v in (*times, *kwargs.values()) if torch.is_tensor(v)]
        shift = sum(self.time(v.reshape(-1, 1).float()) for v in t) if t else 0
        return self.conv(x) + (shift[:, :, None, None] if t else 0)


def _cases():
    import rectified_flow_pytorch as rf
    from rectified_flow_pytorch.rectified_flow import Unet

    data = torch.rand(2, 3, 16, 16)
    out = []
    unet = Unet(dim=16, dim_mults=(1, 2), channels=3)
    flows = {
        "RectifiedFlow": rf.RectifiedFlow(unet),
        "RectifiedFlow.noise": rf.RectifiedFlow(unet, predict="noise"),
        "RectifiedFlow.clean": rf.RectifiedFlow(unet, predict="clean"),
        "RectifiedFlow.huber": rf.RectifiedFlow(unet, loss_fn="pseudo_huber", noise_schedule="cosmap"),
        "RectifiedFlow.immiscible": rf.RectifiedFlow(unet, immiscible=True),
        "RectifiedFlow.consistency": rf.RectifiedFlow(unet, use_consistency=True),
        "RectifiedFlow.variance": rf.RectifiedFlow(Unet(dim=16, dim_mults=(1, 2), channels=3, mean_variance_net=True),
                                                   mean_variance_net=True),
        "MeanFlow": rf.MeanFlow(Tiny(), data_shape=(3, 16, 16)),
        "MeanFlow.recon": rf.MeanFlow(Tiny(), data_shape=(3, 16, 16), add_recon_loss=True),
        "SplitMeanFlow": rf.SplitMeanFlow(Tiny(), data_shape=(3, 16, 16)),
        "NanoFlow": rf.NanoFlow(Tiny(), times_cond_kwarg="times", data_shape=(3, 16, 16)),
        "EquilibriumMatching": rf.EquilibriumMatching(Tiny(), data_shape=(3, 16, 16)),
        "LsdFlow": rf.LsdFlow(Tiny(), data_shape=(3, 16, 16)),
        "UAFlow": rf.UAFlow(Tiny(), data_shape=(3, 16, 16)),
    }
    for name, flow in flows.items():
        out.append((f"{name}.loss", lambda d, flow=flow: flow(d), (data,)))
        out.append((f"{name}.sample", lambda n, flow=flow: flow.sample(batch_size=2, data_shape=(3, 16, 16)),
                    (torch.zeros(()),)))
    return out


LIBRARIES = {"rectified_flow_pytorch": (_cases, [])}

if __name__ == "__main__":
    measure_each(LIBRARIES)
