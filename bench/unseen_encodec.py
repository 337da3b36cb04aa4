"""EnCodec, Meta's neural audio codec, a library the analysis was never shown (in neither half of the harness,
not reserved): its residual vector quantizer (codebooks initialised by k-means on the first batch, updated by
moving averages, dead codes replaced, in training; encoding and decoding in evaluation), the SEANet encoder and
decoder (causal and not, weight and time-group norms), the whole model at 24 and 48 kHz (segments overlapped
and added, audio normalised), its LSTM and its language model over codes. Each is compiled as a user compiles
a layer or a model, in training and evaluation mode where that differs; the models are built without their
pretrained weights.

Run it where torch and EnCodec are installed together (here: `pip install torch==2.14.1 einops numpy`, then
`pip install --no-deps encodec==0.1.1`; torchaudio, which only its file and discriminator code imports, is not
needed), from the repository root:

    python bench/unseen_encodec.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static
pass reports. Results: bench/results/unseen_encodec.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch

stand_in(["torchaudio"])  # imported at the top of its file helpers and discriminator, which no case runs
import encodec  # noqa: E402
from encodec import modules as m  # noqa: E402
from encodec import quantization as qt  # noqa: E402
from encodec.model import EncodecModel, LMModel  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(encodec.__file__).resolve().parent
ENTRY_POINTS = ["encodec.quantization.vq.ResidualVectorQuantizer.encode",
                "encodec.quantization.vq.ResidualVectorQuantizer.decode",
                "encodec.model.EncodecModel.encode", "encodec.model.EncodecModel.decode"]


def _modes(name, module, args, run=None):
    """A module's cases in training and evaluation mode (`run`: how the case calls it)."""
    call = run or (lambda mod, *a: mod(*a))
    return [(f"{name}@{'train' if t else 'eval'}", lambda *a, mod=module, t=t: call(mod.train(t), *a), args)
            for t in (True, False)]


def cases():
    torch.manual_seed(0)
    out = []
    emb = torch.randn(2, 32, 20)
    for name, kwargs in (("", {}), (".kmeans", {"kmeans_init": True, "kmeans_iters": 2}),
                         (".no_expiry", {"kmeans_init": False, "threshold_ema_dead_code": 0})):
        quantizer = qt.ResidualVectorQuantizer(dimension=32, n_q=4, bins=16, **{"kmeans_init": False, **kwargs})
        out += _modes(f"ResidualVectorQuantizer{name}", quantizer, (emb,),
                      run=lambda mod, x: mod(x, sample_rate=100, bandwidth=1.6).quantized)
    quantizer = qt.ResidualVectorQuantizer(dimension=32, n_q=4, bins=16, kmeans_init=False).eval()
    out.append(("ResidualVectorQuantizer.encode", lambda x, q=quantizer: q.encode(x, 100, 1.6), (emb,)))
    codes = quantizer.encode(emb, 100, 1.6)
    out.append(("ResidualVectorQuantizer.decode", lambda c, q=quantizer: q.decode(c), (codes,)))
    wav = torch.randn(1, 1, 4000)
    for causal, norm in ((True, "weight_norm"), (False, "time_group_norm")):
        encoder = m.SEANetEncoder(channels=1, dimension=32, n_filters=4, ratios=[4, 4], causal=causal, norm=norm)
        decoder = m.SEANetDecoder(channels=1, dimension=32, n_filters=4, ratios=[4, 4], causal=causal, norm=norm)
        tag = "causal" if causal else "noncausal"
        out += _modes(f"SEANetEncoder.{tag}", encoder, (wav,))
        out += _modes(f"SEANetDecoder.{tag}", decoder, (torch.randn(1, 32, 250),))
    out += _modes("SLSTM", m.SLSTM(32, num_layers=2), (emb,))
    for name, kwargs in (("24khz", {"causal": True, "model_norm": "weight_norm", "audio_normalize": False}),
                         ("48khz", {"causal": False, "model_norm": "time_group_norm", "audio_normalize": True,
                                    "segment": 0.05})):
        channels = 1 if name == "24khz" else 2
        model = EncodecModel._get_model([1.5, 3.0], sample_rate=8000, channels=channels, **kwargs)
        model.set_target_bandwidth(1.5)
        audio = torch.randn(1, channels, 1600)
        out += _modes(f"EncodecModel.{name}", model, (audio,))
        out.append((f"EncodecModel.{name}.encode", lambda x, mod=model: mod.eval().encode(x)[0][0], (audio,)))
    lm = LMModel(n_q=2, card=16, dim=32, num_layers=2, past_context=8)
    indices = torch.randint(0, 16, (1, 2, 10))
    out += _modes("LMModel", lm, (indices,), run=lambda mod, i: mod(i)[0])
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"encodec {version('encodec')}")
