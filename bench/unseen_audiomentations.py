"""torch-audiomentations, a library the analysis was never shown (in neither half of the harness, not
reserved): waveform augmentations applied in a training pipeline, each drawing its random parameters
per example, per channel or per batch (gain, polarity, colored noise, band, high- and low-pass
filters, pitch shift, time shift, splice-out, channel shuffle, peak normalisation, time inversion)
and the compositions that pick among them, under dynamo against the static pass on the same tree.

Run it where torch and torch-audiomentations are installed together (here: `pip install
torch==2.14.1 torch-audiomentations==0.12.0`), from the repository root:

    python bench/unseen_audiomentations.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_audiomentations.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torch_audiomentations
from torch_audiomentations import (AddColoredNoise, BandPassFilter, BandStopFilter, Compose, Gain, HighPassFilter,
                                   LowPassFilter, OneOf, PeakNormalization, PitchShift, PolarityInversion, Shift,
                                   ShuffleChannels, SomeOf, SpliceOut, TimeInversion)

warnings.filterwarnings("ignore")
ROOT = Path(torch_audiomentations.__file__).resolve().parent
ENTRY_POINTS: list[str] = []
RATE = 16000


def cases():
    torch.manual_seed(0)
    audio = torch.randn(2, 2, RATE // 4)
    kw = dict(p=1.0, sample_rate=RATE, output_type="tensor")
    transforms = [
        ("Gain", Gain(**kw)), ("Gain.per_channel", Gain(mode="per_channel", **kw)),
        ("Gain.half", Gain(p=0.5, sample_rate=RATE, output_type="tensor")),
        ("PolarityInversion", PolarityInversion(**kw)), ("AddColoredNoise", AddColoredNoise(**kw)),
        ("BandPassFilter", BandPassFilter(**kw)), ("BandStopFilter", BandStopFilter(**kw)),
        ("HighPassFilter", HighPassFilter(**kw)), ("LowPassFilter", LowPassFilter(**kw)),
        ("PitchShift", PitchShift(**kw)), ("Shift", Shift(**kw)), ("Shift.rollover_off", Shift(rollover=False, **kw)),
        ("SpliceOut", SpliceOut(num_time_intervals=2, max_width=100, **kw)),
        ("ShuffleChannels", ShuffleChannels(**kw)), ("PeakNormalization", PeakNormalization(**kw)),
        ("PeakNormalization.per_batch", PeakNormalization(mode="per_batch", **kw)),
        ("TimeInversion", TimeInversion(**kw)),
        ("Compose", Compose([Gain(p=0.5), PolarityInversion(p=0.5)], output_type="tensor")),
        ("OneOf", OneOf([Gain(p=1.0), PolarityInversion(p=1.0)], output_type="tensor")),
        ("SomeOf", SomeOf((1, 2), [Gain(p=1.0), PolarityInversion(p=1.0), TimeInversion(p=1.0)],
                          output_type="tensor")),
    ]
    out = []
    for name, transform in transforms:
        if name in ("Compose", "OneOf", "SomeOf"):
            out.append((name, lambda a, t=transform: t(a, sample_rate=RATE), (audio,)))
        else:
            out.append((name, transform, (audio,)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torch-audiomentations {torch_audiomentations.__version__}")
