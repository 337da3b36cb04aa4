"""piq, a library the analysis was never shown (in neither half of the harness, not reserved): image
quality metrics and the losses built on them (PSNR, SSIM and its multi-scale and information-weighted
forms, VIF, FSIM, SR-SIM, GMSD, VSI, HaarPSI, MDSI, DSS, total variation), each as a function and as a
loss module over a batch, and the feature-distance metrics (FID, KID, IS, MSID, PR) on feature tensors,
under dynamo against the static pass on the same tree. The metrics that download weights (LPIPS,
DISTS, BRISQUE, PieAPP, CLIP-IQA, content and style losses) are left out: the machine is offline.

Run it where torch and piq are installed together (here: `pip install torch==2.14.1 piq==0.8.0`),
from the repository root:

    python bench/unseen_piq.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_piq.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import piq
import torch

warnings.filterwarnings("ignore")
ROOT = Path(piq.__file__).resolve().parent
FUNCTIONS = ["psnr", "ssim", "multi_scale_ssim", "information_weighted_ssim", "vif_p", "fsim", "srsim", "gmsd",
             "multi_scale_gmsd", "vsi", "haarpsi", "mdsi", "dss", "total_variation"]
ENTRY_POINTS = [f"piq.{name}" for name in FUNCTIONS]
LOSSES = ["SSIMLoss", "MultiScaleSSIMLoss", "InformationWeightedSSIMLoss", "VIFLoss", "FSIMLoss", "SRSIMLoss",
          "GMSDLoss", "MultiScaleGMSDLoss", "VSILoss", "HaarPSILoss", "MDSILoss", "DSSLoss", "TVLoss"]


def cases():
    torch.manual_seed(0)
    x, y = torch.rand(2, 3, 192, 192), torch.rand(2, 3, 192, 192)
    out = []
    for name in FUNCTIONS:
        fn = getattr(piq, name)
        args = (x,) if name == "total_variation" else (x, y)
        out.append((name, fn, args))
    for name in LOSSES:
        loss = getattr(piq, name)()
        out.append((name, loss, (x,) if name == "TVLoss" else (x, y)))
    out.append(("ssim.full", lambda a, b: piq.ssim(a, b, full=True, reduction="none"), (x, y)))
    out.append(("psnr.gray", lambda a, b: piq.psnr(a, b, convert_to_greyscale=True), (x, y)))
    feats_a, feats_b = torch.rand(64, 16), torch.rand(64, 16)
    for name in ("FID", "KID", "MSID", "PR"):
        metric = getattr(piq, name)()
        out.append((name, metric, (feats_a, feats_b)))
    out.append(("IS", piq.IS(), (torch.rand(64, 10).softmax(-1), torch.rand(64, 10).softmax(-1))))
    out.append(("inception_score", piq.inception_score, (torch.rand(64, 10).softmax(-1),)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"piq {piq.__version__}")
