"""SNAC, a multi-scale neural audio codec the analysis was never shown (in neither half of the harness, not reserved):
the codec built small (depthwise convolutions with weight norm, Snake activations, noise blocks, local windowed
attention with rotary embeddings, and the residual vector quantizer over several temporal strides), its `forward`,
`encode` and `decode`, with and without attention and noise, in training and evaluation mode.

Run it where torch and snac are installed together (here: `pip install torch==2.14.1 einops numpy`, then `pip
install --no-deps snac==1.2.1`), from the repository root:

    python bench/unseen_snac.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_snac.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, modes, runnable  # first: it puts the static pass of `--src` on the path

import snac
import torch

warnings.filterwarnings("ignore")
ROOT = Path(snac.__file__).resolve().parent
ENTRY_POINTS = ["snac.snac.SNAC.encode", "snac.snac.SNAC.decode"]


def cases():
    torch.manual_seed(0)
    out = []
    for name, kwargs in (("attention.noise", dict(attn_window_size=8, noise=True)),
                         ("plain", dict(attn_window_size=None, noise=False, depthwise=False))):
        codec = snac.SNAC(sampling_rate=8000, encoder_dim=16, encoder_rates=[2, 2], decoder_dim=64,
                          decoder_rates=[2, 2], codebook_size=32, codebook_dim=4, vq_strides=[4, 2, 1], **kwargs)
        audio = torch.randn(2, 1, 512)
        out += modes(f"SNAC.{name}", codec, (audio,), run=lambda m, x: m(x)[0])
        out.append((f"SNAC.{name}.encode", codec.encode, (audio,)))
        out.append((f"SNAC.{name}.decode", codec.decode, (codec.encode(audio),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"snac {version('snac')}")
