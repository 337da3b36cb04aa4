"""Three small libraries the analysis was never shown (in neither half of the harness, not reserved), each
compiled where a user compiles it: torchattacks (adversarial attacks: FGSM, PGD, the momentum and diverse-input
variants, C&W, DeepFool, APGD, Square, ... run on a small classifier), TorchCAM (class activation maps of a
small CNN: the hooked forward and the map computed from its scores) and Open-Unmix (its spectrogram model in
training and evaluation mode, and the separator with its Wiener filtering).

Run it where torch and the three are installed together (here: `pip install torch==2.14.1 torchattacks torchcam
openunmix torchaudio`), from the repository root:

    python bench/unseen_small_tools.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo broke on
the static pass reports; with `--sites FILE` its answers are kept beside FILE. Results:
bench/results/unseen_small_tools.txt.
"""

import logging
import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch
from torch import nn

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

ATTACKS = ("FGSM", "BIM", "RFGSM", "PGD", "PGDL2", "EOTPGD", "FFGSM", "TPGD", "MIFGSM", "UPGD", "APGD", "APGDT",
           "DIFGSM", "TIFGSM", "Jitter", "NIFGSM", "PGDRS", "SINIFGSM", "VMIFGSM", "VNIFGSM", "CW", "DeepFool",
           "SparseFool", "OnePixel", "Pixle", "FAB", "Square", "SPSA", "JSMA", "EADL1", "EADEN", "GN", "PIFGSM",
           "PIFGSMPP", "VANILA")


def _classifier() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)).eval()


def _attacks():
    import torchattacks

    model = _classifier()
    images = torch.rand(2, 3, 16, 16)
    labels = torch.tensor([0, 3])
    out = []
    for name in ATTACKS:
        make = getattr(torchattacks, name)
        kwargs = {"steps": 2} if "steps" in make.__init__.__code__.co_varnames else {}
        if name in ("OnePixel", "Pixle"):
            kwargs = {"steps": 1, "popsize": 2} if name == "OnePixel" else {"max_iterations": 1, "restarts": 1}
        if name in ("APGDT", "FAB", "Square", "DeepFool", "SparseFool"):
            kwargs = {"n_classes": 4, **kwargs} if name in ("APGDT", "FAB") else kwargs
        try:
            attack = make(model, **kwargs)
        except TypeError:
            attack = make(model)
        out.append((name, lambda x, y, attack=attack: attack(x, y), (images, labels)))
    return out


def _cams():
    from torchcam import methods

    images = torch.rand(2, 3, 16, 16)
    out = []
    for name in ("CAM", "GradCAM", "GradCAMpp", "SmoothGradCAMpp", "XGradCAM", "LayerCAM", "ScoreCAM", "SSCAM",
                 "ISCAM"):
        model = _classifier()
        make = getattr(methods, name)
        kwargs = {"fc_layer": "6"} if name == "CAM" else {"batch_size": 2} if "CAM" in name and "Score" in name else {}
        extractor = make(model, target_layer="2", input_shape=(3, 16, 16), **kwargs)

        def run(x, model=model, extractor=extractor):
            scores = model(x)
            return extractor(scores.argmax(1).tolist(), scores)[0]
        out.append((name, run, (images,)))
        out.append((f"{name}.forward", lambda x, model=model: model(x), (images,)))
    return out


def _unmix():
    from openunmix import model

    spectrogram = torch.rand(8, 1, 2, 257)
    audio = torch.rand(1, 2, 4096)
    unmix = model.OpenUnmix(nb_bins=257, nb_channels=2, hidden_size=16, nb_layers=2, max_bin=128)
    out = modes("OpenUnmix", unmix, (spectrogram.permute(1, 2, 3, 0),))
    for name, niter, residual in (("Separator", 0, False), ("Separator.wiener", 1, False),
                                  ("Separator.residual", 1, True)):
        separator = model.Separator({"vocals": unmix}, niter=niter, residual=residual, n_fft=512, n_hop=128,
                                    wiener_win_len=4).eval()
        out.append((name, lambda a, s=separator: s(a), (audio,)))
    return out


LIBRARIES = {
    "torchattacks": (_attacks, entries("torchattacks.attack", ["Attack.__call__"])),
    "torchcam": (_cams, entries("torchcam.methods.core", ["_CAM.__call__"])),
    "openunmix": (_unmix, entries("openunmix.model", ["Separator.forward"])),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
