"""face-alignment, a face detection and landmark library the analysis was never shown (in neither half of the
harness, not reserved): its detectors' networks (S3FD, BlazeFace front and back) with their post-processing
(BlazeFace's box decoding, score masks and weighted non-maximum suppression; S3FD's batch detection and its
prediction decoding), its landmark network (FAN) and the heat-map decoding after it, each compiled where a user
compiles it: the network's forward, and the network with the post-processing that turns its output into boxes or
points. The weights are random (nothing is downloaded): the post-processing runs on whatever the networks give.

Run it where torch and face-alignment are installed together (here: `pip install torch==2.14.1 face-alignment`),
from the repository root:

    python bench/unseen_face_alignment.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs the cases under dynamo and prints which of the statements dynamo broke on the static
pass reports; with `--sites FILE` its answers are kept there. Results: bench/results/unseen_face_alignment.txt.
"""

import logging
import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)


def _detections(n: int = 6) -> torch.Tensor:
    """BlazeFace's detections (ymin, xmin, ymax, xmax, six key points, score) of boxes that overlap in pairs: its
    suppression takes each box's own overlap as 1 (a degenerate box of random weights would loop forever)."""
    corners = torch.rand(n // 2, 2).repeat_interleave(2, 0) + torch.rand(n, 2) * 0.02
    return torch.cat([corners, corners + 0.3, torch.rand(n, 12), torch.rand(n, 1)], 1)


def _cases():
    from face_alignment.detection.blazeface.net_blazeface import BlazeFace
    from face_alignment.detection.retinaface.box_utils import decode
    from face_alignment.detection.sfd import detect as sfd
    from face_alignment.detection.sfd.net_s3fd import s3fd
    from face_alignment.models.fan import FAN
    from face_alignment.utils import get_preds_fromhm

    out = []
    for name, back, size in (("BlazeFace", False, 128), ("BlazeFace.back", True, 256)):
        net = BlazeFace(back_model=back).eval()
        net.load_anchors_from_npy(np.random.rand(896, 4).astype(np.float32), device="cpu")
        images = torch.randint(0, 255, (2, 3, size, size), dtype=torch.uint8)
        out += modes(name, net, (images.float(),))
        out.append((f"{name}.detections", lambda b, s, net=net: net._tensors_to_detections(b, s, net.anchors),
                    (torch.randn(2, 896, 16), torch.randn(2, 896, 1))))
        out.append((f"{name}.suppression", lambda d, net=net: net._weighted_non_max_suppression(d), (_detections(),)))
    detector = s3fd().eval()
    out += modes("s3fd", detector, (torch.rand(1, 3, 64, 64) * 255,))
    out.append(("sfd.batch_detect", lambda x: sfd.batch_detect(detector, x, "cpu"), (torch.rand(1, 3, 64, 64) * 255,)))
    fan = FAN(1).eval()
    out += modes("FAN", fan, (torch.rand(1, 3, 128, 128),))
    out.append(("get_preds_fromhm", lambda hm: get_preds_fromhm(hm.numpy()), (torch.rand(1, 68, 64, 64),)))
    out.append(("retinaface.decode", lambda loc, priors: decode(loc, priors, [0.1, 0.2]),
                (torch.randn(16, 4), torch.rand(16, 4))))
    return out


ENTRIES = (entries("face_alignment.detection.blazeface.net_blazeface", [
    "BlazeFace._tensors_to_detections", "BlazeFace._weighted_non_max_suppression"])
    + entries("face_alignment.detection.sfd.detect", ["batch_detect"])
    + entries("face_alignment.utils", ["get_preds_fromhm"])
    + entries("face_alignment.detection.retinaface.box_utils", ["decode"]))
LIBRARIES = {"face_alignment": (_cases, ENTRIES)}

if __name__ == "__main__":
    measure_each(LIBRARIES)
