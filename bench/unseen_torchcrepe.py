"""torchcrepe, a library the analysis was never shown (in neither half of the harness, not
reserved): CREPE pitch tracking (the tiny model with its shipped weights) through `predict` with
each decoder (argmax, weighted argmax, Viterbi) and with periodicity, `embed`, the pre- and
post-processing steps, the pitch filters (mean, median, their NaN-aware forms), the thresholds
(at, hysteresis, silence), the loudness weighting and the unit conversions, under dynamo against the
static pass on the same tree.

Run it where torch and torchcrepe are installed together (here: `pip install torch==2.14.1
torchcrepe==0.0.24`), from the repository root:

    python bench/unseen_torchcrepe.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchcrepe.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchcrepe
from torchcrepe import convert, decode, filter as filters, loudness, threshold

warnings.filterwarnings("ignore")
ROOT = Path(torchcrepe.__file__).resolve().parent
RATE = 16000
ENTRY_POINTS = [f"torchcrepe.core.{name}" for name in ("predict", "embed", "preprocess", "postprocess", "infer",
                                                       "periodicity", "resample")] + [
    f"torchcrepe.decode.{name}" for name in ("argmax", "weighted_argmax", "viterbi")] + [
    f"torchcrepe.filter.{name}" for name in ("mean", "median", "nanfilter", "nanmean", "nanmedian")] + [
    f"torchcrepe.threshold.{cls}.__call__" for cls in ("At", "Hysteresis", "Silence")] + [
    "torchcrepe.loudness.a_weighted"] + [f"torchcrepe.convert.{name}" for name in (
        "bins_to_frequency", "frequency_to_bins", "cents_to_bins", "bins_to_cents", "dither")]


def cases():
    torch.manual_seed(0)
    t = torch.arange(RATE // 4) / RATE
    audio = (torch.sin(2 * torch.pi * 220 * t) + 0.05 * torch.randn_like(t))[None]
    kw = dict(model="tiny", batch_size=64, device="cpu")
    out = [
        (f"predict.{name}", lambda a, d=fn: torchcrepe.predict(a, RATE, 160, 50.0, 550.0, decoder=d, **kw), (audio,))
        for name, fn in (("argmax", decode.argmax), ("weighted_argmax", decode.weighted_argmax),
                         ("viterbi", decode.viterbi))]
    out.append(("predict.periodicity", lambda a: torchcrepe.predict(a, RATE, 160, return_periodicity=True, **kw),
                (audio,)))
    out.append(("predict.resample", lambda a: torchcrepe.predict(a, 22050, 160, **kw), (audio,)))
    out.append(("embed", lambda a: torchcrepe.embed(a, RATE, 160, **kw), (audio,)))
    logits = torch.randn(1, 360, 50)
    out += [("argmax", decode.argmax, (logits,)), ("weighted_argmax", decode.weighted_argmax, (logits,)),
            ("viterbi", decode.viterbi, (logits,)),
            ("postprocess", lambda p: torchcrepe.core.postprocess(p, 50.0, 550.0, decode.weighted_argmax, True),
             (logits.softmax(1),))]
    pitch = torch.rand(1, 50) * 400 + 80
    with_nans = pitch.clone()
    with_nans[0, ::7] = float("nan")
    periodicity = torch.rand(1, 50)
    out += [("filter.mean", lambda p: filters.mean(p, 3), (pitch,)),
            ("filter.median", lambda p: filters.median(p, 3), (pitch,)),
            ("filter.mean.nan", lambda p: filters.mean(p, 3), (with_nans,)),
            ("filter.median.nan", lambda p: filters.median(p, 3), (with_nans,)),
            ("threshold.At", threshold.At(0.5), (pitch, periodicity)),
            ("threshold.Hysteresis", threshold.Hysteresis(), (pitch, periodicity)),
            ("threshold.Silence", threshold.Silence(), (periodicity, audio, RATE, 160)),
            ("a_weighted", lambda a: loudness.a_weighted(a, RATE, 160), (audio,)),
            ("convert", lambda f: convert.bins_to_frequency(convert.frequency_to_bins(f)), (pitch,)),
            ("dither", convert.dither, (torch.rand(1, 50) * 1000,))]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchcrepe {getattr(torchcrepe, '__version__', '0.0.24')}")
