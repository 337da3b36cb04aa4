"""pyiqa (IQA-PyTorch), a library the analysis was never shown (in neither half of the harness, not reserved):
image quality metrics as modules, full-reference (SSIM, MS-SSIM, CW-SSIM, PSNR, FSIM, VSI, GMSD, MAD, NLPD, VIF,
PieAPP, ST-LPIPS, MS-SWD) and no-reference (PIQE, entropy, WaDIQaM, MUSIQ, MetaIQA), each built without
pretrained weights, under dynamo against the static pass on the same tree. The metrics whose constructors
download weights or backbones (NIQE, BRISQUE, LPIPS, DISTS, CKDN, DBCNN, ...) are left out: the machine is offline,
and those that need timm are left out too.

Run it where torch and pyiqa are installed together (here: `pip install torch==2.14.1 pyiqa`), from the
repository root:

    python bench/unseen_pyiqa.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_pyiqa.txt.
"""

import importlib
import inspect
import logging
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import pyiqa
import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
ROOT = Path(pyiqa.__file__).resolve().parent
FULL_REFERENCE = {"ssim_arch": ["SSIM", "MS_SSIM", "CW_SSIM"], "psnr_arch": ["PSNR"], "fsim_arch": ["FSIM"],
                  "vsi_arch": ["VSI"], "gmsd_arch": ["GMSD"], "mad_arch": ["MAD"], "nlpd_arch": ["NLPD"],
                  "vif_arch": ["VIF"], "pieapp_arch": ["PieAPP"], "stlpips_arch": ["STLPIPS"],
                  "msswd_arch": ["MS_SWD_learned"]}
NO_REFERENCE = {"piqe_arch": ["PIQE"], "entropy_arch": ["Entropy"], "wadiqam_arch": ["WaDIQaM"],
                "musiq_arch": ["MUSIQ"], "metaiqa_arch": ["MetaIQA"]}
ENTRY_POINTS = [f"pyiqa.archs.{module}.{name}.forward" for table in (FULL_REFERENCE, NO_REFERENCE)
                for module, names in table.items() for name in names]


def _built(module: str, name: str) -> torch.nn.Module:
    """The metric `name` of `pyiqa.archs.module`, without pretrained weights."""
    cls = getattr(importlib.import_module(f"pyiqa.archs.{module}"), name)
    parameters = inspect.signature(cls.__init__).parameters
    kwargs = {key: None if "path" in key else False for key in parameters if "pretrain" in key}
    torch.manual_seed(0)
    return cls(**kwargs).eval()


def cases():
    torch.manual_seed(0)
    x, y = torch.rand(2, 3, 64, 64), torch.rand(2, 3, 64, 64)
    out = []
    for table, args in ((FULL_REFERENCE, (x, y)), (NO_REFERENCE, (x,))):
        for module, names in table.items():
            for name in names:
                out.append((name, _built(module, name), args))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pyiqa {pyiqa.__version__}")
