"""Demucs and EnCodec, two audio libraries the analysis was never shown (in neither half of the
harness, not reserved), under dynamo against the static pass on the same tree:

- demucs: the waveform Demucs, the hybrid HDemucs and the hybrid transformer HTDemucs (small, random
  weights) in eval and training mode, the training augmentations (shift, channel flip, sign flip,
  remix, scale), a bag of models, the chunked `apply_model` with shifts and overlap, and the Wiener
  filter;
- encodec: the 24 and 48 kHz EnCodec models (random weights) through `encode`, `decode` and forward,
  in eval and training mode, its SEANet encoder and decoder, the residual vector quantizer in both
  modes, and its small language model.

Run it where torch, demucs and encodec are installed together (here: `pip install torch==2.14.1
demucs==4.1.0 encodec==0.1.1`), from the repository root:

    python bench/unseen_demucs.py demucs|encodec [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_demucs.txt and unseen_encodec.txt.
"""

import sys
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
LIBRARY = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "demucs"


def _train(model, loss):
    def step(x):
        model.train()
        out = model(x)
        value = loss(out, x)
        value.backward()
        return value
    return step


def demucs_cases():
    from demucs import augment
    from demucs.apply import BagOfModels, apply_model
    from demucs.demucs import Demucs
    from demucs.hdemucs import HDemucs, wiener
    from demucs.htdemucs import HTDemucs

    torch.manual_seed(0)
    sources = ["drums", "bass", "other", "vocals"]
    wav = torch.randn(1, 2, 44100 // 4)
    models = [
        ("Demucs", Demucs(sources, channels=8, depth=4)),
        ("HDemucs", HDemucs(sources, channels=8, depth=4, nfft=512)),
        ("HTDemucs", HTDemucs(sources, channels=8, depth=3, nfft=512, t_layers=1, bottom_channels=0,
                              t_hidden_scale=1.0, segment=1)),
    ]
    out = []
    for name, model in models:
        model.eval()
        out.append((name, model, (wav,)))
        out.append((f"{name}@train", _train(model, lambda o, x: (o.sum(1) - x).abs().mean()), (wav,)))
    out += [
        ("Shift", augment.Shift(shift=100), (torch.randn(2, 4, 2, 2000),)),
        ("FlipChannels", augment.FlipChannels(), (torch.randn(2, 4, 2, 2000),)),
        ("FlipSign", augment.FlipSign(), (torch.randn(2, 4, 2, 2000),)),
        ("Remix", augment.Remix(group_size=2), (torch.randn(4, 4, 2, 2000),)),
        ("Scale", augment.Scale(), (torch.randn(2, 4, 2, 2000),)),
        ("wiener", lambda mag, mix: wiener(mag, mix, niters=1), (torch.rand(1, 4, 2, 33, 16),
                                                                 torch.randn(1, 2, 33, 16, dtype=torch.cfloat))),
    ]
    bag = BagOfModels([models[0][1], models[0][1]])
    bag.eval()
    out.append(("apply_model", lambda x: apply_model(bag, x, shifts=1, split=True, overlap=0.25, segment=0.1,
                                                     progress=False), (wav,)))
    return out


def encodec_cases():
    from encodec import EncodecModel
    from encodec.model import LMModel
    from encodec.modules import SEANetDecoder, SEANetEncoder
    from encodec.quantization import ResidualVectorQuantizer

    torch.manual_seed(0)
    out = []
    for name, build, channels in (("24k", EncodecModel.encodec_model_24khz, 1),
                                  ("48k", EncodecModel.encodec_model_48khz, 2)):
        model = build(pretrained=False)
        model.eval()
        wav = torch.randn(1, channels, 24000 // 8 if name == "24k" else 48000 // 8)
        out.append((f"encodec{name}", model, (wav,)))
        out.append((f"encodec{name}.encode", model.encode, (wav,)))
        frames = model.encode(wav)
        out.append((f"encodec{name}.decode", model.decode, (frames,)))
        out.append((f"encodec{name}@train", _train(model, lambda o, x: (o - x).abs().mean()), (wav,)))
    encoder, decoder = SEANetEncoder(), SEANetDecoder()
    out.append(("SEANetEncoder", encoder, (torch.randn(1, 1, 3200),)))
    out.append(("SEANetDecoder", decoder, (torch.randn(1, 128, 10),)))
    rvq = ResidualVectorQuantizer(dimension=128, n_q=4, bins=64)
    rvq.eval()
    out.append(("RVQ", lambda x: rvq(x, sample_rate=75, bandwidth=1.5), (torch.randn(1, 128, 10),)))
    out.append(("RVQ.encode", lambda x: rvq.encode(x, sample_rate=75, bandwidth=1.5), (torch.randn(1, 128, 10),)))
    out.append(("RVQ@train", lambda x: (rvq.train(), rvq(x, sample_rate=75))[1], (torch.randn(1, 128, 10),)))
    lm = LMModel(n_q=4, card=64, dim=32, num_layers=2)
    lm.eval()
    out.append(("LMModel", lm, (torch.randint(0, 64, (1, 4, 5)),)))
    return out


if __name__ == "__main__":
    module = __import__(LIBRARY)
    root = Path(module.__file__).resolve().parent
    cases = demucs_cases if LIBRARY == "demucs" else encodec_cases
    entry_points = ["demucs.apply.apply_model", "demucs.hdemucs.wiener"] if LIBRARY == "demucs" else []
    measure(root, cases, entry_points, f"{LIBRARY} {getattr(module, '__version__', '')}".strip())
