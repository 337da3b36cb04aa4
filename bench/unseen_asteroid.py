"""Asteroid, a library the analysis was never shown (in neither half of the harness, not reserved):
speech separation models (convolutional, dual-path recurrent and transformer, recurrent, U-Net,
complex and multichannel ones) and their training losses: permutation-invariant wrappers over
pairwise and single-source losses (exhaustive and Hungarian search, a custom reduction, the
Sinkhorn relaxation), mixture invariance, deep clustering and a multi-scale spectral loss, under
dynamo against the static pass on the same tree.

Run it where torch and asteroid are installed together (here: `pip install torch==2.14.1
torchaudio==2.11.1`, then `pip install --no-deps asteroid==0.7.0 asteroid-filterbanks==0.4.0
torch-stoi pb-bss-eval`: its pins would pull an old torchmetrics), from the repository root:

    python bench/unseen_asteroid.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_asteroid.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import asteroid
import torch
from asteroid import losses, models

warnings.filterwarnings("ignore")
ROOT = Path(asteroid.__file__).resolve().parent
ENTRY_POINTS = ["asteroid.losses.cluster.deep_clustering_loss"]


def cases():
    g = torch.Generator().manual_seed(0)
    mix = torch.randn(2, 800, generator=g)
    sources = torch.randn(2, 2, 800, generator=g)
    small = dict(n_filters=32, kernel_size=16, stride=8)
    nets = [
        ("ConvTasNet", models.ConvTasNet(2, n_blocks=2, n_repeats=1, bn_chan=16, hid_chan=32, skip_chan=16, **small)),
        ("DPRNNTasNet", models.DPRNNTasNet(2, bn_chan=16, hid_size=16, chunk_size=20, n_repeats=1, **small)),
        ("DPTNet", models.DPTNet(2, n_heads=2, ff_hid=32, chunk_size=20, n_repeats=1, **small)),
        ("LSTMTasNet", models.LSTMTasNet(2, n_layers=1, hid_size=16, **small)),
        ("SuDORMRFNet", models.SuDORMRFNet(2, bn_chan=16, num_blocks=2, upsampling_depth=2, **small)),
        ("SuDORMRFImprovedNet", models.SuDORMRFImprovedNet(2, bn_chan=16, num_blocks=2, upsampling_depth=2,
                                                           **small)),
        ("DCUNet", models.DCUNet("DCUNet-10", stft_n_filters=128, stft_kernel_size=128, stft_stride=32,
                                   fix_length_mode="pad")),
        ("DeMask", models.DeMask(hidden_dims=(32,), n_filters=128, stride=32, kernel_size=128)),
    ]
    out = [(name, net.eval(), (mix,)) for name, net in nets]
    out.append(("FasNetTAC", models.FasNetTAC(2, enc_dim=16, feature_dim=16, hidden_dim=16, n_layers=1,
                                              tac_hidden_dim=16).eval(),
                (torch.randn(2, 3, 800, generator=g), torch.tensor([3, 2]))))
    est = torch.randn(2, 2, 800, generator=g)
    out.append(("PIT.pw_mtx", losses.PITLossWrapper(losses.pairwise_neg_sisdr, pit_from="pw_mtx"), (est, sources)))
    out.append(("PIT.pw_pt", losses.PITLossWrapper(losses.singlesrc_neg_sisdr, pit_from="pw_pt"), (est, sources)))
    out.append(("PIT.perm_avg", losses.PITLossWrapper(losses.multisrc_neg_sisdr, pit_from="perm_avg"), (est, sources)))
    out.append(("PIT.return_est", lambda e, s: losses.PITLossWrapper(losses.pairwise_neg_snr, pit_from="pw_mtx")(
        e, s, return_est=True), (est, sources)))
    five, five_est = torch.randn(2, 5, 400, generator=g), torch.randn(2, 5, 400, generator=g)
    out.append(("PIT.hungarian", losses.PITLossWrapper(losses.pairwise_mse, pit_from="pw_mtx"), (five_est, five)))
    out.append(("PIT.perm_reduce", losses.PITLossWrapper(
        losses.pairwise_neg_sisdr, pit_from="pw_mtx",
        perm_reduce=lambda pwl_set: pwl_set.mean(dim=-1)), (est, sources)))
    out.append(("SinkPIT", losses.SinkPITLossWrapper(losses.pairwise_neg_sisdr, n_iter=5), (est, sources)))
    out.append(("MixIT", losses.MixITLossWrapper(losses.multisrc_neg_sisdr, generalized=True),
                (torch.randn(2, 4, 800, generator=g), sources)))
    out.append(("MixIT.strict", losses.MixITLossWrapper(losses.multisrc_neg_sisdr, generalized=False),
                (torch.randn(2, 4, 800, generator=g), sources)))
    out.append(("deep_clustering_loss", losses.deep_clustering_loss,
                (torch.randn(2, 60, 8, generator=g), torch.randint(0, 2, (2, 6, 10), generator=g))))
    long = torch.randn(2, 8000, generator=g)
    out.append(("MultiScaleSpectral", losses.SingleSrcMultiScaleSpectral(), (long, long.flip(-1))))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"asteroid {asteroid.__version__}")
