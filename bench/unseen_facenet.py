"""facenet-pytorch, a library the analysis was never shown (in neither half of the harness, not
reserved): the MTCNN face detector (its three networks with the shipped weights, the image pyramid,
box regression, non-maximum suppression in torch and in NumPy, box padding and squaring, cropping)
through `detect`, `detect_face` and forward on a batch of images, and the Inception-ResNet-v1 face
embedder in eval and training mode, under dynamo against the static pass on the same tree.

Run it where torch and facenet-pytorch are installed together (here: `pip install torch==2.14.1`,
then `pip install --no-deps facenet-pytorch==2.6.0`, whose pins ask for an older torch), from the
repository root:

    python bench/unseen_facenet.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_facenet.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import facenet_pytorch
import torch
from facenet_pytorch import MTCNN, InceptionResnetV1
from facenet_pytorch.models.utils import detect_face

warnings.filterwarnings("ignore")
ROOT = Path(facenet_pytorch.__file__).resolve().parent
ENTRY_POINTS = ["facenet_pytorch.models.mtcnn.MTCNN.detect", "facenet_pytorch.models.utils.detect_face.detect_face",
                "facenet_pytorch.models.utils.detect_face.extract_face"]


def _faces(n: int) -> torch.Tensor:
    """A batch of 160x160 images, each a bright ellipse with two dark eyes on a grey ground: enough of a
    face for some boxes to pass the first networks' thresholds."""
    y, x = torch.meshgrid(torch.arange(160.0), torch.arange(160.0), indexing="ij")
    face = (((x - 80) / 45) ** 2 + ((y - 85) / 60) ** 2 < 1).float() * 120 + 90
    for ex in (62, 98):
        face = face - ((((x - ex) / 8) ** 2 + ((y - 70) / 5) ** 2) < 1).float() * 150
    img = face.clamp(0, 255)[..., None].expand(160, 160, 3)
    return (img + torch.randn(n, 160, 160, 3) * 3).clamp(0, 255)


def cases():
    torch.manual_seed(0)
    imgs = _faces(2)
    out = []
    for name, kwargs in (("MTCNN", {}), ("MTCNN.keep_all", {"keep_all": True}),
                         ("MTCNN.largest", {"select_largest": True, "post_process": False}),
                         ("MTCNN.probability", {"selection_method": "probability", "keep_all": True})):
        mtcnn = MTCNN(image_size=64, thresholds=[0.01, 0.01, 0.01], **kwargs)
        out.append((f"{name}.detect", lambda im, m=mtcnn: m.detect(im, landmarks=True), (imgs,)))
        out.append((name, mtcnn, (imgs,)))
    mtcnn = MTCNN()
    out.append(("detect_face", lambda im: detect_face.detect_face(im, 20, mtcnn.pnet, mtcnn.rnet, mtcnn.onet,
                                                                  [0.01, 0.01, 0.01], 0.709, "cpu"), (imgs,)))
    out.append(("extract_face", lambda im: detect_face.extract_face(im, [20.0, 20.0, 120.0, 130.0], 64, 4),
                (imgs[0].permute(2, 0, 1),)))
    for name, kwargs in (("InceptionResnetV1", {}), ("InceptionResnetV1.classify", {"classify": True,
                                                                                    "num_classes": 10})):
        net = InceptionResnetV1(**kwargs).eval()
        out.append((name, net, (torch.randn(2, 3, 96, 96),)))
    net = InceptionResnetV1(classify=True, num_classes=10)
    out.append(("InceptionResnetV1@train", lambda x: (net.train(), net(x).logsumexp(-1).mean().backward())[1],
                (torch.randn(2, 3, 96, 96),)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, "facenet-pytorch 2.6.0")
