"""Vocos, a neural vocoder library the analysis was never shown (in neither half of the harness, not reserved): the
vocoder built from its parts (mel features, the ConvNeXt and ResNet backbones, with and without adaptive norms, and
the ISTFT head with either padding; its IMDCT heads build their window with a SciPy function SciPy 1.13 dropped, and
are left out), its `forward` and `decode`, the discriminators (multi-period, multi-resolution) and the losses a
training step computes (mel reconstruction, generator, discriminator, feature matching), in training and evaluation
mode.

Run it where torch, torchaudio and vocos are installed together (here: `pip install torch==2.14.1 torchaudio
vocos`), from the repository root:

    python bench/unseen_vocos.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_vocos.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import torch
import vocos
from vocos import discriminators, feature_extractors, heads, loss, models
from vocos.pretrained import Vocos

warnings.filterwarnings("ignore")
ROOT = Path(vocos.__file__).resolve().parent
ENTRY_POINTS = ["vocos.pretrained.Vocos.decode", "vocos.pretrained.Vocos.decode_codes"]


def _heads():
    return {"ISTFTHead": heads.ISTFTHead(32, 256, 64), "ISTFTHead.center": heads.ISTFTHead(32, 256, 64, "center")}


def cases():
    torch.manual_seed(0)
    audio = torch.randn(2, 4096)
    out = []
    features = feature_extractors.MelSpectrogramFeatures(sample_rate=16000, n_fft=256, hop_length=64, n_mels=24)
    for head_name, head in _heads().items():
        for backbone_name, backbone in (("ConvNeXt", models.VocosBackbone(24, 32, 64, 2)),
                                        ("ResNet", models.VocosResNetBackbone(24, 32, 2))):
            vocoder = Vocos(features, backbone, head)
            out += modes(f"Vocos.{backbone_name}.{head_name}", vocoder, (audio,))
            out.append((f"decode.{backbone_name}.{head_name}", vocoder.decode, (torch.randn(2, 24, 40),)))
    adaptive = Vocos(features, models.VocosBackbone(24, 32, 64, 2, adanorm_num_embeddings=4), _heads()["ISTFTHead"])
    out.append(("Vocos.adanorm", lambda a, b: adaptive(a, bandwidth_id=b), (audio, torch.tensor([1]))))
    out += modes("MultiPeriodDiscriminator", discriminators.MultiPeriodDiscriminator(), (audio, audio))
    out += modes("MultiResolutionDiscriminator", discriminators.MultiResolutionDiscriminator(
        fft_sizes=(256, 128, 64)), (audio, audio))
    mel = loss.MelSpecReconstructionLoss(sample_rate=16000, n_fft=256, hop_length=64, n_mels=24)
    out.append(("MelSpecReconstructionLoss", mel, (audio, audio.flip(-1))))
    scores = [torch.randn(2, 10), torch.randn(2, 12)]
    out.append(("GeneratorLoss", loss.GeneratorLoss(), (scores,)))
    out.append(("DiscriminatorLoss", loss.DiscriminatorLoss(), (scores, [s.flip(0) for s in scores])))
    maps = [[torch.randn(2, 4, 8), torch.randn(2, 4, 6)], [torch.randn(2, 4, 5)]]
    out.append(("FeatureMatchingLoss", loss.FeatureMatchingLoss(), (maps, [[m * 2 for m in g] for g in maps])))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"vocos {version('vocos')}")
