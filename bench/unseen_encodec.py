"""EnCodec, a neural audio codec library the analysis was never shown (in neither half of the harness, not
reserved): the codec built small from its parts (SEANet encoder and decoder, causal and not, with weight or time
group norms and LSTMs, the residual vector quantizer with k-means initialization and dead-code expiry), its
`forward`, `encode` and `decode` (whole and in overlapping segments, with and without volume normalization), the
quantizer alone in training and evaluation mode, its language model over codes (a streaming transformer), and the
multi-scale STFT discriminator.

Run it where torch and encodec are installed together (here: `pip install torch==2.14.1 einops numpy`, then
`pip install --no-deps encodec==0.1.1`), from the repository root:

    python bench/unseen_encodec.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_encodec.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import encodec
import torch
from encodec import modules, msstftd, quantization
from encodec.model import EncodecModel, LMModel

warnings.filterwarnings("ignore")
ROOT = Path(encodec.__file__).resolve().parent
ENTRY_POINTS = ["encodec.model.EncodecModel.encode", "encodec.model.EncodecModel.decode",
                "encodec.quantization.vq.ResidualVectorQuantizer.encode",
                "encodec.quantization.vq.ResidualVectorQuantizer.decode"]


def _codec(norm: str, causal: bool, normalize: bool, segment):
    kwargs = dict(channels=1, dimension=16, n_filters=4, ratios=[4, 2], norm=norm, causal=causal, lstm=1)
    encoder = modules.SEANetEncoder(**kwargs)
    decoder = modules.SEANetDecoder(**kwargs)
    quantizer = quantization.ResidualVectorQuantizer(dimension=16, n_q=4, bins=32, kmeans_iters=2)
    return EncodecModel(encoder, decoder, quantizer, [1.5, 3.0], 2400, 1, normalize=normalize, segment=segment,
                        name="small")


def cases():
    torch.manual_seed(0)
    audio = torch.randn(2, 1, 2400)
    out = []
    for norm, causal, normalize, segment in (("weight_norm", True, False, None), ("time_group_norm", False, True, None),
                                             ("weight_norm", False, True, 0.5)):
        name = f"Encodec.{norm}.{'causal' if causal else 'noncausal'}{'.normalized' if normalize else ''}" \
               f"{'.segmented' if segment else ''}"
        codec = _codec(norm, causal, normalize, segment)
        codec.set_target_bandwidth(3.0)
        out += modes(name, codec, (audio,))
        out.append((f"{name}.encode", lambda x, c=codec: c.encode(x), (audio,)))
        frames = codec.encode(audio)
        out.append((f"{name}.decode", lambda f, c=codec: c.decode(f), (frames,)))
    quantizer = quantization.ResidualVectorQuantizer(dimension=16, n_q=4, bins=32, kmeans_iters=2)
    emb = torch.randn(2, 16, 40)
    out += modes("ResidualVectorQuantizer", quantizer, (emb, 75, 3.0), run=lambda q, *a: q(*a).quantized)
    warm = quantization.ResidualVectorQuantizer(dimension=16, n_q=4, bins=32, kmeans_iters=2)
    warm.train()(emb, 75, 3.0)  # its codebooks initialized: later steps take the update and expiry path
    out += modes("ResidualVectorQuantizer.warm", warm, (emb, 75, 3.0), run=lambda q, *a: q(*a).quantized)
    out.append(("ResidualVectorQuantizer.encode", lambda x: warm.encode(x, 75, 3.0), (emb,)))
    out.append(("ResidualVectorQuantizer.decode", warm.decode, (warm.encode(emb, 75, 3.0),)))
    lm = LMModel(n_q=4, card=32, dim=16, num_heads=2, num_layers=2, past_context=8)
    out += modes("LMModel", lm, (torch.randint(0, 33, (2, 4, 6)),), run=lambda m, i: m(i)[0])
    out += modes("MultiScaleSTFTDiscriminator", msstftd.MultiScaleSTFTDiscriminator(
        filters=4, n_ffts=[64, 128], hop_lengths=[16, 32], win_lengths=[64, 128]), (audio,),
        run=lambda m, x: m(x)[0])
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"encodec {version('encodec')}")
